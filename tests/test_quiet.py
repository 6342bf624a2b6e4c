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


def test_clean_lint_and_audit_print_no_suppressed_finding(two, src_dir):
    """Issue 41: lint of clean policies prints nothing, every shipped
    policy included, and audit's report no suppressed finding; -v
    (--verbose) shows them, and JSON always carries them, marked."""
    pols = sorted(str(p) for p in (src_dir / "policies").glob("*.policy"))
    assert cc("lint", "-I", POLICIES, *pols, rc=0) == ""
    assert cc("lint", "-I", POLICIES, "one.policy", "two.policy", cwd=two,
              rc=0) == ""
    shown = cc("lint", "--verbose", "-I", POLICIES, *pols, rc=0)
    assert "(suppressed: " in shown, shown
    js = json.loads(cc("lint", "--json", "-I", POLICIES, *pols, rc=0))
    assert js["findings"] and all(f["suppressed"] for f in js["findings"])
    for fmt in ("text", "markdown"):
        out = cc("audit", "--format", fmt, "-I", POLICIES, *pols, rc=0)
        assert "suppressed" not in out.lower(), out
        out = cc("audit", "-v", "--format", fmt, "-I", POLICIES, *pols,
                 rc=0)
        assert "(suppressed: " in out, out


def test_lint_base_note_once_and_relative(two):
    out = cc("lint", "-v", "-I", POLICIES, "one.policy", "two.policy",
             cwd=two, rc=0)
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
    text = cc("audit", "-v", *args, cwd=two, rc=0)
    md = cc("audit", "-v", "--format", "markdown", *args, cwd=two, rc=0)
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
    md = cc("audit", "-v", "--format", "markdown", *pols, rc=0)
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


def write(d, name, body):
    p = d / name
    p.write_text('include "base/python.policy";\npolicy "t";\n' + body)
    return p


def test_diff_names_units_and_lines(tmp_path):
    old = write(tmp_path, "old.policy", "timeout 2m;\n")
    new = write(tmp_path, "new.policy",
                "timeout 10m;\n"                                # 3
                "limit memory 8G;\n"                            # 4
                "output 4M;\n"                                  # 5
                "allow sendto(flags == MSG_FASTOPEN);\n"        # 6
                "errno(EPERM) ioctl(request == TIOCGWINSZ);\n"  # 7
                "allow ioctl(fd == 0, request == TIOCSWINSZ);\n")  # 8
    out = cc("diff", "-I", POLICIES, "old.policy", "new.policy",
             cwd=tmp_path, rc=1).splitlines()
    want = [
        "+ syscall ioctl: conditions widened: ioctl(fd=0, "
        "request=TIOCSWINSZ) is now allowed (new.policy:8)",
        "- syscall ioctl: conditions narrowed: ioctl(fd=0, "
        "request=TIOCGWINSZ) is no longer allowed (new.policy:7)",
        "~ syscall ioctl: ioctl(fd=0, request=TIOCSTI): errno(EPERM) -> "
        "errno(ENOSYS) (base/python.policy:121)",
        "+ syscall sendto: newly allowed with conditions (e.g. sendto(fd=0, "
        "buf=0, len=0, flags=MSG_FASTOPEN)) (new.policy:6)",
        "+ limit memory: 4G -> 8G (raised) (new.policy:4)",
        "+ timeout: 2m -> 10m (raised) (new.policy:3)",
        "+ output: 1M -> 4M (raised) (new.policy:5)",
        # no session statement: a session lives as long as the timeout,
        # so raising it widens the session bound too, at the timeout
        "+ session: 2m -> 10m (raised) (new.policy:3)",
    ]
    assert out[:-1] == want, out
    js = json.loads(cc("diff", "--json", "-I", POLICIES, "old.policy",
                       "new.policy", cwd=tmp_path, rc=1))
    t = [c for c in js["changes"] if c["kind"] == "timeout"]
    assert t == [{"direction": "wider", "kind": "timeout",
                  "subject": "timeout", "detail": "2m -> 10m (raised)",
                  "origin": "new.policy:3"}], js
    # Backwards the origins are the statements that decide in the new
    # side (the base's), or the rule removed.
    back = cc("diff", "-I", POLICIES, "new.policy", "old.policy",
              cwd=tmp_path, rc=1)
    assert "- limit memory: 8G -> 4G (lowered) (base/python.policy:" \
        in back, back
    assert "- syscall sendto: no longer allowed (new.policy:6)" in back


def test_diff_rule_appended_to_the_base_at_its_line(tmp_path):
    old = write(tmp_path, "old.policy", "")
    new = write(tmp_path, "new.policy", "\n\n# appended\n"
                "allow also ioctl(fd == 1, request == TIOCSWINSZ);\n")
    out = cc("diff", "-I", POLICIES, old.name, new.name, cwd=tmp_path,
             rc=1)
    assert out.splitlines()[0] == (
        "+ syscall ioctl: conditions widened: ioctl(fd=1, "
        "request=TIOCSWINSZ) is now allowed (new.policy:6)"), out


def test_diff_names_from_the_compilers_vocabulary(tmp_path):
    """Requests and flags come back by the names the parser reads (the
    compiler's tables), whichever one the author used."""
    old = write(tmp_path, "old.policy", "")
    for call, arg, name in [("ioctl", "request", "TIOCSCTTY"),
                            ("ioctl", "request", "TIOCNOTTY"),
                            ("ioctl", "request", "FIOASYNC"),
                            ("sendto", "flags", "MSG_NOSIGNAL")]:
        new = write(tmp_path, "new.policy",
                    "allow also %s(%s == %s);\n" % (call, arg, name))
        out = cc("diff", "-I", POLICIES, old.name, new.name,
                 cwd=tmp_path, rc=1)
        assert "%s=%s" % (arg, name) in out and "(new.policy:3)" in out, \
            (name, out)


def test_test_names_included_expectations_relative(tmp_path):
    p = tmp_path / "e.policy"
    p.write_text('include "base/python.policy";\n'
                 'include "base/expect.policy";\npolicy "e";\n')
    js = json.loads(cc("test", "--json", "-I", POLICIES, "e.policy",
                       cwd=tmp_path, rc=0))
    files = {e.get("file") for pol in js["policies"]
             for e in pol["expectations"]}
    assert "base/expect.policy" in files, files
    assert not [f for f in files if f and os.path.isabs(f)], files
