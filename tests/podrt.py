"""A cordon worker pod under a real OCI runtime (runc), for the tests
(test_pod.py) and the bench (bench/pod.py); other tests may use it.

The container has deploy/kubernetes/worker.yaml's security context: uid
and gid 10001, every capability dropped, no_new_privs, a read-only root,
a `work` volume (a host folder bound on /work, as an emptyDir is a node
folder) and a /tmp tmpfs, the pod's memory, CPU and pids limits, and one
of three seccomp profiles (PROFILES):

  runtime-default  containerd's RuntimeDefault for amd64 without
                   capabilities, written out by containerd_default() from
                   containerd's contrib/seccomp/seccomp_default.go
  podman           podman's and CRI-O's default (containers/common's
                   seccomp.json, ../shared/external-fixtures), resolved as
                   the runtime resolves it for amd64 and no capabilities
  cordon-worker    deploy/kubernetes/profiles/cordon-worker.json

The image is the host's Debian packages: /usr and /etc bound read-only
(Debian's merged /usr, so /bin and /lib are links into it), the build
folder on /opt/cordon/build and clients/python on /opt/cordon/python,
both read-only.  The root file system is only those mount points and
links: made once, cached under BUILD/oci-rootfs/ by a digest of its
layout.

Pod(profile).start() runs a reaper as the container's init (so orphans
do not stay zombies and "nothing left behind" can be checked);
pod.sh(script) runs a shell command in it as uid 10001 with the same
process settings, via `runc exec`; pod.stop() ends and deletes it.
"""
import hashlib
import json
import os
import pathlib
import shutil
import subprocess
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
SRC = pathlib.Path(os.environ.get("CORDON_SRC", HERE.parent))
BUILD = pathlib.Path(os.environ.get("CORDON_BUILD", SRC / "build"))
FIXTURES = pathlib.Path(os.environ.get(
    "CORDON_FIXTURES", SRC / ".." / "shared" / "external-fixtures"))
KUBE = SRC / "deploy" / "kubernetes"

UID = GID = 10001
CORDON = "/opt/cordon/build/cordon"
POLICIES = "/opt/cordon/build/policies"
PYPATH = "/opt/cordon/python"
# worker.yaml's limits (the container's), and a pod pids limit.
MEMORY = 4 << 30
CPU_QUOTA = 200000          # 2 CPUs (period 100000)
PIDS = 4096
PATH = "/usr/local/bin:/usr/bin:/bin"

# ---- the three seccomp profiles ----------------------------------------

# containerd's DefaultProfile (contrib/seccomp/seccomp_default.go, main
# branch in 2025), for GOARCH amd64, a bounding set without
# CAP_SYS_ADMIN and the others, kernel >= 4.8: default errno (EPERM), these
# names allowed, personality with 5 values, ptrace (kernel >= 4.8),
# arch_prctl and modify_ldt, clone without namespace flags, clone3 ENOSYS.
_CONTAINERD_ALLOW = """
accept accept4 access adjtimex alarm bind brk capget capset chdir chmod chown
chown32 clock_adjtime clock_adjtime64 clock_getres clock_getres_time64
clock_gettime clock_gettime64 clock_nanosleep clock_nanosleep_time64 close
close_range connect copy_file_range creat dup dup2 dup3 epoll_create
epoll_create1 epoll_ctl epoll_ctl_old epoll_pwait epoll_pwait2 epoll_wait
epoll_wait_old eventfd eventfd2 execve execveat exit exit_group faccessat
faccessat2 fadvise64 fadvise64_64 fallocate fanotify_mark fchdir fchmod
fchmodat fchown fchown32 fchownat fcntl fcntl64 fdatasync fgetxattr
flistxattr flock fork fremovexattr fsetxattr fstat fstat64 fstatat64 fstatfs
fstatfs64 fsync ftruncate ftruncate64 futex futex_time64 futex_waitv
futimesat getcpu getcwd getdents getdents64 getegid getegid32 geteuid
geteuid32 getgid getgid32 getgroups getgroups32 getitimer getpeername getpgid
getpgrp getpid getppid getpriority getrandom getresgid getresgid32 getresuid
getresuid32 getrlimit get_robust_list getrusage getsid getsockname getsockopt
get_thread_area gettid gettimeofday getuid getuid32 getxattr inotify_add_watch
inotify_init inotify_init1 inotify_rm_watch io_cancel ioctl io_destroy
io_getevents io_pgetevents io_pgetevents_time64 ioprio_get ioprio_set io_setup
io_submit io_uring_enter io_uring_register io_uring_setup ipc kill
landlock_add_rule landlock_create_ruleset landlock_restrict_self lchown
lchown32 lgetxattr link linkat listen listxattr llistxattr _llseek
lremovexattr lseek lsetxattr lstat lstat64 madvise membarrier memfd_create
memfd_secret mincore mkdir mkdirat mknod mknodat mlock mlock2 mlockall mmap
mmap2 mprotect mq_getsetattr mq_notify mq_open mq_timedreceive
mq_timedreceive_time64 mq_timedsend mq_timedsend_time64 mq_unlink mremap
msgctl msgget msgrcv msgsnd msync munlock munlockall munmap nanosleep
newfstatat _newselect open openat openat2 pause pidfd_open pidfd_send_signal
pipe pipe2 poll ppoll ppoll_time64 prctl pread64 preadv preadv2 prlimit64
process_mrelease pselect6 pselect6_time64 pwrite64 pwritev pwritev2 read
readahead readlink readlinkat readv recv recvfrom recvmmsg recvmmsg_time64
recvmsg remap_file_pages removexattr rename renameat renameat2
restart_syscall rmdir rseq rt_sigaction rt_sigpending rt_sigprocmask
rt_sigqueueinfo rt_sigreturn rt_sigsuspend rt_sigtimedwait
rt_sigtimedwait_time64 rt_tgsigqueueinfo sched_getaffinity sched_getattr
sched_getparam sched_get_priority_max sched_get_priority_min
sched_getscheduler sched_rr_get_interval sched_rr_get_interval_time64
sched_setaffinity sched_setattr sched_setparam sched_setscheduler sched_yield
seccomp select semctl semget semop semtimedop semtimedop_time64 send sendfile
sendfile64 sendmmsg sendmsg sendto setfsgid setfsgid32 setfsuid setfsuid32
setgid setgid32 setgroups setgroups32 setitimer setpgid setpriority setregid
setregid32 setresgid setresgid32 setresuid setresuid32 setreuid setreuid32
setrlimit set_robust_list setsid setsockopt set_thread_area set_tid_address
setuid setuid32 setxattr shmat shmctl shmdt shmget shutdown sigaltstack
signalfd signalfd4 sigprocmask sigreturn socket socketcall socketpair splice
stat stat64 statfs statfs64 statx symlink symlinkat sync sync_file_range
syncfs sysinfo tee tgkill time timer_create timer_delete timer_getoverrun
timer_gettime timer_gettime64 timer_settime timer_settime64 timerfd_create
timerfd_gettime timerfd_gettime64 timerfd_settime timerfd_settime64 times
tkill truncate truncate64 ugetrlimit umask uname unlink unlinkat utime
utimensat utimensat_time64 utimes vfork vmsplice wait4 waitid waitpid write
writev ptrace arch_prctl modify_ldt
"""
CLONE_NEW_ALL = 0x7E020000   # NEWNS|NEWUTS|NEWIPC|NEWUSER|NEWPID|NEWNET|NEWCGROUP


def containerd_default():
    """containerd's RuntimeDefault as runc receives it (see above)."""
    def arg(index, value, op, two=0):
        return {"index": index, "value": value, "valueTwo": two, "op": op}
    calls = [{"names": _CONTAINERD_ALLOW.split(), "action": "SCMP_ACT_ALLOW"}]
    for v in (0x0, 0x0008, 0x20000, 0x20008, 0xffffffff):
        calls.append({"names": ["personality"], "action": "SCMP_ACT_ALLOW",
                      "args": [arg(0, v, "SCMP_CMP_EQ")]})
    calls.append({"names": ["clone"], "action": "SCMP_ACT_ALLOW",
                  "args": [arg(0, CLONE_NEW_ALL, "SCMP_CMP_MASKED_EQ")]})
    calls.append({"names": ["clone3"], "action": "SCMP_ACT_ERRNO",
                  "errnoRet": 38})
    return {"defaultAction": "SCMP_ACT_ERRNO",
            "architectures": ["SCMP_ARCH_X86_64", "SCMP_ARCH_X86",
                              "SCMP_ARCH_X32"],
            "syscalls": calls}


def _kernel():
    rel = os.uname().release.split("-")[0].split(".")
    return tuple(int(x) for x in rel[:2])


def resolve(prof, caps=(), kernel=(6, 1), arch="amd64", keep_trace=False):
    """A Docker/containers-format profile as the runtime hands it to runc
    for arch, the capabilities caps and kernel: includes/excludes applied
    (every includes.cap needed, any excludes.cap excludes); the TRACE
    entries (no tracer) left out unless keep_trace."""
    def kern(v):
        return tuple(map(int, v.split(".")))
    keep = []
    for e in prof["syscalls"]:
        e = dict(e)
        inc, exc = e.pop("includes", None) or {}, e.pop("excludes",
                                                         None) or {}
        if inc.get("arches") and arch not in inc["arches"]:
            continue
        if any(c not in caps for c in inc.get("caps") or []):
            continue
        if inc.get("minKernel") and kern(inc["minKernel"]) > kernel:
            continue
        if arch in (exc.get("arches") or []) or \
                any(c in caps for c in exc.get("caps") or []):
            continue
        if exc.get("minKernel") and kern(exc["minKernel"]) <= kernel:
            continue
        if e["action"] == "SCMP_ACT_TRACE" and not keep_trace:
            continue
        e.pop("comment", None)
        keep.append(e)
    return {"defaultAction": prof["defaultAction"],
            "defaultErrnoRet": prof.get("defaultErrnoRet", 1),
            "architectures": ["SCMP_ARCH_X86_64"], "syscalls": keep}


def podman_default():
    src = FIXTURES / "oci" / "podman-seccomp.json"
    if not src.exists():
        return None
    return resolve(json.loads(src.read_text()), kernel=_kernel())


def cordon_worker():
    return json.loads((KUBE / "profiles" / "cordon-worker.json").read_text())


PROFILES = {"runtime-default": containerd_default,
            "podman": podman_default,
            "cordon-worker": cordon_worker}


# ---- the runtime -------------------------------------------------------

def unavailable():
    """Why no container can run here, or None."""
    if shutil.which("runc") is None:
        return "runc is not installed (make deps installs it)"
    if os.geteuid() != 0:
        return ("runc needs root here (a rootless runc needs a user "
                "namespace set-up and a cgroup delegation this test does "
                "not make)")
    if not (BUILD / "cordon").exists():
        return "build/cordon is not built"
    return None


_LAYOUT = ["usr/", "etc/", "opt/cordon/build/", "opt/cordon/python/",
           "work/", "tmp/:1777", "proc/", "dev/", "sys/", "run/",
           "bin@usr/bin", "lib@usr/lib", "lib64@usr/lib64",
           "sbin@usr/sbin"]


def rootfs():
    """The image's root: mount points and links only, made once."""
    key = hashlib.sha256("\n".join(_LAYOUT).encode()).hexdigest()[:16]
    root = BUILD / "oci-rootfs" / key
    if root.exists():
        return root
    tmp = pathlib.Path(tempfile.mkdtemp(dir=root.parent.parent
                                        if root.parent.exists() else BUILD,
                                        prefix=".rootfs-"))
    os.chmod(tmp, 0o755)
    for item in _LAYOUT:
        name, _, target = item.partition("@")
        name, _, mode = name.partition(":")
        if target:
            os.symlink(target, tmp / name)
        else:
            (tmp / name).mkdir(parents=True, exist_ok=True)
        if mode:     # runc gives a tmpfs the mode of its mount point
            os.chmod(tmp / name, int(mode, 8))
    root.parent.mkdir(parents=True, exist_ok=True)
    try:
        os.rename(tmp, root)
    except OSError:          # made meanwhile by another session
        shutil.rmtree(tmp, ignore_errors=True)
    return root


def _bind(dst, src, ro=True):
    return {"destination": dst, "type": "bind", "source": str(src),
            "options": ["rbind", "ro" if ro else "rw", "nosuid", "nodev"]}


def process(args, uid=UID, env=()):
    """The worker container's process settings; env ("NAME=value")
    adds to or replaces the worker's variables."""
    kv = {"PATH": PATH, "HOME": "/work", "TMPDIR": "/work",
          "LANG": "C.UTF-8", "PYTHONPATH": PYPATH}
    kv.update(e.split("=", 1) for e in env)
    return {"terminal": False, "user": {"uid": uid, "gid": uid},
            "args": list(args), "cwd": "/work",
            "env": ["%s=%s" % e for e in kv.items()],
            "capabilities": {k: [] for k in ("bounding", "effective",
                                              "inheritable", "permitted",
                                              "ambient")},
            "noNewPrivileges": True}


REAPER = ("import os, time\n"
          "while True:\n"
          "    try:\n"
          "        os.wait()\n"
          "    except ChildProcessError:\n"
          "        time.sleep(0.2)\n")


class Pod:
    """One worker container; see the module's words."""

    def __init__(self, profile_name, tmp, profile=None, image=None):
        """image: a root file system made by deploy/kubernetes/mkrootfs.py
        (cordon, its blobs and the client inside it) instead of the
        host's /usr and /etc with the build folder bound in."""
        self.name = profile_name
        self.image = image
        self.cordon = "/usr/local/bin/cordon" if image else CORDON
        self.policies = "/etc/cordon/policies" if image else POLICIES
        self.profile = profile if profile is not None else \
            PROFILES[profile_name]()
        self.dir = pathlib.Path(tmp)
        self.work = self.dir / "work"
        self.cid = "cordon-pod-%s-%d-%s" % (profile_name, os.getpid(),
                                            os.urandom(3).hex())
        self.state = self.dir / "state"

    def config(self):
        mounts = [
            {"destination": "/proc", "type": "proc", "source": "proc"},
            {"destination": "/dev", "type": "tmpfs", "source": "tmpfs",
             "options": ["nosuid", "strictatime", "mode=755",
                         "size=65536k"]},
            {"destination": "/dev/pts", "type": "devpts", "source": "devpts",
             "options": ["nosuid", "noexec", "newinstance", "ptmxmode=0666",
                         "mode=0620"]},
            {"destination": "/dev/shm", "type": "tmpfs", "source": "shm",
             "options": ["nosuid", "noexec", "nodev", "mode=1777",
                         "size=65536k"]},
            {"destination": "/dev/mqueue", "type": "mqueue",
             "source": "mqueue", "options": ["nosuid", "noexec", "nodev"]},
            {"destination": "/sys", "type": "sysfs", "source": "sysfs",
             "options": ["nosuid", "noexec", "nodev", "ro"]},
            {"destination": "/run", "type": "tmpfs", "source": "tmpfs",
             "options": ["nosuid", "nodev", "mode=755", "size=1m"]},
            {"destination": "/tmp", "type": "tmpfs", "source": "tmpfs",
             "options": ["nosuid", "nodev", "mode=1777", "size=256m"]},
            _bind("/work", self.work, ro=False),
        ]
        if not self.image:
            mounts += [_bind("/usr", "/usr"), _bind("/etc", "/etc"),
                       _bind("/opt/cordon/build", BUILD),
                       _bind("/opt/cordon/python",
                             SRC / "clients" / "python")]
        linux = {
            "namespaces": [{"type": t} for t in
                           ("pid", "network", "ipc", "uts", "mount")],
            "resources": {"memory": {"limit": MEMORY},
                          "cpu": {"quota": CPU_QUOTA, "period": 100000},
                          "pids": {"limit": PIDS}},
            "maskedPaths": ["/proc/acpi", "/proc/asound", "/proc/kcore",
                            "/proc/keys", "/proc/latency_stats",
                            "/proc/timer_list", "/proc/timer_stats",
                            "/proc/sched_debug", "/sys/firmware",
                            "/proc/scsi"],
            "readonlyPaths": ["/proc/bus", "/proc/fs", "/proc/irq",
                              "/proc/sys", "/proc/sysrq-trigger"],
            "seccomp": self.profile,
        }
        return {"ociVersion": "1.0.2", "hostname": "cordon-worker",
                "root": {"path": str(self.image or rootfs()),
                         "readonly": True},
                "process": process(["/usr/bin/python3", "-c", REAPER]),
                "mounts": mounts, "linux": linux}

    def start(self):
        self.work.mkdir(parents=True, exist_ok=True)
        os.chown(self.work, UID, GID)
        (self.dir / "config.json").write_text(json.dumps(self.config()))
        # Detached: the init keeps its stdio, so a file, not a pipe.
        log = self.dir / "runc.log"
        with open(log, "w") as f:
            r = subprocess.run(["runc", "--root", str(self.state), "run",
                                "--detach", "--bundle", str(self.dir),
                                self.cid], stdin=subprocess.DEVNULL,
                               stdout=f, stderr=f, timeout=60)
        if r.returncode != 0:
            raise RuntimeError("runc run: " + log.read_text()[-500:])
        return self

    def exec(self, args, uid=UID, env=(), timeout=120, stdin=None):
        """Run args in the container: a CompletedProcess."""
        pfile = self.dir / ("proc-%s.json" % os.urandom(4).hex())
        pfile.write_text(json.dumps(process(args, uid, env)))
        try:
            return subprocess.run(
                ["runc", "--root", str(self.state), "exec", "--process",
                 str(pfile), self.cid], input=stdin, capture_output=True,
                text=True, timeout=timeout)
        finally:
            pfile.unlink()

    def sh(self, script, **kw):
        return self.exec(["/bin/sh", "-c", script], **kw)

    def py(self, code, **kw):
        return self.exec(["/usr/bin/python3", "-c", code], **kw)

    def processes(self):
        """Commands of the container's processes but its init."""
        r = self.sh("for d in /proc/[0-9]*; do [ \"${d#/proc/}\" = 1 ] || "
                    "tr '\\0' ' ' < $d/cmdline; echo; done", uid=0)
        return [ln for ln in r.stdout.splitlines() if ln.strip()]

    def stop(self):
        subprocess.run(["runc", "--root", str(self.state), "delete", "-f",
                        self.cid], capture_output=True, timeout=60)
