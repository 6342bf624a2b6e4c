"""Child processes that never block the event loop.

asyncio's own subprocess support forks and execs in the event loop's
thread, and the parent waits there until the child has exec'd; with many
runs starting at once on a busy machine that wait alone stalled the loop
for hundreds of milliseconds.  Here the spawn runs in a worker thread, the
pipes are attached to the loop, and the exit is watched with a pidfd
(readable once the child has exited), so the loop only ever does
non-blocking work.  Signals go through the pidfd too, which cannot hit a
recycled pid.
"""
from __future__ import annotations

import asyncio
import concurrent.futures
import os
import signal
import subprocess
from typing import (Any, Awaitable, Callable, Mapping, Sequence, TypeVar,
                    Union)

from . import _spawn

T = TypeVar("T")


async def complete(aw: Awaitable[T]) -> tuple[T, bool]:
    """Await aw to completion even if the caller is cancelled meanwhile.
    Returns (result, cancelled); aw's exceptions propagate."""
    fut = asyncio.ensure_future(aw)
    cancelled = False
    while True:
        try:
            return await asyncio.shield(fut), cancelled
        except asyncio.CancelledError:
            if fut.done():
                raise        # aw itself was cancelled
            cancelled = True


async def uncancellable(aw: Awaitable[T]) -> T:
    """complete(), then re-raise a cancellation that arrived meanwhile."""
    res, cancelled = await complete(aw)
    if cancelled:
        raise asyncio.CancelledError()
    return res


async def read_pipe(pipe: Any, cap: int) -> tuple[bytes, bool]:
    """Read a pipe (a raw file object, closed afterwards) to EOF, keeping
    at most cap bytes: (data, truncated)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=1 << 16)
    try:
        transport, _ = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(reader), pipe)
    except BaseException:
        pipe.close()
        raise
    buf = bytearray()
    cut = False
    try:
        while True:
            chunk = await reader.read(1 << 16)
            if not chunk:
                return bytes(buf), cut
            room = cap - len(buf)
            if len(chunk) > room:
                cut = True
                chunk = chunk[:max(room, 0)]
            buf += chunk
    finally:
        transport.close()


Priority = Union[str, int, None]


def priority_options(priority: Priority) -> list[str]:
    """cordon's options for the runs' CPU priority: "idle" -> --idle
    (SCHED_IDLE), N in 1..19 -> --nice N (relative to this process), None
    or 0 -> nothing.  cordon lowers the priority of the run only, after
    its own start: the client's threads, and cordon itself (which relays
    output and enforces the timeout), stay at this process's priority.
    (Lowering the spawning threads instead, for runs to inherit it, made
    a spawner thread that held the GIL wait behind idle-class runs, and
    with it the event loop.)"""
    if priority == "idle":
        return ["--idle"]
    if priority in (None, 0):
        return []
    if isinstance(priority, int) and not isinstance(priority, bool) \
            and 0 < priority <= 19:
        return ["--nice", str(priority)]
    raise ValueError(f"priority must be 'idle', 0..19 or None, "
                     f"not {priority!r}")


def spawner(workers: int = 4) -> concurrent.futures.ThreadPoolExecutor:
    """Threads that spawn runs (at this process's priority)."""
    return concurrent.futures.ThreadPoolExecutor(workers, "cordon-spawn")


class Process:
    """A child process started by start(); always wait() for it."""

    def __init__(self, pid: int, pidfd: int, stdout: Any, stderr: Any,
                 popen: "subprocess.Popen[bytes] | None" = None) -> None:
        self.pid = pid
        self.popen = popen
        self.stdout = stdout        # raw file objects, read ends
        self.stderr = stderr
        self.returncode: int | None = None
        self.said = b""             # nothing said for it (_submit's twin)
        self._pidfd = pidfd
        self._exited: "asyncio.Future[None] | None" = None

    @staticmethod
    def _spawn(make_argv: Callable[[int], Sequence[str]], status_w: int,
               env: Mapping[str, str], cwd: str,
               pgroup: int | None = None) -> "Process":
        if _spawn.available():
            return Process._posix_spawn(make_argv, status_w, env, cwd,
                                        pgroup)
        popen = subprocess.Popen(list(make_argv(status_w)),
                                 stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, bufsize=0,
                                 pass_fds=(status_w,), env=dict(env),
                                 cwd=cwd, close_fds=True,
                                 process_group=pgroup)
        try:
            # Not reaped yet, so the pid cannot have been reused.
            pidfd = os.pidfd_open(popen.pid)
        except OSError:
            popen.kill()
            popen.wait()
            raise
        return Process(popen.pid, pidfd, popen.stdout, popen.stderr, popen)

    @staticmethod
    def _posix_spawn(make_argv: Callable[[int], Sequence[str]],
                     status_w: int, env: Mapping[str, str],
                     cwd: str, pgroup: int | None = None) -> "Process":
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            pid = _spawn.spawn(make_argv(_spawn.CHILD_STATUS_FD), env, cwd,
                               out_w, err_w, status_w, pgroup)
        except BaseException:
            for fd in (out_r, err_r):
                os.close(fd)
            raise
        finally:
            os.close(out_w)
            os.close(err_w)
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(out_r)
            os.close(err_r)
            raise
        return Process(pid, pidfd, os.fdopen(out_r, "rb", buffering=0),
                       os.fdopen(err_r, "rb", buffering=0))

    @classmethod
    async def start(cls, make_argv: Callable[[int], Sequence[str]], *,
                    status_w: int, env: Mapping[str, str], cwd: str,
                    grace: float,
                    executor: concurrent.futures.Executor | None = None,
                    pgroup: int | None = None) -> "Process":
        """Spawn in a worker thread (of executor).  make_argv(fd) gives the
        command line for the status pipe being fd in the child.  If the
        caller is cancelled during the spawn, the child is terminated and
        reaped before CancelledError propagates.  pgroup: the process
        group to start it in (None: this process's)."""
        loop = asyncio.get_running_loop()
        fut = loop.run_in_executor(executor, cls._spawn, make_argv,
                                   status_w, env, cwd, pgroup)
        proc, cancelled = await complete(fut)
        if cancelled:
            await complete(proc.terminate(grace))
            proc.close()
            raise asyncio.CancelledError()
        return proc

    def _reap(self) -> int:
        if self.returncode is None:
            if self.popen is not None:
                self.returncode = self.popen.wait()
            else:
                _, st = os.waitpid(self.pid, 0)
                self.returncode = os.waitstatus_to_exitcode(st)
        return self.returncode

    async def wait(self) -> int:
        """Wait for the exit without blocking the loop, and reap.  The
        return code is negative -N when killed by signal N."""
        if self.returncode is not None:
            return self.returncode
        if self._exited is None:
            loop = asyncio.get_running_loop()
            fut = self._exited = loop.create_future()

            def ready() -> None:
                loop.remove_reader(self._pidfd)
                if not fut.done():
                    fut.set_result(None)
            loop.add_reader(self._pidfd, ready)
        await asyncio.shield(self._exited)
        rc = self._reap()               # exited: returns at once
        self._close_pidfd()
        return rc

    def _close_pidfd(self) -> None:
        if self._pidfd >= 0:
            os.close(self._pidfd)
            self._pidfd = -1

    def send_signal(self, sig: int) -> None:
        if self.returncode is not None or self._pidfd < 0:
            return
        try:
            signal.pidfd_send_signal(self._pidfd, sig)
        except ProcessLookupError:
            pass            # exited, not yet reaped

    async def terminate(self, grace: float) -> int:
        """SIGTERM, SIGKILL after grace seconds, and reap."""
        if self.returncode is None:
            self.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(self.wait(), grace)
            except asyncio.TimeoutError:
                self.send_signal(signal.SIGKILL)
        return await self.wait()

    def close(self) -> None:
        """Close the pipes (and the pidfd once reaped)."""
        for f in (self.stdout, self.stderr):
            if f is not None:
                f.close()
        if self.returncode is not None:
            self._close_pidfd()
