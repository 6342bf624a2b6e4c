"""cordon-mcp set up as each install has it (cordon-mcp(1), README):
tools/cordon-mcp in a checkout, a venv, make install-python with a
PREFIX its Python does not search; --help describing every option; the
start-up line on stderr."""
import json
import os
import re
import shutil
import subprocess

import pytest

from test_mcp import PYTHON, raw, server_argv, server_env  # noqa: F401

SYS_PATH = "/usr/bin:/bin"
LINES = [
    {"jsonrpc": "2.0", "id": 1, "method": "initialize",
     "params": {"protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "setup", "version": "0"}}},
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
     "params": {"name": "run_code",
                "arguments": {"tool": "code_gen", "code": "print(1)"}}},
    {"jsonrpc": "2.0", "id": 3, "method": "tools/list", "params": {
        "_meta": {"io.modelcontextprotocol/protocolVersion": "2026-07-28",
                  "io.modelcontextprotocol/clientCapabilities": {}}}},
]


def serves(argv, env, cwd):
    """The server started as argv answers both eras and runs print(1)."""
    p = subprocess.run(argv, input="".join(json.dumps(m) + "\n"
                                           for m in LINES),
                       env=env, cwd=cwd, capture_output=True, text=True,
                       timeout=300)
    assert p.returncode == 0, p.stderr
    got = {m["id"]: m for m in map(json.loads, p.stdout.splitlines())}
    assert got[1]["result"]["protocolVersion"] == "2025-11-25", got
    assert got[2]["result"]["structuredContent"]["stdout"] == "1\n", got
    assert got[3]["result"]["resultType"] == "complete", got
    assert p.stderr.startswith("cordon-mcp "), p.stderr
    return p.stderr


def test_help_describes_every_option(src_dir, build_dir):
    r = subprocess.run([PYTHON, "-m", "cordon.mcp", "--help"],
                       env=server_env(src_dir, build_dir),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    usage, _, rest = r.stdout.partition("\n\n")
    opts = set(re.findall(r"\[(--[\w-]+)", usage))
    assert len(opts) >= 19, usage
    for opt in opts:
        m = re.search(r"^  %s(?: \S+)?(?:\n {20,}| +)(\S.*)$"
                      % re.escape(opt), rest, re.M)
        assert m and len(m.group(1)) > 10, (opt, r.stdout)
    assert "2026-07-28" in rest


def test_startup_line(raw):
    s = raw("--tool", "code_gen", "--warm", "code_gen")
    s.p.stdin.close()
    assert s.p.wait(120) == 0
    line = s.p.stderr.readline().decode()
    assert re.match(r"cordon-mcp \S+: serving code_gen from \S+/policies; "
                    r"warm: code_gen; stdio; MCP 2026-07-28, 2025-11-25, "
                    r"2025-06-18, 2025-03-26, 2024-11-05; explain_policy: "
                    r"\S*cordonc\n$", line), line


def test_checkout_wrapper(src_dir, build_dir, tmp_path):
    """tools/cordon-mcp from anywhere, with no PYTHONPATH and no build/
    on PATH (what an mcpServers entry naming it gets)."""
    env = {"PATH": SYS_PATH, "LANG": "C.UTF-8", "HOME": str(tmp_path),
           "CORDON_BUILD": str(build_dir)}
    line = serves([str(src_dir / "tools" / "cordon-mcp"), "--tool",
                   "code_gen"], env, tmp_path)
    assert "serving code_gen from %s/policies" % build_dir in line
    env["CORDON_BUILD"] = str(tmp_path / "none")
    p = subprocess.run([str(src_dir / "tools" / "cordon-mcp")], env=env,
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and "run make" in p.stderr


def copy_client(src_dir, dst):
    shutil.copytree(src_dir / "clients" / "python", dst,
                    ignore=shutil.ignore_patterns("__pycache__", "build",
                                                  "*.egg-info"))


def need_pip():
    if subprocess.run([PYTHON, "-c", "import importlib.util as u; "
                       "assert all(u.find_spec(m) for m in "
                       "('pip', 'setuptools', 'wheel', 'venv'))"],
                      capture_output=True).returncode:
        pytest.skip("python3-pip, -setuptools, -wheel or -venv missing "
                    "(make deps)")


def test_make_install_python_other_prefix(src_dir, build_dir, tmp_path):
    """make install-python with a PREFIX this Python does not search: the
    cordon-mcp it writes runs all the same, and make says how to import
    the client."""
    need_pip()
    tree = tmp_path / "tree"
    for f in ("Makefile", "common/build.mk"):
        (tree / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(src_dir / f, tree / f)
    copy_client(src_dir, tree / "clients" / "python")
    prefix = tmp_path / "pfx"
    env = {"PATH": SYS_PATH, "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    r = subprocess.run(["make", "-s", "install-python", f"PREFIX={prefix}",
                        f"PYTHON={PYTHON}"], cwd=tree, env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    site = re.search(r"set PYTHONPATH=(\S+)", r.stdout)
    assert site and site.group(1).startswith(str(prefix)), r.stdout
    run = dict(env, PATH="%s:%s" % (build_dir, SYS_PATH))
    serves([str(prefix / "bin" / "cordon-mcp"), "--tool", "code_gen"],
           run, tmp_path)
    # cordon-runtime, written beside it the same way.
    r = subprocess.run([str(prefix / "bin" / "cordon-runtime"),
                        "--version"], env=run, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0 and r.stdout.startswith("cordon-runtime "), r


def test_venv_system_site_packages(src_dir, build_dir, tmp_path):
    """The README's venv: --system-site-packages (Debian's setuptools),
    pip install --no-build-isolation; its bin/cordon-mcp serves."""
    need_pip()
    venv = tmp_path / "venv"
    env = {"PATH": SYS_PATH, "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    subprocess.run([PYTHON, "-m", "venv", "--system-site-packages",
                    "--without-pip", str(venv)], check=True, env=env,
                   timeout=120)
    copy_client(src_dir, tmp_path / "python")
    r = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install",
                        "--no-build-isolation", "--no-index", "--no-deps",
                        str(tmp_path / "python")], env=env,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    run = dict(env, PATH="%s:%s" % (build_dir, SYS_PATH))
    serves([str(venv / "bin" / "cordon-mcp"), "--tool", "code_gen"], run,
           tmp_path)


def test_each_numeric_option_refuses_a_value_below_its_floor():
    """Every numeric option in --help is checked: a count below 1, a time
    not above 0 (NaN too), a negative maximum age, each refused by name
    before the server starts; the floors themselves are accepted."""
    import sys
    sys.path.insert(0, os.path.join(os.environ.get("CORDON_SRC", "."),
                                    "clients", "python"))
    from cordon import _mcpconfig as mc
    for name, kind, _ in mc._NUMERIC:
        key = name.replace("-", "_")
        lows = ["-1"] if name == "session-max-age" else \
            ["0", "-3"] if kind is int else ["0", "-1", "nan"]
        for low in lows:
            with pytest.raises(mc.ConfigFail, match=key):
                mc.parse_config(["--" + name, low])
        ok = "0" if name == "session-max-age" else "1" if kind is int \
            else "0.5"
        assert getattr(mc.parse_config(["--" + name, ok]), key) == \
            kind(ok)
