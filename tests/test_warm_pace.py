"""When a warm pool exercises its spares (launcher/warm/warm_pace.py).

The decision alone, driven with the times a pool measured here: an
exercised spare takes 0.25 s to make alone and 0.53 s when the pool's
first two are made together beside its start-up.  The pool itself runs
the same module (tests/test_warm.py runs pools)."""
import importlib.util

from conftest import SRC

_spec = importlib.util.spec_from_file_location(
    "warm_pace", SRC / "launcher" / "warm" / "warm_pace.py")
warm_pace = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(warm_pace)

ALONE, TOGETHER = 0.25, 0.53


def _callers(pace, gap, n, t=100.0, ready=2):
    """n requests gap apart (after one more, gap before the first), a
    spare made after each: which were exercised.  A spare made alone
    takes ALONE to be ready."""
    pace.request(ready, now=t - gap)
    made = []
    for i in range(n):
        now = t + i * gap
        pace.request(ready, now=now)
        warm = pace.exercise()
        made.append(warm)
        pace.made(warm, True, now, now=now + ALONE)
    return made


def test_start_up_pair_does_not_set_the_pace():
    # The first two spares, made together, are not measured: callers
    # 0.3 s apart (slower than a spare alone) get exercised spares.
    pace = warm_pace.Pace()
    for _ in range(2):
        assert pace.exercise()
        pace.made(True, False, 0.0, now=TOGETHER)
    assert pace.making_s == 0.0
    assert all(_callers(pace, 0.3, 20))


def test_stale_guess_is_probed_again():
    # A spare slowed by a busy moment (0.6 s) made callers 0.3 s apart
    # look pressed; the old pool never exercised a spare again, so never
    # measured one again.  Now a probe after PROBE_EVERY skipped spares
    # measures 0.25 s, and every later spare is exercised.
    pace = warm_pace.Pace()
    pace.made(True, True, 0.0, now=0.6)
    made = _callers(pace, 0.3, 30)
    first = made.index(True)
    assert first == warm_pace.PROBE_EVERY - 1, made
    assert all(made[first:]), made


def test_back_to_back_stays_pressed():
    # Callers 0.06 s apart, faster than any exercised spare: one probe
    # in PROBE_EVERY, every other spare unexercised.
    pace = warm_pace.Pace()
    pace.made(True, True, 0.0, now=ALONE)
    made = _callers(pace, 0.06, 4 * warm_pace.PROBE_EVERY)
    assert made.count(True) == 4, made
    assert not any(made[:warm_pace.PROBE_EVERY - 1]), made


def test_no_ready_spare_is_pressed_and_not_probed():
    # A caller that found no spare ready waited for one: the next is not
    # exercised, however slow the callers, and that is no guess to probe.
    pace = warm_pace.Pace()
    made = _callers(pace, 5.0, 3 * warm_pace.PROBE_EVERY, ready=0)
    assert not any(made), made


def test_pace_recovers_once_callers_slow_down():
    pace = warm_pace.Pace()
    pace.made(True, True, 0.0, now=ALONE)
    assert not any(_callers(pace, 0.1, warm_pace.PROBE_EVERY - 1))
    assert all(_callers(pace, 0.5, 10, t=200.0))
