"""cordon-runtime: the in-pod runtime of kubernetes-sigs/agent-sandbox
(its python-runtime contract and sandboxd's REST /v1/files, /v1/health,
/v1/metadata) with each execute one cordon run under a named policy.
See cordon-runtime(1).

    python3 -m cordon.runtime --policy NAME [--policy NAME]... \\
        [--listen HOST:PORT] [--token-file FILE] [--root DIR] [--warm] \\
        [--credential [POLICY:]NAME=@FILE]...
"""
from __future__ import annotations

import argparse
import asyncio
import logging
import os
import pathlib
import re
import signal
import sys
from typing import Any, Sequence

from . import __version__
from . import _rtfiles as files
from ._mcphttp import HttpConfigFail, load_tokens, loopback, parse_listen
from ._mcphttpio import MAX_HEAD
from ._rtexec import Bounds, Runs
from ._rtserve import Health, Server
from .client import Client
from .errors import CordonError
from .outputs import OutputLimits

log = logging.getLogger("cordon.runtime")
DEFAULT_LISTEN = "127.0.0.1:8888"   # the python-runtime's port
_CRED = re.compile(r"^(?:([a-z0-9_-]{1,64}):)?([A-Za-z_][A-Za-z0-9_]*)=@(.+)$")


class Fail(Exception):
    pass


def options() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="cordon-runtime", description="agent-sandbox's in-pod "
        "runtime API, each execute one cordon run (cordon-runtime(1))")
    a = ap.add_argument
    a("--policy", action="append", required=True, metavar="NAME",
      help="a policy runs are made under (repeat: the set; the first is "
      "the default, a request's \"policy\" picks another)")
    a("--policy-dir", help="the compiled policies (default: beside cordon)")
    a("--cordon", help="the launcher (default $CORDON_BIN, then PATH)")
    a("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT",
      help=f"where to listen (default {DEFAULT_LISTEN}; off loopback only "
      "with --token-file)")
    a("--token-file", help="bearer tokens, one a line, mode o-rwx: asked "
      "of every request but the probes (GET /, GET /v1/health)")
    a("--root", default=os.environ.get("SANDBOX_BASE_DIR") or "/workspace",
      help="the workspace: files served and copied into each run "
      "(default $SANDBOX_BASE_DIR, else /workspace)")
    a("--work-root", help="where run folders are made (default $TMPDIR)")
    a("--warm", action="store_true", help="runs from warm pools "
      "(cordon --serve), one per policy, started on first use")
    a("--credential", action="append", default=[],
      metavar="[POLICY:]NAME=@FILE", help="cordon --credential NAME=@FILE "
      "for the runs of POLICY (default: every policy); cordon reads FILE")
    a("--max-runs", type=int, default=4, help="runs at once (4)")
    a("--max-queue", type=int, default=16,
      help="runs waiting for a place; more are answered 503 (16)")
    a("--max-sessions", type=int, default=8, help="sessions live (8)")
    a("--max-connections", type=int, default=64, help="connections (64)")
    a("--max-file", type=int, default=64 << 20,
      help="bytes of a file read or written (64 MiB)")
    a("--max-tree", type=int, default=256 << 20,
      help="bytes of the workspace copied into a run (256 MiB)")
    a("--max-entries", type=int, default=10_000,
      help="entries of the workspace or a listing (10000)")
    a("--health-every", type=float, default=10.0,
      help="seconds a cordon --check result is kept (10)")
    a("--version", action="version", version=f"cordon-runtime {__version__}")
    return ap


def credentials(specs: Sequence[str], policies: list[str]
                ) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {p: {} for p in policies}
    for spec in specs:
        m = _CRED.match(spec)
        if not m:
            raise Fail(f"--credential {spec!r}: [POLICY:]NAME=@FILE")
        pol, name, path = m.groups()
        if pol is not None and pol not in policies:
            raise Fail(f"--credential {spec!r}: {pol!r} is not a --policy")
        if not os.access(path, os.R_OK):
            raise Fail(f"--credential {name}: cannot read {path}")
        for p in [pol] if pol else policies:
            out[p][name] = pathlib.Path(os.path.abspath(path))
    return out


def build(ns: argparse.Namespace) -> tuple[Server, str, int]:
    for k in ("max_runs", "max_sessions", "max_connections", "max_file",
              "max_tree", "max_entries"):
        if getattr(ns, k) < 1:
            raise Fail(f"--{k.replace('_', '-')} must be >= 1")
    if ns.max_queue < 0 or not ns.health_every >= 0:
        raise Fail("--max-queue and --health-every must be >= 0")
    policies = list(dict.fromkeys(ns.policy))
    try:
        host, port = parse_listen(ns.listen)
        tokens = load_tokens(ns.token_file) if ns.token_file else []
    except HttpConfigFail as e:
        raise Fail(str(e)) from None
    if not loopback(host) and not tokens:
        raise Fail(f"--listen {ns.listen}: off loopback only with "
                   "--token-file (bearer tokens)")
    root = os.path.abspath(ns.root)
    if not os.path.isdir(root):
        raise Fail(f"--root {root}: not a folder")
    lim = files.Limits(max_file=ns.max_file, max_entries=ns.max_entries,
                       max_tree=ns.max_tree, max_tree_entries=ns.max_entries)
    client = Client(ns.policy_dir, cordon=ns.cordon, warm=ns.warm,
                    work_root=ns.work_root, concurrency=ns.max_runs,
                    output_limits=OutputLimits(
                        max_files=ns.max_entries, max_file_bytes=ns.max_file,
                        max_total_bytes=ns.max_tree,
                        max_entries=ns.max_entries))
    for p in policies:
        client.policies.load(p)         # a name that is no policy: now
    runs = Runs(client, policies, root, lim,
                Bounds(ns.max_runs, ns.max_queue, ns.max_sessions),
                credentials(ns.credential, policies))
    health = Health(client, policies, ns.health_every)
    return Server(runs, health, host, tokens, ns.max_connections), host, port


async def serve(server: Server, host: str, port: int) -> None:
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or
                                stop.set_result(None))
    srv = await asyncio.start_server(server.connection, host, port,
                                     limit=MAX_HEAD)
    for s in srv.sockets:
        name = s.getsockname()
        log.warning("serving on http://%s:%d/ (%s; policies %s)",
                    f"[{name[0]}]" if ":" in name[0] else name[0], name[1],
                    "tokens" if server.tokens else "no tokens: loopback",
                    ", ".join(server.runs.policies))
    why = await server.health.check()
    sweeper = asyncio.ensure_future(server.runs.sweep())
    if why:
        log.warning("not healthy at the start: %s", why)
    try:
        await stop
    finally:
        sweeper.cancel()
        srv.close()
        await server.runs.close_all()
        await loop.run_in_executor(None, server.runs.client.close)


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="cordon-runtime: %(message)s")
    ns = options().parse_args(argv)
    try:
        server, host, port = build(ns)
    except (Fail, CordonError, OSError) as e:
        print(f"cordon-runtime: {e}", file=sys.stderr)
        return 2
    try:
        asyncio.run(serve(server, host, port))
    except OSError as e:
        print(f"cordon-runtime: --listen {ns.listen}: {e.strerror or e}",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
