"""Named hosts that reach around the policy (issue 38, items 4 and 5).

A wildcard beside a host with http rules: the compiler refuses it (both
places named), lint flags it in a blob made elsewhere (CL018), and the
proxy refuses a tunnel to the ruled host's server by any other name, so
`DELETE /admin` with SNI and Host api.example.org goes nowhere.  An
address literal for the host's own, its network's or its cloud's
services is a rule only with "private" (carried in the blob, shown by
explain, audit, diff and lint); a blob without it is refused; learn never
writes one.  Stand-ins on loopback (tests/tls_util.py), names mapped with
--resolve.  Runs as root and as uid 65534 (tests/run-pytest.sh)."""
import hashlib
import json
import shutil
import socket
import struct
import subprocess

import pytest

import tls_util
import workload_util as wu

NAME = "api.example.org"        # http rules
SIB = "sib.example.org"         # below the wildcard: no rules
BODY = b"upstream-ok"
SUM_OFF, HEADER_LEN = 32, 64

WILD = '''include "base/python.policy";
policy "wild";
network connect "%(name)s":%(port)d, "*.example.org":%(wport)d;
http "%(name)s":%(port)d GET "/v1/";
'''


@pytest.fixture(scope="module")
def upstream_ca(tmp_path_factory):
    d = tmp_path_factory.mktemp("upca")
    try:
        tls_util.make_ca(d, [NAME, SIB])
    except tls_util.CAError as e:
        pytest.skip("openssl cannot make the stand-in's CA: %s" % e)
    return d


def cc(cordonc_bin, src_dir, *args):
    return subprocess.run([str(cordonc_bin), args[0], "-I",
                           str(src_dir / "policies"), *args[1:]],
                          capture_output=True, text=True)


def patch(blob, old, new):
    """blob's bytes with old replaced (once) by new, its checksum
    recomputed: what a blob made by another tool could hold."""
    buf = bytearray(blob.read_bytes())
    assert buf.count(old) == 1, old
    at = buf.index(old)
    buf[at:at + len(old)] = new
    h = hashlib.sha256(bytes(buf[:SUM_OFF]))
    h.update(bytes(buf[HEADER_LEN:]))
    buf[SUM_OFF:SUM_OFF + 32] = h.digest()
    blob.write_bytes(bytes(buf))
    return blob


def wild_blob(tmp_path, cordonc_bin, src_dir, port):
    """A blob with "*.example.org":port beside http rules for
    api.example.org:port: compiled with the wildcard on port + 1, then
    the port changed (the compiler refuses it as written)."""
    pol = tmp_path / "wild.policy"
    pol.write_text(WILD % {"name": NAME, "port": port, "wport": port + 1})
    blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "wild.cpol",
                             include_dirs=[src_dir / "policies"])
    return patch(blob, b"*.example.org" + struct.pack("<H", port + 1),
                 b"*.example.org" + struct.pack("<H", port))


def test_wildcard_over_http_rules_refused(tmp_path, cordonc_bin, src_dir):
    pol = tmp_path / "w.policy"
    pol.write_text(WILD % {"name": NAME, "port": 443, "wport": 443})
    r = cc(cordonc_bin, src_dir, "compile", "-o", str(tmp_path / "w.cpol"),
           str(pol))
    assert r.returncode == 1, r.stderr
    assert not (tmp_path / "w.cpol").exists()
    # the wildcard's place, and a note at the rules' place
    assert 'w.policy:3:40: error: "*.example.org":443 reaches %s' % NAME \
        in r.stderr, r.stderr
    assert 'w.policy:4:6: note: the http rules for "%s":443' % NAME \
        in r.stderr, r.stderr
    # a wildcard on another port, or one the rules' host is not below
    for other in ('"*.example.org":444', '"*.example.net":443'):
        pol.write_text(WILD.replace('"*.example.org":%(wport)d', other) %
                       {"name": NAME, "port": 443})
        r = cc(cordonc_bin, src_dir, "compile", "-o",
               str(tmp_path / "w.cpol"), str(pol))
        assert r.returncode == 0, (other, r.stderr)


def test_lint_flags_wildcard_in_a_blob(tmp_path, cordonc_bin, src_dir):
    blob = wild_blob(tmp_path, cordonc_bin, src_dir, 4443)
    r = subprocess.run([str(cordonc_bin), "lint", "--json", str(blob)],
                       capture_output=True, text=True)
    found = [f for f in json.loads(r.stdout)["findings"]
             if f["id"] == "CL018"]
    assert found and found[0]["severity"] == "error", r.stdout
    assert r.returncode == 1


SIBLING = r'''
import json, socket, ssl, sys
name, sib, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = {}

def connect(host, method, path, sni=None):
    s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: %s:%d\r\n\r\n"
              % (host.encode(), port, host.encode(), port))
    head = b""
    while b"\r\n\r\n" not in head:
        got = s.recv(4096)
        if not got:
            break
        head += got
    status = head.split(b"\r\n")[0].decode()
    if " 200 " not in status:
        return status
    ctx = ssl.create_default_context(cafile="upstream-ca.pem")
    ctx.load_verify_locations(".cordon-ca.pem")
    try:
        t = ctx.wrap_socket(s, server_hostname=sni or name)
        t.sendall(b"%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n"
                  % (method.encode(), path.encode(), name.encode()))
        data = b""
        while True:
            got = t.recv(65536)
            if not got:
                break
            data += got
        return "tunnel " + data.split(b"\r\n")[0].decode()
    except (OSError, ssl.SSLError) as e:
        return "tunnel error %r" % (e,)

out["ruled_get"] = connect(name, "GET", "/v1/x")
out["ruled_delete"] = connect(name, "DELETE", "/admin")
out["sibling_delete"] = connect(sib, "DELETE", "/admin")
out["sibling_own"] = connect(sib, "GET", "/x", sni=sib)
if len(sys.argv) > 4:      # a plain request naming the ruled host
    s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
    s.sendall(b"CONNECT %s:%d HTTP/1.1\r\nHost: x\r\n\r\n"
              % (sib.encode(), port))
    s.recv(4096)
    s.sendall(b"GET /admin HTTP/1.1\r\nHost: API.example.org.:%d\r\n\r\n"
              % port)
    out["plain_host"] = s.recv(4096).decode("latin-1")
print(json.dumps(out))
'''


def test_sibling_name_cannot_tunnel_around_rules(upstream_ca, cordon_bin,
                                                 cordonc_bin, src_dir,
                                                 tmp_path):
    """The issue's attack, from a blob the compiler would refuse: a name
    below the wildcard that resolves to api's server, tunnelled, with SNI
    and Host api.example.org.  Refused (403, listed), the server never
    sees the request; the ruled host keeps its rules."""
    with tls_util.Upstream(upstream_ca, BODY) as up:
        blob = wild_blob(tmp_path, cordonc_bin, src_dir, up.port)
        work = tmp_path / "work"
        work.mkdir()
        shutil.copy(upstream_ca / "ca.pem", work / "upstream-ca.pem")
        r = wu.run_cordon(cordon_bin, blob, SIBLING, work,
                          args=(NAME, SIB, up.port), timeout=120,
                          extra=["--resolve", NAME + ":127.0.0.1",
                                 "--resolve", SIB + ":127.0.0.1",
                                 "--upstream-ca",
                                 str(upstream_ca / "ca.pem")])
        heads = list(up.heads)
    assert r.returncode == 0, r.describe()
    got = r.json()
    assert got["ruled_get"] == "tunnel HTTP/1.1 200 OK", got
    assert got["ruled_delete"].startswith("tunnel HTTP/1.1 403"), got
    assert got["sibling_delete"].startswith("HTTP/1.1 403"), got
    assert got["sibling_own"].startswith("HTTP/1.1 403"), got
    assert not [h for h in heads if h.startswith("DELETE")], heads
    refused = [(e["dest"], e["why"]) for e in r.status["network_refused"]]
    assert ("%s:%d" % (SIB, up.port),
            "the server of a host with http rules, around them") in \
        refused, refused


def test_sibling_server_named_in_sni_refused(upstream_ca, cordon_bin,
                                             cordonc_bin, src_dir,
                                             tmp_path):
    """A name without rules whose server is another address (127.0.0.2):
    its tunnel passes with its own SNI, and is refused (closed before a
    byte reaches the server) when its ClientHello or a plain Host
    header names the ruled host."""
    with tls_util.Upstream(upstream_ca, BODY) as up, \
            tls_util.Upstream(upstream_ca, BODY,
                              at=("127.0.0.2", up.port)) as up2:
        pol = tmp_path / "two.policy"
        pol.write_text(WILD.replace('"*.example.org":%(wport)d',
                                    '"%s":%%(port)d' % SIB)
                       % {"name": NAME, "port": up.port})
        blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "two.cpol",
                                 include_dirs=[src_dir / "policies"])
        work = tmp_path / "work"
        work.mkdir()
        shutil.copy(upstream_ca / "ca.pem", work / "upstream-ca.pem")
        r = wu.run_cordon(cordon_bin, blob, SIBLING, work,
                          args=(NAME, SIB, up.port, "plain"), timeout=120,
                          extra=["--resolve", NAME + ":127.0.0.1",
                                 "--resolve", SIB + ":127.0.0.2",
                                 "--upstream-ca",
                                 str(upstream_ca / "ca.pem")])
        heads2 = list(up2.heads)
    assert r.returncode == 0, r.describe()
    got = r.json()
    assert got["ruled_get"] == "tunnel HTTP/1.1 200 OK", got
    assert got["sibling_own"] == "tunnel HTTP/1.1 200 OK", got
    assert got["sibling_delete"].startswith("tunnel error"), got
    assert got["plain_host"] == "", got
    assert [h.split()[0] for h in heads2] == ["GET"], heads2
    refused = [(e["dest"], e["why"]) for e in r.status["network_refused"]]
    assert refused.count(("%s:%d" % (SIB, up.port), "the server of a "
                          "host with http rules, around them")) == 2, \
        refused


# -- literal addresses -------------------------------------------------

LIT = '''include "base/python.policy";
policy "lit";
network connect %s;
'''


@pytest.mark.parametrize("lit", [
    '"127.0.0.1":80', '"::1":80', '"::ffff:127.0.0.1":80',
    '"169.254.169.254":80', '"10.0.0.1":443', '"172.16.0.1":443',
    '"192.168.0.1":443', '"fd00::1":443', '"fe80::1":443', '"0.0.0.0":80',
    '"::":80', '"224.0.0.1":80', '"ff02::1":80', '"100.100.100.200":80',
    '"fd00:ec2::254":80', '"64:ff9b::a9fe:a9fe":80'])
def test_special_literal_needs_private(tmp_path, cordonc_bin, src_dir, lit):
    pol = tmp_path / "l.policy"
    pol.write_text(LIT % lit)
    r = cc(cordonc_bin, src_dir, "compile", "-o", str(tmp_path / "l.cpol"),
           str(pol))
    assert r.returncode == 1 and "is not a public address" in r.stderr, \
        r.stderr
    assert "write %s private" % lit in r.stderr, r.stderr
    pol.write_text(LIT % (lit + " private"))
    r = cc(cordonc_bin, src_dir, "compile", "-o", str(tmp_path / "l.cpol"),
           str(pol))
    assert r.returncode == 0, r.stderr


@pytest.mark.parametrize("lit", ["127.1", "0x7f.0.0.1", "2130706433",
                                 "0177.0.0.1", "127.0.0.01", "127.0.1"])
def test_other_ipv4_spellings_refused(tmp_path, cordonc_bin, src_dir, lit):
    pol = tmp_path / "l.policy"
    pol.write_text(LIT % ('"%s":80 private' % lit))
    r = cc(cordonc_bin, src_dir, "compile", "-o", str(tmp_path / "l.cpol"),
           str(pol))
    assert r.returncode == 1 and "not an IPv4 address as inet_ntop" in \
        r.stderr, r.stderr


def test_private_only_on_special_literals(tmp_path, cordonc_bin, src_dir):
    for lit in ('"api.example.org":443 private', '"8.8.8.8":53 private',
                '"*.example.org":443 private'):
        pol = tmp_path / "l.policy"
        pol.write_text(LIT % lit)
        r = cc(cordonc_bin, src_dir, "compile", "-o",
               str(tmp_path / "l.cpol"), str(pol))
        assert r.returncode == 1 and '"private" is for' in r.stderr, \
            (lit, r.stderr)


def test_tools_see_private(tmp_path, cordonc_bin, src_dir):
    """explain (text and JSON), audit, lint (CL019) and diff (a widening)
    all show the word; the blob carries it."""
    old = tmp_path / "old.policy"
    old.write_text(LIT % '"8.8.8.8":53')
    new = tmp_path / "new.policy"
    new.write_text(LIT % '"8.8.8.8":53, "10.0.0.1":443 private')
    blob = wu.compile_policy(cordonc_bin, new, tmp_path / "new.cpol",
                             include_dirs=[src_dir / "policies"])
    ex = subprocess.run([str(cordonc_bin), "explain", str(blob)],
                        capture_output=True, text=True, check=True)
    assert '"10.0.0.1":443 private' in ex.stdout, ex.stdout
    ex = subprocess.run([str(cordonc_bin), "explain", "--json", str(blob)],
                        capture_output=True, text=True, check=True)
    hosts = json.loads(ex.stdout)["layers"]["hosts"]
    assert {"host": "10.0.0.1", "port": 443, "private": True} in hosts
    assert {"host": "8.8.8.8", "port": 53, "private": False} in hosts
    au = cc(cordonc_bin, src_dir, "audit", str(new))
    assert "10.0.0.1:443 private, private (RFC 1918)" in au.stdout, \
        au.stdout
    li = subprocess.run([str(cordonc_bin), "lint", "--json", str(blob)],
                        capture_output=True, text=True)
    assert [f for f in json.loads(li.stdout)["findings"]
            if f["id"] == "CL019"], li.stdout
    d = cc(cordonc_bin, src_dir, "diff", str(old), str(new))
    assert d.returncode == 1, d.stdout
    assert "10.0.0.1" in d.stdout and "private" in d.stdout, d.stdout
    line = [x for x in d.stdout.splitlines() if "10.0.0.1" in x][0]
    assert line.startswith("+"), d.stdout


class Counter(tls_util.Server):
    """A plain listener that counts the connections it accepted."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def one(self, c):
        self.n += 1
        c.close()


REACH = r'''
import json, socket, sys
s = socket.create_connection(("127.0.0.1", 3128), timeout=20)
s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n"
          % (sys.argv[1].encode(), sys.argv[1].encode()))
print(json.dumps({"answer": s.recv(200).split(b"\r\n")[0].decode()}))
'''


def test_loopback_literal_blob_refused(tmp_path, cordon_bin, cordonc_bin,
                                       src_dir):
    """A blob naming 127.0.0.1 without "private" (made by patching a
    public literal of the same length) is refused before it runs; the
    host's loopback listener is never reached."""
    with Counter() as srv:
        pol = tmp_path / "l.policy"
        pol.write_text(LIT % ('"128.0.0.1":%d' % srv.port))
        blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "l.cpol",
                                 include_dirs=[src_dir / "policies"])
        patch(blob, b"128.0.0.1", b"127.0.0.1")
        work = tmp_path / "work"
        work.mkdir()
        r = wu.run_cordon(cordon_bin, blob, REACH, work,
                          args=("127.0.0.1:%d" % srv.port,), timeout=60)
        reached = srv.n
    assert reached == 0, r.describe()
    assert r.returncode == 125 and "private" in r.stderr, r.describe()


def test_loopback_literal_with_private_reached(tmp_path, cordon_bin,
                                               cordonc_bin, src_dir):
    """With "private" the run reaches that one literal, and no other
    special one."""
    with Counter() as srv:
        pol = tmp_path / "l.policy"
        pol.write_text(LIT % ('"127.0.0.1":%d private' % srv.port))
        blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "l.cpol",
                                 include_dirs=[src_dir / "policies"])
        work = tmp_path / "work"
        work.mkdir()
        r = wu.run_cordon(cordon_bin, blob, REACH, work,
                          args=("127.0.0.1:%d" % srv.port,), timeout=60)
        work2 = tmp_path / "work2"
        work2.mkdir()
        r2 = wu.run_cordon(cordon_bin, blob, REACH, work2,
                           args=("127.0.0.2:%d" % srv.port,), timeout=60)
    assert r.returncode == 0, r.describe()
    assert r.json()["answer"].startswith("HTTP/1.1 200"), r.stdout
    assert r2.returncode == 0, r2.describe()
    assert r2.json()["answer"].startswith("HTTP/1.1 403"), r2.stdout


def test_learn_leaves_special_literals_out(tmp_path):
    """cordonc learn --hosts: a sample that reached 127.0.0.1 through the
    proxy gets a comment saying so, never a rule; the policy learned
    compiles."""
    from test_learn import CORDON, CORDONC, SRC, ns_or_skip
    ns_or_skip()
    with Counter() as srv:
        base = tmp_path / "base.policy"
        base.write_text('include "base/python.policy";\npolicy "base";\n')
        sample = tmp_path / "reach.py"
        sample.write_text(
            "import socket\n"
            "try:\n"
            "    s = socket.create_connection(('127.0.0.1', 3128), 10)\n"
            "    s.sendall(b'CONNECT 127.0.0.1:%d HTTP/1.1\\r\\n"
            "Host: x\\r\\n\\r\\n')\n"
            "    print(s.recv(100))\n"
            "except OSError as e:\n"
            "    print(e)\n" % srv.port)
        out = tmp_path / "learned.policy"
        r = subprocess.run([CORDONC, "learn", "-I", str(SRC / "policies"),
                            "--cordon", CORDON, "-o", str(out), "--hosts",
                            str(base), str(sample)], capture_output=True,
                           text=True, timeout=300)
        reached = srv.n
    text = out.read_text() if out.exists() else ""
    assert r.returncode == 0, (r.stderr, text)
    assert reached >= 1, r.stderr     # observed: the proxy let it through
    assert '# not learned: "127.0.0.1":%d, not a public address: ' \
        'loopback' % srv.port in text, text
    rules = [x for x in text.splitlines() if not x.lstrip().startswith("#")]
    assert not [x for x in rules if "127.0.0.1" in x], text
    r = subprocess.run([CORDONC, "compile", "-I", str(SRC / "policies"),
                        "-o", str(tmp_path / "l.cpol"), str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, (r.stderr, text)


def test_connect_to_plain_ruled_host_refused(tmp_path, cordon_bin,
                                             cordonc_bin, src_dir):
    """A plain http:// host with rules is reached by its requests, which
    the proxy checks; a CONNECT tunnel to it would carry any request
    past them, and is refused (on 7f6db1c it was let through)."""
    with Counter() as srv:
        pol = tmp_path / "p.policy"
        pol.write_text(LIT % ('"www.example.org":%d' % srv.port) +
                       'http plain "www.example.org":%d GET "/";\n'
                       % srv.port)
        blob = wu.compile_policy(cordonc_bin, pol, tmp_path / "p.cpol",
                                 include_dirs=[src_dir / "policies"])
        work = tmp_path / "work"
        work.mkdir()
        r = wu.run_cordon(cordon_bin, blob, REACH, work,
                          args=("www.example.org:%d" % srv.port,),
                          timeout=60, extra=["--resolve",
                                             "www.example.org:127.0.0.1"])
        reached = srv.n
    assert r.returncode == 0, r.describe()
    assert r.json()["answer"].startswith("HTTP/1.1 403"), r.stdout
    assert reached == 0
