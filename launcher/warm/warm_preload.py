"""A warm pool's preloads (cordon --serve, launcher/warm/warm.py): the
policy's modules imported and exercised once in the template, exercised
again in each spare's run before its request; after the warm-up the
template imports nothing (NoImport)."""

import gc
import io
import os
import sys

import _cordon_warm


def exercise():
    """What every run of these libraries touches, done in the template
    and again in each spare's run before its request."""
    if "pandas" in sys.modules:
        pd = sys.modules["pandas"]
        df = pd.DataFrame({"a": [1, 2, 2], "b": [1.0, 2.0, 3.0]})
        df.groupby("a").b.mean()
        df.groupby("a").agg(["mean", "sum"])
        df.describe()
        df.to_csv(io.StringIO())
    if "matplotlib.pyplot" in sys.modules:
        # The backend, a figure, the font cache, the PNG writer (to a
        # buffer, nowhere on disk), pandas' plotting module.
        plt = sys.modules["matplotlib.pyplot"]
        for kind in ("line", "bar"):
            fig = plt.figure()
            if "pandas" in sys.modules:
                getattr(df.b.plot, kind)()
            else:
                fig.gca().plot([0, 1], [0, 1])
            fig.savefig(io.BytesIO(), format="png")
            plt.close(fig)


def warm_up(modules):
    for name in modules:
        __import__(name)
    exercise()
    import importlib.machinery  # noqa: F401  (what a run uses, here)
    import atexit  # noqa: F401


def exercise_quietly():
    """In a spare's run: the exercise, its output (warnings) dropped."""
    out, err = sys.stdout, sys.stderr
    sys.stdout = sys.stderr = io.StringIO()
    try:
        exercise()
    except Exception:
        pass            # a library that fails here fails in the run too
    finally:
        sys.stdout, sys.stderr = out, err
    # What the exercise opened is closed, as in a fresh interpreter (the
    # fonts matplotlib caches; its fork handler clears them for os.fork).
    fm = sys.modules.get("matplotlib.font_manager")
    if fm is not None:
        fm._get_font.cache_clear()
    gc.collect()
    for fd in range(_cordon_warm.LISTENER_FD + 1, 1024):
        try:
            os.fstat(fd)
        except OSError:
            continue
        os._exit(125)   # a library keeps a descriptor: no such spare


class NoImport:
    """After the warm-up the template imports nothing (removed in a run)."""

    def find_spec(self, name, path=None, target=None):
        raise ImportError("cordon warm template: no import after warm-up: "
                          + name)
