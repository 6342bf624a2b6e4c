"""Warm pools (cordon --serve, --submit): a run behaves as a cold one, and
runs of one pool are isolated from each other and from the template.

Each test runs real snippets in a pool of a shipped policy (code_gen, with
its preloads) or the launcher's escape policy; hostile runs try to leave a
mark for the next run or to reach the template, and the next run checks
that nothing is left."""
import contextlib
import hashlib
import json
import os
import pathlib
import re
import signal
import subprocess

import pytest

from conftest import BUILD, PYTHON, WARM_OK

pytestmark = pytest.mark.skipif(not WARM_OK, reason="no warm pool built "
                                "(build/warm/_cordon_warm.so: no Python "
                                "headers)")


@pytest.fixture(scope="module")
def code_gen():
    return BUILD / "policies" / "code_gen.cpol"


@pytest.fixture
def pool(warm_pools, code_gen):
    return warm_pools(code_gen)


def test_same_result_as_cold(cordon, pool, code_gen):
    code = ("import sys, os\nprint('args', sys.argv[1:], __name__)\n"
            "print('cwd is workdir', os.getcwd() == os.environ['HOME'])\n"
            "print('env', sorted(os.environ))\n"
            "sys.stderr.write('err\\n')\nsys.exit(7)\n")
    cold = cordon(code_gen, code, "a", "b c")
    warm = cordon(code_gen, code, "a", "b c", warm=pool)
    assert warm.rc == cold.rc == 7, (cold, warm)
    assert warm.out == cold.out and warm.err == cold.err, (cold, warm)
    assert warm.status["warm"] is True and "warm" not in cold.status
    for k in ("outcome", "exit_code", "layers"):
        assert warm.status[k] == cold.status[k], k
    for b, v in cold.status["bounds"].items():
        assert warm.status["bounds"][b]["by"] == v["by"], b
        assert warm.status["bounds"][b].get("limit") == v.get("limit"), b


def test_exception_and_preloaded(cordon, pool):
    r = cordon(None, "import sys\nprint('pandas' in sys.modules)\n"
               "raise ValueError('boom')\n", warm=pool)
    assert r.rc == 1 and r.out == "True\n", r
    assert r.err.startswith("Traceback") and "ValueError: boom" in r.err
    assert "warm.py" not in r.err and "runpy" not in r.err, r.err


# One snippet per way a run can fail, as an application feeding stderr
# back to a model meets them: each must print, byte for byte, what a cold
# run prints (the workdir's name aside: each run has its own).
TRACEBACKS = {
    "top_level": "x = 1\nraise ValueError('boom %d' % x)\n",
    "in_function": "def f(a):\n    return a[3]\n\ndef g():\n"
                   "    f([1])\n\ng()\n",
    "syntax_error": "print('never')\ndef f(:\n    pass\n",
    "indentation_error": "if True:\nprint(1)\n",
    "from_preload": "import pandas as pd\n"
                    "pd.DataFrame({'a': [1]})['missing']\n",
    "chained": "try:\n    {}['k']\nexcept KeyError as e:\n"
               "    raise RuntimeError('again') from e\n",
    "keyboard_interrupt": "raise KeyboardInterrupt\n",
    "system_exit_code": "import sys\nsys.stderr.write('bye\\n')\n"
                        "sys.exit(3)\n",
    "system_exit_text": "raise SystemExit('no input given')\n",
    "excepthook": "import sys\nsys.excepthook = lambda t, v, tb: "
                  "print('hook', t.__name__, tb.tb_frame.f_code.co_name, "
                  "file=sys.stderr)\nraise OSError(2, 'gone')\n",
}


@pytest.mark.parametrize("name", sorted(TRACEBACKS))
def test_traceback_same_as_cold(cordon, pool, code_gen, name):
    code = TRACEBACKS[name]
    cold = cordon(code_gen, code)
    warm = cordon(code_gen, code, warm=pool)
    assert cold.status and warm.status, (cold, warm)
    errs = [r.err.replace(r.status["workdir"], "WORKDIR")
            for r in (cold, warm)]
    assert errs[0], cold          # every snippet here says something
    assert errs[1] == errs[0], (cold, warm)
    assert warm.rc == cold.rc, (cold, warm)
    for k in ("outcome", "exit_code", "signal"):
        assert warm.status[k] == cold.status[k], (k, cold, warm)


def test_files_not_shared(cordon, pool, tmp_path):
    a = cordon(None, "import os\nopen('mark','w').write('x')\n"
               "open('/tmp/mark','w').write('x')\nprint(os.getcwd())\n",
               warm=pool)
    assert a.rc == 0, a
    b = cordon(None, "import os\nprint(os.path.exists('mark'), "
               "os.path.exists('/tmp/mark'), os.listdir('.'))\n"
               "print(os.path.exists(%r))\n" % a.out.strip(), warm=pool)
    assert b.out.splitlines()[0] == "False False ['snippet.py']", b
    assert b.out.splitlines()[1] == "False", b


def test_template_modules_are_forgotten(cordon, pool):
    """The run sees none of the template's own modules (warm_run.py
    lists them from its folder), and a snippet's own warm_serve.py is
    found, as in a cold run."""
    r = cordon(None, "import sys\nprint(sorted(n for n in sys.modules "
               "if n.startswith('warm_')))\n", warm=pool)
    assert r.rc == 0 and r.out == "[]\n", r
    r = cordon(None, "import os, sys\nd = os.getcwd()\n"
               "open('warm_serve.py', 'w').write('MINE = 1\\n')\n"
               "sys.path.insert(0, d)\nimport warm_serve\n"
               "print(warm_serve.MINE, warm_serve.__file__ == "
               "os.path.join(d, 'warm_serve.py'))\n", warm=pool)
    assert r.rc == 0 and r.out == "1 True\n", r


def test_rehearsal_leaves_nothing(cordon, pool):
    """warm_run.py's rehearsal (a source compiled and run before the
    request) leaves no object of its own for the snippet's collector to
    find (its functions and their globals make a cycle), and says nothing
    on the run's streams."""
    code = ("import gc\n"
            "left = [o for o in gc.get_objects() if getattr(getattr(o, "
            "'__code__', None), 'co_filename', '') == '<cordon warm-up>']\n"
            "print(len(left), 'ok')\n")
    r = cordon(None, code, warm=pool)
    assert r.rc == 0 and r.out == "0 ok\n" and r.err == "", r
    empty = cordon(None, "", warm=pool)
    assert empty.rc == 0 and empty.out == empty.err == "", empty


def test_monkeypatch_does_not_leak(cordon, pool):
    bad = ("import pandas, numpy, json, sys\n"
           "pandas.DataFrame = None\nnumpy.array = None\n"
           "json.dumps = None\nsys.modules['os'].getcwd = None\n"
           "import builtins\nbuiltins.print = None\n")
    assert cordon(None, bad, warm=pool).rc == 0
    r = cordon(None, "import pandas, numpy, json, os\n"
               "print(pandas.DataFrame is not None, numpy.array is not None,"
               " json.dumps is not None, os.getcwd is not None)\n",
               warm=pool)
    assert r.out == "True True True True\n", r


def test_memory_corruption_and_crash_leave_template(cordon, pool):
    crash = ("import ctypes\nctypes.memset(ctypes.c_void_p.from_address(0),"
             " 0, 1)\n")
    r = cordon(None, crash, warm=pool)
    assert r.status["outcome"] in ("signaled", "seccomp"), r
    r = cordon(None, "import os, signal\nos.kill(os.getpid(), "
               "signal.SIGKILL)\n", warm=pool)
    assert r.status["signal"] == 9, r
    r = cordon(None, "print('alive')\n", warm=pool)
    assert r.out == "alive\n", r


def test_cannot_reach_template_or_siblings(cordon, pool):
    # The template and the pool's other processes are outside the run's
    # PID namespace and Landlock domain: no pid to name, no signal, no
    # ptrace, no abstract socket (the pool's own included).
    code = ("import os, socket, ctypes\n"
            "pids = []\nfor p in range(1, 4096):\n    try:\n"
            "        os.kill(p, 0); pids.append(p)\n"
            "    except ProcessLookupError:\n        pass\n"
            "print('pids', sorted(pids))\n"
            "s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)\n"
            "try:\n    s.connect('\\0' + %r)\n    print('ESCAPED connect')\n"
            "except OSError as e:\n    print('refused connect', e.errno)\n"
            % pool[1:])
    r = cordon(None, code, warm=pool)
    assert "ESCAPED" not in r.out, r
    assert r.out.startswith("pids [1, 2]"), r   # init, the run
    tpl = subprocess.run(["pgrep", "-f", "warm.py " + pool],
                         capture_output=True, text=True).stdout.split()
    assert tpl, "template not found"
    code = ("import os, signal\nfor pid in %s:\n    try:\n"
            "        os.kill(pid, signal.SIGKILL); print('ESCAPED', pid)\n"
            "    except OSError as e:\n        print('refused', e.errno)\n"
            % [int(p) for p in tpl])
    r = cordon(None, code, warm=pool)
    assert "ESCAPED" not in r.out, r
    assert cordon(None, "print(1)\n", warm=pool).out == "1\n"


def test_no_import_in_template(cordon, pool, tmp_path):
    # A run that drops a module where the template's import path looks
    # cannot make the template (or a later run) import it.
    r = cordon(None, "import sys\nprint(sys.path[0])\n"
               "open('evil_mod.py','w').write('print(\"EVIL\")')\n",
               warm=pool)
    assert r.rc == 0, r
    r = cordon(None, "try:\n    import evil_mod\nexcept ImportError:\n"
               "    print('no evil')\n", warm=pool)
    assert "EVIL" not in r.out and "no evil" in r.out, r


def test_timeout_kills_the_tree(cordon, pool):
    r = cordon(None, "import os, time\nif os.fork() == 0:\n"
               "    os.setsid(); time.sleep(60)\ntime.sleep(60)\n",
               opts=["--timeout", "1"], warm=pool, timeout=30)
    assert r.status["outcome"] == "timeout", r


def test_refused_options(tmp_path, pool):
    (tmp_path / "s.py").write_text("print(1)\n")
    for opt in (["--observe", "x"], ["--no-namespaces"], ["--check"],
                ["--cgroup", "/x"]):
        p = subprocess.run([str(BUILD / "cordon"), "--submit", pool, *opt,
                            str(tmp_path / "s.py")], capture_output=True,
                           text=True, timeout=30)
        assert p.returncode == 125 and "refused" in p.stderr, (opt, p)
    # cordon's parser takes a unique prefix; the pool matches names: a
    # prefix is refused by --submit, with the name to write.
    p = subprocess.run([str(BUILD / "cordon"), "--submit", pool, "--time",
                        "3", str(tmp_path / "s.py")], capture_output=True,
                       text=True, timeout=30)
    assert p.returncode == 125 and "--timeout in full" in p.stderr, p


def test_pandas_matplotlib_snippet(cordon, pool):
    code = ("import pandas as pd, numpy as np\n"
            "import matplotlib.pyplot as plt\n"
            "df = pd.DataFrame({'g': np.arange(1000) % 7, "
            "'v': np.random.rand(1000)})\n"
            "m = df.groupby('g').v.mean()\n"
            "m.plot.bar(); plt.savefig('out.png')\n"
            "import os\nprint(len(m), os.path.getsize('out.png') > 1000)\n")
    r = cordon(None, code, warm=pool)
    assert r.out == "7 True\n", r


def test_serve_refuses_path_socket(tmp_path, code_gen):
    p = subprocess.run([str(BUILD / "cordon"), "--serve",
                        str(tmp_path / "sock"), str(code_gen)],
                       capture_output=True, text=True, timeout=30)
    assert p.returncode == 125 and "abstract" in p.stderr, p


def test_status_json_is_json(cordon, pool):
    r = cordon(None, "print(1)\n", warm=pool)
    assert json.loads(json.dumps(r.status))["warm"] is True
    assert os.path.isabs(r.status["workdir"])


# ---- spares: made ahead, set up before the request, waiting ----------

def test_stdin_is_empty_and_args_arrive(cordon, pool):
    # A spare's run reads its arguments on stdin; after them, EOF, as a
    # cold run's /dev/null.
    r = cordon(None, "import sys\nprint(repr(sys.stdin.read()), "
               "sys.argv[1:])\n", "-x", "two words", "", warm=pool)
    assert r.out == "'' ['-x', 'two words', '']\n", r


def test_stdin_option_streams_the_callers_stdin(pool, tmp_path):
    # --stdin: after its arguments the run reads the caller's stdin, to
    # its end, as a cold run with --stdin does (cordon relays it:
    # launcher/feed.c); one that reads none of it ends all the same.
    snip = tmp_path / "s.py"
    snip.write_text("import sys, hashlib\nd = sys.stdin.buffer.read()\n"
                    "print(sys.argv[1:], len(d), "
                    "hashlib.sha256(d).hexdigest())\n")
    idle = tmp_path / "idle.py"
    idle.write_text("print('done')\n")
    data = os.urandom(3 << 20)
    base = [str(BUILD / "cordon"), "--submit", pool, "--stdin", "--quiet"]
    r = subprocess.run(base + [str(snip), "a", "b c"], input=data,
                       capture_output=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("['a', 'b c'] %d %s\n" % (
        len(data), hashlib.sha256(data).hexdigest())).encode()
    r = subprocess.run(base + [str(idle)], input=data, capture_output=True,
                       timeout=120)
    assert (r.returncode, r.stdout) == (0, b"done\n"), r.stderr
    # Without --stdin: empty, as before.
    r = subprocess.run(base[:3] + ["--quiet", str(snip)], input=data,
                       capture_output=True, timeout=120)
    assert r.stdout.startswith(b"[] 0 "), r.stderr


# The warm protocol's numbers and letters, defined once (warm.h), and the
# names the copies had before.
PROTOCOL_HOME = ("launcher/warm/warm.h", "clients/python/cordon/_warm.py")
OLD_COPIES = re.compile(r"\b(SUBMIT_MAX|SUBMIT_WORDS|WARM_REQ_MAX|MAX_REQUEST|"
                        r"MAX_WORDS|READY_WORD = b|LISTENER = \d)")


def _protocol_sources(src_dir):
    files = [f for d in ("launcher/warm", "clients/python/cordon")
             for f in sorted((src_dir / d).glob("*.[ch]")) +
             sorted((src_dir / d).glob("*.py"))]
    files += [src_dir / "launcher" / "run.c", src_dir / "launcher" /
              "cordon.h", src_dir / "tools" / "gen_cpol_py.py"]
    return [f for f in files if f.exists() and
            str(f.relative_to(src_dir)) not in PROTOCOL_HOME]


def test_protocol_is_defined_once(src_dir):
    # The request's limits, the messages' letters and the descriptors'
    # numbers are warm.h's; every other file reads them (C: the names;
    # the template: _cordon_warm; the client: the generated _warm.py).
    header = src_dir / "launcher" / "warm" / "warm.h"
    if not header.exists():
        pytest.skip("the launcher's sources are not in this copy")
    text = header.read_text()
    names = re.findall(r"^#define (WARM_[A-Z_]+) ", text, re.M)
    limits = {int(v) for v in re.findall(
        r"^#define WARM_(?:REQUEST|WORDS)_MAX (\d+)", text, re.M)}
    assert "WARM_REQUEST_MAX" in names and len(limits) == 2, names
    bad = []
    for f in _protocol_sources(src_dir):
        for n, line in enumerate(f.read_text().splitlines(), 1):
            code = line.split("#")[0] if f.suffix == ".py" else line
            where = "%s:%d: %s" % (f.relative_to(src_dir), n, line.strip())
            # A limit's number: in the pools' own files (the client's
            # 1000s are milliseconds).
            if OLD_COPIES.search(code) or re.search(
                    r"#define (%s)\b" % "|".join(names), line) or \
                    (f.parent.name == "warm" and re.search(
                        r"\b(%s)\b" % "|".join(map(str, limits)), code)):
                bad.append(where)
            elif f.suffix == ".py" and f.parent.name == "warm" and \
                    re.search(r"""b["'][RXEGWT-]["']""", code):
                bad.append(where)       # a letter of the protocol
            elif f.suffix == ".c" and f.parent.name == "warm" and \
                    re.search(r"'[RXEGWT-]'", code):
                bad.append(where)
    assert not bad, "the protocol written again outside warm.h:\n" + \
        "\n".join(bad)


@pytest.fixture(scope="module")
def lim():
    """The protocol's numbers as the template reads them (_cordon_warm)."""
    import importlib.util
    spec = importlib.util.spec_from_file_location(
        "_cordon_warm", BUILD / "warm" / "_cordon_warm.so")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _at(cwd, words, size):
    """words, the last one grown so that the request (cwd and words,
    each NUL-ended) is size bytes."""
    used = len(os.fsencode(str(cwd))) + 1 + sum(len(w) + 1 for w in words)
    return words + ["x" * (size - used - 1)]


def test_request_at_the_limit_runs_one_over_is_refused(pool, tmp_path, lim):
    # What --submit sends, the template takes and the spare's cordon
    # takes: the same limits, so a request at them runs whole.
    snip = tmp_path / "s.py"
    snip.write_text("import sys\nprint(len(sys.argv) - 1, "
                    "len(sys.argv[-1]))\n")
    base = [str(BUILD / "cordon"), "--submit", pool]
    words = _at(tmp_path, ["--quiet", str(snip), "a"], lim.REQUEST_MAX)
    r = subprocess.run(base + words, cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "2 %d\n" % len(words[-1]), r.stdout
    r = subprocess.run(base + words[:-1] + [words[-1] + "x"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 125 and "request too long" in r.stderr, r
    words = ["--quiet", str(snip)] + ["a"] * (lim.WORDS_MAX - 2)
    r = subprocess.run(base + words, cwd=tmp_path, capture_output=True,
                       text=True, timeout=120)
    assert (r.returncode, r.stdout) == (0, "%d 1\n" % (lim.WORDS_MAX - 2)), r
    r = subprocess.run(base + words + ["a"], cwd=tmp_path,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 125 and "request too long" in r.stderr, r


def _send(pool, data):
    """One request straight to the template (no --submit): its answer."""
    import array
    import socket
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect("\0" + pool[1:])
    with open(os.devnull, "rb") as null:
        fds = array.array("i", [null.fileno()] * 3)
        s.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, fds)])
    s.settimeout(60)
    said = s.recv(4096)
    s.close()
    return said


def test_template_refuses_over_the_limits(pool, tmp_path, lim):
    # The template's own check, for a caller that is not --submit.
    cwd = os.fsencode(str(tmp_path)) + b"\0"
    said = _send(pool, cwd + b"a\0" * (lim.WORDS_MAX + 1))
    assert said == b"Etoo many words", said
    said = _send(pool, cwd + b"s.py\0" + b"x" * lim.REQUEST_MAX + b"\0")
    assert said == b"Erequest too long", said


def test_status_fd_in_the_snippets_arguments_is_theirs(cordon, pool):
    # Only the options' --status-fd names the status descriptor: the
    # snippet's own arguments reach it as written.
    r = cordon(None, "import sys\nprint(sys.argv[1:])\n", "--status-fd",
               "hello", warm=pool)
    assert r.out == "['--status-fd', 'hello']\n", r


def test_timeout_counts_from_the_request(cordon, pool):
    # Spares wait for requests without a clock: one made well over a
    # second ago still has its whole --timeout 1.
    import time
    cordon(None, "pass\n", warm=pool)
    time.sleep(1.5)
    r = cordon(None, "import time\ntime.sleep(0.3)\nprint('ok')\n",
               opts=["--timeout", "1"], warm=pool)
    assert r.out == "ok\n" and r.status["outcome"] == "exited", r


def test_setup_option_gets_a_spare_of_its_own(cordon, pool):
    # --limit changes the set-up: that run gets a spare made for it, the
    # pool's spares keep the policy's limits.
    big = ("import os\ntry:\n    open('big','wb').write(b'x' * (3 << 20))\n"
           "    print('wrote', os.path.getsize('big'))\n"
           "except OSError as e:\n    print('refused', e.errno)\n")
    r = cordon(None, big, opts=["--limit", "fsize=1M"], warm=pool)
    assert r.status and r.status["warm"] is True, r
    assert r.out.startswith("refused 27") or r.status["outcome"] in \
        ("signaled",), r          # EFBIG, or SIGXFSZ
    r = cordon(None, big, warm=pool)
    assert r.out == "wrote %d\n" % (3 << 20), r


def test_workdir_in_and_out(cordon, pool, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "in.txt").write_text("hello")
    r = cordon(None, "import os\nprint(open('in.txt').read(), "
               "sorted(os.listdir('.')))\nopen('out.txt','w').write('bye')\n",
               opts=["--workdir", str(work)], warm=pool)
    assert r.rc == 0 and r.out.startswith("hello ['in.txt', 'snippet"), r
    assert sorted(os.listdir(work)) == ["in.txt", "out.txt"], r
    assert (work / "out.txt").read_text() == "bye"
    assert r.status["workdir"] == str(work), r.status
    (work / "snippet.py").write_text("mine")
    r = cordon(None, "print(1)\n", opts=["--workdir", str(work)], warm=pool)
    assert r.rc == 125 and "snippet.py" in r.err, r
    assert (work / "snippet.py").read_text() == "mine"


def _pool_processes(name):
    found = []
    for pid in os.listdir("/proc"):
        try:
            with open("/proc/%s/cmdline" % pid, "rb") as f:
                if name.encode() in f.read():
                    found.append(int(pid))
        except OSError:
            pass
    return found


def test_pool_stops_at_stdin_eof_and_sigterm(tmp_path, code_gen):
    import time
    for how in ("eof", "term"):
        name = "@cordon-test-stop-%d-%s" % (os.getpid(), how)
        srv = subprocess.Popen([str(BUILD / "cordon"), "--serve", name,
                                str(code_gen)], stdin=subprocess.PIPE,
                               stdout=subprocess.DEVNULL,
                               stderr=subprocess.PIPE, text=True)
        assert "ready" in srv.stderr.readline()
        (tmp_path / "s.py").write_text("import time\nprint('up', flush=True)"
                                       "\ntime.sleep(30)\n")
        st = tmp_path / "st.json"
        run = subprocess.Popen([str(BUILD / "cordon"), "--submit", name,
                                "--status-file", str(st),
                                str(tmp_path / "s.py")],
                               stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
        # the run is under way in the pool (not still being handed over)
        assert run.stdout.readline() == "up\n", run.stderr.read()
        assert len(_pool_processes(name)) > 3     # template, spares, run
        if how == "eof":
            srv.stdin.close()
        else:
            srv.terminate()
        assert srv.wait(30) == 0
        assert run.wait(30) == 143, run.stderr.read()   # 128 + SIGTERM
        assert json.loads(st.read_text())["outcome"] == "interrupted"
        deadline = time.time() + 10
        while _pool_processes(name) and time.time() < deadline:
            time.sleep(0.1)
        assert _pool_processes(name) == [], "pool processes left"


def test_caller_gone_ends_the_run(tmp_path, pool):
    # A cancelled caller (its cordon --submit killed) ends its run: cordon
    # gets SIGTERM and ends the run's tree ("interrupted").
    import signal
    import time
    (tmp_path / "s.py").write_text("import time\nprint('started', flush=True)"
                                   "\ntime.sleep(60)\n")
    st = tmp_path / "st.json"
    p = subprocess.Popen([str(BUILD / "cordon"), "--submit", pool,
                          "--status-file", str(st), str(tmp_path / "s.py")],
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "started\n"
    p.send_signal(signal.SIGKILL)
    p.wait()
    deadline = time.time() + 20
    while not st.exists() and time.time() < deadline:
        time.sleep(0.1)
    assert json.loads(st.read_text())["outcome"] == "interrupted"


SPARE_BORN_SIGNALLED = r"""
import os, signal, sys
sys.path.insert(0, sys.argv[1])
import _cordon_warm, warm_spare
# The template's SIGTERM handling (warm_serve.Pool): a wake-up pipe.
r, w = os.pipe2(os.O_NONBLOCK)
signal.set_wakeup_fd(w)
signal.signal(signal.SIGTERM, lambda signum, frame: None)
_cordon_warm.run = lambda argv, fd: os._exit(7)     # no cordon: just end
# The pool's SIGTERM for a spare (its caller gone), at its first instant.
os.register_at_fork(after_in_child=lambda: os.kill(os.getpid(),
                                                    signal.SIGTERM))
class Maker:
    opts, blob, at = [], "x.cpol", 0
    def forget(self):
        pass
pid, _ = warm_spare.fork(Maker(), None, False)
_, st = os.waitpid(pid, 0)
try:
    woke = os.read(r, 64)
except BlockingIOError:
    woke = b""
print(os.waitstatus_to_exitcode(st), list(woke))
"""


def test_spare_signalled_at_birth_does_not_stop_the_pool(tmp_path):
    # A spare is a fork of the template: a SIGTERM for it (the pool ends
    # the run of a caller that went away) that comes before it has
    # dropped the template's handler must not reach the template's
    # wake-up pipe, where it reads as the pool's own SIGTERM (found by
    # make soak: the pool stopped, every later caller was refused).
    script = tmp_path / "born.py"
    script.write_text(SPARE_BORN_SIGNALLED)
    out = subprocess.run([PYTHON, str(script), str(BUILD / "warm")],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["7", "[]"], out.stdout + out.stderr


def _children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def _anon_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return None


def test_run_init_lets_go_of_the_template_memory(code_gen, tmp_path):
    # A warm run's init (a fork of its spare, a fork of the maker)
    # unmaps the template's anonymous memory once it has forked the run
    # (initend.c): its exit is on the caller's path.  Then it still
    # reaps the run and reports its status and CPU time.
    import time
    with _serving(code_gen, tag="shed") as (name, srv):
        template = _anon_kib(srv.pid)
        assert template and template > 32 << 10, template
        seen, deadline = {}, time.time() + 30
        while time.time() < deadline:
            spares = [sp for m in _children(srv.pid) for sp in _children(m)]
            inits = [i for sp in spares for i in _children(sp)
                     if _children(i)]           # init, its run forked
            seen = {i: _anon_kib(i) for i in inits}
            if seen and all(a is not None and a < template // 8
                            for a in seen.values()):
                break
            time.sleep(0.1)
        assert seen and all(a is not None and a < template // 8
                            for a in seen.values()), (template, seen)
        (tmp_path / "s.py").write_text(
            "import os, signal, sys\n"
            "for s in range(1, 65):\n"     # no handler runs in init
            "    try: os.kill(1, s)\n"
            "    except OSError: pass\n"
            "sum(range(3 * 10**6))\nsys.exit(7)\n")
        st = tmp_path / "st.json"
        r = subprocess.run([str(BUILD / "cordon"), "--submit", name,
                            "--status-file",
                            str(st), "s.py"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
        status = json.loads(st.read_text())
        assert r.returncode == 7 and status["exit_code"] == 7, \
            (r, status)
        assert status["reason"] == "exited with 7", status
        assert status["user_ms"] + status["sys_ms"] > 0, status


def test_cpu_limit_seen_by_the_shed_init(code_gen, tmp_path):
    # cpu_limit is decided on the CPU time init reads as the run dies
    # (clock_cpu_us), after it let go of the template's memory: a clock
    # read that no longer worked would report a plain SIGXCPU.
    with _serving(code_gen, "--limit", "cpu=1", tag="shedcpu") as (name, _):
        (tmp_path / "s.py").write_text("while True: pass\n")
        st = tmp_path / "st.json"
        r = subprocess.run([str(BUILD / "cordon"), "--submit", name,
                            "--status-file", str(st), "s.py"], cwd=tmp_path,
                           capture_output=True, text=True, timeout=60)
        status = json.loads(st.read_text())
        assert r.returncode == 128 + signal.SIGXCPU, (r, status)
        assert status["outcome"] == "cpu_limit", status
        used = re.search(r"it used (\d+) ms of CPU time, the limit is "
                         r"1000 ms", status["reason"])
        assert used and int(used.group(1)) >= 700, status


def test_policy_refusing_the_template_fails_clearly(tmp_path):
    # A policy that refuses what the interpreter itself needs (here: all
    # but what the command's exec needs) cannot run warm: each run fails
    # with the call named, at once, and never hangs.
    src = pathlib.Path(os.environ.get("CORDON_SRC", ".")) / "tests" / \
        "policies" / "client_stale.policy"
    blob = tmp_path / "stale.cpol"
    subprocess.run([str(BUILD / "cordonc"), "compile", "-o", str(blob),
                    "-I", str(src.parent.parent.parent / "policies"),
                    str(src)], check=True)
    name = "@cordon-test-refusing-%d" % os.getpid()
    srv = subprocess.Popen([str(BUILD / "cordon"), "--serve", name,
                            str(blob)], stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    try:
        assert "ready" in srv.stderr.readline()
        (tmp_path / "s.py").write_text("print(1)\n")
        for _ in range(5):
            p = subprocess.run([str(BUILD / "cordon"), "--submit", name,
                                str(tmp_path / "s.py")],
                               capture_output=True, text=True, timeout=60)
            assert p.returncode == 125, p
    finally:
        srv.terminate()
        srv.wait(30)
    assert "refuses: rt_sigaction" in srv.stderr.read() + p.stderr, p


def test_run_holds_no_descriptor_above_2(cordon, pool):
    # Not the request's pipe (stdin is), not "warm" (3), not the filter's
    # listener (4): closed before the snippet's first line.
    code = ("import os\nopen_fds = []\nfor fd in range(3, 1024):\n"
            "    try:\n        os.fstat(fd); open_fds.append(fd)\n"
            "    except OSError:\n        pass\nprint(open_fds)\n")
    for _ in range(3):
        r = cordon(None, code, warm=pool)
        assert r.out == "[]\n", r


# ---- the real libraries, forked from a template that imported them ----

def test_numpy_threads_and_multiprocessing_as_cold(cordon, pool, code_gen):
    # OpenBLAS's threads (restarted after fork), and a fork-start Pool
    # inside the run: the same results warm as cold.
    code = ("import numpy as np, multiprocessing as mp\n"
            "a = np.random.default_rng(0).random((400, 400))\n"
            "print(round(float((a @ a).sum()), 3))\n"
            "def sq(x):\n    return x * x\n"
            "if __name__ == '__main__':\n"
            "    with mp.get_context('fork').Pool(2) as p:\n"
            "        print(p.map(sq, range(6)))\n")
    cold = cordon(code_gen, code)
    warm = cordon(None, code, warm=pool)
    assert cold.rc == 0 and cold.out.endswith("[0, 1, 4, 9, 16, 25]\n"), \
        cold
    assert (warm.rc, warm.out) == (cold.rc, cold.out), (cold, warm)


def test_torch_cpu_threads_as_cold(cordon, warm_pools):
    # torch preloaded in the template; its intra-op thread pool is made
    # in the run (after the fork); CUDA is never initialised there.
    try:
        subprocess.run(["/usr/bin/python3", "-c", "import torch"],
                       check=True, capture_output=True, timeout=120)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        pytest.skip("no torch for /usr/bin/python3")
    blob = BUILD / "policies" / "monai_infer.cpol"
    code = ("import sys, torch\n"
            "torch.set_num_threads(2)\n"
            "x = torch.arange(90000, dtype=torch.float64).reshape(300, 300)"
            "\nprint(float((x @ x / 1e9).sum()), torch.get_num_threads())\n"
            "print(torch.cuda.is_initialized())\n")
    cold = cordon(blob, code)
    warm = cordon(None, code, warm=warm_pools(blob))
    assert cold.rc == 0 and cold.out.endswith(" 2\nFalse\n"), cold
    assert (warm.rc, warm.out) == (cold.rc, cold.out), (cold, warm)


def test_run_cannot_call_cordon_in_itself(cordon, pool):
    # cordon's code stays mapped in a run (the template's extension); the
    # snippet may not call it (it could only add layers, but it is not
    # the snippet's).
    r = cordon(None, "import sys\nm = sys.modules['_cordon_warm']\n"
               "try:\n    m.run(['cordon', 'x.cpol', 's.py'], 5)\n"
               "except RuntimeError as e:\n    print('refused', e)\n",
               warm=pool)
    assert r.rc == 0 and r.out.startswith("refused"), r


# A run looks for other callers' words: in the template's objects it can
# reach (its stack goes up into the pool that forked it, with the requests
# still waiting then) and anywhere in its own memory (freed buffers of
# requests the template handled before it forked this run's spare).
SNOOP = r'''
import ctypes, os, sys
tag, me = sys.argv[1], sys.argv[2]
needle = tag.encode()
found = set()
f = sys._getframe()
while f:
    pool = f.f_locals.get("self")
    for r in list(getattr(pool, "queue", ())):
        text = repr([getattr(r, k, None) for k in r.__slots__])
        if any(c != me and tag + c in text for c in "0123456789"):
            found.add("a waiting request's words")
    f = f.f_back
libc = ctypes.CDLL(None, use_errno=True)
libc.write.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t]
rd, wr = os.pipe()
def mapped(page):  # write() says EFAULT where nothing is mapped
    if libc.write(wr, page, 1) != 1:
        return False
    os.read(rd, 1)
    return True
anchors = [id(object()), ctypes.addressof(ctypes.create_string_buffer(999))]
seen = set()
for anchor in anchors:
    base = anchor & ~0xfff
    for page in range(max(base - (128 << 20), 4096), base + (128 << 20), 4096):
        if page in seen or not mapped(page):
            continue
        seen.add(page)
        data = ctypes.string_at(page, 4096 + len(needle) + 1
                                if mapped(page + 4096) else 4096)
        at = data.find(needle)
        while at >= 0:
            c = data[at + len(needle):at + len(needle) + 1]
            if c.isdigit() and c != me.encode():
                found.add("another caller's argument in memory")
            at = data.find(needle, at + 1)
print(sorted(found))
'''


def test_runs_never_see_other_callers_words(tmp_path, pool):
    # Eight callers at once (some wait for spares made while others
    # wait), then eight more after them: no run finds the others' words.
    snoop = tmp_path / "snoop.py"
    snoop.write_text(SNOOP)
    tag = "MARK%x-" % int.from_bytes(os.urandom(6), "big")
    for batch in ("0123", "4567"):
        procs = [subprocess.Popen(
            [str(BUILD / "cordon"), "--submit", pool, "--timeout", "120",
             str(snoop), tag, me, tag + me], stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True) for me in batch * 2]
        for p in procs:
            out, err = p.communicate(timeout=300)
            assert p.returncode == 0 and out == "[]\n", (out, err)


# ---- who is the pool, who is the caller --------------------------------

IMPOSTOR = r'''
import array, socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.bind("\0" + sys.argv[1][1:])
s.listen(1)
print("listening", flush=True)
c, _ = s.accept()
c.settimeout(30)
fds = array.array("i")
try:
    data, anc, _, _ = c.recvmsg(65536, socket.CMSG_SPACE(16 * 4))
except OSError:
    data, anc = b"", []
for level, kind, blob in anc:
    if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
        fds.frombytes(blob[:len(blob) - len(blob) % 4])
print("got", len(data), "bytes", len(fds), "fds", flush=True)
try:
    c.sendall(b"X" + (0).to_bytes(4, "little"))   # "it ran, status 0"
except OSError:
    pass
'''


@contextlib.contextmanager
def impostor(name):
    """IMPOSTOR listening on name as uid 65534 (needs root); yields a
    function that waits for its end and gives what it got (its line)."""
    srv = subprocess.Popen(["/usr/bin/python3", "-c", IMPOSTOR, name],
                           user=65534, cwd="/",
                           group=65534, extra_groups=[],
                           stdout=subprocess.PIPE, text=True)

    def said():
        got = srv.stdout.read()
        assert srv.wait(30) == 0
        return got
    try:
        assert srv.stdout.readline() == "listening\n"
        yield said
    finally:
        if srv.poll() is None:
            srv.kill()
            srv.wait()


def test_submit_refuses_a_pool_of_another_uid(tmp_path):
    # A process of another uid that holds the name first is no pool of
    # ours: --submit checks the listener's credentials before it sends
    # anything (no descriptor, no word) and does not take its status.
    if os.geteuid() != 0:
        pytest.skip("needs root: the impostor runs as another uid (65534)")
    name = "@cordon-test-impostor-%d" % os.getpid()
    with impostor(name) as got:
        (tmp_path / "s.py").write_text("print(1)\n")
        p = subprocess.run([str(BUILD / "cordon"), "--submit", name,
                            str(tmp_path / "s.py")], capture_output=True,
                           text=True, timeout=30)
        said = got()
    assert p.returncode == 125, p
    assert "uid 65534" in p.stderr and "not" in p.stderr, p
    assert said == "got 0 bytes 0 fds\n", said


def test_pool_refuses_a_caller_of_another_uid(tmp_path, pool):
    # The other direction: a root pool takes no request from uid 65534
    # (the caller may trust root's pool; the pool does not serve it).
    if os.geteuid() != 0:
        pytest.skip("needs root: the caller runs as another uid (65534)")
    # The checkout (and pytest's tmp_path) may be where that uid cannot
    # enter: its copy of cordon (with cordon-pool, which runs --submit)
    # and the snippet lie in a folder it reads.
    import shutil
    import tempfile
    d = pathlib.Path(tempfile.mkdtemp(prefix="cordon-test-uid."))
    try:
        d.chmod(0o755)
        shutil.copy(BUILD / "cordon", d / "cordon")
        shutil.copy(BUILD / "cordon-pool", d / "cordon-pool")
        (d / "s.py").write_text("print('ran')\n")
        (d / "s.py").chmod(0o644)
        p = subprocess.run([str(d / "cordon"), "--submit", pool,
                            str(d / "s.py")], user=65534, cwd="/",
                           group=65534, extra_groups=[],
                           capture_output=True, text=True, timeout=30)
    finally:
        shutil.rmtree(d)
    assert p.returncode == 125 and "refused" in p.stderr, p
    assert "ran" not in p.stdout, p


# ---- options only tighten: policy, pool, request -----------------------

@contextlib.contextmanager
def _serving(blob, *opts, tag="opts"):
    """A pool of blob with the pool's own options; stopped at the end."""
    name = "@cordon-test-%s-%d-%s" % (tag, os.getpid(),
                                      os.urandom(4).hex())
    srv = subprocess.Popen([str(BUILD / "cordon"), *opts, "--serve", name,
                            str(blob)], stdin=subprocess.PIPE,
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    try:
        line = srv.stderr.readline()
        assert "ready" in line, line + srv.stderr.read()
        yield name, srv
    finally:
        if srv.poll() is None:
            srv.terminate()
        try:
            srv.wait(30)
        except subprocess.TimeoutExpired:
            srv.kill()
            srv.wait()


WRITE_10M = ("import os\ntry:\n"
             "    with open('big', 'wb') as f:\n"
             "        for _ in range(10):\n"
             "            f.write(b'x' * (1 << 20)); f.flush()\n"
             "    print('wrote', os.path.getsize('big'))\n"
             "except OSError as e:\n    print('refused', e.errno)\n")


NICE = "import os\nprint(os.getpriority(os.PRIO_PROCESS, 0))\n"


def _niced(n):
    # --nice adds to the nice value cordon starts with (cordon(1)), capped
    # at 19: the suite may itself run under nice(1).
    return "%d\n" % min(19, os.getpriority(os.PRIO_PROCESS, 0) + n)


def test_request_cannot_loosen_the_pools_limit(cordon, code_gen):
    # The pool's --limit disk=2M holds for a request that asks 64M: the
    # tighter value of the two, in the run and in its status.
    with _serving(code_gen, "--limit", "disk=2M") as (name, _):
        r = cordon(None, WRITE_10M, opts=["--limit", "disk=64M"], warm=name)
        assert r.status and r.status["warm"] is True, r
        assert r.status["bounds"]["disk"]["limit"] == 2 << 20, r.status
        assert not r.out.startswith("wrote"), r
        r = cordon(None, WRITE_10M, opts=["--limit", "disk=1M"], warm=name)
        assert r.status["bounds"]["disk"]["limit"] == 1 << 20, r.status
        assert not r.out.startswith("wrote"), r


def test_request_cannot_loosen_the_pools_memory(cordon, code_gen):
    with _serving(code_gen, "--limit", "memory=300M") as (name, _):
        r = cordon(None, "print(1)\n", opts=["--limit", "memory=2G"],
                   warm=name)
        assert r.status["bounds"]["memory"]["limit"] == 300 << 20, r.status
        r = cordon(None, "print(1)\n", warm=name)
        assert r.status["bounds"]["memory"]["limit"] == 300 << 20, r.status


def test_pool_cannot_loosen_the_policy(cordon, code_gen):
    # code_gen (base/python.policy): memory 4G, disk 1G, pids 256, files
    # 20000, fsize 256M, timeout 120 s.  A pool's larger values are the policy's.
    with _serving(code_gen, "--limit", "memory=64G", "--limit", "disk=8G",
                  "--limit", "pids=100000", "--limit", "files=10000000",
                  "--timeout", "100000") as (name, _):
        r = cordon(None, "import resource\nprint(resource.getrlimit("
                   "resource.RLIMIT_FSIZE)[0])\n",
                   opts=["--limit", "fsize=1T"], warm=name)
        assert r.status["bounds"]["memory"]["limit"] == 4 << 30, r.status
        assert r.status["bounds"]["disk"]["limit"] == 1 << 30, r.status
        assert r.status["bounds"]["pids"]["limit"] == 256, r.status
        assert r.status["bounds"]["files"]["limit"] == 20000, r.status
        assert r.out == "%d\n" % (256 << 20), r


def test_request_cannot_loosen_the_pools_timeout_output_nice(cordon,
                                                             code_gen):
    with _serving(code_gen, "--timeout", "2", "--output", "1K", "--nice",
                  "10") as (name, _):
        r = cordon(None, "import time\ntime.sleep(60)\n",
                   opts=["--timeout", "100"], warm=name, timeout=60)
        assert r.status["outcome"] == "timeout", r
        r = cordon(None, "import time\ntime.sleep(60)\n", warm=name,
                   timeout=60)
        assert r.status["outcome"] == "timeout", r
        r = cordon(None, "print('x' * 100000)\n", opts=["--output", "1M"],
                   warm=name)
        assert r.status["outcome"] == "output_limit", r
        r = cordon(None, NICE, opts=["--nice", "1"], warm=name)
        assert r.out == _niced(10) != _niced(1), r


def test_repeated_options_tighten(cordon, code_gen):
    # Cold as warm: an option given twice holds at its tighter value.
    r = cordon(code_gen, WRITE_10M, opts=["--limit", "disk=2M", "--limit",
                                          "disk=64M"])
    assert r.status["bounds"]["disk"]["limit"] == 2 << 20, r.status
    assert not r.out.startswith("wrote"), r
    r = cordon(code_gen, NICE, opts=["--nice", "7", "--nice", "3"])
    assert r.out == _niced(7) != _niced(3), r
    r = cordon(code_gen, "import time\ntime.sleep(60)\n",
               opts=["--timeout", "1", "--timeout", "100"], timeout=60)
    assert r.status["outcome"] == "timeout", r


# ---- what runs of one pool share, and what they must not ---------------

def test_runs_do_not_share_random_state(cordon, pool):
    # code_gen preloads numpy: its global generator was seeded once, in
    # the template; each run reseeds it (and Python's random) from the
    # kernel, so two runs never draw the same numbers.
    code = ("import random, numpy\n"
            "print(random.random(), numpy.random.random(), "
            "numpy.random.randint(1 << 62))\n")
    seen = []
    for _ in range(3):
        r = cordon(None, code, warm=pool)
        assert r.rc == 0, r
        seen.append(r.out.split())
    for drawn in zip(*seen):          # each generator, over the runs
        assert len(set(drawn)) == 3, seen


def test_torch_runs_do_not_share_random_state(cordon, warm_pools):
    try:
        subprocess.run(["/usr/bin/python3", "-c", "import torch"],
                       check=True, capture_output=True, timeout=120)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired):
        pytest.skip("no torch for /usr/bin/python3")
    name = warm_pools(BUILD / "policies" / "monai_infer.cpol")
    code = ("import torch\nprint(torch.initial_seed(), torch.rand(1).item(),"
            " torch.cuda.is_initialized())\n")
    seen = [cordon(None, code, warm=name).out.split() for _ in range(3)]
    assert all(s[2] == "False" for s in seen), seen
    for drawn in list(zip(*seen))[:2]:
        assert len(set(drawn)) == 3, seen


# ---- the template's own directory ---------------------------------------

def _template_dir(pid):
    """The template's directory: warm.py's fourth argument."""
    with open("/proc/%d/cmdline" % pid, "rb") as f:
        words = f.read().split(b"\0")
    at = [i for i, w in enumerate(words) if w.endswith(b"/warm.py")]
    assert at, words
    return pathlib.Path(os.fsdecode(words[at[0] + 4]))


def test_pool_removes_its_directory_at_stop(cordon, code_gen):
    for how in ("eof", "term"):
        with _serving(code_gen, tag="dir") as (name, srv):
            home = _template_dir(srv.pid)
            assert home.is_dir() and str(home).startswith("/tmp/"), home
            assert cordon(None, "print(1)\n", warm=name).out == "1\n"
            if how == "eof":
                srv.stdin.close()
            else:
                srv.terminate()
            assert srv.wait(30) == 0, srv.stderr.read()
        assert not home.exists(), (how, sorted(home.iterdir()))


def test_next_pool_removes_a_killed_pools_directory(code_gen):
    import signal
    import time
    with _serving(code_gen, tag="killed") as (name, srv):
        home = _template_dir(srv.pid)
        (home / "cache").mkdir()            # what imports may leave
        (home / "cache" / "f").write_text("x")
        srv.send_signal(signal.SIGKILL)
        srv.wait()
    assert home.is_dir()
    # its spares die by their parent-death signal, and hold the folder's
    # lock until they are gone (slow under ASan): only then is the pool
    # abandoned
    end = time.monotonic() + 60
    while _pool_processes(name) and time.monotonic() < end:
        time.sleep(0.05)
    assert _pool_processes(name) == [], "the killed pool's spares stay"
    with _serving(code_gen, tag="next") as (_, srv):
        other = _template_dir(srv.pid)
        assert not home.exists(), sorted(home.iterdir())
        assert other.is_dir()               # its own is kept, while it runs



def test_template_forks_only_its_maker(code_gen, tmp_path):
    # The template forks once, its maker, which makes every spare (and
    # reaps it): the template's pages written on the request path stay
    # its own, where a fork per spare shared them again.  A spare made
    # for a request's own set-up (--limit) comes from the maker too.
    (tmp_path / "e.py").write_text("print('ran')\n")
    with _serving(code_gen, tag="maker") as (name, srv):
        makers = set()
        for opts in ([], [], ["--limit", "memory=256M"], []):
            r = subprocess.run([str(BUILD / "cordon"), "--submit", name,
                                *opts, "e.py"], cwd=tmp_path,
                               capture_output=True, text=True, timeout=60)
            assert r.returncode == 0 and r.stdout == "ran\n", r
            kids = _children(srv.pid)
            assert len(kids) == 1, kids
            makers.add(kids[0])
            assert _children(kids[0]), "the spares are the maker's"
        assert len(makers) == 1, makers


def test_maker_gone_stops_the_pool(code_gen):
    # The maker's death (SIGKILL) ends its spares (their parent-death
    # signal) and stops the pool with a clear error: no caller is left
    # waiting on a pool that cannot make runs.
    with _serving(code_gen, tag="makergone") as (name, srv):
        maker = _children(srv.pid)[0]
        spares = _children(maker)
        assert spares
        os.kill(maker, signal.SIGKILL)
        assert srv.wait(30) == 125
        assert "its maker has ended" in srv.stderr.read()
        for pid in spares:
            try:
                with open("/proc/%d/status" % pid) as f:
                    assert "\nState:\tZ" in f.read(), pid
            except FileNotFoundError:
                pass


MAKER_SAID_TAKEN = r"""
import collections, socket, sys
sys.path.insert(0, sys.argv[1])
import warm_maker, warm_serve
# A select's events: a run's end (its "exit") made a spare, whose making
# read the maker's pending messages (MADE, and an ENDED kept for later);
# the maker's socket was reported readable in the same select: its event
# finds nothing to read, and must not wait for a message.
pool = warm_serve.Pool.__new__(warm_serve.Pool)
pool.maker, other = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
pool.pids, pool.ends = {}, collections.deque()
pool.maker_ended()
print("returned", len(pool.ends))
"""


def test_maker_event_after_its_messages_were_taken(tmp_path):
    script = tmp_path / "taken.py"
    script.write_text(MAKER_SAID_TAKEN)
    try:
        out = subprocess.run([PYTHON, str(script), str(BUILD / "warm")],
                             capture_output=True, text=True, timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail("the maker's event waited for a message already taken")
    assert out.returncode == 0 and out.stdout == "returned 0\n", \
        out.stdout + out.stderr
