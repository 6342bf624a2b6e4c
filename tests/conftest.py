"""Shared pytest fixtures: where the built binaries and sources are.

CORDON_BUILD points at the build directory (cordon, cordonc, policies/),
CORDON_SRC at the source tree (tests/, policies/).  tests/run-pytest.sh
sets both; run by hand, they default to this checkout's build/.
"""
import os
import pathlib

import pytest

SRC = pathlib.Path(os.environ.get("CORDON_SRC",
                                  pathlib.Path(__file__).resolve().parent.parent))
BUILD = pathlib.Path(os.environ.get("CORDON_BUILD", SRC / "build"))
PYTHON = "/usr/bin/python3"


def pytest_configure(config):
    config.addinivalue_line("markers", "workload: real scientific workloads")


@pytest.fixture(scope="session")
def build_dir():
    return BUILD


@pytest.fixture(scope="session")
def src_dir():
    return SRC


@pytest.fixture(scope="session")
def cordon_bin():
    return BUILD / "cordon"


@pytest.fixture(scope="session")
def cordonc_bin():
    return BUILD / "cordonc"


@pytest.fixture(scope="session")
def policies_dir():
    """Compiled shipped policies (NAME.cpol)."""
    return BUILD / "policies"


# ---- launcher tests (test_launcher*.py, test_escape*.py) ----------------
import hashlib
import json
import shutil
import subprocess
import struct
import tempfile

TEST_POLICIES = SRC / "tests" / "policies"


def _cordonc():
    c = BUILD / "cordonc"
    return c if c.exists() else None


@pytest.fixture(scope="session")
def launcher_blobs(tmp_path_factory):
    """Compile tests/policies/launcher-*.policy with the real cordonc.
    Returns a function name -> path of NAME.cpol (defines: -D K=V)."""
    out = tmp_path_factory.mktemp("blobs")
    cache = {}

    def get(name, **defines):
        key = (name, tuple(sorted(defines.items())))
        if key in cache:
            return cache[key]
        dst = out / ("%s-%d.cpol" % (name, len(cache)))
        dev = os.environ.get("CORDON_DEV_BLOBS")
        if _cordonc() is None:
            if dev and (pathlib.Path(dev) / (name + ".cpol")).exists():
                shutil.copy(pathlib.Path(dev) / (name + ".cpol"), dst)
                cache[key] = dst
                return dst
            pytest.skip("cordonc is not built: cannot compile %s" % name)
        cmd = [str(_cordonc()), "compile", "-I", str(SRC / "policies"),
               "-o", str(dst)]
        for k, v in defines.items():
            cmd += ["-D", "%s=%s" % (k, v)]
        cmd.append(str(TEST_POLICIES / (name + ".policy")))
        r = subprocess.run(cmd, capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        cache[key] = dst
        return dst
    return get


class Run:
    def __init__(self, proc, status, workdir):
        self.rc = proc.returncode
        self.out = proc.stdout
        self.err = proc.stderr
        self.status = status
        self.workdir = workdir

    def __repr__(self):
        return "Run(rc=%r, out=%r, err=%r, status=%r)" % (
            self.rc, self.out[-2000:], self.err[-2000:], self.status)


WARM_OK = (BUILD / "warm" / "_cordon_warm.so").exists()


@pytest.fixture(scope="session")
def warm_pools():
    """warm_pools(blob) -> "@name" of a pool (cordon --serve) for that
    blob, started once per session and stopped at its end."""
    pools, procs = {}, []

    def get(blob):
        blob = str(blob)
        if not WARM_OK:
            pytest.skip("no warm pool: build/warm/_cordon_warm.so not built "
                        "(no Python headers)")
        if blob in pools:
            return pools[blob]
        name = "@cordon-test-%d-%d" % (os.getpid(), len(pools))
        p = subprocess.Popen([str(BUILD / "cordon"), "--serve", name, blob],
                             stdin=subprocess.DEVNULL,
                             stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, text=True)
        procs.append(p)
        line = p.stderr.readline()
        assert "ready" in line, line + p.stderr.read()
        pools[blob] = name
        return name
    yield get
    for p in procs:         # SIGTERM: idle spares clean up, then it ends
        p.terminate()
        try:
            p.wait(30)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()


@pytest.fixture
def cordon(tmp_path):
    """cordon(blob, code, *args, opts=[], ...) -> Run (with the status).
    warm="@name": the run goes to that warm pool (cordon --submit)."""
    def run(blob, code, *args, opts=(), timeout=90, input=None, env=None,
            snippet_name="snippet.py", warm=None, **kw):
        snip = tmp_path / snippet_name
        snip.write_text(code)
        status = tmp_path / "status.json"
        if status.exists():
            status.unlink()
        cmd = [str(BUILD / "cordon"), "--status-file", str(status),
               *opts, str(blob), "-" if input is not None else str(snip),
               *args]
        if warm:
            cmd = [str(BUILD / "cordon"), "--submit", warm, "--status-file",
                   str(status), *opts,
                   "-" if input is not None else str(snip), *args]
        proc = subprocess.run(cmd, capture_output=True, text=True,
                              timeout=timeout, input=input, env=env, **kw)
        st = json.loads(status.read_text()) if status.exists() else None
        return Run(proc, st, st and st.get("workdir"))
    return run


def blob_patch(data, section=None, offset=0, value=None, fmt="<I",
               header_off=None):
    """Change one field of a blob and fix its checksum: a section's
    payload at offset (or a header offset), packed with fmt."""
    b = bytearray(data)
    if header_off is not None:
        struct.pack_into(fmt, b, header_off, value)
    else:
        nsect = struct.unpack_from("<I", b, 20)[0]
        pos = 64
        for _ in range(nsect):
            typ, _flags, ln = struct.unpack_from("<HHI", b, pos)
            if typ == section:
                struct.pack_into(fmt, b, pos + 8 + offset, value)
                break
            pos += 8 + ln
        else:
            raise KeyError(section)
    h = hashlib.sha256(bytes(b[:32]) + bytes(b[64:])).digest()
    b[32:64] = h
    return bytes(b)


def escape_policy_list():
    """The test policy, then every shipped tool policy that exists."""
    pols = [("launcher-escape", None)]
    for p in sorted((BUILD / "policies").glob("*.cpol")):
        pols.append((p.stem, p))
    return pols
