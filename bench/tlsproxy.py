"""Section 9: the added cost of a connection whose TLS the egress proxy
ends (a host with a credential and http rules) against one it tunnels,
in one cordon run, against the same loopback TLS stand-in: each sample
is a fresh connection, its TLS handshake (with the stand-in, or with the
proxy's leaf and then the proxy's own handshake upstream) and one GET to
the end of its answer.  The two kinds alternate, so drift touches both
alike; medians; the ratio is terminated over tunnelled."""
import json
import os
import subprocess
import sys
import tempfile

# The stand-in CA and upstream, shared with the tests (tests/tls_util.py).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "tests"))
import tls_util  # noqa: E402

TUNNEL = "tunnel.bench.example.org"
ENDED = "cred.bench.example.org"

SNIPPET = r'''
import http.client, json, os, ssl, sys, time
port, n, ca = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
tun = ssl.create_default_context(cafile=ca)        # the stand-in's CA
end = ssl.create_default_context()                 # the run's bundle
out = {"tunnelled": [], "terminated": []}

def one(host, ctx):
    t0 = time.perf_counter()
    c = http.client.HTTPSConnection(host, port, context=ctx, timeout=20)
    c.set_tunnel(host, port)
    c._tunnel_host, c.host, c.port = host, "127.0.0.1", 3128
    c.request("GET", "/q")
    r = c.getresponse()
    assert r.read() == b"ok" and r.status == 200, r.status
    c.close()
    return time.perf_counter() - t0

for i in range(n):
    out["tunnelled"].append(one("%s", tun))
    out["terminated"].append(one("%s", end))
print(json.dumps(out))
''' % (TUNNEL, ENDED)


def _standin(d):
    """The loopback TLS stand-in for both names, its CA in d: answers
    "ok", a thread per connection."""
    tls_util.make_ca(d, [TUNNEL, ENDED], cn="bench CA")
    return tls_util.Upstream(d, b"ok", threaded=True, timeout=20)


def tls_table(b, n, median_ms, fmt):
    """n samples of each kind (2n connections: under the run's 256)."""
    with tempfile.TemporaryDirectory() as d, \
            _standin(d) as srv:
        port = srv.port
        pol = os.path.join(d, "p.policy")
        with open(pol, "w") as f:
            f.write('include "%s/policies/base/python.policy";\n'
                    'policy "bench_tls";\n'
                    'network connect "%s":%d, "%s":%d;\n'
                    'credential "BENCH_TOKEN" header "Authorization: '
                    'Bearer {}" for "%s":%d;\n'
                    'http "%s":%d GET "/";\n'
                    % (os.getcwd(), TUNNEL, port, ENDED, port, ENDED, port,
                       ENDED, port))
        blob = os.path.join(d, "p.cpol")
        subprocess.run([os.path.join(b, "cordonc"), "compile", "-o", blob,
                        pol], check=True)
        snip = os.path.join(d, "s.py")
        with open(snip, "w") as f:
            f.write(SNIPPET)
        work = os.path.join(d, "w")
        os.mkdir(work)
        import shutil
        shutil.copy(d + "/ca.pem", work + "/bench-ca.pem")
        env = dict(os.environ, BENCH_TOKEN="bench-token-value")
        p = subprocess.run([os.path.join(b, "cordon"), "--workdir", work,
                            "--resolve", TUNNEL + ":127.0.0.1",
                            "--resolve", ENDED + ":127.0.0.1",
                            "--credential", "BENCH_TOKEN",
                            "--upstream-ca", d + "/ca.pem", blob, snip,
                            str(port), str(n), "bench-ca.pem"],
                           capture_output=True, text=True, timeout=600,
                           env=env)
    if p.returncode != 0:
        raise RuntimeError("TLS proxy bench run failed: %s" %
                           p.stderr[-2000:])
    got = json.loads(p.stdout.strip().splitlines()[-1])
    tm, em = median_ms(got["tunnelled"]), median_ms(got["terminated"])
    return ("Egress proxy: a request through a terminated connection "
            "against a tunnelled one (median of %d each)" % n,
            ["path", "median", "added by ending TLS", "ratio"],
            [["tunnelled (CONNECT, the run's TLS to the host)",
              fmt(tm, " ms", 2), "", ""],
             ["terminated (credential and http rules)", fmt(em, " ms", 2),
              fmt(em - tm, " ms", 2), fmt(em / tm, "x")]])
