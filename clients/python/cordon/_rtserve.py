"""cordon-runtime's HTTP side: connections (_mcphttpio's bounded reader
and writer), bearer tokens and the Host guard (_mcphttp's), and the
endpoints of kubernetes-sigs/agent-sandbox's in-pod runtime contract:
the python-runtime's (GET /, POST /execute, POST /upload, GET
/download|list|exists/PATH) and sandboxd's REST (/v1/files/PATH,
/v1/health, /v1/metadata), with cordon's /sessions.  See
cordon-runtime(1)."""
from __future__ import annotations

import asyncio
import datetime
import json
import logging
import os
import time
from typing import Any, Callable

from . import __version__
from . import _rtfiles as files
from . import _rtparse as parse
from ._mcphttp import bearer, guard, loopback
from ._mcphttpio import Closed, HttpFail, Request, read_body, read_head, \
    write
from ._rtexec import Runs
from ._rtparse import Bad

log = logging.getLogger("cordon.runtime")
OPEN = ("/", "/v1/health")          # the probes: no token asked
SMALL_BODY = 4 * parse.MAX_CODE     # an execute's JSON (escapes included)
# Names never served by /v1/metadata, whatever their prefix (the run's
# code can ask the server nothing, but the caller's logs might keep it).
SECRET_WORDS = ("TOKEN", "SECRET", "PASSWORD", "PASSWD", "CRED", "KEY",
                "AUTH", "BEARER", "PRIVATE", "CERT")


def _json(status: int, value: Any) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json"}, \
        json.dumps(value, ensure_ascii=False).encode()


def _rfc3339(t: float) -> str:
    return datetime.datetime.fromtimestamp(
        t, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


_CODES = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED",
          403: "PERMISSION_DENIED", 404: "NOT_FOUND", 409: "CONFLICT",
          410: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED",
          413: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}


class Health:
    """cordon --check of every policy served, run again at most every
    `every` seconds (the probes ask often); the first failure's words."""

    def __init__(self, client: Any, policies: list[str],
                 every: float) -> None:
        self.client, self.policies, self.every = client, policies, every
        self.at = -1e9
        self.why: str | None = "not checked yet"
        self.lock = asyncio.Lock()

    async def check(self) -> str | None:
        async with self.lock:
            if time.monotonic() - self.at < self.every:
                return self.why
            self.why = await self._run()
            self.at = time.monotonic()
            if self.why:
                log.warning("unhealthy: %s", self.why)
            return self.why

    async def _run(self) -> str | None:
        """None while every served policy's ``cordon --check`` passes in
        the mode the machine allows (as a run would choose it), else the
        first one's why."""
        store = self.client.policies
        for p in self.policies:
            try:
                why = await asyncio.to_thread(store.check_now, p)
            except Exception as e:          # a missing blob, launcher...
                return f"policy {p!r}: {e}"
            if why:
                return why
        return None


class Server:
    def __init__(self, runs: Runs, health: Health, host: str,
                 tokens: list[bytes], max_connections: int) -> None:
        self.runs, self.health = runs, health
        self.on_loopback = loopback(host)
        self.tokens, self.max_connections = tokens, max_connections
        self.conns = 0
        self.started = time.monotonic()

    # -- connections ---------------------------------------------------

    async def connection(self, reader: asyncio.StreamReader,
                         writer: asyncio.StreamWriter) -> None:
        if self.conns >= self.max_connections:
            try:
                await write(writer, 503, {"Retry-After": "1"},
                            b"too many connections (--max-connections)\n",
                            True)
            except (OSError, asyncio.TimeoutError):
                pass
            writer.close()
            return
        self.conns += 1
        try:
            await self._serve(reader, writer)
        except (OSError, asyncio.TimeoutError, Closed):
            pass
        finally:
            self.conns -= 1
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader,
                     writer: asyncio.StreamWriter) -> None:
        first = True
        while True:
            close, head, read = True, False, False
            try:
                req = await read_head(reader, first)
                first = False
                close, head = not req.keep_alive(), req.method == "HEAD"
                t, limit = self._route(req)
                await read_body(reader, req, limit, "--max-file" if
                                limit > SMALL_BODY else "an execute's")
                read = True
                status, headers, body = await self.dispatch(req, t)
            except HttpFail as e:
                status, headers, body = self._error(e.status, e.message,
                                                    e.headers)
                close = close or e.close or not read
            except Bad as e:
                status, headers, body = self._error(e.status, e.message)
                close = close or not read   # its body left unread
            except (Closed, OSError, asyncio.TimeoutError):
                raise
            except Exception:       # a bug: said, and the server goes on
                log.exception("a request could not be handled")
                status, headers, body = self._error(
                    500, "internal error (the server's log says more)")
                close = True
            if head:
                headers = {**headers, "Content-Length": str(len(body))}
                body = b""
            await write(writer, status, headers, body, close)
            if close:
                return

    def _route(self, req: Request) -> tuple[parse.Target, int]:
        """The target parsed and checked (Host, token) before the body is
        read; the body's bound for its route."""
        guard(req, self.on_loopback, set())
        t = parse.target(req.target)
        if t.route not in OPEN:
            bearer(req, self.tokens, "cordon-runtime")
        big = t.route in ("/upload", "/v1/files/")
        return t, (self.runs.lim.max_file + (64 << 10) if big
                   else SMALL_BODY)

    @staticmethod
    def _error(status: int, message: str, headers: dict[str, str] | None
               = None) -> tuple[int, dict[str, str], bytes]:
        """Both contracts' error bodies in one: the python-runtime's
        "message" and sandboxd's "code" and "message"."""
        code = _CODES.get(status, "INVALID_ARGUMENT" if status < 500
                          else "INTERNAL")
        s, h, b = _json(status, {"code": code,
                                 "message": message})
        return s, {**h, **(headers or {})}, b

    # -- requests ------------------------------------------------------

    async def dispatch(self, req: Request, t: parse.Target
                       ) -> tuple[int, dict[str, str], bytes]:
        m, r = req.method, t.route
        if (m, r) in (("GET", "/"), ("HEAD", "/")):
            why = await self.health.check()
            return _json(503, {"status": "unhealthy", "message": why}) \
                if why else _json(200, {"status": "ok", "message":
                                        "Sandbox Runtime is active."})
        if r == "/v1/health" and m in ("GET", "HEAD"):
            why = await self.health.check()
            return self._error(503, why) if why else _json(200, {
                "status": "ok", "uptime_seconds":
                int(time.monotonic() - self.started)})
        if r == "/v1/metadata" and m in ("GET", "HEAD"):
            return _json(200, self.metadata())
        if (m, r) == ("POST", "/execute"):
            ex = parse.execute(req.body)
            return _json(200, await self.runs.execute(ex))
        if (m, r) == ("POST", "/sessions"):
            body = parse.json_object(req.body) if req.body else {}
            p = body.get("policy")
            if p is not None and not isinstance(p, str):
                raise Bad("'policy': a string")
            return _json(200, await self.runs.open(p))
        if (m, r) == ("DELETE", "/sessions/"):
            return _json(200, await self.runs.close(t.path))
        if (m, r) == ("POST", "/upload"):
            return await self.upload(req)
        if r in ("/download/", "/list/", "/exists/") and m in ("GET",
                                                               "HEAD"):
            return await self.legacy(r, t.path)
        if r == "/v1/files/":
            return await self.v1_files(m, t, req.body,
                                       req.headers.get("content-type", ""))
        raise Bad(f"{m[:10]} {r}: no such endpoint or method", 405
                  if r in parse.EXACT or r in parse.PREFIXED else 404)

    def metadata(self) -> dict[str, Any]:
        env = {k: v for k, v in os.environ.items()
               if k.startswith("SANDBOX_") and
               not any(w in k.upper() for w in SECRET_WORDS)}
        return {"env": env, "cordon": {
            "version": __version__, "policies": self.runs.policies,
            "workspace": self.runs.root, "warm": self.runs.client.warm}}

    async def _fs(self, fn: Callable[..., Any], *args: Any) -> Any:
        try:
            return await asyncio.to_thread(fn, self.runs.root, *args)
        except files.Refused as e:
            raise Bad(e.message, e.status) from None

    def _sized(self, data: bytes) -> None:
        if len(data) > self.runs.lim.max_file:
            raise Bad(f"a file of {len(data)} bytes: the maximum is "
                      f"{self.runs.lim.max_file} (--max-file)", 413)

    async def upload(self, req: Request
                     ) -> tuple[int, dict[str, str], bytes]:
        parts = parse.multipart(req.headers.get("content-type", ""),
                                req.body)
        got = [p for p in parts if p.name == "file"]
        if len(got) != 1 or not got[0].filename:
            raise Bad("one part named 'file', with a filename (the path "
                      "in the workspace), is required")
        p = got[0]
        self._sized(p.data)
        await self._fs(files.write_file, p.filename, p.data)
        return _json(200, {"message":
                           f"File '{p.filename}' uploaded successfully."})

    async def legacy(self, route: str, path: str
                     ) -> tuple[int, dict[str, str], bytes]:
        if route == "/exists/":
            k = await self._fs(files.kind, path)
            return _json(200, {"path": path, "exists": k is not None})
        if route == "/download/":
            data, _ = await self._fs(files.read_file, path, self.runs.lim)
            base = path.rsplit("/", 1)[-1].replace('"', "_")
            return 200, {"Content-Type": "application/octet-stream",
                         "Content-Disposition":
                         f"attachment; filename=\"{base}\""
                         if base.isascii() and base.isprintable()
                         else "attachment"}, data
        entries = await self._fs(files.listing, path, self.runs.lim)
        return _json(200, [{"name": e["name"], "size": e["size"],
                            "type": e["type"], "mod_time": e["mtime"]}
                           for e in entries])

    async def v1_files(self, m: str, t: parse.Target, body: bytes,
                       ctype: str) -> tuple[int, dict[str, str], bytes]:
        if m in ("GET", "HEAD"):
            k = await self._fs(files.kind, t.path)
            if k is None:
                raise Bad("path does not exist within the sandbox", 404)
            if k == "other":
                raise Bad(f"{t.path[:200]!r} is not a regular file or "
                          "folder (a link?): never followed", 403)
            if k == "file":
                data, _ = await self._fs(files.read_file, t.path,
                                         self.runs.lim)
                return 200, {"Content-Type":
                             "application/octet-stream"}, data
            entries = await self._fs(files.listing, t.path, self.runs.lim)
            return _json(200, {"path": "/" + t.path.lstrip("/"),
                               "entries": [{
                                   "name": e["name"], "size": e["size"],
                                   "type": e["type"],
                                   "modified_at": _rfc3339(e["mtime"]),
                                   "mode": "%04o" % e["mode"]}
                                   for e in entries]})
        if m == "PUT":
            if ctype.lower().startswith("multipart/"):
                got = [p for p in parse.multipart(ctype, body)
                       if p.name == "file"]
                if len(got) != 1:
                    raise Bad("one part named 'file' is required")
                body = got[0].data
            self._sized(body)
            await self._fs(files.write_file, t.path, body,
                           parse.mode(t.query))
            return 204, {}, b""
        if m == "DELETE":
            await self._fs(files.delete, t.path,
                           parse.flag(t.query, "recursive"))
            return 204, {}, b""
        raise Bad(f"{m[:10]} /v1/files: GET, HEAD, PUT or DELETE", 405)

