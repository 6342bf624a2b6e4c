"""cordon-runtime (clients/python/cordon/runtime.py, _rtserve.py,
_rtexec.py, _rtfiles.py, _rtparse.py): kubernetes-sigs/agent-sandbox's
in-pod runtime contract over real HTTP, with a client written from the
contract (the python-runtime's /execute, /upload, /download, /list,
/exists; sandboxd's /v1/files, /v1/health, /v1/metadata): runs under a
policy, sessions, path escapes, sizes, the concurrency bound, health
when cordon --check fails, tokens off loopback, credentials as files.
Root and uid 65534."""
import http.client
import json
import os
import re
import stat
import subprocess
import threading
import time
import urllib.parse

import pytest

PYTHON = "/usr/bin/python3"
START_TIMEOUT = 60
TOKEN = "t" * 24 + "-runtime"


def server_env(src_dir, build_dir, extra=None):
    env = {"PATH": "%s:/usr/bin:/bin" % build_dir, "LANG": "C.UTF-8",
           "PYTHONPATH": str(src_dir / "clients" / "python")}
    for k in ("HOME", "TMPDIR"):
        if k in os.environ:
            env[k] = os.environ[k]
    env.update(extra or {})
    return env


class Runtime:
    """cordon-runtime on 127.0.0.1:0 (or listen), its port read from its
    start line; root: its workspace."""

    def __init__(self, src_dir, build_dir, tmp, *extra, listen=None,
                 env=None, policies=("code_gen",), wait=True):
        self.root = tmp / ("ws-%d" % time.monotonic_ns())
        self.root.mkdir()
        self.log = tmp / ("rt-%d.log" % time.monotonic_ns())
        argv = [PYTHON, "-m", "cordon.runtime", "--policy-dir",
                str(build_dir / "policies"), "--root", str(self.root),
                "--listen", listen or "127.0.0.1:0"]
        for p in policies:
            argv += ["--policy", p]
        self.proc = subprocess.Popen(
            argv + list(extra), env=server_env(src_dir, build_dir, env),
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=open(self.log, "wb"))
        self.token = None
        if not wait:
            return
        end = time.monotonic() + START_TIMEOUT
        while True:
            m = re.search(r"serving on http://[^ ]+:(\d+)/",
                          self.log.read_text())
            if m:
                self.port = int(m.group(1))
                break
            if self.proc.poll() is not None or time.monotonic() > end:
                self.close()
                raise AssertionError("no start: " + self.log.read_text())
            time.sleep(0.05)

    def request(self, method, path, body=None, headers=None, token=None):
        """One request on a fresh connection: (status, headers, body)."""
        c = http.client.HTTPConnection("127.0.0.1", self.port, timeout=300)
        h = dict(headers or {})
        tok = token if token is not None else self.token
        if tok:
            h["Authorization"] = "Bearer " + tok
        try:
            c.request(method, path, body=body, headers=h)
            r = c.getresponse()
            return r.status, {k.lower(): v for k, v in r.getheaders()}, \
                r.read()
        finally:
            c.close()

    def head_only(self, method, path, length):
        """A request head announcing length bytes of body, none sent:
        the answer must come before the body is read."""
        import socket
        with socket.create_connection(("127.0.0.1", self.port), 60) as c:
            c.sendall(("%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                       "Content-Length: %d\r\n\r\n" % (method, path, length)
                       ).encode())
            data = b""
            while True:
                more = c.recv(65536)
                if not more:
                    return data
                data += more

    def json(self, method, path, value=None, **kw):
        body = None if value is None else json.dumps(value).encode()
        s, h, b = self.request(method, path, body, {
            "Content-Type": "application/json"}, **kw)
        return s, (json.loads(b) if b else None)

    def execute(self, command=None, token=None, **extra):
        if command is not None:
            extra["command"] = command
        return self.json("POST", "/execute", extra, token=token)

    def upload(self, filename, data):
        """The python-runtime's POST /upload: multipart/form-data, one
        part named file whose filename is the path."""
        b = "x-cordon-test-boundary"
        fn = filename.replace("\\", "\\\\").replace('"', '\\"')
        body = ("--%s\r\nContent-Disposition: form-data; name=\"file\"; "
                "filename=\"%s\"\r\nContent-Type: application/octet-stream"
                "\r\n\r\n" % (b, fn)).encode() + data + \
            ("\r\n--%s--\r\n" % b).encode()
        s, h, r = self.request("POST", "/upload", body, {
            "Content-Type": "multipart/form-data; boundary=" + b})
        return s, json.loads(r)

    def close(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


@pytest.fixture
def rt(src_dir, build_dir, tmp_path):
    r = Runtime(src_dir, build_dir, tmp_path)
    yield r
    r.close()


def q(path):
    return urllib.parse.quote(path, safe="")


def test_execute_is_a_cordon_run(rt):
    s, h = rt.json("GET", "/")
    assert (s, h["status"]) == (200, "ok")
    s, r = rt.execute("python3 -c 'print(6 * 7)'")
    assert s == 200 and r["stdout"] == "42\n" and r["exit_code"] == 0
    assert r["outcome"] == "exited" and r["policy"] == "code_gen"
    assert r["warm"] is False
    s, r = rt.execute("python3 -c 'import sys; sys.exit(3)'")
    assert (s, r["exit_code"]) == (200, 3)
    # Under the policy: the network is off, the host's files out of reach.
    s, r = rt.execute(code="import socket\ntry:\n socket.socket()\n"
                      "except OSError as e: print('refused', e.errno)")
    assert r["stdout"].startswith("refused"), r
    # Anything but Python is not run.
    s, r = rt.execute("sh -c 'id'")
    assert s == 422 and "Python" in r["message"]
    s, r = rt.execute("python3 -m http.server")
    assert s == 422
    # A timeout: the policy's bound, said.
    s, r = rt.execute(code="import time; time.sleep(60)", timeout=1)
    assert r["outcome"] == "timeout" and r["exit_code"] != 0
    assert "cordon: timeout" in r["stderr"]
    # A policy not in the set.
    s, r = rt.execute("python3 -c pass", policy="radiomics")
    assert s == 404 and "code_gen" in r["message"]


def test_workspace_in_and_out(rt):
    s, r = rt.upload("pkg/helper.py", b"def f():\n    return 5\n")
    assert s == 200, r
    s, _, _ = rt.request("PUT", "/v1/files/main.py", b"import sys\nfrom "
                         b"pkg.helper import f\nprint(f(), sys.argv[1:])\n"
                         b"open('out/r.json','w').write('[1]') if __import__"
                         b"('os').makedirs('out') is None else 0\n")
    assert s == 204
    s, r = rt.execute("python3 main.py a 'b c'")
    assert r["stdout"] == "5 ['a', 'b c']\n", r
    assert (rt.root / "out" / "r.json").read_text() == "[1]"
    s, h, b = rt.request("GET", "/download/" + q("out/r.json"))
    assert (s, b) == (200, b"[1]")
    s, r = rt.json("GET", "/exists/" + q("out/r.json"))
    assert r == {"path": "out/r.json", "exists": True}
    s, r = rt.json("GET", "/list/" + q("out"))
    assert [(e["name"], e["type"], e["size"]) for e in r] == \
        [("r.json", "file", 3)]
    # A link the run plants (where the policy lets it make one) is not
    # an output: never written back.
    s, r = rt.execute(code="import os\nfor f, a in ((os.symlink, "
                      "'/etc/passwd'), (os.link, 'main.py')):\n try:\n"
                      "  f(a, f.__name__)\n  print(f.__name__)\n"
                      " except OSError: pass\nopen('ok.txt','w').write('x')")
    assert r["exit_code"] == 0, r
    assert not os.path.lexists(rt.root / "symlink")
    assert not os.path.lexists(rt.root / "link") or \
        os.stat(rt.root / "link").st_nlink == 1
    assert (rt.root / "ok.txt").read_text() == "x"
    if "symlink" in r["stdout"].split():
        assert any(x.startswith("symlink") for x in r["files_refused"]), r


def test_unchanged_files_not_written_back(rt):
    """A run writes back what it changed, not its copy of the rest: a
    file changed through the API while the run ran keeps the change."""
    s, h, b = rt.request("PUT", "/v1/files/f.txt", b"old")
    assert s == 204
    got = {}

    def run():
        got["r"] = rt.execute(code="import time\ntime.sleep(6)\n"
                              "open('g.txt', 'w').write('new')")
    t = threading.Thread(target=run)
    t.start()
    time.sleep(2)
    s, h, b = rt.request("PUT", "/v1/files/f.txt", b"changed meanwhile")
    assert s == 204
    t.join()
    assert got["r"][1]["exit_code"] == 0, got
    assert (rt.root / "f.txt").read_bytes() == b"changed meanwhile"
    assert (rt.root / "g.txt").read_bytes() == b"new"


@pytest.mark.parametrize("path", ["../escape", "/etc/passwd", "a/../../x",
                                  "./x", "a//b", "..", "x\0y"])
def test_path_escapes_refused(rt, tmp_path, path):
    outside = tmp_path / "escape"
    s, r = rt.upload(path, b"pwned")
    assert s in (400, 403), (s, r)
    for ep in ("/download/", "/list/", "/exists/", "/v1/files/"):
        s, h, b = rt.request("GET", ep + q(path))
        assert s in (400, 403), (ep, s, b)
    s, h, b = rt.request("PUT", "/v1/files/" + q(path), b"pwned")
    assert s in (400, 403), (s, b)
    s, h, b = rt.request("DELETE", "/v1/files/" + q(path))
    assert s in (400, 403)
    assert not outside.exists()
    assert not os.path.exists("/etc/pwned")
    assert list(rt.root.iterdir()) == []


def test_links_in_workspace_never_followed(rt, tmp_path):
    secret = tmp_path / "secret"
    secret.write_text("s3cret")
    (rt.root / "d").mkdir()
    os.symlink(secret, rt.root / "link")
    os.symlink(tmp_path, rt.root / "d" / "dirlink")
    for path in ("link", "d/dirlink/secret"):
        for ep in ("/download/", "/v1/files/"):
            s, h, b = rt.request("GET", ep + q(path))
            assert s == 403 and b"s3cret" not in b, (ep, path, s, b)
    s, h, b = rt.request("PUT", "/v1/files/" + q("d/dirlink/new"), b"x")
    assert s == 403 and not (tmp_path / "new").exists()
    s, h, b = rt.request("PUT", "/v1/files/link", b"overwritten")
    assert s == 403 and secret.read_text() == "s3cret"
    s, r = rt.upload("link", b"overwritten")
    assert s == 403 and secret.read_text() == "s3cret"
    s, r = rt.json("GET", "/list/")
    assert [e["name"] for e in r] == ["d"]          # links left out
    s, r = rt.json("GET", "/exists/link")
    assert r["exists"] is True
    # A run copies the workspace in, never a link: refused, said.
    s, r = rt.execute("python3 -c pass")
    assert s == 403 and "link" in r["message"], r
    s, h, b = rt.request("DELETE", "/v1/files/link")
    assert s == 204 and secret.read_text() == "s3cret"
    s, h, b = rt.request("DELETE", "/v1/files/d?recursive=true")
    assert s == 204 and secret.exists()


def test_v1_files(rt):
    s, h, b = rt.request("PUT", "/v1/files/" + q("src/a.py") +
                         "?mode=0600", b"print(1)\n")
    assert s == 204
    assert stat.S_IMODE(os.stat(rt.root / "src" / "a.py").st_mode) == 0o600
    s, h, b = rt.request("GET", "/v1/files/" + q("src/a.py"))
    assert (s, b, h["content-type"]) == (200, b"print(1)\n",
                                         "application/octet-stream")
    s, h, b = rt.request("HEAD", "/v1/files/" + q("src/a.py"))
    assert (s, b, h["content-length"]) == (200, b"", "9")
    s, h, b = rt.request("HEAD", "/v1/files/nope")
    assert s == 404
    s, r = rt.json("GET", "/v1/files/src")
    assert r["path"] == "/src"
    (e,) = r["entries"]
    assert (e["name"], e["size"], e["type"], e["mode"]) == \
        ("a.py", 9, "file", "0600")
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", e["modified_at"])
    s, r = rt.json("DELETE", "/v1/files/src")
    assert (s, r["code"]) == (409, "CONFLICT")
    s, r = rt.json("GET", "/v1/files/nope")
    assert (s, r["code"]) == (404, "NOT_FOUND")
    s, r = rt.json("PUT", "/v1/files/x?mode=9999")
    assert s == 400
    s, h, b = rt.request("DELETE", "/v1/files/src?recursive=true")
    assert s == 204 and not (rt.root / "src").exists()


def test_sizes_bounded(src_dir, build_dir, tmp_path):
    r = Runtime(src_dir, build_dir, tmp_path, "--max-file", "1000",
                "--max-tree", "5000", "--max-entries", "20")
    try:
        s, h, b = r.request("PUT", "/v1/files/big", b"x" * 1001)
        assert s == 413 and b"--max-file" in b
        assert not (r.root / "big").exists()
        s, res = r.upload("big", b"x" * 2000)
        assert s == 413
        got = r.head_only("PUT", "/v1/files/big", 10 << 20)
        assert got.startswith(b"HTTP/1.1 413 ") and \
            b"Connection: close" in got
        got = r.head_only("POST", "/execute", 5 << 20)
        assert got.startswith(b"HTTP/1.1 413 ")
        assert not (r.root / "big").exists()
        (r.root / "placed").write_bytes(b"y" * 1001)
        s, h, b = r.request("GET", "/download/placed")
        assert s == 413 and b"y" * 100 not in b
        for i in range(4):
            (r.root / ("f%d" % i)).write_bytes(b"z" * 1000)
        s, res = r.execute("python3 -c pass")
        assert s == 413 and "--max-tree" in res["message"], res
        for i in range(4):
            (r.root / ("f%d" % i)).unlink()
        for i in range(25):
            (r.root / ("e%d" % i)).touch()
        s, res = r.json("GET", "/list/")
        assert s == 413
        s, h, b = r.request("GET", "/", headers={"X-Big": "a" * 20000})
        assert s == 431
    finally:
        r.close()


def test_concurrency_bound(src_dir, build_dir, tmp_path):
    """--max-runs 1 --max-queue 0: of three runs asked at once (each
    sleeping 8 s), one runs and the others are answered 503 at once."""
    r = Runtime(src_dir, build_dir, tmp_path, "--max-runs", "1",
                "--max-queue", "0")
    try:
        got = []

        def slow():
            got.append(r.execute(code="import time; time.sleep(8)"))
        ts = [threading.Thread(target=slow) for _ in range(3)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        codes = sorted(s for s, _ in got)
        assert codes[0] == 200 and codes[-1] == 503, got
        assert all("--max-runs" in res["message"] for s, res in got
                   if s == 503)
        assert all(res["exit_code"] == 0 for s, res in got if s == 200)
        s, res = r.execute("python3 -c 'print(1)'")
        assert (s, res["stdout"]) == (200, "1\n")
    finally:
        r.close()


def test_session_keeps_state(rt):
    s, r = rt.json("POST", "/sessions", {})
    assert s == 200, r
    sid = r["session"]
    s, r = rt.execute(code="x = 41\nimport os", session=sid)
    assert (s, r["exit_code"]) == (200, 0), r
    s, r = rt.execute("python3 -c 'open(\"c.txt\", \"w\").write(str(x + 1))"
                      "; x + 1'", session=sid)
    assert r["value"] == "42" and r["exit_code"] == 0, r
    assert (rt.root / "c.txt").read_text() == "42"
    s, r = rt.execute(code="1/0", session=sid)
    assert r["exit_code"] == 1 and "ZeroDivisionError" in r["stderr"]
    s, r = rt.execute(code="print(x)", session=sid)
    assert r["stdout"] == "41\n"
    s, r = rt.json("DELETE", "/sessions/" + sid)
    assert (s, r["end_reason"]) == (200, "closed")
    s, r = rt.execute(code="print(x)", session=sid)
    assert s == 404
    s, r = rt.execute(code="print(1)", session="made-up")
    assert s == 404


def test_warm_and_session_bound(src_dir, build_dir, tmp_path):
    """--warm: executes run in the policy's warm pool; --max-sessions:
    one more session is refused (503) until one ends."""
    r = Runtime(src_dir, build_dir, tmp_path, "--warm", "--max-sessions",
                "1")
    try:
        for _ in range(2):
            s, res = r.execute("python3 -c 'print(3)'")
            assert (res["stdout"], res["warm"]) == ("3\n", True), res
        s, one = r.json("POST", "/sessions", {})
        assert s == 200, one
        s, res = r.json("POST", "/sessions", {})
        assert s == 503 and "--max-sessions" in res["message"], res
        s, res = r.json("DELETE", "/sessions/" + one["session"])
        assert s == 200
        s, two = r.json("POST", "/sessions", {})
        assert s == 200, two
    finally:
        r.close()


def test_health_fails_when_check_fails(src_dir, build_dir, tmp_path):
    marker = tmp_path / "fail-check"
    wrapper = tmp_path / "cordon-wrapper"
    wrapper.write_text(
        "#!/bin/sh\n"
        "for a in \"$@\"; do if [ \"$a\" = --check ] && [ -e %s ]; then\n"
        "echo 'cordon: Landlock ABI 6 required, the kernel has 0' >&2\n"
        "exit 125; fi; done\nexec %s \"$@\"\n" % (marker,
                                                 build_dir / "cordon"))
    wrapper.chmod(0o755)
    r = Runtime(src_dir, build_dir, tmp_path, "--cordon", str(wrapper),
                "--health-every", "0")
    try:
        s, res = r.json("GET", "/")
        assert (s, res["status"]) == (200, "ok")
        s, res = r.json("GET", "/v1/health")
        assert (s, res["status"]) == (200, "ok")
        assert isinstance(res["uptime_seconds"], int)
        marker.touch()
        s, res = r.json("GET", "/")
        assert s == 503 and "Landlock" in res["message"], res
        s, res = r.json("GET", "/v1/health")
        assert (s, res["code"]) == (503, "UNAVAILABLE")
        assert "cordon --check code_gen exited 125" in res["message"]
        marker.unlink()
        s, res = r.json("GET", "/v1/health")
        assert s == 200
    finally:
        r.close()


def test_token_off_loopback(src_dir, build_dir, tmp_path):
    r = Runtime(src_dir, build_dir, tmp_path, listen="0.0.0.0:0",
                wait=False)
    assert r.proc.wait(60) == 2
    assert "--token-file" in r.log.read_text()
    tok = tmp_path / "token"
    tok.write_text(TOKEN + "\n")
    tok.chmod(0o644)
    r = Runtime(src_dir, build_dir, tmp_path, "--token-file", str(tok),
                listen="0.0.0.0:0", wait=False)
    assert r.proc.wait(60) == 2 and "o-rwx" in r.log.read_text()
    tok.chmod(0o600)
    # As a Kubernetes secret volume gives it: NAME -> ..data/NAME.
    vol = tmp_path / "vol"
    (vol / "..data").mkdir(parents=True)
    os.rename(tok, vol / "..data" / "token")
    os.symlink("..data/token", vol / "token")
    r = Runtime(src_dir, build_dir, tmp_path, "--token-file",
                str(vol / "token"), listen="0.0.0.0:0")
    try:
        for path in ("/v1/metadata", "/list/", "/exists/x"):
            s, h, b = r.request("GET", path)
            assert s == 401 and "bearer" in h["www-authenticate"].lower()
            s, h, b = r.request("GET", path, token="t" * 24 + "-wrong!!")
            assert s == 401
            s, h, b = r.request("GET", path, token=TOKEN)
            assert s == 200, (path, b)
        s, res = r.execute("python3 -c 'print(1)'")
        assert s == 401
        s, res = r.execute("python3 -c 'print(1)'", token=TOKEN)
        assert res.get("stdout") == "1\n", res
        # The probes need none (the kubelet's httpGet carries no secret).
        for path in ("/", "/v1/health"):
            s, h, b = r.request("GET", path)
            assert s == 200
    finally:
        r.close()


def test_loopback_host_guard_and_metadata(src_dir, build_dir, tmp_path):
    r = Runtime(src_dir, build_dir, tmp_path, env={
        "SANDBOX_ID": "sbx-1", "SANDBOX_API_TOKEN": "hidden",
        "OTHER": "no"})
    try:
        s, h, b = r.request("GET", "/v1/metadata",
                            headers={"Host": "evil.example:80"})
        assert s == 403 and b"rebinding" in b
        s, res = r.json("GET", "/v1/metadata")
        assert res["env"] == {"SANDBOX_ID": "sbx-1"}
        assert res["cordon"]["policies"] == ["code_gen"]
    finally:
        r.close()


CRED_POLICY = '''include "base/python.policy";
policy "cred_rt";
network connect "api.example.invalid":443;
credential "CORDON_TEST_TOKEN" header "Authorization: Bearer {}"
    for "api.example.invalid":443;
'''


def test_credential_from_file(src_dir, build_dir, tmp_path, cordonc_bin):
    pdir = tmp_path / "pol"
    pdir.mkdir()
    (pdir / "cred_rt.policy").write_text(CRED_POLICY)
    subprocess.run([cordonc_bin, "compile", "-I", str(src_dir / "policies"),
                    "-o", str(pdir / "cred_rt.cpol"),
                    str(pdir / "cred_rt.policy")], check=True)
    secret = tmp_path / "secret"
    secret.write_text("value-never-seen-1234\n")
    for cred in ((), ("--credential", "cred_rt:CORDON_TEST_TOKEN=@%s"
                      % secret)):
        r = Runtime(src_dir, build_dir, tmp_path, "--policy-dir",
                    str(pdir), *cred, policies=("cred_rt",))
        try:
            s, res = r.execute(code="import os\nprint(1)\n"
                               "print('value-never' in str(os.environ))")
        finally:
            r.close()
        if not cred:
            assert res["exit_code"] == 125, res
            assert "CORDON_TEST_TOKEN" in res["stderr"]
            continue
        if res["exit_code"] != 0 and "namespace" in res["stderr"]:
            pytest.skip("named hosts need a network namespace here: %s"
                        % res["stderr"][-200:])
        assert res["stdout"] == "1\nFalse\n", res
    r = Runtime(src_dir, build_dir, tmp_path, "--policy-dir", str(pdir),
                "--credential", "code_gen:X=@%s" % secret,
                policies=("cred_rt",),
                wait=False)
    assert r.proc.wait(60) == 2 and "not a --policy" in r.log.read_text()


def test_fuzz_harness_short(src_dir, build_dir):
    """tests/fuzz/fuzz_runtime.py (make fuzz runs it longer) for a few
    seconds, seed fixed: it runs, and finds nothing."""
    p = subprocess.run([PYTHON, str(src_dir / "tests" / "fuzz" /
                                    "fuzz_runtime.py"),
                        "--build", str(build_dir), "--seconds", "8",
                        "--seed", "1"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert ": ok" in p.stdout, p.stdout


def test_help_and_checkout_wrapper(src_dir, build_dir, tmp_path):
    """--help describes every option; tools/cordon-runtime runs from
    anywhere with no PYTHONPATH, and says so when there is no build."""
    r = subprocess.run([PYTHON, "-m", "cordon.runtime", "--help"],
                       env=server_env(src_dir, build_dir),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    usage, _, rest = r.stdout.partition("\n\n")
    opts = set(re.findall(r"\[(--[\w-]+)", usage)) | {"--policy"}
    assert len(opts) >= 18, usage
    for opt in opts:
        m = re.search(r"^  %s(?: \S+)?(?:\n {20,}| +)(\S.*)$"
                      % re.escape(opt), rest, re.M)
        assert m and len(m.group(1)) > 10, (opt, r.stdout)
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
           "HOME": str(tmp_path), "CORDON_BUILD": str(build_dir)}
    ws = tmp_path / "ws"
    ws.mkdir()
    p = subprocess.Popen([str(src_dir / "tools" / "cordon-runtime"),
                          "--policy", "code_gen", "--root", str(ws),
                          "--listen", "127.0.0.1:0"], env=env,
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    try:
        line = p.stderr.readline().decode()
        assert re.match(r"cordon-runtime: serving on http://127\.0\.0\.1:"
                        r"\d+/ \(no tokens: loopback; policies code_gen\)",
                        line), line
    finally:
        p.terminate()
        p.wait(30)
    env["CORDON_BUILD"] = str(tmp_path / "none")
    r = subprocess.run([str(src_dir / "tools" / "cordon-runtime")], env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "run make" in r.stderr
