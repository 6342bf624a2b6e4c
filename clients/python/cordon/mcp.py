"""cordon-mcp: an MCP server (Model Context Protocol, over stdio or
Streamable HTTP) whose tools run Python under cordon policies.  See
cordon-mcp(1).

    python3 -m cordon.mcp [--config FILE] [--policy-dir DIR] [--tool NAME]...
        [--http HOST:PORT [--http-token-file FILE]]

Standard library only: JSON-RPC 2.0, one message a line, on stdin and
stdout (logs go to stderr); every tools/call is an asyncio task, answered
when it ends, so several run at once.  With --http, _mcphttp serves each
MCP session's messages to its own Server (Server.handle).
"""
from __future__ import annotations

import asyncio
import logging
import os
import signal
import subprocess
import sys
import time
from typing import Any, Sequence

from . import __version__, _discover, _fs, _guard
from . import _jsonrpc as rpc
from . import _mcpera as era
from . import _mcphttp
from . import _mcptools as tools
from ._mcpconfig import Config, ConfigFail, parse_config
from . import session as sess
from ._mcpsessions import SessionRefused, Sessions
from .blob import BlobInfo
from .client import Client
from .errors import CordonError, InputError
from .outputs import OutputLimits

LATEST = era.LEGACY[0]       # what initialize answers an unknown version
SUPPORTED = era.LEGACY
BATCHES = ("2025-03-26", "2024-11-05")  # JSON-RPC batches: 2025-06-18 cut
PROGRESS_EVERY = 5.0        # seconds between progress notifications
log = logging.getLogger("cordon.mcp")


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
        method, params = msg["method"], msg.get("params") or {}
        modern = isinstance(params.get("_meta"), dict) and \
            era.META_VERSION in params["_meta"]
        if modern:
            reply = _modern_reply(reply)
        try:
            if batched and method == "initialize":
                raise rpc.RpcError(rpc.INVALID_REQUEST,
                                   "initialize cannot be in a batch")
            version = era.modern_version(method, params)
            if version is not None:
                self.request(req_id, method, params, size, reply, version)
            else:
                self.legacy(req_id, method, params, size, reply)
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

    def legacy(self, req_id: Any, method: str, params: dict[str, Any],
               size: int, reply: rpc.Reply) -> None:
        """A request of the initialize era (its _meta names no version)."""
        if method == "initialize":
            reply(rpc.response(req_id, self.initialize(params)))
            return
        if method == "ping":
            reply(rpc.response(req_id, {}))
            return
        if self.version is None:
            raise rpc.RpcError(rpc.INVALID_REQUEST, "not initialized: send "
                               "initialize first (or, in 2026-07-28, name "
                               f"the version in _meta {era.META_VERSION})")
        self.request(req_id, method, params, size, reply, self.version)

    def request(self, req_id: Any, method: str, params: dict[str, Any],
                size: int, reply: rpc.Reply, version: str) -> None:
        """A request served under version (either era's)."""
        if method == "server/discover":
            reply(rpc.response(req_id, era.discover()))
            return
        if method == "tools/list":
            listed = {"tools": tools.tool_list(
                self.infos, self.cfg.max_timeout, version, self.cordonc)}
            if version in era.MODERN:
                listed = era.complete(listed, cacheable=True)
            reply(rpc.response(req_id, listed))
            return
        if method != "tools/call":
            raise rpc.RpcError(rpc.METHOD_NOT_FOUND,
                               f"method not found: {method}")
        if req_id in self.calls:
            raise rpc.RpcError(rpc.INVALID_REQUEST,
                               f"request id {req_id!r} is already in use")
        self.admit(size)
        task = asyncio.ensure_future(self.answer(req_id, params, reply,
                                                 version))
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
                "capabilities": era.CAPABILITIES,
                "serverInfo": era.SERVER_INFO,
                "instructions": era.INSTRUCTIONS}

    async def answer(self, req_id: Any, params: dict[str, Any],
                     reply: rpc.Reply, version: str) -> None:
        """Run one tools/call and say its answer (none if cancelled)."""
        token = (params.get("_meta") or {}).get("progressToken") \
            if isinstance(params.get("_meta"), dict) else None
        beat = None
        if isinstance(token, (str, int)) and not isinstance(token, bool):
            beat = asyncio.ensure_future(self.progress(token))
        try:
            result = await self.call(params, version)
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

    async def call(self, params: dict[str, Any],
                   version: str) -> dict[str, Any]:
        name = params.get("name")
        args = params.get("arguments", {})
        if not isinstance(name, str):
            raise tools.bad("name: a tool's name (a string) is required")
        if not isinstance(args, dict):
            raise tools.bad("arguments must be an object")
        if name == "run_code":
            return await self.run_code(args, version)
        if name == "list_policies":
            tools.no_extra(args, ())
            return tools.policies_result(self.infos, version)
        if name == "explain_policy":
            tools.no_extra(args, ("tool",))
            tool = tools.pick_tool(args, self.infos)
            if self.cordonc is None:
                return tools.failure(tool, "no cordonc found: explain_policy "
                                     "needs it (--cordonc)", version)
            try:
                view = await asyncio.get_running_loop().run_in_executor(
                    None, tools.explain, self.cordonc, self.infos[tool].path)
            except (OSError, RuntimeError, ValueError, KeyError,
                    subprocess.TimeoutExpired) as e:
                return tools.failure(tool, f"explain_policy: {e}",
                                     version)
            return tools.explain_result(view, version)
        if name == "end_session":
            return await self.end_session(args)
        raise tools.bad(f"unknown tool: {name[:100]!r}")

    async def run_code(self, args: dict[str, Any],
                       version: str) -> dict[str, Any]:
        tool, code, timeout, files, sid = tools.run_args(
            args, self.infos, self.cfg.max_timeout, self.cfg.max_input_bytes)
        if sid is not None:
            return await self.run_cell(sid, tool, code, timeout, files,
                                       version)
        if timeout is None and \
                self.infos[tool].timeout_ms > self.cfg.max_timeout * 1000:
            timeout = self.cfg.max_timeout      # it bounds every call
        client = self.warm if self.warm is not None and \
            tool in self.cfg.warm else self.cold
        try:
            r = await client.arun(tool, code, inputs=files, timeout=timeout,
                                  watch=self.cfg.landlock_watch)
        except InputError as e:
            raise tools.bad(f"files: {e}") from None
        except CordonError as e:
            return tools.failure(tool, str(e), version)
        return tools.run_result(r, version,
                                tools.limits(self.cfg.max_text_bytes))

    async def run_cell(self, sid: str, tool: str, code: str,
                       timeout: float | None,
                       files: dict[str, bytes],
                       version: str) -> dict[str, Any]:
        try:
            cell = await self.sessions.run(sid, tool, code, timeout, files)
        except SessionRefused as e:
            return tools.failure(tool, str(e), version)
        except InputError as e:
            raise tools.bad(f"files: {e}") from None
        return tools.cell_result(cell, tool, sid, version,
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


def _modern_reply(reply: rpc.Reply) -> rpc.Reply:
    """reply, with a result made a 2026-07-28 one (resultType, serverInfo,
    caching hints on lists) and errors in its codes."""
    def modern(msg: dict[str, Any] | None) -> None:
        if msg is not None and isinstance(msg.get("result"), dict):
            res = msg["result"]
            msg = rpc.response(msg["id"], era.complete(res))
        elif msg is not None and isinstance(msg.get("error"), dict):
            e = era.modern_error(rpc.RpcError(msg["error"]["code"],
                                              msg["error"]["message"],
                                              msg["error"].get("data")))
            msg = rpc.error(msg["id"], e)
        reply(msg)
    return modern


def _banner(cfg: Config, infos: dict[str, BlobInfo], cold: Client,
            cordonc: str | None) -> str:
    """The start-up line on stderr: what is served, how, from where."""
    warm = f"; warm: {', '.join(cfg.warm)}" if cfg.warm else ""
    return (f"cordon-mcp {__version__}: serving {', '.join(sorted(infos))}"
            f" from {cold.policies.blob_dir}{warm}; "
            f"{'http://' + cfg.http + '/mcp' if cfg.http else 'stdio'}; MCP "
            f"{', '.join(era.ALL)}; explain_policy: "
            f"{cordonc or 'off (no cordonc)'}")


def _clients(cfg: Config, guard: _guard.Guard
             ) -> tuple[Client, Client | None]:
    kw: dict[str, Any] = dict(
        cordon=cfg.cordon, cordonc=cfg.cordonc,
        work_root=guard.root, guard=guard,
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
    # Before anything is started: the guardian, which ends every run and
    # removes every folder when this process ends, however (_guard.py).
    guard = _guard.Guard(_fs.make_private_dir(None, "cordon-mcp-"))
    try:
        cold, warm = _clients(cfg, guard)
    except BaseException:
        guard.close()
        raise
    try:
        infos = _exposed(cfg, cold)
        cordonc = _discover.binary("cordonc", "CORDONC_BIN", cfg.cordonc,
                                   "cordonc compiler", required=False)
        print(_banner(cfg, infos, cold, cordonc), file=sys.stderr,
              flush=True)
        if cfg.http is not None:
            return await _serve_http(cfg, lambda: Server(
                cfg, cold, warm, infos, cordonc))
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
        await asyncio.get_running_loop().run_in_executor(None, guard.close)
    return rc


async def _serve_http(cfg: Config, make: Any) -> int:
    """Streamable HTTP (_mcphttp) until a signal."""
    assert cfg.http is not None
    try:
        host, port, tokens = _mcphttp.check_config(
            cfg.http, cfg.http_token_file, cfg.http_allow_origin)
    except _mcphttp.HttpConfigFail as e:
        raise ConfigFail(str(e)) from None
    http = _mcphttp.Http(cfg, make, SUPPORTED, BATCHES, host, tokens)
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        loop.add_signal_handler(
            sig, lambda: stop.done() or stop.set_result(None))
    try:
        await _mcphttp.serve(http, host, port, stop)
    except OSError as e:
        raise ConfigFail(f"--http {cfg.http}: {e.strerror or e}") from None
    return 0


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
