"""cordonc learn never loses a read (issue 41, part 1): every distinct
path a sample uses is recorded (no fixed table; the base's grants folded
away before any bound), a trace that says records were dropped fails
learn loudly, a failing sample's stderr is shown, and a sample gets the
files beside it as inputs= gives them.  Run as root and as uid 65534 by
tests/run-pytest.sh.  Data lives in /var/tmp: the base gives the run a
private /tmp."""
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

import pytest

from conftest import BUILD, SRC

CORDONC = str(BUILD / "cordonc")
CORDON = str(BUILD / "cordon")
PYTHON = "/usr/bin/python3"


def ns_or_skip():
    r = subprocess.run(["unshare", "-U", "-p", "-f", "true"],
                       capture_output=True)
    if r.returncode:
        pytest.skip("no user+PID namespaces here: learn mode needs the "
                    "seccomp listener")


def pandas_or_skip():
    r = subprocess.run([PYTHON, "-c", "import pandas"], capture_output=True)
    if r.returncode:
        pytest.skip("pandas is not installed for %s" % PYTHON)


@pytest.fixture
def data():
    d = tempfile.mkdtemp(prefix="cordon-learn41-", dir="/var/tmp")
    os.chmod(d, 0o755)
    with open(os.path.join(d, "data.csv"), "w") as f:
        f.write("a,b\n1,2\n3,4\n5,6\n")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def base_policy(tmp_path):
    base = tmp_path / "base.policy"
    base.write_text('include "base/python.policy";\npolicy "base";\n')
    return base


def learn(tmp_path, samples, folder=None, cordon=CORDON):
    """samples: {name: code}, written into folder (tmp_path/samples)."""
    folder = folder or tmp_path / "samples"
    folder.mkdir(exist_ok=True)
    paths = []
    for name, code in samples.items():
        p = folder / name
        p.write_text(code)
        paths.append(str(p))
    out = tmp_path / "learned.policy"
    r = subprocess.run([CORDONC, "learn", "-I", str(SRC / "policies"),
                        "--cordon", cordon, "-o", str(out),
                        str(base_policy(tmp_path)), *paths],
                       capture_output=True, text=True, timeout=600)
    return r, out


def base_grants(tmp_path):
    """[(path, set of rights)] of the base's path rules."""
    blob = tmp_path / "base-only.cpol"
    r = subprocess.run([CORDONC, "compile", "-I", str(SRC / "policies"),
                        "-o", str(blob), str(base_policy(tmp_path))],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    r = subprocess.run([CORDONC, "explain", "--json", str(blob)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return [(p["path"], set(p["rights"]))
            for p in json.loads(r.stdout)["paths"]]


def beneath(d, p):
    return p == d or p.startswith(d.rstrip("/") + "/")


PANDAS_ONE = ("import pandas as pd\n"
              "df = pd.read_csv(%r)\n"
              "print(df.describe())\n")
PANDAS_TWO = ("import pandas as pd\n"
              "df = pd.read_csv(%r, parse_dates=False)\n"
              "df['c'] = df.a + df.b\n"
              "print(df.sum())\n")


def test_two_pandas_samples_give_a_passing_policy(tmp_path, data):
    """The issue's case: pandas walks /usr/share/zoneinfo (hundreds of
    reads the base grants), and the data file's read came last and was
    lost past cordon's 1024 paths.  Now the policy names the data file,
    nothing the base grants, and the samples pass under it."""
    ns_or_skip()
    pandas_or_skip()
    csv = os.path.join(data, "data.csv")
    r, out = learn(tmp_path, {"one.py": PANDAS_ONE % csv,
                              "two.py": PANDAS_TWO % csv})
    text = out.read_text() if out.exists() else None
    assert r.returncode == 0, (r.stderr, text)
    assert r.stderr.count("passes (exit 0)") == 2, r.stderr
    assert "\npath %s read-file;" % csv in text, text
    assert "INCOMPLETE" not in text and "dropped" not in r.stderr, text
    grants = base_grants(tmp_path)
    rules = re.findall(r"^path (\S+) ([a-z, -]+);", text, re.M)
    assert rules, text
    for path, rights in rules:
        want = {x.strip() for x in rights.split(",")}
        given = set()
        for d, have in grants:
            if beneath(d, path):
                given |= have
        assert not want <= given, ("the base grants it", path, rights)
    assert "/usr/share/zoneinfo" not in text, text


def test_observe_keeps_every_path_and_folds_the_base(tmp_path, data):
    """cordon --observe: 3000 distinct files read (the old table kept
    1024 and counted the rest as dropped), and every time-zone file the
    base grants read too: all 3000 recorded, none of the zone files,
    nothing dropped."""
    ns_or_skip()
    many = os.path.join(data, "many")
    os.mkdir(many)
    for i in range(3000):
        with open(os.path.join(many, "f%04d" % i), "w") as f:
            f.write("x")
    subprocess.run(["chmod", "-R", "a+rX", data], check=True)
    blob = tmp_path / "base.cpol"
    r = subprocess.run([CORDONC, "compile", "-I", str(SRC / "policies"),
                        "-o", str(blob), str(base_policy(tmp_path))],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    snip = tmp_path / "s.py"
    snip.write_text("import os\n"
                    "for top in (%r, '/usr/share/zoneinfo'):\n"
                    "    for d, _, fs in os.walk(top):\n"
                    "        for f in fs:\n"
                    "            p = os.path.join(d, f)\n"
                    "            if os.path.isfile(p):\n"
                    "                open(p, 'rb').close()\n" % many)
    trace = tmp_path / "t.trace"
    r = subprocess.run([CORDON, "--quiet", "--observe", str(trace),
                        str(blob), str(snip)], capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = trace.read_text().splitlines()
    paths = [x.split("\t", 3)[3] for x in lines if x.startswith("path\t")]
    got = {p for p in paths if p.startswith(many + "/")}
    assert len(got) == 3000, len(got)
    assert "dropped\t0" in lines, [x for x in lines if "dropped" in x]
    assert not [p for p in paths if p.startswith("/usr/share/zoneinfo")]
    granted = [x for x in lines if x.startswith("granted\t")]
    assert granted and int(granted[0].split("\t")[1]) > 0, granted


def test_a_dropped_record_fails_learn_loudly(tmp_path, data):
    """A trace whose dropped line is not 0 (here a stand-in cordon
    rewrites it): learn says the policy is incomplete and exits 1, even
    though the sample passes under what was learned."""
    ns_or_skip()
    fake = tmp_path / "fake-cordon"
    fake.write_text(
        "#!%s\n"
        "import subprocess, sys\n"
        "a = sys.argv[1:]\n"
        "rc = subprocess.run([%r] + a).returncode\n"
        "if '--observe' in a and rc == 0:\n"
        "    t = a[a.index('--observe') + 1]\n"
        "    s = open(t).read().replace('\\ndropped\\t0\\n',\n"
        "                               '\\ndropped\\t7\\n')\n"
        "    open(t, 'w').write(s)\n"
        "sys.exit(rc)\n" % (sys.executable, CORDON))
    fake.chmod(0o755)
    r, out = learn(tmp_path, {"s.py": "print(open(%r).read())\n"
                              % os.path.join(data, "data.csv")},
                   cordon=str(fake))
    assert r.returncode == 1, r.stderr
    assert "INCOMPLETE: cordon dropped 7 observations" in r.stderr, r.stderr
    assert "passes (exit 0)" in r.stderr, r.stderr
    assert "# INCOMPLETE: 7 observations were dropped" in out.read_text()


def test_a_failing_sample_says_why(tmp_path, data):
    """The sample's own stderr under observation, and under the learned
    policy (with Landlock's refusal named: learn reruns with
    --landlock-watch)."""
    ns_or_skip()
    r, out = learn(tmp_path, {"bad.py": "import sys\n"
                              "sys.exit('sample-41 cannot go on')\n"})
    assert r.returncode == 1 and "failed under observation" in r.stderr
    assert "  | sample-41 cannot go on" in r.stderr, r.stderr
    # Passes under observation, refused under the policy: a key file is
    # never learned.
    key = os.path.join(data, "server.key")
    with open(key, "w") as f:
        f.write("-----BEGIN PRIVATE KEY-----\n")
    os.chmod(key, 0o644)
    r, out = learn(tmp_path, {"key.py": "print(open(%r).read())\n" % key})
    assert r.returncode == 1 and "FAILS" in r.stderr, r.stderr
    assert "  | PermissionError: [Errno 13] Permission denied" in r.stderr, \
        r.stderr
    assert "  | cordon: Landlock refused fs.read_file on %s" % key \
        in r.stderr, r.stderr


def test_samples_get_the_files_beside_them(tmp_path):
    """The README's inputs: data.csv read and helper.py imported from
    next to the samples, under observation and under the policy; the
    samples' folder is left as it was (outputs go nowhere)."""
    ns_or_skip()
    folder = tmp_path / "samples"
    folder.mkdir()
    (folder / "data.csv").write_text("a,b\n1,2\n")
    (folder / "helper.py").write_text("def k():\n    return 41\n")
    sub = folder / "pkg"
    sub.mkdir()
    (sub / "__init__.py").write_text("V = 'pkg'\n")
    os.symlink("/etc/passwd", str(folder / "link"))
    code = ("import csv, helper, pkg, os\n"
            "rows = list(csv.reader(open('data.csv')))\n"
            "assert rows == [['a', 'b'], ['1', '2']], rows\n"
            "assert not os.path.lexists('link')\n"
            "assert not os.path.exists('one.py')\n"
            "open('out.txt', 'w').write(str(helper.k()) + pkg.V)\n")
    before = sorted(os.listdir(folder))
    r, out = learn(tmp_path, {"one.py": code, "two.py": code},
                   folder=folder)
    assert r.returncode == 0, (r.stderr, out.exists() and out.read_text())
    assert r.stderr.count("passes (exit 0)") == 2, r.stderr
    assert sorted(os.listdir(folder)) == sorted(before + ["one.py",
                                                         "two.py"])
    assert not [n for n in os.listdir(tmp_path) if ".inputs." in n]
    st = os.lstat(str(folder / "link"))
    assert stat.S_ISLNK(st.st_mode)
