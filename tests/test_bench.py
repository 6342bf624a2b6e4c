"""The bench's yardstick runs where the bench runs (issue 38): floor
--kernel-work hides /tmp behind the run tmpfs, and a snippet there (a
build folder under /tmp, as on a fresh machine) must still run.  Built
by `make bench` only; skipped without it."""
import subprocess
import tempfile

import pytest


def test_kernel_work_floor_runs_a_snippet_under_tmp(build_dir, policies_dir):
    floor = build_dir / "bench" / "floor"
    blob = policies_dir / "code_gen.cpol"   # python, private /tmp
    if not floor.exists() or not blob.exists():
        pytest.skip("needs make bench and the code_gen policy")
    with tempfile.TemporaryDirectory(dir="/tmp") as d:
        snippet = d + "/snippet.py"
        with open(snippet, "w", encoding="ascii") as f:
            f.write("print(6 * 7)\n")
        r = subprocess.run([floor, "--kernel-work", "-v", "-s", snippet,
                            blob, "/usr/bin/python3", "-I", snippet],
                           capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "42\n"
    assert "run tmpfs (fsmount) on /tmp" in r.stderr
