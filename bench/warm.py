"""bench section 7: warm pools (cordon --serve / --submit, and the
Python client's warm=True) against cold cordon, an in-process exec() and
a bare interpreter; throughput of warm runs against in-process workers;
the CPU a warm call costs the pool's whole tree against an in-process
exec()'s; the template's memory; issue 27's and 42's goals.  Imported by
bench/run.py and bench/warm_cpu.py."""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Issues 27's and 42's goals (the notes say met or MISSED).
T_WARM = 1.15         # warm pandas+matplotlib call / in-process exec()
T_B2B = 1.5           # back-to-back, against back-to-back exec() (42)
T_EMPTY = 0.5         # empty snippet warm / bare python3 -I
T_TPUT = 0.5          # 4 callers / 4 in-process workers, runs/s (42)
T_TPUT_STRETCH = 0.75
T_CPU = 3.0           # the pool tree's CPU a call / exec()'s CPU (42)
T_RUN_MIB = 16        # a run's own memory (cgroup peak)
TICK_MS = 1000.0 / os.sysconf("SC_CLK_TCK")

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


def _series(argv, cwd, n, gap=GAP):
    """n timed calls (seconds), gap apart, after one not counted."""
    _time(argv, cwd)      # once, not counted (page cache, pool warm-up)
    xs = []
    for _ in range(n):
        time.sleep(gap)
        xs.append(_time(argv, cwd))
    return xs


def _ms(xs):
    """(median, p99) in ms; p99 by nearest rank (of fewer than 100
    calls, the slowest)."""
    return (statistics.median(xs) * 1e3,
            sorted(xs)[max(0, -(-len(xs) * 99 // 100) - 1)] * 1e3)


IMPORTS = "import pandas, numpy, matplotlib, matplotlib.pyplot\n"


def _inprocess(code, n):
    """exec() in an interpreter that has the imports: the unsafe path.
    n calls GAP apart, then n back-to-back: two lists of seconds, and a
    third, the process's CPU seconds of each call GAP apart."""
    prog = ("import json, time, os, tempfile, sys\n" + IMPORTS +
            "code = compile(sys.stdin.read(), 'snippet.py', 'exec')\n"
            "os.chdir(tempfile.mkdtemp())\nout, cpu = [], []\n"
            "for gap in (%g, 0):\n    xs, cs = [], []\n"
            "    for i in range(%d):\n        time.sleep(gap)\n"
            "        t, c = time.perf_counter(), time.process_time()\n"
            "        exec(code, {'__name__': '__main__'})\n"
            "        cs.append(time.process_time() - c)\n"
            "        xs.append(time.perf_counter() - t)\n"
            "    out.append(xs[1:])\n"
            "    cpu = cpu if gap == 0 else cs[1:]\n"
            "out.append(cpu)\n"
            "print(json.dumps(out))\n" % (GAP, n + 1))
    p = subprocess.run(["/usr/bin/python3", "-I", "-c", prog], input=code,
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def _inprocess_throughput(code, workers, duration):
    """Runs per second of workers processes that imported the libraries
    and exec() code back-to-back for duration seconds, started together
    once all have imported (the import is not counted)."""
    prog = ("import os, sys, tempfile, time\n" + IMPORTS +
            "code = compile(open(sys.argv[1]).read(), 'snippet.py', "
            "'exec')\nos.chdir(tempfile.mkdtemp())\n"
            "print('ready', flush=True)\nsys.stdin.readline()\n"
            "n, t0 = 0, time.perf_counter()\n"
            "while time.perf_counter() - t0 < %g:\n"
            "    exec(code, {'__name__': '__main__'})\n    n += 1\n"
            "print(n / (time.perf_counter() - t0), flush=True)\n"
            % duration)
    with tempfile.NamedTemporaryFile("w", suffix=".py") as f:
        f.write(code)
        f.flush()
        ps = [subprocess.Popen(["/usr/bin/python3", "-I", "-c", prog,
                                f.name], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, text=True)
              for _ in range(workers)]
        try:
            for p in ps:
                if p.stdout.readline().strip() != "ready":
                    raise RuntimeError("in-process worker failed")
            for p in ps:
                p.stdin.write("go\n")
                p.stdin.flush()
            return sum(float(p.stdout.readline()) for p in ps)
        finally:
            for p in ps:
                p.kill()
                p.wait()


def _client_series(blob, cordon, code, n):
    """n warm runs through the Python client of this tree (clients/python
    on sys.path): Client(..., warm=True).run(TOOL, code), GAP apart, the
    first (the pool's start) not counted.  Seconds."""
    sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
    import cordon as client   # noqa: E402  (this tree's, not installed)
    tool = os.path.basename(blob)[:-len(".cpol")]
    xs = []
    # priority None: the --submit rows' (the default "idle" yields to
    # every other process: on a shared machine, their load is measured).
    with client.Client(os.path.dirname(blob), cordon=cordon, warm=True,
                       priority=None) as c:
        for i in range(n + 1):
            time.sleep(GAP)
            t0 = time.perf_counter()
            r = c.run(tool, code)
            xs.append(time.perf_counter() - t0)
            if not r.ok or not r.status.get("warm"):
                raise RuntimeError("client run: %s %s warm=%s" % (
                    r.outcome, r.reason, r.status.get("warm")))
    return xs[1:]


def proc_stat(pid):
    """(CPU ms with reaped children, minor faults with theirs, own minor
    faults) of pid, from /proc/PID/stat."""
    with open("/proc/%d/stat" % pid) as f:
        v = f.read().rsplit(")", 1)[1].split()
    # fields from 3 (state): minflt 10, cminflt 11, utime 14 .. cstime 17
    minflt, cminflt = int(v[7]), int(v[8])
    cpu = sum(int(x) for x in v[11:15]) * TICK_MS
    return cpu, minflt + cminflt, minflt


def children(pid):
    try:
        with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
            return [int(c) for c in f.read().split()]
    except OSError:
        return []


def pool_tree(pid, keep):
    """(CPU ms, minor faults, the template's own minor faults) of a
    pool's tree: its template (pid) and, of keep (its children at the
    start: the maker), those still its children, each with the
    descendants it has reaped (spares, their init and run; the spares
    alive at both ends of a series are left out alike)."""
    pids = [pid] + [p for p in keep if p in children(pid)]
    cpu = faults = own = 0
    for i, p in enumerate(pids):
        c, f, o = proc_stat(p)
        cpu, faults = cpu + c, faults + f
        own = o if i == 0 else own
    return cpu, faults, own


def _goal(x, target, what, op="<="):
    ok = x <= target if op == "<=" else x >= target
    return "goal %s %g%s: %s" % (op, target, what, "met" if ok
                                 else "MISSED")


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


def _row(what, xs, cold, notes):
    """One latency row: median, p99, how much faster than cold."""
    med, p99 = _ms(xs)
    vs = "1.0x" if cold is None else "%.1fx faster" % (cold / med) \
        if cold >= med else "%.1fx slower" % (med / cold)
    return [what, "%.1f" % med, "%.1f" % p99, vs, notes]


def _plot_rows(cordon, blob, pool, d, n, tree):
    """Goal 1: the pandas+matplotlib call, warm against in-process; the
    CPU of the pool's tree (tree(): pool_tree's) over the warm series
    against exec()'s own."""
    cold = _series([cordon, blob, "plot.py"], d, max(5, n // 3))
    before = tree()
    warm = _series([cordon, "--submit", pool, "plot.py"], d, n)
    tree_ms = (tree()[0] - before[0]) / (n + 1)
    inproc, inproc_b2b, inproc_cpu = _inprocess(PLOT, n)
    b2b = _series([cordon, "--submit", pool, "plot.py"], d, n, 0)
    c = _ms(cold)[0]
    r, rb = _ms(warm)[0] / _ms(inproc)[0], _ms(b2b)[0] / _ms(inproc_b2b)[0]
    return [
        _row("pandas+matplotlib snippet, cold cordon", cold, None,
             "1,000-row DataFrame, groupby, bar plot saved as PNG"),
        _row("same, warm (--submit)", warm, c, "%.2fx the in-process "
             "exec(); %s" % (r, _goal(r, T_WARM, "x"))),
        _row("same, warm, back-to-back (no pause between calls)", b2b, c,
             "each call waits for a spare being made; %.2fx the "
             "back-to-back exec(); %s" % (rb, _goal(rb, T_B2B, "x"))),
        _row("same, exec() in a running interpreter (no sandbox)", inproc,
             c, "imports done; the unsafe in-process path"),
        _row("same, exec() back-to-back (no sandbox)", inproc_b2b, c,
             "the same interpreter, no pause"),
        _cpu_row(tree_ms, statistics.mean(inproc_cpu) * 1e3)]


def _cpu_row(tree_ms, exec_ms):
    """Issue 42: the CPU a warm call costs the pool's whole tree."""
    r = tree_ms / exec_ms if exec_ms else 0
    return ["CPU a warm call costs, the pool's whole tree", "%.0f ms CPU"
            % tree_ms, "", "", "template, maker, spares (made, exercised "
            "or not, run, reaped), the warm series' calls; exec()'s own "
            "CPU a call %.1f ms; %.2fx; %s" % (exec_ms, r,
                                                _goal(r, T_CPU, "x"))]


def _empty_rows(cordon, blob, pool, d, n):
    """Goal 2: an empty snippet, warm through --submit and through the
    Python client, against a bare interpreter."""
    cold = _series([cordon, blob, "empty.py"], d, n)
    warm = _series([cordon, "--submit", pool, "empty.py"], d, n)
    bare = _series(["/usr/bin/python3", "-I", "empty.py"], d, n)
    c, b = _ms(cold)[0], _ms(bare)[0]
    rows = [_row("empty snippet, cold cordon", cold, None, ""),
            _row("empty snippet, warm (--submit)", warm, c,
                 "%.2fx a bare python3 -I; %s" % (
                     _ms(warm)[0] / b, _goal(_ms(warm)[0] / b, T_EMPTY,
                                             "x")))]
    try:
        cl = _client_series(blob, cordon, EMPTY, n)
    except Exception as e:   # noqa: BLE001  (a row, not a failed bench)
        rows.append(["empty snippet, warm (Python client)", "–", "–", "–",
                     "failed: %s" % str(e)[:200]])
    else:
        r = _ms(cl)[0] / b
        rows.append(_row("empty snippet, warm (Python client)", cl, c,
                         "Client(warm=True, priority=None).run(): its own "
                         "pool; %.2fx a bare python3 -I; %s"
                         % (r, _goal(r, T_EMPTY, "x"))))
    rows.append(_row("bare python3 -I empty.py (no sandbox)", bare, c, ""))
    return rows


def _tput_row(cordon, pool, d, duration):
    """Goal 3: 4 concurrent callers against 4 in-process workers."""
    tput = _throughput(cordon, pool, "plot.py", d, 4, duration)
    inproc = _inprocess_throughput(PLOT, 4, duration)
    r = tput / inproc if inproc else 0
    return ["throughput: 4 concurrent callers, %g s" % duration,
            "%.1f runs/s" % tput, "", "", "pandas+matplotlib snippet; "
            "4 in-process workers (imports done, exec() back-to-back, "
            "%g s): %.1f runs/s; ratio %.2f; %s" % (
                duration, inproc, r, _goal(r, T_TPUT, "", ">=") +
                " (stretch %g)" % T_TPUT_STRETCH)]


def _memory_rows(cordon, pool, d, srv, start_ms):
    """Goal 4: a run's own memory; the template's RSS stated."""
    st = os.path.join(d, "st.json")
    _time([cordon, "--submit", pool, "--status-file", st, "plot.py"], d)
    with open(st) as f:
        s = json.load(f)
    peak = s.get("bounds", {}).get("memory", {}).get("peak")
    return [
        ["template RSS", "%.0f MiB" % (_rss_kib(srv.pid) / 1024), "", "",
         "ready after %.0f ms (imports, warm-up)" % start_ms],
        ["per-run memory (cgroup peak)",
         "%.1f MiB" % (peak / 2**20) if peak else "–", "", "",
         "pages the run itself touched; max_rss %d MiB counts the "
         "template's shared pages; %s" % (
             s["max_rss_kb"] // 1024, _goal(peak / 2**20, T_RUN_MIB, " MiB")
             if peak else "goal <= %d MiB: no verdict (no memory cgroup)"
             % T_RUN_MIB)]]


def warm_table(build, blob, rounds, duration):
    build = os.path.abspath(build)
    blob = os.path.abspath(blob)
    cordon = os.path.join(build, "cordon")
    title = "### 7. Warm pools: `%s` (cordon --serve, --submit)" % \
        os.path.basename(blob)
    head = ["what", "median ms", "p99 ms", "vs cold", "notes"]
    if not os.path.exists(os.path.join(build, "warm", "_cordon_warm.so")):
        return title, head, [["warm pool", "–", "–", "–", "not built (no "
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
            return title, head, [["warm pool", "–", "–", "–",
                                  ready.strip()]]
        n = max(5, rounds)
        keep = children(srv.pid)        # the maker, made at the start

        def tree():
            return pool_tree(srv.pid, keep)
        return title, head, (_plot_rows(cordon, blob, pool, d, n, tree) +
                             _empty_rows(cordon, blob, pool, d, n) +
                             [_tput_row(cordon, pool, d, duration)] +
                             _memory_rows(cordon, pool, d, srv, start_ms))
    finally:
        srv.kill()
        srv.wait()
        shutil.rmtree(d, ignore_errors=True)
