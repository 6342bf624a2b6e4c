"""Named hosts (issue 18): under the three query policies the snippet
reaches its service's name through cordon's egress proxy, and nothing
else.  A stand-in HTTPS service listens on loopback; the policy is
compiled with -D PORT=<its port>, and `cordon --resolve NAME:127.0.0.1`
maps the service's name to it for this run only (no /etc/hosts edit).
Runs as root and as uid 65534 (tests/run-pytest.sh)."""
import json
import os
import socket
import subprocess
import threading

import pytest

import tls_util
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
    """A CA (ca.pem, the snippet's) and a leaf for every name."""
    d = tmp_path_factory.mktemp("cert")
    try:
        tls_util.make_ca(d, list(NAMES.values()), cn="cordon-test CA")
    except tls_util.CAError as e:
        pytest.skip("openssl cannot make a test certificate: %s" % e)
    return d


def Service(cert):
    """The stand-in: HTTPS on 127.0.0.1, one fixed body per request
    (.hits: how many it answered)."""
    return tls_util.Upstream(cert, BODY, timeout=5)


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


def _idc_run_dir(cordonc_bin, src_dir, tmp_path):
    """idc_query compiled as it ships, and an empty workdir."""
    blob = wu.compile_policy(cordonc_bin,
                             src_dir / "policies" / "idc_query.policy",
                             tmp_path / "idc.cpol")
    work = tmp_path / "w"
    work.mkdir()
    return blob, work


def test_named_hosts_refuse_without_netns(cert, cordon_bin, cordonc_bin,
                                          src_dir, tmp_path):
    """No network namespace (here: --no-namespaces): named hosts fail
    closed, before anything runs."""
    blob, work = _idc_run_dir(cordonc_bin, src_dir, tmp_path)
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


# ---- issue 24: names checked as the compiler checks them; the proxy's
# processes and DNS queries bounded ---------------------------------------

CONNECTS = r'''
import json, socket, sys
out = []
for t in sys.argv[1:]:
    s = socket.create_connection(("127.0.0.1", 3128), timeout=60)
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (t.encode(),
                                                            t.encode()))
    data = b""
    while b"\r\n" not in data:
        b = s.recv(4096)
        if not b:
            break
        data += b
    out.append(data.split(b"\r\n")[0].decode())
    s.close()
print(json.dumps({"lines": out}))
'''


class Upstream(tls_util.Server):
    """A plain TCP stand-in for an allowed host: each connection is held
    open until release(), then gets b"released" and is closed.  held:
    connections open now; most: the most at once."""

    def __init__(self):
        super().__init__(threaded=True, backlog=128)
        self.lock = threading.Lock()
        self.held = self.most = self.total = 0
        self.go = threading.Event()

    def one(self, c):
        with self.lock:
            self.held += 1
            self.total += 1
            self.most = max(self.most, self.held)
        try:
            self.go.wait()
            c.sendall(b"released")
        except OSError:
            pass
        finally:
            # not held from before the close: the proxy's next connection
            # can only come after it (its process ends at the EOF), so a
            # thread switch between close and count never shows one more
            with self.lock:
                self.held -= 1
            c.close()

    def release(self):
        self.go.set()

    def __exit__(self, *exc):
        self.go.set()
        super().__exit__(*exc)


def test_connect_names_checked_as_the_compiler_does(cordon_bin, cordonc_bin,
                                                    src_dir, tmp_path):
    """Under "*.googleapis.com" the proxy refuses, as no host name, every
    target the compiler would refuse as a rule (a leading or trailing
    '-', an empty label, a 64-byte label), lists it as asked, and never
    looks it up; a 63-byte label, any case and the root's dot pass."""
    with Upstream() as up:
        up.release()
        blob = wu.compile_policy(cordonc_bin,
                                 src_dir / "policies" / "idc_query.policy",
                                 tmp_path / "idc.cpol",
                                 defines=[("PORT", up.port)])
        p = up.port
        bad = ["-x.googleapis.com", "x-.googleapis.com", "a..googleapis.com",
               "a" * 64 + ".googleapis.com"]
        good = ["a" * 63 + ".googleapis.com", "OK.GoogleAPIs.com."]
        work = tmp_path / "w"
        work.mkdir()
        r = wu.run_cordon(cordon_bin, blob, CONNECTS, work, timeout=120,
                          args=["%s:%d" % (h, p) for h in bad + good],
                          extra=["--resolve", good[0] + ":127.0.0.1",
                                 "--resolve", "ok.googleapis.com:127.0.0.1"])
    assert r.returncode == 0, r.describe()
    got = r.json()["lines"]
    for h, line in zip(bad, got):
        assert line.startswith("HTTP/1.1 400"), (h, got)
    for h, line in zip(good, got[len(bad):]):
        assert line.startswith("HTTP/1.1 200"), (h, got)
    refused = [(e["dest"], e["why"]) for e in r.status["network_refused"]]
    want = [("%s:%d" % (h, p), "not a host name") for h in bad]
    assert refused == want, r.status
    assert r.status["egress"]["dns_queries"] == 0, r.status


def _proxy_pid(cordon_pid):
    """The egress proxy: a child of cordon in cordon's own PID namespace
    (the run's init is in a new one: two NSpid entries)."""
    for task in os.listdir("/proc/%d/task" % cordon_pid):
        try:
            kids = open("/proc/%d/task/%s/children" % (cordon_pid, task)
                        ).read().split()
        except OSError:
            continue
        for k in kids:
            try:
                st = open("/proc/%s/status" % k).read()
            except OSError:
                continue
            nspid = [l for l in st.splitlines() if l.startswith("NSpid:")]
            if nspid and len(nspid[0].split()) == 2:
                return int(k)
    return None


def _children(pid):
    try:
        return open("/proc/%d/task/%d/children" % (pid, pid)).read().split()
    except OSError:
        return []


def _waiting(pid):
    """Is the proxy blocked waiting for a connection process to end?  Its
    one blocking wait4 (wait4's number, from /proc/PID/syscall, as root);
    where cordon's processes are not dumpable (not root), asleep (state
    S): with connections pending, accept does not sleep, so it is the
    wait."""
    import platform
    nr = {"x86_64": "61", "aarch64": "260"}.get(platform.machine())
    try:
        if nr:
            return open("/proc/%d/syscall" % pid).read().split()[0] == nr
    except PermissionError:
        pass
    except (OSError, IndexError):
        return False
    try:
        stat = open("/proc/%d/stat" % pid).read()
    except OSError:
        return False
    return stat[stat.rindex(")") + 2] == "S"


MANY = r'''
import json, selectors, socket, sys
name, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
socks = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=120)
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\n\r\n" % (name.encode(), port))
    socks.append(s)
print("sent", flush=True)       # all n asked: each served or pending
ok = 0
for s in socks:
    data = b""
    while True:
        b = s.recv(4096)
        if not b:
            break
        data += b
    ok += data.startswith(b"HTTP/1.1 200") and data.endswith(b"released")
print(json.dumps({"ok": ok}))
'''


def test_proxy_processes_within_pids_bound(cordon_bin, cordonc_bin, src_dir,
                                           tmp_path):
    """40 CONNECTs at once (one thread: the run has 16 pids) to an
    allowed host that holds each connection open: the proxy, blocked
    waiting for a connection process to end, has at most 3 of them (its
    share of the bound, 16 / 4, with itself; the run's own processes get
    the other 12), each one holding its connection; once the host lets
    them go, every one of the 40 is served."""
    name = NAMES["idc_query"]
    with Upstream() as up:
        blob = wu.compile_policy(cordonc_bin,
                                 src_dir / "policies" / "idc_query.policy",
                                 tmp_path / "idc.cpol",
                                 defines=[("PORT", up.port)])
        work = tmp_path / "w"
        work.mkdir()
        snip = tmp_path / "many.py"
        snip.write_text(MANY)
        status = tmp_path / "st.json"
        proc = subprocess.Popen(
            [str(cordon_bin), "--workdir", str(work), "--status-file",
             str(status), "--limit", "pids=16", "--resolve",
             name + ":127.0.0.1", str(blob), str(snip), name, str(up.port),
             "40"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL, text=True)
        lines, sent = [], threading.Event()

        def read():
            for line in proc.stdout:
                lines.append(line)
                if line.strip() == "sent":
                    sent.set()
        reader = threading.Thread(target=read, daemon=True)
        reader.start()
        try:
            import time
            most, saturated, proxy = 0, None, None
            end = time.monotonic() + 60      # "never got there", not speed
            while time.monotonic() < end and proc.poll() is None:
                time.sleep(0.01)                 # pacing only
                proxy = proxy or _proxy_pid(proc.pid)
                if proxy is None:
                    continue
                kids = _children(proxy)
                most = max(most, len(kids))
                # Every connection asked, every process holding its
                # connection, the proxy waiting for one to end: as many
                # as it will ever have at once.
                if sent.is_set() and up.held == len(kids) and \
                        _waiting(proxy) and len(_children(proxy)) == \
                        len(kids):
                    saturated = len(kids)
                    break
            assert proxy, "no proxy process found"
            assert saturated is not None, (most, up.held, up.total)
            assert 1 + saturated <= 4, (saturated, up.held)
            assert 1 + most <= 4, most
            assert up.most <= 3, up.most
        finally:
            up.release()
            proc.wait(180)
            reader.join(30)
            err = proc.stderr.read()
    assert proc.returncode == 0, (lines, err)
    assert json.loads(lines[-1]) == {"ok": 40}, (lines, err)
    assert up.most <= 3, up.most
    assert up.total == 40, up.total
    st = json.loads(status.read_text())
    assert st["bounds"]["pids"]["proxy"] == 4, st["bounds"]


FORKS = r"""
import os, sys, time
n = 0
try:
    while n < 100:
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        n += 1
except OSError as e:
    print("refused", e.errno, file=sys.stderr)
print(n)
"""


def test_run_and_proxy_together_within_pids_bound(cordon_bin, cordonc_bin,
                                                  src_dir, tmp_path):
    """The proxy's share comes out of the pids bound: under 16 pids
    with named hosts, the run's own processes (init, the snippet and its
    children) number at most 12, so that with the proxy's 4 they stay
    within 16 (they used to get all 16, the proxy 16 more)."""
    blob, work = _idc_run_dir(cordonc_bin, src_dir, tmp_path)
    r = wu.run_cordon(cordon_bin, blob, FORKS, work, timeout=120,
                      extra=["--limit", "pids=16", "--timeout", "20"])
    assert r.returncode == 0, r.describe()
    pids = r.status["bounds"]["pids"]
    assert pids["proxy"] == 4, pids
    if not pids["by"].startswith("cgroup"):
        pytest.skip("no pids cgroup here (%s): the run's processes are "
                    "bounded per uid, not per run" % pids["reason"])
    forks = int(r.stdout.split()[-1])
    assert "refused" in r.stderr, r.describe()
    # the snippet and its init count too
    assert 2 + forks <= 16 - pids["proxy"], (forks, pids)


def test_named_hosts_need_a_process_beside_the_proxy(cordon_bin,
                                                     cordonc_bin, src_dir,
                                                     tmp_path):
    blob, work = _idc_run_dir(cordonc_bin, src_dir, tmp_path)
    r = wu.run_cordon(cordon_bin, blob, "print('ran')\n", work,
                      extra=["--limit", "pids=2"])
    assert r.returncode == 125, r.describe()
    assert "ran" not in r.stdout
    assert "leaves no process for the run beside the egress proxy" in \
        r.stderr, r.stderr


class FakeDNS:
    """A name server for the proxy: UDP port 53 on a loopback address of
    its own (127.x.y.z), which /etc/resolv.conf names inside a mount
    namespace made for one cordon (see dns_cordon).  Answers A queries
    with 10.0.0.1 (TTL 300) and AAAA queries with nothing; with
    mismatch=True it first sends an answer to another question (with
    10.0.0.1), then the right one with no address.  queries: every
    (name, type) asked."""

    def __init__(self, mismatch=False):
        import random
        self.mismatch = mismatch
        self.queries = []
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        for _ in range(20):
            self.addr = "127.%d.%d.%d" % (random.randrange(1, 255),
                                          random.randrange(0, 255),
                                          random.randrange(2, 255))
            try:
                self.sock.bind((self.addr, 53))
                break
            except OSError:
                continue
        else:
            self.sock.close()
            pytest.skip("no loopback address free for port 53 (root?)")
        self.sock.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)

    @staticmethod
    def qname(msg):
        labels, at = [], 12
        while msg[at]:
            labels.append(msg[at + 1:at + 1 + msg[at]].decode("ascii",
                                                              "replace"))
            at += 1 + msg[at]
        return ".".join(labels), at + 1

    @staticmethod
    def reply(msg, question, a):
        rr = (b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x01\x2c\x00\x04" +
              socket.inet_aton("10.0.0.1")) if a else b""
        return (msg[:2] + b"\x81\x80\x00\x01" +
                (b"\x00\x01" if a else b"\x00\x00") + b"\x00\x00\x00\x00" +
                question + rr)

    def serve(self):
        import struct
        while not self.stop.is_set():
            try:
                msg, peer = self.sock.recvfrom(2048)
            except OSError:
                continue
            try:
                name, end = self.qname(msg)
                qtype = struct.unpack(">H", msg[end:end + 2])[0]
            except (IndexError, struct.error):
                continue
            self.queries.append((name.lower(), qtype))
            question = msg[12:end + 4]
            if self.mismatch:
                other = b"\x05other\x0agoogleapis\x03com\x00" + \
                    msg[end:end + 4]
                self.sock.sendto(self.reply(msg, other, True), peer)
                self.sock.sendto(self.reply(msg, question, False), peer)
            else:
                self.sock.sendto(self.reply(msg, question, qtype == 1),
                                 peer)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


def dns_cordon(cordon_bin, dns, tmp_path):
    """A cordon that reads a resolv.conf naming dns: a script that runs
    it in a mount namespace of its own with that file bound over
    /etc/resolv.conf (root only: port 53 and the mount)."""
    if not os.path.isfile("/etc/resolv.conf"):
        pytest.skip("no /etc/resolv.conf to bind over")
    conf = tmp_path / "resolv.conf"
    conf.write_text("nameserver %s\n" % dns.addr)
    wrap = tmp_path / "cordon-dns"
    wrap.write_text('#!/bin/sh\nexec unshare --mount --propagation private '
                    '-- sh -c \'mount --bind "$0" /etc/resolv.conf && exec '
                    '"$@"\' %s %s "$@"\n' % (conf, cordon_bin))
    wrap.chmod(0o755)
    p = subprocess.run([str(wrap), "--version"], capture_output=True)
    if p.returncode != 0:
        pytest.skip("unshare --mount cannot run here: %s" % p.stderr)
    return wrap


def _root_only():
    if os.geteuid() != 0:
        pytest.skip("a fake name server needs root (port 53, a mount "
                    "namespace for /etc/resolv.conf)")


def test_dns_answer_to_another_question_ignored(cordon_bin, cordonc_bin,
                                                src_dir, tmp_path):
    """A reply with the query's id but another question (naming
    10.0.0.1) is not the answer: the proxy waits on, takes the real one
    (no address) and refuses for that, not for a private address."""
    _root_only()
    with FakeDNS(mismatch=True) as dns:
        wrap = dns_cordon(cordon_bin, dns, tmp_path)
        blob = wu.compile_policy(cordonc_bin,
                                 src_dir / "policies" / "idc_query.policy",
                                 tmp_path / "idc.cpol")
        work = tmp_path / "w"
        work.mkdir()
        r = wu.run_cordon(wrap, blob, CONNECTS, work, timeout=120,
                          args=["mismatch.googleapis.com:443"])
        asked = list(dns.queries)
    assert r.returncode == 0, r.describe()
    assert r.json()["lines"][0].startswith("HTTP/1.1 403"), r.json()
    assert ("mismatch.googleapis.com", 1) in asked, asked
    assert r.status["network_refused"] == [
        {"dest": "mismatch.googleapis.com:443", "why": "no address"}], \
        r.status


DISTINCT = r'''
import json, socket, sys
codes = {}
names = ["same.googleapis.com"] * 5 + \
    ["n%d.googleapis.com" % i for i in range(600)]
for name in names:
    s = socket.create_connection(("127.0.0.1", 3128), timeout=60)
    s.sendall(b"CONNECT %s:443 HTTP/1.1\r\n\r\n" % name.encode())
    data = b""
    while b"\r\n" not in data:
        b = s.recv(4096)
        if not b:
            break
        data += b
    code = data.split(b" ")[1].decode() if data else "closed"
    codes[code] = codes.get(code, 0) + 1
    s.close()
print(json.dumps(codes))
'''


def test_dns_queries_bounded(cordon_bin, cordonc_bin, src_dir, tmp_path):
    """605 CONNECTs under "*.googleapis.com": one name 5 times, then 600
    distinct ones.  The name server sees at most 64 queries in all (the
    run's budget), the repeated name's answer is kept (two queries, A
    and AAAA, not ten), the status counts what was sent, and every
    connection is refused and counted."""
    _root_only()
    with FakeDNS() as dns:
        wrap = dns_cordon(cordon_bin, dns, tmp_path)
        blob = wu.compile_policy(cordonc_bin,
                                 src_dir / "policies" / "idc_query.policy",
                                 tmp_path / "idc.cpol")
        work = tmp_path / "w"
        work.mkdir()
        r = wu.run_cordon(wrap, blob, DISTINCT, work, timeout=300)
        asked = list(dns.queries)
    assert r.returncode == 0, r.describe()
    codes = r.json()
    assert "200" not in codes and sum(codes.values()) == 605, codes
    assert len(asked) <= 64, len(asked)
    assert asked.count(("same.googleapis.com", 1)) == 1, asked[:10]
    assert asked.count(("same.googleapis.com", 28)) == 1, asked[:10]
    st = r.status
    assert st["egress"]["dns_queries"] == len(asked), st["egress"]
    assert len(st["network_refused"]) + st["network_refused_dropped"] \
        == 605, st


REFUSAL = r'''
import json, socket, sys
s = socket.create_connection(("127.0.0.1", 3128), timeout=60)
s.sendall(b"CONNECT evil.example.com:443 HTTP/1.1\r\n"
          b"Host: evil.example.com:443\r\n\r\n")
data = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    data += b
print(json.dumps({"answer": data.decode("latin-1")}))
'''


def test_refusal_says_who_and_why(cordon_bin, cordonc_bin, src_dir,
                                  tmp_path):
    """A refused tunnel is not a bare 403: the answer names cordon, the
    host and why, in a header and in its body (issue 37: refusals a
    model can act on), the same words the status lists."""
    blob = wu.compile_policy(cordonc_bin,
                             src_dir / "policies" / "idc_query.policy",
                             tmp_path / "idc.cpol")
    work = tmp_path / "w"
    work.mkdir()
    r = wu.run_cordon(cordon_bin, blob, REFUSAL, work, timeout=120)
    assert r.returncode == 0, r.describe()
    head, _, body = r.json()["answer"].partition("\r\n\r\n")
    lines = head.split("\r\n")
    assert lines[0] == "HTTP/1.1 403 Forbidden", head
    assert "X-Cordon-Refused: not a host the policy names" in lines, head
    assert ("Content-Length: %d" % len(body.encode("latin-1"))) in lines, \
        head
    assert body == ("cordon refused evil.example.com:443: not a host the "
                    "policy names\n"), body
    assert r.status["network_refused"] == [
        {"dest": "evil.example.com:443",
         "why": "not a host the policy names"}], r.status


REFUSED_THEN_FAIL = r'''
import socket, sys
for host in (b"evil.example.com:443", b"odd\x1b[2J.example.com:443"):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=60)
    s.sendall(b"CONNECT " + host + b" HTTP/1.1\r\nHost: " + host +
              b"\r\n\r\n")
    while s.recv(4096):
        pass
sys.exit(int(sys.argv[1]))
'''


@pytest.mark.parametrize("code", [1, 0])
def test_refusals_said_after_a_failed_run(code, cordon_bin, cordonc_bin,
                                          src_dir, tmp_path):
    """Issue 41: what the proxy refused is on cordon's stderr after a run
    that failed, as seccomp's denials are (the status's words, the run's
    bytes escaped: it chose the host), and nothing after a run that
    passed; the Python client's RunResult lists the same refusals."""
    blob = wu.compile_policy(cordonc_bin,
                             src_dir / "policies" / "idc_query.policy",
                             tmp_path / "idc.cpol")
    work = tmp_path / "w"
    work.mkdir()
    r = wu.run_cordon(cordon_bin, blob, REFUSED_THEN_FAIL, work,
                      args=[code], timeout=120)
    assert r.returncode == code, r.describe()
    said = [ln for ln in r.stderr.splitlines()
            if ln.startswith("cordon: network refused")]
    whys = [(e["dest"], e["why"]) for e in r.status["network_refused"]]
    assert whys[0] == ("evil.example.com:443",
                       "not a host the policy names"), whys
    assert len(whys) == 2, whys
    if code == 0:
        assert said == [], r.stderr
        return
    assert said[0] == ("cordon: network refused evil.example.com:443: "
                       "not a host the policy names"), r.stderr
    assert len(said) == 2, r.stderr
    assert "\x1b" not in r.stderr, r.stderr
    assert ": " + whys[1][1] in said[1], (said, whys)

    # The Python client: RunResult.network_refused and summary().
    from client_support import import_client
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    blob.rename(blobs / "idc_query.cpol")
    runs = tmp_path / "runs"
    runs.mkdir()
    with import_client(src_dir).Client(blobs, cordon=cordon_bin,
                                       work_root=runs) as c:
        res = c.run("idc_query", REFUSED_THEN_FAIL, args=[str(code)])
    assert res.exit_code == code, (res.reason, res.stderr)
    assert [(n.dest, n.why) for n in res.network_refused] == whys
    assert ("network refused: evil.example.com:443: not a host the "
            "policy names") in res.summary(), res.summary()
