"""Throughput: N workers launching back to back for a fixed time, then a
check that nothing was left behind (processes, mounts, temporary
directories)."""

import os
import statistics
import threading
import time


def _spawn(argv, env):
    actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, "/dev/null", os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    _, status, _ = os.wait4(pid, 0)
    return status


def _mounts():
    """Mount point, type and source of every mount we can see."""
    out = set()
    with open("/proc/self/mountinfo", encoding="utf-8") as f:
        for line in f:
            left, _, right = line.partition(" - ")
            out.add((left.split()[4], " ".join(right.split()[:2])))
    return out


def _marked(marker):
    """Live processes whose command line carries the marker."""
    pids = []
    me = os.getpid()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == me:
            continue
        try:
            with open("/proc/%s/cmdline" % d, "rb") as f:
                if marker.encode() in f.read():
                    pids.append(int(d))
        except OSError:
            continue
    return pids


def _tmp(dirs):
    out = set()
    for d, prefix in dirs:
        try:
            out |= {os.path.join(d, e) for e in os.listdir(d)
                    if e.startswith(prefix)}
        except OSError:
            pass
    return out


def snapshot(tmpdirs):
    return {"mounts": _mounts(), "tmp": _tmp(tmpdirs)}


def run(argv, env, workers, duration, marker, tmpdirs):
    """Returns a dict: launches, failures, rate, p50, p99 (ms), leftovers."""
    before = snapshot(tmpdirs)
    lat, fails = [], [0]
    lock = threading.Lock()
    deadline = time.perf_counter() + duration

    def worker():
        mine, bad = [], 0
        while time.perf_counter() < deadline:
            t0 = time.perf_counter()
            status = _spawn(argv, env)
            mine.append(time.perf_counter() - t0)
            bad += status != 0
        with lock:
            lat.extend(mine)
            fails[0] += bad

    t0 = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - t0
    after = snapshot(tmpdirs)
    procs = _marked(marker)
    lat.sort()
    n = len(lat)
    return {
        "launches": n, "failures": fails[0], "rate": n / elapsed,
        "p50": statistics.median(lat) * 1e3 if n else float("nan"),
        "p99": lat[min(n - 1, int(n * 0.99))] * 1e3 if n else float("nan"),
        "procs": procs,
        "mounts": sorted(after["mounts"] - before["mounts"]),
        "tmp": sorted(after["tmp"] - before["tmp"]),
    }
