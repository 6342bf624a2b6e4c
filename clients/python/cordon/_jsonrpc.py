"""JSON-RPC 2.0 over newline-delimited stdio, for cordon-mcp.

One thread reads the input descriptor in chunks and hands whole lines to
the event loop (a line longer than the bound is dropped while it is read,
never held, and answered with an error once its end is seen); one thread
writes the replies, one line each, in the order they are queued.  The loop
never blocks on either descriptor.
"""
from __future__ import annotations

import asyncio
import json
import os
import queue
import re
import select
import stat
import threading
from typing import Any, Callable

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
SERVER_BUSY = -32000            # implementation-defined: too many calls
READ_CHUNK = 1 << 16
# Lines read but not yet taken by the loop: the reader waits past this,
# so what is held unparsed is at most this many lines of max_line bytes.
MAX_QUEUED_LINES = 4
# Values (objects, arrays, and items after a comma) in one message.  A
# parsed value costs 50-100 bytes whatever its text's size ("[]" is two),
# so a line of max_line bytes could otherwise grow 30-fold in memory; a
# real request has tens.
MAX_VALUES = 10_000
# Answers queued but not yet written (a client that does not read its
# answers): past max(this, 2 * max_line) bytes no more lines are taken
# until the client has read some, so what it sends cannot pile up answers.
MIN_UNSENT = 1 << 20
# A JSON string: what the count of values skips.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)

# How an answer is said: a message, or None when none is due.
Reply = Callable[[dict[str, Any] | None], None]

# What the reader hands the loop: a line, a line over the bound, or EOF.
LINE, TOO_LONG, EOF = "line", "too_long", "eof"


class RpcError(Exception):
    """An error answered to a request: code, message, optional data."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.data = data

    def to_json(self) -> dict[str, Any]:
        err: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.data is not None:
            err["data"] = self.data
        return err


def _read_lines(fd: int, max_line: int, loop: asyncio.AbstractEventLoop,
                q: "asyncio.Queue[tuple[str, bytes]]",
                room: threading.Semaphore) -> None:
    """(Thread.)  Split fd's bytes into lines of at most max_line bytes,
    handing the loop at most MAX_QUEUED_LINES at a time."""
    def put(kind: str, data: bytes = b"") -> None:
        room.acquire()
        loop.call_soon_threadsafe(q.put_nowait, (kind, data))
    buf = bytearray()
    dropping = False
    while True:
        try:
            chunk = os.read(fd, READ_CHUNK)
        except InterruptedError:
            continue
        except OSError:
            chunk = b""
        if not chunk:
            if buf and not dropping:
                put(LINE, bytes(buf))
            put(TOO_LONG if dropping else EOF)
            if dropping:
                put(EOF)
            return
        start = 0
        while True:
            nl = chunk.find(b"\n", start)
            if nl < 0:
                break
            if dropping:
                put(TOO_LONG)
                dropping = False
            elif len(buf) + nl - start > max_line:
                put(TOO_LONG)
            else:
                buf += chunk[start:nl]
                put(LINE, bytes(buf))
            buf.clear()
            start = nl + 1
        if not dropping:
            buf += chunk[start:]
            if len(buf) > max_line:
                buf.clear()
                dropping = True


class Channel:
    """The server's two ends: lines in (await next()), messages out
    (send(), thread-safe, never blocking the loop)."""

    def __init__(self, rfd: int, wfd: int, max_line: int) -> None:
        self._rfd, self._wfd, self.max_line = rfd, wfd, max_line
        self._in: asyncio.Queue[tuple[str, bytes]] = asyncio.Queue()
        self._out: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._room = threading.Semaphore(MAX_QUEUED_LINES)
        self._unsent, self._lock = 0, threading.Lock()
        # Lines given to the writer thread and not yet written (under
        # _lock); while none is, a short line to a pipe with room is
        # written at once (_write_now).
        self._inflight = 0
        try:
            self._fifo = stat.S_ISFIFO(os.fstat(wfd).st_mode)
        except OSError:
            self._fifo = False
        self._max_unsent = max(MIN_UNSENT, 2 * max_line)
        self._drained = asyncio.Event()
        self._drained.set()
        self._loop = loop = asyncio.get_running_loop()
        threading.Thread(target=_read_lines, name="mcp-read", daemon=True,
                         args=(rfd, max_line, loop, self._in,
                               self._room)).start()
        self._writer = threading.Thread(target=self._write_loop,
                                        name="mcp-write", daemon=True)
        self._writer.start()
        self.broken = False

    async def next(self) -> tuple[str, bytes]:
        await self._drained.wait()
        item = await self._in.get()
        self._room.release()
        return item

    def send(self, msg: dict[str, Any] | list[dict[str, Any]]) -> None:
        # ASCII: a name that is not UTF-8 (a lone surrogate) is escaped,
        # never a failure to encode the answer.
        try:
            line = json.dumps(msg, separators=(",", ":"), allow_nan=False)
        except (ValueError, TypeError, RecursionError) as e:
            line = json.dumps(error(msg.get("id") if isinstance(
                msg, dict) else None, RpcError(
                INTERNAL_ERROR, f"internal error: answer not sent: {e}")))
        data = line.encode("ascii") + b"\n"
        with self._lock:
            if self._write_now(data):
                return
            self._inflight += 1
        self._queued(len(data))
        self._out.put(data)

    def _write_now(self, data: bytes) -> bool:
        """(Under _lock.)  Write data here, without waking the writer
        thread, when that cannot block and keeps the order: nothing is
        queued, the output is a pipe, data is at most PIPE_BUF bytes
        (written whole, at once) and the pipe has room (POLLOUT: a free
        buffer).  False: the writer thread's to write."""
        if self._inflight or not self._fifo or len(data) > select.PIPE_BUF:
            return False
        if self.broken:
            return True
        try:
            p = select.poll()
            p.register(self._wfd, select.POLLOUT)
            if not p.poll(0):
                return False
            n = os.write(self._wfd, data)
        except OSError:
            self.broken = True          # the client went away
            return True
        if n != len(data):              # a pipe writes PIPE_BUF whole
            self.broken = True
        return True

    def _queued(self, n: int) -> None:
        """Count n bytes more (less, when negative) of answers unsent, and
        have the loop take lines or not."""
        with self._lock:
            self._unsent += n
        try:
            self._loop.call_soon_threadsafe(self._pace)
        except RuntimeError:
            pass                        # the loop is gone: the server ends

    def _pace(self) -> None:
        if self._unsent > self._max_unsent:
            self._drained.clear()
        else:
            self._drained.set()

    def close(self, timeout: float = 10.0) -> None:
        """Flush what is queued, then stop the writer."""
        self._out.put(None)
        self._writer.join(timeout)

    def _write_loop(self) -> None:
        while True:
            data = self._out.get()
            if data is None:
                return
            view = memoryview(data)
            try:
                while view and not self.broken:
                    n = os.write(self._wfd, view)
                    view = view[n:]
            except OSError:
                self.broken = True      # the client went away
            with self._lock:
                self._inflight -= 1
            self._queued(-len(data))


def response(req_id: Any, result: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": req_id, "result": result}


def error(req_id: Any, err: RpcError) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": req_id, "error": err.to_json()}


def notification(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": params}


class Batch:
    """The answers to one batch's messages, sent together as one array
    once each message has said (its answer, or None: none is due)."""

    def __init__(self, send: Callable[[Any], None]) -> None:
        self._send = send
        self._left = 1                  # the batch's own, until close()
        self._out: list[dict[str, Any]] = []

    def add(self) -> Reply:
        """A reply for one more message, said once (later ones ignored)."""
        self._left += 1
        said = False

        def reply(msg: dict[str, Any] | None) -> None:
            nonlocal said
            if not said:
                said = True
                if msg is not None:
                    self._out.append(msg)
                self._done()
        return reply

    def close(self) -> None:
        """Every message was added."""
        self._done()

    def _done(self) -> None:
        self._left -= 1
        if self._left == 0 and self._out:
            self._send(self._out)


def check(msg: Any) -> tuple[Any, dict[str, Any] | None]:
    """A message (one line's, or a batch's item) as (id, message): a
    request or notification with a method, or None for a client's
    response (ignored: this server asks nothing).  Raises BadMessage for
    what must be answered with an error, or dropped (a notification's:
    BadMessage.answer False)."""
    if not isinstance(msg, dict):
        raise _Bad(None, RpcError(INVALID_REQUEST,
                                  "a message must be a JSON object"))
    req_id = msg.get("id")
    has_id = "id" in msg
    if has_id and not valid_id(req_id):
        raise _Bad(None, RpcError(INVALID_REQUEST,
                                  "id must be a string or an integer"))
    if msg.get("jsonrpc") != "2.0":
        raise _Bad(req_id, RpcError(INVALID_REQUEST,
                                    'jsonrpc must be "2.0"'))
    if "method" not in msg:
        if has_id and ("result" in msg or "error" in msg):
            return req_id, None
        raise _Bad(req_id, RpcError(INVALID_REQUEST, "no method"))
    if not isinstance(msg["method"], str):
        raise _Bad(req_id, RpcError(INVALID_REQUEST,
                                    "method must be a string"))
    if not isinstance(msg.get("params", {}), dict):
        raise _Bad(req_id, RpcError(INVALID_PARAMS,
                                    "params must be an object"), has_id)
    return req_id, msg


def load(line: bytes) -> Any:
    """A line's JSON: strict UTF-8, no NaN or Infinity, at most
    MAX_VALUES values, nesting within Python's recursion limit."""
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as e:
        raise _Bad(None, RpcError(PARSE_ERROR, f"parse error: not UTF-8 "
                                  f"(byte {e.start})")) from None
    values = _STRING.sub(b"", line)
    n = values.count(b"{") + values.count(b"[") + values.count(b",")
    if n > MAX_VALUES:
        raise _Bad(None, RpcError(INVALID_REQUEST, f"more than {MAX_VALUES}"
                                  " JSON values in one message: dropped"))
    try:
        return json.loads(text, parse_constant=_no_constant)
    except ValueError as e:
        raise _Bad(None, RpcError(PARSE_ERROR, f"parse error: {e}")) from None
    except RecursionError:
        raise _Bad(None, RpcError(PARSE_ERROR, "parse error: nested too "
                                  "deeply")) from None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def valid_id(v: Any) -> bool:
    """A request id this server takes (and a requestId it looks up): a
    string or an integer, never a boolean, a float or null."""
    return isinstance(v, str) or (isinstance(v, int)
                                  and not isinstance(v, bool))


class _Bad(Exception):
    def __init__(self, req_id: Any, err: RpcError,
                 answer: bool = True) -> None:
        super().__init__(err.message)
        self.req_id = req_id
        self.err = err
        self.answer = answer        # False: a notification's, dropped


BadMessage = _Bad
