"""bench section 8, cordon-runtime's row: agent-sandbox's POST /execute
of `python3 -c pass` to cordon-runtime --warm (one kept-alive HTTP
connection, as the router keeps one), against `cordon --submit` of the
same snippet to that server's own pool, interleaved, each call to a pool
at rest (mcp.py's GAP).  Target (issue 39): p50 <= 1.2x.  bench/mcp.py
calls runtime_vs_submit; alone:

    python3 bench/runtime.py --build build [--rounds N]
"""

import argparse
import http.client
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
from mcp import GAP, Pool, stats_row, verdict  # noqa: E402
from run import progress  # noqa: E402

TOOL = "code_gen"
T_RATIO = 1.2       # issue 39: POST /execute <= 1.2x cordon --submit
BODY = json.dumps({"command": "python3 -c pass"}).encode()


class Runtime:
    """cordon-runtime --warm on 127.0.0.1:0, its port from its start
    line; one connection kept alive."""

    def __init__(self, build, work):
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "clients",
                                                       "python"),
                   PATH="%s:/usr/bin:/bin" % build)
        self.log = os.path.join(work, "runtime.log")
        os.mkdir(os.path.join(work, "ws"))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "cordon.runtime", "--policy", TOOL,
             "--warm", "--policy-dir", os.path.join(build, "policies"),
             "--root", os.path.join(work, "ws"), "--listen", "127.0.0.1:0"],
            env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.log, "wb"))
        end = time.monotonic() + 60
        while True:
            with open(self.log, encoding="utf-8", errors="replace") as f:
                m = re.search(r"serving on http://[^ ]+:(\d+)/", f.read())
            if m:
                break
            if self.proc.poll() is not None or time.monotonic() > end:
                raise RuntimeError("cordon-runtime did not start")
            time.sleep(0.05)
        self.conn = http.client.HTTPConnection("127.0.0.1", int(m.group(1)),
                                               timeout=120)

    def execute(self):
        t0 = time.perf_counter()
        self.conn.request("POST", "/execute", BODY,
                          {"Content-Type": "application/json"})
        r = self.conn.getresponse()
        body = r.read()
        ms = (time.perf_counter() - t0) * 1e3
        res = json.loads(body)
        if r.status != 200 or res.get("exit_code") != 0:
            raise RuntimeError("POST /execute: %d %r" % (r.status, body[:300]))
        return ms

    def close(self):
        self.conn.close()
        self.proc.terminate()
        self.proc.wait(30)


def submit(pool, snippet, cwd):
    t0 = time.perf_counter()
    p = subprocess.run([pool.cordon, "--submit", pool.name, snippet],
                       cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True)
    ms = (time.perf_counter() - t0) * 1e3
    if p.returncode != 0:
        raise RuntimeError("cordon --submit: exit %d: %r" % (
            p.returncode, p.stderr[-300:]))
    return ms


def runtime_vs_submit(build, rounds):
    with tempfile.TemporaryDirectory(prefix="cordon-bench-rt-") as d:
        with open(os.path.join(d, "pass.py"), "w") as f:
            f.write("pass\n")
        rt = Runtime(build, d)
        try:
            rt.execute()                        # the pool started
            pool = Pool(build, rt.proc.pid)
            series = {"rt": (rt.execute, []),
                      "submit": (lambda: submit(pool, "pass.py", d), [])}
            for _ in range(3):
                for fn, _ in series.values():
                    time.sleep(GAP)
                    fn()
            for _ in range(rounds):
                order = list(series)
                random.shuffle(order)
                for k in order:
                    time.sleep(GAP)
                    series[k][1].append(series[k][0]())
        finally:
            rt.close()
    r, s = series["rt"][1], series["submit"][1]
    ratio = statistics.median(r) / statistics.median(s)
    diffs = [a - b for a, b in zip(r, s)]
    return [
        stats_row("python3 -c pass: cordon-runtime POST /execute, warm "
                  "pool, kept-alive HTTP", r,
                  verdict(ratio <= T_RATIO, "p50 %.2fx --submit" % ratio,
                          "<= %.1fx" % T_RATIO) +
                  "; per-round difference %+.1f ms" % statistics.median(
                      diffs)),
        stats_row("python3 -c pass: cordon --submit to that same pool", s,
                  "baseline"),
    ]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--rounds", type=int, default=100)
    args, _ = ap.parse_known_args()
    progress("cordon-runtime POST /execute against cordon --submit")
    for row in runtime_vs_submit(os.path.abspath(args.build), args.rounds):
        print("| " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
