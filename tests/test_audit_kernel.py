"""The live cross-check of the BPF interpreter against the kernel, as an
unprivileged user: build/tests/test_kernel_bpf (tests/unit/
test_kernel_bpf.c) installs each shipped filter in a child, makes every
syscall number there and compares with the interpreter.  As root the
unit-test run of `make check` already covers it."""
import os
import subprocess

import pytest


def test_kernel_agrees_with_interpreter_unprivileged(build_dir,
                                                     policies_dir):
    if os.getuid() == 0:
        pytest.skip("as root, the cmocka run of test_kernel_bpf covers this")
    binary = build_dir / "tests" / "test_kernel_bpf"
    blobs = sorted(policies_dir.glob("*.cpol"))
    if not binary.exists():
        pytest.skip("test_kernel_bpf not built")
    if not blobs:
        pytest.skip("no shipped policies compiled")
    p = subprocess.run([str(binary), *map(str, blobs)], capture_output=True,
                       text=True, timeout=600)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "0 disagreements" in p.stderr or "SKIPPED" in p.stdout, p.stderr
