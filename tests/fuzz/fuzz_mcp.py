#!/usr/bin/python3
"""Fuzz cordon-mcp's JSON-RPC layer (clients/python/cordon/_jsonrpc.py,
mcp.py) through its stdio, as a client would reach it.

    tests/fuzz/fuzz_mcp.py --build build [--seconds 60] [--seed N]

Lines are seed messages (every method the server knows, good and bad
arguments, notifications, responses, batches) mutated in their structure
(a value replaced by one of JSON's awkward ones) or in their bytes (bits
flipped, bytes cut, inserted, lines spliced), and random bytes.  What must
hold: the server never dies and keeps answering a ping; every answer's id
is null or an id a line carried, answered at most once per line that
carried it; no answer is an internal error (-32603: a bug); at EOF it
exits 0 with no traceback on stderr.  A failure prints the seed and the
last lines sent; rerun with --seed to reproduce.  Standard library only
(no atheris: the point is the server as a process, not coverage).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import threading
import time
from collections import Counter, deque
from typing import Any

PING_EVERY = 50             # lines between liveness pings
ANSWER_WAIT = 60.0          # seconds a ping may take (a bound, not a speed)
MAX_LINE = 1 << 16          # the server's --max-line here: long lines too

AWKWARD: list[Any] = [None, True, False, 0, -1, 1.5, 10 ** 400, "", "x",
                      "\ud800", [], {}, [[]], {"a": {}}, [1, "a", None],
                      "x" * 70000, 2 ** 63, -2 ** 63 - 1]
RAW_AWKWARD = [b"1e400", b"-1e400", b"1e-400", b"9" * 5000, b"NaN",
               b"Infinity", b"[" * 3000, b'"\\ud800"', b'"\xff"', b"{}"]


def seeds() -> list[Any]:
    def call(name: str, args: Any, **meta: Any) -> dict[str, Any]:
        p: dict[str, Any] = {"name": name, "arguments": args}
        if meta:
            p["_meta"] = meta
        return {"jsonrpc": "2.0", "id": 0, "method": "tools/call",
                "params": p}
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
            "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                       "clientInfo": {"name": "fuzz", "version": "0"}}}
    return [
        init, {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 0, "method": "ping"},
        {"jsonrpc": "2.0", "id": 0, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": 0, "method": "tools/list",
         "params": {"cursor": "x"}},
        call("list_policies", {}), call("explain_policy", {"tool": "nope"}),
        call("run_code", {"tool": "code_gen", "code": "print(1)"},
             progressToken=1),
        call("run_code", {"tool": "code_gen", "code": "x = 1",
                          "session": "s1", "timeout": 5}),
        call("run_code", {"tool": "code_gen", "code": "print(2)",
                          "files": {"a.txt": "aGk="}, "timeout": 0}),
        call("end_session", {"session": "s1"}),
        {"jsonrpc": "2.0", "method": "notifications/cancelled",
         "params": {"requestId": 0, "reason": "fuzz"}},
        {"jsonrpc": "2.0", "id": 0, "result": {}},
        {"jsonrpc": "2.0", "id": 0, "error": {"code": 1, "message": "m"}},
        [{"jsonrpc": "2.0", "id": 0, "method": "ping"}],
        [{"jsonrpc": "2.0", "id": 0, "method": "tools/list"},
         {"jsonrpc": "2.0", "method": "notifications/initialized"},
         call("list_policies", {})],
        dict(init, params=dict(init["params"], protocolVersion="2025-03-26")),
        dict(init, params=dict(init["params"], protocolVersion="2024-11-05")),
    ]


def paths(v: Any, at: tuple = ()) -> list[tuple]:
    out = [at]
    if isinstance(v, dict):
        for k, x in v.items():
            out += paths(x, at + (k,))
    elif isinstance(v, list):
        for i, x in enumerate(v):
            out += paths(x, at + (i,))
    return out


def replace(v: Any, at: tuple, new: Any) -> Any:
    if not at:
        return new
    v[at[0]] = replace(v[at[0]], at[1:], new)
    return v


def encode(msg: Any) -> bytes:
    return json.dumps(msg, separators=(",", ":")).encode("utf-8",
                                                          "surrogatepass")


class Maker:
    """Lines to send, each with a fresh id where its seed has one."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.n, self.seeds = rng, 0, seeds()

    def fresh(self) -> Any:
        self.n += 1
        return self.n if self.n % 2 else "f%d" % self.n

    def line(self) -> bytes:
        r = self.rng.random()
        if r < 0.05:
            return bytes(self.rng.randrange(256)
                         for _ in range(self.rng.randrange(64)))
        msg = json.loads(json.dumps(self.rng.choice(self.seeds)))
        for m in (msg if isinstance(msg, list) else [msg]):
            if "id" in m:
                m["id"] = self.fresh()
        if r < 0.5:
            for _ in range(self.rng.randrange(1, 4)):
                at = self.rng.choice(paths(msg))
                msg = replace(msg, at, json.loads(json.dumps(
                    self.rng.choice(AWKWARD))))
        data = encode(msg)
        if 0.5 <= r < 0.8:
            data = self.bytes_mutated(data)
        return data.replace(b"\n", b" ")

    def bytes_mutated(self, data: bytes) -> bytes:
        b = bytearray(data)
        for _ in range(self.rng.randrange(1, 4)):
            i = self.rng.randrange(len(b) + 1)
            op = self.rng.randrange(4)
            if op == 0 and i < len(b):
                b[i] ^= 1 << self.rng.randrange(8)
            elif op == 1:
                del b[i:i + self.rng.randrange(1, 8)]
            elif op == 2:
                b[i:i] = self.rng.choice(RAW_AWKWARD)
            else:
                b[i:i] = encode(self.rng.choice(self.seeds))[:40]
        return bytes(b)


def ids_in(line: bytes) -> list[Any]:
    """The ids a line carries, as the server reads them (or none)."""
    try:
        msg = json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return []
    msgs = msg if isinstance(msg, list) else [msg]
    return [m["id"] for m in msgs if isinstance(m, dict) and "id" in m
            and (isinstance(m["id"], str) or (isinstance(m["id"], int)
                                               and not isinstance(m["id"],
                                                                  bool)))]


class Fail(Exception):
    pass


class Server:
    def __init__(self, build: str) -> None:
        top = os.path.dirname(os.path.dirname(os.path.dirname(
            os.path.abspath(__file__))))
        env = dict(os.environ, PYTHONPATH=os.path.join(top, "clients",
                                                       "python"),
                   PATH="%s:/usr/bin:/bin" % os.path.abspath(build))
        self.p = subprocess.Popen(
            [sys.executable, "-m", "cordon.mcp", "--policy-dir",
             os.path.join(build, "policies"), "--tool", "code_gen",
             "--max-line", str(MAX_LINE), "--concurrency", "2",
             "--max-timeout", "5", "--session-idle", "5"],
            env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE)
        self.lock = threading.Condition()
        self.answers: Counter = Counter()
        self.batches = 0                # answers that were arrays
        self.bad: list[str] = []
        self.stderr = b""
        threading.Thread(target=self.read, daemon=True).start()
        self.err_reader = threading.Thread(target=self.read_err, daemon=True)
        self.err_reader.start()

    def read(self) -> None:
        for line in self.p.stdout:
            try:
                msg = json.loads(line)
            except ValueError:
                msg = None
            # A batch's answers come as one array (never an empty one).
            msgs = msg if isinstance(msg, list) and msg else [msg]
            with self.lock:
                self.batches += msgs is msg
                for m in msgs:
                    self.count(m, line)
                self.lock.notify_all()

    def count(self, msg: Any, line: bytes) -> None:
        if not isinstance(msg, dict):
            self.bad.append("not a JSON object: %r" % line[:200])
        elif "id" in msg:
            self.answers[json.dumps(msg["id"])] += 1
            if (msg.get("error") or {}).get("code") == -32603:
                self.bad.append("internal error: %r" % line[:300])

    def read_err(self) -> None:
        self.stderr = self.p.stderr.read()

    def send(self, line: bytes) -> None:
        try:
            self.p.stdin.write(line + b"\n")
            self.p.stdin.flush()
        except BrokenPipeError:
            raise Fail("the server closed its input") from None

    def wait_for(self, key: str) -> None:
        end = time.monotonic() + ANSWER_WAIT
        with self.lock:
            while self.answers[key] == 0:
                if self.p.poll() is not None:
                    raise Fail("the server ended (rc %d)" % self.p.returncode)
                if time.monotonic() > end:
                    raise Fail("no answer to a ping in %gs" % ANSWER_WAIT)
                self.lock.wait(1.0)


def check(srv: Server, sent: Counter) -> None:
    with srv.lock:
        if srv.bad:
            raise Fail(srv.bad[0])
        for key, n in srv.answers.items():
            if key != "null" and n > sent[key]:
                raise Fail("id %s answered %d times, sent in %d lines"
                           % (key[:80], n, sent[key]))


def stop(p: subprocess.Popen) -> None:
    """SIGTERM first, so that the server ends its runs and removes their
    folders (SIGKILL would leave them); SIGKILL if it does not end."""
    if p.poll() is None:
        p.terminate()
        try:
            p.wait(60)
        except subprocess.TimeoutExpired:
            p.kill()
    p.wait()


def run(build: str, seconds: float, seed: int) -> int:
    rng = random.Random(seed)
    maker, srv = Maker(rng), Server(build)
    sent: Counter = Counter()
    last: deque = deque(maxlen=8)
    end, pings, lines = time.monotonic() + seconds, 0, 0
    try:
        srv.send(encode(seeds()[0]))               # initialize, id 0
        sent["0"] += 1
        while time.monotonic() < end:
            for _ in range(PING_EVERY):
                line = maker.line()
                last.append(line)
                lines += 1
                for i in ids_in(line):
                    sent[json.dumps(i)] += 1
                srv.send(line)
            pings += 1
            key = json.dumps("alive-%d" % pings)
            sent[key] += 1
            srv.send(b'{"jsonrpc":"2.0","id":%s,"method":"ping"}'
                     % key.encode())
            srv.wait_for(key)
            check(srv, sent)
        srv.p.stdin.close()
        rc = srv.p.wait(120)
        check(srv, sent)
        if rc != 0 or b"Traceback" in srv.stderr:
            raise Fail("exit %d at EOF: %s" % (rc, srv.stderr[-2000:]))
    except Fail as e:
        stop(srv.p)
        srv.err_reader.join(10)
        print("fuzz_mcp: seed %d: %s\nlast lines:" % (seed, e))
        for ln in last:
            print("  %r" % ln[:300])
        print(srv.stderr[-3000:].decode("utf-8", "replace"))
        return 1
    print("fuzz_mcp: seed %d: %d lines (%d pings), %d answers with an id, "
          "%d with id null, %d batches answered, %.0f s: ok"
          % (seed, lines, pings, sum(srv.answers.values()) -
             srv.answers["null"], srv.answers["null"], srv.batches,
             seconds))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--seed", type=int, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else random.SystemRandom().randrange(
        1 << 32)
    return run(a.build, a.seconds, seed)


if __name__ == "__main__":
    sys.exit(main())
