"""cordonc lint, test, diff, verify and audit (issue 5).

Crafted policies live in tests/audit/: lint/NAME-bad.policy triggers lint
rule NAME and lint/NAME-ok.policy does not; diff/ holds argument-widening
pairs; clean.policy has true expectations only.
"""
import json
import shutil
import subprocess

import pytest

from audit_util import (LINT_RULES, WIDER_PAIRS, active, cordonc,
                        cordonc_json)


@pytest.fixture(scope="session")
def audit_dir(src_dir):
    return src_dir / "tests" / "audit"


@pytest.mark.parametrize("rule", LINT_RULES)
def test_lint_rule_triggers(cordonc_bin, audit_dir, rule):
    rc, out, _ = cordonc_json(cordonc_bin, "lint",
                              audit_dir / "lint" / f"{rule}-bad.policy")
    hits = active(out["findings"], rule)
    assert hits, out
    for f in hits:
        assert f["file"].endswith(".policy") and f["line"] > 0, f
    errors = [f for f in out["findings"]
              if f["severity"] == "error" and not f["suppressed"]]
    assert rc == (1 if errors else 0)


@pytest.mark.parametrize("rule", LINT_RULES)
def test_lint_rule_clean(cordonc_bin, audit_dir, rule):
    rc, out, _ = cordonc_json(cordonc_bin, "lint",
                              audit_dir / "lint" / f"{rule}-ok.policy",
                              check_rc=0)
    assert not [f for f in out["findings"] if not f["suppressed"]], out


def test_lint_suppression_needs_reason(cordonc_bin, audit_dir):
    _, ok, _ = cordonc_json(cordonc_bin, "lint",
                            audit_dir / "lint" / "CL000-ok.policy")
    sup = [f for f in ok["findings"] if f["id"] == "CL001"]
    assert sup and sup[0]["suppressed"] == "the test harness traces itself"
    _, bad, _ = cordonc_json(cordonc_bin, "lint",
                             audit_dir / "lint" / "CL000-bad.policy")
    assert active(bad["findings"], "CL001")


def test_lint_strict_fails_on_warnings(cordonc_bin, audit_dir):
    bad = audit_dir / "lint" / "CL009-bad.policy"
    cordonc(cordonc_bin, "lint", bad, check_rc=0)
    cordonc(cordonc_bin, "lint", "--strict", bad, check_rc=1)


def test_lint_list_and_usage(cordonc_bin):
    _, out, _ = cordonc(cordonc_bin, "lint", "--list", check_rc=0)
    for rule in LINT_RULES:
        assert rule in out
    cordonc(cordonc_bin, "lint", check_rc=2)
    cordonc(cordonc_bin, "test", check_rc=2)
    cordonc(cordonc_bin, "diff", "one", check_rc=2)
    cordonc(cordonc_bin, "verify", "one", check_rc=2)
    cordonc(cordonc_bin, "audit", "--format", "xml", check_rc=2)


def test_expectations_hold(cordonc_bin, audit_dir):
    rc, out, _ = cordonc_json(cordonc_bin, "test",
                              audit_dir / "clean.policy", check_rc=0)
    exps = out["policies"][0]["expectations"]
    assert len(exps) >= 10 and all(e["pass"] for e in exps)


FALSE_EXPECTATIONS = [
    ("allow ptrace;", "ptrace"),
    ("deny read;", "read"),
    ("errno(EPERM) ptrace;", "ptrace"),
    ("allow ioctl(2, TCGETS);", "ioctl"),
    ("allow ioctl(*, TCGETS);", "ioctl"),
    ("write /usr/lib;", "/usr/lib"),
    ("no-read /usr/lib/python3;", "/usr/lib/python3"),
    ("exec $WORKDIR/x;", "$WORKDIR/x"),
    ("network connect 443;", "443"),
]


@pytest.mark.parametrize("stmt,subject", FALSE_EXPECTATIONS)
def test_false_expectation_fails(cordonc_bin, audit_dir, tmp_path, stmt,
                                 subject):
    pol = tmp_path / "false.policy"
    pol.write_text((audit_dir / "clean.policy").read_text()
                   + f"expect {stmt}\n")
    rc, out, _ = cordonc_json(cordonc_bin, "test", pol, check_rc=1)
    failed = [e for e in out["policies"][0]["expectations"] if not e["pass"]]
    assert len(failed) == 1 and subject in failed[0]["expect"], failed
    assert failed[0]["line"] == len(pol.read_text().splitlines())
    _, text, _ = cordonc(cordonc_bin, "test", pol, check_rc=1)
    assert "FAIL" in text


def test_shipped_policies_pass_test_and_lint(cordonc_bin, src_dir):
    pols = sorted((src_dir / "policies").glob("*.policy"))
    if not pols:
        pytest.skip("no shipped policies in policies/ yet")
    rc, out, err = cordonc_json(cordonc_bin, "test", *pols)
    failed = [(p["file"], e) for p in out["policies"]
              for e in p["expectations"] if not e["pass"]]
    assert rc == 0 and not failed, (failed, err)
    rc, out, err = cordonc_json(cordonc_bin, "lint", *pols)
    # Issue 5: clean, or each finding suppressed with a reason; and no
    # stale suppression (CL000) either.
    open_findings = [f for f in out["findings"] if not f["suppressed"]]
    assert rc == 0 and not open_findings, (open_findings, err)


@pytest.mark.parametrize("rule", sorted(WIDER_PAIRS))
def test_diff_pairs_both_directions(cordonc_bin, audit_dir, rule):
    kind, subject = WIDER_PAIRS[rule]
    ok = audit_dir / "lint" / f"{rule}-ok.policy"
    bad = audit_dir / "lint" / f"{rule}-bad.policy"
    _, out, _ = cordonc_json(cordonc_bin, "diff", ok, bad, check_rc=1)
    assert out["wider"] is True
    assert any(c["direction"] == "wider" and c["kind"] == kind
               and c["subject"] == subject for c in out["changes"]), out
    _, back, _ = cordonc_json(cordonc_bin, "diff", bad, ok, check_rc=0)
    assert back["wider"] is False
    assert any(c["direction"] == "narrower" and c["subject"] == subject
               for c in back["changes"]), back


def test_diff_argument_conditions(cordonc_bin, audit_dir):
    narrow = audit_dir / "diff" / "narrow-args.policy"
    wide = audit_dir / "diff" / "wide-args.policy"
    _, out, _ = cordonc(cordonc_bin, "diff", narrow, wide, check_rc=1)
    # Issue 26: named as the author writes them, at the rule that widened.
    assert ("+ syscall ioctl: conditions widened: ioctl(fd=2, "
            "request=TCGETS) is now allowed (wide-args.policy:5)") in out
    assert "+ syscall mprotect: conditions widened" in out
    _, out, _ = cordonc(cordonc_bin, "diff", wide, narrow, check_rc=0)
    assert "- syscall ioctl: conditions narrowed" in out
    cordonc(cordonc_bin, "diff", wide, wide, check_rc=0)


def test_diff_semantic_not_textual(cordonc_bin, audit_dir, tmp_path):
    """The same permissions written differently are no change."""
    a = tmp_path / "a.policy"
    a.write_text('include "%s";\npolicy "same";\nallow ioctl(fd == 1, '
                 'request == TCGETS);\n' % (audit_dir / "lint" / "common.inc"))
    b = tmp_path / "b.policy"
    b.write_text('include "%s";\npolicy "same";\nallow ioctl(request == '
                 'TCGETS, fd == 1);\n' % (audit_dir / "lint" / "common.inc"))
    _, out, _ = cordonc_json(cordonc_bin, "diff", a, b, check_rc=0)
    assert not [c for c in out["changes"] if c["kind"] == "syscall"], out


def extra_syscall(text):
    for name in ("acct", "vhangup", "syslog", "kcmp", "pidfd_getfd",
                 "uselib", "ustat"):
        if name not in text:
            return name
    raise AssertionError("no spare syscall name")


def test_diff_tool_policy_one_more_syscall(cordonc_bin, src_dir, tmp_path):
    pols = sorted((src_dir / "policies").glob("*.policy"))
    if not pols:
        pytest.skip("no shipped policies in policies/ yet")
    for pol in pols:
        text = pol.read_text()
        name = extra_syscall(text)
        old = tmp_path / pol.name
        new = tmp_path / ("wider-" + pol.name)
        old.write_text(text)
        new.write_text(text + f"\nallow {name};\n")
        inc = src_dir / "policies"
        rc, out, err = cordonc_json(cordonc_bin, "diff", "-I", inc, old, new)
        assert rc == 1, (pol, out, err)
        assert any(c["direction"] == "wider" and c["subject"] == name
                   for c in out["changes"]), (pol, out)
        _, out, _ = cordonc(cordonc_bin, "diff", "-I", inc, old, new)
        assert f"+ syscall {name}: newly allowed" in out


def test_verify(cordonc_bin, audit_dir, tmp_path):
    src = tmp_path / "v.policy"
    shutil.copy(audit_dir / "clean.policy", src)
    blob = tmp_path / "v.cpol"
    cordonc(cordonc_bin, "compile", "-o", blob, src, check_rc=0)
    _, out, _ = cordonc(cordonc_bin, "verify", src, blob, check_rc=0)
    assert "matches" in out
    # A blob from another source: the difference is shown as diff would.
    other = tmp_path / "o.policy"
    other.write_text(src.read_text().replace("limit nproc 16;",
                                             "limit nproc 8;"))
    cordonc(cordonc_bin, "compile", "-o", blob, other, check_rc=0)
    _, out, _ = cordonc(cordonc_bin, "verify", src, blob, check_rc=1)
    assert "limit nproc: 8 -> 16 (raised)" in out
    # A damaged blob.
    data = bytearray(blob.read_bytes())
    data[-1] ^= 0xff
    blob.write_bytes(bytes(data))
    cordonc(cordonc_bin, "verify", src, blob, check_rc=1)
    cordonc(cordonc_bin, "verify", blob, blob, check_rc=2)


def test_blobs_and_sources_agree(cordonc_bin, audit_dir, tmp_path):
    src = audit_dir / "lint" / "CL001-bad.policy"
    blob = tmp_path / "b.cpol"
    cordonc(cordonc_bin, "compile", "-o", blob, src, check_rc=0)
    _, out, _ = cordonc_json(cordonc_bin, "diff", src, blob, check_rc=0)
    assert not [c for c in out["changes"] if c["direction"] != "changed"]
    _, out, _ = cordonc_json(cordonc_bin, "lint", blob, check_rc=1)
    assert active(out["findings"], "CL001")
    rc, out, _ = cordonc_json(cordonc_bin, "audit", "--format", "json", blob)


def test_audit_formats(cordonc_bin, audit_dir):
    pols = [audit_dir / "clean.policy",
            audit_dir / "lint" / "CL003-bad.policy",
            audit_dir / "lint" / "CL000-ok.policy"]
    _, text, _ = cordonc(cordonc_bin, "audit", *pols, check_rc=0)
    assert "Capability matrix" in text and "exposure" in text
    _, md, _ = cordonc(cordonc_bin, "audit", "--format", "markdown", *pols,
                       check_rc=0)
    assert "| Tool | Score |" in md
    _, js, _ = cordonc(cordonc_bin, "audit", "--format", "json", *pols,
                       check_rc=0)
    report = json.loads(js)["policies"]
    scores = {p["name"]: p["score"] for p in report}
    assert scores["clean"] < 2.0 <= scores["cl003-bad"] <= 10.0
    for p in report:
        assert len(p["factors"]) == 11
        assert abs(sum(f["weight"] for f in p["factors"]) - 10.0) < 1e-6
        assert set(p["matrix"]) >= {"network", "writable", "exec",
                                     "dangerous", "limits"}


def test_audit_sarif(cordonc_bin, audit_dir):
    pols = [audit_dir / "lint" / "CL001-bad.policy",
            audit_dir / "lint" / "CL000-ok.policy"]
    _, out, _ = cordonc(cordonc_bin, "audit", "--format", "sarif", *pols,
                        check_rc=0)
    sarif = json.loads(out)
    assert sarif["$schema"].endswith("sarif-2.1.0.json")
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "cordonc" and driver["version"]
    ids = [r["id"] for r in driver["rules"]]
    for rule in LINT_RULES:
        assert rule in ids
    for r in driver["rules"]:
        assert r["shortDescription"]["text"]
    results = run["results"]
    assert results
    for res in results:
        assert res["ruleId"] in ids
        assert ids[res["ruleIndex"]] == res["ruleId"]
        assert res["level"] in ("error", "warning", "note")
        assert res["message"]["text"]
        loc = res["locations"][0]["physicalLocation"]
        assert loc["artifactLocation"]["uri"].endswith(".policy")
        assert loc["region"]["startLine"] >= 1
    cl001 = [r for r in results if r["ruleId"] == "CL001"]
    assert len(cl001) == 2
    assert [r for r in cl001 if r.get("suppressions")]
    assert [r for r in cl001 if not r.get("suppressions")][0][
        "locations"][0]["physicalLocation"]["region"]["startLine"] == 3


def test_test_prints_one_line_per_tool_when_all_pass(cordonc_bin, src_dir):
    pols = sorted((src_dir / "policies").glob("*.policy"))
    if not pols:
        pytest.skip("no shipped policies in policies/")
    _, text, _ = cordonc(cordonc_bin, "test", *pols, check_rc=0)
    lines = text.splitlines()
    assert lines == ["%s: all %s" % (p, l.split(": all ", 1)[1])
                     for p, l in zip(pols, lines)], text
    assert all(l.endswith("expectations pass") for l in lines)
    _, verbose, _ = cordonc(cordonc_bin, "test", "-v", pols[0], check_rc=0)
    passes = [l for l in verbose.splitlines() if ": PASS expect " in l]
    assert len(passes) > 10
    # attributed to the tool tested, with the expectation's own origin
    assert all(l.startswith("%s: PASS" % pols[0]) for l in passes)
    assert any("base/expect.policy:" in l for l in passes)


def test_test_failure_names_not_numbers(cordonc_bin, audit_dir, tmp_path):
    pol = tmp_path / "tool.policy"
    pol.write_text((audit_dir / "clean.policy").read_text()
                   + "expect allow ioctl(0, TIOCSTI);\n")
    line = len(pol.read_text().splitlines())
    _, text, _ = cordonc(cordonc_bin, "test", pol, check_rc=1)
    fails = [l for l in text.splitlines() if "FAIL" in l]
    assert fails == ["%s: FAIL expect allow ioctl(0, TIOCSTI) (%s:%d): "
                     "ioctl(fd=0, request=TIOCSTI) -> errno(ENOSYS)"
                     % (pol, pol, line)], text
    assert text.splitlines()[-1] == "%s: 1 of %d expectations failed" % (
        pol, len(cordonc_json(cordonc_bin, "test", pol, check_rc=1)[1]
                 ["policies"][0]["expectations"]))


def test_audit_units_in_text_exact_in_json(cordonc_bin, src_dir):
    pol = src_dir / "policies" / "code_gen.policy"
    _, text, _ = cordonc(cordonc_bin, "audit", pol, check_rc=0)
    _, md, _ = cordonc(cordonc_bin, "audit", "--format", "markdown", pol,
                       check_rc=0)
    for out in (text, md):
        assert "errno(ENOSYS)" in out and "errno(38)" not in out
        assert "as=4G" in out and "4294967296" not in out
        assert "timeout 2m, output 1M" in out and " ms," not in out
    _, js, _ = cordonc(cordonc_bin, "audit", "--format", "json", pol,
                       check_rc=0)
    p = json.loads(js)["policies"][0]
    assert "as=4294967296" in p["matrix"]["limits"]
    time = [f for f in p["factors"] if f["name"] == "timeout and output"]
    assert time[0]["detail"] == \
        "timeout 120000 ms, output 1048576 bytes, session 3600000 ms"


def test_explain_leads_with_what_a_reviewer_reads(cordonc_bin, src_dir):
    _, text, _ = cordonc(cordonc_bin, "explain",
                         src_dir / "policies" / "code_gen.policy",
                         check_rc=0)
    heads = [l.split(" ")[0] for l in text.splitlines()
             if l and not l.startswith(" ")]
    # code_gen preloads modules (a warm pool's template): said next to
    # the command, which its interpreter runs.
    assert heads == ["policy", "command", "preload", "paths", "layers",
                     "limits", "environment", "syscalls"], heads


# Each high-risk grant, added alone to the lint base (common.inc, which
# scores "ok"), must make the policy "exposed" (issue 16 item 8).
HIGH_RISK = {   # grant: (added, dropped from the base, its factor)
    "default allow": ("default allow;", None, "default action"),
    "ptrace": ("allow ptrace;", None, "dangerous syscalls"),
    "process_vm_readv": ("allow process_vm_readv;", None,
                         "dangerous syscalls"),
    "secret env": ("env keep OPENAI_API_KEY;", None,
                   "secret-like environment"),
    "writable and executable": ('path "$WORKDIR" rw, execute;', None,
                                "write+execute"),
    "writes outside workdir": ("path optional /srv/data rw;", None,
                               "writes outside $WORKDIR"),
    "host secret readable": ("path /etc ro;", None, "sensitive reads"),
    "ssh keys readable": ("path optional /root/.ssh ro;", None,
                          "sensitive reads"),
    "any host at a port": ("network connect 443;", "network off;",
                           "network"),
    "listening": ("network bind 8080;", "network off;", "network"),
}


def _score(cordonc_bin, audit_dir, tmp_path, add, drop=None):
    inc = audit_dir / "lint" / "common.inc"
    base = 'include "%s";\n' % inc
    if drop:    # a statement the including file cannot take back
        assert drop in inc.read_text()
        base = inc.read_text().replace(drop, "")
    pol = tmp_path / "p.policy"
    pol.write_text(base + 'policy "p";\n' + add + "\n")
    _, js, _ = cordonc(cordonc_bin, "audit", "--format", "json", pol,
                       check_rc=0)
    return json.loads(js)["policies"][0]


def test_audit_base_is_ok(cordonc_bin, audit_dir, tmp_path):
    p = _score(cordonc_bin, audit_dir, tmp_path, "")
    assert p["rating"] == "ok" and p["high_risk"] == 0, p


@pytest.mark.parametrize("grant", sorted(HIGH_RISK))
def test_audit_high_risk_grant_alone_is_exposed(cordonc_bin, audit_dir,
                                                tmp_path, grant):
    add, drop, factor = HIGH_RISK[grant]
    p = _score(cordonc_bin, audit_dir, tmp_path, add, drop)
    high = [f["name"] for f in p["factors"] if f["high_risk"]]
    assert factor in high, p["factors"]
    # a default that allows also allows every dangerous syscall
    assert len(high) == (2 if grant == "default allow" else 1), high
    assert p["score"] >= 4.0 and p["rating"] == "exposed", p


def test_audit_issue_example_exposed(cordonc_bin, audit_dir, tmp_path):
    """ptrace, OPENAI_API_KEY kept, $WORKDIR writable and executable, /etc
    and two directories outside $WORKDIR: 4.1/10 before the calibration."""
    p = _score(cordonc_bin, audit_dir, tmp_path,
               'allow ptrace;\nenv keep OPENAI_API_KEY;\n'
               'path "$WORKDIR" rw, execute;\npath /etc ro;\n'
               'path optional /srv/a rw;\npath optional /srv/b rw;')
    assert p["high_risk"] == 5
    assert p["score"] >= 6.0 and p["rating"] in ("exposed", "unsafe"), p
    assert p["factor_sum"] < p["score"]


def test_audit_device_node_write_is_not_high_risk(cordonc_bin, audit_dir,
                                                  tmp_path):
    p = _score(cordonc_bin, audit_dir, tmp_path,
               "path optional /dev/nvidia0 write-file;")
    assert p["high_risk"] == 0 and p["rating"] != "exposed", p


def test_audit_named_hosts_are_not_high_risk(cordonc_bin, audit_dir,
                                             tmp_path):
    p = _score(cordonc_bin, audit_dir, tmp_path,
               'network connect "api.example.org":443;', "network off;")
    assert p["high_risk"] == 0 and p["rating"] in ("ok", "medium"), p


def _sarif(cordonc_bin, cwd, *args):
    p = subprocess.run([str(cordonc_bin), "audit", "--format", "sarif",
                        *map(str, args)], capture_output=True, text=True,
                       cwd=cwd, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def _sarif_structure(sarif):
    """The SARIF 2.1.0 rules this report must keep (the schema itself is
    not available offline: these are its required properties and the
    spec's normative "shall"s that can be checked here)."""
    assert sarif["version"] == "2.1.0" and isinstance(sarif["runs"], list)
    for run in sarif["runs"]:
        driver = run["tool"]["driver"]
        assert isinstance(driver["name"], str) and driver["name"]
        ids = [r["id"] for r in driver["rules"]]
        assert len(ids) == len(set(ids))            # 3.49.3: unique ids
        bases = run.get("originalUriBaseIds", {})
        for b in bases.values():                     # 3.14.14
            assert b.get("uri", "file:///").startswith("file:///")
            assert b.get("uri", "/").endswith("/")
        for res in run["results"]:
            assert isinstance(res["message"]["text"], str)   # 3.27.11
            assert res["level"] in ("none", "note", "warning", "error")
            assert ids[res["ruleIndex"]] == res["ruleId"]   # 3.27.6
            for k, v in res["partialFingerprints"].items():
                assert isinstance(k, str) and isinstance(v, str)
            for loc in res["locations"]:
                art = loc["physicalLocation"]["artifactLocation"]
                assert ":" not in art["uri"].split("/")[0]  # relative
                assert not art["uri"].startswith("/")
                assert art["uriBaseId"] in bases
                reg = loc["physicalLocation"].get("region")
                assert reg is None or reg["startLine"] >= 1
            for s in res.get("suppressions", []):
                assert s["kind"] in ("inSource", "external")


def test_audit_sarif_once_relative_fingerprinted(cordonc_bin, tmp_path):
    """A base file's finding is one result however many policies include
    it; with -I absolute and outside the current directory, URIs are
    relative to a base id; fingerprints do not follow line numbers."""
    inc = tmp_path / "inc"
    work = tmp_path / "work"
    inc.mkdir()
    work.mkdir()
    (inc / "base.inc").write_text(
        'default errno(ENOSYS);\nallow read, write, exit_group;\n'
        'allow ptrace;\npath /usr rx;\nnetwork off;\n'
        'command "/usr/bin/python3" "-I" "$SNIPPET";\n')
    for n in ("a", "b"):
        (work / f"{n}.policy").write_text(
            f'include "base.inc";\npolicy "{n}";\n')
    one = _sarif(cordonc_bin, work, "-I", inc, "a.policy", "b.policy")
    _sarif_structure(one)
    run = one["runs"][0]
    cl001 = [r for r in run["results"] if r["ruleId"] == "CL001"]
    assert len(cl001) == 1, cl001
    art = cl001[0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert art["uri"] == "base.inc" and art["uriBaseId"] != "%SRCROOT%"
    assert run["originalUriBaseIds"][art["uriBaseId"]]["uri"] == \
        inc.resolve().as_uri() + "/"
    score = [r for r in run["results"] if r["ruleId"] == "CA001"]
    assert {r["locations"][0]["physicalLocation"]["artifactLocation"][
        "uri"] for r in score} == {"a.policy", "b.policy"}
    # lines move: the fingerprints stay
    (inc / "base.inc").write_text("# moved\n\n" +
                                  (inc / "base.inc").read_text())
    two = _sarif(cordonc_bin, work, "-I", inc, "a.policy", "b.policy")
    fp = {r["ruleId"] + r["locations"][0]["physicalLocation"][
        "artifactLocation"]["uri"]: r["partialFingerprints"]
        for r in run["results"]}
    moved = [r for r in two["runs"][0]["results"] if r["ruleId"] == "CL001"]
    assert moved[0]["locations"][0]["physicalLocation"]["region"][
        "startLine"] == cl001[0]["locations"][0]["physicalLocation"][
        "region"]["startLine"] + 2
    for r in two["runs"][0]["results"]:
        key = r["ruleId"] + r["locations"][0]["physicalLocation"][
            "artifactLocation"]["uri"]
        assert r["partialFingerprints"] == fp[key]


def test_audit_sarif_shipped_structure(cordonc_bin, src_dir):
    pols = sorted((src_dir / "policies").glob("*.policy"))
    sarif = _sarif(cordonc_bin, src_dir, "-I", src_dir / "policies", *pols)
    _sarif_structure(sarif)
    for r in sarif["runs"][0]["results"]:
        art = r["locations"][0]["physicalLocation"]["artifactLocation"]
        assert art["uriBaseId"] == "%SRCROOT%"
        assert art["uri"].startswith("policies/")


def test_sarif_matches_the_schema(cordonc_bin, audit_dir, src_dir, tmp_path):
    """The SARIF 2.1.0 schema, as the TypeScript types generated from it
    (@types/sarif, installed by make deps): cordonc's SARIF for the
    shipped policies and a bad one must type-check as a sarif.Log, with
    strict checks (an unknown property or a wrong enum value fails)."""
    node = src_dir / "tools" / "node"
    tsc = node / "node_modules" / ".bin" / "tsc"
    if not tsc.exists() or not (node / "node_modules" / "@types" /
                                "sarif").exists():
        pytest.skip("make deps installs typescript and @types/sarif "
                    "from npm into tools/node")
    pols = sorted((src_dir / "policies").glob("*.policy")) + [
        audit_dir / "lint" / "CL001-bad.policy"]
    _, out, _ = cordonc(cordonc_bin, "audit", "--format", "sarif",
                        "-I", src_dir / "policies", *pols, check_rc=0)
    log = json.loads(out)
    assert log["runs"][0]["results"]

    def typecheck(doc, name):
        (tmp_path / name).write_text(
            'import type { Log } from "sarif";\n'
            "export const log: Log = %s;\n" % json.dumps(doc))
        (tmp_path / "tsconfig.json").write_text(json.dumps({
            "compilerOptions": {"strict": True, "noEmit": True,
                                "types": ["sarif"],
                                "typeRoots": [str(node / "node_modules" /
                                                  "@types")]},
            "files": [name]}))
        return subprocess.run([str(tsc), "-p", str(tmp_path)],
                              capture_output=True, text=True, timeout=300)

    p = typecheck(log, "good.ts")
    assert p.returncode == 0, p.stdout + p.stderr
    # the check can fail: a wrong level and an unknown property
    log["runs"][0]["results"][0]["level"] = "fatal"
    log["runs"][0]["results"][0]["severity"] = 1
    p = typecheck(log, "bad.ts")
    assert p.returncode != 0 and "level" in p.stdout, p.stdout
