"""cordon-mcp against input meant to stop it (issue 37, item 4): every
line answered or dropped, memory bounded per line, calls and sessions
bounded under concurrent asks, and nothing of the server left once it
ends; --max-timeout bounding every call.  Raw lines on pipes (the SDK
cannot write them); the helpers are test_mcp.py's."""
import json
import os
import signal
import subprocess
import time

import pytest

from test_mcp import (PYTHON, Raw, children_of, cmdline,  # noqa: F401
                      run_folders,
                      err_code, raw, server_argv, server_env, tree_of)

HUGE = str(10 ** 400)

# (line, the error code answered with id null, or None: dropped)
NULL_ID_LINES = [
    (b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
     b'"params":{"requestId":[1]}}', None),
    (b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
     b'"params":{"requestId":{"a":1}}}', None),
    (b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
     b'"params":{"requestId":1e400}}', None),
    (b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
     b'"params":{"requestId":true}}', None),
    (b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
     b'"params":[1]}', None),
    (b'{"jsonrpc":"2.0","method":"notifications/cancelled",'
     b'"params":null}', None),
    (b'{"jsonrpc":"2.0","method":"notifications/progress",'
     b'"params":"x"}', None),
    (b"null", -32600), (b"7", -32600), (b'"ping"', -32600),
    (b"true", -32600), (b"1e400", -32600), (HUGE.encode(), -32600),
    (b"9" * 5000, -32700),
    (b"[1]", -32600), (b"[null]", -32600), (b"[[]]", -32600),
    (b'{"jsonrpc":"2.0","id":1e400,"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":1.5,"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":true,"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":[1],"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}', -32600),
    (b'{"jsonrpc":"2.0","id":NaN,"method":"ping"}', -32700),
    (b'{"jsonrpc":"2.0","id":Infinity,"method":"ping"}', -32700),
    (b'{"jsonrpc":"2.0","id":"\xc3\x28","method":"ping"}', -32700),
    (b'\xef\xbb\xbf{"jsonrpc":"2.0","id":2,"method":"ping"}', -32700),
    (b"{" * 50000, -32600), (b'{"a":' * 3000 + b"1" + b"}" * 3000, -32700),
    (b"[" + b"{}," * 700000 + b"{}]", -32600),
]


def test_any_line_answered_or_dropped(raw):
    """The issue's line (a requestId that is a list) and its kin: each is
    answered with id null or dropped, and the server goes on."""
    s = raw()
    s.init()
    for i, (line, code) in enumerate(NULL_ID_LINES):
        s.send(line)
        if code is not None:
            r = s.read()
            assert r["id"] is None and err_code(r) == code, (line[:80], r)
        s.ping(1000 + i)                    # nothing else came first
    assert s.close() == 0


def test_ids_and_params_of_every_type(raw):
    """An id of any valid kind comes back as it was; params of any kind
    get an answer with the request's id."""
    s = raw()
    s.init()
    s.send('{"jsonrpc":"2.0","id":%s,"method":"ping"}' % HUGE)
    assert s.read() == {"jsonrpc": "2.0", "id": 10 ** 400, "result": {}}
    for i, params in enumerate(('null', '[]', '7', '"x"', '[{"a":[]}]')):
        s.send('{"jsonrpc":"2.0","id":%d,"method":"tools/call",'
               '"params":%s}' % (i, params))
        r = s.read()
        assert r["id"] == i and err_code(r) == -32602, (params, r)
    for i, name in enumerate(('null', '[[[1]]]', '{"a":{}}', '1e400',
                              HUGE, 'true')):
        s.send('{"jsonrpc":"2.0","id":"n%d","method":"tools/call",'
               '"params":{"name":%s,"arguments":{}}}' % (i, name))
        r = s.read()
        assert r["id"] == "n%d" % i and err_code(r) == -32602, (name, r)
    for i, tok in enumerate(('[1]', '{"a":1}', '1e400', 'null', 'true')):
        s.send('{"jsonrpc":"2.0","id":"p%d","method":"tools/call",'
               '"params":{"name":"list_policies","arguments":{},'
               '"_meta":{"progressToken":%s}}}' % (i, tok))
        r = s.read()
        assert r["id"] == "p%d" % i and r["result"]["isError"] is False, r
    assert s.close() == 0


@pytest.mark.parametrize("version", ["2025-06-18", "2025-03-26",
                                     "2024-11-05"])
def test_batches_by_revision(raw, version):
    """2025-06-18 removed JSON-RPC batches: one -32600.  The revisions
    before it have them: one array of the answers due (a notification's
    none, a bad item's an error with id null, initialize refused), a
    call's among them; an empty batch is one -32600."""
    s = raw("--tool", "code_gen")
    s.init(version)
    s.send(b'[{"jsonrpc":"2.0","id":1,"method":"ping"},'
           b'{"jsonrpc":"2.0","method":"notifications/x"},7,'
           b'{"jsonrpc":"2.0","id":3,"method":"initialize"},' +
           call_line(2, "code_gen", "print(3)") + b"]")
    r = s.read()
    if version == "2025-06-18":
        assert r["id"] is None and err_code(r) == -32600, r
        assert "2025-06-18" in r["error"]["message"]
    else:
        assert isinstance(r, list) and len(r) == 4, r
        by_id = {a["id"]: a for a in r}
        assert by_id[1]["result"] == {}
        assert err_code(by_id[None]) == -32600
        assert err_code(by_id[3]) == -32600
        assert "3\n" in by_id[2]["result"]["content"][0]["text"]
        # A call cancelled in its own batch, before it ran: the batch is
        # answered all the same, without it.
        s.send(b'[' + call_line(4, "code_gen", "print(4)") +
               b',{"jsonrpc":"2.0","method":"notifications/cancelled",'
               b'"params":{"requestId":4}},'
               b'{"jsonrpc":"2.0","id":5,"method":"ping"}]')
        assert s.read() == [{"jsonrpc": "2.0", "id": 5, "result": {}}]
    s.send(b'[{"jsonrpc":"2.0","method":"notifications/x"}]')
    s.send(b"[]")
    r = s.read()                            # none for the notification
    assert r["id"] is None and err_code(r) == -32600, r
    assert s.close() == 0


def peak_kib(pid):
    with open("/proc/%d/status" % pid) as f:
        for ln in f:
            if ln.startswith("VmHWM:"):
                return int(ln.split()[1])
    raise AssertionError("no VmHWM")


def test_line_of_many_values_held_small(raw):
    """A 2 MiB line of empty objects (the issue's: 24 -> 76 MiB) is
    refused before it is parsed: the server's peak grows by a few times
    the line, not 25 times it."""
    s = raw()
    s.init()
    s.ping(1)
    before = peak_kib(s.p.pid)
    s.send(b"[" + b"{}," * 700000 + b"{}]")
    assert err_code(s.read()) == -32600
    s.send(b'{"a":[' + b"{}," * 700000 + b'{}]}')
    assert err_code(s.read()) == -32600
    s.ping(2)
    grown = peak_kib(s.p.pid) - before
    assert grown < 16 * 1024, "peak grew by %d KiB" % grown
    assert s.close() == 0


def test_huge_line_dropped_unheld(raw):
    """A 64 MiB line past --max-line 1 MiB: answered -32600 and dropped
    as it is read; the server's peak grows by about the bound, not the
    line."""
    s = raw("--max-line", str(1 << 20))
    s.init()
    s.ping(1)
    before = peak_kib(s.p.pid)
    chunk = b"x" * (1 << 20)
    for _ in range(64):
        s.p.stdin.write(chunk)
    s.send(b"")
    r = s.read()
    assert r["id"] is None and err_code(r) == -32600, r
    assert "longer than" in r["error"]["message"]
    s.ping(2)
    grown = peak_kib(s.p.pid) - before
    assert grown < 8 * 1024, "peak grew by %d KiB" % grown
    assert s.close() == 0


def call_line(i, tool, code, **args):
    return json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                       "params": {"name": "run_code", "arguments": dict(
                           tool=tool, code=code, **args)}}).encode()


def test_max_sessions_held_under_concurrent_starts(raw):
    """--max-sessions 1, two sessions asked in one write (a warm tool's
    and a cold one's): one starts, the other is refused."""
    s = raw("--tool", "code_gen", "--tool", "radiomics", "--warm",
            "code_gen", "--max-sessions", "1")
    s.init()
    s.send(call_line(1, "code_gen", "x = 1", session="a") + b"\n" +
           call_line(2, "radiomics", "x = 2", session="b"))
    got = {}
    for _ in range(2):
        r = s.read()
        got[r["id"]] = r["result"]
    assert sorted(r["isError"] for r in got.values()) == [False, True], got
    refused = [r for r in got.values() if r["isError"]][0]
    assert "max_sessions" in refused["content"][0]["text"], refused
    assert s.close() == 0


def test_calls_in_flight_bounded(raw):
    """--max-calls 2: the third call asked while two wait is answered at
    once with a busy error; once one is answered, calls are taken again."""
    s = raw("--tool", "code_gen", "--max-calls", "2", "--concurrency", "1")
    s.init()
    sleep = "import time\ntime.sleep(%d)"
    s.send(call_line(1, "code_gen", sleep % 600, timeout=300) + b"\n" +
           call_line(2, "code_gen", "print(2)") + b"\n" +
           call_line(3, "code_gen", "print(3)"))
    r = s.read()
    assert r["id"] == 3 and err_code(r) == -32000, r
    assert "max_calls" in r["error"]["message"]
    s.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": 1}}))
    assert s.read()["id"] == 2
    s.send(call_line(4, "code_gen", "print(4)"))
    assert s.read()["result"]["structuredContent"]["stdout"] == "4\n"
    assert s.close() == 0


def test_max_timeout_bounds_a_call_without_timeout(raw):
    """--max-timeout 2 and a call that names no timeout under a policy
    whose own is longer: the run ends at 2 s."""
    s = raw("--tool", "code_gen", "--max-timeout", "2")
    s.init()
    t0 = time.monotonic()
    s.send(call_line(1, "code_gen", "import time\ntime.sleep(60)"))
    r = s.read()["result"]
    assert r["structuredContent"]["outcome"] == "timeout", r
    assert time.monotonic() - t0 < 40      # a bound on a wait, not a speed
    assert s.close() == 0


def started(s, work):
    """The session's run and the long call's run, both under way."""
    deadline = time.monotonic() + 120      # a bound on a wait, not a speed
    while True:
        assert time.monotonic() < deadline, "the runs did not start"
        kids = children_of(s.p.pid)
        runs = [c for c in kids if b"session.py" in cmdline(c) or
                b"snippet.py" in cmdline(c)]
        if len(runs) == 2 and len(run_folders(work)) == 2:
            return set().union(*(tree_of(c) for c in runs))
        time.sleep(0.05)


# The server with a failure of its own on the line CRASH (its reading
# raises): what a bug in the server would do.
CRASHING = """import sys
from cordon import _jsonrpc as rpc, mcp
take = rpc.Channel.next
async def next_(self):
    item = await take(self)
    if item[1] == b"CRASH":
        raise RuntimeError("injected")
    return item
rpc.Channel.next = next_
sys.exit(mcp.main(sys.argv[1:]))
"""


def crashing(src_dir, build_dir):
    s = Raw.__new__(Raw)
    argv = server_argv(build_dir, "--tool", "code_gen")
    s.p = subprocess.Popen([PYTHON, "-c", CRASHING] + argv[3:],
                           env=server_env(src_dir, build_dir),
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE)
    return s


@pytest.mark.parametrize("end", ["eof", "sigterm", "sigint", "crash"])
def test_server_end_leaves_nothing(raw, tmp_path, monkeypatch, src_dir,
                                   build_dir, end):
    """A session and a long call in flight, the issue's line, then the
    server ends (EOF: the call times out at 3 s; a signal; a failure of
    its own): no process of it and no run folder remain."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("TMPDIR", str(work))
    s = crashing(src_dir, build_dir) if end == "crash" else \
        raw("--tool", "code_gen")
    try:
        ends_leaving_nothing(s, work, end)
    finally:
        if s.p.poll() is None:
            s.p.terminate()
            s.p.wait(60)


def ends_leaving_nothing(s, work, end):
    s.init()
    r = s.call(json.loads(call_line(1, "code_gen", "y = 1", session="s")))
    assert r["result"]["isError"] is False, r
    s.send(call_line(2, "code_gen", "import time\ntime.sleep(600)",
                     timeout=3 if end == "eof" else 300))
    tree = started(s, work)
    s.send(NULL_ID_LINES[0][0])
    s.ping(3)
    if end == "eof":
        s.p.stdin.close()
    elif end == "crash":
        s.send("CRASH")
    else:
        s.p.send_signal(signal.SIGTERM if end == "sigterm"
                        else signal.SIGINT)
    assert s.p.wait(120) == (1 if end == "crash" else 0)
    assert [p for p in tree if os.path.exists("/proc/%d" % p)] == []
    assert os.listdir(work) == []


def test_fuzz_harness_short(src_dir, build_dir):
    """tests/fuzz/fuzz_mcp.py (make fuzz runs it longer) for a few
    seconds, seed fixed: it runs, and finds nothing."""
    p = subprocess.run([PYTHON, str(src_dir / "tests" / "fuzz" /
                                    "fuzz_mcp.py"),
                        "--build", str(build_dir), "--seconds", "8",
                        "--seed", "1"], capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stdout + p.stderr
    assert ": ok" in p.stdout, p.stdout


def test_unread_answers_stop_reading(raw):
    """A client that writes and never reads: past about 1 MiB of unsent
    answers the server stops taking lines (its input fills: 20,000
    tools/list would be 50 MB of answers), then answers every one once
    the client reads."""
    import threading
    s = raw("--tool", "code_gen", "--max-line", "4096")
    s.init()
    n = 20000
    lines = b"".join(b'{"jsonrpc":"2.0","id":%d,"method":"tools/list"}\n'
                     % i for i in range(n))
    done = threading.Event()

    def write():
        s.p.stdin.write(lines)
        s.p.stdin.flush()
        done.set()
    threading.Thread(target=write, daemon=True).start()
    assert not done.wait(10), "the server took every line unread"
    for i in range(n):
        r = s.read()
        assert r["id"] == i and "tools" in r["result"], r
    assert done.wait(60)
    assert s.close() == 0


def test_session_ended_as_a_cell_starts(src_dir, build_dir, tmp_path):
    """A session's end (its idle timer having fired, end_session) taken
    while a cell is being sent: the cell says the session ended and why,
    never fails inside (an AssertionError that cordon-mcp answered with
    -32603; found by fuzz_mcp.py, seed 77)."""
    import asyncio
    from client_support import import_client
    cpkg = import_client(src_dir)

    async def go():
        c = cpkg.Client(str(build_dir / "policies"),
                        cordon=str(build_dir / "cordon"), work_root=tmp_path)
        try:
            s = c.session("code_gen")
            await s.start()
            ending = asyncio.ensure_future(s._finish("idle timeout"))
            # A cell longer than a pipe's buffer: its sending yields.
            cell = await s.run("x = 1  # " + "y" * 300000)
            await ending
            return cell
        finally:
            c.close()
    cell = asyncio.run(go())
    assert cell.session_ended and "idle timeout" in cell.end_reason, cell


def test_answers_in_order_whoever_writes_them(src_dir):
    """Short answers are written on the loop while the pipe has room and
    nothing waits for the writer thread; past that the thread writes.
    Whoever writes, the answers arrive whole and in order, and send()
    never blocks on a full pipe (the reader here starts only after all
    were sent)."""
    import asyncio
    import importlib
    import threading
    from client_support import import_client
    cpkg = import_client(src_dir)
    rpc = importlib.import_module(cpkg.__name__ + "._jsonrpc")
    n = 3000                # ~400 KB: well past a 64 KiB pipe
    got = []

    async def go():
        rin, win = os.pipe()
        rout, wout = os.pipe()
        ch = rpc.Channel(rin, wout, 1 << 16)
        direct = []
        for i in range(n):
            before = ch._inflight
            ch.send({"jsonrpc": "2.0", "id": i,
                     "result": {"pad": "x" * (i % 300)}})
            direct.append(before == 0 and ch._inflight == 0)

        def read():
            with os.fdopen(rout, "rb") as f:
                for _ in range(n):
                    got.append(json.loads(f.readline()))
        t = threading.Thread(target=read)
        t.start()
        await asyncio.get_running_loop().run_in_executor(None, t.join, 120)
        ch.close()
        os.close(win)           # the reader thread's EOF, taken here
        while (await ch.next())[0] != rpc.EOF:
            pass
        os.close(wout)
        return direct
    direct = asyncio.run(go())
    assert [m["id"] for m in got] == list(range(n))
    assert direct[0] and not all(direct)     # both paths were taken
