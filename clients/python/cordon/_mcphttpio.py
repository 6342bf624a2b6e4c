"""cordon-mcp's HTTP/1.1 framing (for _mcphttp, the Streamable HTTP
transport): a request read with bounds on its head and body and timeouts
on slow clients, a response written.  Parsing only: what a request means
is _mcphttp's."""
from __future__ import annotations

import asyncio
import dataclasses
from typing import Any, AsyncIterator

MAX_HEAD = 16 << 10         # request line and headers, bytes: ample for MCP
MAX_HEADERS = 64            # header lines: a client needs a dozen
HEAD_TIMEOUT = 30.0         # seconds to send a request's head (slowloris)
IDLE_TIMEOUT = 60.0         # seconds a kept-alive connection waits
BODY_TIMEOUT = 60.0         # seconds to send the body
WRITE_TIMEOUT = 60.0        # seconds for a client to take a response
# Headers that must not come twice (a smuggling or confusion risk).
SINGLE = ("content-length", "host", "authorization", "origin",
          "mcp-session-id", "mcp-protocol-version", "content-type",
          "transfer-encoding")
REASONS = {200: "OK", 202: "Accepted", 204: "No Content",
           400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
           404: "Not Found", 405: "Method Not Allowed",
           406: "Not Acceptable", 408: "Request Timeout", 409: "Conflict",
           411: "Length Required", 413: "Content Too Large",
           415: "Unsupported Media Type", 422: "Unprocessable Content",
           431: "Request Header Fields Too Large",
           500: "Internal Server Error", 501: "Not Implemented",
           503: "Service Unavailable", 505: "HTTP Version Not Supported"}


class HttpFail(Exception):
    """A request answered with an error status; close: the connection
    cannot be read on (a body left unread, a framing error)."""

    def __init__(self, status: int, message: str, close: bool = False,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.message, self.close = status, message, close
        self.headers = headers or {}


@dataclasses.dataclass
class Request:
    method: str
    path: str
    version: str
    headers: dict[str, str]         # names lower case
    body: bytes = b""
    target: str = ""                # as sent, its query too

    def keep_alive(self) -> bool:
        if self.version == "HTTP/1.0":
            return False        # its keep-alive is not worth the cases
        return "close" not in self.headers.get("connection", "").lower()


class Closed(Exception):
    """The client went away, or was idle too long between requests."""


async def read_head(reader: asyncio.StreamReader,
                    first: bool) -> Request:
    """A request's line and headers (the reader's limit is MAX_HEAD)."""
    try:
        async with asyncio.timeout(HEAD_TIMEOUT if first else IDLE_TIMEOUT):
            head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.LimitOverrunError:
        raise HttpFail(431, f"request head longer than {MAX_HEAD} bytes",
                       close=True) from None
    except asyncio.IncompleteReadError as e:
        if e.partial.strip():
            raise HttpFail(400, "request head cut short", close=True) \
                from None
        raise Closed() from None
    except (asyncio.TimeoutError, ConnectionError):
        raise Closed() from None
    return parse_head(head)


def parse_head(head: bytes) -> Request:
    try:
        text = head.decode("ascii")
    except UnicodeDecodeError:
        raise HttpFail(400, "request head is not ASCII", close=True) \
            from None
    lines = text[:-4].split("\r\n")
    parts = lines[0].split(" ")
    if len(parts) != 3 or not parts[0].isalpha() or \
            not parts[1].startswith("/"):
        raise HttpFail(400, "malformed request line", close=True)
    method, target, version = parts
    if version not in ("HTTP/1.1", "HTTP/1.0"):
        raise HttpFail(505, f"{version[:20]!r}: HTTP/1.1 only", close=True)
    if len(lines) - 1 > MAX_HEADERS:
        raise HttpFail(431, f"more than {MAX_HEADERS} header lines",
                       close=True)
    headers: dict[str, str] = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if not sep or not name or name != name.strip() or \
                any(c in name for c in " \t()<>@,;\\\"/[]?={}"):
            raise HttpFail(400, "malformed header line", close=True)
        name, value = name.lower(), value.strip(" \t")
        if name in headers:
            if name in SINGLE:
                raise HttpFail(400, f"header {name} given twice",
                               close=True)
            headers[name] += ", " + value
        else:
            headers[name] = value
    return Request(method, target.split("?", 1)[0], version, headers,
                   target=target)


async def read_body(reader: asyncio.StreamReader, req: Request,
                    max_body: int, setting: str = "max_line") -> None:
    """The body, by Content-Length only, at most max_body bytes (setting:
    the option that says so, named in the refusal)."""
    if "transfer-encoding" in req.headers:
        raise HttpFail(501, "Transfer-Encoding is not supported: send "
                       "Content-Length", close=True)
    length = req.headers.get("content-length")
    if length is None:
        if req.method == "POST":
            raise HttpFail(411, "Content-Length is required", close=True)
        return
    if not length.isdigit() or len(length) > 18:
        raise HttpFail(400, "bad Content-Length", close=True)
    n = int(length)
    if n > max_body:
        raise HttpFail(413, f"body of {n} bytes: the maximum is {max_body}"
                       f" ({setting})", close=True)
    try:
        async with asyncio.timeout(BODY_TIMEOUT):
            req.body = await reader.readexactly(n)
    except (asyncio.IncompleteReadError, asyncio.TimeoutError,
            ConnectionError):
        raise Closed() from None


def _head(status: int, headers: dict[str, str], close: bool) -> bytes:
    out = [f"HTTP/1.1 {status} {REASONS.get(status, 'Status')}"]
    hdrs: dict[str, Any] = {"Cache-Control": "no-store", **headers}
    if close:
        hdrs["Connection"] = "close"
    out += [f"{k}: {v}" for k, v in hdrs.items()]
    return ("\r\n".join(out) + "\r\n\r\n").encode("ascii")


async def write(writer: asyncio.StreamWriter, status: int,
                headers: dict[str, str], body: bytes, close: bool) -> None:
    writer.write(_head(status, {"Content-Length": str(len(body)),
                                **headers}, close) + body)
    await _drain(writer)


async def _drain(writer: asyncio.StreamWriter) -> None:
    """What was written taken by the client within WRITE_TIMEOUT
    (asyncio.timeout: no task is made for the wait, as wait_for makes)."""
    async with asyncio.timeout(WRITE_TIMEOUT):
        await writer.drain()


async def write_chunked(writer: asyncio.StreamWriter, status: int,
                        headers: dict[str, str],
                        chunks: AsyncIterator[bytes], close: bool) -> None:
    """A response whose length is not known before (an event stream):
    chunked, each piece sent as it comes; the pieces' producer is closed
    however the writing ends."""
    try:
        writer.write(_head(status, {"Transfer-Encoding": "chunked",
                                    **headers}, close))
        await _drain(writer)
        async for c in chunks:
            if c:
                writer.write(b"%x\r\n%s\r\n" % (len(c), c))
                await _drain(writer)
        writer.write(b"0\r\n\r\n")
        await _drain(writer)
    finally:
        await chunks.aclose()       # type: ignore[attr-defined]
