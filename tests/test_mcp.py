"""cordon-mcp (clients/python/cordon/mcp.py), driven by a client nobody
here wrote: the official MCP TypeScript SDK (tests/mcp/client.mjs, its
Client and StdioClientTransport; installed by make deps from
tests/mcp/package-lock.json).  Malformed input is sent as raw lines,
outside the SDK, which cannot write it.  Root and uid 65534
(tests/run-pytest.sh copies tests/ with tests/mcp/node_modules)."""
import json
import os
import shutil
import subprocess

import pytest

PYTHON = "/usr/bin/python3"
STEP_TIMEOUT = 900


def has_matplotlib():
    return subprocess.run([PYTHON, "-c", "import matplotlib"],
                          capture_output=True).returncode == 0


def server_env(src_dir, build_dir):
    env = {"PATH": "%s:/usr/bin:/bin" % build_dir, "LANG": "C.UTF-8",
           "PYTHONPATH": str(src_dir / "clients" / "python")}
    for k in ("HOME", "TMPDIR"):
        if k in os.environ:
            env[k] = os.environ[k]
    return env


def server_argv(build_dir, *extra):
    return [PYTHON, "-m", "cordon.mcp", "--policy-dir",
            str(build_dir / "policies"), *extra]


@pytest.fixture(scope="module")
def node(src_dir):
    exe = shutil.which("node")
    if exe is None:
        pytest.skip("no node (Node 20: make deps' npm needs it)")
    sdk = (src_dir / "tests" / "mcp" / "node_modules" /
           "@modelcontextprotocol" / "sdk" / "package.json")
    if not sdk.exists():
        pytest.skip("the MCP TypeScript SDK is not installed in tests/mcp "
                    "(make deps runs npm ci there)")
    return exe


STEPS = ["basics", "failure", "image", "timeout", "cancel", "concurrent",
         "bad", "sessions", "session_limit", "session_idle", "session_age",
         "session_cancel"]
# The server's options a step needs (the limit it hits).
STEP_ARGS = {"session_limit": ["--max-sessions", "2"],
             "session_idle": ["--session-idle", "1"],
             "session_age": ["--session-max-age", "10"]}


@pytest.mark.parametrize("step", STEPS)
def test_sdk_client(node, src_dir, build_dir, step):
    """One step of tests/mcp/client.mjs: the SDK's Client starts the
    server with StdioClientTransport and checks what it answers."""
    if step == "image" and not has_matplotlib():
        pytest.skip("python3-matplotlib is not installed (make deps)")
    spec = {"command": PYTHON,
            "args": server_argv(build_dir, *STEP_ARGS.get(step, ()))[1:],
            "env": server_env(src_dir, build_dir)}
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
           "CORDON_MCP_SERVER": json.dumps(spec)}
    p = subprocess.run([node, str(src_dir / "tests" / "mcp" / "client.mjs"),
                        step], env=env, capture_output=True, text=True,
                       timeout=STEP_TIMEOUT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1] == "ok " + step, p.stdout


class Raw:
    """The server on pipes, spoken to a line at a time."""

    def __init__(self, src_dir, build_dir, *extra):
        self.p = subprocess.Popen(server_argv(build_dir, *extra),
                                  env=server_env(src_dir, build_dir),
                                  stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE)

    def send(self, line):
        self.p.stdin.write(line if isinstance(line, bytes)
                           else line.encode())
        self.p.stdin.write(b"\n")
        self.p.stdin.flush()

    def call(self, msg):
        self.send(json.dumps(msg))
        return self.read()

    def read(self):
        line = self.p.stdout.readline()
        assert line, self.p.stderr.read().decode()
        return json.loads(line)

    def init(self, version="2025-06-18"):
        r = self.call({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                       "params": {"protocolVersion": version,
                                  "capabilities": {},
                                  "clientInfo": {"name": "raw",
                                                 "version": "0"}}})
        self.send(json.dumps({"jsonrpc": "2.0",
                              "method": "notifications/initialized"}))
        return r["result"]

    def ping(self, i):
        assert self.call({"jsonrpc": "2.0", "id": i, "method": "ping"}) == \
            {"jsonrpc": "2.0", "id": i, "result": {}}

    def close(self):
        self.p.stdin.close()
        rc = self.p.wait(120)
        self.p.stdout.close()
        self.p.stderr.close()
        return rc


@pytest.fixture
def raw(src_dir, build_dir):
    servers = []

    def start(*extra):
        s = Raw(src_dir, build_dir, *extra)
        servers.append(s)
        return s
    yield start
    for s in servers:       # SIGTERM: the server ends its runs (SIGKILL
        if s.p.poll() is None:      # would leave them and their folders)
            s.p.terminate()
            try:
                s.p.wait(60)
            except subprocess.TimeoutExpired:
                s.p.kill()
                s.p.wait()


def err_code(resp):
    assert "error" in resp, resp
    return resp["error"]["code"]


def test_bad_lines_answered_and_server_goes_on(raw):
    s = raw("--max-line", "4096")
    s.send('{"jsonrpc":"2.0","id":1,"method":"tools/list"}')
    assert err_code(s.read()) == -32600         # before initialize
    s.ping(2)                                   # ping is always answered
    s.init()
    for line, code in ((b"{not json", -32700), (b"\xff\xfe", -32700),
                       (b"42", -32600), (b"[]", -32600),
                       (b'[{"jsonrpc":"2.0","id":3,"method":"ping"}]',
                        -32600),
                       (b'{"id":4,"method":"ping"}', -32600),
                       (b'{"jsonrpc":"2.0","id":5}', -32600),
                       (b'{"jsonrpc":"2.0","id":null,"method":"ping"}',
                        -32600),
                       (b'{"jsonrpc":"2.0","id":6,"method":7}', -32600),
                       (b'{"jsonrpc":"2.0","id":7,"method":"nope"}', -32601),
                       (b'{"jsonrpc":"2.0","id":8,"method":"tools/call",'
                        b'"params":[]}', -32602),
                       (b'{"jsonrpc":"2.0","id":9,"method":"tools/call",'
                        b'"params":{"name":"run_code","arguments":[1]}}',
                        -32602),
                       (b'{"jsonrpc":"2.0","id":10,"method":"tools/call",'
                        b'"params":{"name":"nope","arguments":{}}}', -32602),
                       (b"[" * 4000, -32700),
                       (b'{"jsonrpc":"2.0","id":11,"method":"tools/call",'
                        b'"params":{"name":"run_code","arguments":{"tool":'
                        b'"code_gen","code":"print(1) # \\ud800"}}}',
                        -32602),
                       (b'{"jsonrpc":"2.0","id":"' + b"x" * 10000 + b'"}',
                        -32600)):
        s.send(line)
        r = s.read()
        assert err_code(r) == code, (line[:80], r)
        s.ping(100)                             # and it keeps serving
    # A notification, known or not, gets no answer: the next line read is
    # the ping's.
    s.send('{"jsonrpc":"2.0","method":"notifications/whatever"}')
    s.send('{"jsonrpc":"2.0","method":"notifications/cancelled",'
           '"params":{"requestId":12345}}')
    s.ping(101)
    assert s.close() == 0                       # EOF: the server ends


def test_version_negotiation(raw):
    for asked, got in (("2025-06-18", "2025-06-18"),
                       ("2025-03-26", "2025-03-26"),
                       ("2024-11-05", "2024-11-05"),
                       ("2025-11-25", "2025-11-25"),
                       ("2026-07-28", "2025-11-25"),
                       ("1999-01-01", "2025-11-25")):
        s = raw()
        res = s.init(asked)
        assert res["protocolVersion"] == got
        assert res["serverInfo"]["name"] == "cordon-mcp"
        tools = s.call({"jsonrpc": "2.0", "id": 1,
                        "method": "tools/list"})["result"]["tools"]
        run = [t for t in tools if t["name"] == "run_code"][0]
        # Output schemas and structured content came with 2025-06-18.
        assert ("outputSchema" in run) == (got >= "2025-06-18"), (asked, run)
        assert s.close() == 0


def test_in_flight_call_answered_after_eof(raw):
    """The client closes stdin after a call: the run's answer still
    comes, then the server ends."""
    s = raw()
    s.init("2024-11-05")
    s.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "run_code", "arguments": {
                           "tool": "code_gen", "code": "print(5)"}}}))
    s.p.stdin.close()
    r = s.read()
    assert r["id"] == 1 and r["result"]["isError"] is False, r
    assert "structuredContent" not in r["result"]      # 2024-11-05
    assert "5\n" in r["result"]["content"][0]["text"]
    assert s.p.wait(120) == 0


def test_warm_pool_from_command_line(raw):
    """--warm: that policy's calls run in a warm pool (the status says
    so), the other exposed one's cold; the pool ends with the server."""
    s = raw("--tool", "code_gen", "--tool", "radiomics", "--warm",
            "code_gen")
    s.init()
    for i, (tool, warm) in enumerate((("code_gen", True),
                                      ("radiomics", False),
                                      ("code_gen", True))):
        r = s.call({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "run_code", "arguments": {
                        "tool": tool, "code": "print(%d)" % i}}})
        sc = r["result"]["structuredContent"]
        assert sc["stdout"] == "%d\n" % i, r
        assert sc["warm"] is warm, (tool, sc)
    assert s.close() == 0


def test_warm_tool_session_starts_from_its_pool(raw):
    """--warm: a session of that tool is a spare of its pool (the
    preloads already imported), another tool's is cold; one cap over
    both (--max-sessions 1)."""
    s = raw("--tool", "code_gen", "--tool", "radiomics", "--warm",
            "code_gen", "--max-sessions", "1")
    s.init()

    def cell(i, tool, sid, code):
        return s.call({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                       "params": {"name": "run_code", "arguments": {
                           "tool": tool, "code": code, "session": sid}}})
    probe = "import sys\nprint('pandas' in sys.modules)"
    r = cell(1, "code_gen", "w", probe)
    assert r["result"]["structuredContent"]["stdout"] == "True\n", r
    r = cell(2, "radiomics", "c", probe)
    assert r["result"]["isError"] is True, r
    assert "max_sessions" in r["result"]["content"][0]["text"], r
    s.call({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "end_session", "arguments": {
                "session": "w"}}})
    r = cell(4, "radiomics", "c", probe)
    assert r["result"]["structuredContent"]["stdout"] == "False\n", r
    assert s.close() == 0


def test_config_file(raw, tmp_path, src_dir, build_dir):
    cfg = tmp_path / "mcp.json"
    cfg.write_text(json.dumps({"tools": ["code_gen"], "max_timeout": 7,
                               "max_sessions": 1}))
    s = raw("--config", str(cfg))
    s.init()
    tools = s.call({"jsonrpc": "2.0", "id": 1,
                    "method": "tools/list"})["result"]["tools"]
    run = [t for t in tools if t["name"] == "run_code"][0]
    props = run["inputSchema"]["properties"]
    assert props["tool"]["enum"] == ["code_gen"]
    assert props["timeout"]["maximum"] == 7
    r = s.call({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
                "params": {"name": "run_code", "arguments": {
                    "tool": "code_gen", "code": "1", "timeout": 8}}})
    assert err_code(r) == -32602 and "timeout" in r["error"]["message"]
    r = s.call({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "explain_policy",
                           "arguments": {"tool": "radiomics"}}})
    assert err_code(r) == -32602                # not exposed
    for i, (sid, refused) in enumerate((("a", False), ("b", True))):
        r = s.call({"jsonrpc": "2.0", "id": 4 + i, "method": "tools/call",
                    "params": {"name": "run_code", "arguments": {
                        "tool": "code_gen", "code": "1", "session": sid}}})
        assert r["result"]["isError"] is refused, r
    assert "maximum is 1" in r["result"]["content"][0]["text"]
    assert s.close() == 0
    # A config the server cannot use: a clear error, exit 2, nothing served.
    for bad, word in (({"tools": ["no_such_policy"]}, "no_such_policy"),
                      ({"max_timeuot": 3}, "max_timeuot"),
                      ({"warm": ["radiomics"], "tools": ["code_gen"]},
                       "radiomics"),
                      ({"concurrency": "4"}, "concurrency"),
                      ({"max_sessions": 0}, "max_sessions"),
                      ({"session_idle": 0}, "session_idle"),
                      ({"session_max_age": -1}, "session_max_age")):
        cfg.write_text(json.dumps(bad))
        p = subprocess.run(server_argv(build_dir, "--config", str(cfg)),
                           env=server_env(src_dir, build_dir),
                           stdin=subprocess.DEVNULL, capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 2 and word in p.stderr, (bad, p.stderr)
        assert p.stdout == ""


def readme_block(src_dir, first):
    from test_readme import block
    return block(src_dir, first)


def shim(tmp_path):
    """cordon-mcp on PATH as make install writes it (the packages' console
    script runs the same function)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    exe = bin_dir / "cordon-mcp"
    exe.write_text('#!/bin/sh\nexec %s -m cordon.mcp "$@"\n' % PYTHON)
    exe.chmod(0o755)
    return bin_dir


def sdk_step(node, src_dir, step, spec, **env):
    e = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
         "CORDON_MCP_SERVER": json.dumps(spec), **env}
    p = subprocess.run([node, str(src_dir / "tests" / "mcp" / "client.mjs"),
                        step], env=e, capture_output=True, text=True,
                       timeout=STEP_TIMEOUT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1] == "ok " + step, p.stdout


def tools_named(args):
    return sorted(args[i + 1] for i, a in enumerate(args) if a == "--tool")


def test_readme_mcp_servers_entry(node, src_dir, build_dir, tmp_path):
    """The README's mcpServers entry, verbatim: the SDK client starts the
    command it names with its args (build/ on PATH, as installed)."""
    entry = json.loads(readme_block(src_dir, '{\n  "mcpServers"'))
    server = entry["mcpServers"]["cordon"]
    env = server_env(src_dir, build_dir)
    env["PATH"] = "%s:%s" % (shim(tmp_path), env["PATH"])
    spec = {"command": server["command"], "args": server["args"], "env": env}
    sdk_step(node, src_dir, "readme", spec, CORDON_MCP_EXPECT_TOOLS=json.dumps(
        tools_named(server["args"])))


def pydantic_example(src_dir):
    import ast
    code = readme_block(src_dir, "import asyncio\nfrom pydantic_ai import")
    tree = ast.parse(code)
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)
             and getattr(n.func, "id", None) == "MCPServerStdio"]
    assert len(calls) == 1
    call = calls[0]
    command = ast.literal_eval(call.args[0])
    args = ast.literal_eval([k.value for k in call.keywords
                             if k.arg == "args"][0])
    return code, command, args


def test_readme_pydantic_ai_server(node, src_dir, build_dir, tmp_path):
    """The README's pydantic-ai example: Python that parses, and the
    server it starts (its MCPServerStdio command and args, read from the
    code) serves the SDK client.  The agent itself needs pydantic-ai and
    a model: see test_readme_pydantic_ai_toolset."""
    _, command, args = pydantic_example(src_dir)
    assert command == "cordon-mcp"
    env = server_env(src_dir, build_dir)
    env["PATH"] = "%s:%s" % (shim(tmp_path), env["PATH"])
    spec = {"command": command, "args": args, "env": env}
    sdk_step(node, src_dir, "readme", spec,
             CORDON_MCP_EXPECT_TOOLS=json.dumps(tools_named(args)))


def test_readme_pydantic_ai_toolset(src_dir, build_dir, tmp_path):
    """With pydantic-ai installed: the example's own objects (all but its
    last line, which asks a model), and the toolset lists cordon's tools
    through pydantic-ai's MCP client."""
    if subprocess.run([PYTHON, "-c", "import pydantic_ai.mcp"],
                      capture_output=True).returncode:
        pytest.skip("pydantic-ai is not installed (PyPI only; not in "
                    "make deps): its example is checked by "
                    "test_readme_pydantic_ai_server without it")
    code, _, _ = pydantic_example(src_dir)
    body = code.rsplit("asyncio.run(main())", 1)[0]
    body += ("async def tools():\n    async with cordon:\n"
             "        print(sorted(t.name for t in await cordon.list_tools()))"
             "\n\nasyncio.run(tools())\n")
    (tmp_path / "example.py").write_text(body)
    env = server_env(src_dir, build_dir)
    env["PATH"] = "%s:%s" % (shim(tmp_path), env["PATH"])
    p = subprocess.run([PYTHON, "example.py"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=300)
    assert p.returncode == 0, p.stderr
    assert "run_code" in p.stdout, p.stdout


def children_of(pid):
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                stat = open("/proc/%s/stat" % d).read()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.append(int(d))
    return out


def cmdline(pid):
    try:
        with open("/proc/%d/cmdline" % pid, "rb") as f:
            return f.read()
    except OSError:
        return b""


def run_folders(work):
    """The run and session folders below work (TMPDIR): inside the
    server's work root, cordon-mcp-*, which its guardian removes."""
    out = []
    for name in os.listdir(work):
        if name.startswith("cordon-mcp-"):
            out += os.listdir(os.path.join(work, name))
        else:
            out.append(name)
    return out


def test_sigterm_ends_calls_in_flight(raw, tmp_path, monkeypatch):
    """SIGTERM with a run in flight (what an MCP client sends a server
    that does not exit): the run is ended, its folder removed, the server
    exits 0 without answering it."""
    import signal
    import time
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("TMPDIR", str(work))     # the server's run folders
    s = raw("--tool", "code_gen")
    s.init()
    s.send(json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                       "params": {"name": "run_code", "arguments": {
                           "tool": "code_gen", "timeout": 300,
                           "code": "import time\ntime.sleep(600)"}}}))
    deadline = time.monotonic() + 120      # a bound on a wait, not a speed
    tree = set()
    while len(tree) < 2 or not run_folders(work):
        assert time.monotonic() < deadline, "the run did not start"
        time.sleep(0.05)
        # cordon running the snippet, and the run's processes below it
        tree = {c for c in children_of(s.p.pid)
                if b"snippet.py" in cmdline(c)}
        while tree:
            more = {g for p in tree for g in children_of(p)} - tree
            if not more:
                break
            tree |= more
    s.p.send_signal(signal.SIGTERM)
    assert s.p.wait(120) == 0
    assert s.p.stdout.read() == b""        # no answer to the ended call
    # Nothing of the run was left to init: cordon and its tree are gone.
    assert [p for p in tree if os.path.exists("/proc/%d" % p)] == []
    assert os.listdir(work) == []


def tree_of(pid):
    tree = {pid}
    while True:
        more = {c for p in tree for c in children_of(p)} - tree
        if not more:
            return tree
        tree |= more


def test_sessions_closed_at_eof(raw, tmp_path, monkeypatch):
    """Stdin's EOF with two sessions live: both runs end, their folders
    are removed, the server exits 0 and leaves no process behind."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.setenv("TMPDIR", str(work))     # the sessions' folders
    s = raw("--tool", "code_gen")
    s.init()
    for i, sid in enumerate(("one", "two")):
        r = s.call({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                    "params": {"name": "run_code", "arguments": {
                        "tool": "code_gen", "session": sid,
                        "code": "open('f', 'w').write('x'); y = %d" % i}}})
        assert r["result"]["isError"] is False, r
    runs = [c for c in children_of(s.p.pid) if b"session.py" in cmdline(c)]
    assert len(runs) == 2, runs
    trees = set().union(*(tree_of(c) for c in runs))
    assert len(run_folders(work)) == 2
    assert s.close() == 0
    assert [p for p in trees if os.path.exists("/proc/%d" % p)] == []
    assert os.listdir(work) == []


# The MCP inspector's CLI (mcp-inspector --cli): its releases from 0.14 on
# ask for Node >= 22.7.5 (2.x: >= 22.19.0; npm view, 2026-12); 0.13.0
# declares no engines and runs on Node 20, so package-lock.json pins it.
INSPECTOR = ("node_modules", ".bin", "mcp-inspector")


def inspect(node, src_dir, build_dir, *method):
    exe = src_dir.joinpath("tests", "mcp", *INSPECTOR)
    if not exe.exists():
        pytest.skip("the MCP inspector is not installed in tests/mcp "
                    "(make deps runs npm ci there)")
    env = server_env(src_dir, build_dir)
    sets = ["-e", "PYTHONPATH=" + env["PYTHONPATH"], "-e",
            "PATH=" + env["PATH"], "-e", "LANG=C.UTF-8"]
    argv = [node, str(exe), "--cli", *sets, PYTHON,
            *server_argv(build_dir, "--tool", "code_gen")[1:], *method]
    p = subprocess.run(argv, env={**env, "PATH": "/usr/bin:/bin"},
                       capture_output=True, text=True, timeout=STEP_TIMEOUT,
                       cwd=str(src_dir / "tests" / "mcp"))
    assert p.returncode == 0, p.stdout + p.stderr
    return json.loads(p.stdout)


def test_inspector_cli(node, src_dir, build_dir):
    """The MCP inspector's CLI, another client nobody here wrote, lists
    the tools and runs code (a plain run and a session's cell)."""
    listed = inspect(node, src_dir, build_dir, "--method", "tools/list")
    assert sorted(t["name"] for t in listed["tools"]) == [
        "end_session", "explain_policy", "list_policies", "run_code"]
    res = inspect(node, src_dir, build_dir, "--method", "tools/call",
                  "--tool-name", "run_code", "--tool-arg", "tool=code_gen",
                  "--tool-arg", "code=print(6 * 7)")
    assert res["isError"] is False, res
    assert res["structuredContent"]["stdout"] == "42\n"
    res = inspect(node, src_dir, build_dir, "--method", "tools/call",
                  "--tool-name", "run_code", "--tool-arg", "tool=code_gen",
                  "--tool-arg", "session=i1", "--tool-arg", "code=6 * 7")
    assert res["structuredContent"]["value"] == "42", res


def test_man_page_names_every_option(src_dir, build_dir):
    """cordon-mcp(1)'s SYNOPSIS and OPTIONS name each option --help
    lists, and the configuration keys each option's."""
    import re
    p = subprocess.run(server_argv(build_dir, "--help"),
                       env=server_env(src_dir, build_dir),
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, p.stderr
    opts = set(re.findall(r"(?<![\w-])--([a-z][a-z-]+)", p.stdout))
    opts -= {"help", "version"}
    man = (src_dir / "man" / "cordon-mcp.1").read_text()
    synopsis = man.split(".Sh DESCRIPTION")[0]
    assert opts == set(re.findall(r"\.Op Fl -([a-z-]+)", synopsis))
    listed = set(re.findall(r"^\.It Fl -([a-z-]+)", man, re.M))
    listed |= set(re.findall(r", Fl -([a-z-]+)", man))
    assert opts == listed
    config = man.split(".Sh CONFIGURATION")[1].split(".Sh ")[0]
    keys = set(re.findall(r"[a-z]+(?:_[a-z]+)*", " ".join(
        re.findall(r"^\.Li (.*)$", config, re.M))))
    want = {o.replace("-", "_") for o in opts} - {"config", "tool"}
    assert want | {"tools"} <= keys, (want | {"tools"}) - keys


def test_session_first_calls_at_once_share_it(raw):
    """Two calls with a new id sent together start one session: both
    cells run in the same interpreter, one after the other."""
    s = raw("--tool", "code_gen")
    s.init()
    for i in (1, 2):
        s.send(json.dumps({"jsonrpc": "2.0", "id": i, "method": "tools/call",
                           "params": {"name": "run_code", "arguments": {
                               "tool": "code_gen", "session": "same",
                               "code": "n = globals().get('n', 0) + 1\n"
                                       "(n, id(__builtins__))"}}}))
    got = sorted(s.read()["result"]["structuredContent"]["value"]
                 for _ in (1, 2))
    assert [v.split(",")[0] for v in got] == ["(1", "(2"], got
    assert got[0].split(",")[1] == got[1].split(",")[1], got
    runs = [c for c in children_of(s.p.pid) if b"session.py" in cmdline(c)]
    assert len(runs) == 1, runs
    assert s.close() == 0
