"""What cordon writes about a run is cordon's, whatever the run named
(issue 38, items 1 and 2): the status is valid JSON text in UTF-8 when a
denied path or a process name holds raw bytes (each byte that is not
UTF-8 written as \\udcXX, Python's surrogateescape, so os.fsencode gives
the bytes back), and each `add:` advice, pasted into the policy as told,
grants exactly the path it names (compared through `cordonc explain`),
or says why it is not advised.  Through cordon --landlock-watch, so
these run as root and as uid 65534 (tests/run-pytest.sh)."""
import json
import os
import shutil
import subprocess
import tempfile

import pytest

from conftest import BUILD

WATCH = ["--landlock-watch"]


@pytest.fixture(scope="module")
def tree():
    """DATA (granted ro) and, beside it, folders the run is refused:
    outside /tmp (the run's private /tmp would hide them), readable by
    uid 65534."""
    d = tempfile.mkdtemp(prefix="cordon-st-", dir="/var/tmp")
    os.makedirs(os.path.join(d, "data"))
    subprocess.run(["chmod", "-R", "a+rX", d], check=True)
    yield d
    shutil.rmtree(d)


@pytest.fixture(scope="module")
def blob(launcher_blobs, tree):
    return launcher_blobs("launcher-llwatch", DATA=tree + "/data", PORT="9")


def folder(tree, name):
    """tree/NAME (bytes allowed) holding f.txt; the path of f.txt."""
    d = os.path.join(os.fsencode(tree), name)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, b"f.txt"), "w") as f:
        f.write("secret\n")
    subprocess.run(["chmod", "-R", "a+rX", tree], check=True)
    return os.path.join(d, b"f.txt")


def run(blob, code, tmp_path):
    """cordon --landlock-watch on code; (rc, stderr bytes, status bytes)."""
    snip, status = tmp_path / "snippet.py", tmp_path / "status.json"
    snip.write_text(code)
    p = subprocess.run([str(BUILD / "cordon"), "--status-file", str(status),
                        *WATCH, str(blob), str(snip)],
                       capture_output=True, timeout=90)
    return p.returncode, p.stderr, status.read_bytes()


def test_raw_bytes_path_and_comm_give_json(blob, tree, tmp_path):
    f = folder(tree, b"\xff\xfe raw \xc3(")
    comm = b"\xff\xfecomm\x80\xed\xa0\x80"
    rc, err, raw = run(blob, "import ctypes\n"
                       "ctypes.CDLL(None).prctl(15, %r, 0, 0, 0)\n"
                       "open(%r)\n" % (comm, f), tmp_path)
    assert rc == 1 and b"PermissionError" in err, err
    text = raw.decode("utf-8")                 # strict: valid UTF-8
    st = json.loads(text)
    assert "--landlock-watch" in st["landlock_denials_by"], st
    den = [e for e in st["landlock_denials"]
           if os.fsencode(e.get("path", "")) == f]
    assert len(den) == 1, st["landlock_denials"]
    assert os.fsencode(den[0]["comm"]) == comm, den
    assert "\\udcff\\udcfe raw \\udcc3(" in text, text
    # cordon's own lines show the bytes as \xNN, never raw
    says = [l for l in err.splitlines() if l.startswith(b"cordon:")]
    assert says and all(max(l) < 0x80 for l in says), err
