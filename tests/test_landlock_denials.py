"""What Landlock refused, and which call a kill without a listener was
at (issue 26, items 1 and 4): from the kernel's audit records, as root,
for the run's own Landlock domain and first process only; elsewhere the
status says why nothing was observed.

The kernel writes these records only while its audit is on
(audit_enabled).  cordon never turns it on; the root tests here do, for
the module's duration, and put the setting back as it was (the fixture
audit_on).  Run as root and as uid 65534 by tests/run-pytest.sh."""
import json
import os
import re
import shutil
import socket
import struct
import subprocess
import tempfile

import pytest

from conftest import BUILD, SRC

CORDON = str(BUILD / "cordon")
AUDIT_GET, AUDIT_SET = 1000, 1001


def audit_enabled(value=None):
    """The kernel's audit_enabled (AUDIT_GET); with value, set it first
    (AUDIT_SET, mask AUDIT_STATUS_ENABLED).  None: no audit here."""
    try:
        s = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 9)
    except OSError:
        return None
    with s:
        s.bind((0, 0))
        if value is not None:
            body = struct.pack("=10I", 1, value, *([0] * 8))
            s.send(struct.pack("=IHHII", 16 + len(body), AUDIT_SET, 5, 1, 0)
                   + body)
            s.recv(8192)
        s.send(struct.pack("=IHHII", 16, AUDIT_GET, 1, 2, 0))
        d = s.recv(8192)
        if struct.unpack("=H", d[4:6])[0] != AUDIT_GET:
            return None
        return struct.unpack("=I", d[20:24])[0]


def landlock_abi():
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.syscall(444, None, 0, 1)   # LANDLOCK_CREATE_RULESET_VERSION


@pytest.fixture(scope="module")
def audit_on():
    """Root with an audit-capable kernel: audit on for this module, put
    back as it was after it; else skip with the reason."""
    if os.geteuid() != 0:
        pytest.skip("reading the kernel's audit records needs root")
    if landlock_abi() < 7:
        pytest.skip("Landlock ABI < 7 logs no denials")
    was = audit_enabled()
    if was is None:
        pytest.skip("no audit in this kernel")
    if was == 2:
        pytest.skip("audit is locked off here")
    if was == 0 and audit_enabled(1) != 1:
        pytest.skip("audit could not be turned on")
    yield
    if was == 0:
        audit_enabled(0)


@pytest.fixture(scope="module")
def tree():
    """DATA (granted), with next.txt and other.txt beside it: outside
    /tmp (the run's private /tmp would hide it), readable by uid 65534."""
    d = tempfile.mkdtemp(prefix="cordon-ll-", dir="/var/tmp")
    os.makedirs(os.path.join(d, "data"))
    for name, text in (("data/a.txt", "granted\n"), ("next.txt", "next\n"),
                       ("other.txt", "other\n")):
        with open(os.path.join(d, name), "w") as f:
            f.write(text)
    subprocess.run(["chmod", "-R", "a+rX", d], check=True)
    yield d
    shutil.rmtree(d)


@pytest.fixture(scope="module")
def blob(launcher_blobs, tree):
    return launcher_blobs("launcher-landlock", DATA=tree + "/data")


READ_NEXT = ("print(open(%r).read(), end='')\n"
             "open(%r)\n")


def entries(r, path):
    return [e for e in r.status["landlock_denials"] or []
            if e.get("path") == path]


# First, while the kernel's audit is as the host has it (audit_on turns
# it on for the rest of the module).
def test_unobserved_says_why(cordon, blob, tree):
    """Without root, or with the kernel's audit off: no list, a reason."""
    if os.geteuid() == 0 and audit_enabled() == 1:
        pytest.skip("audit is on here: Landlock's denials are observed")
    r = cordon(blob, READ_NEXT % (tree + "/data/a.txt", tree + "/next.txt"))
    assert r.rc == 1 and "PermissionError" in r.err, r
    st = r.status
    assert st["landlock_denials"] is None, r
    assert st["landlock_denials_by"] is None, r
    assert "landlock" in st["denials_unobserved"], r
    why = st["landlock_denials_reason"]
    if os.geteuid() != 0:
        assert "needs root" in why, r
    else:
        assert "audit is off" in why and "does not turn it on" in why, r
    assert "Landlock refused" not in r.err, r


def test_kill_without_listener_unnamed_says_why(cordon, launcher_blobs):
    if os.geteuid() == 0 and audit_enabled() == 1:
        pytest.skip("audit is on here: the kill is named")
    blob = launcher_blobs("launcher-nobase")
    r = cordon(blob, "print(1)\n", opts=["--no-namespaces"])
    assert r.rc == 159, r
    assert "cannot tell which" in r.status["reason"], r
    why = r.status["denials_reason"]
    assert "a kill's call is not named either" in why, r
    assert ("needs root" if os.geteuid() else "audit is off") in why, r


def test_file_next_to_granted_folder_is_named(cordon, blob, tree, audit_on):
    nxt = tree + "/next.txt"
    r = cordon(blob, READ_NEXT % (tree + "/data/a.txt", nxt))
    assert r.rc == 1 and "PermissionError" in r.err, r
    assert r.out == "granted\n", r
    st = r.status
    assert st["landlock_denials_by"] == "audit", r
    assert "landlock" not in st["denials_unobserved"], r
    assert entries(r, nxt) == [{
        "access": "fs.read_file", "path": nxt, "pid": entries(r, nxt)[0]["pid"],
        "comm": "python3", "add": "path %s ro;" % nxt, "count": 1}], r
    assert isinstance(entries(r, nxt)[0]["pid"], int), r
    assert "cordon: Landlock refused fs.read_file on %s (python3, pid " % nxt \
        in r.err, r
    assert "add: path %s ro;" % nxt in r.err, r


def test_other_runs_denials_are_not_listed(cordon, blob, tree, audit_on):
    """Run B keeps making Landlock denials of its own domain while run A
    runs; each lists only its own."""
    other, nxt = tree + "/other.txt", tree + "/next.txt"
    stop = tree + "/data/stop"
    code_b = ("import os, time\n"
              "first = True\n"
              "for _ in range(3000):\n"
              "    if os.path.exists(%r):\n"
              "        break\n"
              "    try:\n"
              "        open(%r)\n"
              "    except PermissionError:\n"
              "        pass\n"
              "    if first:\n"
              "        print('ready', flush=True)\n"
              "        first = False\n"
              "    time.sleep(0.02)\n" % (stop, other))
    snip = os.path.join(tempfile.mkdtemp(dir="/var/tmp"), "b.py")
    with open(snip, "w") as f:
        f.write(code_b)
    os.chmod(os.path.dirname(snip), 0o755)
    status_b = snip + ".status"
    b = subprocess.Popen([CORDON, "--status-file", status_b, str(blob),
                          snip], stdout=subprocess.PIPE, text=True)
    try:
        assert b.stdout.readline() == "ready\n"
        a = cordon(blob, READ_NEXT % (tree + "/data/a.txt", nxt))
    finally:
        open(stop, "w").close()
        b.wait(90)
        os.unlink(stop)
    with open(status_b) as f:
        sb = json.load(f)
    shutil.rmtree(os.path.dirname(snip))
    assert entries(a, nxt) and not entries(a, other), a
    assert [e for e in sb["landlock_denials"] if e["path"] == other], sb
    assert not [e for e in sb["landlock_denials"] if e["path"] == nxt], sb


def test_named_host_direct_connect_says_proxy(cordon, tmp_path, audit_on):
    blob = tmp_path / "idc.cpol"
    subprocess.run([str(BUILD / "cordonc"), "compile", "-I",
                    str(SRC / "policies"), "-o", str(blob),
                    str(SRC / "policies" / "idc_query.policy")], check=True)
    r = cordon(blob, "import socket\n"
               "s = socket.socket()\n"
               "s.connect(('1.1.1.1', 443))\n")
    assert r.rc == 1 and "PermissionError" in r.err, r
    den = [e for e in r.status["landlock_denials"]
           if e.get("dest") == "1.1.1.1:443"]
    assert den and den[0]["access"] == "net.connect_tcp", r
    assert "proxy" in den[0]["add"] and "HTTPS_PROXY" in den[0]["add"], r
    assert "proxy (HTTPS_PROXY" in r.err, r


def test_kill_without_listener_names_the_call(cordon, launcher_blobs,
                                              audit_on):
    blob = launcher_blobs("launcher-nobase")
    r = cordon(blob, "print(1)\n", opts=["--no-namespaces"])
    assert r.rc == 159, r
    assert r.status["outcome"] == "seccomp", r
    m = re.search(r"system call (\d+) \(([a-z0-9_]+)\), from the kernel's "
                  r"audit record", r.status["reason"])
    assert m, r
    assert "cordon: the seccomp filter killed the run at system call " \
        "%s (%s)" % m.groups() in r.err, r


def test_kill_under_a_pid_namespace_names_the_call(cordon, launcher_blobs,
                                                   audit_on):
    """Issue 41: with the PID namespace (the default), the payload is
    init's child and the kernel's SECCOMP record names its pid, not the
    run's first process's; cordon learns the payload's pid from its
    hello and names the call (execve: a policy without the base)."""
    blob = launcher_blobs("launcher-nobase")
    r = cordon(blob, "print(1)\n")
    if "pid" not in r.status["layers"]["namespaces"]:
        pytest.skip("no PID namespace here: the first process is the "
                    "payload (the test above)")
    assert r.rc == 159, r
    assert r.status["outcome"] == "seccomp", r
    assert "cannot tell which" not in r.status["reason"], r
    assert "system call 59 (execve), from the kernel's audit record" \
        in r.status["reason"], r
    assert "cordon: the seccomp filter killed the run at system call " \
        "59 (execve)" in r.err, r
