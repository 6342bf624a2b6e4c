"""cordon-mcp's guardian: when the server ends, however it ends (SIGKILL
included), every cordon process it started ends with it and its work
root (every run's and session's folder) is removed.

The server starts the guardian before anything else (Guard.start): a
process of its own, ``python3 -I -c ... ROOT``, leader of a new process
group, its stdin a pipe whose write end only the server holds (every
other child of the server is spawned with descriptors above 3 closed).
The server's clients spawn every cordon process (cold runs, sessions'
``--submit``) into the guardian's group, atomically (posix_spawn's
POSIX_SPAWN_SETPGROUP, Popen's process_group): a spawn after the guardian
and its group are gone fails.  Warm pools (``cordon --serve``) lead groups
of their own (Pool.stop signals a pool's group); the server tells the
guardian each one's group ("+PGID" when started, "-PGID" once stopped and
its group empty).  A pool also stops by itself at its stdin's EOF, ending
its runs.  A warm run is a process of its pool's (the client asks for it
on the pool's socket): the pool ends it when its connection closes, as
the server's death closes it.

At the pipe's EOF -- the server's exit, whatever caused it -- the guardian
sends SIGTERM to every member of its group and to the pools' groups (a
cordon ends its run's whole tree and removes its cgroup, as at any
SIGTERM), SIGKILL to what is left after GRACE seconds, waits for all of
them, then removes ROOT.  It ignores SIGTERM, SIGINT and SIGHUP (a
terminal's ^C reaches the server's group, not this one; the server ends
its runs itself then): only the EOF ends it.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

from .errors import CordonError

GRACE = 10.0            # SIGTERM -> SIGKILL, seconds
GONE_WAIT = 30.0        # after SIGKILL, at most this long for the exits
START_WORD = b"guarding\n"


class GuardGone(CordonError):
    """The guardian has ended: nothing more may be started."""


class Guard:
    """The server's side: the guardian process and the pipe to it."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._lock = threading.Lock()
        pkg = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        self._popen = subprocess.Popen(
            [sys.executable, "-I", "-c",
             "import sys; sys.path.insert(0, sys.argv[1]); "
             "from cordon._guard import main; sys.exit(main(sys.argv[2]))",
             pkg, root],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=None, close_fds=True, cwd="/", process_group=0)
        assert self._popen.stdout is not None
        word = self._popen.stdout.readline()
        self._popen.stdout.close()
        if word != START_WORD:
            self._popen.kill()
            self._popen.wait()
            raise GuardGone(f"cordon-mcp's guardian did not start "
                            f"(exit {self._popen.returncode})")
        self.pgid = self._popen.pid

    def check(self) -> None:
        if self._popen.poll() is not None:
            raise GuardGone("cordon-mcp's guardian has ended "
                            f"(exit {self._popen.returncode}): no run may "
                            "start that would outlive the server")

    def _say(self, line: str) -> None:
        assert self._popen.stdin is not None
        with self._lock:
            try:
                self._popen.stdin.write(line.encode() + b"\n")
                self._popen.stdin.flush()
            except (OSError, ValueError):
                pass            # closed: check() says so at the next run

    def pool_started(self, pgid: int) -> None:
        self._say(f"+{pgid}")

    def pool_stopped(self, pgid: int) -> None:
        self._say(f"-{pgid}")

    def close(self) -> None:
        """The server's orderly end (its runs already ended): EOF, and
        wait for the guardian's sweep."""
        assert self._popen.stdin is not None
        with self._lock:
            try:
                self._popen.stdin.close()
            except OSError:
                pass
        try:
            self._popen.wait(GRACE + GONE_WAIT + 5)
        except subprocess.TimeoutExpired:
            pass


# -- the guardian's side ----------------------------------------------------

def _stat(pid: str) -> list[bytes] | None:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return None


def _members(groups: set[int], me: int) -> list[int]:
    """Live (not zombie) processes of the groups, this one left out."""
    out = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        f = _stat(name)
        if f is not None and int(f[2]) in groups and f[0] != b"Z":
            out.append(int(name))
    return out


def _signal(pid: int, groups: set[int], sig: int) -> None:
    """Signal pid through a pidfd, once it is seen still in one of the
    groups (a reused pid is never signalled)."""
    try:
        fd = os.pidfd_open(pid)
    except OSError:
        return
    try:
        f = _stat(str(pid))
        if f is not None and int(f[2]) in groups:
            signal.pidfd_send_signal(fd, sig)
    except OSError:
        pass
    finally:
        os.close(fd)


def _end_all(groups: set[int], me: int) -> None:
    for pid in _members(groups, me):
        _signal(pid, groups, signal.SIGTERM)
    t0 = time.monotonic()
    killed = False
    while True:
        left = _members(groups, me)
        if not left:
            return
        waited = time.monotonic() - t0
        if waited > GRACE + GONE_WAIT:
            print(f"cordon-mcp guardian: processes {left} did not end",
                  file=sys.stderr)
            return
        if waited > GRACE or killed:
            for pid in left:
                _signal(pid, groups, signal.SIGKILL)
            killed = True
        time.sleep(0.05)


def main(root: str) -> int:
    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP,
                signal.SIGPIPE):
        signal.signal(sig, signal.SIG_IGN)
    me = os.getpid()
    pools: set[int] = set()
    os.write(1, START_WORD)
    os.close(1)
    buf = b""
    while True:
        try:
            chunk = os.read(0, 4096)
        except InterruptedError:
            continue
        if not chunk:
            break
        buf += chunk
        *lines, buf = buf.split(b"\n")
        for line in lines:
            if line[:1] == b"+" and line[1:].isdigit():
                pools.add(int(line[1:]))
            elif line[:1] == b"-" and line[1:].isdigit():
                pools.discard(int(line[1:]))
    _end_all({os.getpgrp(), *pools}, me)
    from ._fs import remove_tree
    try:
        remove_tree(root)
    except OSError as e:
        print(f"cordon-mcp guardian: cannot remove {root}: {e}",
              file=sys.stderr)
        return 1
    return 0
