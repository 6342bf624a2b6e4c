"""How quiet and how fast the machine is while the bench runs, measured
rather than assumed (issue 27's goals are for a quiet machine).  The
1-minute load average is no such measure: it lags, and after section 1 it
counts the bench's own launches.  Imported by bench/run.py and
bench/denials.py."""
import mmap
import time

PAGE = mmap.PAGESIZE


def _cpu_times():
    """(busy, steal, total) jiffies of all CPUs, from /proc/stat."""
    with open("/proc/stat", encoding="ascii") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    idle = v[3] + v[4]                      # idle, iowait
    steal = v[7] if len(v) > 7 else 0
    total = sum(v[:8])                      # guest time is inside user
    return total - idle - steal, steal, total


def others_busy(seconds=1.0):
    """The share of the CPUs that other processes kept busy, and the share
    the hypervisor stole, while this process slept for `seconds`."""
    b0, s0, t0 = _cpu_times()
    time.sleep(seconds)
    b1, s1, t1 = _cpu_times()
    dt = max(t1 - t0, 1)
    return (b1 - b0) / dt, (s1 - s0) / dt


def first_touch_us(mib=32):
    """Microseconds a first write to a fresh anonymous page costs (the
    page fault and, on a VM, its shadow page tables): the speed of the
    host, to compare days."""
    n = mib * 1024 * 1024
    m = mmap.mmap(-1, n)
    try:
        t = time.perf_counter()
        for off in range(0, n, PAGE):
            m[off] = 1
        return (time.perf_counter() - t) / (n // PAGE) * 1e6
    finally:
        m.close()


def quiet():
    """One line for a table's note: what else ran, what was stolen."""
    busy, steal = others_busy()
    return "others' CPU %.0f%%, steal %.0f%% over 1 s before" % (
        busy * 100, steal * 100)
