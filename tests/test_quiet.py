"""Quiet when clean and diff in the policy's language (issue 26, items 7
and 8), the compiler's side: lint and audit of a shipped policy report a
finding suppressed inside an included base once, never per policy, and
never with an absolute path (text, JSON, Markdown); a base's suppression
that this policy does not use is no stale CL000 (learn's complaint);
diff prints names and units, at the line of the rule that made the
change."""
import json
import os
import subprocess

import pytest

from conftest import BUILD, SRC

CORDONC = str(BUILD / "cordonc")
POLICIES = str(SRC / "policies")


def cc(*args, cwd=None, rc=None):
    p = subprocess.run([CORDONC, *map(str, args)], capture_output=True,
                       text=True, timeout=120, cwd=cwd)
    if rc is not None:
        assert p.returncode == rc, (args, p.returncode, p.stdout, p.stderr)
    return p.stdout


@pytest.fixture
def two(tmp_path):
    """Two policies beside each other that include the shipped base
    through an absolute -I directory (as an installed base would be)."""
    for n in ("one", "two"):
        (tmp_path / (n + ".policy")).write_text(
            'include "base/python.policy";\npolicy "%s";\n' % n)
    return tmp_path


def base_lines(text):
    return [ln for ln in text.splitlines() if "python.policy:" in ln]


def test_lint_base_note_once_and_relative(two):
    out = cc("lint", "-I", POLICIES, "one.policy", "two.policy", cwd=two,
             rc=0)
    assert POLICIES not in out and str(two) not in out, out
    lines = base_lines(out)
    assert lines and all(ln.startswith("base/python.policy:")
                         for ln in lines), out
    assert len(lines) == len(set(lines)), out
    js = json.loads(cc("lint", "--json", "-I", POLICIES, "one.policy",
                       "two.policy", cwd=two, rc=0))
    for f in js["findings"]:
        assert not os.path.isabs(f["file"]), f


def test_audit_base_note_once_and_relative(two):
    args = ("-I", POLICIES, "one.policy", "two.policy")
    text = cc("audit", *args, cwd=two, rc=0)
    md = cc("audit", "--format", "markdown", *args, cwd=two, rc=0)
    for out in (text, md):
        assert POLICIES not in out and str(two) not in out, out
        lines = base_lines(out)
        assert lines, out
        # Each suppressed base finding once, not once per policy.
        assert len(lines) == len(set(lines)), out
        assert all("base/python.policy:" in ln for ln in lines), out
    js = json.loads(cc("audit", "--format", "json", *args, cwd=two, rc=0))
    for p in js["policies"]:
        for f in p["findings"]:
            assert not os.path.isabs(f["file"]), f
            assert f["file"] != "base/python.policy" or \
                not f["suppressed"], f
    base = js["included_suppressed"]
    assert base and all(f["file"] == "base/python.policy" and
                        f["suppressed"] for f in base), base
    keys = [(f["id"], f["line"]) for f in base]
    assert len(keys) == len(set(keys)), base


def test_shipped_policies_audit_names_base_relative(src_dir):
    pols = sorted((src_dir / "policies").glob("*.policy"))
    md = cc("audit", "--format", "markdown", *pols, rc=0)
    lines = base_lines(md)
    assert lines and len(lines) == len(set(lines)), md
    assert all("`base/python.policy:" in ln for ln in lines), lines


def test_no_stale_cl000_from_the_base(tmp_path):
    # What learn writes: the base, and a limit of its own that the
    # base's suppression (written for the base's own line) cannot match.
    p = tmp_path / "learned.policy"
    p.write_text('include "base/python.policy";\npolicy "learned";\n'
                 'limit pids 64;\n')
    js = json.loads(cc("lint", "--json", "-I", POLICIES, p, cwd=tmp_path))
    stale = [f for f in js["findings"] if f["id"] == "CL000"]
    assert not stale, stale
    # The policy's own unused suppression is still reported.
    p.write_text('include "base/python.policy";\npolicy "learned";\n'
                 '# cordon-lint: ignore CL001 nothing here needs it\n'
                 'limit pids 64;\n')
    js = json.loads(cc("lint", "--json", "-I", POLICIES, p, cwd=tmp_path))
    own = [f for f in js["findings"] if f["id"] == "CL000"]
    assert own and own[0]["file"].endswith("learned.policy"), js


def test_learn_prints_no_stale_cl000(tmp_path):
    r = subprocess.run(["unshare", "-U", "-p", "-f", "true"],
                       capture_output=True)
    if r.returncode:
        pytest.skip("no user+PID namespaces here: learn mode needs the "
                    "seccomp listener")
    base = tmp_path / "base.policy"
    base.write_text('include "base/python.policy";\npolicy "base";\n')
    s = tmp_path / "s.py"
    s.write_text("print(1)\n")
    r = subprocess.run([CORDONC, "learn", "-I", POLICIES, "--cordon",
                        str(BUILD / "cordon"), "-o",
                        str(tmp_path / "out.policy"), str(base), str(s)],
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r
    assert "CL000" not in r.stdout + r.stderr, r
    assert POLICIES not in r.stdout + r.stderr, r
