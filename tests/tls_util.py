"""Test-side TLS for the egress proxy's tests and bench: a stand-in CA
with one leaf certificate (made with the openssl CLI), and a stand-in
upstream on loopback, HTTPS with that leaf or plain HTTP, that answers
every request with a fixed body (never an echo of what it got).

Used by tests/test_egress.py, tests/test_credentials.py and
bench/tlsproxy.py (which puts this folder on sys.path)."""
import os
import socket
import ssl
import subprocess
import threading


class CAError(RuntimeError):
    """openssl could not make the CA or the leaf (its stderr)."""


def _openssl(*args):
    p = subprocess.run(["openssl", *args], capture_output=True)
    if p.returncode != 0:
        raise CAError("openssl %s: %s" % (args[0], p.stderr.decode(
            errors="replace").strip()))


def make_ca(d, names, cn="stand-in CA"):
    """In the folder d: ca.pem and ca.key, a CA (EC P-256, one day), and
    cert.pem and key.pem, a leaf it signed for every name in names.
    Every file readable by all (the tests run cordon as uid 65534 too).
    Raises CAError when openssl cannot."""
    d = str(d)
    os.chmod(d, 0o755)
    _openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
             "ec_paramgen_curve:P-256", "-nodes", "-days", "1", "-subj",
             "/CN=" + cn, "-addext", "basicConstraints=critical,CA:TRUE",
             "-addext", "keyUsage=critical,keyCertSign",
             "-keyout", os.path.join(d, "ca.key"),
             "-out", os.path.join(d, "ca.pem"))
    with open(os.path.join(d, "ext"), "w") as f:
        f.write("subjectAltName=%s\n" % ",".join("DNS:" + n for n in names))
    _openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
             "-nodes", "-subj", "/CN=" + names[0],
             "-keyout", os.path.join(d, "key.pem"),
             "-out", os.path.join(d, "req.pem"))
    _openssl("x509", "-req", "-in", os.path.join(d, "req.pem"),
             "-CA", os.path.join(d, "ca.pem"),
             "-CAkey", os.path.join(d, "ca.key"), "-CAcreateserial",
             "-days", "1", "-extfile", os.path.join(d, "ext"),
             "-out", os.path.join(d, "cert.pem"))
    for f in os.listdir(d):
        os.chmod(os.path.join(d, f), 0o644)


class Server:
    """A stand-in server on 127.0.0.1 (port: .port), or at another
    address and port (at), for the tests' allowed hosts: accepts from
    enter to exit, in a thread, and gives each connection to one(c), at
    once or, with threaded, in a thread of its own.  Subclasses define
    one()."""

    def __init__(self, threaded=False, backlog=64, at=("127.0.0.1", 0)):
        self.threaded = threaded
        self.sock = socket.socket()
        self.sock.bind(at)
        self.sock.listen(backlog)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.serve, daemon=True)

    def one(self, c):
        raise NotImplementedError

    def serve(self):
        while not self.stop.is_set():
            try:
                c, _ = self.sock.accept()
            except OSError:
                continue
            if self.threaded:
                threading.Thread(target=self.one, args=(c,),
                                 daemon=True).start()
            else:
                self.one(c)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join(2)
        self.sock.close()


class Upstream(Server):
    """A stand-in upstream: HTTPS with the leaf of a make_ca folder d, or
    plain HTTP when d is None.  Reads each request head, records it
    (.heads, latin-1 text without the blank line; .hits counts them) and
    answers 200 with body."""

    def __init__(self, d=None, body=b"ok", threaded=False, timeout=10,
                 at=("127.0.0.1", 0)):
        super().__init__(threaded, at=at)
        self.ctx = None
        if d is not None:
            self.ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            self.ctx.load_cert_chain(os.path.join(str(d), "cert.pem"),
                                     os.path.join(str(d), "key.pem"))
        self.body, self.timeout = body, timeout
        self.heads = []

    @property
    def hits(self):
        return len(self.heads)

    def _answer(self, t):
        data = b""
        while b"\r\n\r\n" not in data:
            got = t.recv(65536)
            if not got:
                return
            data += got
        self.heads.append(data.split(b"\r\n\r\n")[0].decode("latin-1"))
        t.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n"
                  b"Connection: close\r\n\r\n%s" % (len(self.body),
                                                    self.body))

    def one(self, c):
        try:
            c.settimeout(self.timeout)
            if self.ctx is None:
                with c:
                    self._answer(c)
            else:
                with self.ctx.wrap_socket(c, server_side=True) as t:
                    self._answer(t)
        except (OSError, ssl.SSLError):
            c.close()
