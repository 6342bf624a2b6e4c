"""A warm pool's maker (cordon --serve, launcher/warm/warm.py): forked
once from the template at its start, it forks every spare (warm_spare),
reaps them and says their ends.  So the template never forks again: the
pages it writes on the request path become its own at their first write
and stay so, where a fork per spare shared them again after each spare
(a copy-on-write fault per page written, about 80 on an empty call).

The template and the maker speak on a SOCK_SEQPACKET pair (nothing
else can reach it):
  template -> maker: MAKE and "1" or "0" (exercised or not); or MAKE_FOR,
    "1" or "0", then NUL-ended words: the caller's directory and its
    set-up options, with the caller's stdin, stdout and stderr.
  maker -> template: MADE and the spare's pid (4 bytes, little endian),
    with the template's end of the spare's socket and its pidfd, at once;
    ENDED, the pid and its wait status (4 bytes each), once reaped.
The maker ends at its socket's EOF, once every spare it made has ended;
its parent's death ends it (SIGKILL), and so, in turn, its spares.
"""

import array
import os
import selectors
import signal
import socket

import _cordon_warm
import warm_spare

# The template-maker protocol's letters (theirs alone, both Python, one
# file: this one; warm.h is the protocol of the pool's C and callers).
MAKE, MAKE_FOR, MADE, ENDED = b"S", b"Q", b"M", b"D"


def start(blob, at, opts, theirs_keep):
    """The maker, forked from the template: returns (the template's end
    of its socket, its pid).  theirs_keep: the template's socket objects,
    forgotten in the maker (their descriptors are closed there)."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    parent = os.getpid()
    held = signal.pthread_sigmask(signal.SIG_BLOCK, warm_spare.HANDLED)
    pid = -1
    try:
        pid = os.fork()
    finally:
        if pid != 0:
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
    if pid == 0:
        try:
            # SIGTERM and SIGINT stay blocked: the maker ends when the
            # template says so (EOF), after the spares; the spares keep
            # them blocked for cordon's signalfd.
            signal.set_wakeup_fd(-1)
            for signum in warm_spare.HANDLED:
                signal.signal(signum, signal.SIG_DFL)
            _cordon_warm.tie(parent)
            for sock in theirs_keep + [ours]:
                sock.detach()
            fd = theirs.fileno()
            os.closerange(3, fd)
            os.closerange(fd + 1, 1 << 20)
            Maker(theirs, blob, at, opts).serve()
            os._exit(0)
        finally:
            os._exit(125)
    theirs.close()
    return ours, pid


class Maker:
    def __init__(self, sock, blob, at, opts):
        self.sock, self.blob, self.at, self.opts = sock, blob, at, opts
        self.sel = selectors.DefaultSelector()
        self.sel.register(sock, selectors.EVENT_READ, None)
        self.children = 0

    def forget(self):
        """In a spare: the maker's socket is not its own."""
        self.sock.detach()

    def serve(self):
        """Orders until EOF, then until every spare has ended."""
        open_ = True
        while open_ or self.children:
            for key, _ in self.sel.select():
                if key.data is None:
                    open_ = self.order()
                    if not open_:
                        self.sel.unregister(self.sock)
                else:
                    self.reap(key.fileobj, key.data)

    def order(self):
        """One order from the template; False at its EOF."""
        buf, fds = bytearray(_cordon_warm.SPARE_MAX), array.array("i")
        n, anc, _, _ = self.sock.recvmsg_into(
            [buf], socket.CMSG_SPACE(_cordon_warm.FDS_MIN * fds.itemsize),
            socket.MSG_CMSG_CLOEXEC)
        for level, kind, data in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(data[:len(data) - len(data) % 4])
        try:
            if n:
                self.make(buf, n, list(fds))
        finally:
            buf[:] = bytes(len(buf))    # a caller's words
            for fd in fds:
                os.close(fd)
        return n > 0

    def make(self, buf, n, fds):
        kind, warm = bytes(buf[:1]), buf[1:2] == b"1"
        setup = None
        if kind == MAKE_FOR:
            words = [os.fsdecode(bytes(w))
                     for w in bytes(buf[2:n]).split(b"\0")[:-1]]
            if not words or len(fds) != _cordon_warm.FDS_MIN:
                raise ValueError("an order without its directory or stdio")
            setup = (words[0], words[1:], fds)
        elif kind != MAKE or n != 2:
            raise ValueError("not the template's order")
        pid, ctl = warm_spare.fork(self, setup, warm)
        pidfd = os.pidfd_open(pid)      # unreaped: it is this pid's
        self.sel.register(pidfd, selectors.EVENT_READ, pid)
        self.children += 1
        self.sock.sendmsg([MADE + pid.to_bytes(4, "little")],
                          [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                            array.array("i", [ctl.fileno(), pidfd]))])
        ctl.close()

    def reap(self, pidfd, pid):
        self.sel.unregister(pidfd)
        os.close(pidfd)
        _, status = os.waitpid(pid, 0)
        self.children -= 1
        try:
            self.sock.send(ENDED + pid.to_bytes(4, "little") +
                           status.to_bytes(4, "little", signed=True))
        except OSError:
            pass                # the template has gone: so will the maker
