#!/usr/bin/python3
"""make soak: many cold and warm runs of every outcome, with cordon and
the submitters killed at random points; then nothing may be left.

    python3 tools/soak.py --build build [--runs 300] [--seed N]

Every run ends one way (see SNIPPETS: success, exit status, exception,
timeout, output cap, own signal, a tree of sleeping and setsid()'d
children, memory and disk filled); a third of them have their cordon
(cold) or their cordon --submit (warm) sent SIGKILL or SIGTERM after a
random delay.  After the runs, one clean cold and one clean warm run
(the next run removes what a killed one left), then the pool is stopped,
and the soak fails if anything is left:

  - a process: this script is a child subreaper, so every orphan of a
    run is reparented here and is seen;
  - a cgroup: a directory made during the soak below the soak's own
    groups (as root: the soak moves itself into a fresh group in each
    v1 hierarchy, so a suite run beside it is not counted), or, where it
    cannot make them, a group of its uid below a cgroup root;
  - a directory: the runs' $TMPDIR is the soak's own and must be empty,
    and no /tmp/cordon-warm.* made during the soak may remain;
  - a mount: this namespace's mount table must not have grown;
  - the pool: its template's descriptors must be the same after the
    runs as after the warm-up, and its memory within POOL_RSS_SLACK.

Runs as whoever calls it (make soak runs it as root, then as uid 65534
on a copy, as tests/run-pytest.sh does).  Exit 0 when nothing leaked,
1 with the list otherwise.
"""
import argparse
import ctypes
import os
import pathlib
import random
import signal
import subprocess
import sys
import tempfile
import time

PR_SET_CHILD_SUBREAPER = 36
POOL_RSS_SLACK = 16 << 20       # a template may cache a little; not grow

SNIPPETS = {
    "ok": "print('hello')\n",
    "exit": "import sys\nsys.exit(3)\n",
    "exception": "raise ValueError('soak')\n",
    "timeout": "import time\ntime.sleep(60)\n",
    "output": "import sys\nsys.stdout.write('x' * (8 << 20))\n",
    "signal": "import os, signal\nos.kill(os.getpid(), signal.SIGKILL)\n",
    "tree": (
        "import os, time\n"
        "for i in range(4):\n"
        "    if os.fork() == 0:\n"
        "        os.setsid()\n"
        "        if os.fork() == 0:\n"
        "            time.sleep(60)\n"
        "        os._exit(0)\n"
        "time.sleep(60)\n"),
    "memory": (
        "chunks = []\n"
        "while True:\n"
        "    chunks.append(bytearray(64 << 20))\n"),
    "disk": (
        "i = 0\n"
        "while True:\n"
        "    with open('f%d' % i, 'wb') as f:\n"
        "        f.write(b'x' * (1 << 20))\n"
        "    i += 1\n"),
}
# Every run is bounded so that a soak of hundreds stays short.
RUN_OPTS = ["--timeout", "2", "--output", "1M", "--limit", "memory=512M",
            "--limit", "disk=8M"]


def descendants(root):
    """Pids of every live process below root (by parent links)."""
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                st = f.read()
        except OSError:
            continue
        fields = st[st.rindex(")") + 2:].split()
        if fields[0] == "Z":
            continue
        kids.setdefault(int(fields[1]), []).append(int(d))
    out, todo = [], [root]
    while todo:
        for k in kids.get(todo.pop(), []):
            out.append(k)
            todo.append(k)
    return out


class OwnGroups:
    """The soak's own cgroups: as root, a fresh group below the soak's
    cgroup in each hierarchy, which the soak moves itself into, so that
    every group its runs make (cordon makes them below the caller's) is
    below one of these, and a suite run beside the soak cannot be
    counted as its leftover.  Where the soak cannot make them (not
    root), the walk covers every hierarchy and counts only groups owned
    by the soak's uid."""

    def __init__(self):
        self.made = []          # (hierarchy's tasks file before, own dir)
        base = pathlib.Path("/sys/fs/cgroup")
        if os.getuid() != 0 or not base.is_dir():
            return
        for line in pathlib.Path("/proc/self/cgroup").read_text() \
                .splitlines():
            _, ctrls, path = line.split(":", 2)
            if not ctrls:       # v2: its no-internal-process rule would
                continue        # refuse cordon's groups below the soak
            here = base / ctrls.replace("name=", "") / path.lstrip("/")
            if not (here / "cgroup.procs").exists():
                continue
            own = here / ("cordon-soak-%d" % os.getpid())
            try:
                own.mkdir()
                (own / "cgroup.procs").write_text("%d\n" % os.getpid())
            except OSError:
                if own.is_dir():
                    own.rmdir()
                continue
            self.made.append((here, own))

    def roots(self):
        return [own for _, own in self.made]

    def leave(self):
        for here, own in reversed(self.made):
            try:
                (here / "cgroup.procs").write_text("%d\n" % os.getpid())
                own.rmdir()
            except OSError as e:
                print("soak: cannot remove %s: %s" % (own, e))


def cgroup_dirs(own):
    """Every group below the soak's own groups, or, where it has none,
    every group of the soak's uid below the cgroup roots."""
    found = set()
    roots = own.roots() or [pathlib.Path("/sys/fs/cgroup")]
    for root in roots:
        if not root.is_dir():
            continue
        for dirpath, dirnames, _ in os.walk(root):
            for d in dirnames:
                path = os.path.join(dirpath, d)
                try:
                    if own.roots() or os.stat(path).st_uid == os.getuid():
                        found.add(path)
                except OSError:
                    pass
    return found


def warm_dirs():
    return set(str(p) for p in pathlib.Path("/tmp").glob("cordon-warm.*"))


def mounts():
    with open("/proc/self/mountinfo") as f:
        return len(f.readlines())


def reap():
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def template_facts(pid):
    """(descriptors, RSS) of the pool's template, or None where this uid
    cannot read them (the template is not dumpable: only root can)."""
    try:
        fds = len(os.listdir("/proc/%d/fd" % pid))
    except PermissionError:
        return None
    with open("/proc/%d/status" % pid) as f:
        rss = next(int(line.split()[1]) << 10 for line in f
                   if line.startswith("VmRSS:"))
    return fds, rss


class Soak:
    def __init__(self, build, blob, tmp, rng):
        self.cordon = str(build / "cordon")
        self.blob = str(blob)
        self.tmp = tmp
        self.rng = rng
        self.env = dict(os.environ, TMPDIR=str(tmp / "runs"))
        (tmp / "runs").mkdir()
        self.pool = None
        self.name = "@cordon-soak-%d" % os.getpid()
        self.outcomes = {}

    def start_pool(self):
        self.pool = subprocess.Popen(
            [self.cordon, "--serve", self.name, self.blob],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE, text=True, env=self.env)
        line = self.pool.stderr.readline()
        if "ready" not in line:
            sys.exit("soak: the pool did not start: " + line +
                     self.pool.stderr.read())

    def stop_pool(self):
        self.pool.terminate()
        try:
            self.pool.wait(60)
        except subprocess.TimeoutExpired:
            self.pool.kill()
            self.pool.wait()
            return ["the pool did not stop on SIGTERM within 60 s"]
        return []

    def one(self, i, kind, warm, kill):
        snip = self.tmp / ("s%d.py" % i)
        snip.write_text(SNIPPETS[kind])
        if warm:
            cmd = [self.cordon, "--submit", self.name] + RUN_OPTS + \
                  ["--quiet", str(snip)]
        else:
            cmd = [self.cordon, "--quiet"] + RUN_OPTS + [self.blob, str(snip)]
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.DEVNULL, env=self.env)
        if kill:
            time.sleep(self.rng.uniform(0, 0.6))
            p.send_signal(kill)
        try:
            rc = p.wait(120)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            rc = "hung"
        snip.unlink()
        key = "%s %s%s" % ("warm" if warm else "cold", kind,
                           " killed" if kill else "")
        self.outcomes.setdefault(key, set()).add(rc)
        reap()

    def runs(self, n):
        kinds = sorted(SNIPPETS)
        for i in range(n):
            kind = kinds[i % len(kinds)]
            warm = self.pool is not None and self.rng.random() < 0.5
            r = self.rng.random()
            kill = signal.SIGKILL if r < 0.25 else \
                signal.SIGTERM if r < 0.33 else None
            self.one(i, kind, warm, kill)


def settled_facts(pid, first=None, wait=15.0):
    """template_facts at rest: right after a run the template is still
    making the spare that replaces the one taken (its descriptors for it
    are open), so one look may catch it busy.  The fewest descriptors
    seen within wait seconds (the warm-up's: 2 s), sooner once they are
    no more than first's; a leak is a count that stays above."""
    end = time.monotonic() + (wait if first else 2.0)
    best = template_facts(pid)
    while best and time.monotonic() < end and \
            not (first and best[0] <= first[0]):
        time.sleep(0.1)
        facts = template_facts(pid)
        if facts[0] < best[0]:
            best = facts
    return best


def leftovers(soak, before, pool_facts):
    left = []
    time.sleep(1)           # a killed run's init and proxy get their signal
    reap()
    for pid in descendants(os.getpid()):
        try:
            cmd = pathlib.Path("/proc/%d/cmdline" % pid).read_bytes()
        except OSError:
            continue
        left.append("process %d: %s" % (pid, cmd.replace(b"\0", b" ")
                                         .decode(errors="replace")[:120]))
    for d in sorted(cgroup_dirs(before["own"]) - before["cgroups"]):
        if os.path.isdir(d):
            left.append("cgroup " + d)
    for p in sorted((soak.tmp / "runs").iterdir()):
        left.append("directory " + str(p))
    for d in sorted(warm_dirs() - before["warm"]):
        left.append("pool directory " + d)
    if mounts() > before["mounts"]:
        left.append("mounts: %d before, %d after" % (before["mounts"],
                                                      mounts()))
    if pool_facts and None in pool_facts:
        print("soak: the pool's template is not dumpable: its descriptors "
              "and memory are checked as root only")
    elif pool_facts:
        (fd0, rss0), (fd1, rss1) = pool_facts
        if fd1 != fd0:
            left.append("pool template descriptors: %d -> %d" % (fd0, fd1))
        if rss1 - rss0 > POOL_RSS_SLACK:
            left.append("pool template RSS: %d -> %d KiB" % (rss0 >> 10,
                                                             rss1 >> 10))
    return left


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", default="build", type=pathlib.Path)
    ap.add_argument("--policy", default=None,
                    help="blob to run under (default: code_gen, preloads)")
    ap.add_argument("--runs", type=int, default=300)
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--no-warm", action="store_true")
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 30)
    build = a.build.resolve()
    blob = a.policy or build / "policies" / "code_gen.cpol"
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("soak: cannot become a child subreaper")
    warm = not a.no_warm and (build / "warm" / "_cordon_warm.so").exists()
    print("soak: %d runs, seed %d, uid %d, %s" % (
        a.runs, seed, os.getuid(), "cold and warm" if warm else
        "cold only (no warm pool built)"), flush=True)
    own = OwnGroups()
    before = {"cgroups": cgroup_dirs(own), "warm": warm_dirs(),
              "mounts": mounts(), "own": own}
    with tempfile.TemporaryDirectory(prefix="cordon-soak.") as tmp:
        os.chmod(tmp, 0o755)
        soak = Soak(build, blob, pathlib.Path(tmp), random.Random(seed))
        pool_facts, stopped = None, []
        if warm:
            soak.start_pool()
        try:
            if warm:
                soak.runs(10)               # warm-up: spares, caches
                first = settled_facts(soak.pool.pid)
            soak.runs(a.runs)
            soak.one(a.runs, "ok", False, None)     # the next runs
            if warm:
                soak.one(a.runs + 1, "ok", True, None)
                pool_facts = (first, settled_facts(soak.pool.pid, first))
        finally:            # a soak that fails still stops its pool
            if warm:
                stopped = soak.stop_pool()
        left = leftovers(soak, before, pool_facts) + stopped
    own.leave()
    for key in sorted(soak.outcomes):
        print("  %-26s exit %s" % (key, " ".join(
            str(x) for x in sorted(soak.outcomes[key], key=str))))
    if left:
        print("soak: FAILED (seed %d), left behind:" % seed)
        for x in left:
            print("  " + x)
        return 1
    print("soak: nothing left behind")
    return 0


if __name__ == "__main__":
    sys.exit(main())
