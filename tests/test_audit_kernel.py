"""The live cross-check of the BPF interpreter against the kernel
(tests/unit/test_kernel.c: every shipped filter installed in a child,
every syscall number made, outcome compared with the interpreter), run
again as an unprivileged user: as root, `make check` runs it as a unit
test already."""
import os
import subprocess

import pytest


def test_kernel_agrees_with_interpreter_unprivileged(build_dir,
                                                     policies_dir):
    if os.getuid() == 0:
        pytest.skip("as root, the unit-test run of test_kernel covers this")
    binary = build_dir / "tests" / "test_kernel"
    if not binary.exists():
        pytest.skip("build/tests/test_kernel not built")
    if not sorted(policies_dir.glob("*.cpol")):
        pytest.skip("no shipped policies compiled")
    env = dict(os.environ, BUILD=str(build_dir))
    p = subprocess.run([str(binary)], capture_output=True, text=True,
                       timeout=600, env=env)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "FAILED" not in p.stdout, p.stdout + p.stderr
