"""A warm run (cordon --serve, launcher/warm/warm.py): the code that runs
inside the sandbox, after cordon has set up every layer and seccomp is
installed, in the process that _cordon_warm.run returned in.  It warms
up, says so, reads its arguments and runs the snippet as python3 runs a
script.  It imports nothing of the template's server (warm_serve,
warm_spare, warm_request): only the protocol's numbers (_cordon_warm)
and the preloads' exercise."""

import errno
import io
import os
import signal
import sys

import _cordon_warm
import warm_preload

HERE = os.path.dirname(__file__)


def read_exactly(fd, n):
    data = b""
    while len(data) < n:
        chunk = os.read(fd, n - len(data))
        if not chunk:
            os._exit(125)       # cordon went away: nothing to run
        data += chunk
    return data


def run(argv, envp, at, warm):
    """In the run (never returns): warm (the exercise, unless callers are
    waiting), the interpreter made as a fresh one would be (prepare),
    ready, the request's arguments, the snippet (argv[at])."""
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.set_wakeup_fd(-1)    # the template's pipe: closed here
    if warm:
        warm_preload.exercise_quietly()
    prepare(envp)
    os.write(_cordon_warm.RUN_READY_FD, _cordon_warm.MSG_WARM)
    os.close(_cordon_warm.RUN_READY_FD)
    head = read_exactly(0, _cordon_warm.HEAD_LEN)
    size = int.from_bytes(head[1:], "little")
    if head[:1] != _cordon_warm.MSG_GO or size > _cordon_warm.REQUEST_MAX:
        os._exit(125)           # not cordon's (warmhold.c's args_send)
    # Exactly the arguments: with --stdin the caller's stdin follows
    # (relayed by cordon, launcher/feed.c), and is the snippet's.
    body = read_exactly(0, size)
    # cordon has taken the listener (it sends the request only then): the
    # snippet must not hold it (it would answer its own refusals).
    try:
        os.close(_cordon_warm.LISTENER_FD)
    except OSError as e:
        if e.errno != errno.EBADF:
            os._exit(125)
    args = words(body)
    run_snippet(argv + args, at)


def words(body):
    """The request's arguments: NUL-ended words, decoded as argv is."""
    return [os.fsdecode(a) for a in body.split(b"\0")[:-1]]


def prepare(envp):
    """Before the request, in this run's own process (forked for it, never
    another's): what a fresh interpreter would have, done while no caller
    waits (each step writes pages of the template: copy-on-write faults).
    The environment is cordon's for the policy, the streams its pipes."""
    forget_template()
    reseed()
    os.environ.clear()
    for kv in envp:
        k, _, v = kv.partition("=")
        os.environ[k] = v
    streams()
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    rehearse()


# Compiled and run by rehearse(): common syntax, no import, no output.
REHEARSAL = """
def f(a, *args, k=1, **kw):
    try:
        if a:
            raise ValueError(a)
    except (OSError, ValueError) as e:
        a = f"{e!r:>4}"
    finally:
        k += 1
    return [x * k for x in args if x], {x: y for x, y in kw.items()}
r = f(1, 2, 3, k=2, z=4)
s = sorted((lambda v: v)(t) for t in range(4))
n = 0
while n < 3:
    n += len(str(n)) or 1
"""


def rehearse():
    """What the run does once its request comes, done once before on
    nothing of the caller's (a throwaway namespace), with no system call
    (a file opened here could be a denial reported as the snippet's): a
    source compiled and run, a main module made (not installed), the
    request's words decoded, the empty streams flushed.  A forked process
    pays for the first touch of each page it maps, text included (about
    10 us a page on the bench VM, a read as much as a write), so the
    compiler's and the loop's pages are touched here, while no caller
    waits."""
    import builtins
    ns = {"__builtins__": builtins}
    exec(compile(REHEARSAL, "<cordon warm-up>", "exec", dont_inherit=True),
         ns)
    ns.clear()          # f and its globals: no cycle left for the collector
    new_main(os.devnull)
    words(b"a\0")
    for f in (sys.stdout, sys.stderr):
        f.flush()


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


# The template's own modules: the files next to this one, listed once, in
# the template, at its import.
TEMPLATE_MODULES = tuple(sorted(f[:-3] for f in os.listdir(HERE)
                                if f.startswith("warm_") and
                                f.endswith(".py")))


def forget_template():
    """The template's own modules leave sys.modules: a snippet's import of
    such a name finds its own file, as in a cold run.  Their code stays
    where this run holds it.  Only these names are looked up: walking
    every module would write each one's reference count, a copy-on-write
    fault per page of the template's modules (2.4 ms for code_gen's)."""
    sys.meta_path[:] = [m for m in sys.meta_path
                        if not isinstance(m, warm_preload.NoImport)]
    for name in TEMPLATE_MODULES:
        f = getattr(sys.modules.get(name), "__file__", None)
        if f and os.path.dirname(f) == HERE:
            del sys.modules[name]


def streams():
    """Fresh standard streams on 0, 1, 2, as python3 makes them."""
    enc = sys.stdout.encoding
    sys.stdin = io.TextIOWrapper(io.BufferedReader(io.FileIO(0, "r", closefd=False)),
                                 encoding=enc)
    sys.stdout = io.TextIOWrapper(io.BufferedWriter(io.FileIO(1, "w", closefd=False)),
                                  encoding=enc)
    sys.stderr = io.TextIOWrapper(io.BufferedWriter(io.FileIO(2, "w", closefd=False)),
                                  encoding=enc, errors="backslashreplace",
                                  line_buffering=True)
    sys.__stdin__, sys.__stdout__, sys.__stderr__ = sys.stdin, sys.stdout, sys.stderr


def run_snippet(argv, at):
    """In the run, prepared: argv is cordon's command line for the
    payload."""
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


def new_main(path):
    """__main__ as python3 makes it for a script (the same names), not
    yet in sys.modules."""
    import builtins
    import importlib.machinery
    main = type(sys)("__main__")
    main.__dict__.update(__annotations__={}, __builtins__=builtins,
                         __cached__=None, __file__=path, __package__=None,
                         __loader__=importlib.machinery.SourceFileLoader(
                             "__main__", path))
    return main


def main_module(path):
    main = sys.modules["__main__"] = new_main(path)
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
