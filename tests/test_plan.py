"""The run's plan (launcher/plan.c): cordon --check prints it with a
reason for each decision (text, and --json), and every refusal a run can
meet before it starts names its one real cause, the same under --check
as for a run (tests/unit/test_plan.c holds the whole table, with the
kernel's facts as values; here the real binary, on real policies)."""
import json
import subprocess

import pytest

from conftest import BUILD

CORDON = BUILD / "cordon"
CORDONC = BUILD / "cordonc"


@pytest.fixture
def compiled(tmp_path, src_dir):
    """source text -> a blob compiled with -I policies/."""
    def get(name, text):
        src = tmp_path / (name + ".policy")
        src.write_text(text)
        out = tmp_path / (name + ".cpol")
        r = subprocess.run([str(CORDONC), "compile", "-I",
                            str(src_dir / "policies"), "-o", str(out),
                            str(src)], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        return out
    return get


def check(blob, *opts):
    return subprocess.run([str(CORDON), "--check", *opts, str(blob)],
                          capture_output=True, text=True, timeout=60)


def run(blob, *opts, cwd=None):
    return subprocess.run([str(CORDON), *opts, str(blob), "-"],
                          input="print('ran')\n", capture_output=True,
                          text=True, timeout=60, cwd=cwd)


SHM_ONLY = """policy "plan_shm";
command "/usr/bin/python3" "$SNIPPET";
path /usr/bin/python3 rx;
path /lib64/ld-linux-x86-64.so.2 rx;
private /dev/shm;
private required;
"""

DISK_OUTSIDE = """include "base/python.policy";
policy "plan_disk";
limit disk 8M;
path /var/tmp rw;
"""


def token(tmp_path):
    f = tmp_path / "token"
    f.write_text("a-value\n")
    return f


def refusals(launcher_blobs, policies_dir, compiled, tmp_path):
    """(name, blob, options, the cause said, a wrong cause never said)"""
    trace = str(tmp_path / "trace")
    private = launcher_blobs("launcher-private")
    return [
        ("private /tmp, --no-namespaces", private, ["--no-namespaces"],
         "requires a private /tmp, which needs a mount namespace, and "
         "--no-namespaces forbids them", None),
        ("private /dev/shm only", compiled("shm", SHM_ONLY),
         ["--no-namespaces"], "requires a private /dev/shm", "/tmp"),
        ("--observe beside a private /tmp", private,
         ["--observe", trace, "--no-namespaces"],
         "--observe needs a PID namespace (its seccomp listener)", "/tmp"),
        ("named hosts", policies_dir / "idc_query.cpol",
         ["--no-namespaces"], "the policy names hosts, which needs a "
         "network namespace", "/tmp"),
        ("disk bound, writable outside the workdir",
         compiled("disk", DISK_OUTSIDE), ["--no-namespaces"],
         "a mount namespace here (writable outside the workdir: "
         "/var/tmp)", "/tmp or"),
        ("disk bound required", launcher_blobs("launcher-bounds-required"),
         ["--no-namespaces"], "a mount namespace here (the policy "
         "requires the run tmpfs)", "private"),
        ("--observe-hosts alone", private, ["--observe-hosts"],
         "--observe-hosts is a part of learn mode", None),
        ("--landlock-watch without namespaces", private,
         ["--landlock-watch", "--no-namespaces"], "--landlock-watch needs "
         "Landlock and a PID namespace (its listener): not with "
         "--no-namespaces", None),
        ("the proxy's share of pids", policies_dir / "idc_query.cpol",
         ["--limit", "pids=2"], "leaves no process for the run beside "
         "the egress proxy's 2", None),
        ("--credential where the policy binds none",
         policies_dir / "code_gen.cpol",
         ["--credential", "CORDON_TEST_TOKEN=@%s" % token(tmp_path)],
         "--credential: the policy binds no credential", None),
        ("--cgroup names no cgroup v2 directory",
         policies_dir / "idc_query.cpol", ["--cgroup", str(tmp_path)],
         "cgroup %s (--cgroup or CORDON_CGROUP) is not a cgroup v2 "
         "directory" % tmp_path, "requires"),
    ]


def test_each_refusal_names_its_cause(launcher_blobs, policies_dir,
                                      compiled, tmp_path):
    for name, blob, opts, cause, wrong in refusals(
            launcher_blobs, policies_dir, compiled, tmp_path):
        for r in (run(blob, *opts, cwd=tmp_path), check(blob, *opts)):
            assert r.returncode == 125, (name, r)
            assert "ran" not in r.stdout, (name, r)
            assert cause in r.stderr, (name, r.stderr)
            assert r.stderr.count("\n") == 1, (name, r.stderr)
            if wrong:
                assert wrong not in r.stderr, (name, r.stderr)


def test_check_prints_each_decision_with_its_reason(launcher_blobs):
    blob = launcher_blobs("launcher-private")
    r = check(blob)
    assert r.returncode == 0, r.stderr
    for line in ("landlock: ABI", "seccomp: ", "namespaces: ",
                 "  mnt: yes: the run tmpfs: private /tmp, private /dev/shm",
                 "  required: policy launcher-private requires a private "
                 "/tmp", "bounds:", "rlimits:", "egress proxy: off",
                 "timeout: ", "output: "):
        assert line in r.stdout, (line, r.stdout)


def test_check_json(launcher_blobs, policies_dir):
    r = check(launcher_blobs("launcher-private"), "--json")
    assert r.returncode == 0, r.stderr
    assert r.stdout.count("\n") == 1
    p = json.loads(r.stdout)
    assert p["policy"] == "launcher-private" and len(p["blob"]) == 64
    ns = p["namespaces"]
    assert ns["user"]["wanted"] and ns["pid"]["wanted"]
    assert ns["mnt"]["wanted"] and "private /tmp" in ns["mnt"]["why"]
    assert "requires a private /tmp" in ns["required"]
    assert p["seccomp"]["program"] in ("notify", "blob")
    assert p["seccomp"]["why"] and p["egress"]["on"] is False
    assert set(p["bounds"]) == {"memory", "pids", "disk", "files"}
    # Named hosts: the proxy, and the namespace it needs.
    p = json.loads(check(policies_dir / "idc_query.cpol", "--json").stdout)
    assert p["egress"]["on"] and "named hosts" in p["egress"]["why"]
    assert p["namespaces"]["net"]["wanted"]
    assert "names hosts" in p["namespaces"]["required"]


def test_check_follows_the_options(launcher_blobs):
    """--limit and --no-namespaces change the plan as they change a run:
    without a mount namespace a disk bound is watched."""
    blob = launcher_blobs("launcher-watchblind")
    p = json.loads(check(blob, "--json", "--no-namespaces").stdout)
    assert p["namespaces"]["mnt"] == {"wanted": False,
                                      "why": "--no-namespaces"}
    assert p["bounds"]["disk"]["by"] == "watch"
    assert p["seccomp"]["program"] == "blob"
    assert "no PID namespace" in p["seccomp"]["why"]
    p = json.loads(check(blob, "--json", "--limit", "disk=1M").stdout)
    assert p["bounds"]["disk"]["limit"] == 1 << 20
    assert p["bounds"]["disk"]["by"] == "tmpfs"
    assert p["rlimits"]["fsize"] <= 1 << 20


def test_check_says_the_command_and_what_cordon_adds(policies_dir):
    """The command's words, the environment's names (the policy's: set or
    kept) and what cordon adds: the proxy's variables for named hosts."""
    r = check(policies_dir / "idc_query.cpol")
    assert r.returncode == 0, r.stderr
    cmd = [l for l in r.stdout.splitlines() if l.startswith("command: ")]
    assert cmd and "$SNIPPET" in cmd[0], r.stdout
    env = [l for l in r.stdout.splitlines()
           if l.startswith("environment: ")]
    assert env and "PATH" in env[0] and "proxy's address" in env[0], env
    p = json.loads(check(policies_dir / "idc_query.cpol", "--json").stdout)
    assert p["command"]["argv"][-1] == "$SNIPPET"
    assert p["command"]["proxy_env"] is True
    assert any(e["name"] == "PATH" for e in p["command"]["environment"])


def test_check_foresees_the_cgroup(launcher_blobs, tmp_path):
    """Memory and pids: --check says what a run's group would hold, or
    why there is none, as the run would (root on cgroup v1: a group below
    cordon's own; another user: the per-process rlimits, and why)."""
    import os
    blob = launcher_blobs("launcher-bounds")
    p = json.loads(check(blob, "--json").stdout)
    mem = p["bounds"]["memory"]
    if mem["limit"] is None:
        pytest.skip("launcher-bounds sets no memory bound")
    v1 = os.path.isdir("/sys/fs/cgroup/memory")
    if os.getuid() == 0 and v1:
        assert mem["by"] == "cgroup-v1", mem
    elif v1:
        assert mem["by"] == "rlimit-per-process", mem
        assert "no memory cgroup" in mem["why"], mem
    else:
        assert mem["by"] in ("rlimit-per-process", "cgroup-v2"), mem


def test_json_is_for_check(launcher_blobs):
    r = run(launcher_blobs("launcher-private"), "--json")
    assert r.returncode == 125 and "only with --check" in r.stderr, r
