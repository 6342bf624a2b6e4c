"""cordon's warm pool template (cordon --serve @NAME POLICY.cpol execs this).

argv: @NAME, the blob's absolute path, the index of the snippet in a run's
argv, the template's own directory, then the policy's preloads.

The template imports the preloads, exercises them once, freezes the
collector's generations, then serves runs on the abstract socket NAME:
one connection per run, from the same uid only.  A request is one message:
NUL-separated, the caller's directory, then cordon options and operands after the policy (the snippet and
its arguments), with the caller's stdin, stdout, stderr (and a status
descriptor, given as --status-fd 3) passed by SCM_RIGHTS.  The template
forks; the fork calls cordon itself (_cordon_warm.run): every layer of a
cold run is applied there by cordon's own code, and only in the run, after
seccomp, does run() return here, to run the snippet as __main__.  The
template answers each request with cordon's exit status (4 bytes, little
endian) when that fork ends, and re-executes itself (fresh memory layout,
fresh imports) after MAX_RUNS runs.

Nothing here reads a file after the preloads are imported: the template
never imports again (a meta path hook refuses it), so no run can make it
load anything.
"""

import gc
import os
import selectors
import signal
import socket
import struct
import sys

MAX_RUNS = 200          # then re-exec: a new layout, new imports
MAX_REQUEST = 65536
# Options a caller may give a warm run; the policy is the pool's.
ALLOWED = {"--timeout", "--output", "--limit", "--status-fd", "--quiet",
           "--status-file",
           "--keep-workdir", "--workdir", "--nice", "--idle", "--resolve"}
WITH_VALUE = {"--timeout", "--output", "--limit", "--status-fd", "--workdir",
              "--status-file",
              "--nice", "--resolve"}

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import _cordon_warm  # noqa: E402  (next to this file, never a run's)
del sys.path[0]


def warm_up(modules):
    for name in modules:
        __import__(name)
    import io
    if "pandas" in sys.modules:
        pd = sys.modules["pandas"]
        df = pd.DataFrame({"a": [1, 2, 2], "b": [1.0, 2.0, 3.0]})
        df.groupby("a").b.mean()
        df.groupby("a").agg(["mean", "sum"])
        df.describe()
        df.to_csv(io.StringIO())
    if "matplotlib.pyplot" in sys.modules:
        # What every plotting run touches: the backend, a figure, the
        # font cache, the PNG writer (to a buffer, nowhere on disk), and
        # pandas' plotting module (imported on a first .plot).
        plt = sys.modules["matplotlib.pyplot"]
        for kind in ("line", "bar"):
            fig = plt.figure()
            if "pandas" in sys.modules:
                getattr(df.b.plot, kind)()
            else:
                fig.gca().plot([0, 1], [0, 1])
            fig.savefig(io.BytesIO(), format="png")
            plt.close(fig)
    import runpy  # noqa: F401  (what a run uses, imported here)
    import traceback  # noqa: F401
    import io  # noqa: F401
    import atexit  # noqa: F401


class NoImport:
    """After the warm-up the template imports nothing (removed in a run)."""

    def find_spec(self, name, path=None, target=None):
        raise ImportError("cordon warm template: no import after warm-up: "
                          + name)


def check_request(words):
    i = 0
    while i < len(words) and words[i].startswith("--"):
        opt = words[i].split("=", 1)[0]
        if opt not in ALLOWED:
            raise ValueError("option not allowed in a warm run: " + opt)
        if opt == "--status-fd" and words[i].split("=", 1)[-1] != "3" and \
                (i + 1 >= len(words) or words[i + 1] != "3"):
            raise ValueError("--status-fd must be 3")
        i += 1 if "=" in words[i] or opt not in WITH_VALUE else 2
    if i >= len(words):
        raise ValueError("no snippet")
    return words


def run_snippet(argv, envp, at):
    """In the run: argv is cordon's command line for the payload."""
    sys.meta_path[:] = [m for m in sys.meta_path if not isinstance(m, NoImport)]
    os.environ.clear()
    for kv in envp:
        k, _, v = kv.partition("=")
        os.environ[k] = v
    import io
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
    code = 0
    import runpy
    try:
        runpy.run_path(path, run_name="__main__")
    except SystemExit as e:
        c = e.code
        if c is None:
            code = 0
        elif isinstance(c, int):
            code = c & 0xff
        else:
            try:
                print(c, file=sys.stderr)
            except Exception:
                pass
            code = 1
    except BaseException as e:
        import traceback
        tb = e.__traceback__      # from the snippet's frame, as python3 shows
        while tb is not None and tb.tb_frame.f_code.co_filename != path:
            tb = tb.tb_next
        traceback.print_exception(type(e), e, tb or e.__traceback__)
        code = 1
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
    os._exit(code)


def serve_one(conn, blob, at, sel, runs):
    msg, anc, _flags, _addr = conn.recvmsg(MAX_REQUEST,
                                           socket.CMSG_SPACE(4 * 4))
    fds = []
    for level, kind, data in anc:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            n = len(data) - len(data) % 4
            fds.extend(struct.unpack("%di" % (n // 4), data[:n]))
    try:
        if len(fds) not in (3, 4):
            raise ValueError("need stdin, stdout, stderr (and status)")
        words = os.fsdecode(msg).split("\0") if msg else []
        if len(words) < 2 or not words[0].startswith("/"):
            raise ValueError("empty request")
        cwd, words = words[0], check_request(words[1:])
    except (ValueError, UnicodeError) as e:
        for fd in fds:
            os.close(fd)
        conn.sendall(b"E" + str(e).encode()[:500])
        conn.close()
        return
    opts, rest = split_opts(words)
    argv = ["cordon"] + opts + [blob] + rest
    pid = os.fork()
    if pid == 0:
        try:
            for i, fd in enumerate(fds):
                os.dup2(fd, i)
            os.closerange(len(fds), 1 << 20)
            os.chdir(cwd)     # the caller's: its relative paths
            result = _cordon_warm.run(argv)
            run_snippet(result[0], result[1], at)
        finally:
            os._exit(125)
    for fd in fds:
        os.close(fd)
    pidfd = os.pidfd_open(pid)
    runs[pidfd] = (pid, conn)
    sel.register(pidfd, selectors.EVENT_READ, "run")


def split_opts(words):
    i = 0
    while i < len(words) and words[i].startswith("--"):
        opt = words[i].split("=", 1)[0]
        i += 1 if "=" in words[i] or opt not in WITH_VALUE else 2
    return words[:i], words[i:]


def main():
    name, blob, at, home = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
    modules = sys.argv[5:]
    _cordon_warm.harden()
    os.chdir(home)
    warm_up(modules)
    sys.stdout.flush()
    sys.stderr.flush()
    sys.meta_path.insert(0, NoImport())
    gc.collect()
    gc.freeze()
    inherited = os.environ.get("CORDON_WARM_FD")
    if inherited:
        lsock = socket.socket(fileno=int(inherited))
        os.environ.pop("CORDON_WARM_FD")
    else:
        lsock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        lsock.bind("\0" + name[1:])
        lsock.listen(64)
    uid = os.getuid()
    sel = selectors.DefaultSelector()
    sel.register(lsock, selectors.EVENT_READ, "listen")
    runs, done = {}, 0
    sys.stderr.write("cordon: warm pool %s ready (%d preloads)\n" % (name, len(modules)))
    sys.stderr.flush()
    while True:
        if done >= MAX_RUNS and not runs:
            os.set_inheritable(lsock.fileno(), True)
            env = dict(os.environ, CORDON_WARM_FD=str(lsock.fileno()))
            os.execve(sys.executable, [sys.executable] + sys.orig_argv[1:], env)
        for key, _ in sel.select():
            if key.data == "listen":
                if done >= MAX_RUNS:
                    continue
                conn, _ = lsock.accept()
                cred = conn.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED,
                                       struct.calcsize("3i"))
                if struct.unpack("3i", cred)[1] != uid:
                    conn.close()
                    continue
                serve_one(conn, blob, at, sel, runs)
                done += 1
            else:
                pidfd = key.fd
                pid, conn = runs.pop(pidfd)
                sel.unregister(pidfd)
                os.close(pidfd)
                _, status = os.waitpid(pid, 0)
                code = os.waitstatus_to_exitcode(status)
                try:
                    conn.sendall(b"X" + struct.pack("<i", code))
                except OSError:
                    pass
                conn.close()


if __name__ == "__main__":
    main()
