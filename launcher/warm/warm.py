"""cordon's warm pool template (cordon --serve @NAME POLICY.cpol execs this).

argv: @NAME, the blob's absolute path, the index of the snippet in a run's
argv, the template's own directory, the pool's options (every spare's
set-up), "--", then the policy's preloads.  The lock on that directory
(launcher/warm/warmdir.c) is an inherited descriptor, kept open here and across
the re-executions, closed in spares; the directory is removed at the stop.

The template imports the preloads, exercises them once, freezes the
collector's generations, then serves runs on the abstract socket NAME
(one connection per run, from the same uid only).  A request is one
message: NUL-separated, the caller's directory, then cordon options and
operands after the policy (the snippet and its arguments), with the
caller's stdin, stdout, stderr (and a status descriptor, given as
--status-fd 3) passed by SCM_RIGHTS.

Runs are made ahead: SPARES at a time, each a fork of the template that
calls cordon itself (_cordon_warm.run): every layer of a cold run is set
up there by cordon's own code, and only in the run, after seccomp, does
run() return here.  The run exercises the preloads again (its
copy-on-write faults and cold caches paid before any request), says "W"
on its fd 3 and waits for its arguments on its stdin (then end of file,
or, for a request with --stdin, the caller's stdin); cordon waits with
it (launcher/warm/warmhold.c) and says "R".  A request goes to a ready spare
(its words and descriptors; cordon parses and checks them), or waits for
one.  A request with options that change the set-up (--limit, --nice,
--idle, --keep-workdir, --resolve) gets a spare of its own, made for it
with the caller's stdio.  The template answers each request with
cordon's exit status (4 bytes, little endian) when that spare ends, and
re-executes itself (fresh memory layout, fresh imports) after MAX_RUNS
runs.  It stops on SIGTERM or, when its stdin is a pipe, at its EOF:
idle spares are told to go (their cordon cleans up), runs are ended
(cordon's SIGTERM handling).

Nothing here reads a file after the preloads are imported: the template
never imports again (a meta path hook refuses it), so no run can make it
load anything.
"""

import array
import collections
import errno
import gc
import io
import os
import selectors
import signal
import socket
import stat
import struct
import sys

MAX_RUNS = 200          # then re-exec: a new layout, new imports
MAX_REQUEST = 65536     # warmhold.c's WARM_REQ_MAX, submit.c's SUBMIT_MAX
MAX_WORDS = 1002        # cordon --submit's 1000, its directory, the policy
SPARES = 2              # made ahead
MAX_FAILURES = 3        # spares that end before ready, in a row: no more
LISTENER = 4            # the run's seccomp listener until cordon has it

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _cordon_warm  # noqa: E402  (next to this file, never a run's)
del sys.path[0]

# The options of a warm request, from cordon's own table: name -> (takes
# a value, kind).  "run" options are the run's (warmhold.c takes them);
# "setup" ones need a spare made for the request; any other is refused
# here (and would be by cordon).
OPTIONS = _cordon_warm.options()


def exercise():
    """What every run of these libraries touches, done in the template
    and again in each spare's run before its request."""
    if "pandas" in sys.modules:
        pd = sys.modules["pandas"]
        df = pd.DataFrame({"a": [1, 2, 2], "b": [1.0, 2.0, 3.0]})
        df.groupby("a").b.mean()
        df.groupby("a").agg(["mean", "sum"])
        df.describe()
        df.to_csv(io.StringIO())
    if "matplotlib.pyplot" in sys.modules:
        # The backend, a figure, the font cache, the PNG writer (to a
        # buffer, nowhere on disk), pandas' plotting module.
        plt = sys.modules["matplotlib.pyplot"]
        for kind in ("line", "bar"):
            fig = plt.figure()
            if "pandas" in sys.modules:
                getattr(df.b.plot, kind)()
            else:
                fig.gca().plot([0, 1], [0, 1])
            fig.savefig(io.BytesIO(), format="png")
            plt.close(fig)


def warm_up(modules):
    for name in modules:
        __import__(name)
    exercise()
    import importlib.machinery  # noqa: F401  (what a run uses, here)
    import atexit  # noqa: F401


def exercise_quietly():
    """In a spare's run: the exercise, its output (warnings) dropped."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()
    try:
        exercise()
    except Exception:
        pass            # a library that fails here fails in the run too
    finally:
        sys.stdout, sys.stderr = out, err
    # What the exercise opened is closed, as in a fresh interpreter (the
    # fonts matplotlib caches; its fork handler clears them for os.fork).
    fm = sys.modules.get("matplotlib.font_manager")
    if fm is not None:
        fm._get_font.cache_clear()
    gc.collect()
    for fd in range(LISTENER + 1, 1024):
        try:
            os.fstat(fd)
        except OSError:
            continue
        os._exit(125)   # a library keeps a descriptor: no such spare


class NoImport:
    """After the warm-up the template imports nothing (removed in a run)."""

    def find_spec(self, name, path=None, target=None):
        raise ImportError("cordon warm template: no import after warm-up: "
                          + name)


def split_request(buf, spans):
    """A request's words after the caller's directory (spans of buf, each
    NUL-ended) -> (set-up options, run options, operands).  An option is
    (name, its value's span or None); operands are spans.  Nothing of the
    caller's is copied: words are compared in place."""
    setup, go, i = [], [], 0
    while i < len(spans):
        s, e = spans[i]
        if buf[s] != 0x2d or e - s == 2:        # an operand, or "-"
            break
        i += 1
        if buf.startswith(b"--\0", s):
            break
        name, value = option_at(buf, s, e)
        takes, kind = OPTIONS[name]
        if takes and value is None:
            if i >= len(spans):
                raise ValueError(name + " needs a value")
            value, i = spans[i], i + 1
        if name == "--status-fd" and not buf.startswith(b"3\0", value[0]):
            raise ValueError("--status-fd must be 3")
        (go if kind == "run" else setup).append((name, value))
    if i >= len(spans):
        raise ValueError("no snippet")
    return setup, go, spans[i:]


def option_at(buf, s, e):
    """The option (of OPTIONS) the word at s..e names, and the span of
    its "=value" (or None)."""
    for name, (takes, _) in OPTIONS.items():
        end = s + len(name)
        if end < e and buf.startswith(name.encode(), s) and \
                buf[end] in (0, 0x3d):
            if buf[end] == 0x3d and not takes:
                raise ValueError(name + " takes no value")
            return name, (end + 1, e) if buf[end] == 0x3d else None
    raise ValueError("an option a warm run does not take")


def read_exactly(fd, n):
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            os._exit(125)       # cordon went away: nothing to run
        data += chunk
    return data


def run(pool, argv, envp, warm):
    """In the run (never returns): warm (the exercise, unless callers are
    waiting), ready, the request's arguments, the snippet."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)    # the template's pipe: closed here
    pool.forget()
    if warm:
        exercise_quietly()
    os.write(3, b"W")
    os.close(3)
    head = read_exactly(0, 5)
    size = struct.unpack("<I", head[1:])[0]
    if head[:1] != b"G" or size > MAX_REQUEST:
        os._exit(125)           # not cordon's (warmhold.c's args_send)
    # Exactly the arguments: with --stdin the caller's stdin follows
    # (relayed by cordon, launcher/feed.c), and is the snippet's.
    body = read_exactly(0, size)
    # cordon has taken the listener (it sends the request only then): the
    # snippet must not hold it (it would answer its own refusals).
    try:
        os.close(LISTENER)
    except OSError as e:
        if e.errno != errno.EBADF:
            os._exit(125)
    args = [os.fsdecode(a) for a in body.split(b"\0")[:-1]]
    run_snippet(argv + args, envp, pool.at)


def reseed():
    """In the run, before the snippet: the generators the template's
    imports seeded once (every run would draw the same numbers) seeded
    again from the kernel's entropy: Python's random (its fork handler
    ran in the spare's fork, not in this run's), numpy's global
    generator, torch's default ones.  A failure fails the run (125)."""
    if "random" in sys.modules:
        sys.modules["random"].seed()
    if "numpy.random" in sys.modules:
        sys.modules["numpy.random"].seed()
    if "torch" in sys.modules:
        sys.modules["torch"].seed()     # CPU; CUDA's lazily (not started)


def run_snippet(argv, envp, at):
    """In the run: argv is cordon's command line for the payload."""
    sys.meta_path[:] = [m for m in sys.meta_path if not isinstance(m, NoImport)]
    reseed()
    os.environ.clear()
    for kv in envp:
        k, _, v = kv.partition("=")
        os.environ[k] = v
    enc = sys.stdout.encoding
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                 encoding=enc)
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                  encoding=enc)
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                  encoding=enc, errors="backslashreplace",
                                  line_buffering=True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    # The template's objects stay frozen: a run's collections skip them
    # (and so leave their pages shared).
    sys.argv = argv[at:]
    path = argv[at]
    sys.path[0:0] = [os.path.dirname(path)] if not sys.flags.safe_path else []
    code = run_main(path)
    try:
        import atexit
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for f in (sys.stdout, sys.stderr):
        try:
            f.flush()
        except BaseException:
            code = code or 120
    if code < 0:                # python3's exit after a KeyboardInterrupt
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        code = 128 + signal.SIGINT
    os._exit(code)


def main_module(path):
    """__main__ as python3 makes it for a script (the same names)."""
    import builtins
    import importlib.machinery
    main = type(sys)("__main__")
    main.__dict__.update(__annotations__={}, __builtins__=builtins,
                         __cached__=None, __file__=path, __package__=None,
                         __loader__=importlib.machinery.SourceFileLoader(
                             "__main__", path))
    sys.modules["__main__"] = main
    return main


def run_main(path):
    """The snippet as python3 runs a script: compiled under its own path,
    executed in __main__; an uncaught exception goes to sys.excepthook
    with the traceback from the snippet's frame on (this frame, the only
    one above it, dropped), so a warm run prints what a cold one does.
    Returns the exit status, or -1 for a KeyboardInterrupt (SIGINT)."""
    main = main_module(path)
    try:
        with io.open_code(path) as f:
            source = f.read()
        exec(compile(source, path, "exec", dont_inherit=True),
             main.__dict__)
    except SystemExit as e:
        c = e.code
        if c is None:
            return 0
        if isinstance(c, int):
            return c & 0xff
        try:
            print(c, file=sys.stderr)
        except Exception:
            pass
        return 1
    except BaseException as e:
        tb = e.__traceback__.tb_next if e.__traceback__ else None
        e.__traceback__ = tb
        sys.last_type, sys.last_value, sys.last_traceback = type(e), e, tb
        try:
            sys.excepthook(type(e), e, tb)
        except BaseException:
            sys.__excepthook__(type(e), e, tb)
        return -1 if isinstance(e, KeyboardInterrupt) else 1
    return 0


class Spare:
    __slots__ = ("pid", "pidfd", "ctl", "ready", "conn")

    def __init__(self, pid, pidfd, ctl):
        self.pid, self.pidfd, self.ctl = pid, pidfd, ctl
        self.ready, self.conn = False, None


class Request:
    """A caller's run: its connection, descriptors, and its words in buf,
    a bytearray (the caller's directory, options, operands, NUL-ended):
    cwd and operands are spans of buf; setup (a spare of its own) and go
    are options (split_request).  The template copies none of a caller's
    words: they are sent from buf, which is wiped once the spare has them,
    and in every spare's run for the requests still waiting there."""
    __slots__ = ("conn", "fds", "buf", "cwd", "setup", "go", "operands")

    def __init__(self, conn, fds, buf, n):
        self.conn, self.fds, self.buf = conn, fds, buf
        spans, start = [], 0
        while start < n and len(spans) <= MAX_WORDS:
            end = buf.find(0, start, n)
            if end < 0:
                raise ValueError("a request is NUL-ended words")
            spans.append((start, end + 1))
            start = end + 1
        if len(spans) > MAX_WORDS:
            raise ValueError("too many words")
        if len(spans) < 2 or buf[0] != 0x2f:
            raise ValueError("empty request")
        self.cwd = spans[0]
        self.setup, self.go, self.operands = split_request(buf, spans[1:])

    def has(self, name):
        return any(n == name for n, _ in self.go)

    def own(self):
        """Its --workdir as a set-up option: for spares without a run
        tmpfs (the caller's folder must be the run's workdir itself)."""
        self.setup += [o for o in self.go if o[0] == "--workdir"]
        self.go = [o for o in self.go if o[0] != "--workdir"]

    def words(self, options):
        """In a spare made for this request (its own words): options as
        cordon's argv words."""
        out = []
        for name, value in options:
            out.append(name)
            if value:
                out.append(self.word(value))
        return out

    def word(self, span):
        return os.fsdecode(bytes(self.buf[span[0]:span[1] - 1]))

    def message(self, blob):
        """What the spare's cordon gets: directory, run options (each
        value its own word), the policy, operands; in one bytearray made
        at its size (no copy left behind by growing), wiped once sent."""
        mv = memoryview(self.buf)
        parts = [mv[self.cwd[0]:self.cwd[1]]]
        for name, value in self.go:
            parts.append(name.encode() + b"\0")
            if value:
                parts.append(mv[value[0]:value[1]])
        parts.append(os.fsencode(blob) + b"\0")
        parts += [mv[s:e] for s, e in self.operands]
        out, at = bytearray(sum(len(p) for p in parts)), 0
        for p in parts:
            out[at:at + len(p)] = p
            at += len(p)
        return out

    def wipe(self):
        self.buf[:] = bytes(len(self.buf))


class Stop(Exception):
    pass


class Pool:
    def __init__(self, name, blob, at, opts, lsock):
        self.name, self.blob, self.at, self.opts = name, blob, at, opts
        self.lsock = lsock
        self.sel = selectors.DefaultSelector()
        self.sel.register(lsock, selectors.EVENT_READ, ("listen", None))
        self.spares = []                # made ahead, no request yet
        self.leaving = []               # told to go, not yet ended
        self.busy = {}                  # pidfd -> Spare with a request
        self.queue = collections.deque()
        self.failures = self.done = 0
        self.pressed = False            # the last request had to wait
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

    def forget(self):
        """In a spare's run: the template's sockets are not its own (their
        descriptors are closed; their numbers are never closed again)."""
        socks = [self.lsock] + [s.ctl for s in self.spares + self.leaving]
        socks += [s.ctl for s in self.busy.values()]
        socks += [s.conn for s in self.busy.values() if s.conn]
        socks += [r.conn for r in self.queue]
        for sock in socks:
            sock.detach()
        for request in self.queue:
            request.wipe()      # other callers' words: not this run's

    def fork_spare(self, request=None):
        """A spare: cordon with every layer set up around a warm run.  For
        a request: one of its own, with the caller's stdio and set-up
        options, the request sent at once.  While requests wait for spares,
        spares skip the exercise: it costs about what it saves, and a
        waiting caller pays all of it."""
        warm = request is None and not self.pressed
        ours, theirs = socket.socketpair(socket.AF_UNIX,
                                         socket.SOCK_SEQPACKET)
        pid = os.fork()
        if pid == 0:
            try:
                # cordon's own signal handling, no Python handler left
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.SIG_DFL)
                setup = []
                if request:
                    for i, fd in enumerate(request.fds[:3]):
                        os.dup2(fd, i)
                    os.chdir(request.word(request.cwd))
                    setup = request.words(request.setup)
                os.dup2(theirs.fileno(), 3)
                os.closerange(4, 1 << 20)
                argv, envp = _cordon_warm.run(
                    ["cordon"] + self.opts + setup +
                    [self.blob, "snippet.py"], 3)
                run(self, argv, envp, warm)
            finally:
                os._exit(125)
        theirs.close()
        sp = Spare(pid, os.pidfd_open(pid), ours)
        self.sel.register(sp.pidfd, selectors.EVENT_READ, ("end", sp))
        self.sel.register(ours, selectors.EVENT_READ, ("ctl", sp))
        if request:
            self.give(sp, request)
        return sp

    def give(self, sp, request):
        msg = request.message(self.blob)
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
        self.busy[sp.pidfd] = sp
        # A caller that goes away (cancelled, killed) ends its run.
        self.sel.register(sp.conn, selectors.EVENT_READ, ("conn", sp))

    def take(self, conn):
        """A connection's Request, or None (refused, answered)."""
        buf, fds = bytearray(MAX_REQUEST), array.array("i")
        try:
            n, anc, _, _ = conn.recvmsg_into(
                [buf], socket.CMSG_SPACE(4 * fds.itemsize),
                socket.MSG_CMSG_CLOEXEC)
            for level, kind, data in anc:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(data[:len(data) - len(data) % 4])
            if len(fds) not in (3, 4):
                raise ValueError("need stdin, stdout, stderr (and status)")
            request = Request(conn, list(fds), buf, n)
            if request.has("--status-fd") and len(fds) != 4:
                raise ValueError("--status-fd without its descriptor")
        except (OSError, ValueError) as e:
            buf[:] = bytes(len(buf))
            for fd in fds:
                os.close(fd)
            try:
                conn.sendall(b"E" + str(e).encode()[:500])
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
                conn.send(b"E" + b"this pool takes requests from uid %d "
                          b"only, not %d" % (self.uid, uid))
            except OSError:
                pass
            conn.close()
            return
        request = self.take(conn)
        if request is None:
            return
        self.done += 1
        self.pressed = not any(s.ready for s in self.spares)
        if request.setup:
            self.fork_spare(request)
        else:
            self.queue.append(request)
        self.dispatch()

    def dispatch(self):
        """Queued requests to ready spares; without spares (they keep
        failing, or the template is about to re-execute), each its own."""
        while self.queue:
            ready = [s for s in self.spares if s.ready]
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

    def ended(self, sp):
        _, status = os.waitpid(sp.pid, 0)
        self.drop(sp.pidfd)
        self.drop(sp.ctl)
        os.close(sp.pidfd)
        sp.ctl.close()
        if sp.conn is not None:
            del self.busy[sp.pidfd]
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
            sp.conn.sendall(b"X" + struct.pack("<i", code))
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
            if said[:1] == b"R" and len(said) == 2:
                sp.ready = True
                self.failures = 0
                self.tmpfs = said[1:] == b"T"   # the same for every spare
            elif said[:1] == b"X" and len(said) == 5:
                self.answer(sp, struct.unpack("<i", said[1:])[0])
            else:
                self.drop(sp.ctl)       # it has ended: "end" follows
        elif kind == "end":
            self.ended(sp)
        elif kind == "conn":
            self.drop(sp.conn)          # a caller never writes: it left
            if sp.pidfd in self.busy:
                os.kill(sp.pid, signal.SIGTERM)
        elif kind == "stdin":
            if not os.read(0, 512):
                raise Stop()
        elif kind == "signal":
            if signal.SIGTERM in os.read(self.sigs, 64):
                raise Stop()
        self.dispatch()

    def serve(self):
        """Until MAX_RUNS requests; then the rest of them, and return
        (new callers wait in the socket's backlog for the next template)."""
        while self.done < MAX_RUNS:
            for key, _ in self.sel.select():
                self.event(*key.data)
        self.drop(self.lsock)
        self.idle_go()
        while self.queue or self.busy or self.leaving:
            for key, _ in self.sel.select():
                self.event(*key.data)

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
            os.kill(sp.pid, signal.SIGTERM)
        while self.leaving or self.busy:
            for key, _ in self.sel.select():
                if key.data[0] == "end":
                    self.ended(key.data[1])


def main():
    name, blob, at, home = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        sys.argv[4]
    dash = sys.argv.index("--", 5)
    opts, modules = sys.argv[5:dash], sys.argv[dash + 1:]
    _cordon_warm.harden()
    os.chdir(home)
    warm_up(modules)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.meta_path.insert(0, NoImport())
    gc.collect()
    gc.freeze()
    inherited = os.environ.pop("CORDON_WARM_FD", None)
    if inherited:
        lsock = socket.socket(fileno=int(inherited))
    else:
        lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        lsock.bind("\0" + name[1:])
        lsock.listen(64)
    pool = Pool(name, blob, at, opts, lsock)
    try:
        pool.dispatch()
        if not inherited:
            sys.stderr.write("cordon: warm pool %s ready (%d preloads)\n"
                             % (name, len(modules)))
            sys.stderr.flush()
        pool.serve()
    except Stop:
        pool.stop()
        try:
            _cordon_warm.home_remove(home)
        except OSError as e:
            sys.stderr.write("cordon: warm pool %s: %s\n" % (name, e))
            sys.exit(125)
        return
    # MAX_RUNS: a new template, same socket (a new layout, new imports).
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.set_inheritable(lsock.fileno(), True)
    env = dict(os.environ, CORDON_WARM_FD=str(lsock.fileno()))
    os.execve(sys.executable, [sys.executable] + sys.orig_argv[1:], env)


if __name__ == "__main__":
    main()
