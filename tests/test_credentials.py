"""Credentials the run uses but never sees, and HTTP rules for named
hosts (issue 29).  A stand-in HTTPS upstream on loopback with its own CA
(tests/tls_util.py) is given to cordon's proxy by the test-only
--upstream-ca, and its name mapped with --resolve: the proxy
ends the run's TLS with a certificate from the run's own CA, checks each
request against the policy's http rules, adds the credential's header and
forwards it.  The snippet looks for the secret everywhere it can reach
and must not find it.  Runs as root and as uid 65534 (tests/run-pytest.sh)."""
import json
import os
import shutil
import subprocess
import tempfile

import pytest

import tls_util
import workload_util as wu

NAME = "api.example.org"          # credential and http rules
TUNNEL = "tunnel.example.org"     # named, neither: a plain CONNECT tunnel
SECRET = "s3cr3t-Zq8x-credential-value-71"
BODY = b"upstream-ok"


@pytest.fixture(scope="module")
def upstream_ca(tmp_path_factory):
    """The stand-in's own CA, and one certificate for both names."""
    d = tmp_path_factory.mktemp("upca")
    try:
        tls_util.make_ca(d, [NAME, TUNNEL])
    except tls_util.CAError as e:
        pytest.skip("openssl cannot make the stand-in's CA: %s" % e)
    return d


def Upstream(d, at=("127.0.0.1", 0)):
    """HTTPS on 127.0.0.1 (or at) with d's leaf: records each request
    head it gets; answers BODY (never echoes what it got)."""
    return tls_util.Upstream(d, BODY, at=at)


POLICY = '''include "base/python.policy";
policy "cred_test";
network connect "%(name)s":%(port)d, "%(tunnel)s":%(port)d;
credential "CORDON_TEST_TOKEN" header "Authorization: Bearer {}"
    for "%(name)s":%(port)d;
http "%(name)s":%(port)d GET "/v1/", POST "/v1/search";
'''

SNIPPET = r'''
import gc, json, os, ssl, sys, urllib.request, urllib.error
name, tunnel, port, secret_hint = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
out = {"seen": []}
texts = []

def fetch(host, path, method="GET", data=None, headers=None, ctx=None):
    req = urllib.request.Request("https://%s:%d%s" % (host, port, path),
                                 data=data, method=method,
                                 headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=15, context=ctx) as r:
            body = r.read().decode("latin-1")
            texts.append(str(r.headers) + body)
            return "%d %s" % (r.status, body)
    except urllib.error.HTTPError as e:
        body = e.read().decode("latin-1")
        texts.append(str(e) + str(e.headers) + body)
        return "%d %s" % (e.code, body.strip())
    except Exception as e:
        texts.append(repr(e))
        return "error %r" % (e,)

out["get"] = fetch(name, "/v1/query?q=1")
out["post"] = fetch(name, "/v1/search", "POST", b'{"q": 1}',
                    {"Content-Type": "application/json"})
out["own_auth"] = fetch(name, "/v1/own", headers={"Authorization": "Bearer mine"})
out["bad_method"] = fetch(name, "/v1/query", "DELETE")
out["bad_path"] = fetch(name, "/admin/users")
out["dotdot"] = fetch(name, "/v1/../admin")
out["big_head"] = fetch(name, "/v1/query", headers={"X-Big": "a" * 20000})
out["tunnel"] = fetch(tunnel, "/x", ctx=ssl.create_default_context(cafile="upstream-ca.pem"))

# Look for the credential everywhere the run can read.
def look(where, data):
    if isinstance(data, str):
        data = data.encode("latin-1", "replace")
    if secret_hint.encode() in data:
        out["seen"].append(where)

look("environ", json.dumps(dict(os.environ)))
for t in texts:
    look("answers", t)
try:
    pids = [p for p in os.listdir("/proc") if p.isdigit()]
except OSError:
    pids = []
for pid in pids + ["self", "1", str(os.getppid())] + [str(n) for n in range(1, 64)]:
    for f in ("environ", "cmdline", "status"):
        try:
            with open("/proc/%s/%s" % (pid, f), "rb") as fh:
                look("/proc/%s/%s" % (pid, f), fh.read())
        except OSError:
            pass
for top in (os.getcwd(), "/tmp", "/dev/shm"):
    for root, dirs, files in os.walk(top, onerror=lambda e: None):
        for f in files:
            try:
                with open(os.path.join(root, f), "rb") as fh:
                    look(os.path.join(root, f), fh.read())
            except OSError:
                pass
# its own memory: every readable anonymous or heap mapping, through
# ctypes (/proc/self/mem may be refused by the policy)
import ctypes
try:
    n = 0
    with open("/proc/self/maps") as maps:
        for line in maps:
            f = line.split()
            lo, hi = (int(x, 16) for x in f[0].split("-"))
            path = f[5] if len(f) > 5 else ""
            if "r" not in f[1] or path.startswith("[v") or \
                    (path and not path.startswith("[")) or hi - lo > 1 << 30:
                continue
            look("memory", ctypes.string_at(lo, hi - lo))
            n += 1
    out["memory_read"] = n > 0
except OSError as e:
    out["memory_read"] = repr(e)
for o in gc.get_objects():
    if isinstance(o, (str, bytes)) and len(o) < 1 << 20:
        look("objects", o)
print(json.dumps(out))
'''


def _setup(tmp_path, cordonc_bin, src_dir, port):
    pol = tmp_path / "cred.policy"
    pol.write_text(POLICY % {"name": NAME, "tunnel": TUNNEL, "port": port})
    blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "cred.cpol",
                             include_dirs=[src_dir / "policies"])
    work = tmp_path / "work"
    work.mkdir()
    return blob, work


def _extra(ca, *more, tunnel_at="127.0.0.1"):
    return ["--resolve", NAME + ":127.0.0.1", "--resolve",
            TUNNEL + ":" + tunnel_at, "--upstream-ca", str(ca / "ca.pem"),
            *more]


def _secret_file(tmp_path):
    f = tmp_path / "token"
    f.write_text(SECRET + "\n")
    os.chmod(f, 0o600)
    return f


def test_credential_added_never_seen(upstream_ca, cordon_bin, cordonc_bin,
                                     src_dir, tmp_path):
    # The tunnelled host has a server of its own (127.0.0.2, the same
    # port): a tunnel to the ruled host's server is refused (below).
    with Upstream(upstream_ca) as up, \
            Upstream(upstream_ca, ("127.0.0.2", up.port)) as up2:
        blob, work = _setup(tmp_path, cordonc_bin, src_dir, up.port)
        shutil.copy(upstream_ca / "ca.pem", work / "upstream-ca.pem")
        tok = _secret_file(tmp_path)
        # the snippet's hint is the secret's second half only: the
        # whole value is nowhere in its argv
        hint = SECRET[len(SECRET) // 2:]
        r = wu.run_cordon(cordon_bin, blob, SNIPPET, work,
                          args=(NAME, TUNNEL, up.port, hint), timeout=180,
                          extra=_extra(upstream_ca, "--credential",
                                       "CORDON_TEST_TOKEN=@%s" % tok,
                                       tunnel_at="127.0.0.2"))
        heads = list(up.heads) + list(up2.heads)
    assert r.returncode == 0, r.describe()
    got = r.json()
    assert got["seen"] == [], got
    # its mappings read through ctypes, or /proc/self/maps refused by the
    # policy (then its objects, gc's, are what was searched)
    assert got["memory_read"] is True or \
        got["memory_read"].startswith("PermissionError"), got
    # the header arrived, once per allowed request, and only there
    with_cred = [h for h in heads if "Authorization: Bearer " + SECRET in h]
    assert len(with_cred) == 3, heads
    assert got["get"] == "200 " + BODY.decode(), got
    assert got["post"] == "200 " + BODY.decode(), got
    assert got["own_auth"] == "200 " + BODY.decode(), got
    assert not any("Bearer mine" in h for h in heads), heads
    assert all(h.count("Authorization") <= 1 for h in heads), heads
    # a host with neither: tunnelled end to end, no header added
    assert got["tunnel"] == "200 " + BODY.decode(), got
    tunneled = [h for h in heads if ("Host: %s" % TUNNEL) in h]
    assert tunneled and "Authorization" not in tunneled[0], heads
    # refusals: 403 (431 for the head, 400 for the target's form),
    # listed with method and path
    assert got["bad_method"].startswith("403"), got
    assert got["bad_path"].startswith("403"), got
    # a target not in normal form: 400 (test_httpform.py); a client
    # may fold .. itself
    assert got["dotdot"].startswith("400") or \
        got["dotdot"].startswith("200"), got
    assert got["big_head"].startswith("431"), got
    st = r.status
    refused = [(e.get("method"), e.get("path"), e["why"])
               for e in st["network_refused"]]
    assert ("DELETE", "/v1/query",
            "not a method and path the policy allows") in refused, refused
    assert ("GET", "/admin/users",
            "not a method and path the policy allows") in refused, refused
    assert any(w == "request head too long" for _, _, w in refused), refused
    # nowhere in what cordon wrote
    for text in (r.stdout, r.stderr, json.dumps(st)):
        assert SECRET not in text
    for root, _, files in os.walk(work):
        for f in files:
            assert SECRET.encode() not in \
                open(os.path.join(root, f), "rb").read(), f


def test_credential_from_environment(upstream_ca, cordon_bin, cordonc_bin,
                                     src_dir, tmp_path):
    """--credential NAME: the value from cordon's own environment, never
    in the run's, and wiped from cordon's (its /proc/PID/environ) once
    read; one credential bound to two hosts reaches both."""
    import time
    snippet = ("import os, sys, time, urllib.request\n"
               "assert 'CORDON_TEST_TOKEN' not in os.environ\n"
               "for h in sys.argv[1:3]:\n"
               "    with urllib.request.urlopen('https://%s:%s/v1/x' % "
               "(h, sys.argv[3]), timeout=15) as r:\n"
               "        print(r.status, flush=True)\n"
               "time.sleep(3)\n")
    with Upstream(upstream_ca) as up:
        pol = tmp_path / "two.policy"
        pol.write_text(POLICY.replace(
            'for "%(name)s":%(port)d;',
            'for "%(name)s":%(port)d, "%(tunnel)s":%(port)d;') %
            {"name": NAME, "tunnel": TUNNEL, "port": up.port})
        blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "two.cpol",
                                 include_dirs=[src_dir / "policies"])
        work = tmp_path / "work"
        work.mkdir()
        env = dict(os.environ, CORDON_TEST_TOKEN=SECRET)
        snip = tmp_path / "s.py"
        snip.write_text(snippet)
        p = subprocess.Popen([str(cordon_bin), "--workdir", str(work),
                              *_extra(upstream_ca, "--credential",
                                      "CORDON_TEST_TOKEN"),
                              str(blob), str(snip), NAME, TUNNEL,
                              str(up.port)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env, stdin=subprocess.DEVNULL)
        time.sleep(1.5)
        try:
            with open("/proc/%d/environ" % p.pid, "rb") as f:
                cordon_env = f.read()
        except PermissionError:
            # cordon is non-dumpable: only root reads its /proc entries
            cordon_env = None
        out, err = p.communicate(timeout=120)
        heads = list(up.heads)
    assert p.returncode == 0, (out, err)
    assert out.split() == ["200", "200"], (out, err)
    if cordon_env is not None:
        assert SECRET.encode() not in cordon_env
        assert b"CORDON_TEST_TOKEN=" in cordon_env
    else:
        assert os.geteuid() != 0
    assert sum("Authorization: Bearer " + SECRET in h for h in heads) == 2, \
        heads


@pytest.mark.parametrize("case", ["missing", "unknown", "empty", "newline",
                                  "nofile"])
def test_bad_credential_refuses_to_run(case, upstream_ca, cordon_bin,
                                       cordonc_bin, src_dir, tmp_path):
    blob, work = _setup(tmp_path, cordonc_bin, src_dir, 4443)
    env = dict(os.environ)
    env.pop("CORDON_TEST_TOKEN", None)
    f = tmp_path / "v"
    extra = {
        "missing": [],
        "unknown": ["--credential", "CORDON_TEST_TOKEN", "--credential",
                    "OTHER"],
        "empty": ["--credential", "CORDON_TEST_TOKEN=@%s" % f],
        "newline": ["--credential", "CORDON_TEST_TOKEN=@%s" % f],
        "nofile": ["--credential", "CORDON_TEST_TOKEN=@%s" % (tmp_path / "no")],
    }[case]
    f.write_text({"empty": "", "newline": SECRET + "\nsecond line\n"}.get(
        case, ""))
    env["CORDON_TEST_TOKEN"] = SECRET
    if case == "missing":
        env.pop("CORDON_TEST_TOKEN")
    snip = tmp_path / "s.py"
    snip.write_text("print('ran')\n")
    p = subprocess.run([str(cordon_bin), "--workdir", str(work),
                        *_extra(upstream_ca, *extra), str(blob), str(snip)],
                       capture_output=True, text=True, env=env, timeout=60,
                       stdin=subprocess.DEVNULL)
    assert p.returncode == 125, (p.stdout, p.stderr)
    assert "ran" not in p.stdout
    assert "credential" in p.stderr, p.stderr
    assert SECRET not in p.stderr and "second line" not in p.stderr
    if case == "missing":
        assert "no value was given" in p.stderr, p.stderr
    if case == "unknown":
        assert "binds no credential of that name" in p.stderr, p.stderr


def test_upstream_not_verified_is_refused(upstream_ca, cordon_bin,
                                          cordonc_bin, src_dir, tmp_path):
    """Without --upstream-ca the stand-in's certificate is checked against
    the system's CA store, which does not know it: 502, recorded, and the
    credential never sent."""
    snippet = ("import sys, urllib.request, urllib.error\n"
               "try:\n"
               "    urllib.request.urlopen('https://%s:%s/v1/x' % "
               "(sys.argv[1], sys.argv[2]), timeout=15)\n"
               "    print('reached')\n"
               "except Exception as e:\n"
               "    print('refused', e)\n")
    with Upstream(upstream_ca) as up:
        blob, work = _setup(tmp_path, cordonc_bin, src_dir, up.port)
        tok = _secret_file(tmp_path)
        r = wu.run_cordon(cordon_bin, blob, snippet, work,
                          args=(NAME, up.port), timeout=120,
                          extra=["--resolve", NAME + ":127.0.0.1",
                                 "--credential",
                                 "CORDON_TEST_TOKEN=@%s" % tok])
        heads = list(up.heads)
    assert r.returncode == 0, r.describe()
    assert "refused" in r.stdout and "reached" not in r.stdout, r.stdout
    assert heads == [], heads
    whys = [e["why"] for e in r.status["network_refused"]]
    # issue 41: said as an untrusted chain, not as a name not verified
    assert whys == ["upstream certificate not trusted (its chain reaches "
                    "no CA of the system's store or --upstream-ca)"], whys


def test_upstream_naming_another_host_is_refused(upstream_ca, cordon_bin,
                                                 cordonc_bin, src_dir,
                                                 tmp_path):
    """A chain --upstream-ca trusts, on a certificate for other names
    (the stand-in's are NAME and TUNNEL): refused as a name mismatch,
    distinct from an untrusted chain, and nothing sent."""
    other = "other.example.org"
    snippet = ("import sys, urllib.request\n"
               "try:\n"
               "    urllib.request.urlopen('https://%s:%s/v1/x' % "
               "(sys.argv[1], sys.argv[2]), timeout=15)\n"
               "    print('reached')\n"
               "except Exception as e:\n"
               "    print('refused', e)\n")
    with Upstream(upstream_ca) as up:
        pol = tmp_path / "other.policy"
        pol.write_text('include "base/python.policy";\npolicy "other";\n'
                       'network connect "%s":%d;\n'
                       'http "%s":%d GET "/v1/";\n'
                       % (other, up.port, other, up.port))
        blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "other.cpol",
                                 include_dirs=[src_dir / "policies"])
        work = tmp_path / "w"
        work.mkdir()
        r = wu.run_cordon(cordon_bin, blob, snippet, work,
                          args=(other, up.port), timeout=120,
                          extra=["--resolve", other + ":127.0.0.1",
                                 "--upstream-ca",
                                 str(upstream_ca / "ca.pem")])
        heads = list(up.heads)
    assert r.returncode == 0, r.describe()
    assert "refused" in r.stdout and "reached" not in r.stdout, r.stdout
    assert heads == [], heads
    whys = [e["why"] for e in r.status["network_refused"]]
    assert whys == ["upstream certificate names another host"], whys


def PlainUpstream():
    """The same, in clear (http://)."""
    return tls_util.Upstream(None, BODY)


PLAIN = "plain.example.org"


def test_plain_http_host_forwarded(cordon_bin, cordonc_bin, src_dir,
                                   tmp_path):
    """http plain: the run's http:// requests (absolute-form, through
    HTTP_PROXY) checked by the same rules, sent in origin-form with the
    credential's header; a plain request to any other host refused."""
    snippet = r'''
import json, sys, urllib.request, urllib.error
name, port = sys.argv[1], int(sys.argv[2])
out = {}
for k, url in (("ok", "http://%s:%d/v1/q?x=1" % (name, port)),
               ("path", "http://%s:%d/admin" % (name, port)),
               ("other", "http://other.example.org:%d/v1/q" % port)):
    try:
        with urllib.request.urlopen(url, timeout=15) as r:
            out[k] = "%d %s" % (r.status, r.read().decode())
    except urllib.error.HTTPError as e:
        out[k] = "%d" % e.code
    except Exception as e:
        out[k] = "error %r" % e
print(json.dumps(out))
'''
    with PlainUpstream() as up:
        pol = tmp_path / "plain.policy"
        pol.write_text('include "base/python.policy";\npolicy "plain";\n'
                       'network connect "%s":%d;\n'
                       'credential "CORDON_TEST_TOKEN" header "X-Key: {}" '
                       'for "%s":%d;\n'
                       'http plain "%s":%d GET "/v1/";\n'
                       % (PLAIN, up.port, PLAIN, up.port, PLAIN, up.port))
        blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "plain.cpol",
                                 include_dirs=[src_dir / "policies"])
        work = tmp_path / "w"
        work.mkdir()
        tok = _secret_file(tmp_path)
        r = wu.run_cordon(cordon_bin, blob, snippet, work,
                          args=(PLAIN, up.port), timeout=120,
                          extra=["--resolve", PLAIN + ":127.0.0.1",
                                 "--credential",
                                 "CORDON_TEST_TOKEN=@%s" % tok])
        heads = list(up.heads)
    assert r.returncode == 0, r.describe()
    got = r.json()
    assert got["ok"] == "200 " + BODY.decode(), got
    assert got["path"] == "403", got
    assert got["other"] != "200 " + BODY.decode(), got
    assert len(heads) == 1, heads
    assert heads[0].startswith("GET /v1/q?x=1 HTTP/1.1\r\n"), heads
    assert "X-Key: " + SECRET in heads[0], heads
    assert "Proxy-Connection" not in heads[0], heads
    refused = [(e["dest"], e.get("method"), e.get("path"), e["why"])
               for e in r.status["network_refused"]]
    assert ("%s:%d" % (PLAIN, up.port), "GET", "/admin",
            "not a method and path the policy allows") in refused, refused
    assert ("(plain http)", None, None, "not a CONNECT request") in \
        refused, refused
    assert SECRET not in r.stdout + r.stderr + json.dumps(r.status)


def test_tools_see_the_credential(cordonc_bin, src_dir, tmp_path):
    """explain, lint, audit and diff name which host gets which
    credential; the value is never in the blob."""
    blob, _ = _setup(tmp_path, cordonc_bin, src_dir, 4443)
    ex = subprocess.run([str(cordonc_bin), "explain", "--json", str(blob)],
                        capture_output=True, text=True, check=True)
    http = json.loads(ex.stdout)["layers"]["http"]
    assert http == [{"host": NAME, "port": 4443, "plain": False,
                     "credential": "CORDON_TEST_TOKEN",
                     "header": "Authorization: Bearer {}",
                     "rules": [{"method": "GET", "prefix": "/v1/"},
                               {"method": "POST", "prefix": "/v1/search"}]}]
    audit = subprocess.run([str(cordonc_bin), "audit", "-I",
                            str(src_dir / "policies"),
                            str(tmp_path / "cred.policy")],
                           capture_output=True, text=True)
    assert "credential CORDON_TEST_TOKEN" in audit.stdout, audit.stdout
    old = tmp_path / "old.policy"
    old.write_text((tmp_path / "cred.policy").read_text().replace(
        ', POST "/v1/search"', ""))
    d = subprocess.run([str(cordonc_bin), "diff", "-I",
                        str(src_dir / "policies"), str(old),
                        str(tmp_path / "cred.policy")],
                       capture_output=True, text=True)
    assert d.returncode == 1, d.stdout
    assert '+ http %s:4443: POST "/v1/search" added' % NAME in d.stdout, \
        d.stdout


def test_learn_records_hosts_without_credentials(upstream_ca, cordonc_bin,
                                                 cordon_bin, src_dir,
                                                 tmp_path):
    """Learn mode: the host a sample reached is named (network connect),
    with no credential or http rule invented for it."""
    import test_learn
    test_learn.ns_or_skip()
    d = tempfile.mkdtemp(prefix="cordon-cred-ca-", dir="/var/tmp")
    os.chmod(d, 0o755)
    ca = os.path.join(d, "ca.pem")
    shutil.copy(str(upstream_ca / "ca.pem"), ca)
    os.chmod(ca, 0o644)
    try:
        with Upstream(upstream_ca) as up:
            base = tmp_path / "base.policy"
            base.write_text('include "base/python.policy";\n'
                            'policy "base";\n')
            sample = tmp_path / "fetch.py"
            sample.write_text(
                "import ssl, urllib.request\n"
                "ctx = ssl.create_default_context(cafile=%r)\n"
                "with urllib.request.urlopen('https://%s:%d/x', "
                "context=ctx, timeout=10) as r:\n"
                "    print(r.read().decode())\n" % (ca, TUNNEL, up.port))
            out = tmp_path / "learned.policy"
            r = subprocess.run([str(cordonc_bin), "learn", "-I",
                                str(src_dir / "policies"), "--cordon",
                                str(cordon_bin), "-o", str(out), "--hosts",
                                "--resolve", "%s:127.0.0.1" % TUNNEL,
                                str(base), str(sample)],
                               capture_output=True, text=True, timeout=300)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    text = out.read_text() if out.exists() else ""
    assert r.returncode == 0, (r.stderr, text)
    assert '"%s":%d' % (TUNNEL, up.port) in text, text
    assert "credential" not in text and "\nhttp " not in text, text


@pytest.mark.parametrize("warm", [False, True])
def test_client_credentials(upstream_ca, cordon_bin, cordonc_bin, src_dir,
                            tmp_path, warm):
    """Client.run(credentials=): the value travels in cordon's own
    environment to --credential NAME, never into the run; such a run is
    cold even from a warm client.  The test-only options come from a
    wrapper standing in for cordon."""
    from client_support import import_client
    cpkg = import_client(src_dir)
    code = ("import os, sys, urllib.request\n"
            "assert 'CORDON_TEST_TOKEN' not in os.environ\n"
            "with urllib.request.urlopen('https://%s:%s/v1/x' % "
            "(sys.argv[1], sys.argv[2]), timeout=15) as r:\n"
            "    print(r.status, r.read().decode())\n")
    with Upstream(upstream_ca) as up:
        blob, _ = _setup(tmp_path, cordonc_bin, src_dir, up.port)
        pols = tmp_path / "pols"
        pols.mkdir()
        shutil.copy(blob, pols / "cred_test.cpol")
        wrap = tmp_path / "cordon"
        wrap.write_text('#!/bin/sh\nexec %s %s "$@"\n' % (
            cordon_bin, " ".join(_extra(upstream_ca))))
        os.chmod(wrap, 0o755)
        runs = tmp_path / "runs"
        runs.mkdir()
        c = cpkg.Client(pols, cordon=str(wrap), work_root=runs, warm=warm)
        try:
            for bad in ({"1X": "v"}, {"A B": "v"}, {"T": ""}):
                with pytest.raises(ValueError):
                    c.run("cred_test", code, credentials=bad)
            r = c.run("cred_test", code, args=[NAME, str(up.port)],
                      credentials={"CORDON_TEST_TOKEN": SECRET})
        finally:
            c.close()
        heads = list(up.heads)
    assert r.exit_code == 0, (r.stdout, r.stderr, r.status)
    assert r.stdout == b"200 %s\n" % BODY, r
    assert r.status.get("warm") is not True, r.status
    assert ".cordon-ca.pem" not in r.outputs, r.outputs   # cordon's
    assert sum("Authorization: Bearer " + SECRET in h for h in heads) == 1, \
        heads
    for text in (r.stdout, r.stderr, json.dumps(r.status).encode()):
        assert SECRET.encode() not in text


def test_cordon_tls_runs_http_hosts(cordon_bin, cordonc_bin, src_dir,
                                    tmp_path):
    """cordon links no OpenSSL (a static PIE relocates all of its tables
    at every start): a policy with an HTTP host is run by cordon-tls,
    found beside cordon and executed before anything of the run is made.
    Without cordon-tls such a run is refused and leaves nothing; a policy
    without HTTP hosts runs in cordon itself."""
    build = cordon_bin.parent
    assert b"OPENSSL_init_ssl" not in cordon_bin.read_bytes()
    assert b"OPENSSL_init_ssl" in (build / "cordon-tls").read_bytes()
    alone = tmp_path / "bin"
    alone.mkdir()
    shutil.copy(cordon_bin, alone / "cordon")
    pol = tmp_path / "h.policy"
    pol.write_text('include "base/python.policy";\npolicy "h";\n'
                   'network connect "%s":80;\nhttp plain "%s":80 GET "/";\n'
                   % (PLAIN, PLAIN))
    blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "h.cpol",
                             include_dirs=[src_dir / "policies"])
    plain = wu.compile_policy(cordonc_bin, src_dir / "policies" /
                              "code_gen.policy", tmp_path / "cg.cpol",
                              include_dirs=[src_dir / "policies"])
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"PATH": "/usr/bin:/bin", "TMPDIR": str(tmp)}

    def run(cordon, b):
        return subprocess.run([str(cordon), str(b), "-"], input="print(6*7)",
                              env=env, capture_output=True, text=True,
                              timeout=120)
    r = run(alone / "cordon", blob)
    assert r.returncode == 125 and "cordon-tls" in r.stderr, r.stderr
    assert r.stdout == "" and list(tmp.iterdir()) == []
    r = run(alone / "cordon", plain)
    assert (r.returncode, r.stdout) == (0, "42\n"), r.stderr
    shutil.copy(build / "cordon-tls", alone / "cordon-tls")
    r = run(alone / "cordon", blob)
    assert (r.returncode, r.stdout) == (0, "42\n"), r.stderr
    assert list(tmp.iterdir()) == []


CLIENT_SNIPPET = r'''
import json, sys, urllib.request, urllib.error
try:
    with urllib.request.urlopen("https://%s:%s/v1/q" % (sys.argv[1],
                                sys.argv[2]), timeout=15) as r:
        print(json.dumps({"got": "%d %s" % (r.status, r.read().decode())}))
except Exception as e:
    print(json.dumps({"got": "error %r" % (e,)}))
'''


def test_client_reaches_a_local_stand_in(upstream_ca, cordonc_bin,
                                         cordon_bin, src_dir, tmp_path,
                                         monkeypatch):
    """Issue 41: the README's testing recipe from Python: the client
    passes resolve= (cordon --resolve) and upstream_ca= (--upstream-ca,
    a relative path made absolute), so a credential policy is tested
    against a local TLS stand-in; without upstream_ca the stand-in's
    certificate is refused as not trusted, and nothing reaches it."""
    from client_support import import_client
    with Upstream(upstream_ca) as up:
        blob, _ = _setup(tmp_path, cordonc_bin, src_dir, up.port)
        blobs = tmp_path / "blobs"
        blobs.mkdir()
        blob.rename(blobs / "cred_test.cpol")
        runs = tmp_path / "runs"
        runs.mkdir()
        monkeypatch.chdir(upstream_ca)
        with import_client(src_dir).Client(blobs, cordon=cordon_bin,
                                           work_root=runs) as c:
            kw = dict(args=[NAME, str(up.port)],
                      credentials={"CORDON_TEST_TOKEN": SECRET},
                      resolve={NAME: "127.0.0.1"})
            ok = c.run("cred_test", CLIENT_SNIPPET, upstream_ca="ca.pem",
                       **kw)
            heads = list(up.heads)
            bad = c.run("cred_test", CLIENT_SNIPPET, **kw)
            with pytest.raises(ValueError):
                c.run("cred_test", "", resolve={"a:b": "127.0.0.1"})
        assert list(up.heads) == heads, up.heads
    assert ok.ok, (ok.reason, ok.stderr, ok.status)
    assert json.loads(ok.stdout)["got"] == "200 " + BODY.decode()
    assert len(heads) == 1 and ("Authorization: Bearer " + SECRET) in \
        heads[0], heads
    assert ok.network_refused == ()
    assert [n.why for n in bad.network_refused] == [
        "upstream certificate not trusted (its chain reaches no CA of the "
        "system's store or --upstream-ca)"], bad.status
    assert SECRET.encode() not in ok.stdout + ok.stderr + bad.stdout
