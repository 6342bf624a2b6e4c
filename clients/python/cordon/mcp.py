"""cordon-mcp: an MCP server (Model Context Protocol, over stdio) whose
tools run Python under cordon policies.  See cordon-mcp(1).

    python3 -m cordon.mcp [--config FILE] [--policy-dir DIR] [--tool NAME]...

Standard library only: JSON-RPC 2.0, one message a line, on stdin and
stdout (logs go to stderr); every tools/call is an asyncio task, answered
when it ends, so several run at once.
"""
from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import logging
import os
import signal
import subprocess
import sys
import time
from typing import Any, Sequence

from . import __version__, _discover
from . import _jsonrpc as rpc
from . import _mcptools as tools
from ._mcpsize import TEXT_BUDGET
from . import session as sess
from ._mcpsessions import SessionRefused, Sessions
from .blob import BlobInfo
from .client import Client
from .errors import CordonError, InputError
from .outputs import OutputLimits

LATEST = "2025-06-18"
SUPPORTED = (LATEST, "2025-03-26", "2024-11-05")
BATCHES = ("2025-03-26", "2024-11-05")  # JSON-RPC batches: 2025-06-18 cut
PROGRESS_EVERY = 5.0        # seconds between progress notifications
log = logging.getLogger("cordon.mcp")


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
        ok = (isinstance(val, list) and all(isinstance(x, str) for x in val)
              if key in ("tools", "warm") else
              isinstance(val, str) if key in ("policy_dir", "cordon",
                                               "cordonc") else
              isinstance(val, (int, float)) and not isinstance(val, bool)
              and (want is float or isinstance(val, int)))
        if not ok:
            raise ConfigFail(f"{path}: {key}: wrong type {type(val).__name__}")
        setattr(cfg, key, val)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="cordon-mcp", description="MCP server (stdio) running Python "
        "under cordon policies; see cordon-mcp(1).")
    p.add_argument("--config", metavar="FILE")
    p.add_argument("--policy-dir", metavar="DIR")
    p.add_argument("--tool", action="append", dest="tools", metavar="NAME",
                   help="expose this policy (repeat; default: all)")
    p.add_argument("--warm", action="append", metavar="NAME",
                   help="run this policy's calls in a warm pool (repeat)")
    for name, kind in (("concurrency", int), ("max-calls", int),
                       ("max-pending-bytes", int), ("max-timeout", float),
                       ("max-line", int), ("max-input-bytes", int),
                       ("max-output-bytes", int), ("max-output-files", int),
                       ("max-text-bytes", int),
                       ("max-sessions", int), ("session-idle", float),
                       ("session-max-age", float)):
        p.add_argument("--" + name, type=kind, metavar="N")
    p.add_argument("--cordon", metavar="PATH")
    p.add_argument("--cordonc", metavar="PATH")
    p.add_argument("--version", action="version",
                   version=f"cordon-mcp {__version__}")
    return p


def parse_config(argv: Sequence[str]) -> Config:
    a = _parser().parse_args(argv)
    cfg = Config()
    if a.config:
        _load_file(a.config, cfg)
    for key in _KEYS:
        val = getattr(a, key, None)
        if val is not None:
            setattr(cfg, key, val)
    for key in ("concurrency", "max_calls", "max_pending_bytes", "max_line",
                "max_input_bytes", "max_output_bytes", "max_output_files",
                "max_text_bytes", "max_sessions"):
        if getattr(cfg, key) < 1:
            raise ConfigFail(f"{key} must be >= 1")
    for key in ("max_timeout", "session_idle"):
        if not getattr(cfg, key) > 0:
            raise ConfigFail(f"{key} must be > 0")
    if not cfg.session_max_age >= 0:
        raise ConfigFail("session_max_age must be >= 0 (0: the policy's "
                         "session bound)")
    return cfg


class Server:
    """One MCP session on a channel: the protocol state and the calls in
    flight (request id -> task)."""

    def __init__(self, cfg: Config, cold: Client, warm: Client | None,
                 infos: dict[str, BlobInfo], cordonc: str | None) -> None:
        self.cfg, self.cold, self.warm = cfg, cold, warm
        self.infos, self.cordonc = infos, cordonc
        self.sessions = Sessions(cold, warm, cfg)
        self.version: str | None = None
        self.calls: dict[Any, asyncio.Task[None]] = {}
        self.pending_bytes = 0              # the calls' request lines
        self.chan: rpc.Channel | None = None
        self.stopping: "asyncio.Future[None] | None" = None

    def send(self, msg: dict[str, Any]) -> None:
        assert self.chan is not None
        self.chan.send(msg)

    async def serve(self, chan: rpc.Channel) -> None:
        self.chan = chan
        while True:
            kind, line = await chan.next()
            if kind == rpc.EOF:
                return
            try:
                self.take(kind, line)
            except Exception:           # a bug: said, and the server goes on
                log.exception("a message could not be handled")
                self.send(rpc.error(None, rpc.RpcError(
                    rpc.INTERNAL_ERROR, "internal error (the server's log "
                    "says more)")))

    def take(self, kind: str, line: bytes) -> None:
        """One line: answered, or dropped (a notification, a response)."""
        if kind == rpc.TOO_LONG:
            self.send(rpc.error(None, rpc.RpcError(
                rpc.INVALID_REQUEST,
                f"message longer than {self.cfg.max_line} bytes: dropped")))
            return
        if not line.strip():
            return
        try:
            value = rpc.load(line)
        except rpc.BadMessage as e:
            self.send(rpc.error(None, e.err))
            return
        if isinstance(value, list):
            self.batch(value, len(line))
        else:
            self.handle(value, len(line), self.reply)

    def reply(self, msg: dict[str, Any] | None) -> None:
        if msg is not None:
            self.send(msg)

    def batch(self, items: list[Any], size: int) -> None:
        """A batch: its answers in one array, where the revision served
        has batches (2025-06-18 removed them); one error otherwise."""
        if self.version not in BATCHES or not items:
            why = ("an empty batch" if self.version in BATCHES else
                   f"batches are not supported in {self.version or LATEST}"
                   " (2025-03-26 and 2024-11-05 have them)")
            self.send(rpc.error(None, rpc.RpcError(rpc.INVALID_REQUEST,
                                                   why)))
            return
        b = rpc.Batch(self.send)
        for item in items:
            self.handle(item, size // len(items) + 1, b.add(), True)
        b.close()

    def handle(self, value: Any, size: int, reply: rpc.Reply,
               batched: bool = False) -> None:
        """One message: reply is said once, with its answer or None."""
        try:
            req_id, msg = rpc.check(value)
        except rpc.BadMessage as e:
            if not e.answer:
                log.info("notification dropped: %s", e.err.message)
            reply(rpc.error(e.req_id, e.err) if e.answer else None)
            return
        if msg is None or "id" not in msg:
            if msg is not None:
                self.notified(msg["method"], msg.get("params") or {})
            reply(None)
            return
        try:
            if batched and msg["method"] == "initialize":
                raise rpc.RpcError(rpc.INVALID_REQUEST,
                                   "initialize cannot be in a batch")
            self.request(req_id, msg["method"], msg.get("params") or {},
                         size, reply)
        except rpc.RpcError as e:
            reply(rpc.error(req_id, e))

    def notified(self, method: str, params: dict[str, Any]) -> None:
        rid = params.get("requestId")
        if method == "notifications/cancelled" and rpc.valid_id(rid):
            task = self.calls.get(rid)
            if task is not None:
                log.info("request %r cancelled", rid)
                task.cancel()
        # notifications/initialized and others: nothing to do.

    def request(self, req_id: Any, method: str, params: dict[str, Any],
                size: int, reply: rpc.Reply) -> None:
        if method == "initialize":
            reply(rpc.response(req_id, self.initialize(params)))
            return
        if method == "ping":
            reply(rpc.response(req_id, {}))
            return
        if self.version is None:
            raise rpc.RpcError(rpc.INVALID_REQUEST,
                               "not initialized: send initialize first")
        if method == "tools/list":
            reply(rpc.response(req_id, {"tools": tools.tool_list(
                self.infos, self.cfg.max_timeout, self.version,
                self.cordonc)}))
            return
        if method != "tools/call":
            raise rpc.RpcError(rpc.METHOD_NOT_FOUND,
                               f"method not found: {method}")
        if req_id in self.calls:
            raise rpc.RpcError(rpc.INVALID_REQUEST,
                               f"request id {req_id!r} is already in use")
        self.admit(size)
        task = asyncio.ensure_future(self.answer(req_id, params, reply))
        self.calls[req_id] = task
        self.pending_bytes += size

        def done(_t: "asyncio.Task[None]") -> None:
            self.calls.pop(req_id, None)
            self.pending_bytes -= size
            reply(None)     # said already, unless cancelled before it ran
        task.add_done_callback(done)

    def admit(self, size: int) -> None:
        """Refuse a call past max_calls, or one whose request would pass
        max_pending_bytes with others in flight."""
        if len(self.calls) >= self.cfg.max_calls:
            raise rpc.RpcError(rpc.SERVER_BUSY, f"busy: {len(self.calls)} "
                               "calls in flight (max_calls); call again "
                               "when one has been answered")
        if self.calls and \
                self.pending_bytes + size > self.cfg.max_pending_bytes:
            raise rpc.RpcError(rpc.SERVER_BUSY, "busy: the calls in flight "
                               f"hold {self.pending_bytes} bytes of requests"
                               " (max_pending_bytes); call again when one "
                               "has been answered")

    def initialize(self, params: dict[str, Any]) -> dict[str, Any]:
        asked = params.get("protocolVersion")
        self.version = asked if asked in SUPPORTED else LATEST
        return {"protocolVersion": self.version,
                "capabilities": {"tools": {"listChanged": False}},
                "serverInfo": {"name": "cordon-mcp", "version": __version__},
                "instructions": "run_code runs Python under one of the "
                "policies list_policies names; explain_policy says what a "
                "policy may touch.  Each call is a fresh sandboxed run, "
                "unless it names a session: then it runs as a cell of that "
                "session's interpreter (state kept between calls with the "
                "same id until end_session)."}

    async def answer(self, req_id: Any, params: dict[str, Any],
                     reply: rpc.Reply) -> None:
        """Run one tools/call and say its answer (none if cancelled)."""
        token = (params.get("_meta") or {}).get("progressToken") \
            if isinstance(params.get("_meta"), dict) else None
        beat = None
        if isinstance(token, (str, int)) and not isinstance(token, bool):
            beat = asyncio.ensure_future(self.progress(token))
        try:
            result = await self.call(params)
        except asyncio.CancelledError:
            reply(None)                 # no response to a cancelled request
            return
        except rpc.RpcError as e:
            reply(rpc.error(req_id, e))
            return
        except Exception as e:          # a bug: said, and the server goes on
            log.exception("tools/call %r failed", req_id)
            reply(rpc.error(req_id, rpc.RpcError(
                rpc.INTERNAL_ERROR, f"internal error: {e}")))
            return
        finally:
            if beat is not None:
                beat.cancel()
        reply(rpc.response(req_id, result))

    async def progress(self, token: str | int) -> None:
        t0 = time.monotonic()
        n = 0.0
        while True:
            self.send(rpc.notification("notifications/progress", {
                "progressToken": token, "progress": n,
                "message": f"running ({n:.0f} s)"}))
            await asyncio.sleep(PROGRESS_EVERY)
            n = max(n + 1, time.monotonic() - t0)

    async def call(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        args = params.get("arguments", {})
        if not isinstance(name, str):
            raise tools.bad("name: a tool's name (a string) is required")
        if not isinstance(args, dict):
            raise tools.bad("arguments must be an object")
        assert self.version is not None
        if name == "run_code":
            return await self.run_code(args)
        if name == "list_policies":
            tools.no_extra(args, ())
            return tools.policies_result(self.infos, self.version)
        if name == "explain_policy":
            tools.no_extra(args, ("tool",))
            tool = tools.pick_tool(args, self.infos)
            if self.cordonc is None:
                return tools.failure(tool, "no cordonc found: explain_policy "
                                     "needs it (--cordonc)", self.version)
            try:
                view = await asyncio.get_running_loop().run_in_executor(
                    None, tools.explain, self.cordonc, self.infos[tool].path)
            except (OSError, RuntimeError, ValueError, KeyError,
                    subprocess.TimeoutExpired) as e:
                return tools.failure(tool, f"explain_policy: {e}",
                                     self.version)
            return tools.explain_result(view, self.version)
        if name == "end_session":
            return await self.end_session(args)
        raise tools.bad(f"unknown tool: {name[:100]!r}")

    async def run_code(self, args: dict[str, Any]) -> dict[str, Any]:
        assert self.version is not None
        tool, code, timeout, files, sid = tools.run_args(
            args, self.infos, self.cfg.max_timeout, self.cfg.max_input_bytes)
        if sid is not None:
            return await self.run_cell(sid, tool, code, timeout, files)
        if timeout is None and \
                self.infos[tool].timeout_ms > self.cfg.max_timeout * 1000:
            timeout = self.cfg.max_timeout      # it bounds every call
        client = self.warm if self.warm is not None and \
            tool in self.cfg.warm else self.cold
        try:
            r = await client.arun(tool, code, inputs=files, timeout=timeout)
        except InputError as e:
            raise tools.bad(f"files: {e}") from None
        except CordonError as e:
            return tools.failure(tool, str(e), self.version)
        return tools.run_result(r, self.version,
                                tools.limits(self.cfg.max_text_bytes))

    async def run_cell(self, sid: str, tool: str, code: str,
                       timeout: float | None,
                       files: dict[str, bytes]) -> dict[str, Any]:
        assert self.version is not None
        try:
            cell = await self.sessions.run(sid, tool, code, timeout, files)
        except SessionRefused as e:
            return tools.failure(tool, str(e), self.version)
        except InputError as e:
            raise tools.bad(f"files: {e}") from None
        return tools.cell_result(cell, tool, sid, self.version,
                                 tools.limits(self.cfg.max_text_bytes))

    async def end_session(self, args: dict[str, Any]) -> dict[str, Any]:
        tools.no_extra(args, ("session",))
        sid = tools.session_id(args)
        e = self.sessions.live.get(sid)
        if e is None:
            raise tools.bad(f"session: no session {sid!r} (never started, "
                            "or already ended)")
        run = await asyncio.shield(self.sessions.end(sid))
        return tools.ended_result(sid, e.session.end_reason or "closed", run)

    async def drain(self) -> None:
        """Wait for the calls in flight, or a signal (self.stopping)."""
        stop = asyncio.get_running_loop().create_future()
        self.stopping = stop
        while self.calls and not stop.done():
            await asyncio.wait([*self.calls.values(), stop],
                               return_when=asyncio.FIRST_COMPLETED)

    async def stop(self) -> None:
        """Cancel the calls in flight (their runs end, their folders are
        removed) and wait for them."""
        pending = list(self.calls.values())
        for t in pending:
            t.cancel()
        await asyncio.gather(*pending, return_exceptions=True)


def _clients(cfg: Config) -> tuple[Client, Client | None]:
    kw: dict[str, Any] = dict(
        cordon=cfg.cordon, cordonc=cfg.cordonc,
        concurrency=cfg.concurrency,
        output_limits=OutputLimits(max_files=cfg.max_output_files,
                                   max_file_bytes=cfg.max_output_bytes,
                                   max_total_bytes=cfg.max_output_bytes))
    cold = Client(cfg.policy_dir, **kw)
    warm = Client(cfg.policy_dir, warm=True, **kw) if cfg.warm else None
    return cold, warm


def _exposed(cfg: Config, cold: Client) -> dict[str, BlobInfo]:
    names = cfg.tools if cfg.tools is not None else cold.policies.tools()
    if not names:
        raise ConfigFail(f"no policies in {cold.policies.blob_dir}")
    infos = {}
    for n in names:
        try:
            infos[n] = cold.policies.load(n)
        except CordonError as e:
            raise ConfigFail(f"policy {n!r}: {e}") from None
    for n in cfg.warm:
        if n not in infos:
            raise ConfigFail(f"warm: {n!r} is not an exposed policy")
    return infos


async def _main(cfg: Config, in_fd: int, out_fd: int) -> int:
    cold, warm = _clients(cfg)
    try:
        infos = _exposed(cfg, cold)
        cordonc = _discover.binary("cordonc", "CORDONC_BIN", cfg.cordonc,
                                   "cordonc compiler", required=False)
        server = Server(cfg, cold, warm, infos, cordonc)
        chan = rpc.Channel(in_fd, out_fd, cfg.max_line)
        loop = asyncio.get_running_loop()
        main_task = asyncio.ensure_future(server.serve(chan))
        def on_signal() -> None:
            main_task.cancel()
            if server.stopping is not None and not server.stopping.done():
                server.stopping.set_result(None)
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            loop.add_signal_handler(sig, on_signal)
        rc = 0
        try:
            await main_task
            # EOF: the calls in flight are answered, then the server ends
            # (a signal meanwhile cancels them).
            await server.drain()
        except asyncio.CancelledError:
            pass
        except Exception:       # a bug: what it started ends all the same
            log.exception("the server failed")
            rc = 1
        await server.stop()
        await server.sessions.close_all()
        chan.close()
    finally:
        await asyncio.get_running_loop().run_in_executor(None, cold.close)
        if warm is not None:
            await asyncio.get_running_loop().run_in_executor(None,
                                                             warm.close)
    return rc


def main(argv: Sequence[str] | None = None) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING,
                        format="cordon-mcp: %(message)s")
    try:
        cfg = parse_config(sys.argv[1:] if argv is None else argv)
    except ConfigFail as e:
        print(f"cordon-mcp: {e}", file=sys.stderr)
        return 2
    # The protocol owns stdout: what else writes there goes to stderr.
    out_fd = os.dup(1)
    os.dup2(2, 1)
    try:
        return asyncio.run(_main(cfg, 0, out_fd))
    except (ConfigFail, CordonError) as e:
        print(f"cordon-mcp: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
