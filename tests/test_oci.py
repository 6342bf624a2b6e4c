"""cordonc export/import --format oci: equivalence of the exported OCI
profile with the blob (a filter built from the JSON the way runc builds
it, by tests/oci/ociload.c, compared through cordon's BPF interpreter on
every syscall number and the boundary values of every condition),
import of a Docker-format profile, round trips, a live runc run, and the
Kubernetes manifests in deploy/kubernetes/."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import tempfile

import pytest

from conftest import BUILD, SRC
from podrt import resolve

CORDONC = BUILD / "cordonc"
OCILOAD = BUILD / "tests" / "ociload"
OCI = SRC / "tests" / "oci"
KUBE = SRC / "deploy" / "kubernetes"

ENOSYS_RET = 0x00050026
KILL_PROCESS = 0x80000000
KILL_THREAD = 0x00000000
X86_64 = 0xc000003e


def cordonc(*args, check=True):
    r = subprocess.run([str(CORDONC), *map(str, args)], capture_output=True,
                       text=True)
    if check:
        assert r.returncode == 0, r.stderr
    return r


def policy_sources():
    """(name, source or blob, -I dir) of every policy the tests export."""
    out = [(p.stem, p, None) for p in sorted(OCI.glob("*.policy"))]
    for p in sorted((SRC / "tests" / "policies").glob("*.policy")):
        if not p.stem.endswith("_inc"):
            out.append((p.stem, p, SRC / "policies"))
    for p in sorted((BUILD / "policies").glob("*.cpol")):
        out.append(("shipped-" + p.stem, p, None))
    return out


@pytest.fixture(scope="session")
def blobs(tmp_path_factory):
    """name -> compiled blob (sources compiled here, shipped ones as is)."""
    d = tmp_path_factory.mktemp("ociblobs")
    out = {}
    for name, src, inc in policy_sources():
        if src.suffix == ".cpol":
            out[name] = src
            continue
        dst = d / (name + ".cpol")
        cmd = ["compile", "-o", dst] + (["-I", inc] if inc else []) + [src]
        r = cordonc(*cmd, check=False)
        if r.returncode == 0:
            out[name] = dst
    return out


def export(blob, tmp_path, widen=None):
    """Export a blob: (profile dict, profile path, report dict)."""
    prof, rep = tmp_path / "profile.json", tmp_path / "report.json"
    args = ["export", "--format", "oci", "-o", prof, "--report", rep]
    if widen or (widen is None and _default_allows(blob)):
        args.append("--widen-unknown")
    cordonc(*args, blob)
    return json.loads(prof.read_text()), prof, json.loads(rep.read_text())


def _default_allows(blob):
    r = cordonc("export", blob, check=False)
    return r.returncode != 0 and "--widen-unknown" in r.stderr


def unknown_numbers(report):
    """Numbers the report says the blob answers ENOSYS and the runtime
    the default (parsed from its unknown-syscalls note)."""
    for n in report["seccomp"]:
        if n["kind"] != "unknown-syscalls":
            continue
        text = n["detail"].split("numbers ", 1)[1]
        ranges, above = text.split(" and ", 1)
        nums = set()
        for part in ranges.split(", "):
            lo, _, hi = part.partition("-")
            nums.update(range(int(lo), int(hi or lo) + 1))
        return nums, int(above.split()[0])
    return set(), None


def unknown_names(report):
    return {int(n["detail"].split("(number ")[1].split(")")[0])
            for n in report["seccomp"] if n["kind"] == "name"}


def default_ret(profile):
    a = profile["defaultAction"]
    return {"SCMP_ACT_ALLOW": 0x7fff0000, "SCMP_ACT_LOG": 0x7ffc0000,
            "SCMP_ACT_KILL_PROCESS": KILL_PROCESS,
            "SCMP_ACT_TRAP": 0x00030000,
            "SCMP_ACT_ERRNO": 0x00050000 | profile.get("defaultErrnoRet",
                                                          1)}[a]


def run_ociload(profile_path, blob):
    if not OCILOAD.exists():
        pytest.skip("tests/oci/ociload is not built (make check builds it)")
    r = subprocess.run([str(OCILOAD), str(profile_path), str(blob)],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    points, ndiff = lines[-1].split()[1::2]
    assert int(points) > 1000
    diffs = []
    for ln in lines[:-1]:
        f = ln.split()
        diffs.append((int(f[1], 16), int(f[2]), int(f[9], 16),
                      int(f[10], 16), [int(a, 16) for a in f[3:9]]))
    return diffs


def unexplained(diffs, profile, report):
    """Differences the report does not account for."""
    holes, above = unknown_numbers(report)
    names = unknown_names(report)
    dflt = default_ret(profile)
    bad = []
    for arch, nr, b, o, _ in diffs:
        if arch != X86_64 or nr >= 0x40000000:
            # wrong arch or x32: both kill (libseccomp: the thread);
            # nr -1 (no syscall at all) reaches the runtime's default
            if b == KILL_PROCESS and (o == KILL_THREAD or
                                      (nr == 0xffffffff and o == dflt)):
                continue
        elif (nr in holes or (above is not None and nr >= above)) and \
                b == ENOSYS_RET and o == dflt:
            continue
        elif nr in names and o == dflt:
            continue
        bad.append((hex(arch), nr, hex(b), hex(o)))
    return bad


@pytest.mark.parametrize("name", [p[0] for p in policy_sources()])
def test_export_equivalent(name, blobs, tmp_path):
    if name not in blobs:
        pytest.skip("%s does not compile on its own" % name)
    blob = blobs[name]
    prof, path, rep = export(blob, tmp_path)
    assert prof["architectures"] == ["SCMP_ARCH_X86_64"]
    diffs = run_ociload(path, blob)
    assert unexplained(diffs, prof, rep) == []
    enosys = prof["defaultAction"] == "SCMP_ACT_ERRNO" and \
        prof.get("defaultErrnoRet") == 38
    assert rep["seccomp_exact"] == (enosys and not unknown_names(rep))
    if enosys:
        assert {d[1] for d in diffs if d[0] == X86_64 and
                d[1] < 0x40000000} <= unknown_names(rep)


def test_export_required_kinds(blobs):
    for n in ("oci-kill", "oci-eperm", "oci-enosys", "runc-deny"):
        assert n in blobs, "tests/oci/%s.policy must compile" % n


def test_export_fields(blobs, tmp_path):
    prof, _, rep = export(blobs["oci-kill"], tmp_path)
    assert prof["defaultAction"] == "SCMP_ACT_KILL_PROCESS"
    assert "defaultErrnoRet" not in prof
    by = {}
    for e in prof["syscalls"]:
        for n in e["names"]:
            by.setdefault(n, []).append(e)
    # 32-bit == is masked equality on the low half
    w = [e["args"] for e in by["write"]]
    assert [{"index": 0, "value": 0xffffffff, "valueTwo": 1,
             "op": "SCMP_CMP_MASKED_EQ"}] in w
    assert by["mmap"][0]["args"] == [{"index": 2, "value": 4,
                                      "valueTwo": 0,
                                      "op": "SCMP_CMP_MASKED_EQ"}]
    assert by["lseek"][0]["args"][0]["op"] == "SCMP_CMP_GE"
    assert by["mkdir"][0]["action"] == "SCMP_ACT_ERRNO"
    assert by["mkdir"][0]["errnoRet"] == 13
    assert by["ptrace"][0]["action"] == "SCMP_ACT_TRAP"
    assert by["getpid"][0]["action"] == "SCMP_ACT_LOG"
    assert by["clone3"][0]["errnoRet"] == 38
    assert by["io_uring_setup"][0]["errnoRet"] == 38
    kinds = {n["kind"] for n in rep["seccomp"]}
    assert {"unknown-syscalls", "architecture"} <= kinds
    carried = {n["kind"] for n in rep["not_carried"]}
    assert {"landlock", "path", "timeout", "output", "command"} <= carried


def test_export_source_and_blob_same_and_deterministic(blobs, tmp_path):
    src = OCI / "oci-eperm.policy"
    a = cordonc("export", "--format", "oci", src).stdout
    b = cordonc("export", "--format", "oci", src).stdout
    c = cordonc("export", blobs["oci-eperm"]).stdout
    assert a == b == c
    json.loads(a)


def test_export_refuses_widening(blobs, tmp_path):
    out = tmp_path / "p.json"
    r = cordonc("export", "-o", out, blobs["runc-deny"], check=False)
    assert r.returncode == 1
    assert "refused" in r.stderr and "nothing written" in r.stderr
    assert not out.exists()
    r = cordonc("export", "--format", "json", blobs["runc-deny"],
                check=False)
    assert r.returncode == 2


def test_export_text_report_on_stderr(blobs):
    r = cordonc("export", blobs["oci-enosys"])
    assert "not carried: path: path /usr rx" in r.stderr
    assert "not carried: limit: limit nofile 64" in r.stderr
    assert "unknown-syscalls" not in r.stderr


def test_export_merges_conditions_on_one_argument():
    """The checker refuses two conditions on one argument, so hand the
    exporter such a blob: not possible from source; the merge is
    exercised by equivalence instead.  Here: the blob reader keeps it
    out of reach and the compile refuses it."""
    with tempfile.TemporaryDirectory() as d:
        p = pathlib.Path(d) / "x.policy"
        p.write_text('policy "x"; default errno(ENOSYS);\n'
                     'allow lseek(offset >= 1, offset <= 9);\n'
                     'path /usr rx; command "/bin/true";\n')
        r = cordonc("compile", "-o", pathlib.Path(d) / "x.cpol", p,
                    check=False)
        assert r.returncode == 1


# ---- import ---------------------------------------------------------

def imp(*args, tmp_path):
    out = tmp_path / "imported.policy"
    cordonc("import", "--format", "oci", "-o", out, *args)
    return out, out.read_text()


def test_import_docker_resolves_and_compiles(tmp_path):
    pol, text = imp("--kernel", "6.1", OCI / "docker.json",
                    tmp_path=tmp_path)
    for needle in ("entry 4 (clone, ...): includes.caps needs CAP_SYS_ADMIN",
                   "entry 6 (s390_pci_mmio_read): includes.arches",
                   "entry 9 (mseal): includes.minKernel 6.10",
                   "arm_fadvise64_64 is not an x86-64 syscall",
                   "archMap: SCMP_ARCH_X86_64 only",
                   "SCMP_ACT_KILL kills a thread",
                   "SCMP_ACT_TRACE", "one rule per condition (OR)",
                   "errno(EINVAL) socket(...): cordon's `network`",
                   "allow kill(...): cordon compares 32-bit"):
        assert needle in text, needle
    assert 'policy "docker";' in text and "default errno(EPERM);" in text
    assert "allow clone(flags & 0x7e020000 == 0x0);" in text
    assert "allow fcntl(cmd == F_GETFD);" in text
    assert "errno(ENOSYS) getppid, clone3;" in text
    assert "kill init_module, kexec_load;" in text
    assert "\nmount" not in text and " mount," not in text
    cordonc("compile", "-o", tmp_path / "d.cpol", pol)


def test_import_caps_and_kernel(tmp_path):
    _, text = imp("--kernel", "6.12", "--cap", "CAP_SYS_ADMIN",
                  "--name", "Docker Admin", OCI / "docker.json",
                  tmp_path=tmp_path)
    assert 'policy "docker-admin";' in text
    assert "capabilities: CAP_SYS_ADMIN" in text
    assert "mount" in text and "mseal" in text
    # clone: the unconditional allow (with the cap) stands alone
    assert "allow clone(" not in text
    assert "entry 3 (clone): excludes.caps has CAP_SYS_ADMIN" in text
    cordonc("compile", "-o", tmp_path / "d.cpol", tmp_path /
            "imported.policy")


def _resolve(prof, out, caps=(), kernel=(6, 1)):
    """A Docker-format profile as Docker hands it to runc for amd64, the
    capabilities caps and kernel (podrt.resolve), written to out."""
    out.write_text(json.dumps(resolve(prof, caps=caps, kernel=kernel)))


def _resolve_docker(path, out):
    """docker.json for amd64, no capabilities, kernel 6.1, with the
    foreign name arm_fadvise64_64 left out."""
    prof = json.loads(path.read_text())
    for e in prof["syscalls"]:
        e["names"] = [n for n in e["names"] if n != "arm_fadvise64_64"]
    _resolve(prof, out)


def test_import_matches_profile(tmp_path):
    """The imported policy's blob against the profile it came from: only
    what the comments say was dropped or resolved may differ."""
    pol, _ = imp("--kernel", "6.1", OCI / "docker.json", tmp_path=tmp_path)
    blob = tmp_path / "d.cpol"
    cordonc("compile", "-o", blob, pol)
    _resolve_docker(OCI / "docker.json", tmp_path / "oci.json")
    diffs = run_ociload(tmp_path / "oci.json", blob)
    # socket: owned by `network off`; kill(sig > 9): a 32-bit range,
    # dropped; getppid: TRACE, left out of the resolved profile above
    # socketpair(AF_UNIX): allowed by `network off`, as the header says
    # (io_uring_*: the profile's EPERM, written as rules; no difference)
    dropped = {41: "socket", 53: "socketpair", 62: "kill", 110: "getppid"}
    for arch, nr, b, o, args in diffs:
        if arch != X86_64 or nr >= 0x40000000 or nr > 469:
            continue
        if nr in (72, 135) and any(a >> 32 for a in args):
            continue    # fcntl cmd, personality persona: 32-bit, cordon
            #             compares the low half (all the kernel reads)
        if b == KILL_PROCESS and o == KILL_THREAD:
            continue    # SCMP_ACT_KILL resolved to kill (the process)
        if nr in (335, 336) or 424 > nr > 335:
            continue    # unknown numbers: ENOSYS in cordon
        assert nr in dropped, (nr, hex(b), hex(o))


@pytest.mark.parametrize("name", ["oci-kill", "oci-eperm", "oci-enosys"])
def test_roundtrip_export_import_export(name, blobs, tmp_path):
    a = cordonc("export", blobs[name]).stdout
    (tmp_path / "a.json").write_text(a)
    pol, _ = imp(tmp_path / "a.json", tmp_path=tmp_path)
    cordonc("compile", "-o", tmp_path / "b.cpol", pol)
    assert cordonc("export", tmp_path / "b.cpol").stdout == a


# Public reference data beside the checkout (read there, never copied);
# run-pytest.sh names it for the unprivileged run, which has a copy of
# tests/ elsewhere.
FIXTURES = pathlib.Path(os.environ.get(
    "CORDON_FIXTURES", SRC / ".." / "shared" / "external-fixtures"))


def _table():
    """number -> name of every x86-64 syscall (Linux 6.19's table)."""
    out = {}
    for ln in (FIXTURES / "syscalls-x86_64.txt").read_text().splitlines():
        if ln.strip() and not ln.startswith("#"):
            nr, name = ln.split()
            out[int(nr)] = name
    return out


def _notes(policy_text):
    """The import report: the header's comment lines."""
    return "\n".join(ln for ln in policy_text.split("\npolicy ")[0]
                     .splitlines() if ln.startswith("# "))


@pytest.mark.parametrize("caps", [(), ("CAP_SYS_ADMIN",)])
@pytest.mark.parametrize("fixture", ["moby-default.json",
                                     "moby-profiles-default.json",
                                     "podman-seccomp.json"])
def test_roundtrip_default_profiles(fixture, caps, tmp_path):
    """Docker's and podman's default profiles imported, compiled and
    exported again: for every syscall of the x86-64 table and every
    boundary value of the profile's conditions, the re-exported profile
    answers as the original (resolved as Docker resolves it), or the
    import report names the syscall."""
    src = FIXTURES / "oci" / fixture
    if not src.exists():
        pytest.skip("%s is not there (../shared/external-fixtures)" % src)
    cap_args = [a for c in caps for a in ("--cap", c)]
    pol, text = imp("--kernel", "6.1", *cap_args, src, tmp_path=tmp_path)
    blob = tmp_path / "p.cpol"
    cordonc("compile", "-o", blob, pol)
    _, exported, _ = export(blob, tmp_path)
    orig = tmp_path / "orig.json"
    _resolve(json.loads(src.read_text()), orig,
             caps=tuple(c[4:] for c in caps) + caps)
    if not OCILOAD.exists():
        pytest.skip("tests/oci/ociload is not built (make check builds it)")
    r = subprocess.run([str(OCILOAD), "--profiles", str(orig), str(exported),
                        str(blob)], capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    table, notes = _table(), _notes(text)
    differ = set()
    for ln in r.stdout.splitlines()[:-1]:
        f = ln.split()
        arch, nr = int(f[1], 16), int(f[2])
        if arch == X86_64 and nr in table:
            differ.add(table[nr])
    assert int(r.stdout.split()[-3]) > 1000
    unnamed = sorted(n for n in differ
                     if not re.search(r"\b%s\b" % n, notes))
    assert unnamed == [], (unnamed, notes)
    # kept exactly: clone3 and io_uring_* answer as the profile says
    assert not differ & {"clone3", "io_uring_setup", "io_uring_enter",
                         "io_uring_register"}
    if json.loads(src.read_text())["defaultAction"] == "SCMP_ACT_ERRNO" \
            and json.loads(src.read_text()).get("defaultErrnoRet") == 1:
        assert "errno(EPERM) io_uring_setup, io_uring_enter" in text


@pytest.mark.parametrize("profile", [
    {"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
        {"names": ["syslog"], "action": "SCMP_ACT_ALLOW",
         "includes": {"caps": ["CAP_X\nallow ptrace;\n#"]}}]},
    {"defaultAction": "SCMP_ACT_ERRNO", "x\nallow ptrace;\n#": 1},
    {"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [
        {"names": ["no_such\nallow ptrace;\n#"],
         "action": "SCMP_ACT_ALLOW"}]},
])
def test_import_note_stays_a_comment(profile, tmp_path):
    """A profile's string quoted in a note (a capability, a key, a name)
    may hold a newline: it must not end the comment and write a
    statement (fuzz_oci)."""
    p = tmp_path / "p.json"
    p.write_text(json.dumps(profile))
    pol, text = imp("--kernel", "6.1", p, tmp_path=tmp_path)
    assert "allow ptrace;\\x0a#" in text, text
    head = text.split('\n\npolicy "')[0]
    assert all(ln.startswith("# ") for ln in head.splitlines()), head
    ex = cordonc("explain", "--json", pol).stdout
    assert '"ptrace"' not in ex, ex


def test_import_socketpair_widening(tmp_path):
    p = tmp_path / "p.json"
    p.write_text('{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names":'
                 ' ["read"], "action": "SCMP_ACT_ALLOW"}]}')
    r = cordonc("import", "--format", "oci", p)
    assert "# widened: socketpair: `network off` allows socketpair(AF_UNIX)" \
        in r.stdout
    assert "the profile answers errno(EPERM) (WARNING" in r.stdout
    p.write_text('{"defaultAction": "SCMP_ACT_ERRNO", "syscalls": [{"names":'
                 ' ["socketpair"], "action": "SCMP_ACT_ALLOW"}]}')
    assert "widened" not in cordonc("import", "--format", "oci", p).stdout


@pytest.mark.parametrize("dflt,rule", [
    ('"SCMP_ACT_ALLOW"', "allow io_uring_setup, io_uring_register, clone3;"),
    ('"SCMP_ACT_ERRNO"',
     "errno(EPERM) io_uring_setup, io_uring_register, clone3;"),
    ('"SCMP_ACT_ERRNO", "defaultErrnoRet": 38', None),
    ('"SCMP_ACT_KILL_PROCESS"',
     "kill io_uring_setup, io_uring_register, clone3;")])
def test_import_keeps_fixed_enosys_answers(dflt, rule, tmp_path):
    """clone3 and io_uring_* get the profile's answer, not cordon's
    fixed ENOSYS, and the policy answers so."""
    p = tmp_path / "p.json"
    p.write_text('{"defaultAction": %s, "syscalls": [{"names": ["read", '
                 '"io_uring_enter"], "action": "SCMP_ACT_LOG"}]}' % dflt)
    r = cordonc("import", "--format", "oci", "-o", tmp_path / "p.policy", p)
    r = cordonc("compile", "-o", tmp_path / "p.cpol", tmp_path / "p.policy")
    r.stdout = (tmp_path / "p.policy").read_text()
    if rule is None:
        assert "clone3" not in r.stdout and "io_uring_setup" not in r.stdout
        return
    assert rule in r.stdout
    assert "log read, io_uring_enter;" in r.stdout
    assert "# kept: io_uring_setup: the profile answers" in r.stdout
    assert ("glibc falls back to clone only on ENOSYS" in r.stdout) == \
        ("errno" in rule or "kill" in rule)


@pytest.mark.parametrize("text,why", [
    ('{"defaultAction": "SCMP_ACT_ALLOW",}', "expected"),
    ('{"defaultAction": "SCMP_ACT_ALLOW", "defaultAction": "x"}',
     "duplicate key"),
    ('{"defaultAction": "SCMP_ACT_ALLOW"} x', "trailing"),
    ('{"defaultAction": "SCMP_\\u0000"}', "NUL"),
    ('[' * 40 + ']' * 40, "nested deeper"),
    ('{"defaultAction": "\xff"}', ""),
    ('{"defaultAction": "SCMP_ACT_BOGUS"}', "not a seccomp profile"),
    ('{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"],'
     ' "action": "SCMP_ACT_ALLOW", "args": [{"index": 6, "value": 1,'
     ' "op": "SCMP_CMP_EQ"}]}]}', "syscalls[0]"),
    ('{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": -1}',
     "errnoRet must be an errno from 0 to 4094"),
    # libseccomp refuses MAX_ERRNO: the policy would not compile (fuzz_oci)
    ('{"defaultAction": "SCMP_ACT_ERRNO", "defaultErrnoRet": 4095}',
     "defaultAction: errnoRet must be an errno from 0 to 4094"),
    # as strict as runc's and Docker's loaders (issue 16 item 9)
    ('{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"],'
     ' "action": "SCMP_ACT_ERRNO", "errnoRet": 5000}]}',
     "syscalls[0] (line 1): entry 0: errnoRet must be an errno"),
    ('{"defaultAction": "SCMP_ACT_ALLOW", "architectures": '
     '["SCMP_ARCH_X86_64"], "archMap": [{"architecture": '
     '"SCMP_ARCH_X86_64"}]}', 'both "architectures" and "archMap"'),
    ('{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"name": "read", '
     '"names": ["write"], "action": "SCMP_ACT_ERRNO"}]}',
     'both "name" and "names"'),
] + [('{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["read"],'
      ' "action": "SCMP_ACT_ERRNO", "includes": {"minKernel": %s}}]}' % k,
      "includes.minKernel") for k in ('"4.15abc"', '"0.0"', '"3.12.1\\""',
                                      '"4"', '".5"', '"4."', '4.15')])
def test_import_refuses_bad_json(text, why, tmp_path):
    p = tmp_path / "bad.json"
    p.write_bytes(text.encode("utf-8", "surrogateescape")
                  if "\xff" not in text else
                  b'{"defaultAction": "\xff"}')
    r = cordonc("import", "--format", "oci", p, check=False)
    assert r.returncode == 1, r.stdout
    assert why in r.stderr
    assert r.stdout == ""


@pytest.mark.parametrize("k", ["null", '""', '"4.15"'])
def test_import_min_kernel_accepted(k, tmp_path):
    p = tmp_path / "p.json"
    p.write_text('{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names":'
                 ' ["read"], "action": "SCMP_ACT_ERRNO", "includes": '
                 '{"minKernel": %s}}]}' % k)
    r = cordonc("import", "--format", "oci", "--kernel", "6.1", p)
    assert "errno(EPERM) read;" in r.stdout


# ---- a real OCI runtime ----------------------------------------------

def _runc_bundle(tmp, profile, script):
    root = tmp / "rootfs"
    (root / "bin").mkdir(parents=True)
    shutil.copy("/bin/busybox", root / "bin" / "busybox")
    os.symlink("busybox", root / "bin" / "sh")
    os.symlink("busybox", root / "bin" / "mkdir")
    subprocess.run(["runc", "spec"], cwd=tmp, check=True)
    cfg = json.loads((tmp / "config.json").read_text())
    cfg["process"]["terminal"] = False
    cfg["process"]["args"] = ["/bin/sh", "-c", script]
    cfg["root"]["readonly"] = False
    if profile is not None:
        cfg["linux"]["seccomp"] = profile
    (tmp / "config.json").write_text(json.dumps(cfg))


def _runc(tmp, cid):
    try:
        return subprocess.run(["runc", "--root", str(tmp / "state"), "run",
                               "--bundle", str(tmp), cid],
                              capture_output=True, text=True, timeout=60)
    finally:
        subprocess.run(["runc", "--root", str(tmp / "state"), "delete",
                        "-f", cid], capture_output=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="runc run needs root here")
@pytest.mark.skipif(shutil.which("runc") is None, reason="runc missing")
@pytest.mark.skipif(not os.path.exists("/bin/busybox"),
                    reason="busybox-static missing")
def test_runc_enforces_exported_profile(blobs, tmp_path):
    prof, _, _ = export(blobs["runc-deny"], tmp_path, widen=True)
    script = "mkdir /made && echo MADE; echo rc=$?"
    for label, p in (("plain", None), ("cordon", prof)):
        d = tmp_path / label
        d.mkdir()
        _runc_bundle(d, p, script)
        r = _runc(d, "cordon-oci-%s-%d" % (label, os.getpid()))
        if label == "plain":
            if r.returncode != 0:
                pytest.skip("runc cannot run a container here: %s" %
                            r.stderr.strip()[-300:])
            assert "MADE" in r.stdout
        else:
            assert r.returncode == 0, r.stderr
            assert "MADE" not in r.stdout
            assert "Operation not permitted" in r.stderr + r.stdout
            assert not (d / "rootfs" / "made").exists()


# ---- deploy/kubernetes -----------------------------------------------

def _yaml_docs(path):
    yaml = pytest.importorskip("yaml")
    return [d for d in yaml.safe_load_all(path.read_text()) if d]


def _kube_docs():
    if not KUBE.exists():
        pytest.skip("deploy/kubernetes is not in this copy of the tree")
    docs = []
    for p in sorted(KUBE.glob("*.yaml")):
        docs += _yaml_docs(p)
    return {(d["kind"], d["metadata"]["name"]): d for d in docs}


def test_kube_worker_security_fields():
    docs = _kube_docs()
    dep = docs[("Deployment", "cordon-worker")]
    pod = dep["spec"]["template"]["spec"]
    psc = pod["securityContext"]
    assert psc["runAsNonRoot"] is True and psc["runAsUser"] != 0
    prof = psc["seccompProfile"]
    assert prof["type"] == "Localhost"
    assert prof["localhostProfile"] == "profiles/cordon/cordon-worker.json"
    assert pod["automountServiceAccountToken"] is False
    vols = {v["name"]: v for v in pod["volumes"]}
    assert vols["work"]["emptyDir"]["sizeLimit"]
    for c in pod["containers"]:
        sc = c["securityContext"]
        assert sc["readOnlyRootFilesystem"] is True
        assert sc["allowPrivilegeEscalation"] is False
        assert sc["capabilities"]["drop"] == ["ALL"]
        assert "add" not in sc["capabilities"]
        assert sc.get("privileged", False) is False
        lim = c["resources"]["limits"]
        assert lim["cpu"] and lim["memory"] and lim["ephemeral-storage"]
        assert c["resources"]["requests"]
        mounts = {m["name"]: m for m in c["volumeMounts"]}
        assert "work" in mounts and mounts["blobs"]["readOnly"] is True
    assert "configMap" in vols["blobs"] or "emptyDir" in vols["blobs"]


def test_kube_profile_installer_matches_profiles():
    docs = _kube_docs()
    cm = docs[("ConfigMap", "cordon-seccomp-profiles")]
    ds = docs[("DaemonSet", "cordon-seccomp-installer")]
    files = {p.name: p.read_text()
             for p in (KUBE / "profiles").glob("*.json")
             if not p.name.endswith(".report.json")}
    assert "cordon-worker.json" in files
    assert cm["data"] == files
    for text in files.values():
        prof = json.loads(text)
        assert prof["architectures"] == ["SCMP_ARCH_X86_64"]
    pod = ds["spec"]["template"]["spec"]
    host = {v["name"]: v for v in pod["volumes"]}
    assert any(v.get("hostPath", {}).get("path") ==
               "/var/lib/kubelet/seccomp/profiles/cordon"
               for v in host.values())


def test_kube_worker_profile_is_current(tmp_path):
    """profiles/cordon-worker.json is the export of worker.policy."""
    if not KUBE.exists():
        pytest.skip("deploy/kubernetes is not in this copy of the tree")
    r = subprocess.run(["sh", str(KUBE / "regen-profiles.sh")],
                       env=dict(os.environ, OUT=str(tmp_path),
                                CONFIGMAP=str(tmp_path / "cm.yaml"),
                                CORDONC=str(CORDONC)),
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = (tmp_path / "cordon-worker.json").read_text()
    assert (KUBE / "profiles" / "cordon-worker.json").read_text() == text
    # the pod's layer leaves sockets and the run tmpfs's calls to cordon
    prof = json.loads(text)
    denied = {n for e in prof["syscalls"] for n in e["names"]}
    for need in ("socket", "fsopen", "fsconfig", "fsmount", "open_tree",
                 "move_mount", "mount", "unshare"):
        assert need not in denied, need


def test_kube_worker_profile_lets_cordon_run(tmp_path):
    """The outer layer must not refuse what the launcher itself needs."""
    if not KUBE.exists():
        pytest.skip("deploy/kubernetes is not in this copy of the tree")
    prof = json.loads((KUBE / "profiles" /
                       "cordon-worker.json").read_text())
    assert prof["defaultAction"] == "SCMP_ACT_ALLOW"
    denied = {n for e in prof["syscalls"] for n in e["names"]
              if e["action"] != "SCMP_ACT_ALLOW"}
    for need in ("seccomp", "prctl", "landlock_create_ruleset",
                 "landlock_add_rule", "landlock_restrict_self", "execve",
                 "clone", "wait4", "setrlimit", "prlimit64", "setsid"):
        assert need not in denied, need


def _size(text):
    units = {"Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30, "Ti": 1 << 40}
    for u, m in units.items():
        if text.endswith(u):
            return int(text[:-2]) * m
    return int(text)


def test_kube_worker_fresh_pod_folders_and_sizes():
    """A fresh pod has what cordon needs: TMPDIR is a volume's mount
    point (a folder below one would not exist), /tmp a writable volume
    (warm pools; the root is read-only), and the work volume is larger
    than every shipped policy's disk bound."""
    docs = _kube_docs()
    pod = docs[("Deployment", "cordon-worker")]["spec"]["template"]["spec"]
    c = pod["containers"][0]
    env = {e["name"]: e["value"] for e in c["env"]}
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    vols = {v["name"]: v for v in pod["volumes"]}
    assert env["TMPDIR"] in mounts, env["TMPDIR"]
    assert "emptyDir" in vols[mounts["/tmp"]]
    work = _size(vols[mounts[env["TMPDIR"]]]["emptyDir"]["sizeLimit"])
    disks = []
    for blob in sorted((BUILD / "policies").glob("*.cpol")):
        out = cordonc("explain", blob).stdout
        m = re.search(r"^\s*disk (\d+)([KMG]?)", out, re.M)
        if m:
            disks.append(int(m.group(1)) << {"": 0, "K": 10, "M": 20,
                                              "G": 30}[m.group(2)])
    assert disks and work > max(disks), (work, disks)
    assert _size(c["resources"]["limits"]["ephemeral-storage"]) > work
