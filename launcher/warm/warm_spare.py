"""A warm pool's spares (cordon --serve, launcher/warm/warm.py): each a
fork of the pool's maker (warm_maker, itself forked once from the
template) that calls cordon itself (_cordon_warm.run), with every layer
of a cold run set up by cordon's own code; only in the run, after
seccomp, does that call return, and the run goes on in warm_run.  The
spare's cordon (warmhold.c) says when it is ready and takes the request
the template gives it (the protocol: warm.h)."""

import array
import os
import signal
import socket
import time

import _cordon_warm
import warm_run

HANDLED = (signal.SIGTERM, signal.SIGINT)   # the template's handlers


class Spare:
    """A spare, as the template sees it: the maker forked it, reaps it and
    says its end; the template holds its socket and a pidfd (signals go
    through the pidfd: its pid may be reaped and reused meanwhile)."""
    __slots__ = ("pid", "pidfd", "ctl", "ready", "conn", "warm", "born",
                 "alone")

    def __init__(self, pid, pidfd, ctl, warm):
        self.pid, self.pidfd, self.ctl = pid, pidfd, ctl
        self.ready, self.conn = False, None
        self.warm, self.born = warm, time.monotonic()   # exercised; made
        self.alone = True       # no other spare was made meanwhile

    def kill(self):
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGTERM)
        except ProcessLookupError:
            pass                # it has ended: the maker says so


def fork(maker, setup, warm):
    """In the maker: a spare, cordon with every layer set up around a warm
    run, with the pool's options (maker.opts); setup: None, or for a
    request (cwd, its set-up words, the caller's stdio).  warm: the run
    exercises the preloads first.  Returns (pid, the template's end of
    the spare's socket)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    # Blocked across the fork (the maker keeps them blocked; this is for
    # a process with Python's handlers): a SIGTERM for the spare before
    # the child has dropped such a handler would write to its wake-up
    # pipe.  The child keeps them blocked: cordon blocks them too, and
    # reads them (signalfd).
    held = signal.pthread_sigmask(signal.SIG_BLOCK, HANDLED)
    pid = -1
    try:
        pid = os.fork()
    finally:
        if pid != 0:        # the parent, forked or not: as it was
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
    if pid == 0:
        try:
            # cordon's own signal handling, no Python handler left
            signal.set_wakeup_fd(-1)
            for signum in HANDLED:
                signal.signal(signum, signal.SIG_DFL)
            words = []
            if setup:
                cwd, words, fds = setup
                for i, fd in enumerate(fds[:_cordon_warm.FDS_MIN]):
                    os.dup2(fd, i)
                os.chdir(cwd)
            ctl = theirs.detach()
            if ctl != _cordon_warm.CTL_FD:
                os.dup2(ctl, _cordon_warm.CTL_FD)
            else:
                os.set_inheritable(ctl, True)
            maker.forget()      # its sockets' numbers: never closed again
            os.closerange(_cordon_warm.CTL_FD + 1, 1 << 20)
            argv, envp = _cordon_warm.run(
                ["cordon"] + maker.opts + words + [maker.blob, "snippet.py"],
                _cordon_warm.CTL_FD)
            warm_run.run(argv, envp, maker.at, warm)
        finally:
            os._exit(125)
    theirs.close()
    return pid, ours


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
