"""A session's start, warm (a spare of the tool's pool) against cold:
the median of N sessions each, for code_gen (which preloads numpy,
pandas, matplotlib).  Two figures per kind: the session ready (its
driver's first frame), and ready plus a first cell that imports what an
agent's first cell does.  The pool is started before the warm series (its
start is paid once per client, not per session).

    python3 bench/session.py [BUILD] [N]      (defaults: build, 7)
"""
import asyncio
import os
import statistics
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, "clients", "python"))
import cordon  # noqa: E402

TOOL = "code_gen"
FIRST = "import pandas, numpy, matplotlib.pyplot\n1"
GAP = 0.3           # between sessions: a pool at rest, its spares made


async def series(client, n):
    start, first = [], []
    for _ in range(n):
        await asyncio.sleep(GAP)
        t0 = time.perf_counter()
        async with client.session(TOOL) as s:
            t1 = time.perf_counter()
            r = await s.run(FIRST)
            t2 = time.perf_counter()
        if r.value != "1":
            raise RuntimeError("first cell: %r" % (r,))
        start.append((t1 - t0) * 1e3)
        first.append((t2 - t0) * 1e3)
    return statistics.median(start), statistics.median(first), s.warm


async def main(build, n):
    rows = []
    with tempfile.TemporaryDirectory() as work:
        for warm in (False, True):
            async with cordon.Client(os.path.join(build, "policies"),
                                     cordon=os.path.join(build, "cordon"),
                                     work_root=work, warm=warm) as c:
                if warm:        # the pool up first
                    async with c.session(TOOL) as s:
                        await s.run("1")
                rows.append(await series(c, n))
    print("| session | ready, median ms | ready + first cell "
          "(imports), median ms |")
    print("| --- | --- | --- |")
    for start, first, warm in rows:
        print("| %s | %.1f | %.1f |" % ("warm" if warm else "cold",
                                         start, first))
    (cs, cf, _), (ws, wf, _) = rows
    print("\nwarm/cold: ready %.2fx (%.1fx faster), with the first cell "
          "%.2fx (%.1fx faster); N=%d" % (ws / cs, cs / ws, wf / cf,
                                          cf / wf, n))


if __name__ == "__main__":
    b = sys.argv[1] if len(sys.argv) > 1 else os.path.join(TOP, "build")
    asyncio.run(main(os.path.abspath(b),
                     int(sys.argv[2]) if len(sys.argv) > 2 else 7))
