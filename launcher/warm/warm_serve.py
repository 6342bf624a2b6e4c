"""A warm pool's server (cordon --serve, launcher/warm/warm.py): the
template's loop.  It takes requests on the pool's socket (one message
each, from the same uid only; the protocol: warm.h), queues them, hands
them to ready spares (warm_spare), has spares made ahead by its maker
(warm_maker: the template forks once, the maker, never again), answers
each caller with cordon's exit status, and stops on SIGTERM or its
stdin's EOF."""

import array
import collections
import os
import selectors
import signal
import socket
import stat
import struct
import sys

import _cordon_warm
import warm_maker
import warm_spare
from warm_pace import Pace
from warm_request import Request

MAX_RUNS = 200          # then re-exec: a new layout, new imports
SPARES = 2              # made ahead
MAX_FAILURES = 3        # spares that end before ready, in a row: no more


def error(why):
    """A refusal, to the caller: the letter and the text, cut short."""
    return _cordon_warm.MSG_ERROR + \
        why.encode()[:_cordon_warm.ERROR_MAX]


class Stop(Exception):
    pass


class MakerGone(Stop):
    """The maker ended before its EOF: the spares ended with it."""


class Pool:
    def __init__(self, name, blob, at, opts, lsock):
        self.name, self.blob, self.at, self.opts = name, blob, at, opts
        self.lsock = lsock
        # First, while the template holds nothing of a caller's.
        self.maker, self.maker_pid = warm_maker.start(blob, at, opts,
                                                      [lsock])
        self.sel = selectors.DefaultSelector()
        self.sel.register(lsock, selectors.EVENT_READ, ("listen", None))
        self.sel.register(self.maker, selectors.EVENT_READ, ("maker", None))
        self.spares = []                # made ahead, no request yet
        self.leaving = []               # told to go, not yet ended
        self.busy = {}                  # pid -> Spare with a request
        self.pids = {}                  # pid -> every Spare not ended
        self.ends = collections.deque()     # (pid, status) said meanwhile
        self.queue = collections.deque()
        self.failures = self.done = 0
        self.pace = Pace()              # whether spares are exercised
        self.tmpfs = None               # spares have a run tmpfs (R T)
        self.uid = os.getuid()
        if stat.S_ISFIFO(os.fstat(0).st_mode):
            self.sel.register(0, selectors.EVENT_READ, ("stdin", None))
        # SIGTERM is seen between events, never inside one: its handler
        # does nothing, Python writes its number to this pipe.
        self.sigs, wake = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wake)
        signal.signal(signal.SIGTERM, lambda signum, frame: None)
        self.sel.register(self.sigs, selectors.EVENT_READ, ("signal", None))

    def order(self, request, warm):
        """The maker makes a spare (for a request: with its directory,
        set-up words and stdio); its pid, pidfd and socket come back at
        once (ends said meanwhile wait in self.ends)."""
        msg, fds = bytearray(warm_maker.MAKE_FOR if request else
                             warm_maker.MAKE), []
        msg += b"1" if warm else b"0"
        if request:
            for word in [request.word(request.cwd)] + \
                    request.words(request.setup):
                msg += os.fsencode(word) + b"\0"
            fds = request.fds[:_cordon_warm.FDS_MIN]
        try:
            self.maker.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                        array.array("i", fds))] if fds else [])
        except OSError:
            raise MakerGone()
        finally:
            msg[:] = bytes(len(msg))
        while True:
            what, pid, status, fds = self.maker_said(socket.MSG_CMSG_CLOEXEC)
            if what == warm_maker.MADE:
                return warm_spare.Spare(pid, fds[1], socket.socket(
                    fileno=fds[0]), warm)
            self.ends.append((pid, status))

    def maker_said(self, flags=0):
        """One message of the maker's: (MADE, pid, None, [ctl, pidfd]) or
        (ENDED, pid, wait status, []); with MSG_DONTWAIT, None where
        there is none (taken already, by a spare's making)."""
        fds = array.array("i")
        try:
            data, anc, _, _ = self.maker.recvmsg(
                16, socket.CMSG_SPACE(2 * fds.itemsize), flags)
        except BlockingIOError:
            return None
        except OSError:
            data, anc = b"", []
        for level, kind, cdata in anc:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                fds.frombytes(cdata[:len(cdata) - len(cdata) % 4])
        pid = int.from_bytes(data[1:5], "little")
        if data[:1] == warm_maker.MADE and len(data) == 5 and len(fds) == 2:
            return warm_maker.MADE, pid, None, list(fds)
        for fd in fds:
            os.close(fd)
        if data[:1] == warm_maker.ENDED and len(data) == 9 and pid in self.pids:
            return warm_maker.ENDED, pid, int.from_bytes(
                data[5:], "little", signed=True), []
        raise MakerGone()

    def maker_ended(self):
        """The maker said a spare's end (a spare made now: not asked).  A
        spare made in this select's events took what it had said (and
        kept its ends in self.ends): then there is nothing to read."""
        said = self.maker_said(socket.MSG_DONTWAIT | socket.MSG_CMSG_CLOEXEC)
        if said is None:
            return
        what, pid, status, fds = said
        if what != warm_maker.ENDED:
            for fd in fds:
                os.close(fd)
            raise MakerGone()
        self.ended(pid, status)

    def fork_spare(self, request=None):
        """A spare (made by the maker); for a request, one of its own, the
        request sent at once.  While callers come faster than exercised
        spares are made, spares skip the exercise: it costs about what
        it saves, and a waiting caller pays all of it."""
        making = [s for s in self.spares if not s.ready]
        sp = self.order(request, request is None and self.pace.exercise())
        self.pids[sp.pid] = sp
        # Its making is measured only if no other spare's shares the CPU.
        sp.alone = not making
        for other in making:
            other.alone = False
        self.sel.register(sp.ctl, selectors.EVENT_READ, ("ctl", sp))
        if request:
            self.give(sp, request)
        return sp

    def give(self, sp, request):
        warm_spare.give(sp, request, self.blob)
        self.busy[sp.pid] = sp
        # A caller that goes away (cancelled, killed) ends its run.
        self.sel.register(sp.conn, selectors.EVENT_READ, ("conn", sp))

    def take(self, conn):
        """A connection's Request, or None (refused, answered)."""
        buf, fds = bytearray(_cordon_warm.REQUEST_MAX), array.array("i")
        try:
            n, anc, flags, _ = conn.recvmsg_into(
                [buf], socket.CMSG_SPACE(_cordon_warm.FDS_MAX * fds.itemsize),
                socket.MSG_CMSG_CLOEXEC)
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(data[:len(data) - len(data) % 4])
            if flags & socket.MSG_TRUNC:
                raise ValueError("request too long")
            if flags & socket.MSG_CTRUNC or not \
                    _cordon_warm.FDS_MIN <= len(fds) <= _cordon_warm.FDS_MAX:
                raise ValueError("need stdin, stdout, stderr (and status)")
            request = Request(conn, list(fds), buf, n)
            if request.has("--status-fd") and \
                    len(fds) != _cordon_warm.FDS_MAX:
                raise ValueError("--status-fd without its descriptor")
        except (OSError, ValueError) as e:
            buf[:] = bytes(len(buf))
            for fd in fds:
                os.close(fd)
            try:
                conn.sendall(error(str(e)))
            except OSError:
                pass
            conn.close()
            return None
        return request

    def accept(self):
        conn, _ = self.lsock.accept()
        cred = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                               struct.calcsize("3i"))
        uid = struct.unpack("3i", cred)[1]
        if uid != self.uid:
            # Said without waiting (a foreign caller may send nothing);
            # its request, if any, is dropped unread with the socket.
            conn.setblocking(False)
            try:
                conn.send(error("this pool takes requests from uid %d "
                                "only, not %d" % (self.uid, uid)))
            except OSError:
                pass
            conn.close()
            return
        request = self.take(conn)
        if request is None:
            return
        self.done += 1
        self.pace.request(sum(s.ready for s in self.spares))
        if request.setup:
            self.fork_spare(request)
        else:
            self.queue.append(request)
        self.dispatch()

    def dispatch(self):
        """Queued requests to ready spares; without spares (they keep
        failing, or the template is about to re-execute), each its own."""
        while self.queue:
            # An exercised spare first: the other may be kept for a
            # caller that comes sooner.
            ready = sorted((s for s in self.spares if s.ready),
                           key=lambda s: not s.warm)
            if self.tmpfs is False and self.queue[0].has("--workdir"):
                self.queue[0].own()
                self.fork_spare(self.queue.popleft())
            elif ready:
                self.spares.remove(ready[0])
                self.give(ready[0], self.queue.popleft())
            elif not self.spares:
                self.fork_spare(self.queue.popleft())
            else:
                break
        # At rest, the next spare is made after a run, not during it (a
        # fork of the template and a set-up would take the run's CPU);
        # with no spare left, or callers waiting, at once.
        while self.making() and len(self.spares) < SPARES and (
                not self.busy or not self.spares or self.queue):
            self.spares.append(self.fork_spare())

    def making(self):
        return self.failures < MAX_FAILURES and self.done < MAX_RUNS

    def drop(self, f):
        try:
            self.sel.unregister(f)
        except (KeyError, ValueError):
            pass

    def ended(self, pid, status):
        """The maker has reaped a spare: status, its wait status."""
        sp = self.pids.pop(pid)
        self.drop(sp.ctl)
        os.close(sp.pidfd)
        sp.ctl.close()
        if sp.conn is not None:
            del self.busy[sp.pid]
            self.answer(sp, os.waitstatus_to_exitcode(status))
            return
        if sp in self.leaving:
            self.leaving.remove(sp)
            return
        self.spares.remove(sp)
        if not sp.ready and self.making():
            self.failures += 1
            if self.failures == MAX_FAILURES:
                sys.stderr.write("cordon: warm pool %s: spares keep ending "
                                 "before ready; each run now gets its own "
                                 "(its errors go to its caller)\n"
                                 % self.name)
        elif sp.ready:
            self.failures = 0

    def answer(self, sp, code):
        """The caller's answer: cordon's exit status (said by cordon
        once it has cleaned up, or its process's when it died)."""
        if sp.conn is None or sp.conn.fileno() < 0:
            return
        self.drop(sp.conn)
        try:
            sp.conn.sendall(_cordon_warm.MSG_EXIT +
                            code.to_bytes(4, "little", signed=True))
        except OSError:
            pass
        sp.conn.close()

    def event(self, kind, sp):
        if kind == "listen":
            self.accept()
        elif kind == "ctl":
            try:
                said = sp.ctl.recv(16)
            except OSError:
                said = b""
            what, value = warm_spare.said(said)
            if what == "ready":
                sp.ready = True
                self.pace.made(sp.warm, sp.alone, sp.born)
                self.failures = 0
                self.tmpfs = value      # the same for every spare
            elif what == "exit":
                self.answer(sp, value)
            else:
                self.drop(sp.ctl)       # it has ended: the maker says
        elif kind == "maker":
            self.maker_ended()
        elif kind == "conn":
            # A caller never writes: it left.  Its run ends, unless it
            # was answered or ended earlier in this select.
            if sp.conn.fileno() >= 0 and self.busy.get(sp.pid) is sp:
                sp.kill()
            self.drop(sp.conn)
        elif kind == "stdin":
            if not os.read(0, 512):
                raise Stop()
        elif kind == "signal":
            if signal.SIGTERM in os.read(self.sigs, 64):
                raise Stop()
        self.dispatch()

    def events(self, stopping=False):
        """The ends said while a spare was made, then one select's;
        stopping: ends only, nothing made or dispatched."""
        while self.ends:
            self.ended(*self.ends.popleft())
            if not stopping:
                self.dispatch()
        for key, _ in self.sel.select():
            if not stopping:
                self.event(*key.data)
            elif key.data[0] == "maker":
                self.maker_ended()

    def serve(self):
        """Until MAX_RUNS requests; then the rest of them, and return
        (new callers wait in the socket's backlog for the next template),
        the maker ended."""
        while self.done < MAX_RUNS:
            self.events()
        self.drop(self.lsock)
        self.idle_go()
        while self.queue or self.busy or self.leaving:
            self.events()
        self.maker_end()

    def maker_end(self):
        """EOF to the maker, once no spare is left: it ends."""
        self.drop(self.maker)
        self.maker.close()
        os.waitpid(self.maker_pid, 0)

    def idle_go(self):
        """Spares without a request are told to go (EOF on their socket:
        their cordon ends the run and cleans up)."""
        for sp in self.spares:
            self.drop(sp.ctl)
            sp.ctl.shutdown(socket.SHUT_RDWR)
        self.leaving += self.spares
        self.spares = []

    def stop(self):
        """SIGTERM or stdin's EOF: no more runs; idle spares go, runs are
        ended by their cordon (SIGTERM: outcome "interrupted")."""
        self.drop(self.lsock)
        self.lsock.close()
        for request in self.queue:
            for fd in request.fds:
                os.close(fd)
            request.conn.close()
        self.queue.clear()
        self.idle_go()
        for sp in self.busy.values():
            sp.kill()
        while self.leaving or self.busy:
            self.events(stopping=True)
        self.maker_end()

    def broken(self):
        """The maker is gone (and its spares with it: their parent's death
        ends them): callers waiting are left (their --submit says the
        pool did not answer), nothing is made again."""
        self.drop(self.lsock)
        self.lsock.close()
        for request in self.queue:
            for fd in request.fds:
                os.close(fd)
            request.conn.close()
        for sp in list(self.pids.values()):
            if sp.conn is not None:
                sp.conn.close()
            sp.ctl.close()
            os.close(sp.pidfd)
        self.queue.clear()
        self.pids.clear()
        self.drop(self.maker)
        self.maker.close()
        os.waitpid(self.maker_pid, 0)
        sys.stderr.write("cordon: warm pool %s: its maker has ended; the "
                         "pool stops\n" % self.name)
