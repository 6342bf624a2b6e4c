"""cordon-mcp's results sized for a model and its refusals said
(clients/python/cordon/_mcpsize.py, _mcptools.py, result.py; issue 37,
items 2 and 3): text within a budget, images bounded by bytes and
pixels, other files as text or resources, the reply under the SDKs'
10 MiB message, open figures returned, the proxy's refusals in
RunResult, the MCP text and SnippetFailed, expected refusals never
under "denied:", tool descriptions and explain_policy a model can use.
The sizing is checked on results made here (no run); the rest live,
through the server and through the official SDK's client
(tests/mcp/results.mjs)."""
import base64
import json
import os
import shutil
import struct
import subprocess
import zlib

import pytest

from client_support import import_client
from test_mcp import (PYTHON, STEP_TIMEOUT, has_matplotlib, server_argv,
                      server_env)

SDK_LIMIT = 10 << 20        # the TypeScript SDK's stdio message, bytes
V = "2025-06-18"


@pytest.fixture(scope="module")
def cordon(src_dir):
    return import_client(src_dir)


@pytest.fixture(scope="module")
def tools(cordon):
    import cordon._mcptools as t
    return t


@pytest.fixture(scope="module")
def size(cordon):
    import cordon._mcpsize as s
    return s


def fake_run(cordon, stdout=b"", stderr=b"", outputs=None, refused=(),
             denials=(), status=None, exit_code=0):
    from cordon.outputs import OutputFile
    from cordon.result import Layers, Outcome, RunResult, Timings
    outs = {n: OutputFile(n, len(d), "binary", d)
            for n, d in (outputs or {}).items()}
    return RunResult(
        tool="code_gen", outcome=Outcome.EXITED, reason="exited",
        exit_code=exit_code, signal=0, stdout=stdout, stderr=stderr,
        stdout_truncated=False, stderr_truncated=False, timings=Timings(),
        layers=Layers(), policy="code_gen", blob="0" * 64, outputs=outs,
        refused=tuple(refused), status=status or {}, denials=tuple(denials))


def png(w, h, pad=0):
    """A PNG header with this size (IHDR), padded to pad bytes."""
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    chunk = struct.pack(">I", 13) + b"IHDR" + ihdr + struct.pack(
        ">I", zlib.crc32(b"IHDR" + ihdr))
    data = b"\x89PNG\r\n\x1a\n" + chunk
    return data + b"\0" * max(0, pad - len(data))


def jpeg(w, h):
    """A JPEG's first segments: SOI, an APP0, then SOF0 with the size."""
    app0 = b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\0" + b"\0" * 9
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, h, w, 1) + b"\x01\x11\0"
    return b"\xff\xd8" + app0 + sof + b"\xff\xd9"


def texts(res):
    return "\n".join(c["text"] for c in res["content"] if c["type"] == "text")


# ---- text within a budget -------------------------------------------------

def test_big_print_bounded_head_and_tail_said(cordon, tools):
    out = b"H" * 1000 + b"x" * 5_000_000 + b"T" * 1000
    res = tools.run_result(fake_run(cordon, stdout=out, stderr=b"oops\n"), V)
    t = texts(res)
    assert len(t.encode()) < 25_000
    assert t.split("--- stdout ---\n")[1].startswith("H" * 1000)
    assert "T" * 1000 + "\n--- stderr ---\noops" in t
    assert "bytes of stdout left out here, of 5,002,000" in t
    sc = res["structuredContent"]
    assert len(sc["stdout"].encode()) < 21_000
    assert "left out here" in sc["stdout"]
    assert sc["stderr"] == "oops\n" and sc["stdout_bytes"] == 5_002_000
    assert len(json.dumps(res)) < 60_000


def test_text_budget_configurable_and_utf8_kept(cordon, tools):
    out = "é".encode() * 100_000
    res = tools.run_result(fake_run(cordon, stdout=out), V,
                           tools.limits(1001))
    s = res["structuredContent"]["stdout"]
    assert "\ufffd" not in s            # cut between characters
    assert len(s.split("\n[cordon-mcp")[0].encode()) <= 401


def test_cli_option_sets_text_budget(cordon):
    from cordon.mcp import parse_config
    assert parse_config([]).max_text_bytes == 20_000
    assert parse_config(["--max-text-bytes", "5000"]).max_text_bytes == 5000
    with pytest.raises(Exception):
        parse_config(["--max-text-bytes", "0"])


def test_short_stream_keeps_all_beside_a_long_one(size):
    assert size.shares([100, 10**6], 20_000) == [100, 19_900]
    assert size.shares([10**6, 10**6], 20_000) == [10_000, 10_000]


# ---- images bounded by bytes and pixels -----------------------------------

def test_image_sizes_read_from_headers(size):
    assert size.png_size(png(640, 480)) == (640, 480)
    assert size.jpeg_size(jpeg(1234, 77)) == (1234, 77)
    assert size.jpeg_size(b"\xff\xd8\xff\xe0\x00") is None   # cut short
    assert size.png_size(b"\x89PNG\r\n\x1a\n") is None


def test_large_images_listed_not_sent(cordon, tools):
    outs = {"wide.png": png(9000, 10), "tall.jpg": jpeg(10, 8001),
            "heavy.png": png(100, 100, pad=6_000_000),
            "ok.png": png(100, 100)}
    res = tools.run_result(fake_run(cordon, outputs=outs), V)
    imgs = [c for c in res["content"] if c["type"] == "image"]
    assert [base64.b64decode(c["data"]) for c in imgs] == [outs["ok.png"]]
    t = texts(res)
    assert "not returned: wide.png: too large (9000 x 10 pixels" in t
    assert "not returned: tall.jpg: too large (10 x 8001 pixels" in t
    assert "not returned: heavy.png: too large (6.0 MB" in t
    files = {f["name"]: f for f in res["structuredContent"]["files"]}
    assert files["ok.png"]["returned"] == "image"
    assert files["heavy.png"]["returned"] is None
    assert "too large" in files["heavy.png"]["reason"]


def test_reply_never_past_the_sdk_message(cordon, tools):
    """The 8.8 MB PNG of the issue, and many images just under the bound:
    the JSON-RPC line stays under 10 MiB, the rest is listed."""
    outs = {"big.png": png(2000, 2000, pad=8_800_000)}
    outs.update({f"p{i:02}.png": png(1000, 1000, pad=4_900_000)
                 for i in range(6)})
    res = tools.run_result(fake_run(cordon, stdout=b"y" * 10**6,
                                    outputs=outs), V)
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "result": res})
    assert len(line) < SDK_LIMIT
    t = texts(res)
    assert "not returned: big.png: too large (8.8 MB" in t
    assert "for what is left of the reply" in t
    assert sum(c["type"] == "image" for c in res["content"]) >= 1


# ---- other files: text, resources, or listed ------------------------------

def test_other_files_text_resource_or_listed(cordon, tools):
    outs = {"a.csv": b"a,b\n1,2\n", "b.bin": bytes(range(256)),
            "huge.bin": os.urandom(2 << 20)}
    res = tools.run_result(fake_run(cordon, outputs=outs), V)
    kinds = [c["type"] for c in res["content"]]
    assert kinds == ["text", "text", "resource"], kinds
    assert res["content"][1]["text"] == "--- file a.csv ---\na,b\n1,2\n"
    r = res["content"][2]["resource"]
    assert r["mimeType"] == "application/octet-stream"
    assert base64.b64decode(r["blob"]) == outs["b.bin"]
    assert "not returned: huge.bin: too large (2.1 MB" in texts(res)
    files = {f["name"]: f for f in res["structuredContent"]["files"]}
    assert files["a.csv"]["text"] == "a,b\n1,2\n"     # structured hosts too


# ---- session cells --------------------------------------------------------

def test_cell_image_over_the_driver_bound_said(cordon, tools):
    from cordon.session import CellFile, CellResult
    data = png(500, 500, pad=200_000)
    c = CellResult(seq=1, stdout="", stderr="", value=None, error=None,
                   timed_out=False, files=(
                       CellFile("big.png", len(data), data[:65536]),
                       CellFile("ok.png", 100, png(10, 10, pad=100))))
    res = tools.cell_result(c, "code_gen", "s", V)
    assert sum(x["type"] == "image" for x in res["content"]) == 1
    assert "not returned: big.png: too large for a session cell" in \
        texts(res)
    assert res["structuredContent"]["files"][0]["returned"] is None


# ---- refusals -------------------------------------------------------------

REFUSED = {"network_refused": [
    {"dest": "example.com:443", "why": "not a host the policy names"},
    {"dest": "api.x.org:443", "method": "DELETE", "path": "/v1/a",
     "why": "not a method and path the policy allows"}],
    "network_refused_dropped": 2}


def test_network_refusals_in_result_text_and_failure(cordon, tools):
    r = fake_run(cordon, status=REFUSED, exit_code=1)
    assert [n.dest for n in r.network_refused] == ["example.com:443",
                                                   "api.x.org:443"]
    assert r.network_refused[1].method == "DELETE"
    assert r.network_refused_dropped == 2
    t = texts(tools.run_result(r, V))
    assert "network refused: example.com:443: not a host the policy " \
        "names" in t
    assert "network refused: api.x.org:443 (DELETE /v1/a): not a method" in t
    assert "network refused: and 2 more" in t
    sc = tools.run_result(r, V)["structuredContent"]
    assert sc["network_refused"][0]["dest"] == "example.com:443"
    msg = str(cordon.SnippetFailed(r))
    assert "network refused: example.com:443" in msg


def test_expected_refusals_not_under_denied(cordon, tools):
    from cordon.outputs import RefusedOutput
    from cordon.result import EXPECTED_REFUSALS, Denial
    clone3 = Denial("clone3", "clone3(..., 88)", "errno(ENOSYS)",
                    "base/python.policy:171", 1, expected=True)
    sock = Denial("socket", "socket(AF_INET, ...)", "errno(EAFNOSUPPORT)",
                  "x:1", 2)
    cfg = RefusedOutput(".config", "state", expected=True)
    res = tools.run_result(fake_run(cordon, denials=[clone3],
                                    refused=[cfg]), V)
    t = texts(res)
    assert "denied" not in t and "not returned" not in t
    assert "expected, not a failure: clone3(..., 88) x1 (" + \
        EXPECTED_REFUSALS["denial"] in t
    assert "expected, not a failure: .config (" + \
        EXPECTED_REFUSALS["output"] in t
    t = texts(tools.run_result(fake_run(cordon, denials=[clone3, sock]), V))
    denied = [x for x in t.splitlines() if x.startswith("denied:")]
    assert len(denied) == 1 and "socket" in denied[0] and \
        "clone3" not in denied[0]


def test_live_proxy_refusal_reaches_result_and_mcp(cordon, tools,
                                                   build_dir):
    """A named-host policy: a host it does not name is refused by the
    proxy (no DNS needed), and the run's result and MCP text say so."""
    c = cordon.Client(str(build_dir / "policies"),
                      cordon=str(build_dir / "cordon"))
    try:
        r = c.run("idc_query", "import urllib.request\ntry:\n"
                  "    urllib.request.urlopen('https://example.com/', "
                  "timeout=20)\nexcept OSError as e:\n    print(e)")
    finally:
        c.close()
    assert any(n.dest == "example.com:443" and "not a host" in n.why
               for n in r.network_refused), r.status.get("network_refused")
    assert "network refused: example.com:443: not a host the policy names" \
        in texts(tools.run_result(r, V))


# ---- what a model reads about the tools -----------------------------------

def installed_here(name):
    return subprocess.run([PYTHON, "-E", "-s", "-c",
                           f"import importlib.util as u, sys; "
                           f"sys.exit(u.find_spec({name!r}) is None)"]
                          ).returncode == 0


def test_tool_descriptions_say_imports_state_network_sizes(
        cordon, tools, build_dir):
    from cordon.blob import load_blob
    infos = {n: load_blob(str(build_dir / "policies" / f"{n}.cpol"))
             for n in ("code_gen", "idc_query")}
    d = tools.tool_list(infos, 60, V, str(build_dir / "cordonc"))[0][
        "description"]
    assert "starts fresh" in d and "keeps them" in d
    assert "plt.savefig" in d and "plt.show()" in d
    assert "20,000 bytes" in d and "8000 pixels" in d
    assert "api.imaging.datacommons.cancer.gov" in d
    for name in ("seaborn", "numpy"):
        part = d.split("not installed:")[1 if not installed_here(name)
                                           else 0]
        assert name in part.split(". Files")[0], (name, d)


def test_explain_policy_short(tools, build_dir):
    view = tools.explain(str(build_dir / "cordonc"),
                         str(build_dir / "policies" / "idc_query.cpol"))
    res = tools.explain_result(view, V)
    t = texts(res)
    assert len(t) < 1500, len(t)
    assert len(json.dumps(res["structuredContent"])) < 4000
    assert "HTTPS only to *.googleapis.com:443" in t
    assert "$WORKDIR rw" in t
    assert res["structuredContent"]["syscalls"]["rules"]["allow"] > 100


# ---- end to end: the official SDK's client --------------------------------

@pytest.fixture(scope="module")
def node(src_dir):
    exe = shutil.which("node")
    if exe is None:
        pytest.skip("no node (Node 20: make deps' npm needs it)")
    sdk = src_dir / "tests" / "mcp" / "node_modules" / "@modelcontextprotocol"
    if not (sdk / "sdk" / "package.json").exists():
        pytest.skip("the MCP TypeScript SDK is not installed in tests/mcp "
                    "(make deps runs npm ci there)")
    return exe


@pytest.mark.parametrize("step", ["big_print", "big_image", "show_figure",
                                  "session_figure"])
def test_sdk_client_results(node, src_dir, build_dir, step):
    if step.endswith("figure") and not has_matplotlib():
        pytest.skip("python3-matplotlib is not installed (make deps)")
    spec = {"command": PYTHON, "args": server_argv(build_dir)[1:],
            "env": server_env(src_dir, build_dir)}
    env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
           "CORDON_MCP_SERVER": json.dumps(spec)}
    p = subprocess.run([node, str(src_dir / "tests" / "mcp" /
                                  "results.mjs"), step],
                       env=env, capture_output=True, text=True,
                       timeout=STEP_TIMEOUT)
    assert p.returncode == 0, p.stdout + p.stderr
    assert p.stdout.strip().splitlines()[-1] == "ok " + step, p.stdout


def test_landlock_refusals_in_result_text_and_option(cordon, tools,
                                                     tmp_path):
    """Issue 41: Landlock's refusals (from the kernel's audit or
    cordon --landlock-watch, which cordon-mcp --landlock-watch turns on)
    are in the MCP text with the rule to add; a credential file is
    warned of, with no "add:"."""
    from cordon.mcp import parse_config
    st = {"landlock_denials": [
        {"access": "fs.read_file", "path": "/data/x.csv", "pid": 3,
         "comm": "python3", "add": "path /data/x.csv ro;", "count": 2},
        {"access": "fs.read_file", "path": "/etc/shadow", "pid": 3,
         "comm": "python3", "add": "not advised: /etc/shadow is a "
         "credential file (/etc/shadow)", "count": 1}]}
    r = fake_run(cordon, status=st, exit_code=1)
    t = texts(tools.run_result(r, V))
    assert "Landlock refused: fs.read_file on /data/x.csv x2; add: path " \
        "/data/x.csv ro;" in t, t
    assert "Landlock refused: fs.read_file on /etc/shadow x1; not " \
        "advised: /etc/shadow is a credential file" in t, t
    assert fake_run(cordon).landlock_denials is None
    assert parse_config([]).landlock_watch is False
    assert parse_config(["--landlock-watch"]).landlock_watch is True
    from cordon._mcpconfig import ConfigFail
    conf = tmp_path / "c.json"
    conf.write_text('{"landlock_watch": true}')
    assert parse_config(["--config", str(conf)]).landlock_watch is True
    conf.write_text('{"landlock_watch": 1}')
    with pytest.raises(ConfigFail):
        parse_config(["--config", str(conf)])
