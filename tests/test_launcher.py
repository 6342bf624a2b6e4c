"""cordon, the launcher: command line, exit codes, status report, workdir,
supervision (timeout, output cap, tree kill, signals), limits, and the
refusals that happen before anything runs (bad blobs, missing Landlock).
Run as root and as uid 65534 by tests/run-pytest.sh."""
import json
import os
import pathlib
import signal
import struct
import subprocess
import sys
import time

import pytest

from conftest import BUILD, blob_patch

CORDON = str(BUILD / "cordon")
KEYS = ["cordon", "policy", "blob", "outcome", "exit_code", "signal",
        "reason", "stdout_bytes", "stderr_bytes", "output_truncated",
        "output_dropped", "wall_ms", "user_ms", "sys_ms", "max_rss_kb",
        "workdir", "kept_workdir", "kept_reason", "copyback", "egress",
        "network_refused",
        "network_refused_dropped", "bounds", "denials", "denials_dropped",
        "denials_rate_limited", "denials_unobserved", "denials_reason",
        "landlock_denials", "landlock_denials_dropped", "landlock_denials_by",
        "landlock_denials_reason", "layers"]
LAYER_KEYS = ["no_new_privs", "seccomp", "landlock_abi", "landlock_errata",
              "landlock_fs", "landlock_net", "scope_abstract_unix",
              "scope_signal", "caps_dropped", "rlimits", "env",
              "fds_closed", "new_session", "namespaces", "private_tmp",
              "private_shm", "workdir_noexec"]


@pytest.fixture(scope="module")
def blob(launcher_blobs):
    return launcher_blobs("launcher-escape")


def alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie is dead for our purpose.
    try:
        return pathlib.Path("/proc/%d/stat" % pid).read_text().split(
            ") ")[1][0] != "Z"
    except OSError:
        return False


def test_benign_run_and_status(cordon, blob):
    r = cordon(blob, "import sys\nprint('hello', sys.argv[1:])\n"
               "sys.stderr.write('err')\n", "a b", "-x")
    assert r.rc == 0, r
    assert r.out == "hello ['a b', '-x']\n"
    assert r.err == "err"
    st = r.status
    assert list(st) == KEYS
    assert list(st["layers"]) == LAYER_KEYS
    assert st["cordon"] == 1 and st["policy"] == "launcher-escape"
    assert len(st["blob"]) == 64 and st["outcome"] == "exited"
    assert st["stdout_bytes"] == len(r.out) and st["stderr_bytes"] == 3
    assert st["exit_code"] == 0 and st["signal"] == 0
    assert not st["output_truncated"] and st["max_rss_kb"] > 1000
    L = st["layers"]
    assert L["no_new_privs"] and L["seccomp"] and L["caps_dropped"]
    assert L["landlock_abi"] >= 6 and L["landlock_fs"] and L["scope_signal"]
    # With namespaces, the run has its own PID namespace and init.
    if "user" in L["namespaces"]:
        assert "pid" in L["namespaces"] and "net" in L["namespaces"], L
    assert not os.path.exists(st["workdir"]), "workdir not removed"


def test_exit_code_and_stdin_snippet(cordon, blob):
    r = cordon(blob, "", input="import sys; sys.exit(7)\n")
    assert r.rc == 7 and r.status["outcome"] == "exited", r


@pytest.mark.parametrize("opts", [[], ["--no-namespaces"]],
                         ids=["ns", "no-ns"])
def test_killed_by_signal(cordon, blob, opts):
    # With a PID namespace the snippet is not its init (init ignores its
    # own signals): the signal, 128+N and the rusage come through init.
    r = cordon(blob, "import os, signal\nprint(os.getpid(), flush=True)\n"
               "os.kill(os.getpid(), signal.SIGUSR1)", opts=opts)
    assert r.rc == 128 + signal.SIGUSR1, r
    assert r.status["outcome"] == "signaled"
    assert r.status["signal"] == signal.SIGUSR1
    assert r.status["max_rss_kb"] > 1000 and r.out.strip() != "1"
    if "pid" in r.status["layers"]["namespaces"]:
        assert r.out.strip() == "2", r


def test_status_fd(tmp_path, blob):
    (tmp_path / "s.py").write_text("print(1)")
    rd, wr = os.pipe()
    p = subprocess.run([CORDON, "--status-fd", str(wr), str(blob),
                        str(tmp_path / "s.py")], pass_fds=(wr,),
                       capture_output=True)
    os.close(wr)
    line = os.read(rd, 65536)
    assert p.returncode == 0
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert json.loads(line)["outcome"] == "exited"


def test_status_fd_stdio_refused(tmp_path, blob):
    (tmp_path / "s.py").write_text("print(1)")
    for fd in ("0", "1", "2"):
        p = subprocess.run([CORDON, "--status-fd", fd, str(blob),
                            str(tmp_path / "s.py")], capture_output=True,
                           text=True)
        assert p.returncode == 125 and p.stdout == "", p
        assert p.stderr.startswith("cordon: --status-fd %s: " % fd), p
        assert "use 3 or above" in p.stderr
    # A descriptor that is not open (a pipe of cordon's could land there).
    p = subprocess.run([CORDON, "--status-fd", "987", str(blob),
                        str(tmp_path / "s.py")], capture_output=True,
                       text=True)
    assert p.returncode == 125 and "not an open descriptor" in p.stderr, p
    # A descriptor is a number, not a size: "1K" is not fd 1024, nor is
    # "3 " or "+3" fd 3 (cordon's own fd 3 would be taken otherwise).
    for fd in ("1K", "3 ", "+3", "0x3", ""):
        p = subprocess.run([CORDON, "--status-fd", fd, str(blob),
                            str(tmp_path / "s.py")], capture_output=True,
                           text=True)
        assert p.returncode == 125 and "bad value for --status-fd" in \
            p.stderr, (fd, p)


def test_timeout(cordon, blob):
    t = time.monotonic()
    r = cordon(blob, "while True: pass", opts=["--timeout", "1"])
    assert r.rc == 124, r
    assert r.status["outcome"] == "timeout"
    assert time.monotonic() - t < 30     # ended, on a loaded machine too


def test_timeout_cannot_loosen(cordon, blob):
    # The policy says 30 s; --timeout 1000 must not extend it, and a
    # shorter one wins.  (Checked through the report of a short run.)
    r = cordon(blob, "import time; time.sleep(3)", opts=["--timeout", "0.5"])
    assert r.rc == 124, r


def test_caller_limits_never_loosen(cordon, blob):
    # The policy says as 2G, nofile 256, nproc 256, cpu 20s.  A caller
    # that started cordon with tighter soft (and some tighter hard)
    # limits must find them at most as loose inside (threat #26).
    import resource
    inf = resource.RLIM_INFINITY
    mine = {"AS": (10**9, inf), "NOFILE": (64, 128), "NPROC": (100, 200),
            "CPU": (5, 10)}

    def tighten():
        for name, (soft, hard) in mine.items():
            res = getattr(resource, "RLIMIT_" + name)
            cur = resource.getrlimit(res)[1]    # RLIM_INFINITY is -1
            if cur != inf and (hard == inf or cur < hard):
                hard = cur
            resource.setrlimit(res, (soft if hard == inf else
                                     min(soft, hard), hard))

    code = ("import resource\nfor n in %r:\n"
            "    print(n, *resource.getrlimit(getattr(resource, "
            "'RLIMIT_' + n)))" % sorted(mine))
    r = cordon(blob, code, preexec_fn=tighten)
    assert r.rc == 0, r
    got = {line.split()[0]: tuple(int(v) for v in line.split()[1:])
           for line in r.out.splitlines()}
    policy = {"AS": 2 << 30, "NOFILE": 256, "NPROC": 256, "CPU": 21}
    for name, (soft, hard) in mine.items():
        gsoft, ghard = got[name]
        assert gsoft != inf and gsoft <= soft, (name, got, r)
        bound = policy[name] if hard == inf else min(hard, policy[name])
        assert ghard != inf and ghard <= bound, (name, got)
        assert gsoft <= ghard
    # The CPU grace second survives a tighter hard limit: soft < hard.
    assert got["CPU"][0] < got["CPU"][1], got


def test_output_cap_ends_the_run(cordon, blob):
    # Past the cap the run ends (output_limit), long before its timeout;
    # what was written past it is counted, never delivered.
    code = ("import sys\nfor i in range(2000):\n"
            "    sys.stdout.write('x' * 4096)\n"
            "import time; time.sleep(60)\nprint('END', file=sys.stderr)")
    t = time.monotonic()
    r = cordon(blob, code, opts=["--output", "1000", "--quiet"])  # no note
    assert time.monotonic() - t < 20, r
    assert r.rc == 128 + signal.SIGKILL, r
    assert r.status["outcome"] == "output_limit", r
    assert len(r.out) + len(r.err) == 1000 and "END" not in r.err
    assert r.status["output_truncated"]
    assert r.status["stdout_bytes"] > 1000


NSOPTS = pytest.mark.parametrize("nsopts", [[], ["--no-namespaces"]],
                                ids=["ns", "no-ns"])


@NSOPTS
def test_cpu_limit_reason(cordon, blob, nsopts):
    r = cordon(blob, "while True: pass", opts=["--limit", "cpu=1", *nsopts])
    assert r.rc == 128 + signal.SIGXCPU, r
    assert r.status["outcome"] == "cpu_limit"
    # The kernel's tick sample runs ahead of rusage on a loaded machine:
    # cordon counts 1 s less 100 ms and 20% as reaching it (cordon(1)).
    assert r.status["user_ms"] + r.status["sys_ms"] >= 700, r


@NSOPTS
def test_fsize_is_a_plain_signal(cordon, blob, nsopts):
    # The kernel's SIGXFSZ looks like a self-sent one: cordon cannot tell
    # them apart, so it reports the signal, not "fsize_limit".
    code = ("import signal\nsignal.signal(signal.SIGXFSZ, signal.SIG_DFL)\n"
            "open('big', 'wb').write(b'x' * (2 << 20))\n")
    r = cordon(blob, code, opts=["--limit", "fsize=1M", *nsopts])
    assert r.rc == 128 + signal.SIGXFSZ, r
    assert r.status["outcome"] == "signaled"
    assert r.status["signal"] == signal.SIGXFSZ
    assert "file size limit" in r.status["reason"]


@NSOPTS
def test_seccomp_reason(cordon, blob, nsopts):
    # x32 numbers are killed by the filter: never let through; the
    # report says SIGSYS and does not claim more than cordon knows.
    code = ("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
            "libc.syscall(0x40000000 | 39)\nprint('ESCAPED')")
    r = cordon(blob, code, opts=nsopts)
    assert "ESCAPED" not in r.out
    assert r.rc == 128 + signal.SIGSYS, r
    if nsopts:
        assert r.status["outcome"] == "signaled", r
        assert r.status["signal"] == signal.SIGSYS, r
    else:
        # The run's init handed cordon the filter's listener.
        assert r.status["outcome"] == "seccomp", r
        assert "x32 system call 39" in r.status["reason"], r


def test_usage_errors():
    for args in ([], ["--timeout", "x", "a", "b"], ["--bogus", "a", "b"],
                 ["--limit", "nosuch=1", "a", "b"], ["only-one"]):
        p = subprocess.run([CORDON, *args], capture_output=True, text=True)
        assert p.returncode == 125, args
        assert "usage: cordon" in p.stderr


PRIO_SNIPPET = ("import os, time\n"
                "print(os.getpriority(os.PRIO_PROCESS, 0),"
                " os.sched_getscheduler(0), flush=True)\n"
                "time.sleep(1)\n")


def proc_prio(pid):
    """(nice, scheduling policy) of pid, from /proc/PID/stat."""
    f = pathlib.Path("/proc/%d/stat" % pid).read_text().rsplit(")", 1)[1]
    f = f.split()
    return int(f[16]), int(f[38])       # fields 19 and 41 (man 5 proc)


@NSOPTS
@pytest.mark.parametrize("prio", [[], ["--nice", "7"], ["--idle"],
                                  ["--nice", "19", "--idle"]],
                         ids=["none", "nice7", "idle", "nice19-idle"])
def test_priority_lowered_for_the_run_only(blob, tmp_path, nsopts, prio):
    """--nice N adds N to the run's nice value, --idle puts it in
    SCHED_IDLE; the snippet sees it, cordon itself keeps its own (read
    from /proc while the snippet sleeps)."""
    base = os.getpriority(os.PRIO_PROCESS, 0)
    mine = os.sched_getscheduler(0)
    nice = min(19, base + (int(prio[1]) if "--nice" in prio else 0))
    policy = os.SCHED_IDLE if "--idle" in prio else mine
    snip = tmp_path / "prio.py"
    snip.write_text(PRIO_SNIPPET)
    p = subprocess.Popen([CORDON, *nsopts, *prio, str(blob), str(snip)],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        line = p.stdout.readline()
        supervisor = proc_prio(p.pid)
    finally:
        out, err = p.communicate(timeout=60)
    assert line.split() == [str(nice), str(policy)], (line, err)
    assert supervisor == (base, mine)
    assert p.returncode == 0, err


def test_priority_cannot_be_raised_back(cordon, policies_dir):
    """Under a shipped policy the snippet cannot undo --nice or --idle."""
    code = ("import os\n"
            "for f in (lambda: os.setpriority(os.PRIO_PROCESS, 0, 0),\n"
            "          lambda: os.sched_setscheduler(0, os.SCHED_OTHER,\n"
            "                                        os.sched_param(0))):\n"
            "    try:\n"
            "        f()\n"
            "        print('raised')\n"
            "    except PermissionError:\n"
            "        print('refused')\n"
            "print(os.getpriority(os.PRIO_PROCESS, 0),"
            " os.sched_getscheduler(0))\n")
    r = cordon(policies_dir / "code_gen.cpol", code,
               opts=["--nice", "5", "--idle"])
    assert r.rc == 0, r
    nice = min(19, os.getpriority(os.PRIO_PROCESS, 0) + 5)
    assert r.out.split() == ["refused", "refused", str(nice),
                             str(os.SCHED_IDLE)], r


@pytest.mark.parametrize("value", ["-1", "20", "x", "", "1K", "+3", " 3",
                                   "3.0", "99999999999999999999"])
def test_nice_bad_values_refused(blob, value):
    p = subprocess.run([CORDON, "--nice", value, str(blob), "/dev/null"],
                       capture_output=True, text=True)
    assert p.returncode == 125, (value, p)
    assert "bad value for --nice" in p.stderr and "usage: cordon" in p.stderr


def test_help_matches_man_synopsis():
    p = subprocess.run([CORDON, "--help"], capture_output=True, text=True)
    assert p.returncode == 0 and p.stdout.startswith("usage: cordon")
    v = subprocess.run([CORDON, "--version"], capture_output=True, text=True)
    assert v.returncode == 0 and v.stdout.startswith("cordon ")


def test_check_runs_nothing(tmp_path, blob):
    p = subprocess.run([CORDON, "--check", str(blob)], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert "landlock" in p.stdout and "seccomp" in p.stdout


@NSOPTS
def test_not_found_127(cordon, launcher_blobs, nsopts):
    r = cordon(launcher_blobs("launcher-notfound"), "print(1)", opts=nsopts)
    assert r.rc == 127, r
    assert "nonexistent" in r.err and r.err.count("\n") == 1, r
    assert r.status["outcome"] == "error" and r.status["exit_code"] == 127


def test_keep_workdir(cordon, blob):
    r = cordon(blob, "open('out.txt', 'w').write('data')",
               opts=["--keep-workdir"])
    assert r.rc == 0, r
    wd = pathlib.Path(r.status["workdir"])
    try:
        assert r.status["kept_workdir"]
        assert str(wd) in r.err
        assert (wd / "out.txt").read_text() == "data"
        assert wd.stat().st_mode & 0o777 == 0o700
    finally:
        subprocess.run(["rm", "-rf", str(wd)])


def test_given_workdir_kept(cordon, blob, tmp_path):
    wd = tmp_path / "wd"
    wd.mkdir()
    (wd / "input.txt").write_text("in")
    r = cordon(blob, "open('out.txt','w').write(open('input.txt').read())",
               opts=["--workdir", str(wd)])
    assert r.rc == 0, r
    assert (wd / "out.txt").read_text() == "in"
    assert sorted(os.listdir(wd)) == ["input.txt", "out.txt"]


def test_cleanup_does_not_follow_planted_links(cordon, blob, tmp_path):
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    code = ("import os\nos.symlink(%r, 'link')\nos.mkdir('d')\n"
            "os.symlink(%r, 'd/link2')\nos.symlink(%r, 'f')\n"
            "os.makedirs('a/b/c')\ntry:\n    os.chmod('a/b', 0)\n"
            "except OSError:\n    pass\nprint('planted')"
            % (str(victim), str(victim), str(victim / "keep.txt")))
    r = cordon(blob, code)
    assert r.rc == 0 and "planted" in r.out, r
    assert (victim / "keep.txt").read_text() == "precious"
    assert not os.path.exists(r.status["workdir"])


DEEP = """
import os, sys
victim = sys.argv[1]
for i in range(int(sys.argv[2])):
    os.mkdir('d'); os.chdir('d')
open('f', 'w').write('x')
os.symlink(victim, 'dirlink')
os.symlink(victim + '/keep.txt', 'filelink')
os.mkdir('u'); os.mkdir('u/v'); open('u/v/g', 'w').write('y')
os.symlink(victim, 'u/v/link')
for p, m in (('u/v', 0), ('u', 0o500)):   # unreadable, unwritable
    fd = os.open(p, os.O_RDONLY | os.O_DIRECTORY)
    os.fchmod(fd, m)
    os.close(fd)
print('planted')
"""


@pytest.mark.parametrize("depth", [300, 5000])
def test_cleanup_has_no_depth_limit(cordon, blob, tmp_path, depth):
    # Deeper than any descriptor-per-level remover goes (the old cap was
    # 256): every level, unreadable folders and planted links included,
    # is removed, and nothing outside is touched (threat #30).
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "keep.txt").write_text("precious")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    r = cordon(blob, DEEP, str(victim), str(depth),
               env={**os.environ, "TMPDIR": str(tmp)})
    assert r.rc == 0 and "planted" in r.out, r
    assert not r.status["kept_workdir"], r
    assert r.status["kept_reason"] is None, r
    assert os.listdir(tmp) == [], r
    assert "cordon:" not in r.err, r
    assert (victim / "keep.txt").read_text() == "precious"


LEFT = """
import os, time
os.makedirs('sub/mnt')
print('ready', flush=True)
for _ in range(600):
    if os.path.exists('go'):
        break
    time.sleep(0.05)
print('done')
"""


def test_cleanup_leftover_is_exit_125(blob, tmp_path):
    # Something cordon cannot remove (here a mount point placed from
    # outside): exit 125, "kept_workdir": true with the reason, and
    # stderr names what is left.  Never exit 0 with leftovers.
    if os.geteuid() != 0:
        pytest.skip("placing an unremovable mount point needs root")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    status = tmp_path / "status.json"
    (tmp_path / "s.py").write_text(LEFT)
    p = subprocess.Popen([CORDON, "--status-file", str(status), str(blob),
                          str(tmp_path / "s.py")], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True,
                         env={**os.environ, "TMPDIR": str(tmp)})
    mnt = None
    try:
        assert p.stdout.readline() == "ready\n"
        (wd,) = tmp.iterdir()
        mnt = wd / "sub" / "mnt"
        m = subprocess.run(["mount", "-t", "tmpfs", "none", str(mnt)],
                           capture_output=True, text=True)
        if m.returncode != 0:
            pytest.skip("cannot mount a tmpfs here: " + m.stderr)
        (wd / "go").write_text("")
        out, err = p.communicate(timeout=60)
        st = json.loads(status.read_text())
        assert p.returncode == 125, (out, err, st)
        assert st["outcome"] == "exited" and st["exit_code"] == 0, st
        assert st["kept_workdir"] is True, st
        assert "mnt" in st["kept_reason"], st
        assert "1 entry left" in err and "mnt" in err and \
            "busy" in err, err
        assert mnt.is_dir() and not (wd / "go").exists()
    finally:
        if p.poll() is None:
            p.kill()
            p.wait()
        if mnt is not None:
            subprocess.run(["umount", str(mnt)])


def test_setsid_double_fork_leaves_nothing(cordon, blob, tmp_path):
    pidfile = tmp_path / "wd"
    pidfile.mkdir()
    code = ("import os, time\nif os.fork() == 0:\n    os.setsid()\n"
            "    if os.fork() == 0:\n"
            "        open('pid', 'w').write(str(os.getpid()))\n"
            "        time.sleep(300)\n    os._exit(0)\n"
            "time.sleep(0.5)\nprint('parent done')\n")
    for opts in ([], ["--no-namespaces"]):
        r = cordon(blob, code, opts=["--workdir", str(pidfile), *opts])
        assert r.rc == 0, r
        # The pid is in the run's PID namespace, if any: find it by name.
        time.sleep(0.2)
        out = subprocess.run(["pgrep", "-f", str(pidfile)],
                             capture_output=True, text=True).stdout
        assert out.strip() == "", "survivor: " + out


def test_timeout_kills_whole_tree(cordon, blob, tmp_path):
    wd = tmp_path / "wd2"
    wd.mkdir()
    code = ("import os, time\nfor i in range(3):\n"
            "    if os.fork() == 0:\n        os.setsid()\n"
            "        if os.fork() == 0:\n            time.sleep(300)\n"
            "        os._exit(0)\ntime.sleep(300)\n")
    for opts in ([], ["--no-namespaces"]):
        r = cordon(blob, code, opts=["--workdir", str(wd), "--timeout", "1",
                                     *opts])
        assert r.rc == 124, r
        out = subprocess.run(["pgrep", "-f", str(wd)], capture_output=True,
                             text=True).stdout
        assert out.strip() == "", "survivor: " + out


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_to_cordon_ends_run(tmp_path, blob, sig):
    wd = tmp_path / "wd"
    wd.mkdir()
    (tmp_path / "s.py").write_text(
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
        "    time.sleep(300)\nprint('ready', flush=True)\ntime.sleep(300)\n")
    p = subprocess.Popen([CORDON, "--no-namespaces", "--workdir", str(wd),
                          str(blob), str(tmp_path / "s.py")],
                         stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline() == "ready\n"
    p.send_signal(sig)
    assert p.wait(10) == 128 + sig
    out = subprocess.run(["pgrep", "-f", str(wd)], capture_output=True,
                         text=True).stdout
    assert out.strip() == ""


def test_cordon_killed_run_dies(tmp_path, blob):
    # SIGKILL to cordon: the child dies of its parent-death signal.  With
    # namespaces the child is the init of the run's PID namespace, so the
    # kernel kills everything in it, including a descendant that called
    # setsid() and double-forked.  Without namespaces only the direct
    # child is sure to die (see cordon(1)).
    wd = tmp_path / "wd"
    wd.mkdir()
    (tmp_path / "s.py").write_text(
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n"
        "    if os.fork() == 0:\n"
        "        open('spid', 'w').write(str(os.getpid()))\n"
        "        time.sleep(300)\n    os._exit(0)\n"
        "while not os.path.exists('spid'):\n    time.sleep(0.01)\n"
        "open('pid', 'w').write(str(os.getpid()))\n"
        "print('ready', flush=True)\ntime.sleep(300)\n")
    for opts in ([], ["--no-namespaces"]):
        p = subprocess.Popen([CORDON, *opts, "--workdir", str(wd), str(blob),
                              str(tmp_path / "s.py")],
                             stdout=subprocess.PIPE, text=True)
        assert p.stdout.readline() == "ready\n"
        # Host pids of the snippet and its sleeper (inside a PID
        # namespace their own view of the pid differs).
        procs = [pid for pid in map(int, subprocess.run(
            ["pgrep", "-f", str(wd)], capture_output=True,
            text=True).stdout.split()) if pid != p.pid]
        assert len(procs) >= 2, procs
        assert all(alive(pid) for pid in procs)
        p.kill()
        p.wait()
        deadline = time.monotonic() + 5
        while any(alive(pid) for pid in procs) and \
                time.monotonic() < deadline:
            time.sleep(0.05)
        if opts:
            # The snippet itself dies; its setsid'd grandchild may not.
            assert not alive(int((wd / "pid").read_text()))
            subprocess.run(["pkill", "-KILL", "-f", str(wd)])
        else:
            survivors = [pid for pid in procs if alive(pid)]
            assert survivors == [], "outlived a SIGKILLed cordon: %r" % (
                survivors,)
        for f in ("pid", "spid"):
            (wd / f).unlink()


def test_landlock_signal_scope_is_a_tree_kill(cordon, blob, tmp_path):
    """kill(-1, SIGKILL) from inside the run reaches exactly the run's
    Landlock domain: the run's own setsid'd grandchildren die, and a
    process outside (this test's sleeper, same uid) survives.  This is the
    race-free, namespace-free tree kill the signal scope provides."""
    outside = subprocess.Popen(["sleep", "60"])
    try:
        code = ("import os, time\nkids = []\nfor i in range(3):\n"
                "    r, w = os.pipe()\n    pid = os.fork()\n"
                "    if pid == 0:\n        os.setsid()\n"
                "        if os.fork() == 0:\n"
                "            os.write(w, str(os.getpid()).encode())\n"
                "            time.sleep(60)\n        os._exit(0)\n"
                "    kids.append(int(os.read(r, 32)))\n"
                "try:\n    os.kill(%d, 0)\n    print('REACHED-OUTSIDE', flush=True)\n"
                "except PermissionError:\n    print('outside-blocked', flush=True)\n"
                "if os.fork() == 0:\n    os.kill(-1, 9)\n    os._exit(0)\n"
                "time.sleep(0.5)\nprint([os.path.exists('/proc/%%d' %% k)"
                " and open('/proc/%%d/stat' %% k).read().split(') ')[1][0]"
                " for k in kids])\n" % outside.pid)
        r = cordon(blob, code, opts=["--no-namespaces"])
        # kill(-1) also kills the snippet itself (same domain): SIGKILL.
        assert "outside-blocked" in r.out, r
        assert "REACHED-OUTSIDE" not in r.out
        assert outside.poll() is None, "process outside the run was killed"
    finally:
        outside.kill()
        outside.wait()


def test_no_namespaces_reported(cordon, blob):
    r = cordon(blob, "print(1)", opts=["--no-namespaces"])
    assert r.rc == 0
    assert r.status["layers"]["namespaces"] == []


def _no_namespaces_left(cordon_bin, blob, snippet, status):
    """cordon run in a user namespace whose max_user_namespaces is 0: the
    kernel refuses the clone's namespaces (ENOSPC)."""
    sh = ('echo 0 > /proc/sys/user/max_user_namespaces || exit 99; '
          'exec "$0" --status-file "$1" "$2" "$3"')
    try:
        return subprocess.run(
            ["unshare", "--user", "--map-root-user", "sh", "-c", sh,
             str(cordon_bin), str(status), str(blob), str(snippet)],
            capture_output=True, text=True, timeout=90)
    except FileNotFoundError:
        pytest.skip("no unshare(1) here")


def test_kernel_refusing_namespaces_replans(cordon_bin, launcher_blobs,
                                            tmp_path):
    """The clone's namespaces refused by the kernel: the run goes on as
    the plan without them says (plan_ns_refused): no namespace, the disk
    bound watched, the filter's reason the plan's; a policy that needs
    them is refused with the plan's one cause and hint."""
    if os.getuid() != 0:
        pytest.skip("as root only: a user namespace made without "
                    "privilege shows root's files as nobody's, so "
                    "cordon refuses the policy's root-owned links")
    snip = tmp_path / "s.py"
    snip.write_text("print('ran')\n")
    st = tmp_path / "status.json"
    r = _no_namespaces_left(cordon_bin, launcher_blobs("launcher-bounds"),
                            snip, st)
    if r.returncode == 99 or "unshare failed" in r.stderr:
        pytest.skip("no user namespace to refuse namespaces in: %s"
                    % r.stderr.strip())
    if os.geteuid() != 0 and "(a symbolic link; name its target)" in r.stderr:
        # Made by a user other than root, the namespace maps no uid to the
        # host's root, so a root-owned link in the base policy
        # (/etc/localtime) is owned by the overflow uid there and cordon
        # refuses it (landlock.c: only root's links are followed).
        pytest.skip("host root unmapped in this user namespace: %s"
                    % r.stderr.strip())
    assert r.returncode == 0 and r.stdout == "ran\n", r
    status = json.loads(st.read_text())
    assert status["layers"]["namespaces"] == [], status
    assert status["bounds"]["disk"]["by"] == "watch", status
    assert status["denials_reason"].startswith(
        "no PID namespace: the filter's refusals reach no listener"), status
    r = _no_namespaces_left(cordon_bin, launcher_blobs("launcher-private"),
                            snip, st)
    assert r.returncode == 125 and "ran" not in r.stdout, r
    assert "requires a private /tmp, which needs a mount namespace, but " \
        "namespaces were refused: sysctl user.max_user_namespaces is 0" \
        in r.stderr, r


def test_private_tmp(cordon, launcher_blobs):
    b = launcher_blobs("launcher-private")
    # Names no other process on the host uses (the check below looks at
    # the host's /tmp and /dev/shm).
    x, y = ("cordon-private-%s-%d" % (c, os.getpid()) for c in "xy")
    code = ("import os\nprint(sorted(os.listdir('/tmp')), "
            "sorted(os.listdir('/dev/shm')))\n"
            "open('/tmp/%s','w').write('1'); open('/dev/shm/%s','w').write('2')\n"
            "print(open('/tmp/%s').read(), os.getcwd())" % (x, y, x))
    r = cordon(b, code)
    if r.rc == 125 and "refuses namespaces" in r.err:
        pytest.skip("the kernel refuses unprivileged namespaces here")
    assert r.rc == 0, r
    tmp_list, shm_list = r.out.splitlines()[0].split("] [")
    wd = os.path.basename(r.status["workdir"])
    # Only the run's own workdir (bound in when it lives under /tmp).
    assert tmp_list.strip("[]") in ("", repr(wd)), r.out
    assert shm_list.strip("[]") == "", r.out
    assert r.status["layers"]["private_tmp"]
    assert not os.path.exists("/tmp/" + x)
    assert not os.path.exists("/dev/shm/" + y)
    r2 = cordon(b, "print(1)", opts=["--no-namespaces"])
    assert r2.rc == 125 and "private" in r2.err, r2


# ---- blobs that must be refused before anything runs -------------------

MARK = ("import pathlib\npathlib.Path(%r).write_text('ran')\n")


def refused(tmp_path, data, what):
    pol = tmp_path / "bad.cpol"
    pol.write_bytes(data)
    wd = tmp_path / "wd"
    wd.mkdir(exist_ok=True)
    marker = wd / "marker"
    snip = tmp_path / "mark.py"
    snip.write_text(MARK % str(marker))
    p = subprocess.run([CORDON, "--workdir", str(wd), str(pol), str(snip)],
                       capture_output=True, text=True)
    assert p.returncode == 125, (what, p)
    assert not marker.exists(), what
    assert p.stderr.startswith("cordon: ") and p.stderr.count("\n") == 1
    assert os.listdir(wd) == [], "workdir touched for " + what
    return p.stderr


def test_blob_truncated(tmp_path, blob):
    data = blob.read_bytes()
    for n in sorted({0, 1, 8, 63, 64, 65, len(data) // 2, len(data) - 1}):
        refused(tmp_path, data[:n], "truncated to %d" % n)


def test_blob_flipped_byte_anywhere(tmp_path, blob):
    data = blob.read_bytes()
    step = max(1, len(data) // 150)
    positions = list(range(0, 64)) + list(range(64, len(data), step))
    for i in positions:
        b = bytearray(data)
        b[i] ^= 0x40
        refused(tmp_path, bytes(b), "byte %d flipped" % i)


def test_blob_wrong_magic(tmp_path, blob):
    data = bytearray(blob.read_bytes())
    data[1:5] = b"XPOL"
    assert "magic" in refused(tmp_path, bytes(data), "magic")


def test_blob_wrong_arch(tmp_path, blob):
    data = blob_patch(blob.read_bytes(), header_off=12, value=0x40000003)
    assert "architecture" in refused(tmp_path, data, "arch")


def test_blob_oversized_counts(tmp_path, blob):
    data = blob.read_bytes()
    for sect in (3, 4, 6, 7, 8):   # seccomp fs limits env argv
        off = 16 if sect == 6 else 0
        refused(tmp_path, blob_patch(data, sect, off, 0xffffffff),
                "count of section %d" % sect)
    refused(tmp_path, blob_patch(data, header_off=20, value=1000),
            "section count")


def test_blob_bad_seccomp_program(tmp_path, blob):
    # Checksummed blobs whose programs the kernel would refuse only in the
    # child (after the workdir exists): bpf_check refuses them first.
    data = blob.read_bytes()
    sec = blob_section(data, 3)
    n = struct.unpack_from("<I", sec, 0)[0]
    # The last instruction a load instead of a return.
    bad = blob_patch(data, 3, 4 + 8 * (n - 1), 0x20, fmt="<H")
    err = refused(tmp_path, bad, "last not a return")
    assert "seccomp program" in err and "instruction %d" % (n - 1) in err
    # A load past the end of seccomp_data.
    bad = blob_patch(data, 3, 4 + 4, 4096)
    assert "seccomp program" in refused(tmp_path, bad, "load past end")


def test_landlock_abi_above_kernel_refused(tmp_path, blob, cordon):
    data = blob_patch(blob.read_bytes(), 2, 0, 99)
    err = refused(tmp_path, data, "landlock 99")
    assert "Landlock ABI 99" in err and "Hint:" in err
    # The same policy marked best-effort runs, and says what it got.
    pol = tmp_path / "be.cpol"
    flags = __import__("struct").unpack_from(
        "<I", blob_section(data, 2), 4)[0]
    pol.write_bytes(blob_patch(data, 2, 4, flags | 1))
    r = cordon(pol, "print('ran')")
    assert r.rc == 0 and r.out == "ran\n", r
    assert r.status["layers"]["landlock_abi"] >= 1


def blob_section(data, sect):
    import struct
    nsect = struct.unpack_from("<I", data, 20)[0]
    pos = 64
    for _ in range(nsect):
        typ, _f, ln = struct.unpack_from("<HHI", data, pos)
        if typ == sect:
            return data[pos + 8:pos + 8 + ln]
        pos += 8 + ln
    raise KeyError(sect)


def test_policy_refusing_execve_fails_fast(tmp_path):
    """The command's own exec refused by the policy (no execve allowed,
    default errno): cordon reports it (126, the errno), never waits for
    a listener the refused exec would have to reach first."""
    from conftest import BUILD
    src = tmp_path / "noexec.policy"
    src.write_text('policy "noexec";\ndefault errno(ENOSYS);\n'
                   "allow read, write, close, exit_group;\n"
                   'path /usr rx;\npath "$WORKDIR" rw;\nnetwork off;\n'
                   'timeout 10s;\n'
                   'command "/usr/bin/python3" "-I" "$SNIPPET";\n')
    blob = tmp_path / "noexec.cpol"
    subprocess.run([str(BUILD / "cordonc"), "compile", "-o", str(blob),
                    str(src)], check=True, capture_output=True)
    (tmp_path / "s.py").write_text("print(1)\n")
    for opts in ([], ["--no-namespaces"]):
        p = subprocess.run([CORDON, *opts, str(blob), str(tmp_path / "s.py")],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 126, (opts, p)
        assert "Function not implemented" in p.stderr, (opts, p)
