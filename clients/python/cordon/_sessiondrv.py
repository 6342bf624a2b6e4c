"""A session's driver: the snippet of one cordon run that executes cells.

This file runs INSIDE the sandbox, as the run's snippet (cordon --stdin).
It reads requests on its stdin and writes frames on its stdout; the cell
shares its interpreter, so whatever it writes is untrusted to the client
(cordon/session.py parses it strictly; outcome, denials and bounds come
from cordon's status, never from here).

Request: b"C" + 8 hex digits (length) + b"\\n" + JSON {"seq", "code",
"timeout", "output" (the policy's cap, per cell; null: none), "files":
{relative name: base64}}.  Interrupt: b"I" + 8 hex digits + b"\\n" + JSON
{"seq"}: the cell seq, if it is running, gets CellCancelled (a reader
thread takes requests while a cell runs, and signals the main thread).
Frame: b"\\0CORDONSESSION" + 8 hex digits + b"\\n" + JSON.
Standard library only; kept to one Python version's features (3.9+).
"""
import ast
import base64
import io
import json
import linecache
import os
import queue
import signal
import sys
import threading
import traceback

# -- the session protocol: its one definition.  cordon/session.py imports
# these names from this file, which runs alone in the sandbox (so the
# definition lives here); tools/facts.py refuses a copy elsewhere.
FRAME = b"\0CORDONSESSION"  # a frame's mark (driver -> client)
CELL = b"C"                 # a request's mark: run a cell
INTERRUPT = b"I"            # a request's mark: interrupt cell seq
HEAD_DIGITS = 8             # the JSON's length, in hex, after a mark
REQ_MAX = 16 << 20          # one request's JSON (a cell's source), at most


def header(mark, n):
    """A request's or a frame's head: its mark, the JSON's length n in
    HEAD_DIGITS hex digits, a newline."""
    return mark + b"%08x\n" % n


FILE_BYTES = 64 << 10       # a changed file's content sent, at most
FILES_MAX = 256             # changed files listed, at most
FILES_BYTES = 1 << 20       # contents sent per cell, in all
TEXT_MAX = 8 << 20          # a cell's stdout or stderr kept
VALUE_MAX = 64 << 10        # a final expression's repr kept
DEPTH_MAX = 16              # folders walked below the workdir


class CellTimeout(BaseException):
    """Raised in the cell by the driver's timer."""


class CellCancelled(BaseException):
    """Raised in the cell when the client cancels it."""


# The cell running (its seq, or None) and whether it was cancelled: the
# reader thread reads and sets them under the lock; the handler runs in
# the main thread, between a cell's bytecodes.
_cell = {"seq": None, "cancel": False}
_cell_lock = threading.Lock()


def _alarm(signum, frame):
    if _cell["seq"] is None:
        return                  # the cell is over: nothing to interrupt
    if _cell["cancel"]:
        raise CellCancelled("cell cancelled")
    raise CellTimeout("cell timed out")


def _read_exact(fd, n):
    buf = b""
    while len(buf) < n:
        chunk = os.read(fd, n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def _request(fd):
    """(kind, request): kind b"C" (a cell) or b"I" (an interrupt); None
    at the end or on a malformed request."""
    head = _read_exact(fd, 1 + HEAD_DIGITS + 1)
    if head is None or head[:1] not in (CELL, INTERRUPT) or \
            head[1 + HEAD_DIGITS:] != b"\n":
        return None
    n = int(head[1:9], 16)
    if n > REQ_MAX:
        return None
    body = _read_exact(fd, n)
    return None if body is None else (head[:1], json.loads(body))


def _reader(fd, cells):
    """Requests, while cells run: cells queued, interrupts delivered to
    the running cell at once (SIGALRM, handled in the main thread)."""
    while True:
        try:
            got = _request(fd)
        except ValueError:
            got = None
        if got is None:
            cells.put(None)
            return
        kind, req = got
        if kind == CELL:
            cells.put(req)
            continue
        with _cell_lock:
            if _cell["seq"] is not None and _cell["seq"] == req.get("seq"):
                _cell["cancel"] = True
                # To the process, not a thread id: a warm spare's cached
                # thread id is its template's.  Python runs the handler
                # in the main thread.
                os.kill(os.getpid(), signal.SIGALRM)


def _send(fd, obj):
    data = json.dumps(obj).encode()
    msg = header(FRAME, len(data)) + data
    while msg:
        msg = msg[os.write(fd, msg):]


def _tree(root):
    """{relative name: (size, mtime_ns)} of the regular files below."""
    seen = {}

    def walk(path, rel, depth):
        if depth > DEPTH_MAX:
            return
        try:
            entries = list(os.scandir(path))
        except OSError:
            return
        for e in entries:
            name = rel + e.name
            try:
                if e.is_dir(follow_symlinks=False):
                    walk(e.path, name + "/", depth + 1)
                elif e.is_file(follow_symlinks=False):
                    st = e.stat(follow_symlinks=False)
                    seen[name] = (st.st_size, st.st_mtime_ns)
            except OSError:
                pass
    walk(root, "", 0)
    return seen


def _changed(root, before, skip):
    after = _tree(root)
    out, budget = [], FILES_BYTES
    for name in sorted(after):
        if name in skip or before.get(name) == after[name]:
            continue
        if len(out) == FILES_MAX:
            break
        size = after[name][0]
        data = b""
        try:
            with open(os.path.join(root, name), "rb") as f:
                data = f.read(min(FILE_BYTES, budget))
        except OSError:
            pass
        budget -= len(data)
        out.append({"name": name, "size": size,
                    "data": base64.b64encode(data).decode()})
    return out, after


def _open_dir(fd, part):
    """part below fd, made (0700) when missing, never a link."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
    try:
        return os.open(part, flags, dir_fd=fd)
    except FileNotFoundError:
        os.mkdir(part, 0o700, dir_fd=fd)
        return os.open(part, flags, dir_fd=fd)


def _write_input(root_fd, name, data):
    """One input file below the workdir: relative, no '.', '..' or empty
    part, bounded, no link followed (the client checked the name too)."""
    parts = name.split("/")
    if not name or "\0" in name or len(parts) > DEPTH_MAX or any(
            p in ("", ".", "..") or len(p.encode()) > 255 for p in parts):
        raise OSError("input %r: not a relative path of plain names" % name)
    fd = os.dup(root_fd)
    try:
        for p in parts[:-1]:
            nfd = _open_dir(fd, p)
            os.close(fd)
            fd = nfd
        out = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_TRUNC |
                      os.O_NOFOLLOW | os.O_CLOEXEC, 0o644, dir_fd=fd)
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(out, view):]
        finally:
            os.close(out)
    finally:
        os.close(fd)


def _inputs(root, files):
    """The request's input files, or the error text of the first that
    could not be written (the cell then does not run)."""
    root_fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        for name, b64 in sorted(files.items()):
            try:
                _write_input(root_fd, name, base64.b64decode(b64))
            except (OSError, ValueError) as e:
                return "InputError: input %r: %s\n" % (name, e)
    finally:
        os.close(root_fd)
    return None


def _compile(code, filename):
    """(exec code, eval code or None): a final expression is evaluated
    apart, for its value, as a REPL does."""
    tree = ast.parse(code, filename, "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    body = compile(tree, filename, "exec", dont_inherit=True)
    return body, (compile(last, filename, "eval", dont_inherit=True)
                  if last is not None else None)


def _error_text(e, tb):
    """The error as a cold run prints it: the cell's frames only."""
    return "".join(traceback.format_exception(type(e), e, tb))


def _run_cell(req, env, filename):
    code = req["code"]
    timeout = float(req["timeout"])
    out, err = io.StringIO(), io.StringIO()
    value = error = None
    timed_out = cancelled = False
    # Tracebacks show the cell's source, as a cold run shows its file's.
    linecache.cache[filename] = (len(code), None,
                                 code.splitlines(True), filename)
    sys.stdout, sys.stderr = out, err
    try:
        try:
            body, last = _compile(code, filename)
        except SyntaxError as e:
            error = _error_text(e, None)
        else:
            signal.signal(signal.SIGALRM, _alarm)
            with _cell_lock:
                _cell["seq"], _cell["cancel"] = req["seq"], False
            signal.setitimer(signal.ITIMER_REAL, timeout)
            try:
                exec(body, env)
                if last is not None:
                    v = eval(last, env)
                    if v is not None:
                        value = repr(v)[:VALUE_MAX]
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                with _cell_lock:
                    _cell["seq"] = None
    except CellTimeout:
        timed_out = True
        error = "CellTimeout: cell interrupted after %gs\n" % timeout
    except CellCancelled:
        cancelled = True
        error = "CellCancelled: cell cancelled by the client; the " \
            "session goes on\n"
    except SystemExit as e:
        error = _error_text(e, e.__traceback__.tb_next)
    except BaseException as e:
        error = _error_text(e, e.__traceback__.tb_next)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        sys.stdout, sys.stderr = sys.__stdout__, sys.__stderr__
    return {"stdout": out.getvalue()[:TEXT_MAX],
            "stderr": err.getvalue()[:TEXT_MAX],
            "value": value, "error": error, "timed_out": timed_out,
            "cancelled": cancelled}


def _cap_output(res, cap):
    """The policy's output cap, per cell: past it the cell's output is
    cut (stdout first, then stderr) and the cut said; the session goes
    on (cordon does not count the frames: --session)."""
    if cap is None:
        return
    out, err = res["stdout"].encode(), res["stderr"].encode()
    if len(out) + len(err) <= cap:
        return
    keep_out = out[:cap]
    keep_err = err[:cap - len(keep_out)]
    res["stdout"] = keep_out.decode("utf-8", "ignore")
    res["stderr"] = keep_err.decode("utf-8", "ignore") + (
        "\ncordon: the cell's output (%d bytes) passed the policy's output "
        "cap of %d bytes per cell: the rest was dropped; the session goes "
        "on\n" % (len(out) + len(err), cap))
    res["output_truncated"] = True


def _figures(root, seq):
    """Saves the matplotlib figures a cell left open as PNG files in the
    workdir (figure-SEQ-N.png) and closes them, as a notebook shows a
    cell's figures: plt.show() under the Agg backend a headless run has
    draws nothing.  Nothing when the cell's code never imported pyplot.
    What could not be saved is said on the cell's stderr."""
    plt = sys.modules.get("matplotlib.pyplot")
    if plt is None:
        return ""
    said = ""
    try:
        nums = plt.get_fignums()
        for n in nums:
            try:
                plt.figure(n).savefig(os.path.join(
                    root, "figure-%d-%d.png" % (seq, n)))
            except Exception as e:
                said += "cordon: figure %d not saved: %s\n" % (n, e)
        plt.close("all")
    except Exception as e:
        said += "cordon: open figures not saved: %s\n" % e
    return said


def main():
    # Requests on a private descriptor; the cell's fd 0 reads nothing.
    req_fd = os.dup(0)
    frame_fd = os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    # A cell's raw writes to fd 1 go to the run's stderr, not the frames.
    os.dup2(2, 1)
    os.close(null)
    sys.stdin = io.TextIOWrapper(io.BytesIO(b""))
    me = os.path.abspath(sys.argv[0])
    root = os.getcwd()
    skip = {os.path.relpath(me, root)}
    env = {"__name__": "__main__", "__builtins__": __builtins__}
    signal.signal(signal.SIGALRM, _alarm)
    before = _tree(root)
    cells = queue.Queue()
    threading.Thread(target=_reader, args=(req_fd, cells),
                     daemon=True).start()
    _send(frame_fd, {"ready": True})
    while True:
        req = cells.get()
        if req is None:
            return
        error = _inputs(root, req.get("files") or {})
        if req.get("files"):
            before = _tree(root)        # inputs are not the cell's files
        # Not a file on disk: tracebacks read the cell's own lines.
        res = _run_cell(req, env, "<cell %d>" % int(req["seq"])) \
            if error is None else {"stdout": "", "stderr": "", "value": None,
                                   "error": error, "timed_out": False,
                                   "cancelled": False}
        res["output_truncated"] = False
        _cap_output(res, req.get("output"))
        res["stderr"] += _figures(root, int(req["seq"]))
        files, before = _changed(root, before, skip)
        res["files"] = files
        res["seq"] = req["seq"]
        _send(frame_fd, res)


if __name__ == "__main__":       # the run's snippet (cold or warm)
    main()
