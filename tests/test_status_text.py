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
import sys
import tempfile

import pytest

from conftest import BUILD, SRC
from test_landlock_denials import audit_on  # noqa: F401 (a fixture)

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


def run(blob, code, tmp_path, opts=WATCH):
    """cordon --landlock-watch (or opts) on code; (rc, stderr bytes,
    status bytes)."""
    snip, status = tmp_path / "snippet.py", tmp_path / "status.json"
    snip.write_text(code)
    p = subprocess.run([str(BUILD / "cordon"), "--status-file", str(status),
                        *opts, str(blob), str(snip)],
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


# ------------------------------------------------ through the Python client

FAKE = "cordon: policy code_gen needs Landlock ABI 99 (snippet's own)"


@pytest.fixture
def stub(tmp_path):
    """A program standing for cordon: it writes STATUS (bytes) to its
    --status-fd, FAKE to stderr, and exits 137."""
    def make(status):
        p = tmp_path / "cordon-stub"
        p.write_text("#!%s\nimport os, sys\n"
                     "a = sys.argv\n"
                     "fd = int(a[a.index('--status-fd') + 1])\n"
                     "os.write(fd, %r)\n"
                     "sys.stderr.write(%r + '\\n')\n"
                     "sys.exit(137)\n" % (sys.executable, status, FAKE))
        p.chmod(0o755)
        return str(p)
    return make


def client_for(cpkg, policies_dir, cordon, tmp_path):
    runs = tmp_path / "runs"
    runs.mkdir(exist_ok=True)
    return cpkg.Client(policies_dir, cordon=cordon, work_root=runs,
                       check_kernel=False, warm=False)


@pytest.fixture(scope="module")
def cpkg(src_dir):
    from client_support import import_client
    return import_client(src_dir)


def test_client_reads_a_status_with_raw_bytes(cpkg, policies_dir, stub,
                                              tmp_path):
    """An older cordon's status with a raw byte: the outcome is still had,
    the path's bytes back through os.fsencode, and nothing of stderr."""
    st = (b'{"cordon":1,"outcome":"signaled","exit_code":137,"signal":9,'
          b'"reason":"killed by signal 9","landlock_denials":'
          b'[{"access":"fs.read_file","path":"/d\xff\xfe/f.txt",'
          b'"comm":"\xff\xfec","add":"x","count":1}]}\n')
    c = client_for(cpkg, policies_dir, stub(st), tmp_path)
    try:
        r = c.run("code_gen", "print(1)")
    finally:
        c.close()
    assert str(r.outcome) in ("signaled", "Outcome.SIGNALED"), r
    assert r.reason == "killed by signal 9" and FAKE not in repr(r), r
    den = r.status["landlock_denials"][0]
    assert os.fsencode(den["path"]) == b"/d\xff\xfe/f.txt", den


def test_client_reason_is_never_the_runs_stderr(cpkg, policies_dir, stub,
                                                tmp_path):
    """No status at all: the error says so, and not what stderr held."""
    c = client_for(cpkg, policies_dir, stub(b""), tmp_path)
    try:
        with pytest.raises(cpkg.LauncherError) as e:
            c.run("code_gen", "print(1)")
    finally:
        c.close()
    assert "no status report" in str(e.value), e.value
    assert "Landlock ABI 99" not in str(e.value), e.value


def test_client_killed_run_keeps_outcome_denials_outputs(
        cpkg, policies_dir, tree, tmp_path):
    """The issue's run, end to end: cordon (with --landlock-watch, so it
    names the denial as any user) under the client; the snippet names a
    raw-bytes process, is refused a raw-bytes folder, writes an output,
    prints a fake cordon line and kills itself."""
    f = folder(tree, b"\xfe\xff client")
    wrap = tmp_path / "cordon-watch"
    wrap.write_text("#!/bin/sh\nexec %s --landlock-watch \"$@\"\n"
                    % (BUILD / "cordon"))
    wrap.chmod(0o755)
    c = client_for(cpkg, policies_dir, str(wrap), tmp_path)
    code = ("import ctypes, os, sys\n"
            "ctypes.CDLL(None).prctl(15, b'\\xff\\xfek', 0, 0, 0)\n"
            "open('kept.txt', 'w').write('kept')\n"
            "try:\n"
            "    open(%r)\n"
            "except PermissionError:\n"
            "    pass\n"
            "sys.stderr.write(%r + '\\n')\n"
            "sys.stderr.flush()\n"
            "os.kill(os.getpid(), 9)\n" % (f, FAKE))
    try:
        r = c.run("code_gen", code)
    finally:
        c.close()
    assert "signal" in str(r.outcome).lower(), r
    assert FAKE not in r.reason, r
    assert "kept.txt" in r.outputs, r
    den = [d for d in r.status["landlock_denials"] or []
           if os.fsencode(d.get("path", "")) == f]
    assert den and os.fsencode(den[0]["comm"]) == b"\xff\xfek", r.status


# ------------------------------------------------------ advice, pasted

# Folder names the run chose; each advice must grant exactly that path.
ADVISED = [b"d rw; network connect 22; #", b'q"uote\\back slash',
           b"caf\xc3\xa9 sp", b"semi;colon", b"x*"]
# Names the policy language cannot hold as they are: no rule advised.
NOT_ADVISED = [b"\xff\xfe raw", b"tab\there", b"dollar${HOME}",
               b"bidi\xe2\x80\xaex"]
# Credential stores: said, not offered.
SECRETS = [b".ssh/cfg", b"tls/server.key", b"keys/privkey.pem",
           b"h/.aws/credentials", b".netrc"]


def explain(src, tree):
    """cordonc explain --json of policy source (bytes), as a dict; the
    same file name each time (explain names rules by file and line)."""
    d = tempfile.mkdtemp(prefix="cordon-st-explain-")
    p = os.path.join(d, "pasted.policy")
    with open(p, "wb") as f:
        f.write(src)
    try:
        r = subprocess.run([str(BUILD / "cordonc"), "explain", "--json",
                            "-I", str(SRC / "policies"),
                            "-D", "DATA=%s/data" % tree, "-D", "PORT=9",
                            p], capture_output=True)
    finally:
        shutil.rmtree(d)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    doc["policy"].pop("source_sha256", None)    # the text changed
    return doc


def granted_by(add, tree):
    """What pasting add into the test's policy adds, per explain: the
    path entries it adds; everything else must stay as it was (the
    file:line of each rule included: the pasted line comes last)."""
    base = (SRC / "tests/policies/launcher-llwatch.policy").read_bytes()
    before = explain(base, tree)
    after = explain(base + b"\n" + add.encode("utf-8", "surrogateescape")
                    + b"\n", tree)
    assert {k: v for k, v in after.items() if k != "paths"} == \
        {k: v for k, v in before.items() if k != "paths"}, add
    return [e for e in after["paths"] if e not in before["paths"]]


def test_advice_pasted_grants_exactly_its_path(blob, tree, tmp_path):
    files = {n: folder(tree, n) for n in ADVISED + NOT_ADVISED}
    rc, err, raw = run(blob, "".join(
        "try:\n    open(%r)\nexcept PermissionError:\n    pass\n" % f
        for f in files.values()), tmp_path)
    assert rc == 0, err
    st = json.loads(raw.decode("utf-8"))
    adds = {os.fsencode(e["path"]): e["add"]
            for e in st["landlock_denials"] if "path" in e}
    for name in ADVISED:
        f = files[name]
        assert f in adds, (name, st["landlock_denials"])
        assert adds[f].startswith("path ") and adds[f].endswith(" ro;"), \
            adds[f]
        new = granted_by(adds[f], tree)
        assert [(os.fsencode(e["path"]), e["shorthand"]) for e in new] == \
            [(f, "ro")], (adds[f], new)
    for name in NOT_ADVISED:
        a = adds[files[name]]
        assert a.startswith("not advised: the path cannot be written"), a
    # cordon's own stderr lines carry the same advice, bytes shown \xNN
    says = [l for l in err.splitlines() if l.startswith(b"cordon:")]
    assert all(max(l) < 0x80 for l in says), err


def test_advice_for_credential_files_says_so(blob, tree, tmp_path):
    files = {n: folder(tree, os.path.dirname(n) or b".") for n in SECRETS}
    for n in SECRETS:
        files[n] = os.path.join(os.fsencode(tree), n)
        with open(files[n], "w") as f:
            f.write("x\n")
    subprocess.run(["chmod", "-R", "a+rX", tree], check=True)
    rc, err, raw = run(blob, "".join(
        "try:\n    open(%r)\nexcept PermissionError:\n    pass\n" % f
        for f in [*files.values(), b"/etc/shadow"]), tmp_path)
    st = json.loads(raw.decode("utf-8"))
    adds = {os.fsencode(e["path"]): e["add"]
            for e in st["landlock_denials"] if "path" in e}
    for n in SECRETS:
        a = adds[files[n]]
        assert a.startswith("not advised: ") and \
            "is a credential file" in a, a
        assert "path " not in a and " ro;" not in a, a
    if b"/etc/shadow" in adds:     # as uid 65534, DAC may refuse first
        assert adds[b"/etc/shadow"] == \
            "not advised: /etc/shadow is a credential file (/etc/shadow)"


def test_advice_for_a_folder_holding_host_credentials(blob, tmp_path):
    """A file made in /etc would be advised as `path /etc rw;`, which
    grants /etc/shadow: said instead."""
    rc, err, raw = run(blob, "try:\n    open('/etc/cordon-x', 'w')\n"
                       "except PermissionError:\n    pass\n", tmp_path)
    st = json.loads(raw.decode("utf-8"))
    adds = {e["path"]: e["add"] for e in st["landlock_denials"]
            if "path" in e}
    assert adds.get("/etc") == \
        "not advised: /etc holds a credential file (/etc/shadow)", adds


def test_audit_records_give_json_and_quoted_advice(blob, tree, tmp_path,
                                                   audit_on):  # noqa: F811
    """The same through the kernel's audit records (root, audit on): the
    comm and path come hex-decoded from the record, raw."""
    raw_f = folder(tree, b"\xff\xfe audit")
    inj_f = folder(tree, ADVISED[0])
    comm = b"\xff\xfeaudit"
    rc, err, raw = run(blob, "import ctypes\n"
                       "ctypes.CDLL(None).prctl(15, %r, 0, 0, 0)\n"
                       "try:\n    open(%r)\nexcept PermissionError:\n"
                       "    pass\n"
                       "open(%r)\n" % (comm, raw_f, inj_f), tmp_path,
                       opts=[])
    assert rc == 1, err
    st = json.loads(raw.decode("utf-8"))
    assert st["landlock_denials_by"] == "audit", st
    adds = {os.fsencode(e["path"]): e for e in st["landlock_denials"]
            if "path" in e}
    assert os.fsencode(adds[raw_f]["comm"]) == comm, adds
    assert adds[raw_f]["add"].startswith("not advised: "), adds
    new = granted_by(adds[inj_f]["add"], tree)
    assert [(os.fsencode(e["path"]), e["shorthand"]) for e in new] == \
        [(inj_f, "ro")], new
