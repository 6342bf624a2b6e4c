"""bench section 6: what reporting denials costs (cordon(1), DENIALS),
and issue 27's goal: a denied call observed by the listener (a round
trip to cordon) costs at most 10 us more than an allowed one, on a quiet
machine.  Imported by bench/run.py."""
import os
import statistics
import subprocess

import machine

# Issue 27: ns a denied call may add when cordon observes it.
T_DENIED_NS = 10000


def goal(added_ns):
    return "goal <= %d us: %s" % (T_DENIED_NS // 1000, "met" if
                                  added_ns <= T_DENIED_NS else "MISSED")


DENIAL_SNIPPET = """
import fcntl, os, sys, termios, time
n = int(sys.argv[1])
def loop(f):
    t = time.perf_counter()
    for i in range(n):
        f()
    return (time.perf_counter() - t) / n * 1e9
def denied():
    try:
        fcntl.ioctl(1, termios.TIOCSTI, b"x")
    except OSError:
        pass
def allowed():
    try:
        fcntl.ioctl(1, termios.FIONREAD, b"xxxx")
    except OSError:
        pass
a0 = loop(allowed)
d = loop(denied)
a1 = loop(allowed)
print(a0, d, a1)
"""


def denial_table(ctx, rounds, calls):
    """ns per call, in one run: an allowed ioctl before and after a loop
    of denied ones (TIOCSTI, errno(EPERM) by the base), with a listener
    (cordon answers each denied call) and without (--no-namespaces: the
    kernel answers from the filter; the denial is not observed)."""
    blob = ctx["py_blob"]
    snip = os.path.join(ctx["work"], "denials.py")
    with open(snip, "w", encoding="ascii") as f:
        f.write(DENIAL_SNIPPET)
    calm = machine.quiet()      # before the runs: what else was running
    rows = []
    for label, opts in (("observed (listener, cordon answers)", []),
                        ("not observed (--no-namespaces: kernel answers)",
                         ["--no-namespaces"])):
        vals = []
        for _ in range(rounds):
            r = subprocess.run([ctx["cordon"], "--quiet", *opts, blob, snip,
                                str(calls)], capture_output=True, text=True,
                               check=False)
            if r.returncode or len(r.stdout.split()) != 3:
                rows.append([label, "–", "–", "–", r.stderr.strip()[:80]])
                break
            vals.append([float(x) for x in r.stdout.split()])
        else:
            a0, d, a1 = (statistics.median(v[i] for v in vals)
                         for i in range(3))
            note = "%d runs" % rounds
            if not opts:
                note += "; %s (%s)" % (goal(d - a0), calm)
            rows.append([label, "%.0f" % a0, "%.0f (%+.0f)" % (d, d - a0),
                         "%.0f (%.2fx)" % (a1, a1 / a0), note])
    head = ["run", "allowed ioctl: ns", "denied ioctl: ns (+ns)",
            "allowed after the denials: ns (ratio)", "notes"]
    title = "### 6. Denials: %d denied calls in one run (%s, ns per " \
        "call, Python loop included)" % (calls, os.path.basename(blob))
    return title, head, rows
