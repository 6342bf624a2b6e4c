"""The worker image as shipped: deploy/kubernetes/mkrootfs.py's root file
system (the host's Debian packages, cordon and its programs, the blobs, the warm
files, the client; checked there against every blob's required paths)
run under runc as the pod runs it (tests/podrt.py), with no host folder
bound in: every shipped policy's --check and workload, a warm pool, the
client and cordon-mcp.  Building the root file system takes minutes, so
`make image` makes it (build/image-rootfs) and this test uses it; it
skips, saying so, where it is not there."""
import json

import pytest

import podrt
from conftest import BUILD
from test_pod import WORKLOADS, names_hosts, ok

IMAGE = BUILD / "image-rootfs"
REASON = podrt.unavailable() or (
    None if (IMAGE / "usr/local/bin/cordon").exists() else
    "no image root file system in %s: `make image` makes it (minutes)"
    % IMAGE)
pytestmark = pytest.mark.skipif(REASON is not None, reason=REASON or "")


@pytest.fixture(scope="module")
def image():
    """The image's root file system with this build's cordon, warm
    files, blobs and client put in again (mkrootfs.py's own step: the
    packages are what take minutes, and they do not change with cordon)."""
    import importlib.util
    from conftest import SRC
    spec = importlib.util.spec_from_file_location(
        "mkrootfs", SRC / "deploy" / "kubernetes" / "mkrootfs.py")
    mk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mk)
    mk.add_cordon(str(BUILD), str(SRC), str(IMAGE),
                  sorted(map(str, (BUILD / "policies").glob("*.cpol"))))
    return IMAGE


@pytest.fixture(scope="module", params=["cordon-worker", "runtime-default"])
def pod(request, tmp_path_factory, image):
    p = podrt.Pod(request.param, tmp_path_factory.mktemp(request.param),
                  image=image)
    p.start()
    yield p
    p.stop()


def test_image_runs_every_shipped_policy(pod):
    blobs = sorted(p.stem for p in (IMAGE / "etc/cordon/policies")
                   .glob("*.cpol"))
    assert blobs == sorted(p.stem for p in (BUILD / "policies")
                           .glob("*.cpol"))
    for policy in blobs:
        if pod.name == "runtime-default" and names_hosts(policy):
            continue        # needs a network namespace: test_pod says so
        (pod.work / "s.py").write_text(WORKLOADS[policy])
        r = pod.sh("%s --status-fd 3 %s/%s.cpol /work/s.py 3>/work/st.json"
                   % (pod.cordon, pod.policies, policy), timeout=300)
        st = json.loads((pod.work / "st.json").read_text())
        assert ok(st) and "mean" in r.stdout, (policy, r.stderr[-800:], st)


def test_image_client_and_mcp(pod):
    r = pod.py("from cordon import Client\n"
               "with Client(warm=%s) as c:\n"
               "    r = c.run('radiomics', 'print(6 * 7)')\n"
               "    print(r.stdout.decode().strip(), r.status.get('warm'))\n"
               % (pod.name == "cordon-worker"))
    assert r.returncode == 0, r.stderr[-1000:]
    assert r.stdout.split()[0] == "42", r.stdout
    msgs = [{"jsonrpc": "2.0", "id": 0, "method": "initialize",
             "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                        "clientInfo": {"name": "img", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 1, "method": "tools/call",
             "params": {"name": "run_code", "arguments": {
                 "tool": "radiomics", "code": "print(6 * 7)"}}}]
    r = pod.exec(["/usr/bin/python3", "-m", "cordon.mcp"],
                 stdin="".join(json.dumps(m) + "\n" for m in msgs))
    res = {a.get("id"): a for a in map(json.loads, r.stdout.splitlines())}
    assert res[1]["result"]["isError"] is False, r.stderr[-800:]
