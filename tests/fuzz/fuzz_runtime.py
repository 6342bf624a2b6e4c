#!/usr/bin/python3
"""Fuzz cordon-runtime's request parsing (clients/python/cordon/
_rtparse.py: targets, execute bodies, commands, multipart uploads), in
process, then the server as a client reaches it (raw HTTP requests to
cordon-runtime on loopback, mutated).

    tests/fuzz/fuzz_runtime.py --build build [--seconds 60] [--seed N]

Seeds are good requests of every endpoint; mutations flip bits, cut,
insert and splice bytes, and put awkward values (NUL, '..', '%2e%2e',
'%00', huge lengths, non-UTF-8) in place.  What must hold: in process,
every parser returns or raises its Bad (any other exception is a bug);
over HTTP, no answer is a 500 (a bug the server caught), the server
stays up and answers GET / after every 25 requests, and nothing is
written outside its workspace (a sentinel folder beside it stays
empty).  A failure prints the seed and the input; rerun with --seed.
Standard library only."""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "clients", "python"))
from cordon import _rtparse as P  # noqa: E402

B = "fuzzboundary"
MULTI = ("--%s\r\nContent-Disposition: form-data; name=\"file\"; "
         "filename=\"d/a.txt\"\r\nContent-Type: text/plain\r\n\r\nhello"
         "\r\n--%s--\r\n" % (B, B)).encode()
TARGETS = ["/", "/execute", "/upload", "/download/a.txt", "/list/",
           "/list/d", "/exists/d%2Fa.txt", "/v1/files/d%2Fa.txt",
           "/v1/files/d?recursive=true", "/v1/files/x?mode=0600",
           "/v1/health", "/v1/metadata", "/sessions", "/sessions/abc",
           "/download/%2e%2e%2fetc%2fpasswd", "/list/..", "/exists/%00"]
BODIES = [json.dumps({"command": "python3 -c 'print(1)'"}).encode(),
          json.dumps({"code": "print(2)", "timeout": 5}).encode(),
          json.dumps({"command": "python3 a.py x y", "policy":
                      "code_gen"}).encode(),
          json.dumps({"code": "x=1", "session": "s"}).encode(),
          b'{"command": "sh -c id"}', b"[]", b"{}", b"null"]
COMMANDS = ["python3 -c pass", "python3 f.py 'a b' c", "python -c",
            "/usr/bin/python3.11 -c 'x'", "python3 -m x", "sh", "'",
            "python3 -c \"\\\"\""]
AWKWARD = [b"\x00", b"..", b"%2e%2e", b"%00", b"%ff", b"/", b"//",
           b"\xff\xfe", b"99999999999999999999", b"\r\n", b"\"", b"\\",
           b"=", b"&", b"?", b"%", b"-" * 80, b"a" * 5000]


def mutate(rng: random.Random, data: bytes, pool: list[bytes]) -> bytes:
    b = bytearray(data)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        pos = rng.randint(0, len(b))
        if op == 0 and b:
            i = rng.randrange(len(b))
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            del b[pos:pos + rng.randint(1, 16)]
        elif op == 2:
            b[pos:pos] = rng.choice(AWKWARD)
        elif op == 3:
            other = rng.choice(pool)
            j = rng.randint(0, len(other))
            b = b[:pos] + bytearray(other[j:])
        elif op == 4:
            b[pos:pos] = bytes(rng.randrange(256) for _ in range(
                rng.randint(1, 8)))
        else:
            b = b[:pos]
    return bytes(b)


def parsers(rng: random.Random, seconds: float) -> int:
    """Each parser on mutated inputs: its result or its Bad, nothing
    else."""
    n = 0
    end = time.monotonic() + seconds
    tpool = [t.encode() for t in TARGETS]
    cpool = [c.encode() for c in COMMANDS]
    while time.monotonic() < end:
        which = rng.randrange(4)
        if which == 0:
            arg = mutate(rng, rng.choice(tpool), tpool).decode(
                "latin-1")
            call = (P.target, (arg,))
        elif which == 1:
            call = (P.execute, (mutate(rng, rng.choice(BODIES), BODIES),))
        elif which == 2:
            arg = mutate(rng, rng.choice(cpool), cpool).decode(
                "utf-8", "surrogateescape")
            call = (P.command, (arg,))
        else:
            ct = "multipart/form-data; boundary=" + B
            if rng.random() < 0.2:
                ct = mutate(rng, ct.encode(), [ct.encode()]).decode(
                    "latin-1")
            call = (P.multipart, (ct, mutate(rng, MULTI, [MULTI])))
        try:
            call[0](*call[1])
        except P.Bad:
            pass
        except Exception as e:
            print("FAIL: %s(%r) raised %r" % (call[0].__name__,
                                              call[1], e))
            return -1
        n += 1
    return n


def request_bytes(rng: random.Random) -> bytes:
    t = rng.choice(TARGETS)
    if t in ("/execute", "/sessions"):
        body, method, ct = rng.choice(BODIES), "POST", "application/json"
    elif t == "/upload":
        body, method = MULTI, "POST"
        ct = "multipart/form-data; boundary=" + B
    elif t.startswith("/v1/files/"):
        method = rng.choice(["GET", "HEAD", "PUT", "DELETE"])
        body, ct = (b"data", "application/octet-stream") \
            if method == "PUT" else (b"", "")
    else:
        method, body, ct = rng.choice(["GET", "HEAD", "DELETE"]), b"", ""
    head = "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n" % (method, t)
    if ct:
        head += "Content-Type: %s\r\n" % ct
    if body or method in ("POST", "PUT"):
        head += "Content-Length: %d\r\n" % len(body)
    raw = head.encode() + b"Connection: close\r\n\r\n" + body
    return mutate(rng, raw, [raw]) if rng.random() < 0.9 else raw


def send(port: int, raw: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), 30) as s:
        s.settimeout(60)
        try:
            s.sendall(raw)
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        out = b""
        try:
            while True:
                more = s.recv(65536)
                if not more:
                    break
                out += more
        except (ConnectionResetError, socket.timeout):
            pass
        return out


def server(build: str, rng: random.Random, seconds: float) -> int:
    with tempfile.TemporaryDirectory(prefix="cordon-fuzz-rt-") as d:
        ws, beside = os.path.join(d, "ws"), os.path.join(d, "beside")
        os.mkdir(ws)
        os.mkdir(beside)
        log = os.path.join(d, "log")
        env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "clients",
                                                       "python"),
                   PATH="%s:/usr/bin:/bin" % build)
        proc = subprocess.Popen(
            [sys.executable, "-m", "cordon.runtime", "--policy", "code_gen",
             "--policy-dir", os.path.join(build, "policies"), "--root", ws,
             "--listen", "127.0.0.1:0", "--max-file", "65536",
             "--health-every", "1000"], env=env, stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=open(log, "wb"))
        try:
            end = time.monotonic() + 60
            while True:
                m = re.search(r"serving on http://[^ ]+:(\d+)/",
                              open(log, errors="replace").read())
                if m:
                    port = int(m.group(1))
                    break
                if proc.poll() is not None or time.monotonic() > end:
                    print("FAIL: cordon-runtime did not start")
                    return -1
                time.sleep(0.05)
            n = 0
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                raw = request_bytes(rng)
                out = send(port, raw)
                if out.startswith(b"HTTP/1.1 500"):
                    print("FAIL: 500 for %r:\n%s" % (raw[:2000], out[:500]))
                    return -1
                n += 1
                if n % 25 == 0:
                    ok = send(port, b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                              b"Connection: close\r\n\r\n")
                    if not ok.startswith(b"HTTP/1.1 "):
                        print("FAIL: no answer to GET / after %r" % raw)
                        return -1
                if os.listdir(beside) or proc.poll() is not None:
                    print("FAIL: wrote beside the workspace, or ended, "
                          "after %r" % raw[:2000])
                    return -1
            if "Traceback" in open(log, errors="replace").read():
                print("FAIL: a traceback in the server's log:\n" +
                      open(log, errors="replace").read()[-3000:])
                return -1
            return n
        finally:
            proc.terminate()
            proc.wait(30)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=float, default=60)
    ap.add_argument("--seed", type=int)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.randrange(1 << 32)
    rng = random.Random(seed)
    n1 = parsers(rng, a.seconds / 2)
    if n1 < 0:
        print("seed %d" % seed)
        return 1
    n2 = server(os.path.abspath(a.build), rng, a.seconds / 2)
    if n2 < 0:
        print("seed %d" % seed)
        return 1
    print("fuzz_runtime: seed %d, %d parser inputs, %d requests: ok"
          % (seed, n1, n2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
