"""Every path cordon or cordonc writes (--status-file, --observe's trace,
cordonc compile/export/import -o, export --report, cordonc learn -o) is
written by one rule, common/outfile.c (issue 24, item 5): a regular file
is replaced by rename (keeping its mode), a character device or a FIFO is
written in place and never replaced, and a symbolic link, a block device,
a socket or a directory is refused.  `--status-file /dev/null` as root
used to turn the host's /dev/null into a 0600 regular file.

The device cases use a private node made with mknod in the test's own
directory (root only): the real /dev/null is never handed to the
programs.  Run as root and as uid 65534 by tests/run-pytest.sh."""
import json
import os
import socket
import stat
import subprocess
import tempfile
import time

import pytest

from conftest import BUILD, SRC

CORDON = str(BUILD / "cordon")
CORDONC = str(BUILD / "cordonc")
OCI = SRC / "tests" / "oci"
ROOT = os.geteuid() == 0
NEED_ROOT = pytest.mark.skipif(
    not ROOT, reason="a private device node needs mknod (CAP_MKNOD, root); "
    "the real /dev/null is never used")
SNIPPET = "print('ran')\n"


@pytest.fixture(scope="module")
def blob(launcher_blobs):
    return launcher_blobs("launcher-escape")


@pytest.fixture
def snip(tmp_path):
    p = tmp_path / "s.py"
    p.write_text(SNIPPET)
    return p


def null_node(path):
    """A private copy of /dev/null's node (char 1:3) at path."""
    os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    return path


def is_null_node(path):
    st = os.lstat(path)
    return stat.S_ISCHR(st.st_mode) and st.st_rdev == os.makedev(1, 3)


def link_to_target(tmp_path):
    """(link, target): a symbolic link to a file holding 'keep'."""
    target = tmp_path / "target"
    target.write_text("keep\n")
    link = tmp_path / "link"
    link.symlink_to(target)
    return link, target


def assert_link_kept(link, target):
    assert link.is_symlink(), "the link was replaced"
    assert target.read_text() == "keep\n", "written through the link"


def run(cmd, timeout=120):
    return subprocess.run([str(c) for c in cmd], capture_output=True,
                          text=True, timeout=timeout)


def run_reading_fifo(cmd, fifo, timeout=120):
    """Run cmd while this process holds fifo open for reading and reads
    it; returns (CompletedProcess-like, bytes read)."""
    fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    got = bytearray()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            p = subprocess.Popen([str(c) for c in cmd], stdout=out,
                                 stderr=err)
            end = time.monotonic() + timeout
            while True:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    chunk = None
                if chunk:
                    got += chunk
                    continue
                if p.poll() is not None:
                    break
                if time.monotonic() > end:
                    p.kill()
                    p.wait()
                    pytest.fail("%s did not end" % cmd[0])
                time.sleep(0.01)
            while True:             # what it wrote just before exiting
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    break
                if not chunk:
                    break
                got += chunk
        finally:
            os.close(fd)
        out.seek(0)
        err.seek(0)
        res = subprocess.CompletedProcess(cmd, p.returncode,
                                          out.read().decode(),
                                          err.read().decode())
    return res, bytes(got)


def ns_or_skip():
    r = subprocess.run(["unshare", "-U", "-p", "-f", "true"],
                       capture_output=True)
    if r.returncode != 0 and not ROOT:
        pytest.skip("--observe needs a PID namespace: unshare -U -p "
                    "refused here")


# ---- cordon --status-file ---------------------------------------------

@NEED_ROOT
def test_status_file_device_stays_a_device(tmp_path, blob, snip):
    null = null_node(tmp_path / "null")
    r = run([CORDON, "--status-file", null, blob, snip])
    assert is_null_node(null), "the device node was replaced: %r" % (r,)
    assert r.returncode == 0 and r.stdout == "ran\n", r


def test_status_file_fifo_reader_gets_the_status(tmp_path, blob, snip):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r, got = run_reading_fifo([CORDON, "--status-file", fifo, blob, snip],
                              fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    assert r.returncode == 0, r
    st = json.loads(got)
    assert st["outcome"] == "exited" and st["exit_code"] == 0, st


def test_status_file_fifo_without_reader_is_refused(tmp_path, blob, snip):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r = run([CORDON, "--status-file", fifo, blob, snip])
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    assert r.returncode == 125, r
    assert "a FIFO that no process reads" in r.stderr, r


def test_status_file_link_refused_before_the_run(tmp_path, blob, snip):
    link, target = link_to_target(tmp_path)
    r = run([CORDON, "--status-file", link, blob, snip])
    assert_link_kept(link, target)
    assert r.returncode == 125, r
    assert "a symbolic link: refusing" in r.stderr, r
    assert "ran" not in r.stdout, "the snippet ran though its status " \
        "could not be written"


def test_status_file_directory_and_socket_refused(tmp_path, blob, snip):
    s = socket.socket(socket.AF_UNIX)
    s.bind(str(tmp_path / "sock"))
    try:
        for p, why in ((tmp_path / "sock", "a socket"),
                       (tmp_path, "a directory")):
            r = run([CORDON, "--status-file", p, blob, snip])
            assert r.returncode == 125 and why in r.stderr, r
            assert "ran" not in r.stdout, r
        assert stat.S_ISSOCK(os.lstat(tmp_path / "sock").st_mode)
    finally:
        s.close()


@NEED_ROOT
def test_status_file_block_device_refused(tmp_path, blob, snip):
    # Never opened: 240 is a major number for local use, nothing behind it.
    blk = tmp_path / "blk"
    os.mknod(blk, 0o600 | stat.S_IFBLK, os.makedev(240, 0))
    r = run([CORDON, "--status-file", blk, blob, snip])
    assert stat.S_ISBLK(os.lstat(blk).st_mode), "the node was replaced"
    assert r.returncode == 125 and "a block device" in r.stderr, r


def test_status_file_regular_replaced_keeping_its_mode(tmp_path, blob,
                                                       snip):
    st = tmp_path / "st.json"
    st.write_text("old\n")
    os.chmod(st, 0o640)
    ino = os.lstat(st).st_ino
    r = run([CORDON, "--status-file", st, blob, snip])
    assert r.returncode == 0, r
    assert json.loads(st.read_text())["outcome"] == "exited"
    assert stat.S_IMODE(os.lstat(st).st_mode) == 0o640
    assert os.lstat(st).st_ino != ino, "not replaced by rename"
    new = tmp_path / "new.json"
    assert run([CORDON, "--status-file", new, blob, snip]).returncode == 0
    assert stat.S_IMODE(os.lstat(new).st_mode) == 0o600
    assert sorted(os.listdir(tmp_path)) == ["new.json", "s.py", "st.json"]


# ---- cordon --observe (the trace) --------------------------------------

def test_trace_link_refused_not_written_through(tmp_path, blob, snip):
    link, target = link_to_target(tmp_path)
    r = run([CORDON, "--observe", link, blob, snip])
    assert_link_kept(link, target)
    assert r.returncode == 125 and "a symbolic link" in r.stderr, r


@NEED_ROOT
def test_trace_device_stays_a_device(tmp_path, blob, snip):
    ns_or_skip()
    null = null_node(tmp_path / "null")
    r = run([CORDON, "--observe", null, blob, snip])
    assert is_null_node(null), "the device node was replaced: %r" % (r,)
    assert r.returncode == 0, r


def test_trace_fifo_reader_gets_the_trace(tmp_path, blob, snip):
    ns_or_skip()
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r, got = run_reading_fifo([CORDON, "--observe", fifo, blob, snip], fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    assert r.returncode == 0, r
    assert got.startswith(b"cordon-trace\t1\n"), got[:200]


# ---- cordonc compile / export / import -o -----------------------------

POLICY = SRC / "tests" / "policies" / "launcher-escape.policy"
COMPILE = [CORDONC, "compile", "-I", SRC / "policies"]


@NEED_ROOT
def test_compile_to_device_writes_in_place(tmp_path):
    null = null_node(tmp_path / "null")
    r = run(COMPILE + ["-o", null, POLICY])
    assert is_null_node(null), "the device node was replaced"
    assert r.returncode == 0, r


def test_compile_to_fifo_reader_gets_the_blob(tmp_path):
    ref = tmp_path / "ref.cpol"
    assert run(COMPILE + ["-o", ref, POLICY]).returncode == 0
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    r, got = run_reading_fifo(COMPILE + ["-o", fifo, POLICY], fifo)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode), "the FIFO was replaced"
    assert r.returncode == 0, r
    assert got == ref.read_bytes()


def test_compile_to_link_or_directory_refused(tmp_path):
    link, target = link_to_target(tmp_path)
    r = run(COMPILE + ["-o", link, POLICY])
    assert_link_kept(link, target)
    assert r.returncode == 1 and "a symbolic link" in r.stderr, r
    d = tmp_path / "d"
    d.mkdir()
    r = run(COMPILE + ["-o", d, POLICY])
    assert r.returncode == 1 and "a directory" in r.stderr, r
    assert os.listdir(d) == []


def test_compile_replaces_keeping_the_mode(tmp_path):
    out = tmp_path / "x.cpol"
    out.write_text("old\n")
    os.chmod(out, 0o600)
    assert run(COMPILE + ["-o", out, POLICY]).returncode == 0
    assert out.read_bytes()[:4] != b"old\n"
    assert stat.S_IMODE(os.lstat(out).st_mode) == 0o600
    new = tmp_path / "new.cpol"
    assert run(COMPILE + ["-o", new, POLICY]).returncode == 0
    assert stat.S_IMODE(os.lstat(new).st_mode) == 0o644
    assert sorted(os.listdir(tmp_path)) == ["new.cpol", "x.cpol"]


def test_export_and_import_to_fifo_and_link(tmp_path):
    blob = tmp_path / "e.cpol"
    assert run([CORDONC, "compile", "-o", blob,
                OCI / "oci-eperm.policy"]).returncode == 0
    for cmd in ([CORDONC, "export", "--format", "oci", "-o"],
                [CORDONC, "import", "--format", "oci", "-o"]):
        src = blob if cmd[1] == "export" else OCI / "docker.json"
        ref = tmp_path / "ref"
        assert run(cmd + [ref, src]).returncode == 0
        fifo = tmp_path / "fifo"
        os.mkfifo(fifo)
        r, got = run_reading_fifo(cmd + [fifo, src], fifo)
        assert r.returncode == 0 and got == ref.read_bytes(), r
        assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
        link, target = link_to_target(tmp_path)
        r = run(cmd + [link, src])
        assert_link_kept(link, target)
        assert r.returncode != 0 and "a symbolic link" in r.stderr, r
        for p in (fifo, link, target, ref):
            p.unlink()


def test_export_report_to_link_refused(tmp_path):
    blob = tmp_path / "e.cpol"
    assert run([CORDONC, "compile", "-o", blob,
                OCI / "oci-eperm.policy"]).returncode == 0
    link, target = link_to_target(tmp_path)
    r = run([CORDONC, "export", "--format", "oci", "-o", tmp_path / "p.json",
             "--report", link, blob])
    assert_link_kept(link, target)
    assert r.returncode != 0 and "a symbolic link" in r.stderr, r


# ---- cordonc learn -o ---------------------------------------------------

@pytest.fixture
def learn_dir():
    # Outside /tmp (the base gives the run a private /tmp), as test_learn.
    d = tempfile.mkdtemp(prefix="cordon-outfiles-", dir="/var/tmp")
    os.chmod(d, 0o755)
    base = os.path.join(d, "base.policy")
    with open(base, "w") as f:
        f.write('include "base/python.policy";\npolicy "base";\n')
    with open(os.path.join(d, "s.py"), "w") as f:
        f.write(SNIPPET)
    yield d
    subprocess.run(["rm", "-rf", d])


def learn(d, out):
    return run([CORDONC, "learn", "-I", SRC / "policies", "--cordon", CORDON,
                "-o", out, os.path.join(d, "base.policy"),
                os.path.join(d, "s.py")], timeout=300)


def test_learn_out_link_refused(learn_dir, tmp_path):
    link, target = link_to_target(tmp_path)
    r = learn(learn_dir, link)
    assert_link_kept(link, target)
    assert r.returncode == 1 and "not a regular file" in r.stderr, r


@NEED_ROOT
def test_learn_out_device_refused(learn_dir):
    null = null_node(os.path.join(learn_dir, "null"))
    r = learn(learn_dir, null)
    assert is_null_node(null), "the device node was replaced"
    assert r.returncode == 1 and "not a regular file" in r.stderr, r
    assert sorted(os.listdir(learn_dir)) == ["base.policy", "null", "s.py"]


def test_learn_trace_beside_out_never_written_through(learn_dir, tmp_path):
    # cordonc learn -o OUT has cordon write its trace to OUT.trace: a link
    # planted there is refused, not followed.
    link, target = link_to_target(tmp_path)
    out = os.path.join(learn_dir, "l.policy")
    os.symlink(target, out + ".trace")
    r = learn(learn_dir, out)
    assert target.read_text() == "keep\n", "the trace went through the link"
    assert r.returncode == 1, r
    assert not os.path.exists(out), r
