"""Warm pools: one ``cordon --serve`` process per tool, started, watched
and stopped by the client (Client(warm=True)).

A pool is the tool's blob served on an abstract unix socket whose name is
unique to this process; runs reach it on that socket (_submit.py;
sessions with ``cordon --submit @NAME --stdin``).
Everything here blocks (fork/exec, waiting for the "ready" line, waiting
for an exit): the client calls it from a worker thread, never from the
event loop.  A pool outlives event loops (run() makes one per call), so
nothing here belongs to one: a plain thread drains the pool's standard
error (keeping its tail for error messages), and the pool's exit is seen
with Popen.poll().

The client holds the write end of a pipe on the pool's standard input:
when the client's process ends, however it ends, that pipe reaches EOF.
The pool is stopped by signal in any case (stop(), from Client.close()
or the client's finalizer).  It starts in a process group of its own,
which its runs' cordon processes (forks of the template) stay in: stop()
signals the group, so a run in flight ends with its pool, as a cold run
ends when its cordon is terminated, instead of running on, orphaned,
until its timeout.
"""
from __future__ import annotations

import collections
import os
import secrets
import signal
import subprocess
import threading
import time
from typing import Any, Mapping, Sequence

from ._warm import WARM_READY_WORD

READY_WORD = WARM_READY_WORD    # in the line cordon --serve prints
STDERR_TAIL = 64                # lines of the pool's stderr kept
STOP_GRACE = 2.0                # SIGTERM -> SIGKILL, seconds


class PoolStartError(Exception):
    """The pool exited, or did not say ready in time."""

    def __init__(self, message: str, exit_code: int | None,
                 stderr: bytes) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr


class Pool:
    """One ``cordon --serve @name [options] blob`` process.

    key: (blob path, blob digest) it serves; a recompiled blob has
    another key and needs another pool.  options: the pool's own (every
    run's priority: the runs are made ahead with them)."""

    def __init__(self, cordon: str, tool: str, blob: str, digest: str,
                 env: Mapping[str, str],
                 options: Sequence[str] = (), guard: Any = None) -> None:
        self.cordon = cordon
        self.options = list(options)
        self.key = (blob, digest)
        self.name = (f"@cordon-{tool}-{os.getpid()}-"
                     f"{secrets.token_hex(8)}")
        self._env = dict(env)
        self._guard = guard         # cordon-mcp's guardian, told the group
        self._popen: "subprocess.Popen[bytes] | None" = None
        self._tail: collections.deque[bytes] = \
            collections.deque(maxlen=STDERR_TAIL)
        self._ready = threading.Event()   # said ready, or stderr ended
        self._said_ready = False
        self._drain: threading.Thread | None = None
        self.users = 0              # runs in flight (under the client's lock)
        self.retired = False        # replaced: stop when users reaches 0

    @property
    def pid(self) -> int | None:
        return self._popen.pid if self._popen else None

    def alive(self) -> bool:
        return self._popen is not None and self._popen.poll() is None

    def stderr(self) -> bytes:
        return b"".join(self._tail)

    def start(self, timeout: float) -> None:
        """Start the pool and wait for its ready line; PoolStartError
        (with the pool stopped) if it exits or is not ready in time."""
        self._popen = subprocess.Popen(
            [self.cordon, "--serve", self.name, *self.options,
             self.key[0]],
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, env=self._env, cwd="/",
            close_fds=True, bufsize=0, start_new_session=True)
        if self._guard is not None:
            self._guard.pool_started(self._popen.pid)
        self._drain = threading.Thread(
            target=self._read_stderr, name=f"cordon-pool-{self.pid}",
            daemon=True)
        self._drain.start()
        ready = self._ready.wait(timeout)
        # stderr's end is not ready: the pool may close it just before
        # it exits, and poll() sees it alive until it has.
        if ready and self._said_ready and self.alive():
            return
        rc = self.stop()
        why = "exited" if ready else f"was not ready after {timeout:g}s"
        raise PoolStartError(f"cordon --serve {self.name} {self.key[0]} "
                             f"{why} (exit {rc}): "
                             f"{self.stderr().decode('utf-8', 'replace')}"
                             .strip()[-2000:], rc, self.stderr())

    def _read_stderr(self) -> None:
        popen = self._popen
        assert popen is not None and popen.stderr is not None
        try:
            for line in iter(popen.stderr.readline, b""):
                self._tail.append(line)
                if READY_WORD in line:
                    self._said_ready = True
                    self._ready.set()
        except (OSError, ValueError):
            pass                # closed by stop()
        finally:
            self._ready.set()   # exited: start() stops waiting

    def stop(self, grace: float = STOP_GRACE) -> int | None:
        """SIGTERM, SIGKILL after grace seconds, reap; idempotent.
        Returns the exit status (-N: signal N), None if never started."""
        popen = self._popen
        if popen is None:
            return None
        if popen.stdin is not None:
            try:
                popen.stdin.close()     # EOF on the pool's stdin
            except OSError:
                pass
        if popen.poll() is None:
            # Unreaped, the pool's pid names its group: signal the group
            # (the pool and its runs' cordon processes, which end their
            # runs' trees), then wait for all of it.
            _killpg(popen.pid, signal.SIGTERM)
            try:
                popen.wait(grace)
            except subprocess.TimeoutExpired:
                _killpg(popen.pid, signal.SIGKILL)
                popen.wait()
            _group_gone(popen.pid, grace)
        if self._guard is not None:
            self._guard.pool_stopped(popen.pid)
        if self._drain is not None and \
                self._drain is not threading.current_thread():
            self._drain.join(grace)
        if popen.stderr is not None and \
                (self._drain is None or not self._drain.is_alive()):
            popen.stderr.close()
        return popen.returncode


def _killpg(pgid: int, sig: int) -> bool:
    """Signal a process group; False if it has no member left."""
    try:
        os.killpg(pgid, sig)
    except ProcessLookupError:
        return False
    return True


def _live_members(pgid: int) -> bool:
    """Whether group pgid has a member that is not a zombie (the pool's
    runs' cordon processes are reaped by init, which may be slow or, in
    some containers, never do it)."""
    if not _killpg(pgid, 0):
        return False
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue                    # gone meanwhile
        if int(fields[2]) == pgid and fields[0] != b"Z":
            return True
    return False


def _group_gone(pgid: int, grace: float) -> None:
    """Wait up to grace seconds for the last members of a group whose
    leader was reaped (a group id is not reused while it has a member),
    then SIGKILL what is left."""
    end = time.monotonic() + grace
    while _live_members(pgid):
        if time.monotonic() > end:
            _killpg(pgid, signal.SIGKILL)
            return
        time.sleep(0.01)


def stop_all(pools: "dict[str, Pool]", retired: "set[Pool]",
             lock: threading.Lock) -> None:
    """Stop every pool, serving or retired, and forget them
    (Client.close() and the client's finalizer: it must not refer to the
    client)."""
    with lock:
        items = [*pools.values(), *retired]
        pools.clear()
        retired.clear()
    for p in items:
        p.stop()
