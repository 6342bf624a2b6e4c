"""Sessions (cordon.session): successive cells in one sandboxed
interpreter, which is one ordinary cordon run: cold, or a spare of the
tool's warm pool (cordon --submit --stdin).  Every behaviour test runs
both ways (the client fixture).  Live tests against the real cordon and
the shipped general policy, as root and as uid 65534 (make check's two
passes)."""
from __future__ import annotations

import asyncio
import json
import os
import pathlib
import re
import subprocess
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from client_support import import_client, procs_with  # noqa: E402

GENERAL = "code_gen"


@pytest.fixture(scope="module")
def cpkg(src_dir):
    return import_client(src_dir)


@pytest.fixture(params=["cold", "warm"])
def client(request, cpkg, policies_dir, cordon_bin, tmp_path):
    """A client whose sessions are cold runs, or warm ones (its pool
    started by the first session)."""
    assert (policies_dir / f"{GENERAL}.cpol").is_file(), "run make"
    runs = tmp_path / "runs"
    runs.mkdir()
    warm = request.param == "warm"
    c = cpkg.Client(policies_dir, cordon=cordon_bin, work_root=runs,
                    warm=warm)
    names = []
    real = c._start_pool

    def start_pool(*a):
        pool = real(*a)
        names.append(pool.name)
        return pool
    c._start_pool = start_pool
    yield c
    c.close()
    assert os.listdir(runs) == [], "a session left its folder behind"
    assert names or not warm, "no warm pool was used"
    for name in names:
        assert procs_with(name) == [], "the pool left a process"


@pytest.fixture
def cold(cpkg, policies_dir, cordon_bin, tmp_path):
    """A cold client: the reference a session is compared with."""
    c = cpkg.Client(policies_dir, cordon=cordon_bin, work_root=tmp_path)
    yield c
    c.close()


def run(coro):
    return asyncio.run(coro)


def test_state_imports_and_value_kept(client):
    async def go():
        async with client.session(GENERAL) as s:
            a = await s.run("x = 1")
            b = await s.run("x + 1")
            c = await s.run("import json")
            d = await s.run("print('out'); json.dumps([x])")
            return a, b, c, d
    a, b, c, d = run(go())
    assert a.ok and a.value is None
    assert b.value == "2"
    assert c.ok
    assert d.stdout == "out\n" and d.value == repr('[1]')


def test_readme_example(client, src_dir):
    text = (src_dir / "clients" / "python" / "README.md").read_text()
    code = re.search(r"```python\n(async with client.session.*?)```",
                     text, re.S).group(1)
    src = "async def example(client):\n" + "".join(
        "    " + ln + "\n" for ln in code.splitlines()) + \
        "    return r, run\n"
    ns = {}
    exec(src, ns)
    r, res = run(ns["example"](client))
    assert (r.stdout, r.value) == ("hi\n", "4.0")
    assert res.status["outcome"] == "exited"


def test_sync_session(client):
    with client.session_sync(GENERAL) as s:
        assert s.run("y = 5").ok
        r = s.run("y * 3")
    assert r.value == "15"
    assert s.result is not None and s.result.status["outcome"] == "exited"


def test_files_persist_and_are_reported(client):
    async def go():
        async with client.session(GENERAL) as s:
            a = await s.run("open('data.txt', 'w').write('abc')")
            b = await s.run("open('data.txt').read()")
            c = await s.run("import os; os.makedirs('d'); "
                            "open('d/b.bin', 'wb').write(b'x' * 10)")
            d = await s.run("open('data.txt', 'a').write('de')")
            return a, b, c, d
    a, b, c, d = run(go())
    assert [(f.name, f.size, f.data) for f in a.files] == \
        [("data.txt", 3, b"abc")]
    assert b.value == "'abc'" and b.files == ()
    assert [(f.name, f.size) for f in c.files] == [("d/b.bin", 10)]
    assert [(f.name, f.size, f.data) for f in d.files] == \
        [("data.txt", 5, b"abcde")]


def test_tree_in_per_cell(client, tmp_path):
    """A cell's inputs: a package and its tests as relative paths (folders
    made), a Path read; not listed among the cell's files; the next
    cell's inputs replace a file."""
    src = tmp_path / "data.csv"
    src.write_text("a,b\n1,2\n")

    async def go():
        async with client.session(GENERAL) as s:
            a = await s.run(
                "import sys; sys.path.insert(0, '.')\n"
                "from pkg.mod import f\n"
                "exec(open('tests/test_mod.py').read())\n"
                "open('report.txt', 'w').write(str(f(2)))\n"
                "open('data.csv').read()",
                inputs={"pkg/__init__.py": "", "pkg/mod.py":
                        "def f(x):\n    return x * 21\n",
                        "tests/test_mod.py": "assert f(2) == 42\n",
                        "data.csv": src, "cfg": {"k": 1}})
            b = await s.run("open('pkg/mod.py').read()",
                            inputs={"pkg/mod.py": b"X = 1\n"})
            c = await s.run("open('cfg.json').read()")
            return a, b, c
    a, b, c = run(go())
    assert a.ok, a
    assert a.value == repr("a,b\n1,2\n")
    assert [f.name for f in a.files] == ["report.txt"], a.files
    assert b.value == repr("X = 1\n") and b.files == (), b
    assert c.value == repr('{"k": 1}'), c


def test_cell_inputs_guarded(cpkg, client):
    """Bad names refused before anything is sent; a name through a file
    the session made fails in the driver: the cell reports it and does
    not run."""
    async def go():
        async with client.session(GENERAL) as s:
            for bad in ("/etc/x", "../x", "a/../b", "a//b", "", "a/./b"):
                with pytest.raises(cpkg.InputError):
                    await s.run("1", inputs={bad: b"x"})
            await s.run("open('f', 'w').close()")
            r = await s.run("ran = True", inputs={"f/x.txt": b"x"})
            after = await s.run("'ran' in dir()")
            return r, after
    r, after = run(go())
    assert not r.ok and "InputError: input 'f/x.txt'" in r.error, r
    assert after.value == "False", after


def cpkg_session():
    import cordon.session
    return cordon.session


def test_driver_never_follows_a_link(cpkg, src_dir, tmp_path):
    """The driver's writer (run here, outside a sandbox, on a tree with
    links planted as a snippet could): refused, nothing written through
    them."""
    text = (src_dir / "clients" / "python" / "cordon" /
            "_sessiondrv.py").read_text()
    ns = {"__name__": "drv"}      # not __main__: main() is not run
    exec(compile(text, "drv", "exec"), ns)
    root, out = tmp_path / "root", tmp_path / "out"
    root.mkdir()
    out.mkdir()
    os.symlink(out, root / "dir")
    os.symlink(out / "t.txt", root / "file")
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in ("dir/x.txt", "file", "../x", "a/../../x"):
            with pytest.raises(OSError):
                ns["_write_input"](fd, name, b"x")
        ns["_write_input"](fd, "ok/y.txt", b"y")
    finally:
        os.close(fd)
    assert os.listdir(out) == []
    assert (root / "ok" / "y.txt").read_bytes() == b"y"
    # The client's request bound is the driver's.
    assert ns["REQ_MAX"] == cpkg_session().REQUEST_MAX


def _norm(text):
    return re.sub(r'File "[^"]*"', 'File "SNIPPET"', text)


@pytest.mark.parametrize("code", [
    "def f(n):\n    return 10 // n\n\nprint('before')\nf(0)\n",
    "x = (\n",
    "raise SystemExit('bye')\n",
])
def test_error_traceback_equals_a_cold_run(client, cold, code):
    async def go():
        ref = await cold.arun(GENERAL, code)
        async with client.session(GENERAL) as s:
            cell = await s.run(code)
        return ref, cell
    cold, cell = run(go())
    assert cell.error is not None
    if code.startswith("raise SystemExit"):
        assert cold.stderr_text() == "bye\n"
        assert "SystemExit: bye" in cell.error
        return
    assert cell.stdout == cold.stdout_text()
    assert _norm(cell.error) == _norm(cold.stderr_text())
    assert "_sessiondrv" not in cell.error and "_run_cell" not in cell.error


def test_cell_timeout_interrupts_and_keeps_state(client):
    async def go():
        async with client.session(GENERAL) as s:
            await s.run("x = 41")
            t = await s.run("while True: pass", timeout=1)
            after = await s.run("x + 1")
            return t, after
    t, after = run(go())
    assert t.timed_out and not t.session_ended
    assert "CellTimeout" in t.error
    assert after.value == "42"


def test_cell_ignoring_the_timer_ends_the_session(cpkg, client):
    async def go():
        s = client.session(GENERAL)
        async with s:
            r = await s.run("import signal, time\n"
                            "signal.signal(signal.SIGALRM, signal.SIG_IGN)\n"
                            "time.sleep(100)\n", timeout=1)
            with pytest.raises(cpkg.SessionEnded) as e:
                await s.run("1")
        return s, r, e.value
    s, r, e = run(go())
    assert r.timed_out and r.session_ended
    assert "did not stop within its 1s timeout" in r.end_reason
    assert r.run is not None and r.run is s.result
    assert "did not stop" in e.reason
    # cordon's own account: ended from outside, every layer was there.
    assert s.result.outcome == cpkg.Outcome.INTERRUPTED
    assert s.result.layers.seccomp


def test_idle_timeout_ends_the_session(cpkg, client):
    async def go():
        s = client.session(GENERAL, idle_timeout=0.5)
        async with s:
            await s.run("x = 1")
            for _ in range(600):        # the end, however slow the host
                if s.result is not None:
                    break
                await asyncio.sleep(0.1)
            with pytest.raises(cpkg.SessionEnded) as e:
                await s.run("x")
        return s, e.value
    s, e = run(go())
    assert s.end_reason == "idle timeout" and e.reason == "idle timeout"
    assert s.result is not None and s.result.outcome == cpkg.Outcome.EXITED


def test_max_sessions_refused(cpkg, client):
    client.max_sessions = 1

    async def go():
        async with client.session(GENERAL) as s:
            await s.run("1")
            with pytest.raises(cpkg.SessionLimit, match="maximum is 1"):
                async with client.session(GENERAL):
                    pass
        async with client.session(GENERAL) as s2:   # freed by the end
            return await s2.run("2")
    assert run(go()).value == "2"


def test_sessions_isolated(client, cordon_bin):
    async def go():
        async with client.session(GENERAL) as a, \
                client.session(GENERAL) as b:
            await a.run("import os\nsecret = 'A'\n"
                        "open('secret.txt', 'w').write('A')\n"
                        "os.environ['SESSION_A'] = '1'\n")
            seen = await b.run(
                "import os\n"
                "('secret' in globals(), os.path.exists('secret.txt'), "
                "os.environ.get('SESSION_A'), sorted(os.listdir('.')))")
            # b's interpreter, by its host pid: a can neither signal nor
            # ptrace it.  Warm, every process of the pool (the template,
            # the spares, b's cordon and run: one command line).
            if b.warm:
                assert a.warm and a._pool is b._pool
                pids = [p for p, _ in procs_with(b._pool.name)]
            else:
                pids = [p for p, cmd in procs_with(b.workdir)
                        if not cmd.startswith(os.fsencode(cordon_bin))]
            assert pids, "b's interpreter not found"
            probe = await a.run(
                "import ctypes, os, signal\n"
                "libc = ctypes.CDLL(None, use_errno=True)\n"
                "out = []\n"
                f"for pid in {pids!r}:\n"
                "    try:\n"
                "        os.kill(pid, signal.SIGKILL)\n"
                "        out.append('killed')\n"
                "    except OSError as e:\n"
                "        out.append(type(e).__name__)\n"
                "    r = libc.ptrace(16, pid, None, None)\n"
                "    out.append(('ptrace', r, ctypes.get_errno() != 0))\n"
                "out")
            alive = await b.run("secret = 'B'\nsecret")
            return seen, probe, alive
    seen, probe, alive = run(go())
    assert seen.value.startswith("(False, False, None, [")
    assert "secret.txt" not in seen.value
    assert "killed" not in probe.value and "('ptrace', 0," not in \
        probe.value, probe
    assert alive.value == "'B'" and not alive.session_ended


def _frame(seq, **kw):
    body = json.dumps({"seq": seq, "stdout": "forged", "stderr": "",
                       "value": "'forged'", "error": None,
                       "timed_out": False, "files": [], **kw})
    return "\\0CORDONSESSION%08x\\n%s" % (len(body), body)


def test_forged_frames_stay_in_their_own_session(cpkg, client):
    async def go():
        async with client.session(GENERAL) as s:
            # print()ed: the cell's own output, not a frame.
            a = await s.run(f"print({_frame(2, outcome='seccomp')!r})")
            b = await s.run("1 + 1")
            # Written on the frame pipe itself, for a later cell: the
            # session ends; the result is cordon's, not the frame's.
            c = await s.run(
                "import os, stat\n"
                f"f = {_frame(9, outcome='seccomp')!r}.encode()\n"
                "for fd in range(3, 64):\n"
                "    try:\n"
                "        if stat.S_ISFIFO(os.fstat(fd).st_mode):\n"
                "            os.write(fd, f)\n"
                "    except OSError:\n"
                "        pass\n")
            return s, a, b, c
    s, a, b, c = run(go())
    assert "CORDONSESSION" in a.stdout and a.value is None
    assert b.seq == 2 and b.value == "2"
    assert c.seq == 3 and c.session_ended and c.value is None
    assert "malformed" in c.end_reason
    assert s.result is not None
    assert s.result.outcome == cpkg.Outcome.EXITED     # cordon's fact
    assert s.result.status.get("outcome") == "exited"


def test_every_layer_of_a_cold_run(client, cold):
    async def go():
        ref = await cold.arun(GENERAL, "print(1)")
        async with client.session(GENERAL) as s:
            await s.run("1")
        return ref, s
    cold, s = run(go())
    res = s.result
    assert res is not None
    assert s.warm == client.warm
    assert res.status.get("warm", False) is s.warm
    assert dict(res.layers.raw) == dict(cold.layers.raw)
    assert res.layers.seccomp and res.layers.no_new_privs
    assert res.policy == cold.policy and res.blob == cold.blob
    for key in ("bounds", "limits"):
        if key in cold.status:
            assert res.status[key].keys() == cold.status[key].keys()


@pytest.mark.parametrize("warm", [False, True])
def test_cli(src_dir, policies_dir, cordon_bin, warm):
    env = dict(os.environ, CORDON_POLICY_DIR=str(policies_dir),
               CORDON_BIN=str(cordon_bin),
               PYTHONPATH=str(src_dir / "clients" / "python"))
    env.pop("CORDON_SOURCE_DIR", None)
    p = subprocess.run([sys.executable, "-m", "cordon.session",
                        *(["--warm"] if warm else []), GENERAL],
                       input="x = 20\n#%%\nx * 2\n#%%\n1/0\n",
                       capture_output=True, text=True, env=env,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert [x.get("value") for x in lines[:3]] == [None, "40", None]
    assert "ZeroDivisionError" in lines[2]["error"]
    assert lines[3]["status"]["outcome"] == "exited"
    assert lines[3]["status"].get("warm", False) is warm


# ------------------------------------------------ cordon --stdin (the channel)

def test_launcher_stdin_option(cordon_bin, policies_dir, tmp_path):
    snip = tmp_path / "s.py"
    snip.write_text("import sys; print(repr(sys.stdin.read()))")
    snip.chmod(0o644)
    blob = str(policies_dir / f"{GENERAL}.cpol")
    base = [str(cordon_bin), "--quiet"]
    kept = subprocess.run(base + ["--stdin", blob, str(snip)],
                          input=b"cells", capture_output=True, timeout=120)
    assert kept.returncode == 0, kept.stderr
    assert kept.stdout == b"'cells'\n"
    plain = subprocess.run(base + [blob, str(snip)], input=b"cells",
                           capture_output=True, timeout=120)
    assert plain.stdout == b"''\n"          # /dev/null, as before
    dash = subprocess.run(base + ["--stdin", blob, "-"], input=b"print(1)",
                          capture_output=True, timeout=120)
    assert dash.returncode == 125 and b"--stdin needs a snippet file" in \
        dash.stderr and dash.stdout == b""
    serve = subprocess.run([str(cordon_bin), "--serve", "@cordon-t-stdin",
                            "--stdin", blob], capture_output=True,
                           timeout=120)
    assert serve.returncode == 125


# ------------------------------------------------ warm sessions (a pool's)

def _tree(pid):
    """pid and its descendants, each as (pid, start time)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        try:
            with open(f"/proc/{p}/stat", "rb") as f:
                start = f.read().rsplit(b")", 1)[1].split()[19]
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        out.append((p, start))
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/children") as f:
                    todo += [int(c) for c in f.read().split()]
            except OSError:
                pass
    return out


def _alive(p, start):
    try:
        with open(f"/proc/{p}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
    except OSError:
        return False
    return fields[19] == start and fields[0] != b"Z"


def _children(pid):
    out = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                out += [int(c) for c in f.read().split()]
    except OSError:
        pass
    return out


def test_warm_session_leaves_no_process_or_folder(cpkg, policies_dir,
                                                  cordon_bin, tmp_path):
    """The session's run is one of the maker's children (a spare's
    cordon, its init, the run; the maker is the template's child): once the session is closed that whole
    tree is gone, and so is the session's folder, while the other spares
    and the pool live on.  (Spares at rest never end by themselves: a
    tree of the maker's that ends is the session's.  Where the spare's
    directory can be read, as root, it is also found by its directory,
    the session's.)"""
    runs = tmp_path / "runs"
    runs.mkdir()
    with cpkg.Client(policies_dir, cordon=cordon_bin, work_root=runs,
                     warm=True) as c:
        async def go():
            async with c.session(GENERAL) as s:
                assert s.warm
                base, template = s._base, s._pool.pid
                r = await s.run("import os; os.getpid()")
                # the spares: the children of the template's one child,
                # its maker
                trees = {k: _tree(k) for m in _children(template)
                         for k in _children(m)}
                mine = [k for k in trees if _cwd(k) == base]
                submit = (s._proc.pid, _tree(s._proc.pid)[0][1])
            return s, r, trees, mine, submit
        s, r, trees, mine, submit = run(go())
        assert r.ok and s.result.status["warm"] is True
        assert not _alive(*submit)
        gone = []
        for _ in range(300):            # bounded: reaped by the template
            gone = [k for k, t in trees.items()
                    if not any(_alive(*x) for x in t)]
            if gone:
                break
            time.sleep(0.05)
        assert len(gone) == 1, trees    # the session's, the whole tree
        # cordon, the run's init, the run (and nothing else of it left)
        assert len(trees[gone[0]]) >= 3, trees
        assert mine in ([], gone), (mine, gone)
        for k, t in trees.items():
            if k not in gone:
                assert all(_alive(*x) for x in t), "a spare ended"
        assert os.listdir(runs) == []
        again = c.run(GENERAL, "print(2)")     # the pool serves on
        assert again.stdout == b"2\n" and again.status["warm"] is True


def _cwd(pid):
    try:
        return os.readlink(f"/proc/{pid}/cwd")
    except OSError:
        return None


def test_warm_session_ends_clearly_with_its_pool(cpkg, policies_dir,
                                                 cordon_bin, tmp_path):
    """The pool stopped under a live session: the next cell says the
    session ended (not a forged or partial result), and the client
    stops nothing else."""
    with cpkg.Client(policies_dir, cordon=cordon_bin, work_root=tmp_path,
                     warm=True) as c:
        async def go():
            async with c.session(GENERAL) as s:
                await s.run("x = 1")
                await c._in_io(s._pool.stop)
                r = await s.run("x")
                with pytest.raises(cpkg.SessionEnded):
                    await s.run("x")
            return s, r
        s, r = run(go())
    assert r.session_ended and r.value is None and not r.ok
    assert "broke off" in r.end_reason
    assert s.result is None or \
        s.result.outcome == cpkg.Outcome.INTERRUPTED


def test_cold_when_asked_or_with_env(cpkg, policies_dir, cordon_bin,
                                     tmp_path):
    with cpkg.Client(policies_dir, cordon=cordon_bin, work_root=tmp_path,
                     warm=True) as c:
        assert not c.session(GENERAL, warm=False).warm
        assert not c.session(GENERAL, env={"A": "1"}).warm
        with pytest.raises(ValueError, match="env= needs warm=False"):
            c.session(GENERAL, env={"A": "1"}, warm=True)
        with c.session_sync(GENERAL, warm=False) as s:
            r = s.run("1")
        assert r.value == "1" and "warm" not in s.result.status
