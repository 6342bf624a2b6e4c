"""cordon in a worker pod, for real: runc runs a container with
deploy/kubernetes/worker.yaml's security context (uid 10001, no
capabilities, no_new_privs, read-only root, a work volume, the pod's
limits) under each of three seccomp profiles (containerd's
RuntimeDefault, podman's/CRI-O's default, the project's
profiles/cordon-worker.json; tests/podrt.py), and cordon runs inside:
--check against a run, every shipped policy's workload, a warm pool, the
Python client, cordon-mcp over stdio, the escape basics, and nothing
left behind.  Skips, with the reason, where there is no runtime."""
import json
import os
import shlex

import pytest

import podrt
from conftest import BUILD

REASON = podrt.unavailable()
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")

C = podrt.CORDON
POL = podrt.POLICIES
# What each profile lets cordon do: namespaces (and so the run tmpfs, a
# PID namespace's listener, the network namespace) or not.
NAMESPACES = {"runtime-default": False, "podman": True,
              "cordon-worker": True}


@pytest.fixture(scope="module", params=list(podrt.PROFILES))
def pod(request, tmp_path_factory):
    prof = podrt.PROFILES[request.param]()
    if prof is None:
        pytest.skip("%s: its profile is not in ../shared/external-fixtures"
                    % request.param)
    p = podrt.Pod(request.param, tmp_path_factory.mktemp(request.param),
                  profile=prof)
    try:
        p.start()
    except RuntimeError as e:
        pytest.skip("runc cannot run a container here: %s" % e)
    yield p
    p.stop()


def put(pod, name, text):
    """A file in the work volume, readable inside: its path there."""
    host = pod.work / "in" / name
    host.parent.mkdir(exist_ok=True)
    os.chown(host.parent, podrt.UID, podrt.GID)
    host.write_text(text)
    return "/work/in/" + name


def home(pod, uid):
    """The folder a user other than the pod's (uid 10001) has for its
    TMPDIR and HOME in the work volume (a pod's fsGroup would make the
    volume its own): its path inside, and the env that points there."""
    host = pod.work / ("u%d" % uid)
    host.mkdir(exist_ok=True)
    os.chown(host, uid, uid)
    d = "/work/u%d" % uid
    return d, ["HOME=" + d, "TMPDIR=" + d]


def run(pod, policy, code, *opts, timeout=180, uid=podrt.UID):
    """cordon POLICY snippet in the pod as uid (the pod's by default):
    (status dict or None, result)."""
    snip = put(pod, "s-%s.py" % os.urandom(4).hex(), code)
    d, env = ("/work/in", []) if uid == podrt.UID else home(pod, uid)
    r = pod.sh("%s --status-fd 3 %s %s/%s.cpol %s 3>%s/st.json; "
               "echo rc=$?; cat %s/st.json" % (
                   C, " ".join(map(shlex.quote, opts)), POL, policy, snip,
                   d, d), timeout=timeout, uid=uid, env=env)
    out, _, st = r.stdout.rpartition("rc=")
    rc, _, st = st.partition("\n")
    r.stdout, r.rc = out, int(rc)
    try:
        return json.loads(st), r
    except ValueError:
        return None, r


def ok(st):
    return st is not None and st["outcome"] == "exited" and \
        st["exit_code"] == 0


def shipped():
    return sorted(p.stem for p in (BUILD / "policies").glob("*.cpol"))


def names_hosts(policy):
    """A policy with named hosts needs a network namespace (the proxy)."""
    import subprocess
    out = subprocess.run([str(BUILD / "cordonc"), "explain", "--json",
                          str(BUILD / "policies" / (policy + ".cpol"))],
                         capture_output=True, text=True, check=True).stdout
    return bool(json.loads(out)["layers"].get("hosts"))


def runnable(pod, policy):
    return NAMESPACES[pod.name] or not names_hosts(policy)


# ---- --check says what a run will do ---------------------------------

def test_check_agrees_with_run(pod):
    for policy in shipped():
        chk = pod.sh("%s --check %s/%s.cpol" % (C, POL, policy))
        st, r = run(pod, policy, "print(6 * 7)")
        assert st is not None, (policy, r.stderr)
        assert (chk.returncode == 0) == runnable(pod, policy), \
            (policy, chk.stderr)
        assert ok(st) == runnable(pod, policy), (policy, r.stderr, st)
        if not ok(st):
            assert "network namespace" in st["reason"], st["reason"]
            continue
        ns = st["layers"]["namespaces"]
        assert bool(ns) == NAMESPACES[pod.name], (policy, ns)
        assert ("namespaces: available" in chk.stdout) == \
            NAMESPACES[pod.name], chk.stdout


def _broken_profile():
    """cordon-worker.json as it was shipped before: unshare allowed, the
    run tmpfs's calls refused."""
    prof = podrt.cordon_worker()
    prof["syscalls"].append({"names": ["fsopen", "fsmount", "fsconfig",
                                       "open_tree", "move_mount"],
                             "action": "SCMP_ACT_ERRNO", "errnoRet": 1})
    return prof


def test_check_fails_where_a_run_would(tmp_path):
    """A profile that gives the namespaces but refuses the run tmpfs:
    --check fails and names the step; a run fails with a status that
    lists no layer; --no-namespaces passes both."""
    p = podrt.Pod("cordon-worker", tmp_path, profile=_broken_profile())
    p.start()
    try:
        chk = p.sh("%s --check %s/radiomics.cpol" % (C, POL))
        assert chk.returncode != 0, chk.stdout
        assert "fsopen" in chk.stderr and "seccomp profile" in \
            chk.stderr, chk.stderr
        st, r = run(p, "radiomics", "print(1)")
        assert r.rc != 0 and st["outcome"] == "error", (r.stderr, st)
        assert "run tmpfs" in st["reason"]
        lay = st["layers"]
        assert lay["namespaces"] == [] and not lay["seccomp"] and \
            not lay["no_new_privs"] and not lay["landlock_fs"], lay
        assert p.sh("%s --check --no-namespaces %s/radiomics.cpol" %
                    (C, POL)).returncode == 0
        st, r = run(p, "radiomics", "print(6 * 7)", "--no-namespaces")
        assert ok(st) and "42" in r.stdout, r.stderr
    finally:
        p.stop()


def test_check_fails_where_the_proxy_would(tmp_path):
    """A profile that refuses socket() (the project's before this
    release): --check of a named-host policy fails naming the proxy's
    listener, as its run would; a network-off policy passes."""
    prof = podrt.cordon_worker()
    prof["syscalls"].append({"names": ["socket"],
                             "action": "SCMP_ACT_ERRNO", "errnoRet": 97})
    p = podrt.Pod("cordon-worker", tmp_path, profile=prof)
    p.start()
    try:
        chk = p.sh("%s --check %s/bih_query.cpol" % (C, POL))
        assert chk.returncode != 0 and "proxy" in chk.stderr, chk.stderr
        st, r = run(p, "bih_query", "print(1)")
        assert not ok(st), (r.stderr, st)
        assert p.sh("%s --check %s/radiomics.cpol" % (C, POL)) \
            .returncode == 0
    finally:
        p.stop()


# ---- the shipped policies' workloads ---------------------------------

PLOT = ("import numpy as np, matplotlib\nmatplotlib.use('Agg')\n"
        "import matplotlib.pyplot as plt\n"
        "x = np.linspace(0, 1, 50)\nplt.plot(x, x ** 2)\n"
        "plt.savefig('plot.png')\nprint('mean', round(float(x.mean()), 3))\n")
QUERY = ("import json, numpy as np\n"
         "rows = [{'id': i, 'v': i * 2} for i in range(10)]\n"
         "print('mean', round(float(np.mean([r['v'] for r in rows])), 3))\n")
WORKLOADS = {
    "radiomics": PLOT, "code_gen": PLOT + (
        "import subprocess\n"
        "r = subprocess.run(['dcm2niix', '-v'], capture_output=True)\n"
        "print('dcm2niix', b'dcm2niiX' in r.stdout + r.stderr)\n"),
    "bih_query": QUERY, "idc_query": QUERY, "midrc_query": QUERY,
    "monai_infer": "import torch\nprint('mean', 0.333)\n",
}


def test_shipped_workloads(pod):
    for policy in shipped():
        if policy == "monai_infer" and pod.py("import torch").returncode:
            continue    # python3-torch is not installed (no GPU here)
        if not runnable(pod, policy):
            continue    # test_check_agrees_with_run: refused, and why
        st, r = run(pod, policy, WORKLOADS[policy])
        assert ok(st), (policy, r.stderr[-800:], st)
        assert "mean" in r.stdout, (policy, r.stdout)
        if policy == "code_gen":
            assert "dcm2niix True" in r.stdout, r.stdout


MULTIPROCESSING = r"""
import multiprocessing as mp
def square(x):
    return x * x
if __name__ == "__main__":
    with mp.Pool(2) as pool:
        print("pool", sum(pool.map(square, range(10))))
    v = mp.Value("i", 7)
    print("value", v.value)
"""


def test_multiprocessing(pod):
    """code_gen's Pool and Value under every profile: in the run's own
    /dev/shm with namespaces, in its workdir (libcordon-shm.so) without."""
    if not runnable(pod, "code_gen"):
        pytest.skip("code_gen does not run under this profile")
    st, r = run(pod, "code_gen", MULTIPROCESSING)
    assert ok(st), (r.stderr[-800:], st)
    assert "pool 285" in r.stdout and "value 7" in r.stdout, r.stdout
    assert st["layers"]["private_shm"] is NAMESPACES[pod.name], st


CLIENT_MULTI = """
import json
from cordon import Client
with Client(%r, cordon=%r, warm=False) as c:
    r = c.run("code_gen", %r + "open('out.txt', 'w').write('x')\\n")
    print(json.dumps({"out": r.stdout.decode(), "files": sorted(r.outputs),
                      "refused": [x.name for x in r.refused]}))
"""


def test_python_client_multiprocessing(pod):
    """The client's run of the same: the semaphores' folder (no
    namespaces) is cordon's, neither an output nor a refused one."""
    if not runnable(pod, "code_gen"):
        pytest.skip("code_gen does not run under this profile")
    r = pod.py(CLIENT_MULTI % (POL, C, MULTIPROCESSING))
    assert r.returncode == 0, r.stderr[-1500:]
    res = json.loads(r.stdout.splitlines()[-1])
    assert "pool 285" in res["out"], res
    assert res["files"] == ["out.txt"] and res["refused"] == [], res


def test_monai_needs_torch(pod):
    if pod.py("import torch").returncode:
        pytest.skip("monai_infer: python3-torch is not installed here "
                    "(and no GPU): its workload is not run")


# ---- a warm pool, the Python client, cordon-mcp ----------------------

def test_warm_pool(pod):
    """A pool where the pod gives namespaces; elsewhere --serve refuses
    before it says ready, and says why."""
    snip = put(pod, "warm.py", "print(6 * 7)")
    name = "@pod-%s" % os.urandom(3).hex()
    r = pod.sh(
        "%s --serve %s %s/radiomics.cpol > /work/in/serve.out 2>&1 & s=$!; "
        "i=0; while ! grep -q ready /work/in/serve.out && [ $i -lt 100 ] "
        "&& kill -0 $s 2>/dev/null; do sleep 0.1; i=$((i+1)); done; "
        "%s --submit %s --status-fd 3 %s 3>/work/in/wst.json; echo rc=$?; "
        "kill $s 2>/dev/null; wait $s; echo served=$?; cat /work/in/serve.out"
        % (C, name, POL, C, name, snip))
    if not NAMESPACES[pod.name]:
        assert "ready" not in r.stdout and "served=125" in r.stdout, r.stdout
        assert "warm pool's runs need namespaces" in r.stdout, r.stdout
        return
    assert "rc=0" in r.stdout and "42" in r.stdout, (r.stdout, r.stderr)
    st = json.loads((pod.work / "in" / "wst.json").read_text())
    assert ok(st) and st.get("warm") is True, st


CLIENT = """
import json, sys
from cordon import Client
with Client(%r, cordon=%r, warm=%s) as c:
    r = c.run("radiomics", "print(6 * 7)")
    print(json.dumps({"outcome": str(r.outcome), "out": r.stdout.decode(),
                      "ns": r.status["layers"]["namespaces"],
                      "warm": r.status.get("warm"),
                      "mode": c.policies.mode("radiomics")[1]}))
"""


@pytest.mark.parametrize("warm", [False, True])
def test_python_client(pod, warm):
    r = pod.py(CLIENT % (POL, C, warm))
    assert r.returncode == 0, r.stderr[-1500:]
    res = json.loads(r.stdout.splitlines()[-1])
    assert "42" in res["out"] and res["outcome"].lower().endswith("exited"), res
    assert bool(res["ns"]) == NAMESPACES[pod.name], res
    # warm where the pod gives namespaces; else cold, and said
    assert bool(res["warm"]) == (warm and NAMESPACES[pod.name]), res
    if warm and not NAMESPACES[pod.name]:
        assert "runs cold" in r.stderr, r.stderr


def test_python_client_chooses_no_namespaces(tmp_path):
    """Where the pod refuses the run tmpfs, the client runs without
    namespaces, without being told, and says why."""
    p = podrt.Pod("cordon-worker", tmp_path, profile=_broken_profile())
    p.start()
    try:
        r = p.py(CLIENT % (POL, C, False))
        assert r.returncode == 0, r.stderr[-1500:]
        res = json.loads(r.stdout.splitlines()[-1])
        assert "42" in res["out"] and res["ns"] == [], res
        assert "fsopen" in res["mode"], res
        assert "without namespaces" in r.stderr, r.stderr
    finally:
        p.stop()


def test_mcp_stdio(pod):
    msgs = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "pod", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "run_code", "arguments": {
                 "tool": "radiomics", "code": "print(6 * 7)"}}}]
    r = pod.exec(["/usr/bin/python3", "-m", "cordon.mcp", "--policy-dir",
                  POL], env=["CORDON_BIN=" + C],
                 stdin="".join(json.dumps(m) + "\n" for m in msgs))
    answers = {a.get("id"): a for a in map(json.loads,
                                           r.stdout.splitlines())}
    res = answers[1]["result"]
    assert res["isError"] is False, (res, r.stderr[-1000:])
    assert "42" in res["content"][0]["text"]


# ---- the escape basics -----------------------------------------------

ESCAPES = {
    "write outside the workdir": (
        "open('/work/escaped', 'w').write('x')", "PermissionError"),
    "read a host secret": (
        "print(open('/etc/shadow').read()[:5])", "PermissionError"),
    "network": (
        "import socket\ns = socket.create_connection(('127.0.0.1', 22), 2)",
        "Error"),
    "ptrace": (
        "import ctypes\nl = ctypes.CDLL(None, use_errno=True)\n"
        "assert l.ptrace(16, 1, 0, 0) == -1, 'attached'\n"
        "raise SystemExit('refused %d' % ctypes.get_errno())", "refused"),
    "execute a file it wrote": (
        "import os\nopen('x.sh', 'w').write('#!/bin/sh\\necho ran\\n')\n"
        "os.chmod('x.sh', 0o755)\nos.execv('./x.sh', ['x.sh'])",
        "PermissionError"),
}


def test_escape_basics(pod):
    for what, (code, word) in ESCAPES.items():
        st, r = run(pod, "radiomics", code)
        assert st is not None, (what, r.stderr)
        assert not ok(st) and word in r.stderr, \
            (what, st["outcome"], r.stderr[-500:])
    assert not (pod.work / "escaped").exists()
    # the pod's init still there
    assert pod.sh("echo alive").stdout.strip() == "alive"


FORK_BOMB = ("import os, time\nn = 0\n"
             "try:\n    while n < 5000:\n"
             "        if os.fork() == 0:\n"
             "            time.sleep(30)\n            os._exit(0)\n"
             "        n += 1\n"
             "except OSError as e:\n    print('stopped', n, e.errno)\n")


def test_fork_bomb_bounded(pod):
    st, r = run(pod, "radiomics", FORK_BOMB)
    assert st is not None
    assert "stopped" in r.stdout or st["outcome"] in (
        "killed", "pids_limit", "timeout"), (r.stdout, st["outcome"])


# ---- other users inside the pod --------------------------------------

@pytest.mark.parametrize("uid", [0, 65534])
def test_other_users_inside(pod, uid):
    """The pod's user is uid 10001; a pod may also run as root (uid 0,
    still without any capability) or as nobody.  For each: --check
    agrees with a run, a shipped workload runs, the escape basics are
    refused, a fork bomb is bounded (or, root without namespaces, the
    status says nothing of cordon's bounds it), and its run folders are
    gone."""
    d, env = home(pod, uid)
    opts = []
    if uid == 0 and NAMESPACES[pod.name]:
        # Linux 5.12 and later: a map of uid 0 into a user namespace asks
        # for CAP_SETFCAP, which the pod's root lacks.  Said as such by
        # --check and by a run (not blamed on the seccomp profile); the
        # client then runs without namespaces, without being told.
        chk = pod.sh("%s --check %s/radiomics.cpol" % (C, POL), uid=uid,
                     env=env)
        assert chk.returncode == 125 and "CAP_SETFCAP" in chk.stderr and \
            "seccomp" not in chk.stderr, chk.stderr
        st, r = run(pod, "radiomics", "print(1)", uid=uid)
        assert st["outcome"] == "error" and "CAP_SETFCAP" in \
            st["reason"], st
        r = pod.py(CLIENT % (POL, C, False), uid=uid, env=env)
        res = json.loads(r.stdout.splitlines()[-1])
        assert "42" in res["out"] and res["ns"] == [] and \
            "CAP_SETFCAP" in res["mode"], (res, r.stderr[-800:])
        opts = ["--no-namespaces"]
    chk = pod.sh("%s --check %s %s/radiomics.cpol" % (C, " ".join(opts),
                                                      POL), uid=uid, env=env)
    st, r = run(pod, "radiomics", PLOT + "import os\nprint('uid', "
                "os.getuid())\n", *opts, uid=uid)
    assert chk.returncode == 0 and ok(st), (chk.stderr, r.stderr[-800:], st)
    assert "mean" in r.stdout and "uid %d" % uid in r.stdout, r.stdout
    assert bool(st["layers"]["namespaces"]) == \
        (NAMESPACES[pod.name] and not opts), st
    for what, (code, word) in ESCAPES.items():
        st, r = run(pod, "radiomics", code, *opts, uid=uid)
        assert st is not None and not ok(st) and word in r.stderr, \
            (uid, what, st and st["outcome"], r.stderr[-500:])
    assert not (pod.work / "escaped").exists()
    if uid == 0 and not st["layers"]["namespaces"]:
        # No cgroup in the pod and no user namespace: nothing of cordon's
        # bounds root's processes (the kernel does not apply RLIMIT_NPROC
        # to uid 0), and the status says so; the pod's pids limit does.
        b = st["bounds"]["pids"]
        assert b["by"] == "none" and "root" in b["reason"], b
    else:
        st, r = run(pod, "radiomics", FORK_BOMB, *opts, uid=uid)
        assert st is not None and ("stopped" in r.stdout or st["outcome"]
                                   in ("killed", "pids_limit", "timeout")), \
            (r.stdout, st["outcome"])
    left = sorted(p.name for p in (pod.work / ("u%d" % uid)).iterdir()
                  if p.name != "st.json")
    assert left == [], left


# ---- afterwards ------------------------------------------------------

def test_nothing_left_behind(pod):
    """Last: no process but the init and this look, no run folder."""
    left = [p for p in pod.processes()
            if "for d in /proc" not in p and "tr " not in p]
    assert left == [], left
    runs = [p.name for p in pod.work.iterdir()
            if p.name != "in" and not p.name.startswith("u")]
    assert runs == [], runs


# ---- podman, with the profile it applies itself ----------------------

def podman_conf(tmp_path):
    """A containers.conf whose default ulimits podman can set.  Without
    it podman asks for 1048576 open files and processes, which a root
    without CAP_SYS_RESOURCE (a VM's, a CI runner's) may not raise to
    (runc: "error setting rlimits ... operation not permitted"), and
    --ulimit on its command line did not replace them (podman 4.3).
    Open files: the caller's hard limit, as a pod inherits its node's;
    processes: the pod's pids limit (podman lowers its own to 32768)."""
    import resource
    nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    if nofile == resource.RLIM_INFINITY:
        nofile = 1 << 20
    conf = tmp_path / "containers.conf"
    conf.write_text('[containers]\ndefault_ulimits = ["nofile=%d:%d", '
                    '"nproc=%d:%d"]\n' % (nofile, nofile, podrt.PIDS,
                                           podrt.PIDS))
    return str(conf)


def test_podman_default_profile(tmp_path):
    """podman run as the pod runs (the same root, uid 10001, no
    capabilities, no_new_privs, read-only root, a work volume), with
    podman's own default seccomp profile (not given: podman applies it):
    --check, a run with every layer, an escape refused."""
    import shutil
    import subprocess
    if shutil.which("podman") is None:
        pytest.skip("podman is not installed (make deps installs it)")
    work = tmp_path / "work"
    work.mkdir()
    os.chown(work, podrt.UID, podrt.GID)
    (work / "s.py").write_text("print(6 * 7)\n")
    (work / "e.py").write_text("open('/work/escaped', 'w')\n")
    script = ("%s --check %s/radiomics.cpol > /dev/null && echo checked; "
              "%s --status-fd 3 %s/radiomics.cpol /work/s.py 3>/work/st.json;"
              " %s %s/radiomics.cpol /work/e.py; echo escape=$?" %
              (C, POL, C, POL, C, POL))
    r = subprocess.run(
        ["podman", "--cgroup-manager=cgroupfs", "--events-backend=none",
         "run", "--rm", "--read-only",
         "--user", "%d:%d" % (podrt.UID, podrt.GID), "--cap-drop", "ALL",
         "--security-opt", "no-new-privileges", "--network", "none",
         "-v", "/usr:/usr:ro", "-v", "/etc:/etc:ro",
         "-v", "%s:/opt/cordon/build:ro" % BUILD,
         "-v", "%s:/work" % work, "--tmpfs", "/tmp",
         "-e", "TMPDIR=/work",
         "--rootfs", str(podrt.rootfs()),       # the root, then the command
         "/bin/sh", "-c", script],
        capture_output=True, text=True, timeout=300,
        env=dict(os.environ, CONTAINERS_CONF=podman_conf(tmp_path)))
    if r.returncode != 0 and "checked" not in r.stdout:
        pytest.skip("podman cannot start a container here: %s" %
                    r.stderr.strip()[-300:])
    assert "checked" in r.stdout and "42" in r.stdout, (r.stdout, r.stderr)
    st = json.loads((work / "st.json").read_text())
    assert ok(st) and st["layers"]["namespaces"], st
    assert "escape=0" not in r.stdout and "PermissionError" in r.stderr
    assert not (work / "escaped").exists()
