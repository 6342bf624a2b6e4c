"""cordon's status report is built from facts the snippet cannot forge,
and its supervisor never blocks on the caller's descriptors (issue 13,
items 4 and 5).  Run as root and as uid 65534 by tests/run-pytest.sh."""
import json
import os
import signal
import subprocess
import time

import pytest

from conftest import BUILD

CORDON = str(BUILD / "cordon")
NSOPTS = pytest.mark.parametrize("nsopts", [[], ["--no-namespaces"]],
                                ids=["ns", "no-ns"])


@pytest.fixture(scope="module")
def blob(launcher_blobs):
    return launcher_blobs("launcher-escape")


@NSOPTS
@pytest.mark.parametrize("sig", ["SIGSYS", "SIGXCPU", "SIGXFSZ"])
def test_self_sent_signal_is_a_signal(cordon, blob, nsopts, sig):
    # A snippet that sends itself the signal a limit or the filter would
    # send is reported as what it is: a signal, not seccomp, cpu_limit or
    # fsize_limit.
    num = getattr(signal, sig)
    code = ("import os, signal\nsignal.signal(signal.%s, signal.SIG_DFL)\n"
            "os.kill(os.getpid(), signal.%s)\n" % (sig, sig))
    r = cordon(blob, code, opts=["--limit", "cpu=5", *nsopts])
    assert r.status["outcome"] == "signaled", r
    assert r.status["signal"] == num and r.rc == 128 + num, r


@NSOPTS
def test_real_cpu_burn_is_cpu_limit(cordon, blob, nsopts):
    r = cordon(blob, "while True: pass", opts=["--limit", "cpu=1", *nsopts])
    assert r.status["outcome"] == "cpu_limit", r
    assert "the limit is 1000 ms" in r.status["reason"], r


# The kernel's RLIMIT_CPU measure of the snippet itself: its PROF CPU
# clock (clock id -8: this process, CPUCLOCK_PROF), what it compares
# with the soft and hard limits.
PROF = "import time\ndef prof():\n    return time.clock_gettime(-8)\n"


@NSOPTS
def test_self_kill_after_the_soft_limit_is_not_cpu_limit(cordon, blob,
                                                         nsopts):
    # The kernel's SIGXCPU came (the soft limit, 2 s) and the snippet
    # handled it, then sent itself SIGKILL before the hard limit (3 s):
    # only the kernel's SIGKILL at the hard limit is cpu_limit.
    code = PROF + ("import os, signal\ngot = []\n"
                   "signal.signal(signal.SIGXCPU, lambda *a: got.append(1))\n"
                   "while not got or prof() < 2.7:\n    pass\n"
                   "print('SIGXCPU at', prof(), flush=True)\n"
                   "os.kill(os.getpid(), signal.SIGKILL)\n")
    r = cordon(blob, code, opts=["--limit", "cpu=2", *nsopts])
    assert r.out.startswith("SIGXCPU at"), r
    assert r.status["outcome"] == "signaled", r
    assert r.status["signal"] == signal.SIGKILL and r.rc == 137, r


@NSOPTS
@pytest.mark.parametrize("sig", ["SIGKILL", "SIGXCPU"])
def test_self_kill_just_under_the_limit_is_not_cpu_limit(cordon, blob,
                                                         nsopts, sig):
    code = PROF + ("import os, signal\n"
                   "signal.signal(signal.SIGXCPU, signal.SIG_DFL)\n"
                   "while prof() < 1.9:\n    pass\n"
                   "os.kill(os.getpid(), signal.%s)\n" % sig)
    r = cordon(blob, code, opts=["--limit", "cpu=2", *nsopts])
    assert r.status["outcome"] == "signaled", r
    assert r.status["signal"] == getattr(signal, sig), r


@NSOPTS
def test_hard_limit_kill_is_cpu_limit(cordon, blob, nsopts):
    # SIGXCPU ignored: the kernel's SIGKILL at the hard limit ends it.
    code = ("import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\n"
            "while True:\n    pass\n")
    r = cordon(blob, code, opts=["--limit", "cpu=1", *nsopts])
    assert r.status["outcome"] == "cpu_limit", r
    assert r.status["signal"] == signal.SIGKILL, r
    assert "the limit is 1000 ms" in r.status["reason"], r


ROOT = os.geteuid() == 0
HAS_V1 = ROOT and all(os.access("/sys/fs/cgroup/%s/tasks" % c, os.W_OK)
                      for c in ("memory", "pids"))
NO_V1 = "needs a memory cgroup: root and the cgroup v1 memory and pids " \
    "controllers (without one cordon never reports oom)"
GROW = ("def grow():\n    b = bytearray(400 << 20)\n"
        "    for j in range(0, len(b), 4096): b[j] = 1\n")


@pytest.mark.skipif(not HAS_V1, reason=NO_V1)
@NSOPTS
def test_child_oom_then_self_kill_is_not_oom(cordon, launcher_blobs, nsopts):
    # The run's memory cgroup counts an OOM kill, but of a child: the
    # main process's own SIGKILL afterwards is a signal, not oom.
    b = launcher_blobs("launcher-bounds", MEMORY="128M")
    code = GROW + ("import os, signal\np = os.fork()\n"
                   "if p == 0:\n    grow()\n    os._exit(0)\n"
                   "print(os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]),"
                   " flush=True)\n"
                   "os.kill(os.getpid(), signal.SIGKILL)\n")
    r = cordon(b, code, opts=nsopts)
    assert r.out == "-9\n", r                # the child: OOM-killed
    assert r.status["outcome"] == "signaled", r
    assert r.status["signal"] == signal.SIGKILL, r


@pytest.mark.skipif(not HAS_V1, reason=NO_V1)
@NSOPTS
def test_main_process_oom_is_oom(cordon, launcher_blobs, nsopts):
    b = launcher_blobs("launcher-bounds", MEMORY="128M")
    r = cordon(b, GROW + "grow()\nprint('grown')\n", opts=nsopts)
    assert "grown" not in r.out, r
    assert r.status["outcome"] == "oom", r
    assert r.status["signal"] == signal.SIGKILL, r


@pytest.mark.skipif(not HAS_V1, reason=NO_V1)
def test_oom_with_another_process_is_a_signal(cordon, launcher_blobs):
    # The main process is the one killed (the largest), but a child
    # lived too: cordon cannot tell which the kernel killed, and says so.
    b = launcher_blobs("launcher-bounds", MEMORY="128M")
    code = GROW + ("import os, time\nif os.fork() == 0:\n"
                   "    time.sleep(30)\n    os._exit(0)\ngrow()\n")
    r = cordon(b, code)
    assert r.status["outcome"] == "signaled", r
    assert r.status["signal"] == signal.SIGKILL, r
    assert "OOM kill" in r.status["reason"], r


@NSOPTS
def test_kill_rule_is_seccomp_or_an_honest_signal(cordon, launcher_blobs,
                                                  nsopts):
    # getppid (110 on x86-64) is a kill rule: the call is never let
    # through.  With a PID namespace cordon holds the filter's listener and
    # knows the filter stopped it ("seccomp", the call named); without one
    # the report names SIGSYS and says it cannot tell.
    b = launcher_blobs("launcher-kill")
    r = cordon(b, "import os\nos.getppid()\nprint('ESCAPED')\n", opts=nsopts)
    assert "ESCAPED" not in r.out, r
    st = r.status
    if not nsopts and "pid" in st["layers"]["namespaces"]:
        assert st["outcome"] == "seccomp", r
        assert st["reason"] == "killed by the policy: system call 110 (getppid)", r
    else:
        assert st["outcome"] == "signaled" and st["signal"] == signal.SIGSYS
        assert "cannot tell" in st["reason"], r


@NSOPTS
@pytest.mark.parametrize("sig", [signal.SIGHUP, signal.SIGTERM])
def test_signal_from_outside_is_interrupted(tmp_path, blob, nsopts, sig):
    snip = tmp_path / "s.py"
    snip.write_text("import time\nprint('ready', flush=True)\n"
                    "time.sleep(300)\n")
    st = tmp_path / "st.json"
    p = subprocess.Popen([CORDON, "--status-file", str(st), *nsopts,
                          str(blob), str(snip)], stdout=subprocess.PIPE,
                         text=True)
    assert p.stdout.readline() == "ready\n"
    p.send_signal(sig)
    assert p.wait(20) == 128 + sig
    status = json.loads(st.read_text())
    assert status["outcome"] == "interrupted", status
    assert signal.Signals(sig).name in status["reason"], status


def flood(tmp_path, blob, which, timeout="1", read_other=True):
    """Run a snippet that floods `which` (stdout or stderr) with cordon's
    pipes left unread on that stream; returns (seconds, status, rc)."""
    snip = tmp_path / "s.py"
    snip.write_text("import sys\nwhile True:\n"
                    "    sys.%s.write('x' * 65536)\n" % which)
    st = tmp_path / "st.json"
    t = time.monotonic()
    p = subprocess.Popen([CORDON, "--status-file", str(st), "--timeout",
                          timeout, "--output", str(1 << 30), str(blob),
                          str(snip)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    other = p.stderr if which == "stdout" else p.stdout
    try:
        if read_other:
            other.read()          # EOF only when cordon exits
        rc = p.wait(60)
    finally:
        p.kill()
        p.wait()
        p.stdout.close()
        p.stderr.close()
    return time.monotonic() - t, json.loads(st.read_text()), rc


@pytest.mark.parametrize("which", ["stdout", "stderr"])
def test_timeout_holds_with_an_unread_pipe(tmp_path, blob, which):
    # The caller reads one stream and never the other: the timeout holds
    # and the output that could not be delivered is counted as dropped.
    secs, st, rc = flood(tmp_path, blob, which)
    assert rc == 124 and st["outcome"] == "timeout", st
    assert secs < 30, secs
    assert st["output_dropped"] > 0, st


def test_timeout_holds_when_nothing_is_read(tmp_path, blob):
    secs, st, rc = flood(tmp_path, blob, "stdout", read_other=False)
    assert rc == 124 and st["outcome"] == "timeout", st
    assert secs < 30, secs


def test_flood_past_the_cap_ends_quickly(cordon, blob):
    t = time.monotonic()
    r = cordon(blob, "import sys\nwhile True:\n    sys.stdout.write('x' * "
               "65536)\n", opts=["--output", "100000", "--timeout", "25"])
    assert r.status["outcome"] == "output_limit", r
    assert time.monotonic() - t < 15
    assert len(r.out) == 100000 and r.status["output_truncated"]


def test_truncate_keeps_the_run_going(cordon, launcher_blobs):
    b = launcher_blobs("launcher-truncate")       # output 1000 truncate;
    code = ("import sys\nsys.stdout.write('x' * 100000)\n"
            "sys.stdout.flush()\nprint('END', file=sys.stderr)\n")
    r = cordon(b, code, opts=["--quiet"])     # no truncation note
    assert r.rc == 0 and r.status["outcome"] == "exited", r
    assert r.status["output_truncated"] and len(r.out) + len(r.err) == 1000
    assert r.status["stdout_bytes"] == 100000 and r.status["stderr_bytes"] == 4
    # without --quiet, cordon says so on its own stderr, after the run's
    r = cordon(b, code)
    assert r.err.endswith("cordon: output truncated at the 1000-byte cap "
                          "(stdout and stderr together)\n"), r


def test_status_fd_never_read_is_bounded(tmp_path, blob):
    # A --status-fd pipe that is full and never read: cordon gives up on
    # it after a bounded wait and says so (exit 125), never hangs.
    snip = tmp_path / "s.py"
    snip.write_text("print('hi')\n")
    r, w = os.pipe()
    try:
        os.set_blocking(w, False)
        try:
            while True:
                os.write(w, b"z" * 65536)
        except BlockingIOError:
            pass
        os.set_blocking(w, True)
        t = time.monotonic()
        p = subprocess.run([CORDON, "--status-fd", str(w), str(blob),
                            str(snip)], pass_fds=(w,), capture_output=True,
                           text=True, timeout=60)
        assert time.monotonic() - t < 30
        assert p.returncode == 125 and "status" in p.stderr, p
    finally:
        os.close(r)
        os.close(w)
