"""cordon-mcp's settings: the Config, its JSON file, its options (each
described in --help) and their checks (cordon-mcp(1), OPTIONS and CONFIG).
One job: what the server is told, checked once, before anything starts."""
from __future__ import annotations

import argparse
import dataclasses
import json
from typing import Sequence

from . import __version__
from . import _mcphttp
from . import session as sess
from ._mcpsize import TEXT_BUDGET


@dataclasses.dataclass
class Config:
    """What the server exposes and its bounds (cordon-mcp(1), CONFIG)."""
    policy_dir: str | None = None
    tools: list[str] | None = None      # None: every policy in policy_dir
    warm: list[str] = dataclasses.field(default_factory=list)
    concurrency: int = 4                # runs at once per policy
    max_calls: int = 32                 # tools/call in flight, queued too
    max_pending_bytes: int = 64 << 20   # their request lines, together
    max_timeout: float = 300.0          # seconds a call may ask for
    max_line: int = 16 << 20            # bytes of one JSON-RPC message
    max_input_bytes: int = 8 << 20      # input files of one call, decoded
    max_output_bytes: int = 16 << 20    # output files of one call
    max_output_files: int = 32
    max_text_bytes: int = TEXT_BUDGET   # a result's text shown
    max_sessions: int = sess.DEFAULT_MAX_SESSIONS   # live at once
    session_idle: float = sess.DEFAULT_IDLE_TIMEOUT  # seconds between cells
    session_max_age: float = 0.0        # seconds; 0: the policy's bound
    cordon: str | None = None
    cordonc: str | None = None
    http: str | None = None             # HOST:PORT: Streamable HTTP
    http_token_file: str | None = None  # bearer tokens, one a line
    http_allow_origin: list[str] = dataclasses.field(default_factory=list)
    http_max_connections: int = 32      # open at once
    http_max_clients: int = 16          # MCP sessions open at once
    http_session_idle: float = 3600.0   # seconds before one is ended
    landlock_watch: bool = False        # runs name Landlock's refusals


_KEYS = {f.name: f.type for f in dataclasses.fields(Config)}


class ConfigFail(Exception):
    pass


def _load_file(path: str, cfg: Config) -> None:
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
    except (OSError, ValueError) as e:
        raise ConfigFail(f"{path}: {e}") from None
    if not isinstance(data, dict):
        raise ConfigFail(f"{path}: a JSON object is required")
    for key, val in data.items():
        if key not in _KEYS:
            raise ConfigFail(f"{path}: unknown key {key!r} (known: "
                             f"{', '.join(sorted(_KEYS))})")
        want = type(getattr(Config(), key))
        ok = (isinstance(val, bool) if want is bool else
              isinstance(val, list) and all(isinstance(x, str) for x in val)
              if key in ("tools", "warm", "http_allow_origin") else
              isinstance(val, str) if key in ("policy_dir", "cordon",
                                               "cordonc", "http",
                                               "http_token_file") else
              isinstance(val, (int, float)) and not isinstance(val, bool)
              and (want is float or isinstance(val, int)))
        if not ok:
            raise ConfigFail(f"{path}: {key}: wrong type {type(val).__name__}")
        setattr(cfg, key, val)


# Each numeric option: its type and what it bounds (cordon-mcp(1)).
_NUMERIC = (
    ("concurrency", int, "runs at once per policy (default 4)"),
    ("max-calls", int, "tools/call requests in flight, queued ones too; "
     "past it a call is refused as busy (default 32)"),
    ("max-pending-bytes", int, "bytes of the request lines of the calls "
     "in flight, together (default 64 MiB)"),
    ("max-timeout", float, "seconds a call may run: it bounds every "
     "call's timeout, asked or the policy's (default 300)"),
    ("max-line", int, "bytes of one JSON-RPC message; a longer line is "
     "answered with an error and dropped (default 16 MiB)"),
    ("max-input-bytes", int, "bytes of one call's input files, decoded "
     "(default 8 MiB)"),
    ("max-output-bytes", int, "bytes of output files one run may leave "
     "(default 16 MiB)"),
    ("max-output-files", int, "output files one run may leave "
     "(default 32)"),
    ("max-text-bytes", int, "bytes of stdout and stderr shown in a "
     "result, head and tail (default %d)" % TEXT_BUDGET),
    ("max-sessions", int, "sessions live at once (default %d)"
     % sess.DEFAULT_MAX_SESSIONS),
    ("session-idle", float, "seconds a session may wait between cells "
     "before it ends (default %g)" % sess.DEFAULT_IDLE_TIMEOUT),
    ("session-max-age", float, "seconds a session may live in all; 0: "
     "the policy's session bound; longer: refused (default 0)"),
    ("http-max-connections", int, "HTTP connections open at once "
     "(default 32)"),
    ("http-max-clients", int, "MCP sessions open at once over HTTP "
     "(default 16)"),
    ("http-session-idle", float, "seconds an MCP session over HTTP may be "
     "idle before it ends (default 3600)"),
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cordon-mcp", description="MCP server (stdio or Streamable HTTP) running Python "
        "under cordon policies; it serves MCP 2026-07-28 (stateless) and "
        "2025-11-25 back to 2024-11-05 (initialize).  See cordon-mcp(1).")
    p.add_argument("--config", metavar="FILE",
                   help="read settings from this JSON file (keys as the "
                   "long options, with _ for -); options given here win")
    p.add_argument("--policy-dir", metavar="DIR",
                   help="the compiled policies (.cpol) to serve (default: "
                   "the folder beside cordon)")
    p.add_argument("--tool", action="append", dest="tools", metavar="NAME",
                   help="expose this policy (repeat; default: all)")
    p.add_argument("--warm", action="append", metavar="NAME",
                   help="run this policy's calls in a warm pool (repeat)")
    p.add_argument("--landlock-watch", action="store_true", default=None,
                   help="for policy authors: every run_code names what "
                   "Landlock refused, with the rule to add, where the "
                   "kernel's audit cannot (cordon --landlock-watch; "
                   "slower, and such runs are cold)")
    for name, kind, what in _NUMERIC:
        p.add_argument("--" + name, type=kind, metavar="N", help=what)
    p.add_argument("--cordon", metavar="PATH",
                   help="the cordon launcher (default: $CORDON_BIN, else "
                   "cordon on PATH)")
    p.add_argument("--cordonc", metavar="PATH",
                   help="the policy compiler explain_policy uses (default: "
                   "$CORDONC_BIN, else cordonc on PATH)")
    p.add_argument("--http", metavar="HOST:PORT",
                   help="serve Streamable HTTP at http://HOST:PORT/mcp "
                   "instead of stdio (off loopback: --http-token-file)")
    p.add_argument("--http-token-file", metavar="FILE",
                   help="bearer tokens, one a line (a client each); the "
                   "file not readable by others")
    p.add_argument("--http-allow-origin", action="append", metavar="ORIGIN",
                   help="a browser Origin allowed (repeat)")
    p.add_argument("--version", action="version",
                   version=f"cordon-mcp {__version__}",
                   help="print the version and exit")
    return p


def _check_bound(key: str, kind: type, val: float) -> None:
    """Each numeric option's floor, read from _NUMERIC: a count at least
    1, a time above 0; session_max_age 0 means the policy's bound."""
    if key == "session_max_age":
        if not val >= 0:
            raise ConfigFail("session_max_age must be >= 0 (0: the "
                             "policy's session bound)")
    elif kind is int:
        if val < 1:
            raise ConfigFail(f"{key} must be >= 1")
    elif not val > 0:
        raise ConfigFail(f"{key} must be > 0")


def parse_config(argv: Sequence[str]) -> Config:
    a = _parser().parse_args(argv)
    cfg = Config()
    if a.config:
        _load_file(a.config, cfg)
    for key in _KEYS:
        val = getattr(a, key, None)
        if val is not None:
            setattr(cfg, key, val)
    for name, kind, _ in _NUMERIC:
        _check_bound(name.replace("-", "_"), kind, getattr(cfg,
                     name.replace("-", "_")))
    if cfg.http is not None:
        try:
            _mcphttp.check_config(cfg.http, cfg.http_token_file,
                                  cfg.http_allow_origin)
        except _mcphttp.HttpConfigFail as e:
            raise ConfigFail(str(e)) from None
    return cfg
