"""cordon-mcp's Streamable HTTP transport (MCP 2025-06-18, "Transports"):
one endpoint, /mcp; POST carries one JSON-RPC message (or a batch, where
the revision has them) and is answered with application/json (or one
text/event-stream event, where the client accepts only that); GET is 405
(no server stream); DELETE ends an MCP session.  Each MCP session is one
mcp.Server (its own run_code sessions), named by a random Mcp-Session-Id
and tied to the client that made it: its bearer token and address.
Loopback by default; off loopback only with tokens (--http-token-file).
See cordon-mcp(1), HTTP."""
from __future__ import annotations

import asyncio
import dataclasses
import hmac
import ipaddress
import json
import logging
import os
import secrets
import stat
import time
import urllib.parse
from typing import Any, AsyncIterator, Callable, Sequence

from . import _jsonrpc as rpc
from ._mcphttpio import Closed, HttpFail, Request, MAX_HEAD, read_body, \
    read_head, write, write_chunked

PATH = "/mcp"
MIN_TOKEN = 16              # characters: a token shorter is guessable
SWEEP_EVERY = 30.0          # seconds between looks for idle MCP sessions
log = logging.getLogger("cordon.mcp")


class HttpConfigFail(Exception):
    pass


def parse_listen(spec: str) -> tuple[str, int]:
    """HOST:PORT (HOST may be [v6]); port 0 picks a free one."""
    host, sep, port = spec.rpartition(":")
    if not sep or not port.isdigit() or int(port) > 65535 or not host:
        raise HttpConfigFail(f"--http {spec!r}: HOST:PORT is required")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    return host, int(port)


def loopback(host: str) -> bool:
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def load_tokens(path: str) -> list[bytes]:
    """One token a line (each a client); the file must not be readable
    or writable by others.  A link is followed: the file is the
    operator's, and a Kubernetes secret volume's files are links
    (NAME -> ..data/NAME); what it reaches must be a regular file (no
    FIFO or device: O_NONBLOCK, then fstat)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY |
                     os.O_CLOEXEC)
    except OSError as e:
        raise HttpConfigFail(f"--http-token-file {path}: {e.strerror}") \
            from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise HttpConfigFail(f"--http-token-file {path}: not a file")
        if st.st_mode & 0o007:
            raise HttpConfigFail(
                f"--http-token-file {path}: others may read or write it "
                f"(mode {st.st_mode & 0o777:o}): chmod o-rwx")
        data = os.read(fd, 1 << 16)
    finally:
        os.close(fd)
    tokens = [t.strip() for t in data.splitlines() if t.strip()]
    if not tokens:
        raise HttpConfigFail(f"--http-token-file {path}: no token in it")
    for t in tokens:
        if len(t) < MIN_TOKEN or not all(0x21 <= c <= 0x7e for c in t):
            raise HttpConfigFail(
                f"--http-token-file {path}: a token must be at least "
                f"{MIN_TOKEN} printable characters, no spaces")
    return tokens


def check_config(listen: str, token_file: str | None,
                 origins: Sequence[str]) -> tuple[str, int, list[bytes]]:
    host, port = parse_listen(listen)
    tokens = load_tokens(token_file) if token_file else []
    if not loopback(host) and not tokens:
        raise HttpConfigFail(
            f"--http {listen}: off loopback only with authentication: "
            "give --http-token-file (bearer tokens)")
    for o in origins:
        u = urllib.parse.urlsplit(o)
        if u.scheme not in ("http", "https") or not u.hostname or \
                u.path or o.endswith("/"):
            raise HttpConfigFail(f"--http-allow-origin {o!r}: an origin "
                                 "(scheme://host[:port]) is required")
    return host, port, tokens


def _host_of(value: str) -> str:
    """The host name of a Host header or an origin's netloc."""
    if value.startswith("["):
        return value[1:value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def guard(req: Request, on_loopback: bool, origins: set[str]) -> None:
    """DNS rebinding: on loopback, a Host that is not a loopback name;
    anywhere, a browser's Origin not allowed."""
    host = req.headers.get("host")
    if host is None and req.version == "HTTP/1.1":
        raise HttpFail(400, "Host header required")
    if on_loopback and host is not None and not loopback(_host_of(host)):
        raise HttpFail(403, f"Host {host[:100]!r} is not a loopback "
                       "name (DNS rebinding?)")
    origin = req.headers.get("origin")
    if origin is None or origin in origins:
        return
    u = urllib.parse.urlsplit(origin)
    if on_loopback and u.scheme in ("http", "https") and \
            u.hostname is not None and loopback(u.hostname) and not u.path:
        return
    raise HttpFail(403, f"Origin {origin[:100]!r} is not allowed "
                   "(--http-allow-origin)")


def bearer(req: Request, tokens: list[bytes], realm: str) -> int:
    """The index of the client's token (-1 where none is needed); 401
    without one of tokens."""
    if not tokens:
        return -1
    scheme, _, given = req.headers.get("authorization", "").partition(" ")
    got = given.strip().encode("ascii", "replace")
    who = -1
    for i, t in enumerate(tokens):      # each compared, in full
        if hmac.compare_digest(got, t) and scheme.lower() == "bearer":
            who = i
    if who < 0:
        raise HttpFail(401, "a bearer token is required (Authorization:"
                       " Bearer TOKEN)", headers={
                           "WWW-Authenticate": f'Bearer realm="{realm}"'})
    return who


def _event(msg: Any) -> bytes:
    return b"event: message\ndata: " + json.dumps(
        msg, ensure_ascii=False, separators=(",", ":")).encode() + b"\n\n"


def _progress_token(value: Any) -> Any:
    """A tools/call's progressToken, or None."""
    if not isinstance(value, dict) or value.get("method") != "tools/call" \
            or "id" not in value:
        return None
    params = value.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    tok = meta.get("progressToken") if isinstance(meta, dict) else None
    return tok if isinstance(tok, (str, int)) and \
        not isinstance(tok, bool) else None


@dataclasses.dataclass
class _Mcp:
    server: Any                         # an mcp.Server
    owner: tuple[int, str]              # (token index, peer address)
    used: float
    busy: int = 0                       # requests in progress
    # progressToken -> the event stream of the call that asked for it
    streams: dict[Any, "asyncio.Queue[Any]"] = dataclasses.field(
        default_factory=dict)


class _Sink:
    """The Server's channel over HTTP: a progress notification goes to
    the event stream of the call it is about; others have no stream to
    go to, and are dropped."""

    def __init__(self, m: _Mcp) -> None:
        self.m = m

    def send(self, msg: Any) -> None:
        if isinstance(msg, dict) and \
                msg.get("method") == "notifications/progress":
            q = self.m.streams.get(msg["params"].get("progressToken"))
            if q is not None:
                q.put_nowait(msg)


class Http:
    def __init__(self, cfg: Any, make_server: Callable[[], Any],
                 supported: Sequence[str], batches: Sequence[str],
                 host: str, tokens: list[bytes]) -> None:
        self.cfg, self.make_server = cfg, make_server
        self.supported, self.batches = tuple(supported), tuple(batches)
        self.on_loopback = loopback(host)
        self.tokens = tokens
        self.origins = set(cfg.http_allow_origin)
        self.mcps: dict[str, _Mcp] = {}
        self.conns = 0
        self.ending: set["asyncio.Task[None]"] = set()

    # -- connections ---------------------------------------------------

    async def connection(self, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        addr = str(peer[0]) if isinstance(peer, tuple) else "local"
        if self.conns >= self.cfg.http_max_connections:
            try:
                await write(writer, 503, {"Retry-After": "1"},
                            b"too many connections\n", True)
            except (OSError, asyncio.TimeoutError):
                pass
            writer.close()
            return
        self.conns += 1
        try:
            await self._serve(reader, writer, addr)
        except (OSError, asyncio.TimeoutError, Closed):
            pass
        finally:
            self.conns -= 1
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter, addr: str) -> None:
        first = True
        while True:
            try:
                req = await read_head(reader, first)
                first = False
                await read_body(reader, req, self.cfg.max_line)
                status, headers, body = await self.dispatch(req, addr)
                if not isinstance(body, bytes):
                    close = not req.keep_alive()
                    await write_chunked(writer, status, headers, body,
                                        close)
                    if close:
                        return
                    continue
            except HttpFail as e:
                await write(writer, e.status, {
                    "Content-Type": "text/plain; charset=utf-8",
                    **e.headers}, (e.message + "\n").encode(), e.close)
                if e.close:
                    return
                continue
            except (Closed, OSError, asyncio.TimeoutError):
                raise
            except Exception:       # a bug: said, and the server goes on
                log.exception("an HTTP request could not be handled")
                await write(writer, 500, {}, b"internal error (the "
                            b"server's log says more)\n", True)
                return
            close = not req.keep_alive()
            await write(writer, status, headers, body, close)
            if close:
                return

    # -- requests ------------------------------------------------------

    async def dispatch(self, req: Request,
                       addr: str) -> tuple[int, dict[str, str], bytes]:
        self.guard(req)
        who = (self.authenticate(req), addr)
        if req.path != PATH:
            raise HttpFail(404, f"no such endpoint: the MCP endpoint is "
                           f"{PATH}")
        if req.method == "POST":
            return await self.post(req, who)
        if req.method == "DELETE":
            sid, m = self.session(req, who)
            await self.end(sid, m)
            return 204, {}, b""
        if req.method == "GET":
            raise HttpFail(405, "no server-initiated stream: POST requests",
                           headers={"Allow": "POST, DELETE"})
        raise HttpFail(405, f"{req.method[:20]}: POST or DELETE",
                       headers={"Allow": "POST, DELETE"})

    def guard(self, req: Request) -> None:
        guard(req, self.on_loopback, self.origins)

    def authenticate(self, req: Request) -> int:
        return bearer(req, self.tokens, "cordon-mcp")

    def session(self, req: Request, who: tuple[int, str]) -> tuple[str, _Mcp]:
        sid = req.headers.get("mcp-session-id")
        if sid is None:
            raise HttpFail(400, "Mcp-Session-Id header required (initialize"
                           " first)")
        m = self.mcps.get(sid)
        # Another client's id is as unknown as one never made.
        if m is None or not hmac.compare_digest(repr(m.owner).encode(),
                                                repr(who).encode()):
            raise HttpFail(404, "no such MCP session (ended, expired, or "
                           "never made): initialize again")
        m.used = time.monotonic()
        return sid, m

    def version_header(self, req: Request, m: _Mcp) -> None:
        v = req.headers.get("mcp-protocol-version")
        if v is None:
            return      # the spec: assume 2025-03-26; the session knows
        if v not in self.supported:
            raise HttpFail(400, f"MCP-Protocol-Version {v[:40]!r} is not "
                           f"supported ({', '.join(self.supported)})")
        # One the server speaks but the session did not negotiate passes
        # (the spec refuses only invalid or unsupported ones; the
        # conformance suite sends 2025-03-26 to a 2025-06-18 session):
        # the session's revision governs its answers.

    @staticmethod
    def stream(req: Request) -> bool:
        """Answer as text/event-stream (only where JSON is not accepted)."""
        acc = [a.split(";")[0].strip().lower()
               for a in req.headers.get("accept", "").split(",")]
        if not any(acc) or any(a in ("application/json", "application/*",
                                     "*/*") for a in acc):
            return False
        if "text/event-stream" in acc or "text/*" in acc:
            return True
        raise HttpFail(406, "Accept: application/json or "
                       "text/event-stream is required")

    async def post(self, req: Request, who: tuple[int, str]
                   ) -> tuple[int, dict[str, str], bytes]:
        ctype = req.headers.get("content-type", "").split(";")[0].strip()
        if ctype.lower() != "application/json":
            raise HttpFail(415, "Content-Type: application/json required")
        sse = self.stream(req)
        try:
            value = rpc.load(req.body)
        except rpc.BadMessage as e:
            return self.json(400, rpc.error(None, e.err), sse)
        init = isinstance(value, dict) and value.get("method") == \
            "initialize" and "id" in value
        if init and "mcp-session-id" not in req.headers:
            return await self.initialize(value, len(req.body), who, sse)
        sid, m = self.session(req, who)
        self.version_header(req, m)
        token = _progress_token(value)
        if token is not None and self.accepts_sse(req) and \
                req.version == "HTTP/1.1" and token not in m.streams:
            return 200, {"Content-Type": "text/event-stream"}, \
                self.events(m, value, len(req.body), token)
        m.busy += 1
        try:
            msg = await self.answer(m, value, len(req.body))
        finally:
            m.busy -= 1
            m.used = time.monotonic()
        if msg is None:
            return 202, {}, b""
        request = isinstance(value, list) or (isinstance(value, dict)
                                              and "method" in value
                                              and "id" in value)
        return self.json(200 if request else 400, msg, sse)

    @staticmethod
    def accepts_sse(req: Request) -> bool:
        return any(a.split(";")[0].strip().lower() == "text/event-stream"
                   for a in req.headers.get("accept", "").split(","))

    async def events(self, m: _Mcp, value: Any, size: int,
                     token: Any) -> AsyncIterator[bytes]:
        """A tools/call that asked for progress, where the client takes
        an event stream: its progress notifications as they come, then
        its answer."""
        q: "asyncio.Queue[Any]" = asyncio.Queue()
        m.streams[token] = q
        m.busy += 1
        task = asyncio.ensure_future(self.answer(m, value, size))
        try:
            while True:
                get = asyncio.ensure_future(q.get())
                await asyncio.wait([get, task],
                                   return_when=asyncio.FIRST_COMPLETED)
                if not get.done():
                    get.cancel()
                    break
                yield _event(get.result())
            while not q.empty():
                yield _event(q.get_nowait())
            msg = task.result()
            if msg is not None:
                yield _event(msg)
        finally:
            # The client went away: the call goes on (the spec: not a
            # cancellation), its answer unsent.
            m.streams.pop(token, None)
            m.busy -= 1
            m.used = time.monotonic()

    async def initialize(self, value: dict[str, Any], size: int,
                         who: tuple[int, str], sse: bool
                         ) -> tuple[int, dict[str, str], bytes]:
        if len(self.mcps) >= self.cfg.http_max_clients:
            raise HttpFail(503, f"{len(self.mcps)} MCP sessions open: the "
                           f"maximum is {self.cfg.http_max_clients} "
                           "(http_max_clients); DELETE one",
                           headers={"Retry-After": "5"})
        server = self.make_server()
        m = _Mcp(server, who, time.monotonic())
        server.chan = _Sink(m)
        msg = await self.answer(m, value, size)
        if msg is None or "result" not in msg:
            await self.close(m)
            return self.json(400 if msg else 202, msg, sse)
        if len(self.mcps) >= self.cfg.http_max_clients:     # meanwhile
            await self.close(m)
            raise HttpFail(503, "too many MCP sessions (http_max_clients)")
        sid = secrets.token_urlsafe(32)
        self.mcps[sid] = m
        status, headers, body = self.json(200, msg, sse)
        headers["Mcp-Session-Id"] = sid
        return status, headers, body

    async def answer(self, m: _Mcp, value: Any, size: int) -> Any:
        """The Server's answer to one message or batch (None: none due)."""
        loop = asyncio.get_running_loop()
        if not isinstance(value, list):
            fut = loop.create_future()

            def reply(msg: dict[str, Any] | None) -> None:
                if not fut.done():
                    fut.set_result(msg)
            m.server.handle(value, size, reply)
            return await fut
        if m.server.version not in self.batches or not value:
            why = ("an empty batch" if m.server.version in self.batches
                   else f"batches are not supported in {m.server.version}")
            return rpc.error(None, rpc.RpcError(rpc.INVALID_REQUEST, why))
        futs = []
        for item in value:
            fut = loop.create_future()
            futs.append(fut)

            def said(msg: dict[str, Any] | None, fut: Any = fut) -> None:
                if not fut.done():
                    fut.set_result(msg)
            m.server.handle(item, size // len(value) + 1, said, True)
        out = [x for x in await asyncio.gather(*futs) if x is not None]
        return out or None

    @staticmethod
    def json(status: int, msg: Any, sse: bool
             ) -> tuple[int, dict[str, str], bytes]:
        if msg is None:
            return status, {}, b""
        data = json.dumps(msg, ensure_ascii=False,
                          separators=(",", ":")).encode()
        if sse:
            return status, {"Content-Type": "text/event-stream"}, \
                _event(msg)
        return status, {"Content-Type": "application/json"}, data

    # -- MCP sessions' ends --------------------------------------------

    async def end(self, sid: str, m: _Mcp) -> None:
        if self.mcps.get(sid) is m:
            del self.mcps[sid]
        await self.close(m)

    @staticmethod
    async def close(m: _Mcp) -> None:
        """Its calls cancelled, its run_code sessions ended."""
        await m.server.stop()
        await m.server.sessions.close_all()

    async def sweep(self) -> None:
        """End MCP sessions idle (no request, none in progress) past
        http_session_idle."""
        while True:
            await asyncio.sleep(min(SWEEP_EVERY, self.cfg.http_session_idle))
            now = time.monotonic()
            for sid, m in list(self.mcps.items()):
                if m.busy == 0 and not m.server.calls and \
                        now - m.used > self.cfg.http_session_idle:
                    log.info("MCP session idle: ended")
                    await self.end(sid, m)

    async def close_all(self) -> None:
        for sid, m in list(self.mcps.items()):
            await self.end(sid, m)


async def serve(http: Http, host: str, port: int,
                stop: "asyncio.Future[None]") -> None:
    """Serve until stop is done, then end every MCP session."""
    srv = await asyncio.start_server(http.connection, host, port,
                                     limit=MAX_HEAD)
    for s in srv.sockets:
        name = s.getsockname()
        log.warning("serving Streamable HTTP on http://%s:%d%s%s",
                    f"[{name[0]}]" if ":" in name[0] else name[0], name[1],
                    PATH, "" if http.tokens else " (no tokens: loopback)")
    sweeper = asyncio.ensure_future(http.sweep())
    try:
        await stop
    finally:
        sweeper.cancel()
        srv.close()
        await http.close_all()
