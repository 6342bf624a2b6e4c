#!/usr/bin/env python3
"""The CPU a warm call costs the pool, and its page faults, for two or
more builds side by side (issue 42; bench/README.md section 7).

    python3 bench/warm_cpu.py [--rounds 4] [--calls 10] [--pause 0.3]
                              BUILD [BUILD ...]

Each build's pool of code_gen is started; then, round after round, each
pool in turn gets --calls calls of the pandas+matplotlib snippet (and of
an empty one), --pause seconds apart (0: back-to-back).  Measured per
call, from /proc/PID/stat: the CPU of the pool's tree (its template and,
where it has one, its maker, each with the descendants it has reaped:
spares, their init and run; the spares alive at both ends are left out
alike), its minor faults, and the template's own minor faults (the
request path: taking, dispatching, answering).  These move little with
the machine's load, where wall-clock times do.
"""
import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
from warm import EMPTY, PLOT, children, pool_tree  # noqa: E402


def tree(pool):
    return pool_tree(pool["pid"], pool["keep"])


def start(build, name):
    srv = subprocess.Popen([os.path.join(build, "cordon"), "--serve", name,
                            os.path.join(build, "policies", "code_gen.cpol")],
                           stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    line = srv.stderr.readline()
    if "ready" not in line:
        sys.exit("%s: %s" % (build, line))
    return {"build": build, "name": name, "srv": srv, "pid": srv.pid}


def call(pool, snippet, cwd):
    subprocess.run([os.path.join(pool["build"], "cordon"), "--submit",
                    pool["name"], snippet], cwd=cwd, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def series(pool, snippet, calls, pause, cwd):
    import time
    a = tree(pool)
    for _ in range(calls):
        call(pool, snippet, cwd)
        time.sleep(pause)
    b = tree(pool)
    return [(y - x) / calls for x, y in zip(a, b)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--calls", type=int, default=10)
    ap.add_argument("--pause", type=float, default=0.3)
    ap.add_argument("builds", nargs="+")
    a = ap.parse_args()
    cwd = tempfile.mkdtemp(prefix="warm-cpu-")
    for n, text in (("plot.py", PLOT), ("empty.py", EMPTY)):
        with open(os.path.join(cwd, n), "w") as f:
            f.write(text)
    pools = [start(os.path.abspath(b), "@bench-warm-cpu-%d-%d" %
                   (os.getpid(), i)) for i, b in enumerate(a.builds)]
    try:
        import time
        time.sleep(2)
        for p in pools:
            call(p, "plot.py", cwd)             # first calls: not counted
            time.sleep(1)
            p["keep"] = children(p["pid"])
            p["rows"] = {"plot.py": [], "empty.py": []}
        for _ in range(a.rounds):
            for snippet in ("plot.py", "empty.py"):
                for p in pools:
                    p["rows"][snippet].append(
                        series(p, snippet, a.calls, a.pause, cwd))
        print("per call, mean of %d rounds x %d calls, pause %.1f s; "
              "load %s" % (a.rounds, a.calls, a.pause,
                           open("/proc/loadavg").read().split()[0]))
        print("%-40s %-9s %9s %12s %12s" % ("build", "snippet", "tree CPU ms",
                                           "tree faults", "template's"))
        for snippet in ("plot.py", "empty.py"):
            for p in pools:
                rows = p["rows"][snippet]
                m = [sum(r[i] for r in rows) / len(rows) for i in range(3)]
                lo = min(r[0] for r in rows)
                hi = max(r[0] for r in rows)
                print("%-40s %-9s %6.1f (%.0f-%.0f) %9.0f %12.1f" % (
                    p["build"][-40:], snippet, m[0], lo, hi, m[1], m[2]))
    finally:
        for p in pools:
            p["srv"].terminate()
            p["srv"].wait(60)


if __name__ == "__main__":
    main()
