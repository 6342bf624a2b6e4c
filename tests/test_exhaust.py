"""What a snippet could exhaust beyond memory, processes and disk (those
are the `limit memory`, `limit pids`, `limit disk` and `limit files`
bounds): each class bounded by the shipped policies is tried here with a
real snippet under the shipped code_gen policy (base/python.policy), and
must be refused or stop at its bound.  man/cordon.1, "WHAT A RUN CAN
STILL CONSUME", lists every class and what bounds it.  Run as root and as
uid 65534 by tests/run-pytest.sh."""
import ctypes
import errno
import json
import subprocess

import pytest

from conftest import BUILD

CORDON = str(BUILD / "cordon")
SIGPENDING = 1024       # base/python.policy: limit sigpending


@pytest.fixture(scope="module")
def code_gen(policies_dir):
    blob = policies_dir / "code_gen.cpol"
    assert blob.is_file(), "%s missing: run make" % blob
    return blob


def timer_create_here():
    """timer_create() in this process (the same uid as the run's)."""
    libc = ctypes.CDLL(None, use_errno=True)
    t = ctypes.c_void_p()
    if libc.timer_create(1, None, ctypes.byref(t)) != 0:
        return errno.errorcode[ctypes.get_errno()]
    libc.timer_delete(t)
    return "ok"


HOARD_TIMERS = """
import ctypes, errno, sys, time
libc = ctypes.CDLL(None, use_errno=True)
t = ctypes.c_void_p()
n = 0
while n < 200000 and libc.timer_create(1, None, ctypes.byref(t)) == 0:
    n += 1
print(n, errno.errorcode.get(ctypes.get_errno()), flush=True)
time.sleep(float(sys.argv[1]))
"""

QUEUE_SIGNALS = """
import ctypes, errno, os, signal
libc = ctypes.CDLL(None, use_errno=True)
signal.pthread_sigmask(signal.SIG_BLOCK, [signal.SIGRTMIN])
info = (ctypes.c_int * 32)(signal.SIGRTMIN, 0, -1)    # si_code SI_QUEUE
n = 0
while n < 200000 and libc.syscall(129, os.getpid(), signal.SIGRTMIN,
                                  ctypes.byref(info)) == 0:
    n += 1
print(n, errno.errorcode.get(ctypes.get_errno()))
"""


@pytest.mark.parametrize("nsopts", [[], ["--no-namespaces"]],
                         ids=["ns", "no-ns"])
def test_timers_bounded_and_uid_budget_left(code_gen, tmp_path, nsopts):
    """POSIX timers are charged to the uid's host-wide RLIMIT_SIGPENDING
    budget: a run stops at the policy's 1024, and meanwhile another
    process of the same uid (this one) can still make a timer (without
    the limit the run took all ~96000 and this got EAGAIN)."""
    snip = tmp_path / "hoard.py"
    snip.write_text(HOARD_TIMERS)
    p = subprocess.Popen([CORDON, *nsopts, str(code_gen), str(snip), "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True)
    try:
        line = p.stdout.readline()
        here = timer_create_here()       # while the run holds its timers
    finally:
        out, err = p.communicate(timeout=60)
    n, why = line.split()
    assert 0 < int(n) <= SIGPENDING and why == "EAGAIN", (line, err)
    assert here == "ok"
    assert p.returncode == 0, err


def test_queued_signals_bounded(code_gen, tmp_path):
    snip = tmp_path / "queue.py"
    snip.write_text(QUEUE_SIGNALS)
    p = subprocess.run([CORDON, str(code_gen), str(snip)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    n, why = p.stdout.split()
    assert 0 < int(n) <= SIGPENDING and why == "EAGAIN", p.stdout


def test_sigpending_limit_tightens_from_the_command_line(code_gen,
                                                         tmp_path):
    snip = tmp_path / "hoard.py"
    snip.write_text(HOARD_TIMERS)
    p = subprocess.run([CORDON, "--limit", "sigpending=10", str(code_gen),
                        str(snip), "0"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["10", "EAGAIN"]


# Kernel objects that outlive or escape the run's accounting, denied by
# base/python.policy: (name, x86-64 number, arguments, errno expected).
DENIED = [
    ("add_key", 248, (0, 0, 0, 0, -3), "EPERM"),      # keyrings
    ("request_key", 249, (0, 0, 0, -3), "EPERM"),
    ("keyctl", 250, (0, -3), "EPERM"),
    ("userfaultfd", 323, (0,), "EPERM"),
    ("memfd_create", 319, (0, 0), "EPERM"),
    ("inotify_init1", 294, (0,), "EPERM"),              # per-uid instances
    ("inotify_init", 253, (), "EPERM"),
    ("fanotify_init", 300, (0, 0), "EPERM"),
    ("mq_open", 240, (0, 0, 0, 0), "EPERM"),            # RLIMIT_MSGQUEUE
    ("shmget", 29, (0, 4096, 0o1600), "EPERM"),         # SysV: host IPC ns
    ("semget", 64, (0, 1, 0o1600), "EPERM"),
    ("msgget", 68, (0, 0o1600), "EPERM"),
    ("perf_event_open", 298, (0, 0, -1, -1, 0), "EPERM"),
    ("bpf", 321, (0, 0, 0), "EPERM"),
    ("io_uring_setup", 425, (1, 0), "ENOSYS"),
    ("sched_setattr", 314, (0, 0, 0), "EPERM"),         # priority
    ("setpriority", 141, (0, 0, -5), "EPERM"),
    ("ioprio_set", 251, (1, 0, 0), "EPERM"),
]

DENIED_SNIPPET = """
import ctypes, errno, json, sys
libc = ctypes.CDLL(None, use_errno=True)
out = {}
for name, nr, args, _ in json.loads(sys.argv[1]):
    r = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    out[name] = errno.errorcode.get(ctypes.get_errno()) if r < 0 else "ok"
print(json.dumps(out))
"""


def test_unaccounted_kernel_objects_denied(code_gen, tmp_path):
    snip = tmp_path / "denied.py"
    snip.write_text(DENIED_SNIPPET)
    p = subprocess.run([CORDON, str(code_gen), str(snip),
                        json.dumps(DENIED)], capture_output=True,
                       text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    got = json.loads(p.stdout)
    assert got == {name: want for name, _, _, want in DENIED}
