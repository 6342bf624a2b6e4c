"""No-namespace mode, the pod path (issue 39 part 3): what cordon says
when the namespaces are refused, and what still bounds a run without
them.  A container runtime's seccomp profile is played by a filter
installed on cordon before its exec (no_new_privs, then a BPF program
that refuses clone and unshare with namespace flags with EPERM and
clone3 with ENOSYS, as containerd's RuntimeDefault does).  Run as root
and as uid 65534 by tests/run-pytest.sh."""
import ctypes
import os
import platform
import struct
import subprocess

import pytest

from conftest import BUILD

CORDON = str(BUILD / "cordon")
EPERM, ENOSYS = 1, 38


def _filter_program():
    def stmt(code, k):
        return struct.pack("HBBI", code, 0, 0, k)

    def jump(code, k, jt, jf):
        return struct.pack("HBBI", code, jt, jf, k)
    ld, jeq, jset, ret = 0x20, 0x15, 0x45, 0x06
    allow, errno = 0x7fff0000, 0x00050000
    return b"".join([
        stmt(ld, 4), jump(jeq, 0xc000003e, 0, 9),        # x86_64, else allow
        stmt(ld, 0),
        jump(jeq, 435, 0, 1), stmt(ret, errno | ENOSYS),  # clone3
        jump(jeq, 272, 0, 1), stmt(ret, errno | EPERM),   # unshare
        jump(jeq, 56, 0, 3),                              # clone with
        stmt(ld, 16), jump(jset, 0x7E020000, 0, 1),       # CLONE_NEW*
        stmt(ret, errno | EPERM),
        stmt(ret, allow)])


def runtime_profile():
    """A preexec_fn: the calling process under the filter above."""
    prog = ctypes.create_string_buffer(_filter_program())
    fprog = ctypes.create_string_buffer(struct.pack(
        "HxxxxxxQ", len(prog.raw) // 8, ctypes.addressof(prog)))
    libc = ctypes.CDLL(None, use_errno=True)
    ul = ctypes.c_ulong

    def install():
        install.keep = prog   # the program's buffer lives as long
        if libc.prctl(38, ul(1), ul(0), ul(0), ul(0)) != 0 or \
                libc.prctl(22, ul(2), ul(ctypes.addressof(fprog)), ul(0),
                           ul(0)) != 0:
            os._exit(99)
    return install


needs_x86_64 = pytest.mark.skipif(
    platform.machine() != "x86_64",
    reason="the stand-in runtime profile is an x86_64 BPF program")


def under_profile(*args, **kw):
    return subprocess.run([CORDON, *args], preexec_fn=runtime_profile(),
                          capture_output=True, text=True, timeout=60, **kw)


@needs_x86_64
def test_named_hosts_refusal_names_the_runtime_profile(policies_dir,
                                                       tmp_path):
    # before: "... but the kernel refused namespaces. Hint: sysctl
    # user.max_user_namespaces, ..." where the kernel's settings allowed
    # them and the runtime's profile refused the clone
    snip = tmp_path / "s.py"
    snip.write_text("print('ran')\n")
    r = under_profile(str(policies_dir / "idc_query.cpol"), str(snip))
    assert r.returncode == 125, r
    assert "ran" not in r.stdout, r
    assert "the seccomp filter cordon runs under" in r.stderr, r.stderr
    assert "(clone: EPERM)" in r.stderr, r.stderr
    assert "sysctl" not in r.stderr, r.stderr


@needs_x86_64
def test_check_names_the_runtime_profile(policies_dir):
    r = under_profile("--check", str(policies_dir / "code_gen.cpol"))
    line = [x for x in r.stdout.splitlines()
            if x.startswith("namespaces:")]
    assert line and "the seccomp filter cordon runs under" in line[0], \
        r.stdout
    assert "the kernel refuses" not in r.stdout, r.stdout


@needs_x86_64
def test_a_run_falls_back_under_the_runtime_profile(policies_dir, tmp_path):
    # a policy that needs no namespace runs without them, watched
    snip = tmp_path / "s.py"
    snip.write_text("print('ran')\n")
    st = tmp_path / "st.json"
    r = under_profile("--status-file", str(st),
                      str(policies_dir / "code_gen.cpol"), str(snip))
    assert r.returncode == 0 and "ran" in r.stdout, r
    import json
    s = json.loads(st.read_text())
    assert s["layers"]["namespaces"] == [], s["layers"]
    assert s["bounds"]["disk"]["by"] == "watch", s["bounds"]
