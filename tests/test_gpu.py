"""tools/gpu-check.sh: monai_infer's GPU path under cordon (issue 20).

Without an NVIDIA GPU the script checks the CPU path (torch matmul and a
3-D convolution under the policy compiled with -D for the interpreter)
and the hostile probes that need no device; that runs here.  The GPU run
itself needs /dev/nvidia0 and a CUDA torch: GPU_CHECK_PYTHON names that
interpreter (default: python3 on PATH).
"""
import json
import os
import shutil
import stat
import subprocess

import pytest

PYTHON = "/usr/bin/python3"
# A small volume and few timed passes: the check, not the figures.
FAST = ["--reps", "2", "--size", "8"]


def _have_torch(python):
    return subprocess.run([python, "-c", "import torch"],
                          capture_output=True).returncode == 0


def _script(src_dir):
    path = src_dir / "tools" / "gpu-check.sh"
    if not path.exists():
        pytest.skip("tools/gpu-check.sh not in this tree")
    return path


def _run(src_dir, build_dir, tmp_path, python, *extra):
    report = tmp_path / "gpu-check.json"
    r = subprocess.run(["sh", str(_script(src_dir)), "--build",
                        str(build_dir), "--python", python, "--json",
                        str(report)] + FAST + list(extra),
                       capture_output=True, text=True, timeout=600)
    data = json.loads(report.read_text()) if report.exists() else None
    return r, data


def _failed(data):
    return [c for c in data["checks"] if not c["ok"]]


def test_cpu_fallback(src_dir, build_dir, tmp_path):
    if os.path.exists("/dev/nvidia0"):
        pytest.skip("an NVIDIA GPU is present: test_gpu_path runs")
    if not _have_torch(PYTHON):
        pytest.skip("python3-torch not installed")
    r, data = _run(src_dir, build_dir, tmp_path, PYTHON)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "no GPU: CPU fallback only: PASS" in r.stdout
    assert data and not data["gpu"] and not _failed(data)
    names = [c["check"] for c in data["checks"]]
    assert "cordon: 3-D conv network matches the CPU" in names
    assert "cordon applied every layer" in names
    # every kind of hostile probe ran, and each was refused by the layer
    # meant to refuse it
    seen = {(h["probe"][0], h["cordon"]["errno"])
            for h in data["info"]["hostile"]}
    assert ("open", "EACCES") in seen          # Landlock: node not granted
    assert ("ioctl", "ENOSYS") in seen         # seccomp: request not granted
    assert ("ioctl", "EACCES") in seen         # Landlock: no ioctl-dev
    assert ("write", "EACCES") in seen         # Landlock: /sys read-only
    assert data["definitions"]["PYTHON"] == PYTHON


def test_require_gpu_without_one(src_dir, build_dir, tmp_path):
    if os.path.exists("/dev/nvidia0"):
        pytest.skip("an NVIDIA GPU is present")
    if not _have_torch(PYTHON):
        pytest.skip("python3-torch not installed")
    r, data = _run(src_dir, build_dir, tmp_path, PYTHON, "--require-gpu")
    assert r.returncode == 1, r.stdout + r.stderr
    assert "no GPU (--require-gpu): FAIL" in r.stdout
    assert [c["check"] for c in _failed(data)] == [
        "a GPU is present (--require-gpu)"]


def test_refusal_reported(src_dir, build_dir, tmp_path):
    """A kernel without the Landlock ABI the policy needs (the device
    machine may run one): cordon refuses, the script says so and exits 3.
    A stand-in cordon answers as the real one does there."""
    if not _have_torch(PYTHON):
        pytest.skip("python3-torch not installed")
    fake = tmp_path / "build"
    fake.mkdir()
    shutil.copy(build_dir / "cordonc", fake / "cordonc")
    reason = ("policy monai_infer needs Landlock ABI 6, this kernel has 0."
              " Hint: Landlock needs Linux 5.13+")
    status = {"cordon": 1, "outcome": "error", "exit_code": 125,
              "reason": reason, "layers": {"landlock_abi": 0}}
    (fake / "cordon").write_text(
        "#!/bin/sh\n"
        "[ \"$1\" = --check ] && { echo 'cordon: %s' >&2; exit 125; }\n"
        "[ \"$1\" = --status-file ] && echo '%s' > \"$2\"\n"
        "echo 'cordon: %s' >&2\nexit 125\n"
        % (reason, json.dumps(status), reason))
    os.chmod(fake / "cordon", stat.S_IRWXU | stat.S_IRGRP | stat.S_IXGRP |
             stat.S_IROTH | stat.S_IXOTH)
    r, data = _run(src_dir, fake, tmp_path, PYTHON)
    assert r.returncode == 3, r.stdout + r.stderr
    assert "REFUSED" in r.stdout and "needs Landlock ABI 6" in r.stdout
    assert data["info"]["refused"] == reason


def test_gpu_path(src_dir, build_dir, tmp_path):
    if not os.path.exists("/dev/nvidia0"):
        pytest.skip("no NVIDIA GPU")
    python = os.environ.get("GPU_CHECK_PYTHON") or shutil.which("python3")
    if not python or not _have_torch(python):
        pytest.skip("no torch for %s" % python)
    r, data = _run(src_dir, build_dir, tmp_path, python, "--require-gpu")
    assert r.returncode == 0, r.stdout + r.stderr
    assert data["gpu"] and not _failed(data)
