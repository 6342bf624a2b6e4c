"""Reading the parts of a compiled policy blob the client needs.

The format is defined in common/cpol.h (prose: cordon.cpol(5)).  The client
decodes only what it uses -- the header (with its checksum), META (name,
compiler version, source digest), LAYERS and LIMITS -- and leaves full
validation to the launcher, which refuses any blob it cannot validate.

It also recomputes a policy source's digest the way the compiler records
it: SHA-256 over every source file read, in the order read (the file, then
each ``include`` where it appears, depth first), each as a little-endian
u32 length followed by the file's bytes.
"""
from __future__ import annotations

import dataclasses
import hashlib
import os
import stat
import struct
from typing import Any

from ._cpol import (CPOL_ENV_SET, CPOL_F_BEST_EFFORT_LANDLOCK,
                    CPOL_F_NET_OFF, CPOL_F_NET_TCP, CPOL_HEADER_LEN,
                    CPOL_MAGIC, CPOL_MAX_SECTIONS, CPOL_MAX_SIZE,
                    CPOL_MAX_STR, CPOL_S_ENV, CPOL_S_LAYERS, CPOL_S_LIMITS,
                    CPOL_S_META, CPOL_S_SESSION, CPOL_SUM_OFF,
                    CPOL_VERSION)

# The format's constants come from common/cpol.h (_cpol.py, generated).
MAGIC, VERSION, HEADER_LEN, SUM_OFF = (CPOL_MAGIC, CPOL_VERSION,
                                       CPOL_HEADER_LEN, CPOL_SUM_OFF)
MAX_SIZE, MAX_SECTIONS, MAX_STR = (CPOL_MAX_SIZE, CPOL_MAX_SECTIONS,
                                   CPOL_MAX_STR)
S_META, S_LAYERS, S_LIMITS, S_ENV = (CPOL_S_META, CPOL_S_LAYERS,
                                     CPOL_S_LIMITS, CPOL_S_ENV)
S_SESSION = CPOL_S_SESSION
ENV_SET = CPOL_ENV_SET
F_BEST_EFFORT_LANDLOCK, F_NET_OFF, F_NET_TCP = (
    CPOL_F_BEST_EFFORT_LANDLOCK, CPOL_F_NET_OFF, CPOL_F_NET_TCP)
MAX_INCLUDE_DEPTH = 16      # loops in includes end here, not in a crash
MAX_SOURCE_BYTES = 1 << 20  # a policy file is a few KiB


class BlobFormatError(ValueError):
    """The bytes are not a cordon blob this client can read."""


@dataclasses.dataclass(frozen=True)
class BlobInfo:
    """What the client knows about a compiled policy."""
    path: str
    name: str
    description: str
    compiler_version: str
    source_digest: str      # hex SHA-256 recorded by the compiler
    blob_digest: str        # hex SHA-256 checksum of the blob (header sum)
    landlock_abi_min: int
    flags: int
    timeout_ms: int         # the policy's wall-clock timeout
    output_cap: int         # the policy's stdout+stderr cap in bytes
    # Folders directly in the workdir that the policy's environment
    # points libraries at (MPLCONFIGDIR = "$WORKDIR/.config/matplotlib"
    # gives ".config"): their state, never an output (outputs.py).
    workdir_state: tuple[str, ...] = ()
    # The policy's `session` statement (0: none): how long a session of
    # the tool may live (cordon --session).  session_max_ms says it.
    session_ms: int = 0

    @property
    def session_max_ms(self) -> int:
        """How long a session may live: the session statement, else the
        timeout (cpol_session_ms in common/cpol.h)."""
        return self.session_ms or self.timeout_ms

    @property
    def network(self) -> str:
        return "tcp" if self.flags & F_NET_TCP else "off"


class _Cursor:
    def __init__(self, buf: bytes, what: str) -> None:
        self.buf, self.pos, self.what = buf, 0, what

    def take(self, n: int) -> bytes:
        if n < 0 or n > len(self.buf) - self.pos:
            raise BlobFormatError(f"{self.what}: truncated")
        b = self.buf[self.pos:self.pos + n]
        self.pos += n
        return b

    def u16(self) -> int:
        return int(struct.unpack("<H", self.take(2))[0])

    def u32(self) -> int:
        return int(struct.unpack("<I", self.take(4))[0])

    def u64(self) -> int:
        return int(struct.unpack("<Q", self.take(8))[0])

    def str(self) -> str:
        n = self.u16()
        if n > MAX_STR:
            raise BlobFormatError(f"{self.what}: string too long")
        b = self.take(n)
        if b"\0" in b:
            raise BlobFormatError(f"{self.what}: NUL inside a string")
        return b.decode("utf-8", "replace")


def read_blob_file(path: str) -> bytes:
    """Read a blob without following a symlink at its last component,
    refusing anything but a regular file under the size cap."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC
                 | os.O_NONBLOCK)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise BlobFormatError("not a regular file")
        if st.st_size > MAX_SIZE:
            raise BlobFormatError(f"{st.st_size} bytes exceeds {MAX_SIZE}")
        chunks = []
        left = MAX_SIZE + 1
        while left > 0:
            b = os.read(fd, min(left, 1 << 16))
            if not b:
                break
            chunks.append(b)
            left -= len(b)
        return b"".join(chunks)
    finally:
        os.close(fd)


def parse_blob(buf: bytes, path: str = "") -> BlobInfo:
    """Check the header and checksum of buf and decode META, LAYERS and
    LIMITS.  Raises BlobFormatError."""
    if len(buf) > MAX_SIZE:
        raise BlobFormatError(f"blob of {len(buf)} bytes exceeds {MAX_SIZE}")
    c = _Cursor(buf, "header")
    if c.take(8) != MAGIC:
        raise BlobFormatError("not a cordon policy blob (bad magic)")
    version, hdrlen = c.u16(), c.u16()
    c.u32()  # arch: the launcher checks it against the running kernel
    size, nsect, flags, reserved = c.u32(), c.u32(), c.u32(), c.u32()
    total = c.take(32)
    if version != VERSION:
        raise BlobFormatError(f"blob format version {version}, "
                              f"this client knows {VERSION}")
    if hdrlen != HEADER_LEN or size != len(buf) or flags or reserved:
        raise BlobFormatError("bad header (length, size or flags)")
    if nsect > MAX_SECTIONS:
        raise BlobFormatError("too many sections")
    h = hashlib.sha256(buf[:SUM_OFF])
    h.update(buf[HEADER_LEN:])
    if h.digest() != total:
        raise BlobFormatError("checksum mismatch: the blob is corrupt")
    fields: dict[str, Any] = {}
    last = 0
    for _ in range(nsect):
        stype = c.u16()
        c.u16()  # section flags: criticality is the launcher's concern
        slen = c.u32()
        if stype <= last:
            raise BlobFormatError("sections out of order")
        last = stype
        body = _Cursor(c.take(slen), f"section {stype}")
        if stype == S_META:
            fields["name"] = body.str()
            fields["description"] = body.str()
            fields["compiler_version"] = body.str()
            fields["source_digest"] = body.take(32).hex()
        elif stype == S_LAYERS:
            fields["landlock_abi_min"] = body.u32()
            fields["flags"] = body.u32()
        elif stype == S_LIMITS:
            fields["timeout_ms"] = body.u64()
            fields["output_cap"] = body.u64()
        elif stype == S_ENV:
            fields["workdir_state"] = _workdir_state(body)
        elif stype == S_SESSION:
            fields["session_ms"] = body.u64()
    if c.pos != len(buf):
        raise BlobFormatError("trailing bytes after the last section")
    for key in ("name", "landlock_abi_min", "timeout_ms"):
        if key not in fields:
            raise BlobFormatError(f"missing section for {key}")
    return BlobInfo(path=path, blob_digest=total.hex(), **fields)


def _workdir_state(body: _Cursor) -> tuple[str, ...]:
    """The first folder below $WORKDIR of each value the ENV section sets
    (u32 count; u8 kind, str name, str value each)."""
    dirs: list[str] = []
    for _ in range(body.u32()):
        kind = body.take(1)[0]
        body.str()
        value = body.str()
        if kind != ENV_SET or not value.startswith("$WORKDIR/"):
            continue
        top = value[len("$WORKDIR/"):].split("/", 1)[0]
        if top not in ("", ".", "..") and top not in dirs:
            dirs.append(top)
    return tuple(dirs)


def load_blob(path: str) -> BlobInfo:
    return parse_blob(read_blob_file(path), path)


# ---------------------------------------------------------------- sources

def _includes(text: bytes) -> list[str]:
    """The include targets of a policy source, in order.  A small lexer:
    comments (# and /* */) and strings are skipped correctly, and an
    include counts only at the start of a statement."""
    out: list[str] = []
    i, n = 0, len(text)
    prev_end_of_stmt = True     # at start, or after ';'
    pending_include = False
    while i < n:
        ch = text[i:i + 1]
        if ch in b" \t\r\n":
            i += 1
        elif ch == b"#":
            j = text.find(b"\n", i)
            i = n if j < 0 else j + 1
        elif text.startswith(b"/*", i):
            j = text.find(b"*/", i + 2)
            i = n if j < 0 else j + 2
        elif ch == b'"':
            j, buf = i + 1, bytearray()
            while j < n and text[j:j + 1] != b'"':
                if text[j:j + 1] == b"\\" and j + 1 < n:
                    j += 1
                buf += text[j:j + 1]
                j += 1
            i = j + 1
            if pending_include:
                out.append(buf.decode("utf-8", "surrogateescape"))
            pending_include = False
            prev_end_of_stmt = False
        elif ch == b";":
            i += 1
            pending_include = False
            prev_end_of_stmt = True
        else:
            j = i
            while j < n and text[j:j + 1] not in b' \t\r\n;"#':
                if text.startswith(b"/*", j):
                    break
                j += 1
            word = text[i:j]
            pending_include = prev_end_of_stmt and word == b"include"
            prev_end_of_stmt = False
            i = max(j, i + 1)
    return out


def _read_source(path: str) -> bytes:
    with open(path, "rb") as f:
        data = f.read(MAX_SOURCE_BYTES + 1)
    if len(data) > MAX_SOURCE_BYTES:
        raise OSError(f"{path}: policy source too large")
    return data


def source_digest(path: str, include_dirs: tuple[str, ...] = (),
                  files: list[str] | None = None) -> str:
    """The source digest cordonc would record for path (hex); the files
    read are appended to files.  Raises OSError if a file (or an include)
    cannot be read."""
    h = hashlib.sha256()

    def visit(p: str, depth: int) -> None:
        if depth > MAX_INCLUDE_DEPTH:
            raise OSError(f"{p}: includes nested too deeply")
        data = _read_source(p)
        if files is not None:
            files.append(p)
        h.update(struct.pack("<I", len(data)))
        h.update(data)
        for inc in _includes(data):
            visit(_resolve(inc, os.path.dirname(p), include_dirs), depth + 1)

    visit(path, 0)
    return h.hexdigest()


def _resolve(inc: str, here: str, include_dirs: tuple[str, ...]) -> str:
    if os.path.isabs(inc):
        return inc
    for d in (here, *include_dirs):
        cand = os.path.join(d, inc)
        if os.path.isfile(cand):
            return cand
    raise OSError(f"include \"{inc}\" not found (from {here})")
