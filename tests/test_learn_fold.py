"""cordonc learn writes path rules a reviewer reads (issue 26, item 5):
LEARN_FOLD_MIN (4) or more entries of one folder used with the same read
rights become one rule on the folder, the system font, locale and
time-zone trees one read rule each, and no path is listed under a rule
that already gives it its rights.  Runs as root and as uid 65534
(tests/run-pytest.sh)."""
import os
import re
import shutil
import subprocess
import tempfile

import pytest

from test_learn import compiled, learn, ns_or_skip

FOLD_MIN = 4   # compiler/learn/learn.h LEARN_FOLD_MIN, cordonc(1)


def rules(text):
    """The path rules of a learned policy: [(path, rights)]."""
    out = []
    for line in text.splitlines():
        m = re.match(r'path ("(?:[^"\\]|\\.)*"|\S+) ([^;]+);', line)
        if m:
            out.append((m.group(1).strip('"'), m.group(2)))
    return out


def beneath(d, p):
    return p != d and p.startswith(d.rstrip("/") + "/")


@pytest.fixture
def folders():
    d = tempfile.mkdtemp(prefix="cordon-fold-", dir="/var/tmp")
    os.chmod(d, 0o755)
    for sub, n in (("few", FOLD_MIN - 1), ("many", FOLD_MIN + 1),
                   ("rw", FOLD_MIN)):
        os.mkdir(os.path.join(d, sub))
        os.chmod(os.path.join(d, sub), 0o755)
        for i in range(n):
            p = os.path.join(d, sub, "f%d.csv" % i)
            with open(p, "w") as f:
                f.write("a,b\n%d,2\n" % i)
            os.chmod(p, 0o666 if sub == "rw" else 0o644)
    yield d
    shutil.rmtree(d, ignore_errors=True)


def test_learn_fold_threshold(tmp_path, folders):
    """N-1 files read in one folder: listed one by one; N (of N+1 there):
    one read-file rule on the folder and none of its files listed; N
    files written: never folded (only read rights fold)."""
    ns_or_skip()
    few = os.path.join(folders, "few")
    many = os.path.join(folders, "many")
    rw = os.path.join(folders, "rw")
    sample = ("import os\n"
              "for i in range(%d):\n"
              "    open(os.path.join(%r, 'f%%d.csv' %% i)).read()\n"
              "for i in range(%d):\n"
              "    open(os.path.join(%r, 'f%%d.csv' %% i)).read()\n"
              "for i in range(%d):\n"
              "    open(os.path.join(%r, 'f%%d.csv' %% i), 'r+').read()\n"
              % (FOLD_MIN - 1, few, FOLD_MIN, many, FOLD_MIN, rw))
    r, out, _ = learn(tmp_path, [sample])
    assert r.returncode == 0, (r.stderr, out.read_text()
                               if out.exists() else None)
    text = out.read_text()
    got = dict(rules(text))
    # N-1: each file its own rule, no folder rule.
    for i in range(FOLD_MIN - 1):
        assert got.get(os.path.join(few, "f%d.csv" % i)) == "read-file", \
            text
    assert few not in got, text
    # N: one rule on the folder, with the right used, nothing beneath.
    assert got.get(many) == "read-file", text
    assert not [p for p in got if beneath(many, p)], text
    line = [x for x in text.splitlines() if x.startswith("path " + many)]
    assert "folded: %d entries used read-file" % FOLD_MIN in line[0], line
    # Writes never fold.
    assert rw not in got, text
    for i in range(FOLD_MIN):
        assert "write-file" in got.get(os.path.join(rw, "f%d.csv" % i),
                                       ""), text
    # The policy compiles to what the text says: read-file on the folder
    # (its fifth file included: what the fold grants), nothing more.
    pol = compiled(tmp_path, out)
    on = [p["rights"] for p in pol["paths"] if p["path"] == many]
    assert on == [["read-file"]], (on, text)


def matplotlib_or_skip():
    r = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"],
                       capture_output=True)
    if r.returncode:
        pytest.skip("no matplotlib for /usr/bin/python3 here")


def test_learn_plot_fontconfig_one_rule(tmp_path):
    """The matplotlib sample of the issue: its fontconfig files (about 50
    single files next to a rule for their folder on 8fa1b0f) become one
    rule on the font configuration tree; no file under any learned folder
    rule is listed with rights that rule gives; under 20 path rules."""
    ns_or_skip()
    matplotlib_or_skip()
    plot = ("import matplotlib\nmatplotlib.use('Agg')\n"
            "import matplotlib.pyplot as plt\n"
            "plt.plot([1, 2], [3, 4])\nplt.savefig('plot.png')\n")
    r, out, _ = learn(tmp_path, [plot])
    assert r.returncode == 0, (r.stderr, out.read_text()
                               if out.exists() else None)
    text = out.read_text()
    got = rules(text)
    assert len(got) < 20, (len(got), text)
    paths = dict(got)
    fc = [p for p in paths if p in ("/usr/share/fontconfig", "/etc/fonts")]
    assert fc, text
    for p in fc:
        assert "a system tree" in [x for x in text.splitlines()
                                   if x.startswith("path %s " % p)][0]
    # No rule lies under a folder rule that gives it its rights.
    pol = compiled(tmp_path, out)
    ps = [(p["path"], set(p["rights"])) for p in pol["paths"]
          if p["path"] in paths]
    for d, dr in ps:
        for p, pr in ps:
            assert not (beneath(d, p) and pr <= dr), (d, p, text)
    assert not [p for p in paths if p.startswith("/usr/share/fontconfig/")
                or p.startswith("/etc/fonts/")], text
    assert "passes (exit 0)" in r.stderr, r.stderr
