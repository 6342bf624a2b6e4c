"""Whole-run bounds: the writable space in bytes and inodes (a run tmpfs,
or a watched workdir without a mount namespace), memory and processes for
the whole run (a cgroup, or capped rlimits), nothing left behind, and the
status saying which mechanism held each bound.  Every test attacks the
bound with a real snippet under the shipped base policy.  Run as root
(cgroup v1 here) and as uid 65534 (no controller: rlimits) by
tests/run-pytest.sh."""
import os
import pathlib
import subprocess

import pytest

from conftest import BUILD

MiB = 1 << 20
ROOT = os.geteuid() == 0
V1 = pathlib.Path("/sys/fs/cgroup")
HAS_V1 = ROOT and all(os.access(V1 / c / "tasks", os.W_OK)
                      for c in ("memory", "pids"))
NO_V1 = "needs root and the cgroup v1 memory and pids controllers"


@pytest.fixture(scope="module")
def bounds(launcher_blobs):
    return launcher_blobs("launcher-bounds")


def by(r, name):
    return r.status["bounds"][name]["by"]


WRITE = """
import errno, os, sys
def fill(path, mib):
    n = 0
    try:
        with open(path, "wb") as f:
            for _ in range(mib):
                f.write(b"x" * (1 << 20)); f.flush(); n += 1
    except OSError as e:
        print(path, n, errno.errorcode[e.errno]); return n
    print(path, n, "OK"); return n
"""


def test_disk_bound_holds_across_workdir_tmp_and_shm(cordon, bounds):
    # 64M in all: the workdir, /tmp and /dev/shm share one bound.
    r = cordon(bounds, WRITE + "fill('a', 30)\nfill('/tmp/b', 30)\n"
               "fill('/dev/shm/c', 30)\n")
    assert r.rc == 0, r
    lines = r.out.split("\n")
    assert lines[0] == "a 30 OK" and lines[1] == "/tmp/b 30 OK", r
    assert lines[2].endswith("ENOSPC") and int(lines[2].split()[1]) < 5, r
    d = r.status["bounds"]["disk"]
    assert d["by"] == "tmpfs" and d["limit"] == 64 * MiB, r
    assert d["used"] <= 64 * MiB, r


def test_fallocate_keep_size_refused_plain_fallocate_bounded(cordon, bounds):
    r = cordon(bounds, """
import ctypes, errno, os
libc = ctypes.CDLL(None, use_errno=True)
fd = os.open("f", os.O_CREAT | os.O_WRONLY)
FALLOC_FL_KEEP_SIZE = 1
rc = libc.fallocate(fd, FALLOC_FL_KEEP_SIZE, ctypes.c_long(0),
                    ctypes.c_long(512 << 20))
print("keep", rc, errno.errorcode.get(ctypes.get_errno()))
rc = libc.fallocate(fd, 0, ctypes.c_long(0), ctypes.c_long(512 << 20))
print("plain", rc, errno.errorcode.get(ctypes.get_errno()))
print("blocks", os.fstat(fd).st_blocks * 512 <= 64 << 20)
""")
    assert r.rc == 0, r
    keep, plain, blocks = r.out.split("\n")[:3]
    assert keep.split()[1] == "-1" and keep.split()[2] == "ENOSYS", r
    # 512M asked under a 64M bound: the file-size limit (capped at the
    # disk bound) or the tmpfs refuses it.
    assert plain.split()[1] == "-1" and plain.split()[2] in (
        "EFBIG", "ENOSPC"), r
    assert blocks == "blocks True", r


def test_inode_bound_is_exact(cordon, bounds):
    r = cordon(bounds, """
import errno
n = 0
try:
    while n < 100000:
        open("f%d" % n, "w").close(); n += 1
except OSError as e:
    print(n, errno.errorcode[e.errno])
""")
    assert r.rc == 0, r
    n, err = r.out.split()
    # the snippet itself is the thousandth file
    assert err == "ENOSPC" and int(n) == 999, r
    f = r.status["bounds"]["files"]
    assert f["by"] == "tmpfs" and f["used"] == 1000 and f["limit"] == 1000


def test_written_file_cannot_be_executed_even_through_ld_so(cordon, bounds):
    r = cordon(bounds, """
import os, subprocess, sys
elf = os.path.realpath(sys.executable)      # readable and executable
for d in (".", "/tmp", "/dev/shm"):
    p = os.path.join(d, "t")
    with open(elf, "rb") as src, open(p, "wb") as dst:
        dst.write(src.read())
    r = subprocess.run(["/lib64/ld-linux-x86-64.so.2", p, "-c", "pass"],
                       capture_output=True, text=True)
    print(d, r.returncode)
    os.unlink(p)
r = subprocess.run(["/lib64/ld-linux-x86-64.so.2", elf, "-c", "pass"])
print("system", r.returncode)
""")
    assert r.rc == 0, r
    lines = r.out.split("\n")
    for line in lines[:3]:
        assert line.split()[1] != "0", r
    # the same ELF from its own (exec-granted) place runs: the test works
    assert lines[3] == "system 0", r


def test_inputs_in_and_outputs_out(cordon, bounds, tmp_path):
    wd = tmp_path / "wd"
    wd.mkdir()
    (wd / "in.txt").write_text("input")
    (wd / "data").mkdir()
    (wd / "data" / "x").write_text("deep input")
    r = cordon(bounds, """
print(open("in.txt").read(), open("data/x").read())
open("out.txt", "w").write("output")
import os; os.makedirs("res/a", exist_ok=True)
open("res/a/y", "w").write("y")
""", opts=["--workdir", str(wd)])
    assert r.rc == 0, r
    assert r.out == "input deep input\n"
    assert (wd / "out.txt").read_text() == "output"
    assert (wd / "res" / "a" / "y").read_text() == "y"
    assert (wd / "in.txt").read_text() == "input"
    assert not [p for p in wd.iterdir() if p.name.startswith("snippet")]


def test_keep_workdir_gets_the_outputs(cordon, bounds):
    r = cordon(bounds, "open('out.txt', 'w').write('kept')\n",
               opts=["--keep-workdir"])
    assert r.rc == 0, r
    wd = pathlib.Path(r.status["workdir"])
    try:
        assert (wd / "out.txt").read_text() == "kept"
    finally:
        subprocess.run(["rm", "-rf", str(wd)])


def test_inputs_larger_than_the_bound_are_refused(cordon, bounds, tmp_path):
    wd = tmp_path / "wd"
    wd.mkdir()
    with open(wd / "big", "wb") as f:
        f.truncate(0)
        f.write(b"x" * (80 * MiB))
    r = cordon(bounds, "print('ran')\n", opts=["--workdir", str(wd)])
    assert r.rc == 125 and "ran" not in r.out, r
    assert "limit disk" in r.err, r


def test_watch_without_mount_namespace_ends_the_run(cordon, bounds):
    # files of 40M each (fsize is capped at the disk bound, 64M)
    r = cordon(bounds, WRITE + "for i in range(10): fill('a%d' % i, 40)\n",
               opts=["--no-namespaces"])
    assert r.status["outcome"] == "disk_limit", r
    assert r.rc == 128 + 9, r
    d = r.status["bounds"]["disk"]
    assert d["by"] == "watch", r
    # stated in cordon.1: at most what the run writes between two looks
    assert d["used"] < 64 * MiB + 256 * MiB, r
    assert "a9 40 OK" not in r.out, r


def test_watch_counts_inodes(cordon, bounds):
    r = cordon(bounds, """
n = 0
while n < 200000:
    open("f%d" % n, "w").close(); n += 1
print("all", n)
""", opts=["--no-namespaces"])
    assert r.status["outcome"] == "disk_limit", r
    assert "all" not in r.out, r
    assert r.status["bounds"]["files"]["by"] == "watch"


def test_watch_refuses_directories_it_cannot_read(cordon, bounds):
    # mkdir with mode 0300: the snippet can fill it, a reader cannot list
    # it (cordon as root could; as any other uid it cannot).
    r = cordon(bounds, """
import os
os.mkdir("d", 0o300)
for i in range(50):
    open("d/f%d" % i, "w").close()
import time; time.sleep(5)
print("hidden")
""", opts=["--no-namespaces"])
    if ROOT:
        assert r.status["outcome"] == "exited", r   # root reads it all
    else:
        assert r.status["outcome"] == "disk_limit", r
        assert "hidden" not in r.out


def test_watch_refuses_trees_it_cannot_see(cordon, launcher_blobs):
    # deeper than the watch walks (RUNFS_WATCH_DEPTH_MAX, 1,024 levels;
    # a 300-deep tree is walked: test_diskbound.py), within the files bound
    r = cordon(launcher_blobs("launcher-bounds", FILES="5000"), """
import os
for i in range(1100):
    os.mkdir("d"); os.chdir("d")
import time; time.sleep(5)
print("hidden")
""", opts=["--no-namespaces"])
    assert r.status["outcome"] == "disk_limit", r
    assert "whole tree" in r.status["reason"], r.status
    assert "hidden" not in r.out


@pytest.mark.skipif(not HAS_V1, reason=NO_V1)
def test_memory_bound_holds_for_the_whole_run(cordon, bounds):
    # 4 x 200M under a 512M bound: per-process limits (as 4G) would let
    # all four live; the run's cgroup kills at least one.
    r = cordon(bounds, """
import os
pids = []
for i in range(4):
    p = os.fork()
    if p == 0:
        b = bytearray(200 << 20)
        for j in range(0, len(b), 4096): b[j] = 1
        import time; time.sleep(1)
        os._exit(0)
    pids.append(p)
print(sorted(os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in pids))
""")
    assert r.rc == 0, r
    assert "-9" in r.out, r
    m = r.status["bounds"]["memory"]
    assert m["by"] == "cgroup-v1" and m["peak"] <= 512 * MiB, r


@pytest.mark.skipif(not HAS_V1, reason=NO_V1)
def test_tmpfs_pages_count_against_memory(cordon, launcher_blobs):
    blob = launcher_blobs("launcher-bounds", DISK="1G", MEMORY="256M")
    r = cordon(blob, WRITE + """
fill('/dev/shm/a', 200)
b = bytearray(150 << 20)
for j in range(0, len(b), 4096): b[j] = 1
print("both")
""")
    assert "both" not in r.out, r
    assert r.status["outcome"] == "oom", r


def test_process_bound_holds(cordon, bounds):
    r = cordon(bounds, """
import os, time
n = 0
try:
    while n < 1000:
        if os.fork() == 0:
            time.sleep(3); os._exit(0)
        n += 1
except OSError as e:
    print("forks", n)
""")
    assert r.rc == 0, r
    n = int(r.out.split()[1])
    assert 0 < n <= 32, r
    p = r.status["bounds"]["pids"]
    if HAS_V1:
        assert p["by"] == "cgroup-v1" and p["refused"] >= 1, r
    elif ROOT:
        pytest.skip("root without a pids controller: no process bound")
    else:
        assert p["by"] == "rlimit", r


def test_required_bounds_refuse_a_fallback(cordon, launcher_blobs):
    blob = launcher_blobs("launcher-bounds-required")
    r = cordon(blob, "print('ran')\n")
    if HAS_V1:
        assert r.rc == 0 and r.out == "ran\n", r
        assert by(r, "memory") == "cgroup-v1" and by(r, "pids") == "cgroup-v1"
        r = cordon(blob, "print('ran')\n", opts=["--no-namespaces"])
        assert r.rc == 125 and "ran" not in r.out, r
        assert "mount namespace" in r.err, r
    else:
        assert r.rc == 125 and "ran" not in r.out, r
        assert "no memory cgroup" in r.err, r


def test_status_says_what_held(cordon, bounds):
    r = cordon(bounds, "pass\n")
    b = r.status["bounds"]
    assert list(b) == ["memory", "pids", "disk", "files"]
    assert b["disk"]["by"] == "tmpfs" and b["files"]["by"] == "tmpfs"
    if HAS_V1:
        assert b["memory"]["by"] == b["pids"]["by"] == "cgroup-v1", b
        assert b["memory"]["reason"] is b["pids"]["reason"] is None, b
    elif not ROOT:
        # each process capped: not the whole run, and the status says so
        assert b["memory"]["by"] == "rlimit-per-process", b
        assert b["pids"]["by"] == "rlimit", b
        assert "cgroup" in b["memory"]["reason"], b
        assert "cgroup" in b["pids"]["reason"], b
    assert b["memory"]["limit"] == 512 * MiB and b["pids"]["limit"] == 32
