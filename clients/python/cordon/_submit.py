"""A run in a warm pool, asked for on the pool's socket by the client
itself: what ``cordon --submit @NAME`` does (launcher/warm/submit.c), with
no process between the client and the pool.

The protocol is launcher/warm/warm.h's (its constants: _warm.py, made
from that header).  One SOCK_SEQPACKET message to the pool's abstract
socket: the run's directory, then cordon's words, each NUL-ended, with
the run's stdin, stdout, stderr and status descriptors; the answer is
one message, WARM_MSG_EXIT and cordon's exit status (int32, little
endian) or WARM_MSG_ERROR and why, then EOF.  The same rules as
submit.c: nothing is sent to a listener whose uid (SO_PEERCRED) is
neither this process's nor root's, and the status descriptor's number in
the words is WARM_STATUS_FD.  Closing the socket before the answer ends
the run (the pool kills it): that is how a run is stopped.

Saved against the spawned ``cordon --submit``: its spawn and two execs
(cordon, then cordon-pool) and a trip to the spawner thread, 3-4 ms of a
warm call (bench/README.md section 8).  The pool checks every word again; cordon
after it checks the options a third time.
"""
from __future__ import annotations

import array
import asyncio
import os
import socket
import struct
from typing import Any, Sequence

from ._warm import (WARM_ERROR_MAX, WARM_HEAD_LEN, WARM_MSG_ERROR,
                    WARM_MSG_EXIT, WARM_REQUEST_MAX, WARM_WORDS_MAX)

EXIT_CORDON = 125


class NotReached(OSError):
    """No pool took the request (none listens on the name, or the name
    is held by another uid): nothing of the run started."""


def request(cwd: str, words: Sequence[str]) -> bytes:
    """The request's bytes: cwd, then each word, NUL-ended.  ValueError
    for a word holding NUL (it would split into two words: an option
    smuggled in), a relative cwd, or a request over the protocol's
    bounds."""
    if not os.path.isabs(cwd):
        raise ValueError("the run's directory must be absolute")
    if len(words) > WARM_WORDS_MAX:
        raise ValueError("request too long: %d words" % len(words))
    parts = [os.fsencode(cwd)] + [os.fsencode(w) for w in words]
    if any(b"\0" in p for p in parts):
        raise ValueError("a word of the request holds a NUL byte")
    data = b"\0".join(parts) + b"\0"
    if len(data) > WARM_REQUEST_MAX:
        raise ValueError("request too long: %d bytes" % len(data))
    return data


def connect(name: str, blocking: bool) -> socket.socket:
    """A connection to the pool @name whose listener runs as this
    process's uid or root's; NotReached otherwise.  Not blocking:
    BlockingIOError when the pool's backlog is full."""
    if not name.startswith("@") or not 2 <= len(name) <= 107:
        raise ValueError(f"not a pool's name: {name!r}")
    s = socket.socket(socket.AF_UNIX,
                      socket.SOCK_SEQPACKET | socket.SOCK_CLOEXEC)
    s.setblocking(blocking)
    try:
        try:
            s.connect(b"\0" + os.fsencode(name[1:]))
        except (ConnectionRefusedError, FileNotFoundError) as e:
            raise NotReached(e.errno, f"no pool listens on {name}") from None
        pid, uid, _ = struct.unpack("3i", s.getsockopt(
            socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
        if uid not in (os.geteuid(), 0):
            raise NotReached(0, f"the name {name} is held by a process of "
                             f"uid {uid} (pid {pid}), not of uid "
                             f"{os.geteuid()} or root: not sending "
                             "anything to it")
    except BaseException:
        s.close()
        raise
    return s


def send(s: socket.socket, data: bytes, fds: Sequence[int]) -> None:
    """The request with its descriptors, in one message."""
    s.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                        array.array("i", fds).tobytes())])


def answer(msg: bytes) -> tuple[int, bytes]:
    """The pool's answer: (cordon's exit status, b"") or (125, what to
    say on stderr), in submit.c's words."""
    if len(msg) == WARM_HEAD_LEN and msg[:1] == WARM_MSG_EXIT:
        code = int.from_bytes(msg[1:], "little", signed=True)
        return (code if 0 <= code <= 255 else EXIT_CORDON), b""
    if len(msg) > 1 and msg[:1] == WARM_MSG_ERROR:
        why = msg[1:1 + WARM_ERROR_MAX]
    else:
        why = b"it ended the connection"
    return EXIT_CORDON, b"cordon: the warm pool refused the run: " + \
        why + b"\n"


class Submitted:
    """A run taken by a pool, with the interface of _proc.Process that
    the client's supervision uses: stdout and stderr (raw read ends),
    wait(), terminate(), close(), returncode; and said, the refusal
    text (b"" when none)."""

    def __init__(self, sock: socket.socket, stdout: Any,
                 stderr: Any) -> None:
        self.sock = sock
        self.stdout = stdout
        self.stderr = stderr
        self.returncode: int | None = None
        self.said = b""

    @classmethod
    def start(cls, name: str, cwd: str, words: Sequence[str],
              status_w: int, blocking: bool) -> "Submitted":
        """Connect, send; NotReached, ValueError or OSError with nothing
        left open (BlockingIOError, not blocking, when the pool's backlog
        or socket buffer is full: then again, blocking, in a thread).
        words' --status-fd value must be WARM_STATUS_FD."""
        data = request(cwd, words)
        sock = connect(name, blocking)
        opened: list[int] = []
        try:
            out_r, out_w = os.pipe()
            opened += (out_r, out_w)
            err_r, err_w = os.pipe()
            opened += (err_r, err_w)
            null = os.open(os.devnull, os.O_RDONLY | os.O_CLOEXEC)
            opened.append(null)
            send(sock, data, (null, out_w, err_w, status_w))
            for fd in (out_w, err_w, null):
                os.close(fd)
                opened.remove(fd)
            sock.setblocking(False)
            return cls(sock, os.fdopen(out_r, "rb", buffering=0),
                       os.fdopen(err_r, "rb", buffering=0))
        except BaseException:
            for fd in opened:
                os.close(fd)
            sock.close()
            raise

    async def wait(self) -> int:
        """The pool's answer (cordon's exit status, once it has cleaned
        up), read without blocking the loop."""
        if self.returncode is None:
            loop = asyncio.get_running_loop()
            try:
                msg = await loop.sock_recv(self.sock, 1 + WARM_ERROR_MAX)
            except OSError:
                msg = b""
            self.returncode, self.said = answer(msg)
            self.sock.close()
        return self.returncode

    async def terminate(self, grace: float) -> int:
        """End the run: the pool kills it when its caller goes."""
        del grace
        if self.returncode is None:
            self.sock.close()
            self.returncode, self.said = EXIT_CORDON, b""
        return self.returncode

    def close(self) -> None:
        for f in (self.stdout, self.stderr):
            f.close()
        self.sock.close()

