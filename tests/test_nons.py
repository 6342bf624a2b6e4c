"""No-namespace mode, the pod path (issue 39 part 3): what cordon says
when the namespaces are refused, and what still bounds a run without
them.  A container runtime's seccomp profile is played by a filter
installed on cordon before its exec (no_new_privs, then a BPF program
that refuses clone and unshare with namespace flags with EPERM and
clone3 with ENOSYS, as containerd's RuntimeDefault does).  Run as root
and as uid 65534 by tests/run-pytest.sh."""
import ctypes
import os
import platform
import struct
import subprocess

import pytest

from conftest import BUILD

CORDON = str(BUILD / "cordon")
EPERM, ENOSYS = 1, 38


def _filter_program():
    def stmt(code, k):
        return struct.pack("HBBI", code, 0, 0, k)

    def jump(code, k, jt, jf):
        return struct.pack("HBBI", code, jt, jf, k)
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    allow, errno = 0x7fff0000, 0x00050000
    return b"".join([
        stmt(ld, 4), jump(jeq, 0xc000003e, 0, 9),        # x86_64, else allow
        stmt(ld, 0),
        jump(jeq, 435, 0, 1), stmt(ret, errno | ENOSYS),  # clone3
        jump(jeq, 272, 0, 1), stmt(ret, errno | EPERM),   # unshare
        jump(jeq, 56, 0, 3),                              # clone with
        stmt(ld, 16), jump(jset, 0x7E020000, 0, 1),       # CLONE_NEW*
        stmt(ret, errno | EPERM),
        stmt(ret, allow)])


def runtime_profile():
    """A preexec_fn: the calling process under the filter above."""
    prog = ctypes.create_string_buffer(_filter_program())
    fprog = ctypes.create_string_buffer(struct.pack(
        "HxxxxxxQ", len(prog.raw) // 8, ctypes.addressof(prog)))
    libc = ctypes.CDLL(None, use_errno=True)
    ul = ctypes.c_ulong

    def install():
        install.keep = prog   # the program's buffer lives as long
        if libc.prctl(38, ul(1), ul(0), ul(0), ul(0)) != 0 or \
                libc.prctl(22, ul(2), ul(ctypes.addressof(fprog)), ul(0),
                           ul(0)) != 0:
            os._exit(99)
    return install


needs_x86_64 = pytest.mark.skipif(
    platform.machine() != "x86_64",
    reason="the stand-in runtime profile is an x86_64 BPF program")


def under_profile(*args, **kw):
    return subprocess.run([CORDON, *args], preexec_fn=runtime_profile(),
                          capture_output=True, text=True, timeout=60, **kw)


@needs_x86_64
def test_named_hosts_refusal_names_the_runtime_profile(policies_dir,
                                                       tmp_path):
    # before: "... but the kernel refused namespaces. Hint: sysctl
    # user.max_user_namespaces, ..." where the kernel's settings allowed
    # them and the runtime's profile refused the clone
    snip = tmp_path / "s.py"
    snip.write_text("print('ran')\n")
    r = under_profile(str(policies_dir / "idc_query.cpol"), str(snip))
    assert r.returncode == 125, r
    assert "ran" not in r.stdout, r
    assert "the seccomp filter cordon runs under" in r.stderr, r.stderr
    assert "(clone: EPERM)" in r.stderr, r.stderr
    assert "sysctl" not in r.stderr, r.stderr


@needs_x86_64
def test_check_names_the_runtime_profile(policies_dir):
    r = under_profile("--check", str(policies_dir / "code_gen.cpol"))
    line = [x for x in r.stdout.splitlines()
            if x.startswith("namespaces:")]
    assert line and "the seccomp filter cordon runs under" in line[0], \
        r.stdout
    assert "the kernel refuses" not in r.stdout, r.stdout


@needs_x86_64
def test_a_run_falls_back_under_the_runtime_profile(policies_dir, tmp_path):
    # a policy that needs no namespace runs without them, watched
    snip = tmp_path / "s.py"
    snip.write_text("print('ran')\n")
    st = tmp_path / "st.json"
    r = under_profile("--status-file", str(st),
                      str(policies_dir / "code_gen.cpol"), str(snip))
    assert r.returncode == 0 and "ran" in r.stdout, r
    import json
    s = json.loads(st.read_text())
    assert s["layers"]["namespaces"] == [], s["layers"]
    for b in ("disk", "files"):
        # the status says plainly what bounds them, and that it is not
        # exact
        assert s["bounds"][b]["by"] == "watch", s["bounds"]
        assert "not held exactly" in s["bounds"][b]["reason"], s["bounds"]


# ---- a dropped ELF through ld.so ----------------------------------------
# The snippet copies the interpreter into its workdir (it may read it, not
# execute the copy) and runs the copy through ld.so, which maps it as a
# library.  The copy then tries a secret outside the workdir (Landlock)
# and a chmod (the filter's EPERM).
DROPPED = r"""
import os, shutil, subprocess, sys
shutil.copyfile(sys.executable, "py")
try:
    subprocess.run(["./py", "-c", "pass"])
    print("exec RAN")
except PermissionError:
    print("exec refused")
code = '''
import os, sys
print("DROPPED RAN", flush=True)
try:
    open(sys.argv[1]).read()
    print("secret READ")
except OSError as e:
    print("secret refused", e.errno)
try:
    os.chmod(".", 0o777)
    print("chmod DONE")
except OSError as e:
    print("chmod refused", e.errno)
'''
ld = os.path.realpath("/lib64/ld-linux-x86-64.so.2")
r = subprocess.run([ld, "./py", "-I", "-c", code, sys.argv[1]],
                   capture_output=True, text=True)
print("ld.so rc", r.returncode, r.stdout, r.stderr[-200:])
"""


@needs_x86_64
@pytest.mark.parametrize("nsopts", [[], ["--no-namespaces"]],
                         ids=["ns", "no-ns"])
def test_dropped_elf_through_ld_so(cordon, policies_dir, tmp_path, nsopts):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOPSECRET\n")
    r = cordon(policies_dir / "code_gen.cpol", DROPPED, str(secret),
               opts=nsopts)
    assert r.rc == 0, r
    assert "exec refused" in r.out, r       # Landlock: no execute right
    # the status says which it was
    assert r.status["layers"]["workdir_noexec"] is (not nsopts), r.status
    if nsopts:
        # no noexec mount: ld.so maps and runs the copy, which is still
        # under the run's Landlock domain and seccomp filter
        assert "DROPPED RAN" in r.out, r
        assert "secret refused 13" in r.out, r
        assert "chmod refused 1" in r.out, r
    else:
        # the run tmpfs is noexec: ld.so cannot map it
        assert "DROPPED RAN" not in r.out, r
        assert "failed to map segment" in r.out, r
    assert "TOPSECRET" not in r.out and "secret READ" not in r.out, r
    assert "chmod DONE" not in r.out, r


# ---- the whole-run process bound without cgroups or namespaces ----------
# Fork until refused (at most 16), then report how many were made.
FORKS = r"""
import os, time
kids = []
try:
    while len(kids) < 16:
        pid = os.fork()
        if pid == 0:
            time.sleep(3)
            os._exit(0)
        kids.append(pid)
except OSError as e:
    print("refused", e.errno)
print("made", len(kids), flush=True)
for k in kids:
    os.waitpid(k, 0)
"""


def test_process_bound_without_namespaces(launcher_blobs, cordon):
    blob = launcher_blobs("launcher-bounds", PIDS="12")
    held = []
    if os.geteuid() != 0:
        # processes of the same uid outside the run (another run, another
        # replica): RLIMIT_NPROC counts them against the run's bound
        held = [subprocess.Popen(["sleep", "30"]) for _ in range(6)]
    try:
        r = cordon(blob, FORKS, opts=["--no-namespaces"])
    finally:
        for p in held:
            p.kill()
            p.wait()
    pids = r.status["bounds"]["pids"]
    made = int(r.out.split("made ")[1].split()[0])
    if os.geteuid() == 0:
        # root: RLIMIT_NPROC does not bind it; a cgroup does, or nothing
        # (the status says which, never "rlimit")
        assert pids["by"] in ("cgroup-v1", "cgroup-v2", "none"), pids
        if pids["by"] != "none":
            assert made <= 12, r
        else:
            assert "does not apply RLIMIT_NPROC to root" in \
                pids["reason"], pids
        return
    if pids["by"] in ("cgroup-v1", "cgroup-v2"):
        pytest.skip("a delegated pids cgroup holds the bound here")
    assert pids["by"] == "rlimit", pids
    assert "every process of uid %d on the host counts" % os.getuid() in \
        pids["reason"], pids
    # the six held outside took their share: the run got at most
    # 12 - 6 - 1 (its own first process); other processes of the uid
    # (the test itself, other tests) can only leave it fewer
    assert made <= 12 - 6 - 1, r
    assert "refused 11" in r.out, r          # EAGAIN


# ---- multiprocessing ----------------------------------------------------
# Processes and pipes need no /dev/shm; a Lock (and so Queue, Pool,
# ProcessPoolExecutor) is a POSIX semaphore, which glibc makes as a file
# in /dev/shm, a path it does not let be changed.  With namespaces that is
# the run's private tmpfs.  Without one it is the host's (the pod's),
# which the run may not write (a file there would be outside every bound
# and beside other programs' shared memory): cordon preloads
# libcordon-shm.so, which makes them in WORKDIR/.cordon-shm instead.
MULTI = r"""
import multiprocessing as mp, os, sys
from multiprocessing import shared_memory
def child(conn):
    conn.send(os.getpid())
def square(x):
    return x * x
def bump(lock, v):
    for _ in range(100):
        with lock:
            v.value += 1
if __name__ == "__main__":
    a, b = mp.Pipe()
    p = mp.Process(target=child, args=(b,))
    p.start()
    other = a.recv() != os.getpid()
    p.join()
    print("process", p.exitcode, other, flush=True)
    try:
        mp.Lock()
        print("lock made")
    except OSError as e:
        print("lock refused", e.errno)
        sys.exit(0)
    for method in ("fork", "spawn"):      # forkserver: a socket (refused)
        ctx = mp.get_context(method)
        with ctx.Pool(2) as pool:
            print(method, "pool", sum(pool.map(square, range(10))),
                  flush=True)
        q = ctx.Queue()
        q.put(method)
        lock, v = ctx.Lock(), ctx.Value("i", 0)
        ps = [ctx.Process(target=bump, args=(lock, v)) for _ in range(3)]
        [x.start() for x in ps]
        [x.join() for x in ps]
        print(method, "queue", q.get(), "value", v.value, flush=True)
    sm = shared_memory.SharedMemory(create=True, size=64)
    sm.buf[:2] = b"ok"
    again = shared_memory.SharedMemory(sm.name)
    print("shared", bytes(again.buf[:2]).decode(), flush=True)
    again.close()
    sm.close()
    sm.unlink()
    d = os.environ.get("CORDON_SHM_DIR")
    print("folder", d and os.path.dirname(d) == os.getcwd())
    from concurrent.futures import ThreadPoolExecutor
    with ThreadPoolExecutor(2) as tp:
        print("threadpool", sum(tp.map(abs, [-1, -2])))
"""


def shm_names():
    try:
        return set(os.listdir("/dev/shm"))
    except OSError:
        return set()


@pytest.mark.parametrize("nsopts", [[], ["--no-namespaces"]],
                         ids=["ns", "no-ns"])
def test_multiprocessing(cordon, policies_dir, nsopts):
    before = shm_names()
    r = cordon(policies_dir / "code_gen.cpol", MULTI, opts=nsopts,
               timeout=180)
    assert r.rc == 0, r
    assert "process 0 True" in r.out, r
    assert "lock made" in r.out, r
    for method in ("fork", "spawn"):
        assert "%s pool 285" % method in r.out, r
        assert "%s queue %s value 300" % (method, method) in r.out, r
    assert "shared ok" in r.out and "threadpool 3" in r.out, r
    assert r.status["layers"]["private_shm"] is (not nsopts), r.status
    # with namespaces the run's own /dev/shm; without, its workdir's
    # folder (libcordon-shm.so): never the host's /dev/shm
    assert ("folder True" if nsopts else "folder None") in r.out, r
    assert shm_names() - before == set(), shm_names() - before


def test_shm_library_grants_no_dev_shm(cordon, policies_dir):
    """The library moves the run's own objects; /dev/shm itself stays
    refused, by name or through the library with the folder unset."""
    code = r"""
import ctypes, os
try:
    open("/dev/shm/cordon-test-escape", "w")
    print("dev/shm written")
except OSError as e:
    print("dev/shm refused", e.errno)
print("preloaded", "libcordon-shm" in os.environ.get("LD_PRELOAD", ""))
os.environ.pop("CORDON_SHM_DIR", None)
import multiprocessing as mp
try:
    mp.Lock()
    print("lock made without the folder")
except OSError as e:
    print("lock refused", e.errno)
"""
    r = cordon(policies_dir / "code_gen.cpol", code,
               opts=["--no-namespaces"])
    assert r.rc == 0, r
    assert "preloaded True" in r.out, r
    assert "dev/shm refused 13" in r.out, r
    assert "lock refused 13" in r.out, r
    assert not os.path.exists("/dev/shm/cordon-test-escape")
