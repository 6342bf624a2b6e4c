"""Real scientific workloads under the shipped tool policies.

Each test generates its inputs in a fresh work directory, runs a snippet
the way the application would (cordon BLOB SNIPPET --workdir DIR), and
checks the snippet's numbers and output files against values recomputed
here.  A confinement probe runs under every tool policy as well.  The
whole file runs as root and again as uid 65534 (tests/run-pytest.sh).
"""
import json
import os
import pathlib
import struct
import subprocess
import sys
import uuid

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import workload_util as wu  # noqa: E402

pytestmark = pytest.mark.workload

TOOLS = ("radiomics", "code_gen", "monai_infer", "idc_query", "bih_query",
         "midrc_query")
QUERY_TOOLS = ("idc_query", "bih_query", "midrc_query")
CANARY = "CORDON_WORKLOAD_CANARY"
PROXY_ENV = {"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy",
             "NO_PROXY", "no_proxy"}


def _need(path, what):
    if not pathlib.Path(path).exists():
        pytest.skip("%s not built (%s)" % (what, path))


def _have_module(name):
    r = subprocess.run([wu.PYTHON, "-c", "import " + name],
                       capture_output=True)
    return r.returncode == 0


@pytest.fixture(scope="session")
def blobs(tmp_path_factory, cordonc_bin, cordon_bin, src_dir):
    """Compile every tool policy from the source tree into a private
    directory (the build's blobs may be stale while policies change)."""
    _need(cordonc_bin, "cordonc")
    _need(cordon_bin, "cordon")
    out = tmp_path_factory.mktemp("blobs")
    res = {}
    for tool in TOOLS:
        res[tool] = wu.compile_policy(cordonc_bin,
                                      src_dir / "policies" / (tool + ".policy"),
                                      out / (tool + ".cpol"))
    return res


@pytest.fixture
def workdir(tmp_path):
    d = tmp_path / "work"
    d.mkdir()
    return d


def run(cordon_bin, blob, snippet, workdir, args=(), timeout=300):
    return wu.run_cordon(cordon_bin, blob, snippet, workdir, args=args,
                         timeout=timeout)


def assert_ran(r):
    assert r.returncode == 0, r.describe()
    assert r.status is not None, r.describe()
    assert r.status["outcome"] == "exited", r.describe()
    lay = r.status["layers"]
    for key in ("no_new_privs", "seccomp", "landlock_fs", "rlimits", "env",
                "fds_closed", "caps_dropped", "scope_signal",
                "scope_abstract_unix"):
        assert lay.get(key) is True, (key, r.status)


def png_size(path):
    data = pathlib.Path(path).read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", data[16:24])


# ---------------------------------------------------------------- workloads

def test_radiomics_features_and_plot(cordon_bin, blobs, workdir):
    wu.make_radiomics_inputs(str(workdir))
    r = run(cordon_bin, blobs["radiomics"], wu.RADIOMICS_SNIPPET, workdir)
    assert_ran(r)
    got = r.json()
    exp = wu.expected_radiomics()
    assert got["voxels"] == exp["voxels"]
    for k in ("volume_mm3", "mean", "std", "min", "max", "p90"):
        assert got[k] == pytest.approx(exp[k], rel=1e-5), k
    assert got["components"] == 1
    assert got["centroid"] == pytest.approx(list(wu.CENTER), abs=1e-6)
    assert got["surface_mm2"] > 0
    assert got["dicom_modality"] == "CT"
    assert got["dicom_pixel_sum"] == sum(
        (r_ + c_) % 50 for r_ in range(32) for c_ in range(32))
    rows = (workdir / "features.csv").read_text().splitlines()
    assert rows[0] == "feature,value"
    assert any(row.startswith("voxels,%d" % exp["voxels"]) for row in rows)
    assert png_size(workdir / "plot.png") == (640, 280)
    # matplotlib's font cache went into the workdir (MPLCONFIGDIR)
    assert list((workdir / ".config" / "matplotlib").glob("fontlist-*.json"))


def test_code_gen_dcm2niix_and_pool(cordon_bin, blobs, workdir):
    wu.make_code_gen_inputs(str(workdir))
    r = run(cordon_bin, blobs["code_gen"], wu.CODE_GEN_SNIPPET, workdir)
    assert_ran(r)
    got = r.json()
    exp = wu.expected_code_gen()
    assert got["converted"] == ["series.nii"]
    assert got["shape"] == exp["shape"]
    assert got["voxel_sum"] == exp["voxel_sum"]
    assert got["zooms"] == pytest.approx([1.0, 1.0, 2.0])
    assert (workdir / "nifti" / "series.nii").stat().st_size > 32 * 32 * 8
    sidecar = json.loads((workdir / "nifti" / "series.json").read_text())
    assert sidecar["Modality"] == "CT"
    if r.status["layers"].get("private_shm"):
        assert got["pool_error"] is None, r.describe()
        assert got["squares"] == exp["squares"]
        assert got["workers"] == 2
    else:
        # no mount namespace: no /dev/shm at all, semaphores cannot exist
        assert got["pool_error"] is not None


def test_monai_infer_cpu_mask(cordon_bin, blobs, workdir):
    if not _have_module("torch"):
        pytest.skip("python3-torch not installed")
    import nibabel as nib
    import numpy as np
    wu.make_monai_inputs(str(workdir))
    r = run(cordon_bin, blobs["monai_infer"], wu.MONAI_SNIPPET, workdir)
    assert_ran(r)
    got = r.json()
    exp = wu.expected_monai_mask()
    assert got["device"] == "cpu"
    assert got["shape"] == list(exp.shape)
    assert got["voxels"] == int(exp.sum())
    assert got["params"] == 4 * 27 + 4 + 1
    mask = np.asarray(nib.load(str(workdir / "mask.nii.gz")).dataobj)
    assert mask.dtype == np.uint8
    assert np.array_equal(mask, exp)
    # no address-space limit for CUDA, a data limit instead
    assert r.status["max_rss_kb"] > 0


@pytest.mark.parametrize("tool", QUERY_TOOLS)
def test_query_pandas(tool, cordon_bin, blobs, workdir):
    """The query tools' pandas work; their network (named hosts through
    cordon's proxy) is tested in test_egress.py."""
    wu.make_query_inputs(str(workdir))
    r = run(cordon_bin, blobs[tool], wu.QUERY_SNIPPET, workdir)
    assert_ran(r)
    assert r.status["layers"]["landlock_net"] is True
    assert "net" in r.status["layers"]["namespaces"]
    got = r.json()
    for k, v in wu.expected_query().items():
        assert got[k] == v, k
    assert (workdir / "ct_series.csv").read_text().count("\n") == 1 + 5
    assert got["ca_certs"] > 0


# -------------------------------------------------------------- confinement

@pytest.mark.parametrize("tool", TOOLS)
def test_probe_confined(tool, cordon_bin, blobs, workdir, tmp_path):
    tmpname = "/tmp/cordon-probe-%s" % uuid.uuid4().hex
    outside = tmp_path / "outside.txt"
    outside.write_text("keep")
    outside.chmod(0o600)
    before = outside.stat()
    env_canary = "secret-" + uuid.uuid4().hex
    os.environ[CANARY] = env_canary
    try:
        r = wu.run_cordon(cordon_bin, blobs[tool], wu.PROBE_SNIPPET, workdir,
                          args=(tmpname, outside))
    finally:
        del os.environ[CANARY]
    assert_ran(r)
    got = r.json()
    bad = {k: got.get(k) for k, ok in wu.PROBE_DENIED.items()
           if got.get(k) not in ok}
    if tool in QUERY_TOOLS:
        assert got["socket_tcp"] == "ok"
    else:
        assert got["socket_tcp"] == wu.EAFNOSUPPORT
    assert not bad, bad
    assert got["cwd_is_workdir"] is True, got["cwd_is_workdir"]
    for k in wu.PROBE_ALLOWED:
        assert got[k] == "ok", (k, got[k])
    lay = r.status["layers"]
    if "pid" not in (lay.get("namespaces") or []):
        assert got["kill_pid1"] == wu.EPERM
    # /tmp is a private tmpfs, or not reachable at all; never the host's
    assert not os.path.exists(tmpname)
    assert got["write_tmp"] == ("ok" if lay.get("private_tmp") else wu.EACCES)
    # the environment is the policy's: nothing of the caller's
    extra = set(got["env"]) - wu.ENV_BASE - (PROXY_ENV if tool in
                                             QUERY_TOOLS else set())
    assert not extra, extra
    assert CANARY not in got["env"]
    assert (workdir / "probe-out.txt").read_text() == "x"
    after = outside.stat()
    assert (after.st_mode, after.st_mtime_ns) == (before.st_mode,
                                                  before.st_mtime_ns)


def test_policies_state_expectations(src_dir):
    """Each tool policy opens with a comment and states expectations."""
    if not (src_dir / "policies" / "radiomics.policy").exists():
        pytest.skip("tool policies not in this tree yet")
    for tool in TOOLS:
        text = (src_dir / "policies" / (tool + ".policy")).read_text()
        assert text.startswith("#"), tool
        assert 'include "base/expect.policy"' in text, tool
        assert "expect network" in text, tool
    base = (src_dir / "policies" / "base" / "expect.policy").read_text()
    for needle in ("expect deny ptrace", "errno(EPERM) mount",
                   "no-write /etc", "no-read /root"):
        assert needle in base


def test_cordonc_test_expectations(cordonc_bin, src_dir):
    """`cordonc test` checks every expect statement, where it exists."""
    _need(cordonc_bin, "cordonc")
    h = subprocess.run([str(cordonc_bin), "--help"], capture_output=True,
                       text=True)
    if " test" not in h.stdout + h.stderr:
        pytest.skip("cordonc has no test subcommand yet")
    for tool in TOOLS:
        p = subprocess.run([str(cordonc_bin), "test",
                            str(src_dir / "policies" / (tool + ".policy"))],
                           capture_output=True, text=True)
        assert p.returncode == 0, (tool, p.stdout, p.stderr)
