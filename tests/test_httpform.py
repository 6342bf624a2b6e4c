"""HTTP rules see one spelling of a path (issue 38, item 3).  With
`http NAME GET "/v1/"`, a request target not in normal form (dot or
';' segments, a fragment, an encoded '.', '/' or ';', "%u" escapes,
overlong UTF-8) is refused 400 before the rule is matched, and a
method-override or URL-rewrite field (or a header name with '_') is
refused: none of them reaches the upstream, and each is listed in the
status report with its method and path.  The snippet speaks HTTP itself
(CONNECT, then TLS with the run's CA, then the request line as written)
so that no client library folds or quotes the target first.  A
stand-in HTTPS upstream on loopback (tests/tls_util.py), as in
test_credentials.py.  Runs as root and as uid 65534
(tests/run-pytest.sh).  Also for `http plain` (absolute-form in clear),
where a head that does not parse (the '_' field) names no host and is
refused as any bad plain head: 405, "not a CONNECT request"."""
import pytest

import tls_util
import workload_util as wu

NAME = "api.example.org"

POLICY = '''include "base/python.policy";
policy "httpform_test";
network connect "%(name)s":%(port)d;
http %(plain)s"%(name)s":%(port)d GET "/v1/";
'''

SNIPPET = r'''
import json, os, socket, ssl, sys
name, port, plain = sys.argv[1], int(sys.argv[2]), sys.argv[4] == "plain"
proxy = os.environ["HTTPS_PROXY"].rsplit("/", 1)[-1].rsplit(":", 1)
ctx = ssl.create_default_context()      # SSL_CERT_FILE: the run's CA

def ask(target, fields=""):
    s = socket.create_connection((proxy[0], int(proxy[1])), timeout=20)
    if plain:       # absolute-form, in clear, to the proxy itself
        s.sendall(("GET http://%s:%d%s HTTP/1.1\r\nHost: %s:%d\r\n%s\r\n" %
                   (name, port, target, name, port, fields)).encode("latin-1"))
        return answer(s)
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n" %
              (name.encode(), port, name.encode(), port))
    got = b""
    while b"\r\n\r\n" not in got:
        b = s.recv(4096)
        if not b:
            return "no tunnel: %r" % got
        got += b
    if not got.startswith(b"HTTP/1.1 200"):
        return "no tunnel: %r" % got
    t = ctx.wrap_socket(s, server_hostname=name)
    t.sendall(("GET %s HTTP/1.1\r\nHost: %s\r\n%s\r\n" %
               (target, name, fields)).encode("latin-1"))
    return answer(t)

def answer(t):
    got = b""
    while True:
        try:
            b = t.recv(65536)
        except (OSError, ssl.SSLError):
            break
        if not b:
            break
        got += b
    t.close()
    head, _, body = got.decode("latin-1").partition("\r\n\r\n")
    return head.split("\r\n")[0][9:12] + " " + body.strip()

out = {}
for target, fields in json.loads(sys.argv[3]):
    out[target] = ask(target, fields)
print(json.dumps(out))
'''

# target -> the answer's status; each refused one listed with its why
REFUSED = {
    "/v1/..;/admin": "400",
    "/v1/.;/..;/": "400",
    "/v1/..#/admin": "400",
    "/v1/%252e%252e/admin": "400",
    "/v1/%c0%ae%c0%ae/admin": "400",
    "/v1/%u002e%u002e/admin": "400",
    "/v1/..%3b/admin": "400",
    "/v1//admin": "400",
}
TARGET_WHY = "request target not in normal form"
FIELDS = {  # target -> (the field sent, status, why)
    "/v1/override": ("X-HTTP-Method-Override: DELETE\r\n", "403",
                     "method-override or URL-rewrite header"),
    "/v1/rewrite": ("X-Original-URL: /admin\r\n", "403",
                    "method-override or URL-rewrite header"),
    "/v1/underscore": ("Transfer_Encoding: chunked\r\n", "400",
                       "header name with '_'"),
}
FINE = "/v1/fine?q=../x;y"


@pytest.fixture(scope="module")
def upstream_ca(tmp_path_factory):
    d = tmp_path_factory.mktemp("upca")
    try:
        tls_util.make_ca(d, [NAME])
    except tls_util.CAError as e:
        pytest.skip("openssl cannot make the stand-in's CA: %s" % e)
    return d


@pytest.mark.parametrize("mode", ["tls", "plain"])
def test_unnormal_targets_and_rewrite_fields_never_reach_upstream(
        mode, upstream_ca, cordon_bin, cordonc_bin, src_dir, tmp_path):
    """tls: CONNECT, the proxy ends the run's TLS; plain: `http plain`,
    the request in absolute-form to the proxy, in clear."""
    import json
    asks = [[t, ""] for t in REFUSED] + \
        [[t, f[0]] for t, f in FIELDS.items()] + [[FINE, ""]]
    plain = mode == "plain"
    with tls_util.Upstream(None if plain else upstream_ca,
                           b"upstream-ok") as up:
        pol = tmp_path / "form.policy"
        pol.write_text(POLICY % {"name": NAME, "port": up.port,
                                 "plain": "plain " if plain else ""})
        blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "form.cpol",
                                 include_dirs=[src_dir / "policies"])
        work = tmp_path / "work"
        work.mkdir()
        r = wu.run_cordon(cordon_bin, blob, SNIPPET, work,
                          args=(NAME, up.port, json.dumps(asks), mode),
                          timeout=180,
                          extra=["--resolve", NAME + ":127.0.0.1",
                                 "--upstream-ca", str(upstream_ca / "ca.pem")])
        heads = list(up.heads)
    assert r.returncode == 0, r.describe()
    got = r.json()
    # the one target in normal form (its query may hold anything) passes
    assert got[FINE] == "200 upstream-ok", got
    assert len(heads) == 1 and heads[0].startswith("GET %s " % FINE), heads
    for t, code in REFUSED.items():
        assert got[t].startswith(code + " "), (t, got[t])
        assert TARGET_WHY in got[t], (t, got[t])
    refused = [(e.get("method"), e.get("path"), e["why"])
               for e in r.status["network_refused"]]
    for t in REFUSED:
        assert ("GET", t, TARGET_WHY) in refused, (t, refused)
    for t, (_, code, why) in FIELDS.items():
        if plain and t == "/v1/underscore":
            # a plain head that does not parse names no host: refused
            # before any is chosen, as any bad plain head (proxy.c)
            assert got[t].startswith("405 "), (t, got[t])
            assert (None, None, "not a CONNECT request") in refused
            continue
        assert got[t].startswith(code + " ") and why in got[t], (t, got[t])
        assert ("GET", t, why) in refused, (t, refused)
