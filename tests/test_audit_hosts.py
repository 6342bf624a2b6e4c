"""diff, test, audit and explain see every grant a blob carries (issue 24
item 1): named hosts (exact and wildcard) and their ports, preload
modules, required whole-run bounds, optional paths, the description.

A named-host policy's TCP reaches cordon's proxy alone (port 3128 in the
run's own network namespace); the hosts are what it reaches.  A diff that
compared only the port rules saw no change when a host was added, so a CI
gate on `cordonc diff` let new egress through unreviewed.
"""
import json

import pytest

from audit_util import cordonc, cordonc_json

IDC = "policies/idc_query.policy"
IDC_HOSTS = ('"api.imaging.datacommons.cancer.gov":${PORT}, '
             '"*.googleapis.com":${PORT};')


def idc_variant(src_dir, tmp_path, name, hosts):
    """idc_query with its network statement's host list replaced."""
    text = (src_dir / IDC).read_text()
    assert IDC_HOSTS in text
    pol = tmp_path / f"{name}.policy"
    pol.write_text(text.replace(IDC_HOSTS, hosts))
    return pol


def diff(cordonc_bin, src_dir, old, new, *fmt, check_rc=None):
    return cordonc(cordonc_bin, "diff", *fmt, "-I", src_dir / "policies",
                   old, new, check_rc=check_rc)


def changes(cordonc_bin, src_dir, old, new, check_rc=None):
    _, out, _ = diff(cordonc_bin, src_dir, old, new, "--json",
                     check_rc=check_rc)
    return json.loads(out)


def test_diff_added_wildcard_host_is_wider(cordonc_bin, src_dir, tmp_path):
    old = src_dir / IDC
    new = idc_variant(src_dir, tmp_path, "aws", IDC_HOSTS[:-1] +
                      ', "*.amazonaws.com":${PORT};')
    _, text, _ = diff(cordonc_bin, src_dir, old, new, check_rc=1)
    assert "+ host *.amazonaws.com:443: connect added" in text, text
    assert "is wider than" in text and "allows nothing" not in text
    js = changes(cordonc_bin, src_dir, old, new, check_rc=1)
    assert js["wider"] is True
    assert [c for c in js["changes"] if c["direction"] != "changed"] == [{
        "direction": "wider", "kind": "host",
        "subject": "*.amazonaws.com:443",
        "detail": "connect added (named host, by cordon's proxy)",
        "origin": None}], js
    _, md, _ = diff(cordonc_bin, src_dir, old, new, "--format", "markdown",
                    check_rc=1)
    assert "| + **wider** | host | \\*.amazonaws.com:443 |" in md, md
    assert "is wider than" in md
    # The other way round it is a narrowing: reported, exit 0.
    js = changes(cordonc_bin, src_dir, new, old, check_rc=0)
    assert [(c["direction"], c["subject"]) for c in js["changes"]] == [
        ("narrower", "*.amazonaws.com:443")], js


def test_diff_added_port_on_allowed_host_is_wider(cordonc_bin, src_dir,
                                                  tmp_path):
    old = src_dir / IDC
    new = idc_variant(src_dir, tmp_path, "port", IDC_HOSTS[:-1] +
                      ', "api.imaging.datacommons.cancer.gov":8443;')
    _, text, _ = diff(cordonc_bin, src_dir, old, new, check_rc=1)
    assert ("+ host api.imaging.datacommons.cancer.gov:8443: connect added"
            in text), text
    _, md, _ = diff(cordonc_bin, src_dir, old, new, "--format", "markdown",
                    check_rc=1)
    assert "api.imaging.datacommons.cancer.gov:8443" in md
    # PORT moved: both hosts at a new port, both gone from the old.
    moved = tmp_path / "moved.policy"
    moved.write_text(old.read_text().replace("define PORT = 443;",
                                             "define PORT = 8443;"))
    js = changes(cordonc_bin, src_dir, old, moved, check_rc=1)
    got = sorted((c["direction"], c["subject"]) for c in js["changes"])
    assert got == [
        ("narrower", "*.googleapis.com:443"),
        ("narrower", "api.imaging.datacommons.cancer.gov:443"),
        ("wider", "*.googleapis.com:8443"),
        ("wider", "api.imaging.datacommons.cancer.gov:8443")], got


def test_diff_hosts_by_what_they_reach(cordonc_bin, src_dir, tmp_path):
    old = src_dir / IDC
    # A name below an allowed wildcard reaches nothing new.
    sub = idc_variant(src_dir, tmp_path, "sub", IDC_HOSTS[:-1] +
                      ', "storage.googleapis.com":${PORT};')
    js = changes(cordonc_bin, src_dir, old, sub, check_rc=0)
    assert [(c["direction"], c["subject"]) for c in js["changes"]] == [
        ("changed", "storage.googleapis.com:443")], js
    # A wildcard cut to a narrower one: narrower; and back: wider.
    narrow = idc_variant(src_dir, tmp_path, "narrow",
                         IDC_HOSTS.replace("*.googleapis.com",
                                           "*.storage.googleapis.com"))
    js = changes(cordonc_bin, src_dir, old, narrow, check_rc=0)
    assert ("narrower", "*.googleapis.com:443") in [
        (c["direction"], c["subject"]) for c in js["changes"]], js
    js = changes(cordonc_bin, src_dir, narrow, old, check_rc=1)
    assert ("wider", "*.googleapis.com:443") in [
        (c["direction"], c["subject"]) for c in js["changes"]], js
    # An exact host swapped for a wildcard over it: wider.
    wild = idc_variant(src_dir, tmp_path, "wild", IDC_HOSTS.replace(
        '"api.imaging.datacommons.cancer.gov"', '"*.cancer.gov"'))
    js = changes(cordonc_bin, src_dir, old, wild, check_rc=1)
    assert ("wider", "*.cancer.gov:443") in [
        (c["direction"], c["subject"]) for c in js["changes"]], js


def test_diff_hosts_against_plain_tcp(cordonc_bin, src_dir, tmp_path):
    """Any host at 443 reaches every named host at 443: named hosts are
    narrower than it, and it is wider than them.  The proxy's own port
    is not a grant of either."""
    old = src_dir / IDC
    text = old.read_text()
    tcp = tmp_path / "tcp.policy"
    tcp.write_text(text.replace("network connect " + IDC_HOSTS,
                                "network connect ${PORT};"))
    js = changes(cordonc_bin, src_dir, tcp, old, check_rc=0)
    dirs = {(c["kind"], c["subject"]): c["direction"] for c in js["changes"]}
    assert dirs[("network", "mode")] == "narrower", js
    assert dirs[("network", "443")] == "narrower", js
    assert ("network", "3128") not in dirs, js
    js = changes(cordonc_bin, src_dir, old, tcp, check_rc=1)
    dirs = {(c["kind"], c["subject"]): c["direction"] for c in js["changes"]}
    assert dirs[("network", "mode")] == "wider", js
    assert ("network", "3128") not in dirs, js
    # From network off, every host is a widening of its own.
    off = tmp_path / "off.policy"
    off.write_text(text.replace("network connect " + IDC_HOSTS,
                                "network off;").replace(
        'expect network connect "api.imaging.datacommons.cancer.gov"'
        ':${PORT};', ""))
    js = changes(cordonc_bin, src_dir, off, old, check_rc=1)
    wider = {c["subject"] for c in js["changes"]
             if c["direction"] == "wider" and c["kind"] != "syscall"}
    assert wider == {"mode", "*.googleapis.com:443",
                     "api.imaging.datacommons.cancer.gov:443"}, js


COMMON = "tests/audit/lint/common.inc"

# Each blob section (and each layer flag that is a grant), changed alone
# in a source: (what common.inc says, what replaces it, kind, subject,
# direction of common -> changed).
SECTION_CHANGES = {
    "meta": ('description "lint test";', 'description "other";',
             "meta", "description", "changed"),
    "layers": ("network off;", "network off;\nbest-effort landlock;",
               "layers", "best-effort", "wider"),
    "seccomp": ("kill ptrace;", "allow ptrace;", "syscall", "ptrace",
                "wider"),
    "rules": ("default errno(ENOSYS);", "default kill;", "default",
              "action", "changed"),
    "fs": ('path /usr rx;', 'path /usr rx, write-file;', "path", "/usr",
           "wider"),
    "fs-optional": ('path /usr rx;', 'path optional /usr rx;', "path",
                    "/usr", "changed"),
    "net": ("network off;", "network bind 8080;", "network", "8080",
            "wider"),
    "hosts": ("network off;", 'network connect "api.example.org":443;',
              "host", "api.example.org:443", "wider"),
    "limits": ("limit nproc 16;", "limit nproc 32;", "limit", "nproc",
               "wider"),
    "required": ("limit memory required;", "", "limit", "memory",
                 "wider"),
    "env": ("timeout 10s;", "timeout 10s;\nenv keep LANG;", "env", "LANG",
            "wider"),
    "argv": ('"-I" "$SNIPPET"', '"$SNIPPET"', "command", "command",
             "wider"),
    "preload": ("timeout 10s;", "timeout 10s;\npreload json;", "preload",
                "json", "wider"),
}


@pytest.mark.parametrize("name", sorted(SECTION_CHANGES))
def test_diff_sees_every_section(cordonc_bin, src_dir, tmp_path, name):
    was, now, kind, subject, direction = SECTION_CHANGES[name]
    base = (src_dir / COMMON).read_text() + 'policy "p";\n'
    assert was in base
    old = tmp_path / "old.policy"
    old.write_text(base)
    new = tmp_path / "new.policy"
    new.write_text(base.replace(was, now))
    js = changes(cordonc_bin, src_dir, old, new,
                 check_rc=1 if direction == "wider" else 0)
    got = [(c["kind"], c["subject"], c["direction"]) for c in js["changes"]]
    assert (kind, subject, direction) in got, got


def expect_results(cordonc_bin, src_dir, tmp_path, lines, check_rc=None):
    pol = tmp_path / "e.policy"
    pol.write_text((src_dir / IDC).read_text() + "\n" + "\n".join(lines) +
                   "\n")
    rc, out, err = cordonc_json(cordonc_bin, "test", "-I",
                                src_dir / "policies", pol, check_rc=check_rc)
    exps = out["policies"][0]["expectations"]
    return {e["expect"]: e for e in exps}


def test_expect_hosts(cordonc_bin, src_dir, tmp_path):
    got = expect_results(cordonc_bin, src_dir, tmp_path, [
        'expect network connect "storage.googleapis.com":${PORT}, '
        '"*.googleapis.com":${PORT};',
        'expect network no-connect "evil.example.org":${PORT}, '
        '"*.amazonaws.com":${PORT}, "api.imaging.datacommons.cancer.gov":80;',
        'expect network no-connect "googleapis.com":${PORT};',
    ], check_rc=0)
    for text in ('network connect "storage.googleapis.com":443',
                 'network connect "*.googleapis.com":443',
                 'network no-connect "evil.example.org":443',
                 'network no-connect "*.amazonaws.com":443',
                 'network no-connect '
                 '"api.imaging.datacommons.cancer.gov":80',
                 'network no-connect "googleapis.com":443'):
        assert got[text]["pass"], (text, got)
    assert "*.googleapis.com:443" in got[
        'network connect "storage.googleapis.com":443']["detail"]


FALSE_HOST_EXPECTATIONS = [
    # (statement, what the failure's detail names)
    ('expect network no-connect "storage.googleapis.com":${PORT};',
     "*.googleapis.com:443"),
    ('expect network no-connect "*.cloud.googleapis.com":${PORT};',
     "*.googleapis.com:443"),
    # some names below *.cancer.gov are reached, not all
    ('expect network connect "*.cancer.gov":${PORT};',
     "api.imaging.datacommons.cancer.gov:443"),
    ('expect network no-connect "*.cancer.gov":${PORT};',
     "api.imaging.datacommons.cancer.gov:443"),
    ('expect network connect "api.imaging.datacommons.cancer.gov":8443;',
     "not reached"),
    ('expect network connect "evil.example.org":${PORT};', "not reached"),
]


@pytest.mark.parametrize("stmt,named", FALSE_HOST_EXPECTATIONS)
def test_expect_hosts_false(cordonc_bin, src_dir, tmp_path, stmt, named):
    got = expect_results(cordonc_bin, src_dir, tmp_path, [stmt],
                         check_rc=1)
    failed = [e for e in got.values() if not e["pass"]]
    assert len(failed) == 1, got
    assert named in failed[0]["detail"], failed


def test_expect_every_destination_is_checked(cordonc_bin, src_dir,
                                             tmp_path):
    """A list states one expectation per destination, not the first."""
    got = expect_results(cordonc_bin, src_dir, tmp_path, [
        'expect network connect "api.imaging.datacommons.cancer.gov":'
        '${PORT}, "evil.example.org":${PORT};'], check_rc=1)
    assert not got['network connect "evil.example.org":443']["pass"], got
    pol = tmp_path / "ports.policy"
    pol.write_text((src_dir / "tests/audit/clean.policy").read_text()
                   .replace("expect network off;",
                            "expect network connect 443, 80;")
                   .replace("\nnetwork off;", "\nnetwork connect 443;"))
    _, out, _ = cordonc_json(cordonc_bin, "test", pol, check_rc=1)
    exps = {e["expect"]: e["pass"]
            for e in out["policies"][0]["expectations"]}
    assert exps["network connect 443"] and not exps["network connect 80"]


@pytest.mark.parametrize("stmt,message", [
    ('expect network no-frob "a.example.org":443;',
     "unknown network expectation no-frob"),
    ('expect network no-conect 443;', "did you mean no-connect?"),
    ('expect network connect "Evil.Org":443;', "is not a host"),
    ('expect network no-connect "a.example.org":0;', "port must be 1 to"),
])
def test_expect_hosts_refused(cordonc_bin, src_dir, tmp_path, stmt, message):
    pol = tmp_path / "bad.policy"
    pol.write_text((src_dir / IDC).read_text() + stmt + "\n")
    rc, out, err = cordonc(cordonc_bin, "test", "-I", src_dir / "policies",
                           pol)
    assert rc == 2 and message in err, (rc, out, err)
    cordonc(cordonc_bin, "compile", "-o", tmp_path / "x.cpol", "-I",
            src_dir / "policies", pol, check_rc=1)


def test_audit_network_names_the_hosts(cordonc_bin, src_dir, tmp_path):
    pol = src_dir / IDC
    inc = ("-I", src_dir / "policies")
    hosts = ("api.imaging.datacommons.cancer.gov:443",
             "*.googleapis.com:443")
    _, text, _ = cordonc(cordonc_bin, "audit", *inc, pol, check_rc=0)
    net = [l for l in text.splitlines() if " network " in l][0]
    for h in hosts:
        assert h in net, net
    assert "3128" not in net, net
    _, md, _ = cordonc(cordonc_bin, "audit", "--format", "markdown", *inc,
                       pol, check_rc=0)
    assert "3128" not in md
    for h in hosts:
        assert h in md.replace("\\*", "*"), md
    _, js, _ = cordonc(cordonc_bin, "audit", "--format", "json", *inc, pol,
                       check_rc=0)
    p = json.loads(js)["policies"][0]
    factor = [f for f in p["factors"] if f["name"] == "network"][0]
    for h in hosts:
        assert h in factor["detail"] and h in p["matrix"]["network"], p
    assert "3128" not in factor["detail"] + p["matrix"]["network"]
    assert factor["high_risk"] is False
    _, sa, _ = cordonc(cordonc_bin, "audit", "--format", "sarif", *inc, pol,
                       check_rc=0)
    score = [r for r in json.loads(sa)["runs"][0]["results"]
             if r["ruleId"] == "CA001"][0]
    for h in hosts:
        assert h in score["properties"]["network"], score


def test_explain_json_carries_preload_and_hosts(cordonc_bin, src_dir):
    _, out, _ = cordonc(cordonc_bin, "explain", "--json", "-I",
                        src_dir / "policies", src_dir / IDC, check_rc=0)
    lay = json.loads(out)["layers"]
    assert {"host": "*.googleapis.com", "port": 443,
            "private": False} in lay["hosts"]
    _, out, _ = cordonc(cordonc_bin, "explain", "--json", "-I",
                        src_dir / "policies",
                        src_dir / "policies" / "code_gen.policy",
                        check_rc=0)
    assert "numpy" in json.loads(out)["preload"]
