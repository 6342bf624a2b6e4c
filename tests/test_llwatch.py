"""cordon --landlock-watch: Landlock's refusals named where the kernel's
audit cannot name them (uid 65534, audit off).  cordon sees each call
that names a path or a TCP port and checks it against the policy's rules
in the run's own view; the call then proceeds and Landlock decides.
Run as root and as uid 65534 by tests/run-pytest.sh: neither needs the
kernel's audit."""
import os
import shutil
import socket
import subprocess
import tempfile

import pytest

WATCH = ["--landlock-watch"]


@pytest.fixture(scope="module")
def tree():
    """DATA (granted ro), with next.txt beside it: outside /tmp (the
    run's private /tmp would hide it), readable by uid 65534."""
    d = tempfile.mkdtemp(prefix="cordon-llw-", dir="/var/tmp")
    os.makedirs(os.path.join(d, "data"))
    for name in ("data/a.txt", "next.txt"):
        with open(os.path.join(d, name), "w") as f:
            f.write(name + "\n")
    os.symlink("a.txt", os.path.join(d, "data", "link"))
    subprocess.run(["chmod", "-R", "a+rX", d], check=True)
    yield d
    shutil.rmtree(d)


@pytest.fixture(scope="module")
def port():
    """A TCP port with a listener, the one the policy grants."""
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(8)
    yield s.getsockname()[1]
    s.close()


@pytest.fixture(scope="module")
def blob(launcher_blobs, tree, port):
    return launcher_blobs("launcher-llwatch", DATA=tree + "/data",
                          PORT=str(port))


def named(r, key, value):
    return [e for e in r.status["landlock_denials"] or []
            if e.get(key) == value]


def test_read_next_to_granted_folder_is_named(cordon, blob, tree):
    nxt, ok = tree + "/next.txt", tree + "/data/a.txt"
    r = cordon(blob, "print(open(%r).read(), end='')\n"
               "print(open(%r).read(), end='')\n"
               "open(%r)\n" % (ok, tree + "/data/link", nxt), opts=WATCH)
    assert r.rc == 1 and "PermissionError" in r.err, r
    assert r.out == "data/a.txt\n" * 2, r
    st = r.status
    assert "--landlock-watch" in st["landlock_denials_by"], r
    assert st["landlock_denials_reason"] is None, r
    den = named(r, "path", nxt)
    assert len(den) == 1 and den[0]["access"] == "fs.read_file", r
    assert den[0]["add"] == "path %s ro;" % nxt and den[0]["count"] == 1, r
    assert den[0]["comm"] == "python3" and den[0]["pid"] > 1, r
    # What the rules grant is not listed: the file, and through a link.
    assert not named(r, "path", ok), r
    assert "cordon: Landlock refused fs.read_file on %s" % nxt in r.err, r


def test_create_in_read_only_folder_names_the_folder(cordon, blob, tree):
    r = cordon(blob, "open(%r, 'w')\n" % (tree + "/data/new.txt"),
               opts=WATCH)
    assert r.rc == 1 and "PermissionError" in r.err, r
    den = named(r, "path", tree + "/data")
    assert den and den[0]["access"] == "fs.make_reg", r
    assert den[0]["add"] == "path %s/data rw;" % tree, r
    assert not os.path.exists(tree + "/data/new.txt")


def test_private_tmp_is_granted_and_said(cordon, blob):
    """The run's own /tmp is writable: nothing to name there."""
    r = cordon(blob, "open('/tmp/x', 'w').write('x')\n"
               "print(open('/tmp/x').read())\n", opts=WATCH)
    assert r.rc == 0 and r.out == "x\n", r
    assert not [e for e in r.status["landlock_denials"]
                if e.get("path", "").startswith("/tmp")], r


def test_port_not_granted_is_named(cordon, blob, port):
    r = cordon(blob, "import socket\n"
               "socket.create_connection(('127.0.0.1', %d)).close()\n"
               "print('granted port ok')\n"
               "s = socket.socket()\n"
               "s.connect(('127.0.0.1', 9))\n" % port, opts=WATCH)
    assert r.rc == 1 and "PermissionError" in r.err, r
    assert r.out == "granted port ok\n", r
    den = named(r, "dest", "127.0.0.1:9")
    assert den and den[0]["access"] == "net.connect_tcp", r
    assert den[0]["add"] == "network connect 9;", r
    assert not named(r, "dest", "127.0.0.1:%d" % port), r


def test_filter_refusal_still_refused(cordon, blob, tree):
    """symlink is notified to the watch too: the blob's errno holds."""
    r = cordon(blob, "import os\n"
               "try:\n"
               "    os.symlink('/etc/passwd', 'l')\n"
               "except PermissionError as e:\n"
               "    print('refused', e.errno)\n"
               "print(os.path.lexists('l'))\n", opts=WATCH)
    assert r.rc == 0 and r.out == "refused 1\nFalse\n", r
    assert [d for d in r.status["denials"] if d["syscall"] == "symlink"], r


def test_named_host_direct_connect_says_proxy(cordon, launcher_blobs,
                                              tmp_path):
    from conftest import BUILD, SRC
    blob = tmp_path / "idc.cpol"
    subprocess.run([str(BUILD / "cordonc"), "compile", "-I",
                    str(SRC / "policies"), "-o", str(blob),
                    str(SRC / "policies" / "idc_query.policy")], check=True)
    r = cordon(blob, "import socket\n"
               "s = socket.socket()\n"
               "s.connect(('1.1.1.1', 443))\n", opts=WATCH)
    assert r.rc == 1 and "PermissionError" in r.err, r
    den = named(r, "dest", "1.1.1.1:443")
    assert den and den[0]["access"] == "net.connect_tcp", r
    assert "proxy" in den[0]["add"] and "HTTPS_PROXY" in den[0]["add"], r
    assert "proxy (HTTPS_PROXY" in r.err, r


def test_without_the_option_the_reason_names_it(cordon, blob, tree):
    r = cordon(blob, "open(%r)\n" % (tree + "/next.txt"))
    if r.status["landlock_denials_by"] == "audit":
        pytest.skip("the kernel's audit is on here: it names them")
    assert r.status["landlock_denials"] is None, r
    assert "--landlock-watch" in r.status["landlock_denials_reason"], r


def test_refused_without_namespaces(cordon, blob):
    r = cordon(blob, "print(1)\n", opts=WATCH + ["--no-namespaces"])
    assert r.rc == 125, r
    assert "--landlock-watch needs" in r.err, r


def test_start_up_reads_of_the_base_are_granted(cordon, policies_dir):
    """Issue 41: an interpreter start under the shipped base reads
    /etc/locale.alias (Debian's /usr/share/locale/locale.alias links
    there) and, through a site .pth here, CA files in /etc/ssl/certs:
    the base grants them, so a clean run lists no Landlock refusal of
    them as something to add."""
    if os.path.realpath("/usr/share/locale/locale.alias") != \
            "/etc/locale.alias":
        pytest.skip("/usr/share/locale/locale.alias does not link to "
                    "/etc/locale.alias here")
    r = cordon(policies_dir / "code_gen.cpol",
               "import locale, gettext\nprint(1)\n", opts=WATCH)
    assert r.rc == 0 and r.out == "1\n", r
    listed = [e["path"] for e in r.status["landlock_denials"] or []
              if "path" in e]
    assert "/etc/locale.alias" not in listed, r
    assert not [p for p in listed if p.startswith("/etc/ssl/certs/")], r


def test_a_credential_file_is_warned_of_never_offered(cordon, policies_dir):
    """A read of /etc/shadow: the line on stderr offers no rule (no
    "add:"), it says not advised and why."""
    r = cordon(policies_dir / "code_gen.cpol", "open('/etc/shadow')\n",
               opts=WATCH)
    assert r.rc == 1 and "PermissionError" in r.err, r
    assert "add: path /etc/shadow" not in r.err, r
    shadow = [e for e in r.status["landlock_denials"] or []
              if e.get("path") == "/etc/shadow"]
    if not shadow:
        pytest.skip("the watch did not see the open (DAC refused first)")
    assert shadow[0]["add"] == ("not advised: /etc/shadow is a credential "
                                "file (/etc/shadow)"), r
    assert "1 time; not advised: /etc/shadow is a credential file" \
        in r.err, r
