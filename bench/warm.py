"""bench section 7: warm pools (cordon --serve / --submit) against cold
cordon, an in-process exec() and a bare interpreter; throughput of warm
runs; the template's memory.  Imported by bench/run.py."""
import json
import os
import statistics
import subprocess
import tempfile
import threading
import time

PLOT = """import pandas as pd, numpy as np
import matplotlib
import matplotlib.pyplot as plt
df = pd.DataFrame({"g": np.arange(1000) % 10, "v": np.arange(1000) * 0.5})
m = df.groupby("g").v.mean()
fig = plt.figure()
m.plot.bar()
fig.savefig("out.png")
plt.close(fig)
"""
EMPTY = "pass\n"


def _time(argv, cwd):
    t0 = time.perf_counter()
    p = subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        raise RuntimeError("%s: exit %d: %s" % (argv[:3], p.returncode,
                                                 p.stderr[-300:]))
    return dt


# Between two calls of a latency series (all of them, warm, cold and
# in-process alike): a tool call arrives at a pool at rest, its spares
# made.  Back-to-back calls are the throughput rows.
GAP = 0.3


def _median(argv, cwd, n, gap=GAP):
    _time(argv, cwd)      # once, not counted (page cache, pool warm-up)
    xs = []
    for _ in range(n):
        time.sleep(gap)
        xs.append(_time(argv, cwd))
    return statistics.median(xs) * 1e3


def _inprocess(code, n):
    """exec() in an interpreter that has the imports: the unsafe path."""
    prog = ("import time, os, statistics, tempfile, sys\n"
            "import pandas, numpy, matplotlib, matplotlib.pyplot\n"
            "code = compile(sys.stdin.read(), 'snippet.py', 'exec')\n"
            "xs = []\nos.chdir(tempfile.mkdtemp())\n"
            "for i in range(%d):\n    time.sleep(%g)\n"
            "    t = time.perf_counter()\n"
            "    exec(code, {'__name__': '__main__'})\n"
            "    xs.append(time.perf_counter() - t)\n"
            "print(statistics.median(xs[1:]) * 1e3)\n" % (n + 1, GAP))
    p = subprocess.run(["/usr/bin/python3", "-I", "-c", prog], input=code,
                       capture_output=True, text=True, check=True)
    return float(p.stdout)


def _rss_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def _throughput(cordon, pool, snippet, cwd, workers, duration):
    count = [0] * workers
    stop = time.perf_counter() + duration

    def work(i):
        while time.perf_counter() < stop:
            _time([cordon, "--submit", pool, snippet], cwd)
            count[i] += 1
    ts = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
    t0 = time.perf_counter()
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return sum(count) / (time.perf_counter() - t0)


def warm_table(build, blob, rounds, duration):
    build = os.path.abspath(build)
    blob = os.path.abspath(blob)
    cordon = os.path.join(build, "cordon")
    title = "### 7. Warm pools: `%s` (cordon --serve, --submit)" % \
        os.path.basename(blob)
    head = ["what", "median ms", "vs cold", "notes"]
    if not os.path.exists(os.path.join(build, "warm", "_cordon_warm.so")):
        return title, head, [["warm pool", "–", "–", "not built (no "
                              "Python headers)"]]
    d = tempfile.mkdtemp(prefix="cordon-bench-warm.")
    for name, code in (("plot.py", PLOT), ("empty.py", EMPTY)):
        with open(os.path.join(d, name), "w") as f:
            f.write(code)
    pool = "@cordon-bench-%d" % os.getpid()
    srv = subprocess.Popen([cordon, "--serve", pool, blob],
                           stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.PIPE, text=True)
    try:
        t0 = time.perf_counter()
        ready = srv.stderr.readline()
        start_ms = (time.perf_counter() - t0) * 1e3
        if "ready" not in ready:
            return title, head, [["warm pool", "–", "–", ready.strip()]]
        rows = []
        n = max(5, rounds)
        cold_plot = _median([cordon, blob, "plot.py"], d, max(5, n // 3))
        warm_plot = _median([cordon, "--submit", pool, "plot.py"], d, n)
        inproc = _inprocess(PLOT, n)
        warm_b2b = _median([cordon, "--submit", pool, "plot.py"], d, n, 0)
        rows.append(["pandas+matplotlib snippet, cold cordon",
                     "%.1f" % cold_plot, "1.0x", "1,000-row DataFrame, "
                     "groupby, bar plot saved as PNG"])
        rows.append(["same, warm (--submit)", "%.1f" % warm_plot,
                     "%.1fx faster" % (cold_plot / warm_plot),
                     "%.2fx the in-process exec()" % (warm_plot / inproc)])
        rows.append(["same, warm, back-to-back (no pause between calls)",
                     "%.1f" % warm_b2b, "%.1fx faster" % (cold_plot /
                                                          warm_b2b),
                     "each call waits for a spare being made"])
        rows.append(["same, exec() in a running interpreter (no sandbox)",
                     "%.1f" % inproc, "%.1fx faster" % (cold_plot / inproc),
                     "imports done; the unsafe in-process path"])
        cold_e = _median([cordon, blob, "empty.py"], d, n)
        warm_e = _median([cordon, "--submit", pool, "empty.py"], d, n)
        bare = _median(["/usr/bin/python3", "-I", "empty.py"], d, n)
        rows.append(["empty snippet, cold cordon", "%.1f" % cold_e, "1.0x",
                     ""])
        rows.append(["empty snippet, warm (--submit)", "%.1f" % warm_e,
                     "%.1fx faster" % (cold_e / warm_e),
                     "%.2fx a bare python3 -I" % (warm_e / bare)])
        rows.append(["bare python3 -I empty.py (no sandbox)", "%.1f" % bare,
                     "", ""])
        tput = _throughput(cordon, pool, "plot.py", d, 4, duration)
        rows.append(["throughput: 4 concurrent callers, %g s" % duration,
                     "%.1f runs/s" % tput, "", "pandas+matplotlib snippet"])
        st = os.path.join(d, "st.json")
        _time([cordon, "--submit", pool, "--status-file", st, "plot.py"], d)
        with open(st) as f:
            s = json.load(f)
        peak = s.get("bounds", {}).get("memory", {}).get("peak")
        rows.append(["template RSS", "%.0f MiB" % (_rss_kib(srv.pid) / 1024),
                     "", "ready after %.0f ms (imports, warm-up)" % start_ms])
        rows.append(["per-run memory (cgroup peak)",
                     "%.1f MiB" % (peak / 2**20) if peak else "–", "",
                     "pages the run itself touched; max_rss %d MiB counts "
                     "the template's shared pages" % (s["max_rss_kb"] // 1024)])
        return title, head, rows
    finally:
        srv.kill()
        srv.wait()
