"""cordon-mcp killed by SIGKILL (no handler runs): every run, session,
warm pool and run folder it started ends with it (its guardian,
clients/python/cordon/_guard.py).  Polled with a generous deadline: no
timing is asserted."""
import json
import os
import signal
import subprocess
import threading
import time

import pytest

from test_mcp import (cmdline, server_argv,
                      server_env, tree_of)
from test_mcp_http import Served

DEADLINE = 180          # a bound on a wait, not a speed
SLEEP = "import time\ntime.sleep(600)"


def confined(pid):
    """pid runs under a seccomp filter: a run's process (cordon applies
    the filter just before the snippet; the server, its guardian, the
    pool's template and idle spares run without one)."""
    try:
        with open("/proc/%d/status" % pid, encoding="ascii") as f:
            return any(line.split() == ["Seccomp:", "2"] for line in f)
    except OSError:
        return False


def under_way(pid, what):
    """The run is being made: a process below the server under the run's
    seccomp filter (a cold run's cordon child, a session's, or a warm
    pool's spare that took the request).  The run's files are in its own
    tmpfs until it ends: no mark in the folder can say more.  A kill a
    little early must leave nothing all the same."""
    del what

    def found():
        return any(confined(c) for c in tree_of(pid) - {pid})
    wait_for(found, "the run did not start")
    time.sleep(1)       # the call reaches the run (not a bound on it)


def wait_for(what, why):
    """Poll what() until true; why (a string, or a function giving one
    when the wait fails: the state then, not the state before) says what
    was not seen."""
    end = time.monotonic() + DEADLINE
    while not what():
        assert time.monotonic() < end, why() if callable(why) else why
        time.sleep(0.05)


def start_time(pid):
    """Field 22 of /proc/PID/stat (clock ticks since boot), None when
    pid is gone."""
    try:
        with open("/proc/%d/stat" % pid, "rb") as f:
            return int(f.read().rsplit(b")", 1)[1].split()[19])
    except (OSError, IndexError, ValueError):
        return None


def cgroups_of(made_by):
    """Run cgroups (cordon-PIDNS-PID-START.XXXXXX, cgstale.c) made by
    one of made_by, a set of (PID, START): a group whose PID is one of
    these but whose START is not was made by an earlier process that had
    the same PID (perhaps under another parent group, where no sweep of
    ours reaches), and is none of this test's business."""
    out = []
    for top, dirs, _ in os.walk("/sys/fs/cgroup"):
        for d in dirs:
            parts = d.split(".")[0].split("-")
            if d.startswith("cordon-") and len(parts) == 4 and \
                    parts[2].isdigit() and parts[3].isdigit() and \
                    (int(parts[2]), int(parts[3])) in made_by:
                out.append(os.path.join(top, d))
    return out


def killed_leaves_nothing(pid, work):
    """SIGKILL pid with its runs under way; then nothing of it may stay."""
    tree = tree_of(pid) - {pid}
    assert [p for p in tree if confined(p)], "no run below the server"
    made_by = {(p, start_time(p)) for p in tree} - {(p, None) for p in tree}
    os.kill(pid, signal.SIGKILL)

    def alive():
        return [p for p in tree if (p, start_time(p)) in made_by]

    def gone():
        return not alive() and os.listdir(work) == [] and \
            not cgroups_of(made_by)
    wait_for(gone, lambda: "left behind: processes %s, folders %s, "
             "cgroups %s" % (alive(), os.listdir(work), cgroups_of(made_by)))


def stdio_server(src_dir, build_dir, work, *extra, scale=None):
    env = server_env(src_dir, build_dir)
    env["TMPDIR"] = str(work)
    if scale is not None:
        env["CORDON_TEST_CLOCK_SCALE"] = scale
    p = subprocess.Popen(server_argv(build_dir, "--tool", "code_gen",
                                     *extra),
                         env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def send(msg):
        p.stdin.write(json.dumps(msg).encode() + b"\n")
        p.stdin.flush()
    send({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "t", "version": "0"}}})
    assert json.loads(p.stdout.readline())["id"] == 0
    send({"jsonrpc": "2.0", "method": "notifications/initialized"})
    return p, send


def call(i, code, **args):
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "run_code", "arguments": dict(tool="code_gen", code=code,
                                              timeout=100, **args)}}


@pytest.mark.parametrize("what", ["call", "warm-call", "session",
                                  "warm-session"])
def test_sigkill_stdio(src_dir, build_dir, tmp_path, what):
    work = tmp_path / "work"
    work.mkdir()
    extra = ("--warm", "code_gen") if what.startswith("warm") else ()
    p, send = stdio_server(src_dir, build_dir, work, *extra)
    try:
        if what.endswith("session"):
            send(call(1, "y = 1", session="s"))
            r = json.loads(p.stdout.readline())
            assert r["result"]["isError"] is False, r
        send(call(2, SLEEP, **({"session": "s"}
                               if what.endswith("session") else {})))
        under_way(p.pid, what)
        killed_leaves_nothing(p.pid, work)
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()


@pytest.mark.parametrize("what", ["call", "session"])
def test_sigkill_http(src_dir, build_dir, tmp_path, monkeypatch, what):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("TMPDIR", str(work))     # server_env passes it on
    s = Served(src_dir, build_dir, tmp_path, "--tool", "code_gen",
               "--warm", "code_gen")
    try:
        sid = s.initialize()
        if what == "session":
            assert s.run(sid, "y = 1", session="s")["result"][
                "isError"] is False

        def hang():         # answered by nothing: the server is killed
            try:
                s.run(sid, SLEEP, **({"session": "s"}
                                     if what == "session" else {}))
            except (OSError, AssertionError, ValueError):
                pass
        t = threading.Thread(target=hang, daemon=True)
        t.start()
        under_way(s.proc.pid, "warm-" + what)
        killed_leaves_nothing(s.proc.pid, work)
        t.join(DEADLINE)
    finally:
        s.close()


def test_guardian_outlives_signals_to_the_server_group(src_dir, build_dir,
                                                        tmp_path):
    """The guardian leads a group of its own: a signal to the server's
    group (a terminal's ^C) leaves it, and the server's orderly end still
    removes its work root."""
    work = tmp_path / "work"
    work.mkdir()
    p, send = stdio_server(src_dir, build_dir, work)
    try:
        kids = [c for c in tree_of(p.pid) - {p.pid}
                if b"cordon._guard" in cmdline(c)]
        assert len(kids) == 1, kids
        assert os.getpgid(kids[0]) == kids[0] != os.getpgid(p.pid)
        assert len(os.listdir(work)) == 1       # the work root
        p.stdin.close()
        assert p.wait(DEADLINE) == 0
        assert os.listdir(work) == []
        wait_for(lambda: not os.path.exists("/proc/%d" % kids[0]),
                 "the guardian stayed")
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()



def test_half_an_hour_idle_keeps_the_session(src_dir, build_dir, tmp_path):
    """With cordon-mcp's defaults a session idle for 30 minutes keeps its
    state, and its idle timeout still ends it later.  The idle clock is
    scaled (CORDON_TEST_CLOCK_SCALE=0.002: 30 minutes in 3.6 s, the
    default hour in 7.2 s); the session's age is cordon's, unscaled."""
    work = tmp_path / "work"
    work.mkdir()
    env = server_env(src_dir, build_dir)
    env["TMPDIR"] = str(work)
    env["CORDON_TEST_CLOCK_SCALE"] = "0.002"
    p = subprocess.Popen(server_argv(build_dir, "--tool", "code_gen"),
                         env=env, stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def ask(msg):
        p.stdin.write(json.dumps(msg).encode() + b"\n")
        p.stdin.flush()
        return json.loads(p.stdout.readline())
    try:
        ask({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "t", "version": "0"}}})
        r = ask(call(1, "x = 41", session="s"))["result"]
        assert r["isError"] is False, r
        time.sleep(1800 * 0.002)                # half an hour, scaled
        r = ask(call(2, "x + 1", session="s"))["result"]
        assert r["structuredContent"]["value"] == "42", r
        # Past the idle timeout the session's run ends by itself ...
        wait_for(lambda: not [c for c in tree_of(p.pid)
                              if b"--session" in cmdline(c)],
                 "the idle session was not ended")
        # ... and its id says why.
        r = ask(call(3, "x", session="s"))
        assert "idle timeout" in json.dumps(r), r
        p.stdin.close()
        assert p.wait(DEADLINE) == 0
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()


@pytest.mark.parametrize("scale", ["2", "0", "-1", "x", "nan"])
def test_clock_scale_only_shortens(src_dir, build_dir, tmp_path, scale):
    """A scale that is not in (0, 1] is refused at the session's start
    (it could only lengthen the idle clock or mean nothing)."""
    work = tmp_path / "work"
    work.mkdir()
    p, send = stdio_server(src_dir, build_dir, work, scale=scale)
    try:
        send(call(1, "x = 1", session="s"))
        r = json.loads(p.stdout.readline())
        assert r["result"]["isError"] is True, r
        assert "CORDON_TEST_CLOCK_SCALE" in json.dumps(r), r
        p.stdin.close()
        assert p.wait(DEADLINE) == 0
    finally:
        if p.poll() is None:
            p.kill()
        p.wait()
