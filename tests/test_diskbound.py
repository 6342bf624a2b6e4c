"""The disk and file bounds beyond the run's own space (issue 24): what
copy-back writes into the caller's folder (hard links and holes must not
multiply the bound), what the watch (no mount namespace) sees of files
that are open but not in the tree (unlinked, O_TMPFILE), what the watch
costs cordon's CPU on a large tree, and workdirs a SIGKILLed cordon left.
Every test runs real snippets under the shipped base policy (through
tests/policies/launcher-bounds.policy, small bounds).  Run as root and as
uid 65534 by tests/run-pytest.sh."""
import json
import os
import pathlib
import signal
import subprocess
import time

import pytest

from conftest import BUILD, WARM_OK

MiB = 1 << 20
CORDON = str(BUILD / "cordon")


def stored(folder):
    """Bytes the folder's tree takes (each inode once) and its entries."""
    seen, blocks, entries = set(), 0, 0
    for dirpath, dirs, files in os.walk(folder):
        for n in dirs + files:
            st = os.lstat(os.path.join(dirpath, n))
            entries += 1
            if (st.st_dev, st.st_ino) not in seen:
                seen.add((st.st_dev, st.st_ino))
                blocks += st.st_blocks * 512
    return blocks, entries


# One 1 MiB file and 60 hard links to it: 1 MiB in the run's tmpfs, 61
# MiB if each link comes back as a copy of its own.
LINKS = """
import os
with open("big", "wb") as f:
    f.write(b"x" * (1 << 20))
for i in range(60):
    os.link("big", "link%d" % i)
print("linked", os.stat("big").st_nlink)
"""

# 40 files of almost 2 MiB (the file-size limit is the disk bound) with
# one byte each: 160 KiB in the tmpfs, 80 MiB written dense.
HOLES = """
import os
for i in range(40):
    with open("sparse%d" % i, "wb") as f:
        f.truncate((2 << 20) - 4096)
        f.seek(100)
        f.write(b"y")
print("holes", sum(os.stat("sparse%d" % i).st_blocks for i in range(40)))
"""


@pytest.fixture(scope="module")
def small(launcher_blobs):
    return launcher_blobs("launcher-bounds", DISK="2M", FILES="200")


def check_copyback(r, wd, limit=2 * MiB, files=200):
    assert r.rc == 0, r
    used, entries = stored(wd)
    # every entry created counts, and at most a block of rounding each
    assert entries <= files, (entries, r)
    assert used <= limit + entries * 4096, (used, r)
    cb = r.status["copyback"]
    assert cb is not None, r
    assert cb["bytes"] <= limit and cb["entries"] <= files, cb
    return cb


def test_copyback_counts_hard_links(cordon, small, tmp_path):
    wd = tmp_path / "wd"
    wd.mkdir()
    r = cordon(small, LINKS, opts=["--workdir", str(wd)])
    assert "linked 61" in r.out, r
    cb = check_copyback(r, wd)
    # 61 MiB cannot come back under a 2 MiB bound: some were left out,
    # and the status says so.
    assert cb["truncated"] is True and cb["over_bound"] > 0, cb
    # what came back is whole: 1 or 2 of the 61 names (readdir's order)
    back = [p for p in wd.iterdir() if p.name != "snippet.py"]
    assert 1 <= len(back) <= 2, back
    assert all(p.read_bytes() == b"x" * MiB for p in back)
    assert cb["over_bound"] == 61 - len(back), cb


def test_copyback_keeps_holes(cordon, small, tmp_path):
    wd = tmp_path / "wd"
    wd.mkdir()
    r = cordon(small, HOLES, opts=["--workdir", str(wd)])
    assert r.out.startswith("holes"), r
    cb = check_copyback(r, wd)
    # the data is one byte a file: all 40 fit once holes stay holes
    back = sorted(p.name for p in wd.iterdir() if p.name.startswith("sp"))
    assert len(back) == 40 and cb["truncated"] is False, (back, cb)
    data = (wd / "sparse7").read_bytes()
    assert len(data) == (2 << 20) - 4096 and data[100:101] == b"y", r
    assert data.count(0) == len(data) - 1


def test_copyback_entries_bounded(cordon, launcher_blobs, tmp_path):
    # links do not take an inode each in every tmpfs, but each one copied
    # back is an entry created in the caller's folder
    blob = launcher_blobs("launcher-bounds", DISK="8M", FILES="40")
    wd = tmp_path / "wd"
    wd.mkdir()
    r = cordon(blob, """
import os
open("one", "w").write("1")
n = 0
try:
    for i in range(200):
        os.link("one", "l%d" % i); n += 1
except OSError as e:
    pass
print("links", n)
""", opts=["--workdir", str(wd)])
    cb = check_copyback(r, wd, limit=8 * MiB, files=40)
    assert cb["entries"] <= 40, cb


def test_copyback_reported_when_all_fits(cordon, small, tmp_path):
    wd = tmp_path / "wd"
    wd.mkdir()
    (wd / "in.txt").write_text("input")
    r = cordon(small, "import os\nos.mkdir('d')\n"
               "open('d/out', 'w').write('out')\n", opts=["--workdir", str(wd)])
    cb = check_copyback(r, wd)
    assert cb == {"bytes": 8, "entries": 3, "skipped": 0, "over_bound": 0,
                  "truncated": False}, cb
    assert (wd / "d" / "out").read_text() == "out"


def test_no_copyback_no_report(cordon, small):
    r = cordon(small, "pass\n")
    assert r.rc == 0 and r.status["copyback"] is None, r


@pytest.mark.skipif(not WARM_OK, reason="no warm pool built "
                    "(build/warm/_cordon_warm.so: no Python headers)")
def test_warm_copyback_counts_hard_links(cordon, warm_pools, tmp_path):
    pool = warm_pools(BUILD / "policies" / "code_gen.cpol")
    wd = tmp_path / "wd"
    wd.mkdir()
    r = cordon(None, LINKS, opts=["--limit", "disk=2M", "--limit",
               "files=200", "--workdir", str(wd)], warm=pool)
    assert r.status and r.status["warm"] is True, r
    assert "linked 61" in r.out, r
    cb = check_copyback(r, wd)
    assert cb["truncated"] is True, cb


# ---- the watch (no mount namespace) ------------------------------------

@pytest.fixture(scope="module")
def watched(launcher_blobs):
    return launcher_blobs("launcher-bounds", DISK="8M", FILES="1000")


HELD = """
import os, sys, time
fds = []
for i in range(10):
    if sys.argv[1] == "tmpfile":
        fd = os.open(".", os.O_TMPFILE | os.O_WRONLY, 0o600)
    else:
        fd = os.open("f%d" % i, os.O_CREAT | os.O_WRONLY, 0o600)
        os.unlink("f%d" % i)
    for j in range(6):
        os.write(fd, b"z" * (1 << 20))
    fds.append(fd)
print("holding", len(fds), flush=True)
time.sleep(60)
print("held")
"""


@pytest.mark.parametrize("how", ["unlinked", "tmpfile"])
def test_watch_counts_open_files_not_in_the_tree(cordon, watched, how):
    # 60 MiB held open under an 8 MiB bound, none of it in the tree
    r = cordon(watched, HELD, how, opts=["--no-namespaces"])
    assert "held" not in r.out.split(), r
    assert r.status["outcome"] == "disk_limit", r
    assert r.status["bounds"]["disk"]["by"] == "watch", r


def test_watch_counts_files_open_in_a_child(cordon, watched):
    # the writer forks; the child holds the unlinked file, the parent not
    r = cordon(watched, """
import os, time
fds = [os.open("f%d" % i, os.O_CREAT | os.O_WRONLY, 0o600) for i in (0, 1)]
for i in (0, 1):
    os.unlink("f%d" % i)
if os.fork() == 0:
    for fd in fds:
        for j in range(6):
            os.write(fd, b"z" * (1 << 20))
    time.sleep(60)
    os._exit(0)
for fd in fds:
    os.close(fd)
os.wait()
print("held")
""", opts=["--no-namespaces"])
    assert "held" not in r.out, r
    assert r.status["outcome"] == "disk_limit", r


MAPPED = """
import mmap, os, sys, time
maps = []
for i in range(int(sys.argv[2])):
    size = int(sys.argv[3])
    fd = os.open("m%d" % i, os.O_CREAT | os.O_RDWR, 0o600)
    os.ftruncate(fd, size)
    maps.append(mmap.mmap(fd, size))
    os.unlink("m%d" % i)
    if sys.argv[1] == "closed":
        os.close(fd)
    for j in range(0, size, 4096):      # its blocks written through the map
        maps[-1][j] = 1
print("mapped", flush=True)
time.sleep(float(sys.argv[4]))
print("held", len(maps))
"""


def test_watch_counts_a_mapped_file_held_open(cordon, watched):
    # files mapped with no name left, their descriptors kept (as CPython's
    # multiprocessing arenas keep theirs): measured through the
    # descriptors by any uid, so 60 MiB under an 8 MiB bound ends the run
    # for its size, not for what the watch could not see
    r = cordon(watched, MAPPED, "open", "10", str(6 << 20), "60",
               opts=["--no-namespaces"])
    assert "held" not in r.out, r
    assert r.status["outcome"] == "disk_limit", r
    assert "could not look into" not in r.status["reason"], r


def test_watch_lets_a_small_mapped_file_held_open_run(cordon, watched):
    # the same, one page: the run goes on (under uid 65534 the watch,
    # which may not read /proc/PID/map_files, used to end it as unseen)
    r = cordon(watched, MAPPED, "open", "1", "4096", "1.5",
               opts=["--no-namespaces"])
    assert r.rc == 0 and "held" in r.out, r
    assert r.status["outcome"] == "exited", r


def test_watch_fails_closed_on_a_mapped_file_not_held(cordon, watched):
    # mapped, the descriptors closed: only root can measure them (through
    # map_files); another uid cannot, which counts as past the bound (or
    # the file system's free space, which the watch also follows, says
    # the run took more than its bound first)
    r = cordon(watched, MAPPED, "closed", "10", str(6 << 20), "60",
               opts=["--no-namespaces"])
    assert "held" not in r.out, r
    assert r.status["outcome"] == "disk_limit", r


def test_watch_sees_past_a_zombie(cordon, watched):
    # a child that exited and was not waited for: the kernel shows a
    # process with no memory as root's, so a watch that is not root
    # cannot open its /proc/PID/fd; it holds nothing (it used to end the
    # run as disk_limit, under uid 65534)
    r = cordon(watched, """
import os, time
for i in range(3):
    if os.fork() == 0:
        os._exit(0)
time.sleep(0.4)
print("DONE")
""", opts=["--no-namespaces"])
    assert r.rc == 0 and "DONE" in r.out, r
    assert r.status["outcome"] == "exited", r


def test_watch_counts_a_hidden_process_as_past_the_bound(cordon,
                                                         launcher_blobs):
    # a process that made itself non-dumpable hides its /proc files from
    # a watch that is not root: that counts as past the bound, and the
    # status says why (root looks into it and lets it run)
    blob = launcher_blobs("launcher-watchblind")
    r = cordon(blob, """
import ctypes, time
assert ctypes.CDLL(None).prctl(4, 0, 0, 0, 0) == 0   # PR_SET_DUMPABLE
time.sleep(1)
print("DONE")
""", opts=["--no-namespaces"])
    if os.geteuid() == 0:
        assert r.rc == 0 and "DONE" in r.out, r
        return
    assert "DONE" not in r.out, r
    assert r.status["outcome"] == "disk_limit", r
    assert "could not look into" in r.status["reason"], r


def test_watch_cpu_is_bounded_on_a_large_tree(launcher_blobs,
                                              tmp_path):
    # 10,001 files, past half of the files bound: the watch used to walk
    # the tree every 5 ms, a CPU of cordon's own (outside the run's
    # cgroup and CPU limit) for as long as the run liked.  Measured as
    # CPU time, not wall time: cordon's own share of the run's wall.
    blob = launcher_blobs("launcher-bounds", DISK="64M", FILES="20000")
    snip = tmp_path / "s.py"
    snip.write_text("""
import os, time
os.mkdir("t")
for i in range(10001):
    open("t/f%d" % i, "w").close()
print("made", flush=True)
time.sleep(8)
""")
    st = tmp_path / "st.json"
    pid = os.fork()
    if pid == 0:
        try:
            os.execv(CORDON, [CORDON, "--no-namespaces", "--quiet",
                              "--status-file", str(st), str(blob),
                              str(snip)])
        finally:
            os._exit(127)
    t0 = time.monotonic()
    _, status, ru = os.wait4(pid, 0)
    wall = time.monotonic() - t0
    s = json.loads(st.read_text())
    assert s["outcome"] == "exited", s
    assert s["bounds"]["files"]["by"] == "watch", s
    total = ru.ru_utime + ru.ru_stime
    own = total - (s["user_ms"] + s["sys_ms"]) / 1000
    # the sleep alone is 8 s of wall; cordon may use a fraction of it
    assert own < 0.25 * 8, (own, total, wall, s)


# A creator as fast as one process can make files, then it waits (so a
# run the watch did not stop shows it: "made" past the bound, "stopped"
# when the file system said no).
FAST = """
import os, time
n = 0
try:
    while n < 200000:
        os.close(os.open("f%d" % n, os.O_CREAT | os.O_WRONLY, 0o600))
        n += 1
except OSError as e:
    print("stopped", n, e.strerror, flush=True)
print("made", n, flush=True)
time.sleep(30)
"""
# The watch's overshoot on a creator this fast, documented in cordon(1):
# what it makes during one walk of its bound (about 1,000 files past
# 20,000 typically, 4,800 on a loaded 2-core machine, 6,843 with eight
# test suites sharing its two cores); the watch before issue 38 let it
# pass by half again (32,757, 29,772), which this still catches.
OVERSHOOT = 0.4


def test_watch_stops_a_fast_creator_at_the_files_bound(launcher_blobs,
                                                        cordon, tmp_path):
    blob = launcher_blobs("launcher-bounds", DISK="64M", FILES="20000")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    env = dict(os.environ, TMPDIR=str(tmpdir))
    r = cordon(blob, FAST, opts=["--no-namespaces"], env=env, timeout=120)
    s = r.status
    assert s["outcome"] == "disk_limit", r
    assert s["bounds"]["files"]["by"] == "watch", s
    used = s["bounds"]["files"]["used"]
    assert used <= 20000 * (1 + OVERSHOOT), s["bounds"]
    assert "made" not in r.out, r
    # the run's folder and its files are gone
    assert list(tmpdir.iterdir()) == [], list(tmpdir.iterdir())[:3]


@pytest.mark.skipif(os.geteuid() != 0, reason="mounts a small tmpfs")
def test_watch_never_fills_the_callers_file_system(launcher_blobs, cordon,
                                                   tmp_path):
    # a files bound far above what TMPDIR's file system has: the watch
    # ends the run as the file system runs low, before the run fills it
    blob = launcher_blobs("launcher-bounds", DISK="64M", FILES="100000")
    small = tmp_path / "small"
    small.mkdir()
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64M,nr_inodes=8000",
                    "cordon-test", str(small)], check=True)
    try:
        r = cordon(blob, FAST, opts=["--no-namespaces"],
                   env=dict(os.environ, TMPDIR=str(small)), timeout=120)
        free = os.statvfs(small).f_favail
        left = list(small.iterdir())
    finally:
        subprocess.run(["umount", str(small)], check=True)
    assert r.status["outcome"] == "disk_limit", r
    assert "file system ran low" in r.status["reason"], r.status
    # (a creator that takes the last 1/32 during one walk of the tree
    # can meet ENOSPC first: cordon(1); not asserted here)
    assert left == [] and free > 7900, (left[:3], free)


# A tree DEPTH folders deep, made and removed without holding a
# descriptor a level (the run's own nofile bound), or left for cordon.
DEEP = """
import os, sys, time
depth, keep = int(sys.argv[1]), sys.argv[2] == "keep"
for i in range(depth):
    os.mkdir("d")
    os.chdir("d")
# a walk or more of the whole tree: a walk waits up to RUNFS_WATCH_SHARE
# times the last one's CPU (watchpace.c), longer on a slow machine
time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 0.3)
if not keep:
    for i in range(depth):
        os.chdir("..")
        os.rmdir("d")
print("done", depth, flush=True)
"""


@pytest.mark.parametrize("keep", ["rm", "keep"])
def test_watch_walks_a_300_deep_tree(launcher_blobs, cordon, tmp_path, keep):
    # the watch once gave up 64 levels down and ended the run as past its
    # bounds (disk_limit, blamed on "a process of the run")
    blob = launcher_blobs("launcher-bounds", DISK="64M", FILES="2000")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    r = cordon(blob, DEEP, "300", keep, opts=["--no-namespaces"],
               env=dict(os.environ, TMPDIR=str(tmpdir)), timeout=120)
    assert r.rc == 0 and "done 300" in r.out, r
    assert r.status["outcome"] == "exited", r.status
    assert r.status["bounds"]["files"]["by"] == "watch", r.status
    assert list(tmpdir.iterdir()) == [], list(tmpdir.iterdir())[:3]


def test_watch_ends_a_tree_deeper_than_it_walks(launcher_blobs, cordon,
                                                tmp_path):
    # past RUNFS_WATCH_DEPTH_MAX (1024) what the tree holds is unknown:
    # over the bound, and the reason says it was the tree.  The tree is
    # held 30 s, not 0.3: under ASan on a loaded machine the next walk
    # came after it was gone (CI), and a tree gone holds nothing.
    blob = launcher_blobs("launcher-bounds", DISK="64M", FILES="2000")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    r = cordon(blob, DEEP, "1100", "rm", "30", opts=["--no-namespaces"],
               env=dict(os.environ, TMPDIR=str(tmpdir)), timeout=120)
    assert r.status["outcome"] == "disk_limit", r
    assert "whole tree (deeper than 1024 levels" in r.status["reason"], r
    assert "done" not in r.out, r
    assert list(tmpdir.iterdir()) == [], list(tmpdir.iterdir())[:3]


@pytest.mark.skipif(os.geteuid() != 0,
                    reason="mounts a small tmpfs, then runs cordon as 65534")
def test_watch_never_fills_the_callers_file_system_as_nobody(
        launcher_blobs):
    # the same as uid 65534 (the case: an inode flood once left
    # the caller's TMPDIR with 0 free inodes): what that uid may use
    # (f_favail) is what the reserve keeps
    import shutil
    import tempfile
    top = pathlib.Path(tempfile.mkdtemp(prefix="cordon-nobody."))
    try:
        os.chmod(top, 0o755)
        blob = top / "b.cpol"
        shutil.copyfile(launcher_blobs("launcher-bounds", DISK="64M",
                                       FILES="100000"), blob)
        (top / "s.py").write_text(FAST)
        out = top / "out"
        out.mkdir()
        os.chown(out, 65534, 65534)
        for f in (blob, top / "s.py"):
            os.chmod(f, 0o644)
        small = top / "small"
        small.mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o",
                        "size=64M,nr_inodes=8000,mode=0777", "cordon-test",
                        str(small)], check=True)
        try:
            r = subprocess.run(
                ["setpriv", "--reuid=65534", "--regid=65534",
                 "--clear-groups", "--", CORDON, "--no-namespaces",
                 "--status-file", str(out / "st.json"), str(blob),
                 str(top / "s.py")],
                env=dict(os.environ, TMPDIR=str(small)),
                capture_output=True, text=True, timeout=120)
            free = os.statvfs(small).f_favail
            left = list(small.iterdir())
        finally:
            subprocess.run(["umount", str(small)], check=True)
        st = json.loads((out / "st.json").read_text())
    finally:
        shutil.rmtree(top)
    assert st["outcome"] == "disk_limit", (st, r.stderr)
    assert "file system ran low" in st["reason"], st
    assert left == [] and free > 7900, (left[:3], free)


# ---- workdirs a SIGKILLed cordon left ------------------------------------

def kill_mid_run(blob, tmpdir, opts=()):
    """Start a run that sleeps, wait for its workdir, SIGKILL cordon."""
    env = dict(os.environ, TMPDIR=str(tmpdir))
    p = subprocess.Popen([CORDON, *opts, str(blob), "-"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    p.stdin.write(b"import time\nprint('up', flush=True)\n"
                  b"open('mark', 'w').write('m')\ntime.sleep(60)\n")
    p.stdin.close()
    assert p.stdout.readline() == b"up\n"
    left = [d for d in tmpdir.iterdir() if d.name.startswith("cordon.")]
    p.send_signal(signal.SIGKILL)
    p.wait()
    # the run's own processes die with cordon (parent-death signal)
    time.sleep(0.5)
    return left, env


def test_killed_cordon_leaves_no_host_directory(small, tmp_path):
    # with namespaces and the workdir below the run's private /tmp, the
    # host's directory is removed once its files are in the run tmpfs:
    # a cordon killed during the run leaves nothing, before any sweep
    tmpdir = tmp_path / "t"
    tmpdir.mkdir()
    env = dict(os.environ, TMPDIR=str(tmpdir))
    p = subprocess.Popen([CORDON, str(small), "-"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         env=env)
    p.stdin.write(b"import os, time\nprint('up', os.getcwd(), flush=True)\n"
                  b"open('mark', 'w').write('m')\ntime.sleep(60)\n")
    p.stdin.close()
    up = p.stdout.readline().split()
    assert up[:1] == [b"up"] and up[1].startswith(str(tmpdir).encode()), up
    end = time.monotonic() + 30          # "never gone", not speed
    while list(tmpdir.iterdir()) and time.monotonic() < end:
        time.sleep(0.01)
    gone = list(tmpdir.iterdir()) == []
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert gone, list(tmpdir.iterdir())
    time.sleep(0.5)
    assert list(tmpdir.iterdir()) == [], list(tmpdir.iterdir())


@pytest.fixture
def var_tmp():
    """A TMPDIR outside /tmp (the run's private /tmp does not cover the
    workdir there: the host's directory is its mount point)."""
    import shutil
    import tempfile
    d = pathlib.Path(tempfile.mkdtemp(prefix="cordon-test.", dir="/var/tmp"))
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("opts", [[], ["--no-namespaces"]])
def test_next_run_removes_what_a_killed_cordon_left(small, var_tmp, opts):
    tmpdir = var_tmp
    left, env = kill_mid_run(small, tmpdir, opts)
    assert len(left) == 1 and left[0].exists(), left
    r = subprocess.run([CORDON, str(small), "-"], input="print(1)\n",
                       capture_output=True, text=True, env=env)
    assert r.returncode == 0 and r.stdout == "1\n", r
    assert not left[0].exists(), list(tmpdir.iterdir())
    assert list(tmpdir.iterdir()) == [], list(tmpdir.iterdir())


ORPHAN = """
import os, time
if os.fork() == 0:
    if os.fork() == 0:
        print("orphan", os.getpid(), flush=True)
        time.sleep(120)
    os._exit(0)
time.sleep(120)
"""


def alive(pid):
    try:
        with open("/proc/%d/stat" % pid) as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def start_time(pid):
    with open("/proc/%d/stat" % pid, "rb") as f:
        return int(f.read().rsplit(b")", 1)[1].split()[19])


def killed_groups(pid, start):
    """Run groups made by process pid that started at start (cgstale.c's
    names): an earlier process with the same pid may have left one
    under another parent, where no sweep of this machine's runs reaches."""
    import glob
    return glob.glob("/sys/fs/cgroup/**/cordon-*-%d-%d.*" % (pid, start),
                     recursive=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="run cgroups are root's")
def test_next_run_removes_a_killed_cordons_busy_cgroup(small, tmp_path):
    # Issue 38 (the soak): a SIGKILLed cordon's group still had tasks
    # when the next run swept it (its run dying, or, without namespaces,
    # a grandchild that outlived it), the rmdir failed and nothing came
    # back for it.  The next run kills them and removes the group.
    env = dict(os.environ, TMPDIR=str(tmp_path))
    p = subprocess.Popen([CORDON, "--no-namespaces", str(small), "-"],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=env)
    p.stdin.write(ORPHAN.encode())
    p.stdin.close()
    line = p.stdout.readline().split()
    assert line[:1] == [b"orphan"], line
    orphan = int(line[1])
    start = start_time(p.pid)
    groups = killed_groups(p.pid, start)
    if not groups:
        p.kill()
        p.wait()
        os.kill(orphan, signal.SIGKILL)
        pytest.skip("no run cgroup here")
    p.send_signal(signal.SIGKILL)
    p.wait()
    try:
        time.sleep(0.3)
        assert alive(orphan)                       # outlived its cordon
        r = subprocess.run([CORDON, str(small), "-"], input="print(1)\n",
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r
        assert killed_groups(p.pid, start) == [], groups
        time.sleep(0.2)
        assert not alive(orphan)
    finally:
        try:
            os.kill(orphan, signal.SIGKILL)
        except ProcessLookupError:
            pass


def test_sweep_spares_live_kept_and_foreign(small, tmp_path):
    tmpdir = tmp_path / "t"
    tmpdir.mkdir()
    env = dict(os.environ, TMPDIR=str(tmpdir))
    # a live run's workdir
    live = subprocess.Popen([CORDON, "--no-namespaces", str(small), "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    live.stdin.write(b"import time\nprint('up', flush=True)\n"
                     b"time.sleep(60)\n")
    live.stdin.close()
    assert live.stdout.readline() == b"up\n"
    mine = [d for d in tmpdir.iterdir()]
    # a kept one
    k = subprocess.run([CORDON, "--keep-workdir", str(small), "-"],
                       input="open('k', 'w').write('k')\n",
                       capture_output=True, text=True, env=env)
    assert k.returncode == 0, k
    kept = [d for d in tmpdir.iterdir() if d not in mine]
    assert len(kept) == 1, kept
    # a link by the name cordon makes, to a folder that must stay
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious").write_text("p")
    (tmpdir / "cordon.ABCDEF").symlink_to(victim)
    try:
        r = subprocess.run([CORDON, str(small), "-"], input="print(1)\n",
                           capture_output=True, text=True, env=env)
        assert r.returncode == 0, r
        assert all(d.exists() for d in mine), mine
        assert (kept[0] / "k").read_text() == "k"
        assert (victim / "precious").read_text() == "p"
        assert (tmpdir / "cordon.ABCDEF").is_symlink()
    finally:
        live.kill()
        live.wait()
