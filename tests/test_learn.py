"""cordonc learn (issue 15, item 2): from the base and trusted samples of
each shipped tool's kind, a policy that compiles, lints, runs the samples,
and still refuses what they did not do.  Run as root and as uid 65534 by
tests/run-pytest.sh.  The data folder lives outside /tmp (the base gives
the run a private /tmp) and outside the workdir."""
import os
import shutil
import socket
import subprocess
import tempfile
import threading

import pytest

from conftest import BUILD, SRC

CORDONC = str(BUILD / "cordonc")
CORDON = str(BUILD / "cordon")


@pytest.fixture
def data():
    d = tempfile.mkdtemp(prefix="cordon-learn-", dir="/var/tmp")
    os.chmod(d, 0o755)
    with open(os.path.join(d, "t.csv"), "w") as f:
        f.write("a,b\n1,2\n3,4\n")
    with open(os.path.join(d, "secret.csv"), "w") as f:
        f.write("not for the snippet\n")
    yield d
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def server():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(16)
    stop = threading.Event()

    def serve():
        while not stop.is_set():
            try:
                c, _ = s.accept()
            except OSError:
                return
            c.sendall(b"hello\n")
            c.close()
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    yield s.getsockname()[1]
    stop.set()
    s.close()


def learn(tmp_path, samples):
    base = tmp_path / "base.policy"
    base.write_text('include "base/python.policy";\npolicy "base";\n')
    paths = []
    for i, code in enumerate(samples):
        p = tmp_path / ("sample%d.py" % i)
        p.write_text(code)
        paths.append(str(p))
    out = tmp_path / "learned.policy"
    r = subprocess.run([CORDONC, "learn", "-I", str(SRC / "policies"),
                        "--cordon", CORDON, "-o", str(out), str(base),
                        *paths], capture_output=True, text=True,
                       timeout=300)
    return r, out, tmp_path / "learned.cpol"


def run(blob, code, tmp_path):
    p = tmp_path / "probe.py"
    p.write_text(code)
    return subprocess.run([CORDON, "--quiet", str(blob), str(p)],
                          capture_output=True, text=True, timeout=120)


def ns_or_skip():
    r = subprocess.run(["unshare", "-U", "-p", "-f", "true"],
                       capture_output=True)
    if r.returncode:
        pytest.skip("no user+PID namespaces here: learn mode needs the "
                    "seccomp listener")


def test_learn_from_samples_and_refuse_the_rest(tmp_path, data, server):
    ns_or_skip()
    sqlite = ("import sqlite3, csv\n"
              "con = sqlite3.connect(':memory:')\n"
              "con.execute('create table t (a, b)')\n"
              "rows = list(csv.reader(open(%r)))[1:]\n"
              "con.executemany('insert into t values (?, ?)', rows)\n"
              "print(con.execute('select count(*) from t').fetchone())\n"
              "open('out.txt', 'w').write('done')\n"
              % os.path.join(data, "t.csv"))
    tool = ("import subprocess\n"
            "print(subprocess.run(['/usr/bin/ls', %r], check=True,\n"
            "      capture_output=True).stdout)\n" % data)
    client = ("import socket\n"
              "s = socket.create_connection(('127.0.0.1', %d))\n"
              "print(s.recv(10))\n" % server)
    plot = ("import matplotlib\nmatplotlib.use('Agg')\n"
            "import matplotlib.pyplot as plt\n"
            "plt.plot([1, 2], [3, 4])\nplt.savefig('plot.png')\n")
    samples = [sqlite, tool, client]
    try:
        import matplotlib  # noqa: F401
        samples.append(plot)
    except ImportError:
        pass
    r, out, blob = learn(tmp_path, samples)
    assert "LEARN MODE" in r.stderr, r.stderr
    assert r.returncode == 0, (r.stderr, out.read_text()
                               if out.exists() else None)
    text = out.read_text()
    assert text.count("passes") == 0  # the report is on stderr
    assert r.stderr.count("passes (exit 0)") == len(samples), r.stderr
    assert 'include "' in text and "base.policy" in text, text
    assert "network connect %d;" % server in text, text
    assert os.path.join(data, "t.csv") + " read-file" in text, text
    assert "secret.csv" not in text, text
    for wide in ("/ ", "/etc ", "/home ", "/tmp ", "/proc ", "/dev "):
        assert "\npath %s" % wide not in text, text
    # Lints without errors.
    lint = subprocess.run([CORDONC, "lint", "-I", str(SRC / "policies"),
                           str(out)], capture_output=True, text=True)
    assert lint.returncode == 0, lint.stderr
    # Still refuses what the samples did not do.
    other = run(blob, "open(%r).read()\n" % os.path.join(data, "secret.csv"),
                tmp_path)
    assert other.returncode != 0 and "PermissionError" in other.stderr, other
    s2 = socket.socket()
    s2.bind(("127.0.0.1", 0))
    s2.listen(1)
    port2 = s2.getsockname()[1]
    try:
        conn = run(blob, "import socket\nsocket.create_connection("
                   "('127.0.0.1', %d))\n" % port2, tmp_path)
    finally:
        s2.close()
    assert conn.returncode != 0, conn
    write = run(blob, "open(%r, 'w').write('x')\n"
                % os.path.join(data, "new.txt"), tmp_path)
    assert write.returncode != 0 and not os.path.exists(
        os.path.join(data, "new.txt")), write


def test_learn_needs_a_passing_sample(tmp_path):
    ns_or_skip()
    r, out, _ = learn(tmp_path, ["raise SystemExit(3)\n"])
    assert r.returncode != 0 and "failed under observation" in r.stderr, r
    assert not out.exists()


def test_observe_says_learn_mode(tmp_path, launcher_blobs):
    ns_or_skip()
    blob = launcher_blobs("launcher-denials")
    snip = tmp_path / "s.py"
    snip.write_text("import socket\n"
                    "try:\n"
                    "    socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)\n"
                    "except OSError:\n"
                    "    pass\n")
    trace = tmp_path / "t.trace"
    r = subprocess.run([CORDON, "--observe", str(trace), str(blob),
                        str(snip)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "LEARN MODE" in r.stderr
    t = trace.read_text().splitlines()
    assert t[0] == "cordon-trace\t1"
    assert any(x.startswith("call\t41\t") and "AF_INET6, SOCK_DGRAM" in x
               for x in t), t


def explained(blob):
    import json
    r = subprocess.run([CORDONC, "explain", "--json", str(blob)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def compiled(tmp_path, out):
    blob = tmp_path / "again.cpol"
    r = subprocess.run([CORDONC, "compile", "-I", str(SRC / "policies"),
                        "-o", str(blob), str(out)], capture_output=True,
                       text=True)
    assert r.returncode == 0, (r.stderr, out.read_text())
    return explained(blob)


def test_learn_escapes_a_hostile_name(tmp_path):
    """Issue 24 item 9: a directory the sample makes, named to close the
    writer's quote, must not add `network connect 22` (or any statement)
    to the learned policy: the rule names exactly that directory."""
    ns_or_skip()
    hostile = 'x" make-sym; network connect 22; path "$WORKDIR'
    r, out, _ = learn(tmp_path, ["import os\n"
                                 "os.mkdir(%r)\n"
                                 "os.symlink('t', %r + '/y')\n"
                                 % (hostile, hostile)])
    assert out.exists(), r.stderr
    text = out.read_text()
    assert not any(line.startswith("network")
                   for line in text.splitlines()), text
    pol = compiled(tmp_path, out)
    assert pol["layers"]["network"] == "off", pol["layers"]
    assert pol["layers"]["connect"] == [], pol["layers"]
    named = [p for p in pol["paths"] if hostile in p["path"]]
    assert [(p["path"], p["rights"]) for p in named] == [
        ("$WORKDIR/" + hostile, ["make-sym"])], (named, text)


def test_learn_keeps_failed_creates_out(tmp_path):
    """Issue 24 item 9: creates that fail (EACCES as a user; for every
    uid ENAMETOOLONG, ENOTDIR, EEXIST) give no right: no write on
    /usr/lib.  As root the plain create would succeed (the run is uid 0
    without Landlock), so it is tried only as a user."""
    ns_or_skip()
    stdlib = "/usr/lib/python3.11"
    if not os.path.isdir(stdlib):
        pytest.skip("no %s here" % stdlib)
    probe = ("import errno, os\n"
             "d = %r\n"
             "tries = [(d + '/' + 'n' * 300, os.O_CREAT | os.O_WRONLY,\n"
             "          errno.ENAMETOOLONG),\n"
             "         (d + '/os.py/x', os.O_CREAT | os.O_WRONLY,\n"
             "          errno.ENOTDIR),\n"
             "         (d + '/os.py', os.O_CREAT | os.O_EXCL | os.O_WRONLY,\n"
             "          errno.EEXIST)]\n"
             "if os.getuid() != 0:\n"
             "    tries.append((d + '/cordon-learn-probe',\n"
             "                  os.O_CREAT | os.O_WRONLY, errno.EACCES))\n"
             "for path, flags, want in tries:\n"
             "    try:\n"
             "        os.close(os.open(path, flags))\n"
             "    except OSError as e:\n"
             "        assert e.errno == want, (path, e)\n"
             "    else:\n"
             "        raise SystemExit('made ' + path)\n"
             "open('kept.txt', 'w').write('x')\n" % stdlib)
    r, out, _ = learn(tmp_path, [probe])
    assert out.exists(), r.stderr
    text = out.read_text()
    pol = compiled(tmp_path, out)
    writes = {"write-file", "make-reg", "truncate", "make-dir",
              "remove-file"}
    lib = [p for p in pol["paths"] if p["path"].startswith("/usr/lib")
           and writes & set(p["rights"])]
    assert lib == [], (lib, text)
    assert "# Not learned: " in text and " path calls that failed" in text
    # The sample passes under what was learned (its creates fail there
    # too, as it expects).
    assert r.returncode == 0, (r.stderr, text)


def test_credential_files_are_not_learned(tmp_path, data):
    """A sample that reads a key file: learn names it in a note, offers no
    rule (issue 38 item 2: the credential table of common/secret.c)."""
    ns_or_skip()
    os.makedirs(os.path.join(data, ".ssh"))
    key = os.path.join(data, ".ssh", "id_ed25519")
    pem = os.path.join(data, "tls", "privkey.pem")
    os.makedirs(os.path.dirname(pem))
    for f in (key, pem):
        with open(f, "w") as fh:
            fh.write("-----BEGIN PRIVATE KEY-----\n")
    subprocess.run(["chmod", "-R", "a+rX", data], check=True)
    r, out, _ = learn(tmp_path, ["open(%r).read()\nopen(%r).read()\n"
                                 "print(open(%r).read())\n"
                                 % (key, pem, os.path.join(data, "t.csv"))])
    # The sample needs what is not learned: it fails under the policy,
    # and learn says so.
    assert r.returncode != 0 and "FAILS" in r.stderr, r.stderr
    text = out.read_text()
    for f in (key, pem):
        assert "\npath %s" % f not in text, text
        assert "# not learned: read-file on %s (a credential file" % f \
            in text, text
    assert os.path.join(data, "t.csv") + " read-file" in text, text
