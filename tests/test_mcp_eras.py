"""cordon-mcp's two eras of MCP (cordon-mcp(1), PROTOCOL): the
initialize era (2024-11-05 to 2025-11-25) and 2026-07-28's stateless
requests (server/discover, the version and capabilities in each request's
_meta, resultType on every result, caching hints on lists).  The official
2.x client (tests/mcp/client2.mjs) pinned to 2026-07-28, probing (auto)
and legacy; then raw lines."""
import json
import subprocess

import pytest

from test_mcp import (PYTHON, STEP_TIMEOUT, err_code, raw,  # noqa: F401
                      server_argv, server_env)

MODERN = "2026-07-28"
META = {"io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"}}
SERVER_INFO = "io.modelcontextprotocol/serverInfo"
TOOLS = ["run_code", "list_policies", "explain_policy", "end_session"]


@pytest.fixture(scope="module")
def node2(src_dir):
    import shutil
    exe = shutil.which("node")
    if exe is None:
        pytest.skip("no node (Node 20: make deps' npm needs it)")
    pkg = (src_dir / "tests" / "mcp" / "node_modules" /
           "@modelcontextprotocol" / "client" / "package.json")
    if not pkg.exists():
        pytest.skip("the MCP client 2.x is not installed in tests/mcp "
                    "(make deps runs npm ci there)")
    return exe


@pytest.mark.parametrize("mode,era,version", [
    ("pin", "modern", MODERN), ("auto", "modern", MODERN),
    ("legacy", "legacy", "2025-11-25")])
def test_client_2x(node2, src_dir, build_dir, mode, era, version):
    """The 2.x client lists the tools and runs print(1) in each mode, and
    lands in the era the stdio probe rules say."""
    spec = {"command": PYTHON, "args": server_argv(build_dir)[1:],
            "env": server_env(src_dir, build_dir)}
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
           "CORDON_MCP_SERVER": json.dumps(spec)}
    p = subprocess.run([node2, str(src_dir / "tests" / "mcp" /
                                   "client2.mjs"), mode],
                       env=env, capture_output=True, text=True,
                       timeout=STEP_TIMEOUT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1] == \
        f"ok {mode} {era} {version}", p.stdout


def modern(i, method, meta=META, **params):
    return {"jsonrpc": "2.0", "id": i, "method": method,
            "params": {"_meta": meta, **params}}


def test_discover_without_initialize(raw):
    s = raw()
    r = s.call(modern(1, "server/discover"))["result"]
    assert r["resultType"] == "complete"
    assert r["supportedVersions"][:2] == [MODERN, "2025-11-25"]
    assert "2024-11-05" in r["supportedVersions"]
    assert r["capabilities"]["tools"] == {"listChanged": False}
    assert r["_meta"][SERVER_INFO]["name"] == "cordon-mcp"
    assert r["ttlMs"] >= 0 and r["cacheScope"] == "public"
    assert "run_code" in r["instructions"]
    assert s.close() == 0


def test_modern_requests_are_stateless(raw):
    """tools/list and tools/call with the version in _meta, no initialize:
    resultType on each, caching hints on the list, the same list twice."""
    s = raw()
    a = s.call(modern(1, "tools/list"))["result"]
    b = s.call(modern(2, "tools/list"))["result"]
    assert a == b
    assert [t["name"] for t in a["tools"]] == TOOLS
    assert a["resultType"] == "complete" and a["cacheScope"] == "public"
    assert isinstance(a["ttlMs"], int) and a["ttlMs"] > 0
    assert a["_meta"][SERVER_INFO]["name"] == "cordon-mcp"
    run = next(t for t in a["tools"] if t["name"] == "run_code")
    assert "outputSchema" in run
    r = s.call(modern(3, "tools/call", name="run_code", arguments={
        "tool": "code_gen", "code": "print(1)"}))["result"]
    assert r["resultType"] == "complete" and r["isError"] is False
    assert r["structuredContent"]["stdout"] == "1\n"
    assert r["_meta"][SERVER_INFO]["name"] == "cordon-mcp"
    assert "ttlMs" not in r
    # A tool's own error in a modern call: a result, resultType too.
    r = s.call(modern(4, "tools/call", name="run_code", arguments={
        "tool": "code_gen", "code": "raise SystemExit(3)"}))["result"]
    assert r["resultType"] == "complete" and r["isError"] is True
    assert s.close() == 0


def test_unsupported_version(raw):
    s = raw()
    for i, asked in enumerate(("1900-01-01", "2099-01-01", "2025-11-25",
                               7)):
        meta = dict(META, **{"io.modelcontextprotocol/protocolVersion":
                             asked})
        for method in ("server/discover", "tools/list"):
            r = s.call(modern(i, method, meta))
            assert err_code(r) == -32022, r
            assert r["error"]["data"]["requested"] == asked
            assert r["error"]["data"]["supported"][0] == MODERN
            assert "2025-11-25" in r["error"]["data"]["supported"]
    assert s.close() == 0


def test_meta_checked(raw):
    """A modern request without its required _meta fields is malformed
    (-32602); a method 2026-07-28 lacks is not found; an era-less
    request before initialize is refused, not served as legacy."""
    s = raw()
    no_caps = {"io.modelcontextprotocol/protocolVersion": MODERN}
    r = s.call(modern(1, "tools/list", no_caps))
    assert err_code(r) == -32602 and "clientCapabilities" in \
        r["error"]["message"]
    r = s.call({"jsonrpc": "2.0", "id": 2, "method": "server/discover"})
    assert err_code(r) == -32602
    r = s.call(modern(3, "server/discover", {"other": 1}))
    assert err_code(r) == -32602
    for i, method in ((4, "ping"), (5, "initialize"), (6, "resources/list")):
        assert err_code(s.call(modern(i, method))) == -32601
    r = s.call({"jsonrpc": "2.0", "id": 7, "method": "tools/list"})
    assert err_code(r) == -32600 and "initialize" in r["error"]["message"]
    # A modern notification (cancelled) is taken, never answered.
    s.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"_meta": META, "requestId": 99}}))
    assert "result" in s.call(modern(8, "server/discover"))
    assert s.close() == 0


def test_both_eras_on_one_channel(raw):
    """initialize picks legacy for the channel's era-less requests (no
    resultType); a request naming 2026-07-28 is still served modern."""
    s = raw()
    assert s.init("2025-11-25")["protocolVersion"] == "2025-11-25"
    legacy = s.call({"jsonrpc": "2.0", "id": 1,
                     "method": "tools/list"})["result"]
    assert "resultType" not in legacy and "ttlMs" not in legacy
    s.ping(2)
    r = s.call(modern(3, "tools/list"))["result"]
    assert r["resultType"] == "complete"
    assert r["tools"] == legacy["tools"]
    assert s.close() == 0


def test_busy_in_each_era(raw):
    """Past --max-calls: -32000 in the initialize era, -31000 (outside
    the range 2026-07-28 keeps for earlier implementations) in the
    modern one."""
    s = raw("--max-calls", "1")
    s.init("2025-11-25")
    slow = {"tool": "code_gen", "code": "import time; time.sleep(30)"}
    s.send(json.dumps(modern(1, "tools/call", name="run_code",
                             arguments=slow)))
    r = s.call(modern(2, "tools/call", name="run_code", arguments=slow))
    assert err_code(r) == -31000 and "max_calls" in r["error"]["message"]
    r = s.call({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                "params": {"name": "run_code", "arguments": slow}})
    assert err_code(r) == -32000
    s.send(json.dumps({"jsonrpc": "2.0", "method": "notifications/cancelled",
                       "params": {"requestId": 1}}))
    s.ping(4)
    assert s.close() == 0
