"""Inputs that block (threats.md #24): a FIFO (or a device) given as the
blob, the snippet, a policy, an include or an OCI profile is refused at
once with "not a regular file", never waited on.  Every command runs
under a timeout, so a regression fails instead of hanging the suite."""
import os
import subprocess

import pytest

from conftest import BUILD, SRC

TIMEOUT = 20     # seconds; the refusal takes milliseconds
GOOD = SRC / "tests" / "policies" / "launcher-escape.policy"


def refused(cmd, what):
    try:
        p = subprocess.run([str(c) for c in cmd], capture_output=True,
                           text=True, timeout=TIMEOUT,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail("%s: hung on %s" % (cmd[:2], what))
    assert p.returncode != 0, p
    # The file is named (as given, or by its name in an include).
    assert "not a regular file" in p.stderr, p
    assert os.path.basename(str(what)) in p.stderr, p
    return p


@pytest.fixture
def fifo(tmp_path):
    def make(name):
        f = tmp_path / name
        os.mkfifo(f)
        return f
    return make


@pytest.fixture(scope="module")
def good_blob(launcher_blobs):
    return launcher_blobs("launcher-escape")


def test_blob_fifo(fifo, tmp_path):
    f = fifo("p.cpol")
    (tmp_path / "s.py").write_text("print(1)")
    p = refused([BUILD / "cordon", f, tmp_path / "s.py"], f)
    assert p.returncode == 125
    p = refused([BUILD / "cordon", "--check", f], f)
    assert p.returncode == 125


def test_snippet_fifo(fifo, good_blob):
    f = fifo("s.py")
    p = refused([BUILD / "cordon", good_blob, f], f)
    assert p.returncode == 125


def test_snippet_device(good_blob):
    p = refused([BUILD / "cordon", good_blob, "/dev/zero"], "/dev/zero")
    assert p.returncode == 125


def test_snippet_stdin_pipe_still_allowed(good_blob):
    # "-" is the caller's standard input, whatever it is: a pipe works.
    p = subprocess.run([str(BUILD / "cordon"), str(good_blob), "-"],
                       input="print(6 * 7)", capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and p.stdout == "42\n", p


@pytest.mark.parametrize("cmd", ["compile", "explain", "test", "lint",
                                 "audit"])
def test_policy_fifo(fifo, cmd):
    f = fifo("p.policy")
    p = refused([BUILD / "cordonc", cmd, f], f)
    assert p.returncode in (1, 2), p


def test_include_fifo(fifo, tmp_path):
    inc = fifo("base.inc")
    pol = tmp_path / "top.policy"
    pol.write_text('include "base.inc";\n' + GOOD.read_text())
    p = refused([BUILD / "cordonc", "compile", "-I", SRC / "policies",
                 "-o", tmp_path / "out.cpol", pol], "base.inc")
    assert p.returncode == 1 and not (tmp_path / "out.cpol").exists(), p


def test_verify_blob_fifo(fifo):
    f = fifo("b.cpol")
    refused([BUILD / "cordonc", "verify", "-I", SRC / "policies", GOOD, f],
            f)


def test_oci_profile_fifo(fifo):
    f = fifo("profile.json")
    refused([BUILD / "cordonc", "import", "--format", "oci", f], f)
