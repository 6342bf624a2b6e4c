#!/usr/bin/python3
"""bench section 10: launch cost in a worker pod.  Prints a Markdown
report and writes it to BUILD/bench-pod.md (make bench runs it after
run.py).

The same driver (DRIVER below) runs on the host and inside a worker
container under runc (tests/podrt.py: worker.yaml's security context,
uid 10001, read-only root, the pod's limits) with each seccomp profile:
in each round it spawns the bare command `python3 -E -s -B empty.py`
(the shipped policies' command) and `cordon radiomics.cpol empty.py`,
in turn, and times each from spawn to reap; on the host as the pod's uid
10001 too (as root cordon makes the run's cgroups, which that uid cannot:
other work), and in a CPU cgroup of its own with the pod's quota (see
host_group()).  The overhead is the median
over rounds of (cordon - bare in the same round).  Host and pod batches
alternate, so a load change falls on both.  Target (issue 39): the pod's
overhead (with profiles/cordon-worker.json, the shipped deployment)
within 1.1x of the host's.

    python3 bench/pod.py --build build [--quick] [--rounds N]

Needs root and runc (as the container tests); says "not run" without.
It takes run.py's options and ignores the others; with --only, it runs
when 10 is named.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "tests"))
import machine  # noqa: E402
from run import progress, table  # noqa: E402

TARGET = 1.1
POLICY = "radiomics"

DRIVER = r"""
import json, os, sys, time
cordon, blob, folder, rounds = sys.argv[1:5]
snip = os.path.join(folder, "empty.py")
open(snip, "w").close()
bare = ["/usr/bin/python3", "-E", "-s", "-B", snip]
wrapped = [cordon, "--quiet", blob, snip]
env = {"PATH": "/usr/bin:/bin", "TMPDIR": folder, "LANG": "C.UTF-8"}
out = {"bare": [], "cordon": []}
def once(argv):
    t = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env)
    _, st = os.waitpid(pid, 0)
    dt = (time.perf_counter() - t) * 1000
    if st != 0:
        sys.exit("%s: status %d" % (argv[0], st))
    return dt
once(bare); once(wrapped)                      # caches warm
for i in range(int(rounds)):
    order = ("bare", "cordon") if i % 2 else ("cordon", "bare")
    for k in order:
        out[k].append(once(bare if k == "bare" else wrapped))
print(json.dumps(out))
"""


def host_group():
    """A CPU cgroup for the host's driver like the pod's (runc's: its own
    group, 2 CPUs): on a loaded machine the scheduler shares the CPU
    between groups first, so a driver left among every other process
    would be slower for that alone.  Returns the group's tasks file, or
    None (then the notes say so)."""
    import podrt
    for base, quota in (("/sys/fs/cgroup/cpu", "cpu.cfs_quota_us"),
                        ("/sys/fs/cgroup", "cpu.max")):
        g = os.path.join(base, "cordon-benchpod-host")
        try:
            os.makedirs(g, exist_ok=True)
            with open(os.path.join(g, quota), "w") as f:
                f.write(str(podrt.CPU_QUOTA) if quota.endswith("_us")
                        else "%d 100000" % podrt.CPU_QUOTA)
            tasks = os.path.join(g, "tasks" if quota.endswith("_us")
                                 else "cgroup.procs")
            if os.path.exists(tasks):
                return tasks
        except OSError:
            continue
    return None


def host_batch(build, rounds):
    """On the host as the pod's uid (as root cordon would make cgroups,
    which the pod's uid cannot: not the same work)."""
    import podrt
    with tempfile.TemporaryDirectory(prefix="cordon-benchpod-") as d:
        os.chmod(d, 0o755)
        os.chown(d, podrt.UID, podrt.GID)
        who = [] if os.geteuid() else [
            "setpriv", "--reuid=%d" % podrt.UID, "--regid=%d" % podrt.GID,
            "--clear-groups", "--"]
        tasks = host_group()
        if tasks:
            who = ["sh", "-c", 'echo $$ > "$0" && exec "$@"', tasks] + who
        r = subprocess.run(who + ["/usr/bin/python3", "-c", DRIVER,
                            os.path.join(build, "cordon"),
                            os.path.join(build, "policies", POLICY + ".cpol"),
                            d, str(rounds)], capture_output=True, text=True,
                           check=True)
    return json.loads(r.stdout)


def pod_batch(pod, rounds):
    import podrt
    r = pod.exec(["/usr/bin/python3", "-c", DRIVER, podrt.CORDON,
                  "%s/%s.cpol" % (podrt.POLICIES, POLICY), "/work",
                  str(rounds)], timeout=600)
    if r.returncode != 0:
        raise RuntimeError(r.stderr[-500:])
    return json.loads(r.stdout)


def overhead(batches):
    diffs = [c - b for res in batches
             for b, c in zip(res["bare"], res["cordon"])]
    return statistics.median(diffs)


def med(batches, key):
    return statistics.median(x for res in batches for x in res[key])


def measure(build, rounds, batches):
    """Rows, and each profile's overhead over the host's measured in the
    batches interleaved with that profile's."""
    import podrt
    rows, ratios, host_all = [], {}, []
    for name in podrt.PROFILES:
        prof = podrt.PROFILES[name]()
        if prof is None:
            rows.append([name, "–", "–", "–", "–", "not run: no profile"])
            continue
        host, res = [], []
        with tempfile.TemporaryDirectory(prefix="cordon-benchpod-") as d:
            pod = podrt.Pod(name, d, profile=prof).start()
            try:
                for _ in range(batches):
                    host.append(host_batch(build, rounds))
                    res.append(pod_batch(pod, rounds))
            finally:
                pod.stop()
        host_all += host
        ratios[name] = overhead(res) / overhead(host)
        rows.append(["pod, " + name, "%.2f" % med(res, "bare"),
                     "%.2f" % med(res, "cordon"), "%.2f" % overhead(res),
                     "%.2fx" % ratios[name], "%d rounds; the host's in "
                     "the same batches: %.2f ms" % (
                         sum(len(r["bare"]) for r in res), overhead(host))])
    rows.insert(0, ["host, uid 10001", "%.2f" % med(host_all, "bare"),
                    "%.2f" % med(host_all, "cordon"),
                    "%.2f" % overhead(host_all), "1.00x",
                    "%d rounds, in batches alternating with the pods'" %
                    sum(len(r["bare"]) for r in host_all)])
    return rows, ratios


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--rounds", type=int, default=0)
    ap.add_argument("--only", default="10")
    ap.add_argument("--out", help="report path (default BUILD/bench-pod.md)")
    args, _ = ap.parse_known_args()
    if "10" not in args.only:
        return 0
    b = os.path.abspath(args.build)
    os.environ["CORDON_BUILD"] = b
    import podrt
    rounds = args.rounds or (10 if args.quick else 40)
    head = ["where", "bare median ms", "cordon median ms",
            "overhead ms", "overhead / host's", "notes"]
    with open("/proc/loadavg", encoding="ascii") as f:
        load = " ".join(f.read().split()[:3])
    why = podrt.unavailable()
    if why:
        rows, verdict = [["pod", "–", "–", "–", "–", "not run: " + why]], \
            "not run"
    else:
        progress("launch cost in a worker pod (runc) against the host")
        try:
            rows, ratios = measure(b, rounds, 2 if args.quick else 5)
        finally:
            tasks = host_group()
            if tasks:
                os.rmdir(os.path.dirname(tasks))
        r = ratios.get("cordon-worker")
        verdict = "not run" if r is None else "%s: %.2fx (target <= %.1fx)" \
            % ("met" if r <= TARGET else "MISSED", r, TARGET)
    report = "%s\n\n- load %s at start; %d cores; %s\n- %s\n\n%s" % (
        "## cordon bench: a worker pod", load, os.cpu_count() or 0,
        machine.quiet(), "cordon-worker profile, overhead against the "
        "host's: " + verdict,
        table("### 10. Launch cost in a worker pod: `python3 -E -s -B "
              "empty.py`, `%s`" % POLICY, head, rows))
    print(report)
    out = args.out or os.path.join(b, "bench-pod.md")
    with open(out, "w", encoding="utf-8") as f:
        f.write(report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
