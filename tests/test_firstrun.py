"""First run: what a new user meets (issue 19).  The launcher's note on a
truncated output, a status that reports only the layers applied, a
relative --workdir, the shipped Python command line (a snippet imports a
helper from its workdir; PYTHON* variables and the user site stay off),
cordonc's default include folder and its near-name suggestion."""
import asyncio
import json
import os
import pathlib
import subprocess
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from client_support import import_client  # noqa: E402

GENERAL = "code_gen"


def test_truncation_note_on_stderr(cordon, policies_dir):
    r = cordon(policies_dir / f"{GENERAL}.cpol", 'print("x" * 100000)\n',
               opts=["--output", "1000"])
    assert r.status["output_truncated"] is True
    assert len(r.out) + len(r.err.encode()) >= 1000
    # (a whole-run bound's fallback, uid 65534's, has its own line:
    # tests/test_notes.py)
    note = [ln for ln in r.err.splitlines() if ln.startswith("cordon:")
            and not ln.startswith("cordon: limit ")]
    assert note == ["cordon: output truncated at the 1000-byte cap "
                    "(stdout and stderr together): the run was killed"], r.err
    q = cordon(policies_dir / f"{GENERAL}.cpol", 'print("x" * 100000)\n',
               opts=["--output", "1000", "--quiet"])
    assert "truncated" not in q.err


def test_untruncated_run_has_no_note(cordon, policies_dir):
    r = cordon(policies_dir / f"{GENERAL}.cpol", 'print("hi")\n')
    assert r.rc == 0 and r.err == "", r


def test_error_status_reports_no_layers(cordon_bin, policies_dir, tmp_path):
    status = tmp_path / "st.json"
    r = subprocess.run([cordon_bin, "--status-file", status,
                        policies_dir / f"{GENERAL}.cpol",
                        tmp_path / "missing.py"], capture_output=True)
    assert r.returncode == 125
    st = json.loads(status.read_text())
    assert st["outcome"] == "error"
    lay = st["layers"]
    assert lay["landlock_abi"] >= 0        # what the kernel has, not applied
    applied = {k: v for k, v in lay.items()
               if k not in ("landlock_abi", "landlock_errata")}
    assert not any(applied.values()), lay


def test_applied_layers_still_reported(cordon, policies_dir):
    r = cordon(policies_dir / f"{GENERAL}.cpol", 'print("hi")\n')
    assert r.status["layers"]["seccomp"] is True
    assert r.status["layers"]["landlock_fs"] is True


def test_relative_workdir(cordon_bin, policies_dir, tmp_path):
    wd = tmp_path / "wd"
    wd.mkdir()
    (tmp_path / "s.py").write_text(
        'open("result.txt", "w").write("made")\n')
    status = tmp_path / "st.json"
    r = subprocess.run([cordon_bin, "--status-file", status, "--workdir",
                        "wd", policies_dir / f"{GENERAL}.cpol", "s.py"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    st = json.loads(status.read_text())
    assert st["workdir"] == str(wd)
    assert (wd / "result.txt").read_text() == "made"


HELPER_SNIPPET = r'''
import os, site, sys
import helper
print(helper.answer())
print("user_site", site.ENABLE_USER_SITE, sys.flags.no_user_site)
print("ignore_env", sys.flags.ignore_environment)
print("startup_ran", "STARTUP_RAN" in dir(__builtins__) or
      os.path.exists("startup-ran"))
print("pp", [p for p in sys.path if "evil" in p])
'''


def test_snippet_imports_helper_from_workdir(src_dir, policies_dir,
                                             cordon_bin, tmp_path,
                                             monkeypatch):
    cpkg = import_client(src_dir)
    evil = tmp_path / "evil"
    evil.mkdir()
    (evil / "helper.py").write_text("def answer():\n    return 'evil'\n")
    startup = tmp_path / "startup.py"
    startup.write_text("open('startup-ran', 'w').close()\n")
    monkeypatch.setenv("PYTHONPATH", str(evil))
    monkeypatch.setenv("PYTHONSTARTUP", str(startup))
    runs = tmp_path / "runs"
    runs.mkdir()
    client = cpkg.Client(policies_dir, cordon=cordon_bin, work_root=runs,
                         env_keep=("LANG", "PYTHONPATH", "PYTHONSTARTUP"))
    helper = b"def answer():\n    return 'from the workdir'\n"
    res = asyncio.run(client.arun(GENERAL, HELPER_SNIPPET,
                                  inputs={"helper.py": helper}))
    out = res.stdout_text()
    assert res.exit_code == 0, (out, res.stderr)
    assert "from the workdir" in out
    assert "user_site False 1" in out
    assert "ignore_env 1" in out
    assert "startup_ran False" in out and "pp []" in out
    client.close()


def test_cordonc_default_include_dir_in_help(cordonc_bin):
    out = subprocess.run([cordonc_bin, "--help"], capture_output=True,
                         text=True, check=True).stdout
    assert "then each -I DIR, then /" in out
    assert "/share/cordon/policies" in out


def test_cordonc_suggests_near_include(cordonc_bin, src_dir, tmp_path):
    (tmp_path / "t.policy").write_text(
        'include "base/pyton.policy";\npolicy "t";\n')
    r = subprocess.run([cordonc_bin, "compile", "-I", src_dir / "policies",
                        "-o", tmp_path / "t.cpol", tmp_path / "t.policy"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert 'did you mean "base/python.policy"?' in r.stderr
    assert "share/cordon/policies" in r.stderr
