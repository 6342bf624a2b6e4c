"""Named hosts (issue 18): under the three query policies the snippet
reaches its service's name through cordon's egress proxy, and nothing
else.  A stand-in HTTPS service listens on loopback; the policy is
compiled with -D PORT=<its port>, and `cordon --resolve NAME:127.0.0.1`
maps the service's name to it for this run only (no /etc/hosts edit).
Runs as root and as uid 65534 (tests/run-pytest.sh)."""
import json
import os
import socket
import ssl
import subprocess
import threading

import pytest

import workload_util as wu

# The name each policy allows (a wildcard's: one name below it).
NAMES = {"idc_query": "api.imaging.datacommons.cancer.gov",
         "bih_query": "api.bih.cancer.gov",
         "midrc_query": "data.midrc.org"}
BODY = b"cordon-egress-ok"

SNIPPET = r'''
import errno, json, socket, ssl, sys, urllib.request
name, port = sys.argv[1], int(sys.argv[2])
ctx = ssl.create_default_context(cafile="ca.pem")
out = {}

def fetch(host, p=port):
    try:
        with urllib.request.urlopen("https://%s:%d/x" % (host, p),
                                    context=ctx, timeout=10) as r:
            return r.read().decode()
    except Exception as e:
        return "refused: %s" % type(e).__name__

def direct(family, addr):
    try:
        s = socket.socket(family, socket.SOCK_STREAM)
        s.settimeout(3)
        s.connect(addr)
        return "connected"
    except OSError as e:
        return errno.errorcode.get(e.errno, str(e.errno))

out["allowed"] = fetch(name)
try:
    import requests
    out["requests"] = requests.get("https://%s:%d/x" % (name, port),
                                   verify="ca.pem", timeout=10).text
except ImportError:
    out["requests"] = "absent"
out["other_name"] = fetch("evil.example.com")
out["other_port"] = fetch(name, 1)
out["literal"] = fetch("127.0.0.1")
out["v6_literal"] = fetch("[::1]", 443)
out["link_local"] = fetch("169.254.169.254", 80)
out["direct_v4"] = direct(socket.AF_INET, ("127.0.0.1", 443))
out["direct_port"] = direct(socket.AF_INET, ("127.0.0.1", port))
out["direct_v6"] = direct(socket.AF_INET6, ("::1", 443))
out["direct_ll"] = direct(socket.AF_INET, ("169.254.169.254", 80))
out["direct_dns"] = direct(socket.AF_INET, ("127.0.0.53", 53))
for k, args in (("udp", (socket.AF_INET, socket.SOCK_DGRAM)),
                ("raw", (socket.AF_INET, socket.SOCK_RAW, 1)),
                ("packet", (17, socket.SOCK_RAW, 0))):
    try:
        socket.socket(*args).close()
        out[k] = "allowed"
    except OSError as e:
        out[k] = errno.errorcode.get(e.errno, str(e.errno))
try:
    socket.getaddrinfo("exfil-%s.example.com" % "data", 443)
    out["lookup"] = "resolved"
except OSError as e:
    out["lookup"] = "failed"
print(json.dumps(out))
'''


@pytest.fixture(scope="module")
def cert(tmp_path_factory):
    d = tmp_path_factory.mktemp("cert")
    san = ",".join("DNS:" + n for n in NAMES.values())
    p = subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048",
                        "-nodes", "-days", "1", "-subj", "/CN=cordon-test",
                        "-addext", "subjectAltName=" + san,
                        "-keyout", str(d / "key.pem"),
                        "-out", str(d / "ca.pem")], capture_output=True)
    if p.returncode != 0:
        pytest.skip("openssl cannot make a test certificate: %s" % p.stderr)
    return d


class Service:
    """The stand-in: HTTPS on 127.0.0.1, one fixed body per request."""

    def __init__(self, cert):
        self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self.ctx.load_cert_chain(str(cert / "ca.pem"), str(cert / "key.pem"))
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.hits = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)

    def serve(self):
        while not self.stop.is_set():
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            try:
                c.settimeout(5)
                with self.ctx.wrap_socket(c, server_side=True) as t:
                    t.recv(65536)
                    self.hits += 1
                    t.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                              b"Connection: close\r\n\r\n%s" %
                              (len(BODY), BODY))
            except (OSError, ssl.SSLError):
                c.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


@pytest.mark.parametrize("tool", sorted(NAMES))
def test_named_host_only(tool, cert, cordon_bin, cordonc_bin, src_dir,
                         tmp_path):
    name = NAMES[tool]
    work = tmp_path / "work"
    work.mkdir()
    (work / "ca.pem").write_bytes((cert / "ca.pem").read_bytes())
    with Service(cert) as svc:
        blob = wu.compile_policy(cordonc_bin,
                                 src_dir / "policies" / (tool + ".policy"),
                                 tmp_path / (tool + ".cpol"),
                                 defines=[("PORT", svc.port)])
        r = wu.run_cordon(cordon_bin, blob, SNIPPET, work,
                          args=(name, svc.port), timeout=120,
                          extra=["--resolve", name + ":127.0.0.1"])
        hits = svc.hits
    assert r.returncode == 0, r.describe()
    got = r.json()
    assert got["allowed"] == BODY.decode(), got
    assert got["requests"] in (BODY.decode(), "absent"), got
    for k in ("other_name", "other_port", "literal", "v6_literal",
              "link_local"):
        assert got[k].startswith("refused"), (k, got)
    for k in ("direct_v4", "direct_port", "direct_v6", "direct_ll",
              "direct_dns"):
        assert got[k] != "connected", (k, got)
    for k in ("udp", "raw", "packet"):
        assert got[k] == "EAFNOSUPPORT", (k, got)
    assert got["lookup"] == "failed", got
    # only the allowed fetches reached the service
    assert hits == (2 if got["requests"] != "absent" else 1), hits
    st = r.status
    assert "net" in st["layers"]["namespaces"], st
    assert st["egress"]["connections"] >= 6, st
    refused = {e["dest"]: e["why"] for e in st["network_refused"]}
    dests = [e["dest"] for e in st["network_refused"]]
    assert any(d.startswith("evil.example.com:") for d in dests), st
    assert all(e["why"] == "not a host the policy names"
               for e in st["network_refused"]), st
    for dest in ("%s:1" % name, "[::1]:443", "169.254.169.254:80"):
        assert dest in refused, (dest, st)
    assert st["network_refused_dropped"] == 0


def test_named_hosts_refuse_without_netns(cert, cordon_bin, cordonc_bin,
                                          src_dir, tmp_path):
    """No network namespace (here: --no-namespaces): named hosts fail
    closed, before anything runs."""
    blob = wu.compile_policy(cordonc_bin,
                             src_dir / "policies" / "idc_query.policy",
                             tmp_path / "idc.cpol")
    work = tmp_path / "w"
    work.mkdir()
    r = wu.run_cordon(cordon_bin, blob, "print('ran')\n", work,
                      extra=["--no-namespaces"])
    assert r.returncode == 125, r.describe()
    assert "ran" not in r.stdout
    assert "network namespace" in r.stderr, r.stderr


def test_resolve_option_checked(cordon_bin, tmp_path):
    for bad in ("nocolon", "UPPER.example.org:127.0.0.1",
                "a.example.org:not-an-ip", ":127.0.0.1"):
        p = subprocess.run([str(cordon_bin), "--resolve", bad, "x.cpol",
                            "-"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL)
        assert p.returncode != 0 and "usage" in p.stderr.lower(), (bad, p)


def _proxy_of(cordon_pid):
    """The egress proxy: a child of cordon in cordon's own PID namespace
    (the run's init is the child in a new one: two NSpid entries)."""
    for task in os.listdir("/proc/%d/task" % cordon_pid):
        try:
            kids = open("/proc/%d/task/%s/children" % (cordon_pid, task)
                        ).read().split()
        except OSError:
            continue
        for k in kids:
            st = open("/proc/%s/status" % k).read()
            nspid = [l for l in st.splitlines() if l.startswith("NSpid:")]
            if nspid and len(nspid[0].split()) == 2:
                return st
    return None


def test_proxy_is_confined(cordon_bin, cordonc_bin, src_dir, tmp_path):
    """The proxy parses what the run sends, outside the run's sandbox: it
    holds no capability (as root too) and has no_new_privs.  (Its own
    Landlock domain, no file and TCP to the policy's ports only, cannot
    be seen from outside; launcher/landlock.c landlock_confine.)"""
    blob = wu.compile_policy(cordonc_bin,
                             src_dir / "policies" / "idc_query.policy",
                             tmp_path / "idc.cpol")
    snip = tmp_path / "s.py"
    snip.write_text("import time\ntime.sleep(3)\n")
    p = subprocess.Popen([str(cordon_bin), str(blob), str(snip)],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        st = None
        for _ in range(100):
            st = _proxy_of(p.pid)
            if st and "NoNewPrivs:\t1" in st:
                break
            import time
            time.sleep(0.03)
        assert st, "no proxy process found"
        caps = {l.split(":")[0]: l.split()[1] for l in st.splitlines()
                if l.startswith("Cap")}
        assert caps["CapEff"] == caps["CapPrm"] == "0" * 16, caps
        assert "NoNewPrivs:\t1" in st, st
    finally:
        p.wait(30)
