"""The run's cgroups nest below the caller's own (cgroup v1): a limit on
the caller's group (a systemd service's, a CI job's, an outer guard's)
still holds for every process and page of the run; root's process bound
(limit nproc) is held by the run's pids group, since the kernel does not
apply RLIMIT_NPROC to uid 0; a run group whose cordon was killed is
removed by the next run.  Each test makes its own caller groups below the
test's own and removes them."""
import os
import pathlib
import signal
import subprocess
import time

import pytest

from conftest import BUILD

MiB = 1 << 20
V1 = pathlib.Path("/sys/fs/cgroup")
ROOT = os.geteuid() == 0


def own_group(controller):
    """This process's v1 group directory for controller, or None."""
    for line in pathlib.Path("/proc/self/cgroup").read_text().splitlines():
        _, ctls, path = line.split(":", 2)
        if controller in ctls.split(","):
            d = V1 / controller / path.lstrip("/")
            return d if (d / "tasks").exists() else None
    return None


HAS_V1 = ROOT and all(own_group(c) is not None and
                      os.access(own_group(c), os.W_OK)
                      for c in ("memory", "pids"))
NO_V1 = ("needs root and cgroup v1 memory and pids groups of its own to "
         "make test groups in")
needs_v1 = pytest.mark.skipif(not HAS_V1, reason=NO_V1)


def tasks(d):
    return (d / "tasks").read_text().split()


def remove_tree(d, wait=30.0):
    """rmdir d and every group below it, once their tasks are gone."""
    end = time.monotonic() + wait
    for sub in sorted((p for p in d.rglob("*") if p.is_dir()),
                      key=lambda p: -len(p.parts)):
        while tasks(sub) and time.monotonic() < end:
            time.sleep(0.05)
        os.rmdir(sub)
    while tasks(d) and time.monotonic() < end:
        time.sleep(0.05)
    os.rmdir(d)


@pytest.fixture
def caller():
    """Groups for a caller below this test's own memory and pids groups:
    a dict controller -> directory; the preexec function that moves the
    started process (cordon) into them is caller["join"]."""
    made = {}
    for c in ("memory", "pids"):
        d = own_group(c) / ("cordon-test-%d" % os.getpid())
        d.mkdir()
        made[c] = d

    def join():
        for c in ("memory", "pids"):
            (made[c] / "tasks").write_text("0")
    made["join"] = join
    try:
        yield made
    finally:
        for c in ("memory", "pids"):
            remove_tree(made[c])


FORKS = """
import os
r, w = os.pipe()
n = 0
try:
    while n < 40:
        if os.fork() == 0:
            os.close(w); os.read(r, 1); os._exit(0)
        n += 1
except OSError as e:
    pass
print("forks", n, flush=True)
os.close(w)
while True:
    try:
        os.wait()
    except ChildProcessError:
        break
"""


@needs_v1
def test_caller_pids_limit_holds_for_the_run(cordon, launcher_blobs, caller):
    # The caller may have 10 tasks; the policy allows 64.  cordon itself,
    # the run's init and python are 3 of the 10.
    (caller["pids"] / "pids.max").write_text("10")
    blob = launcher_blobs("launcher-bounds", PIDS="64")
    r = cordon(blob, FORKS, preexec_fn=caller["join"])
    assert r.rc == 0, r
    n = int(r.out.split()[1])
    assert 0 < n <= 7, r
    # the run's processes counted in the caller's group, up to its limit
    assert int((caller["pids"] / "pids.peak").read_text()) == 10
    p = r.status["bounds"]["pids"]
    assert p["by"] == "cgroup-v1" and p["refused"] >= 1, r


@needs_v1
def test_caller_memory_limit_holds_for_the_run(cordon, launcher_blobs,
                                               caller):
    # The caller may use 96M; the policy allows 512M; the snippet touches
    # 200M in one process.
    m = caller["memory"]
    (m / "memory.limit_in_bytes").write_text(str(96 * MiB))
    if (m / "memory.memsw.limit_in_bytes").exists():
        (m / "memory.memsw.limit_in_bytes").write_text(str(96 * MiB))
    blob = launcher_blobs("launcher-bounds")
    r = cordon(blob, """
b = bytearray(200 << 20)
for j in range(0, len(b), 4096): b[j] = 1
print("done")
""", preexec_fn=caller["join"])
    assert "done" not in r.out, r
    assert r.status["outcome"] == "oom", r
    peak = int((m / "memory.max_usage_in_bytes").read_text())
    # the run's pages were charged to the caller's group, up to its limit
    assert 64 * MiB <= peak <= 96 * MiB, (peak, r)


def test_nproc_holds_as_root_too(cordon, launcher_blobs):
    # RLIMIT_NPROC does not bind uid 0: as root, the run's pids group
    # holds limit nproc.  As any other uid, the rlimit does.
    if ROOT and not HAS_V1:
        pytest.skip("root without a pids controller: nothing holds nproc")
    blob = launcher_blobs("launcher-bounds", PIDS="64")
    r = cordon(blob, FORKS, opts=["--limit", "nproc=15"])
    assert r.rc == 0, r
    n = int(r.out.split()[1])
    # python and its children, at most 15 live (the run's init is one too)
    assert 0 < n and n + 1 <= 15, r
    p = r.status["bounds"]["pids"]
    if ROOT:
        assert p["by"] == "cgroup-v1" and p["limit"] == 15, r
        assert p["refused"] >= 1 and p["reason"] is None, r
    else:
        assert p["by"] == "rlimit" and p["limit"] == 64, r


@needs_v1
def test_no_group_left_behind(cordon, launcher_blobs, caller):
    r = cordon(launcher_blobs("launcher-bounds"), "import os\n"
               "for i in range(5):\n    os.fork() or os._exit(0)\n",
               preexec_fn=caller["join"])
    assert r.rc == 0, r
    assert r.status["bounds"]["pids"]["by"] == "cgroup-v1", r
    for c in ("memory", "pids"):
        assert not [p for p in caller[c].iterdir() if p.is_dir()], c


def creator_gone_group(caller, blob):
    """Start a run, SIGKILL its cordon, wait for the run's processes to
    go; returns the run's group directories (memory, pids)."""
    p = subprocess.Popen(
        [str(BUILD / "cordon"), str(blob), "-"], stdin=subprocess.PIPE,
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
        preexec_fn=caller["join"])
    try:
        p.stdin.write("import time\nprint('up', flush=True)\n"
                      "time.sleep(120)\n")
        p.stdin.close()
        assert p.stdout.readline() == "up\n"
        kids = pathlib.Path("/proc/%d/task/%d/children" % (p.pid, p.pid))
        init = kids.read_text().split()[0]
        groups = {}
        for line in pathlib.Path("/proc/%s/cgroup" % init).read_text() \
                .splitlines():
            _, ctls, path = line.split(":", 2)
            for c in ("memory", "pids"):
                if c in ctls.split(","):
                    groups[c] = V1 / c / path.lstrip("/")
    finally:
        p.send_signal(signal.SIGKILL)
        p.wait()
    end = time.monotonic() + 30
    while any(tasks(g) for g in groups.values()):
        assert time.monotonic() < end, "the run outlived its cordon"
        time.sleep(0.05)
    return groups


@needs_v1
def test_next_run_removes_a_killed_cordons_groups(cordon, launcher_blobs,
                                                  caller):
    blob = launcher_blobs("launcher-bounds")
    groups = creator_gone_group(caller, blob)
    assert all(g.is_dir() for g in groups.values()), groups
    # Not cordon's, or cordon's but of a live creator: never removed.
    st = pathlib.Path("/proc/self/stat").read_text()
    start = st[st.rindex(")") + 2:].split()[19]
    ns = os.stat("/proc/self/ns/pid").st_ino
    keep = [caller[c] / n for c in ("memory", "pids")
            for n in ("cordon-other", "cordon-%d-%d-%s.live01" %
                      (ns, os.getpid(), start))]
    for k in keep:
        k.mkdir()
    r = cordon(blob, "print('next')\n", preexec_fn=caller["join"])
    assert r.rc == 0 and r.out == "next\n", r
    for g in groups.values():
        assert not g.exists(), g
    for k in keep:
        assert k.is_dir(), k
