"""cordon-runtime's request parsing, no I/O: a target's route, path and
query; an execute request's JSON and its command; a multipart/form-data
upload.  Everything bad is a Bad (status 400 unless said), never another
exception: tests/fuzz/fuzz_runtime.py holds it to that."""
from __future__ import annotations

import dataclasses
import json
import re
import shlex
import urllib.parse

# The routes with a path after them, and those without (exact).
PREFIXED = ("/download/", "/list/", "/exists/", "/v1/files/", "/sessions/")
EXACT = ("/", "/execute", "/upload", "/v1/health", "/v1/metadata",
         "/sessions")
MAX_CODE = 1 << 20          # a snippet given inline, bytes
MAX_ARGS = 256              # words after the snippet
MAX_PARTS = 16              # parts of a multipart body
INTERPRETERS = re.compile(r"^(?:/usr(?:/local)?/bin/)?python3?(?:\.\d+)?$")
_TOKEN = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]+$")


class Bad(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status, self.message = status, message


@dataclasses.dataclass(frozen=True)
class Target:
    route: str              # one of PREFIXED or EXACT
    path: str               # the decoded rest after a PREFIXED route
    query: dict[str, str]


def _unquote(s: str, what: str) -> str:
    try:
        out = urllib.parse.unquote(s, errors="strict")
    except UnicodeDecodeError:
        raise Bad(f"{what}: percent-encoding that is not UTF-8") from None
    if "\0" in out:
        raise Bad(f"{what}: a NUL byte")
    return out


def target(raw: str) -> Target:
    """A request target: /ROUTE[/PATH][?QUERY]."""
    path, _, qs = raw.partition("?")
    query: dict[str, str] = {}
    for item in qs.split("&") if qs else ():
        k, _, v = item.partition("=")
        k = _unquote(k.replace("+", " "), "query")
        if k in query:
            raise Bad(f"query parameter {k[:40]!r} given twice")
        query[k] = _unquote(v.replace("+", " "), "query")
    if path in EXACT:
        return Target(path, "", query)
    for r in PREFIXED:
        if path.startswith(r):
            return Target(r, _unquote(path[len(r):], "path"), query)
    raise Bad(f"no such endpoint: {path[:100]!r}", 404)


def flag(query: dict[str, str], name: str) -> bool:
    v = query.get(name, "false").lower()
    if v not in ("true", "false", "1", "0"):
        raise Bad(f"{name}={v[:20]!r}: true or false")
    return v in ("true", "1")


def mode(query: dict[str, str]) -> int:
    v = query.get("mode", "0644")
    if not re.fullmatch(r"0[0-7]{3}", v):
        raise Bad(f"mode={v[:20]!r}: octal like 0644")
    return int(v, 8) & 0o777 & ~0o6000


@dataclasses.dataclass(frozen=True)
class Execute:
    code: str | None        # the snippet, inline
    file: str | None        # or a workspace file holding it
    args: tuple[str, ...]
    policy: str | None
    session: str | None
    timeout: float | None


def json_object(body: bytes) -> dict:
    try:
        value = json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Bad("the body is not JSON") from None
    if not isinstance(value, dict):
        raise Bad("the body is not a JSON object")
    return value


def _opt(d: dict, key: str, kind: type, cap: int = 256) -> object:
    v = d.get(key)
    if v is None:
        return None
    if not isinstance(v, kind) or isinstance(v, bool) or \
            (isinstance(v, str) and len(v) > cap):
        raise Bad(f"{key!r}: a {kind.__name__} is expected")
    return v


def command(cmd: str) -> tuple[str | None, str | None, tuple[str, ...]]:
    """A python-runtime command line taken apart: python3 -c CODE
    [ARGS] or python3 FILE [ARGS] (FILE in the workspace); the policy's
    own interpreter runs it, under the policy."""
    try:
        words = shlex.split(cmd)
    except ValueError as e:
        raise Bad(f"command: {e}") from None
    if not words:
        raise Bad("command: empty")
    if not INTERPRETERS.match(words[0]):
        raise Bad(f"command: {words[0][:60]!r} is not run here: each "
                  "command is Python under a cordon policy ('python3 -c "
                  "CODE' or 'python3 FILE', FILE in the workspace)", 422)
    if len(words) < 2:
        raise Bad("command: python3 without -c CODE or FILE", 422)
    if len(words) > MAX_ARGS + 3:
        raise Bad(f"command: more than {MAX_ARGS} arguments")
    if words[1] == "-c":
        if len(words) < 3:
            raise Bad("command: -c without CODE")
        return words[2], None, tuple(words[3:])
    if words[1].startswith("-"):
        raise Bad(f"command: option {words[1][:20]!r} is not taken (the "
                  "policy says how Python runs): -c CODE or FILE", 422)
    return None, words[1], tuple(words[2:])


def execute(body: bytes) -> Execute:
    """{"command": "python3 -c ..."} (the python-runtime's), or "code"
    instead; "policy", "session", "timeout" optional (cordon's)."""
    d = json_object(body)
    code = _opt(d, "code", str, MAX_CODE)
    cmd = _opt(d, "command", str, MAX_CODE + 4096)
    policy = _opt(d, "policy", str)
    session = _opt(d, "session", str)
    timeout = d.get("timeout")
    if timeout is not None and (not isinstance(timeout, (int, float)) or
                                isinstance(timeout, bool) or
                                not 0 < timeout <= 86400):
        raise Bad("'timeout': seconds, > 0")
    if (code is None) == (cmd is None):
        raise Bad("give 'command' (python3 -c CODE, or python3 FILE) or "
                  "'code', one of them")
    if code is not None:
        return Execute(str(code), None, (), policy,   # type: ignore
                       session, timeout)            # type: ignore
    c, f, args = command(str(cmd))
    if c is not None and len(c.encode("utf-8", "surrogatepass")) > MAX_CODE:
        raise Bad(f"the code is over {MAX_CODE} bytes")
    return Execute(c, f, args, policy, session, timeout)  # type: ignore


def _params(header: str) -> tuple[str, dict[str, str]]:
    """A header's value and its ;name=value parameters (quoted or
    token)."""
    head, *rest = header.split(";")
    out: dict[str, str] = {}
    for p in rest:
        k, sep, v = p.strip().partition("=")
        if not sep:
            continue
        k = k.strip().lower()
        v = v.strip()
        if len(v) >= 2 and v[0] == v[-1] == '"':
            v = v[1:-1].replace('\\"', '"').replace("\\\\", "\\")
        out.setdefault(k, v)
    return head.strip().lower(), out


@dataclasses.dataclass(frozen=True)
class Part:
    name: str
    filename: str | None
    data: bytes


def boundary(content_type: str) -> bytes:
    kind, params = _params(content_type)
    if kind != "multipart/form-data":
        raise Bad("Content-Type: multipart/form-data is required", 415)
    b = params.get("boundary", "")
    if not 1 <= len(b) <= 70 or not all(0x20 <= ord(c) < 0x7f for c in b):
        raise Bad("multipart/form-data without a valid boundary")
    return b.encode("ascii")


def multipart(content_type: str, body: bytes) -> list[Part]:
    """The parts of a multipart/form-data body (RFC 7578), each with its
    Content-Disposition's name and filename."""
    delim = b"--" + boundary(content_type)
    if not body.startswith(delim):
        raise Bad("multipart body does not start with its boundary")
    chunks = body.split(b"\r\n" + delim)
    first = chunks[0][len(delim):]
    pieces = [first] + chunks[1:]
    parts: list[Part] = []
    for i, piece in enumerate(pieces):
        if piece.startswith(b"--"):
            if i == 0:
                raise Bad("multipart body with no part")
            return parts
        if i == len(pieces) - 1:
            break
        if not piece.startswith(b"\r\n"):
            raise Bad("multipart boundary not followed by a line end")
        head, sep, data = piece[2:].partition(b"\r\n\r\n")
        if not sep:
            if piece[2:].startswith(b"\r\n"):
                head, data = b"", piece[4:]
            else:
                raise Bad("multipart part without its blank line")
        if len(parts) >= MAX_PARTS:
            raise Bad(f"more than {MAX_PARTS} parts")
        parts.append(_part(head, data))
    raise Bad("multipart body without its closing boundary")


def _part(head: bytes, data: bytes) -> Part:
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError:
        raise Bad("multipart part headers are not UTF-8") from None
    disp = None
    for line in text.split("\r\n") if text else ():
        name, sep, value = line.partition(":")
        if not sep or not _TOKEN.match(name):
            raise Bad("malformed multipart part header")
        if name.lower() == "content-disposition":
            if disp is not None:
                raise Bad("Content-Disposition given twice in a part")
            disp = value
    if disp is None:
        raise Bad("multipart part without Content-Disposition")
    kind, params = _params(disp)
    if kind != "form-data" or "name" not in params:
        raise Bad("multipart part: Content-Disposition: form-data; "
                  "name=... is required")
    fname = params.get("filename")
    if fname is not None and "\0" in fname:
        raise Bad("multipart filename with a NUL byte")
    return Part(params["name"], fname, data)
