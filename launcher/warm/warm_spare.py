"""A warm pool's spares (cordon --serve, launcher/warm/warm.py): each a
fork of the template that calls cordon itself (_cordon_warm.run), with
every layer of a cold run set up by cordon's own code; only in the run,
after seccomp, does that call return, and the run goes on in warm_run.
The spare's cordon (warmhold.c) says when it is ready and takes the
request the template gives it (the protocol: warm.h)."""

import array
import os
import signal
import socket
import time

import _cordon_warm
import warm_run

HANDLED = (signal.SIGTERM, signal.SIGINT)   # the template's handlers


class Spare:
    __slots__ = ("pid", "pidfd", "ctl", "ready", "conn", "warm", "born",
                 "alone")

    def __init__(self, pid, pidfd, ctl, warm):
        self.pid, self.pidfd, self.ctl = pid, pidfd, ctl
        self.ready, self.conn = False, None
        self.warm, self.born = warm, time.monotonic()   # exercised; forked
        self.alone = True       # no other spare was made meanwhile


def fork(pool, request, warm):
    """A spare: cordon with every layer set up around a warm run, with
    the pool's options; for a request, with the caller's stdio and
    set-up options.  warm: the run exercises the preloads first."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    # Blocked across the fork: a SIGTERM for the spare (its caller gone)
    # before the child has dropped the template's handler would write to
    # the template's wake-up pipe, and stop the pool.  The child keeps
    # them blocked: cordon blocks them too, and reads them (signalfd).
    held = signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED)
    pid = -1
    try:
        pid = os.fork()
    finally:
        if pid != 0:        # the template, forked or not: as it was
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
    if pid == 0:
        try:
            # cordon's own signal handling, no Python handler left
            signal.set_wakeup_fd(-1)
            for signum in HANDLED:
                signal.signal(signum, signal.SIG_DFL)
            setup = []
            if request:
                for i, fd in enumerate(request.fds[:_cordon_warm.FDS_MIN]):
                    os.dup2(fd, i)
                os.chdir(request.word(request.cwd))
                setup = request.words(request.setup)
            os.dup2(theirs.fileno(), _cordon_warm.CTL_FD)
            os.closerange(_cordon_warm.CTL_FD + 1, 1 << 20)
            argv, envp = _cordon_warm.run(
                ["cordon"] + pool.opts + setup + [pool.blob, "snippet.py"],
                _cordon_warm.CTL_FD)
            # The run: the template's sockets and callers are not its own.
            pool.forget()
            warm_run.run(argv, envp, pool.at, warm)
        finally:
            os._exit(125)
    theirs.close()
    return Spare(pid, os.pidfd_open(pid), ours, warm)


def give(sp, request, blob):
    """The request to a ready spare (or one made for it): its words and
    descriptors in one message; the template keeps no copy of either."""
    msg = request.message(blob)
    try:
        sp.ctl.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                array.array("i", request.fds))])
    except OSError:
        pass                # the spare has ended: its end answers
    msg[:] = bytes(len(msg))
    request.wipe()
    for fd in request.fds:
        os.close(fd)
    sp.conn = request.conn


def said(data):
    """What a spare's cordon said on its socket: ("ready", tmpfs),
    ("exit", status), or (None, None): it has ended."""
    if data[:1] == _cordon_warm.MSG_READY and len(data) == 2:
        return "ready", data[1:] == _cordon_warm.READY_TMPFS
    if data[:1] == _cordon_warm.MSG_EXIT and \
            len(data) == _cordon_warm.HEAD_LEN:
        return "exit", int.from_bytes(data[1:], "little", signed=True)
    return None, None
