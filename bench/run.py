#!/usr/bin/python3
"""cordon's benchmarks: launch cost, filter cost, compile time and sizes,
throughput.  Prints a Markdown report and writes it to BUILD/bench.md.

Every figure is a median of many runs, and a difference or a ratio
against a baseline measured in the same run, with the configurations
interleaved (each round runs every one once, in a shuffled order), so
that a machine that slows down during the bench slows every column.

    python3 bench/run.py --build build [--duration 10] [--quick]
"""

import argparse
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import denials  # noqa: E402
import machine  # noqa: E402  (how quiet and how fast the machine is)
import pylaunch  # noqa: E402  (the baseline launcher, timed in-process)
import throughput  # noqa: E402
import tlsproxy  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LANG": "C.UTF-8"}
# Targets of issue 6, quoted in the notes column.
T_FLOOR_RATIO = 1.3
T_FILTER_PLAIN_NS = 10
T_FILTER_COND_NS = 30
T_COMPILE_MS = 50
T_STATIC_BYTES = 1 << 20
# Issue 27: cordon's overhead against the floor that does its kernel work.
FLOOR = "floor (bench/floor.c)"
KW_FLOOR = "floor + cordon's kernel work"


class Missing(Exception):
    """A tool or file the bench needs is absent: reported, not failed."""


# --- running things -------------------------------------------------------

def spawn(argv, fds=(), env=None, stdout="/dev/null"):
    """Run argv to completion; returns (seconds, status, rusage)."""
    actions = [(os.POSIX_SPAWN_OPEN, 0, "/dev/null", os.O_RDONLY, 0),
               (os.POSIX_SPAWN_OPEN, 1, stdout, os.O_WRONLY, 0),
               (os.POSIX_SPAWN_OPEN, 2, "/dev/null", os.O_WRONLY, 0)]
    for fd, path in fds:
        actions.append((os.POSIX_SPAWN_OPEN, fd, path, os.O_RDONLY, 0))
    t0 = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env or ENV, file_actions=actions)
    _, status, ru = os.wait4(pid, 0)
    return time.perf_counter() - t0, status, ru


def probe(argv, fds=(), env=None):
    """Run once with output captured; None if it worked, else why not."""
    pass_fds = []
    opened = []
    try:
        for fd, path in fds:
            f = os.open(path, os.O_RDONLY)
            opened.append(f)
            if f != fd:
                os.dup2(f, fd)
                opened.append(fd)
            pass_fds.append(fd)
        r = subprocess.run(argv, env=env or ENV, stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60,
                           pass_fds=pass_fds, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return str(e)
    finally:
        for f in opened:
            os.close(f)
    if r.returncode == 0:
        return None
    lines = (r.stderr or r.stdout).decode(errors="replace").strip()
    last = lines.splitlines()[-1] if lines else ""
    return "exit %d: %s" % (r.returncode, last[:120])


def median_ms(xs):
    return statistics.median(xs) * 1e3 if xs else float("nan")


def p99_ms(xs):
    """The 99th percentile (nearest rank: the slowest of fewer than 100)."""
    if not xs:
        return float("nan")
    return sorted(xs)[max(0, -(-len(xs) * 99 // 100) - 1)] * 1e3


def fmt(x, unit="", digits=2):
    if x is None or x != x:
        return "–"
    return "%.*f%s" % (digits, x, unit)


def which(path):
    return path if os.path.exists(path) and os.access(path, os.X_OK) \
        else None


# --- blobs and policies ---------------------------------------------------

def blob_info(floor, blob):
    out = subprocess.run([floor, "--info", blob], capture_output=True,
                         text=True, check=False)
    if out.returncode:
        raise Missing("%s: %s" % (blob, out.stderr.strip()))
    info = {}
    for line in out.stdout.splitlines():
        key, _, rest = line.partition("\t")
        info[key] = rest.split("\t") if key == "argv" else rest
    return info


def bench_blob(ctx, name):
    """Compile bench/NAME.policy into the bench's work directory."""
    if not ctx["cordonc"]:
        return None
    out = os.path.join(ctx["work"], name + ".cpol")
    r = subprocess.run([ctx["cordonc"], "compile", "-o", out,
                        os.path.join(HERE, name + ".policy")],
                       capture_output=True, text=True, check=False)
    if r.returncode:
        print("bench: bench/%s.policy: %s" % (name, r.stderr.strip()),
              file=sys.stderr)
        return None
    ctx["info"][out] = blob_info(ctx["floor"], out)
    return out


def prepare(args, b):
    """Paths, blobs and the bench-only policy; returns a dict."""
    ctx = {"build": b, "floor": os.path.join(b, "bench/floor"),
           "sysbench": os.path.join(b, "bench/sysbench"),
           "cordon": which(os.path.join(b, "cordon")),
           "cordon_static": which(os.path.join(b, "cordon-static")),
           "cordonc": which(os.path.join(b, "cordonc")),
           "work": os.path.join(b, "bench")}
    os.makedirs(ctx["work"], exist_ok=True)
    tmp = os.path.abspath(os.path.join(ctx["work"], "tmp"))
    os.makedirs(tmp, exist_ok=True)
    ctx["tmpdir"] = tmp
    ctx["empty"] = os.path.abspath(os.path.join(ctx["work"], "empty.py"))
    with open(ctx["empty"], "w", encoding="ascii"):
        pass
    pdir = os.path.join(b, "policies")
    ctx["blobs"] = sorted(os.path.join(pdir, f) for f in os.listdir(pdir)
                          if f.endswith(".cpol")) \
        if os.path.isdir(pdir) else []
    ctx["info"] = {}
    for blob in ctx["blobs"]:
        try:
            ctx["info"][blob] = blob_info(ctx["floor"], blob)
        except Missing as e:
            print("bench: %s" % e, file=sys.stderr)
    ctx["blobs"] = [x for x in ctx["blobs"] if x in ctx["info"]]
    py = [x for x in ctx["blobs"]
          if ctx["info"][x]["argv"][0].startswith("/usr/bin/python3")]
    # cordon's default path: a python policy without named hosts (the
    # kernel-work floor starts no egress proxy); the proxy is measured
    # on its own row, with the first python policy that names hosts.
    proxied = [x for x in py if ctx["info"][x].get("hosts", "0") != "0"]
    ctx["py_proxy_blob"] = proxied[0] if proxied else None
    py = [x for x in py if x not in proxied] + proxied
    if args.policy:
        py = [x for x in ctx["blobs"]
              if os.path.basename(x) == args.policy + ".cpol"]
    ctx["py_blob"] = py[0] if py else None
    ctx["true_blob"] = bench_blob(ctx, "true")
    ctx["py_fallback"] = False
    if not ctx["py_blob"] and not args.policy:
        ctx["py_blob"] = bench_blob(ctx, "python")
        ctx["py_fallback"] = ctx["py_blob"] is not None
    for blob in (ctx["py_blob"], ctx["true_blob"]):
        if blob:
            bpf = os.path.join(ctx["work"],
                               os.path.basename(blob) + ".bpf")
            with open(bpf, "wb") as f:
                subprocess.run([ctx["floor"], "--dump-bpf", blob], stdout=f,
                               check=True)
    return ctx


def bpf_of(ctx, blob):
    return os.path.join(ctx["work"], os.path.basename(blob) + ".bpf")


# --- 1. launch cost -------------------------------------------------------

class Config:
    """One way to launch a workload: argv, fds to open, or a function."""

    def __init__(self, name, argv=None, fds=(), env=None, call=None,
                 rounds=None, note="", layer=None):
        self.name, self.argv, self.fds, self.env = name, argv, fds, env
        self.call, self.rounds, self.note = call, rounds, note
        self.layer = layer   # (the row without it, sign): layer_note
        self.detail = ""
        self.times, self.maxrss, self.error = [], [], None

    def check(self):
        if self.call:
            try:
                rc = self.call()
            except (OSError, subprocess.SubprocessError) as e:
                return str(e)
            return None if rc == 0 else "exit %d" % rc
        return probe(self.argv, self.fds, self.env)

    def run(self):
        if self.call:
            t0 = time.perf_counter()
            rc = self.call()
            self.times.append(time.perf_counter() - t0)
            return rc == 0
        secs, status, ru = spawn(self.argv, self.fds, self.env)
        self.times.append(secs)
        self.maxrss.append(ru.ru_maxrss)
        return status == 0


def bwrap_argv(bwrap, cmd, snippet, bpf_fd):
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session",
            "--ro-bind", "/usr", "/usr"]
    for d in ("/lib", "/lib64"):
        if os.path.exists(d):
            argv += ["--ro-bind", d, d]
    for d in ("/bin", "/sbin"):
        if os.path.islink(d):
            argv += ["--symlink", os.readlink(d), d]
    for f in ("/etc/ld.so.cache", "/etc/localtime", "/etc/passwd"):
        if os.path.exists(f):
            argv += ["--ro-bind", f, f]
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    if snippet:
        argv += ["--ro-bind", snippet, snippet]
    return argv + ["--seccomp", str(bpf_fd)] + cmd


def kwork_say(argv):
    """What floor --kernel-work does for this blob (its -v line)."""
    r = subprocess.run(argv[:2] + ["-v"] + argv[2:], env=ENV,
                       stdin=subprocess.DEVNULL, capture_output=True,
                       text=True, timeout=60, check=False)
    lines = [x for x in r.stderr.splitlines()
             if x.startswith("floor --kernel-work: ")]
    return "what it does here: " + (lines[-1].split(": ", 1)[1] if lines
                                    else "? (no -v line)")


def launch_configs(ctx, workload, blob, rounds):
    """The launchers to compare for one workload (a command line)."""
    cmd = workload["cmd"]
    snippet = workload.get("snippet")
    env_tmp = dict(ENV, TMPDIR=ctx["tmpdir"])
    cfgs = [Config("bare exec", cmd)]
    missing = []
    if blob:
        floor = [ctx["floor"]] + (["-s", snippet] if snippet else [])
        cfgs.append(Config(FLOOR, floor + [blob] + cmd))
        kw = [ctx["floor"], "--kernel-work"] + floor[1:] + [blob] + cmd
        cfgs.append(Config(KW_FLOOR, kw, note="layer cost: kernel work",
                           layer=(FLOOR, 1)))
        cfgs[-1].detail = kwork_say(kw)
        for key, label in (("cordon", "cordon"),
                           ("cordon_static", "cordon-static")):
            if ctx[key]:
                cfgs.append(Config(label, [ctx[key], blob,
                                           snippet or ctx["empty"]],
                                   env=env_tmp))
        proxy = ctx.get("py_proxy_blob") if snippet else None
        if ctx["cordon"] and proxy and proxy != blob:
            cfgs.append(Config("cordon `%s` (named hosts)"
                               % os.path.basename(proxy),
                               [ctx["cordon"], proxy, snippet], env=env_tmp,
                               note="layer cost: egress proxy, and that "
                               "policy's own rules",
                               layer=("cordon", 1)))
        if ctx["cordon"]:
            cfgs.append(Config("cordon --no-namespaces",
                               [ctx["cordon"], "--no-namespaces", blob,
                                snippet or ctx["empty"]], env=env_tmp,
                               note="layer cost: namespaces",
                               layer=("cordon", -1)))
            # The whole-run bounds, given on the command line where the
            # policy sets none (bench/true.policy): the run tmpfs (a
            # mount namespace, fsmount, the snippet copied in) and the
            # cgroup (v1 memory and pids as root, below the driver's own
            # groups; rlimit caps otherwise).
            for lims, what in ((["disk=64M", "files=1000"], "run tmpfs"),
                               (["memory=1G", "pids=64"], "cgroup")):
                opts = [x for lim in lims for x in ("--limit", lim)]
                cfgs.append(Config("cordon --limit %s" % " ".join(lims),
                                   [ctx["cordon"], *opts, blob,
                                    snippet or ctx["empty"]], env=env_tmp,
                                   note="layer cost: %s" % what,
                                   layer=("cordon", 1)))
            # Copy-back into the caller's folder (--workdir, what the
            # Python client does) under the same disk bound: the budget
            # that counts bytes, holes and links against it.
            wd = os.path.join(ctx["tmpdir"], "copyback")
            os.makedirs(wd, exist_ok=True)
            cfgs.append(Config("cordon --limit disk=64M files=1000 "
                               "--workdir",
                               [ctx["cordon"], "--limit", "disk=64M",
                                "--limit", "files=1000", "--workdir", wd,
                                blob, snippet or ctx["empty"]], env=env_tmp,
                               note="layer cost: copy-back, counted",
                               layer=("cordon --limit disk=64M "
                                      "files=1000", 1)))
        else:
            missing.append("cordon (build/cordon not built yet)")
        bwrap = shutil.which("bwrap")
        if bwrap:
            cfgs.append(Config("bubblewrap", bwrap_argv(bwrap, cmd, snippet,
                                                        10),
                               fds=[(10, bpf_of(ctx, blob))]))
        else:
            missing.append("bubblewrap (make deps)")
    else:
        missing.append("cordon, floor, bubblewrap: no blob for %s"
                       % workload["name"])
    fj = shutil.which("firejail")
    if fj:
        cfgs.append(Config("firejail", [fj, "--noprofile", "--quiet",
                                        "--net=none", "--seccomp"] + cmd,
                           rounds=max(5, rounds // 4)))
    else:
        missing.append("firejail (make deps)")
    pyargv = [a if a != snippet else "$SNIPPET" for a in cmd]
    cfgs.append(Config("python subprocess, warm",
                       call=lambda: pylaunch.launch(pyargv, snippet),
                       note="launch() in a running interpreter"))
    cold = [sys.executable, os.path.join(HERE, "pylaunch.py")]
    if snippet:
        cold += ["--snippet", snippet]
    cfgs.append(Config("python subprocess, cold", cold + pyargv,
                       note="python3 pylaunch.py: interpreter start too"))
    return cfgs, missing


def run_rounds(cfgs, rounds, budget=None, least=10):
    """Interleaved: every round runs each live config once, shuffled.
    With a budget (seconds), stop after it once `least` rounds ran."""
    live = []
    for c in cfgs:
        c.error = c.check()
        if c.error is None:
            live.append(c)
    for _ in range(3):   # warm-up: page cache, dentries
        for c in live:
            c.run()
        for c in live:
            c.times, c.maxrss = [], []
    t0 = time.perf_counter()
    for i in range(rounds):
        if budget and i >= least and time.perf_counter() - t0 > budget:
            break
        order = [c for c in live if c.rounds is None or i < c.rounds]
        random.shuffle(order)
        for c in order:
            if not c.run() and c.error is None:
                c.error = "failed during the rounds"


def paired_ms(a, b):
    """Median over rounds of (a - b) in the same round, ms."""
    if not a.times or not b.times:
        return None
    return statistics.median(x - y for x, y in zip(a.times, b.times)) * 1e3


def verdict(x, target, unit="x", digits=1, what=""):
    """The notes' wording for a goal: `goal <= X: met` or `MISSED`."""
    return "goal <= %.*f%s%s: %s" % (digits, target, unit, what,
                                     "no verdict" if x is None else
                                     "met" if x <= target else "MISSED")


def cordon_note(ratio, kw_ratio, ok_others):
    """Issue 6's target against the plain floor, issue 27's against the
    floor that does cordon's kernel work, and the other launchers."""
    return ("target <= %.1fx floor: %s; %s; below every other launcher: "
            "%s" % (T_FLOOR_RATIO, "met" if ratio is not None and
                    ratio <= T_FLOOR_RATIO else "MISSED" if ratio is not
                    None else "no verdict (floor's overhead within noise)",
                    verdict(kw_ratio, T_FLOOR_RATIO,
                            what=" floor + kernel work"),
                    "met" if ok_others else "MISSED"))


def layer_note(c, by_name):
    """A layer's cost on its own row: the paired difference between the
    rows with and without it (c.layer: the other row, sign)."""
    other, sign = c.layer
    o = by_name.get(other)
    d = paired_ms(c, o) if o else None
    note = c.note if d is None else "%s %+.2f ms (%s)" % (
        c.note, sign * d, "this row - " + other if sign > 0
        else other + " - this row")
    return note + ("; " + c.detail if c.detail else "")


def launch_table(ctx, workload, blob, rounds, budget):
    cfgs, missing = launch_configs(ctx, workload, blob, rounds)
    run_rounds(cfgs, rounds, budget)
    by_name = {c.name: c for c in cfgs}

    def ratio_to(over, base):
        return over / base if over is not None and base and base > 0 \
            else None

    floor_over = paired_ms(by_name[FLOOR], cfgs[0]) \
        if FLOOR in by_name else None
    kw_over = paired_ms(by_name[KW_FLOOR], cfgs[0]) \
        if KW_FLOOR in by_name else None
    others = [paired_ms(c, cfgs[0]) for c in cfgs
              if c.times and not c.name.startswith(("bare", "floor",
                                                    "cordon"))]
    rows = []
    for c in cfgs:
        if not c.times:
            rows.append([c.name] + ["–"] * 6 +
                        ["not run: %s" % (c.error or "?")])
            continue
        over = paired_ms(c, cfgs[0]) if c is not cfgs[0] else None
        ratio, kw_ratio = ratio_to(over, floor_over), ratio_to(over, kw_over)
        note = layer_note(c, by_name) if c.layer else c.note
        if c.name == "cordon":
            note = cordon_note(ratio, kw_ratio,
                               all(over < o for o in others))
        if c.error:
            note = (note + "; " if note else "") + c.error
        rows.append([c.name, fmt(median_ms(c.times), " ms"),
                     fmt(p99_ms(c.times), " ms"),
                     fmt(over, " ms") if c is not cfgs[0] else "0",
                     fmt(ratio, "x") if ratio is not None else "–",
                     fmt(kw_ratio, "x") if kw_ratio is not None else "–",
                     "%d" % len(c.times), note])
    for m in missing:
        rows.append([m.split(" (")[0].split(":")[0]] + ["–"] * 6 +
                    ["missing: " + m])
    title = "### 1. Launch cost: `%s`" % " ".join(
        os.path.basename(a) if a.startswith(ROOT) else a
        for a in workload["cmd"])
    if blob:
        title += " (policy `%s`)" % os.path.basename(blob)
    head = ["launcher", "median", "p99", "overhead over bare",
            "overhead / floor's", "overhead / kernel-work floor's", "runs",
            "notes"]
    return title, head, rows, cfgs


# --- 2. per-syscall filter cost ------------------------------------------

def sysbench_once(ctx, mode, blob, calls, batches):
    argv = [ctx["sysbench"], "-n", str(calls), "-b", str(batches), mode]
    if blob:
        argv.append(blob)
    r = subprocess.run(argv, capture_output=True, text=True, check=False)
    if r.returncode:
        raise Missing("sysbench %s %s: %s" % (mode, blob or "",
                                              r.stderr.strip()))
    res = {}
    for line in r.stdout.splitlines():
        name, conds, insns, before, after, diff, verdict = \
            line.split("\t")
        res[name] = (int(conds), int(insns), float(before), float(after),
                     float(diff), verdict)
    return res


def filter_table(ctx, rounds, calls, batches, budget):
    modes = [("none", None, "no filter"),
             ("allow", None, "RET ALLOW only (cached by the kernel)"),
             ("args", None, "load arg0, RET ALLOW (runs every call)")]
    blobs = ctx["blobs"] + ([ctx["true_blob"]] if ctx["true_blob"] else [])
    for blob in blobs:
        name = os.path.basename(blob)[:-5]
        if blob == ctx["true_blob"]:
            name = "bench/true.policy"
        modes.append(("tree", blob, "%s: blob's program" % name))
        modes.append(("linear", blob, "%s: naive linear" % name))
    samples = {m: {} for m in modes}
    errors = {}
    t0 = time.perf_counter()
    for i in range(rounds):
        if i and time.perf_counter() - t0 > budget:
            break
        order = modes[:]
        random.shuffle(order)
        for m in order:
            if m in errors:
                continue
            try:
                res = sysbench_once(ctx, m[0], m[1], calls, batches)
            except Missing as e:
                errors[m] = str(e)
                continue
            for probe_name, val in res.items():
                samples[m].setdefault(probe_name, []).append(val)

    def med(m, p):
        """(filtered ns, paired difference ns, ratio), medians over rounds."""
        ok = [v for v in samples[m].get(p, []) if v[5] == "same"]
        if not ok:
            return None
        before = statistics.median(v[2] for v in ok)
        diff = statistics.median(v[4] for v in ok)
        return (statistics.median(v[3] for v in ok), diff,
                1 + diff / before)

    def cell(x):
        if x is None:
            return "–"
        return "%.0f ns (%+.0f, %.2fx)" % x

    rows = []
    for m in modes:
        if m in errors:
            rows.append([m[2], "–", "–", "–", errors[m]])
            continue
        probes = samples[m]
        if not probes:
            continue
        insns = next(iter(probes.values()))[0][1]
        plain = med(m, "getppid")
        # The last (highest syscall number: the worst place for a linear
        # filter) probe the blob's rules condition and let through.
        cond = None
        for p, vals in probes.items():
            if p != "getppid" and vals[0][0] > 0 and vals[0][5] == "same":
                cond = p
        if m[1] is None:
            cond = "ioctl(FIONREAD)"
        notes = []
        c = med(m, cond) if cond else None
        for what, x, target, probe_name in (
                ("plain", plain, T_FILTER_PLAIN_NS, "getppid"),
                ("cond.", c, T_FILTER_COND_NS, cond)):
            if m[0] != "tree" or not x:
                continue
            noise = med(modes[0], probe_name)
            noise = abs(noise[1]) if noise else 0
            verdict = "met" if x[1] < target else \
                "within noise (+-%.0f ns)" % noise \
                if x[1] < target + noise else "MISSED"
            # What the program itself adds, over the fixed cost of running
            # any program at all (the two-instruction one, same probe).
            fixed = med(modes[2], probe_name) if what == "cond." else None
            if verdict == "MISSED" and fixed:
                verdict += " (running any program costs +%.0f ns here; " \
                    "this one adds %+.0f ns to that)" % (fixed[1],
                                                         x[1] - fixed[1])
            notes.append("%s target < %d ns: %s" % (what, target, verdict))
        if not cond:
            denied = [p for p, v in probes.items() if v[0][5] != "same"]
            notes.append("no conditional probe allowed; filtered: %s"
                         % (", ".join(denied) or "none"))
        rows.append([m[2], str(insns), cell(plain),
                     "%s: %s" % (cond, cell(c)) if cond else "–",
                     "; ".join(notes)])
    head = ["filter", "insns", "getppid: ns (+ns, ratio)",
            "conditional syscall: ns (+ns, ratio)", "notes"]
    title = "### 2. Per-syscall filter cost (%d rounds x %d paired batches " \
        "x %d calls, fresh child each)" % (i + 1, batches, calls)
    return title, head, rows


# --- 3. compile time, sizes, memory --------------------------------------

def stripped_size(ctx, path):
    out = os.path.join(ctx["work"], "stripped")
    try:
        r = subprocess.run(["strip", "--strip-all", "-o", out, path],
                           capture_output=True, check=False)
    except OSError:
        return None
    if r.returncode:
        return None
    size = os.path.getsize(out)
    os.unlink(out)
    return size


def compile_table(ctx, rounds, budget):
    rows = []
    srcs = sorted(os.path.join(ROOT, "policies", f)
                  for f in os.listdir(os.path.join(ROOT, "policies"))
                  if f.endswith(".policy"))
    srcs += [os.path.join(HERE, "true.policy"),
             os.path.join(HERE, "python.policy")]
    if not ctx["cordonc"]:
        return "### 3. Compile time and sizes", ["item", "value", "notes"], \
            [["cordonc", "–", "missing: build/cordonc not built yet"]]
    out = os.path.join(ctx["work"], "compile-out.cpol")
    cfgs = [Config(os.path.basename(s)[:-7],
                   [ctx["cordonc"], "compile", "-o", out, s]) for s in srcs]
    run_rounds(cfgs, rounds, budget, least=5)
    for c, s in zip(cfgs, srcs):
        blob = os.path.join(ctx["build"], "policies", c.name + ".cpol")
        if s.startswith(HERE):
            blob = bench_blob(ctx, c.name) or ""
        size = os.path.getsize(blob) if os.path.exists(blob) else None
        info = ctx["info"].get(blob, {})
        if not c.times:
            rows.append(["compile %s" % c.name, "–", "failed: %s" % c.error])
            continue
        ms = median_ms(c.times)
        rows.append(["compile `%s`" % os.path.relpath(s, ROOT),
                     fmt(ms, " ms"),
                     "blob %s bytes, %s insns, %s rules; target < %d ms: %s"
                     % (size if size is not None else "–",
                        info.get("insns", "–"), info.get("rules", "–"),
                        T_COMPILE_MS, "met" if ms < T_COMPILE_MS
                        else "MISSED")])
    for key, label in (("cordon", "build/cordon"),
                       ("cordon_static", "build/cordon-static")):
        if ctx[key]:
            size = os.path.getsize(ctx[key])
            stripped = stripped_size(ctx, ctx[key])
            note = "stripped: %s" % ("%d KiB" % (stripped // 1024)
                                     if stripped else "–")
            if key == "cordon":
                dyn = subprocess.run(["readelf", "-d", ctx[key]],
                                     capture_output=True, text=True).stdout
                note += ("; dynamic (libc shared)" if "NEEDED" in dyn
                         else "; static PIE, with symbols")
                note += "; no OpenSSL (cordon-tls runs policies with " \
                    "HTTP hosts); target < 1 MiB stripped: %s" % (
                        "met" if stripped and stripped < T_STATIC_BYTES
                        else "MISSED")
            else:
                note += "; target < 1 MiB: file %s, stripped %s" % (
                    "met" if size < T_STATIC_BYTES else "MISSED",
                    "met" if stripped and stripped < T_STATIC_BYTES
                    else "MISSED")
            rows.append(["size of %s" % label, "%d KiB" % (size // 1024),
                         note])
        else:
            rows.append(["size of %s" % label, "–",
                         "missing: not built (yet)"])
    return "### 3. Compile time, sizes, memory", \
        ["item", "value", "notes"], rows


def peak_rss_kib(argv, env, runs=5):
    """Median ru_maxrss of argv, measured by GNU time: a small parent,
    whereas a child spawned from this interpreter would report the
    interpreter's own RSS (the memory it had until exec)."""
    gtime = which("/usr/bin/time")
    if not gtime:
        return None
    vals = []
    for _ in range(runs):
        r = subprocess.run([gtime, "-f", "%M"] + argv, env=env,
                           capture_output=True, text=True, check=False)
        if r.returncode:
            return None
        vals.append(int(r.stderr.strip().splitlines()[-1]))
    return statistics.median(vals)


def rss_rows(ctx):
    rows = []
    env_tmp = dict(ENV, TMPDIR=ctx["tmpdir"])
    cands = [("bare /bin/true", ["/bin/true"], ENV)]
    if ctx["true_blob"]:
        cands.append(("floor, /bin/true", [ctx["floor"], ctx["true_blob"],
                                           "/bin/true"], ENV))
        for key in ("cordon", "cordon_static"):
            if ctx[key]:
                cands.append(("%s, /bin/true" % os.path.basename(ctx[key]),
                              [ctx[key], ctx["true_blob"], ctx["empty"]],
                              env_tmp))
    for label, argv, env in cands:
        kib = peak_rss_kib(argv, env)
        rows.append(["peak RSS, %s" % label,
                     "%d KiB" % kib if kib else "–",
                     "GNU time (wait4 ru_maxrss): the launcher and its "
                     "children, max not sum" if kib else
                     "missing: /usr/bin/time or the run failed"])
    return rows


# --- 4. throughput ---------------------------------------------------------

def throughput_table(ctx, duration):
    workers = 2 * (os.cpu_count() or 1)
    snippet = os.path.abspath(os.path.join(ctx["work"], "trivial.py"))
    with open(snippet, "w", encoding="ascii") as f:
        f.write("import sys\nsys.stdout.write('ok\\n')\n")
    marker = "cordon-bench-%d" % os.getpid()
    # cordon makes its directories in TMPDIR, private to the bench: other
    # users of /tmp cannot blur the count.
    tmpdirs = [(ctx["tmpdir"], "")]
    runs = [("bare `python3 -I`", ["/usr/bin/python3", "-I", snippet,
                                   marker], ENV)]
    fallback = None
    if ctx["cordon"] and ctx["py_blob"]:
        env = dict(ENV, TMPDIR=ctx["tmpdir"])
        argv = [ctx["cordon"], ctx["py_blob"], snippet, marker]
        why = probe(argv, env=env)
        if why:
            # The default path fails here: measure what runs, and say so.
            fallback = "default path fails (%s): ran with " \
                "--no-namespaces" % why
            argv = argv[:1] + ["--no-namespaces"] + argv[1:]
        runs.append(("cordon `%s`" % os.path.basename(ctx["py_blob"]),
                     argv, env))
    rows = []
    for label, argv, env in runs:
        r = throughput.run(argv, env, workers, duration, marker, tmpdirs)
        left = []
        if r["procs"]:
            left.append("%d processes %s" % (len(r["procs"]), r["procs"]))
        if r["mounts"]:
            left.append("%d mounts %s" % (len(r["mounts"]),
                                          r["mounts"][:3]))
        if r["tmp"]:
            left.append("%d temp dirs %s" % (len(r["tmp"]), r["tmp"][:3]))
        rows.append([label, "%d" % r["launches"], "%.1f/s" % r["rate"],
                     fmt(r["p50"], " ms", 1), fmt(r["p99"], " ms", 1),
                     "%d" % r["failures"],
                     "LEFT BEHIND: " + "; ".join(left) if left else
                     "nothing left behind (processes, mounts, temp dirs)"])
    if len(runs) == 1:
        rows.append(["cordon", "–", "–", "–", "–", "–",
                     "missing: build/cordon or a python policy blob"])
    elif rows[0][2] and rows[1][2]:
        b = float(rows[0][2][:-2])
        c = float(rows[1][2][:-2])
        rows[1][-1] += "; %.0f%% of bare's rate" % (100 * c / b) if b \
            else ""
        if fallback:
            rows[1][-1] += "; " + fallback
    title = "### 4. Throughput: %d concurrent launchers for %g s" % (
        workers, duration)
    return title, ["launcher", "launches", "rate", "p50", "p99", "failed",
                   "notes"], rows


def progress(msg):
    print("bench: %s ..." % msg, file=sys.stderr, flush=True)


# --- report -------------------------------------------------------------

def table(title, head, rows):
    out = [title, "", "| " + " | ".join(head) + " |",
           "|" + "|".join("---" for _ in head) + "|"]
    for r in rows:
        out.append("| " + " | ".join(str(c).replace("|", "\\|")
                                     for c in r) + " |")
    return "\n".join(out) + "\n"


def environment(ctx):
    def first_line(argv):
        try:
            r = subprocess.run(argv, capture_output=True, text=True,
                               timeout=10, check=False)
            return (r.stdout or r.stderr).strip().splitlines()[0]
        except (OSError, IndexError, subprocess.TimeoutExpired):
            return "missing"
    with open("/proc/loadavg", encoding="ascii") as f:
        load = " ".join(f.read().split()[:3])
    lines = [
        "kernel %s, %d cores, load %s at start; %s; a first touch of "
        "a page %.1f us (the host's speed: compare days by it)" % (
            platform.release(), os.cpu_count() or 0, load,
            machine.quiet(), machine.first_touch_us()),
        "bwrap: %s; firejail: %s" % (
            first_line(["bwrap", "--version"]),
            first_line(["firejail", "--version"])),
        "python policy: %s; /bin/true policy: %s; named hosts (the "
        "egress proxy's row): %s" % (
            "bench/python.policy (no shipped python policy yet)"
            if ctx["py_fallback"] else
            os.path.basename(ctx["py_blob"] or "none"),
            "bench/true.policy" if ctx["true_blob"] else "none",
            os.path.basename(ctx["py_proxy_blob"] or "none")),
    ]
    return "\n".join("- " + x for x in lines) + "\n"


PROXY_SNIPPET = r'''
import json, socket, sys, time
port, n = int(sys.argv[1]), int(sys.argv[2])
t = []
for _ in range(n):
    t0 = time.perf_counter()
    s = socket.create_connection(("127.0.0.1", 3128))
    s.sendall(b"CONNECT bench.example.org:%d HTTP/1.1\r\n\r\n" % port)
    r = b""
    while not r.endswith(b"\r\n\r\n"):
        r += s.recv(1)
    s.sendall(b"x")
    s.recv(1)
    t.append(time.perf_counter() - t0)
    s.close()
print(json.dumps(t))
'''


def proxy_table(b, n):
    """Connection set-up through the run's egress proxy (named hosts)
    against a direct loopback connection, same echo server, same run:
    connect, (CONNECT and its answer), one byte there and back.  n stays
    under EGRESS_MAX_CONNS (256 per run)."""
    import socket
    import tempfile
    import threading
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(64)
    port = srv.getsockname()[1]

    def echo():
        while True:
            try:
                c, _ = srv.accept()
            except OSError:
                return
            with c:
                d = c.recv(1)
                if d:
                    c.sendall(d)
    threading.Thread(target=echo, daemon=True).start()
    direct = []
    for _ in range(n):
        t0 = time.perf_counter()
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(b"x")
        s.recv(1)
        direct.append(time.perf_counter() - t0)
        s.close()
    with tempfile.TemporaryDirectory() as d:
        pol = os.path.join(d, "p.policy")
        with open(pol, "w") as f:
            f.write('include "%s/policies/base/python.policy";\n'
                    'policy "bench_proxy";\n'
                    'network connect "bench.example.org":%d;\n'
                    % (os.getcwd(), port))
        blob = os.path.join(d, "p.cpol")
        subprocess.run([os.path.join(b, "cordonc"), "compile", "-o", blob,
                        pol], check=True)
        snip = os.path.join(d, "s.py")
        with open(snip, "w") as f:
            f.write(PROXY_SNIPPET)
        p = subprocess.run([os.path.join(b, "cordon"), "--resolve",
                            "bench.example.org:127.0.0.1", blob, snip,
                            str(port), str(n)], capture_output=True,
                           text=True, timeout=300)
    srv.close()
    if p.returncode != 0:
        raise RuntimeError("proxy bench run failed: %s" % p.stderr[-2000:])
    proxied = json.loads(p.stdout.strip().splitlines()[-1])
    dm, pm = median_ms(direct), median_ms(proxied)
    verdict = "ok" if pm - dm < 1.0 else "OVER 1 ms"
    return ("Egress proxy: connection set-up (median of %d)" % n,
            ["path", "median", "added by the proxy", "ratio", "target"],
            [["direct loopback", fmt(dm, " ms", 3), "", "", ""],
             ["through the proxy", fmt(pm, " ms", 3),
              fmt(pm - dm, " ms", 3), fmt(pm / dm, "x"),
              "< 1 ms: " + verdict]])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--duration", type=float, default=10.0,
                    help="throughput run length in seconds (default 10)")
    ap.add_argument("--rounds", type=int, default=0,
                    help="launch rounds for /bin/true (default 150)")
    ap.add_argument("--budget", type=float, default=0,
                    help="seconds per section before rounds stop "
                    "(default 35; at least 10 launch rounds run)")
    ap.add_argument("--quick", action="store_true",
                    help="fewer rounds everywhere, for a smoke test")
    ap.add_argument("--policy", help="shipped policy NAME for the python "
                    "launch and throughput (default: the first python one)")
    ap.add_argument("--only", default="123456789",
                    help="sections to run, e.g. 12 (default 12345678)")
    ap.add_argument("--out", help="report path (default BUILD/bench.md)")
    args = ap.parse_args()
    b = args.build
    rounds = args.rounds or (20 if args.quick else 150)
    # Seconds per section (launch: per workload), so that a loaded
    # machine still finishes in about three minutes: fewer rounds, never
    # fewer than the minimum, and the runs column says how many.
    budget = args.budget or (8 if args.quick else 35)
    t_start = time.perf_counter()
    ctx = prepare(args, b)
    parts = ["## cordon bench\n", environment(ctx)]
    if "1" in args.only:
        for workload, blob, n in (
                ({"name": "true", "cmd": ["/bin/true"]}, ctx["true_blob"],
                 rounds),
                ({"name": "python", "cmd": ["/usr/bin/python3", "-I",
                                            ctx["empty"]],
                  "snippet": ctx["empty"]}, ctx["py_blob"],
                 max(10, rounds // 5))):
            progress("launch cost: %s" % workload["name"])
            title, head, rows, _ = launch_table(ctx, workload, blob, n,
                                                budget)
            parts.append(table(title, head, rows))
    if "2" in args.only:
        progress("filter cost")
        parts.append(table(*filter_table(
            ctx, 1 if args.quick else 5, 200, 51 if args.quick else 151,
            budget)))
    if "3" in args.only:
        progress("compile time, sizes, memory")
        title, head, rows = compile_table(ctx, 5 if args.quick else 20,
                                          budget / 4)
        parts.append(table(title, head, rows + rss_rows(ctx)))
    if "4" in args.only:
        progress("throughput, %g s per launcher" % args.duration)
        parts.append(table(*throughput_table(ctx, args.duration)))
    if "5" in args.only:
        progress("egress proxy connection set-up")
        parts.append(table(*proxy_table(b, 50 if args.quick else 200)))
    if "9" in args.only:
        progress("egress proxy: terminated against tunnelled")
        parts.append(table(*tlsproxy.tls_table(
            b, 30 if args.quick else 100, median_ms, fmt)))
    if "6" in args.only and ctx["py_blob"]:
        progress("denials")
        # Within cordon's burst of DENIALS_BURST (10,000) observed
        # denials: past it the rate (5,000 a second) is what is timed.
        parts.append(table(*denials.denial_table(ctx, 3 if args.quick else 7,
                                         5000)))
    if "7" in args.only:
        progress("warm pools")
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import warm
        calm = machine.quiet()      # before the pool: what else was running
        title, head, rows = warm.warm_table(
            b, os.path.join(b, "policies", "code_gen.cpol"),
            8 if args.quick else 30, 3 if args.quick else args.duration)
        parts.append(table("%s (%s)" % (title, calm), head, rows))
    parts.append("Total bench time %.0f s.  How to read this: "
                 "bench/README.md.\n" % (time.perf_counter() - t_start))
    report = "\n".join(parts)
    sys.stdout.write(report)
    out = args.out or os.path.join(b, "bench.md")
    tmp = out + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(report)
    os.replace(tmp, out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
