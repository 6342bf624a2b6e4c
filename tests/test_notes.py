"""What cordon says after a run (issue 26, "say what happened"): a timeout,
an option looser than the policy (capped, since options only tighten) and
a whole-run bound held by less than its mechanism each get one line on
cordon's standard error, with the figure; --quiet drops them all.

The launcher's escape policy (tests/policies/launcher-escape.policy):
timeout 30s, output 4M, limit as 2G, limit nofile 256."""
import pytest

from conftest import WARM_OK

SLEEP = "import time\ntime.sleep(600)\n"


@pytest.fixture(scope="module")
def blob(launcher_blobs):
    return launcher_blobs("launcher-escape")


def notes(r):
    return [ln for ln in r.err.splitlines() if ln.startswith("cordon: ")]


def test_timeout_says_so(cordon, blob):
    r = cordon(blob, SLEEP, opts=["--timeout", "1"])
    assert r.rc == 124 and r.status["outcome"] == "timeout", r
    assert notes(r) == ["cordon: timeout: the run passed 1s and was "
                        "killed"], r.err
    q = cordon(blob, SLEEP, opts=["--timeout", "1", "--quiet"])
    assert q.rc == 124 and notes(q) == [], q.err


def test_fractional_timeout_in_ms(cordon, blob):
    r = cordon(blob, SLEEP, opts=["--timeout", "0.5"])
    assert r.rc == 124, r
    assert notes(r) == ["cordon: timeout: the run passed 500ms and was "
                        "killed"], r.err


def test_capped_options_say_so(cordon, blob):
    opts = ["--timeout", "900", "--output", "10M", "--limit", "as=64G",
            "--limit", "nofile=100000", "--limit", "cpu=10"]
    r = cordon(blob, "print('hi')\n", opts=opts)
    assert r.rc == 0 and r.out == "hi\n", r
    assert notes(r) == [
        "cordon: --timeout 900 capped at the policy's 30s",
        "cordon: --output 10M capped at the policy's 4M",
        "cordon: --limit as=64G capped at the policy's 2G",
        "cordon: --limit nofile=100000 capped at the policy's 256",
    ], r.err                    # cpu=10 is tighter than 20s: no line
    q = cordon(blob, "print('hi')\n", opts=opts + ["--quiet"])
    assert q.rc == 0 and q.err == "", q


def test_tighter_options_say_nothing(cordon, blob):
    r = cordon(blob, "print('hi')\n",
               opts=["--timeout", "20", "--output", "1M", "--limit", "as=1G"])
    assert r.rc == 0 and r.err == "", r


def test_output_cap_says_the_run_was_killed(cordon, blob):
    r = cordon(blob, "print('x' * 100000)\n", opts=["--output", "1000"])
    assert r.rc == 137 and r.status["outcome"] == "output_limit", r
    assert notes(r) == ["cordon: output truncated at the 1000-byte cap "
                        "(stdout and stderr together): the run was "
                        "killed"], r.err


def test_watched_disk_bound_says_so(cordon, policies_dir):
    # No mount namespace: no run tmpfs, so cordon watches the workdir.
    # Said after a run that did not exit 0, as the denials are.
    r = cordon(policies_dir / "code_gen.cpol", "raise SystemExit(3)\n",
               opts=["--no-namespaces", "--limit", "disk=10M",
                     "--limit", "files=500"])
    assert r.rc == 3, r
    b = r.status["bounds"]
    assert b["disk"]["by"] == b["files"]["by"] == "watch", b
    watch = ("watched, not held: no run tmpfs (no mount namespace): a watch "
             "of the workdir ends the run past the bound, after what the "
             "run writes while it measures (not held exactly: cordon(1), "
             "NO NAMESPACES)")
    assert [n for n in notes(r) if "watched" in n] == [
        "cordon: limit disk 10M: " + watch,
        "cordon: limit files 500: " + watch], r.err
    # the same words as the status's reason
    assert watch.endswith(b["disk"]["reason"]), b
    assert notes(r) == fallback_notes(r) + \
        [n for n in notes(r) if "watched" in n], r.err
    q = cordon(policies_dir / "code_gen.cpol", "raise SystemExit(3)\n",
               opts=["--no-namespaces", "--limit", "disk=10M", "--quiet"])
    assert q.rc == 3 and q.err == "", q
    ok = cordon(policies_dir / "code_gen.cpol", "print('hi')\n",
                opts=["--no-namespaces", "--limit", "disk=10M"])
    assert ok.rc == 0 and ok.err == "", ok     # a clean run: quiet


def fallback_notes(r):
    """The lines the status's memory and pids bounds call for: one for
    each held by a per-process rlimit or nothing, with its reason."""
    want = []
    for name in ("memory", "pids"):
        b = r.status["bounds"][name]
        if b["by"] in ("rlimit-per-process", "rlimit", "none"):
            want.append("cordon: limit %s %s: by %s, not a controller for "
                        "the whole run: %s" % (name, FIG[b["limit"]],
                                               b["by"], b["reason"]))
        else:
            assert b["by"] in ("cgroup-v1", "cgroup-v2"), b
    return want


FIG = {512 << 20: "512M", 32: "32", 4 << 30: "4G", 256: "256"}


def test_bound_fallbacks_match_the_status(cordon, launcher_blobs):
    # memory 512M, pids 32: a controller where cordon has one (root on
    # cgroup v1), else a per-process rlimit or nothing (uid 65534 here):
    # the status's "by", and one line for each bound not held for the
    # whole run after a run that failed; none after one that did not.
    blob = launcher_blobs("launcher-bounds")
    r = cordon(blob, "raise SystemExit(1)\n")
    assert r.rc == 1, r
    assert notes(r) == fallback_notes(r), (r.err, r.status["bounds"])
    ok = cordon(blob, "print('hi')\n")
    assert ok.rc == 0 and ok.err == "", ok


@pytest.mark.skipif(not WARM_OK, reason="no warm pool built "
                    "(build/warm/_cordon_warm.so: no Python headers)")
def test_warm_run_says_the_same(cordon, warm_pools, policies_dir):
    code_gen = policies_dir / "code_gen.cpol"
    pool = warm_pools(code_gen)
    opts = ["--timeout", "1"]
    cold = cordon(code_gen, SLEEP, opts=opts)
    warm = cordon(code_gen, SLEEP, opts=opts, warm=pool)
    assert cold.rc == warm.rc == 124, (cold, warm)
    assert notes(warm) == notes(cold) == [
        "cordon: timeout: the run passed 1s and was killed"] + \
        fallback_notes(cold), (cold, warm)
    opts = ["--timeout", "900"]
    cold = cordon(code_gen, "print(1)\n", opts=opts)
    warm = cordon(code_gen, "print(1)\n", opts=opts, warm=pool)
    assert notes(warm) == notes(cold) == [
        "cordon: --timeout 900 capped at the policy's 120s"], (cold, warm)
