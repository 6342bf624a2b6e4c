"""Installed as users install it (issue 19): pip installs the client from
Debian's own packages (no network), and the Debian packages from `make
deb` install, run the README's first policy and the client against the
installed files (/usr/bin, /usr/share/cordon/policies), and are removed
again."""
import os
import re
import shutil
import subprocess

import pytest

PYTHON = "/usr/bin/python3"
SYS_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
ZERO_CONFIG = """
import asyncio
import cordon

async def main():
    result = await cordon.arun("code_gen", "print(6 * 7)", timeout=30)
    print(cordon.__file__, result.ok, result.stdout_text(), end="")

asyncio.run(main())
"""


def version_of(src_dir):
    text = (src_dir / "clients" / "python" / "cordon" /
            "__init__.py").read_text()
    return re.search(r'^__version__ = "([^"]+)"', text, re.M).group(1)


def test_version_written_once(src_dir):
    pyproject = (src_dir / "clients" / "python" /
                 "pyproject.toml").read_text()
    assert not re.search(r"^version\s*=\s*\"", pyproject, re.M)
    assert 'version = {attr = "cordon.__version__"}' in pyproject


def test_pip_install_offline(src_dir, tmp_path):
    """The documented pip command, into a target folder (nothing left on
    the machine), from a copy (nothing left in the tree)."""
    if subprocess.run([PYTHON, "-c", "import importlib.util as u; "
                       "assert all(u.find_spec(m) for m in "
                       "('pip', 'setuptools', 'wheel'))"],
                      capture_output=True).returncode:
        pytest.skip("python3-pip, python3-setuptools or python3-wheel "
                    "missing (make deps)")
    src = tmp_path / "python"
    shutil.copytree(src_dir / "clients" / "python", src,
                    ignore=shutil.ignore_patterns("__pycache__", "build",
                                                  "*.egg-info"))
    target = tmp_path / "site"
    env = {"PATH": SYS_PATH, "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    r = subprocess.run([PYTHON, "-m", "pip", "install", "--no-build-isolation",
                        "--no-index", "--no-deps", "--target", target, src],
                       env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    ver = version_of(src_dir)
    assert (target / f"cordon_client-{ver}.dist-info").is_dir()
    r = subprocess.run([PYTHON, "-c", "import cordon; print(cordon.__file__,"
                        " cordon.__version__)"], env={**env, "PYTHONPATH":
                       str(target)}, cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert r.stdout.split() == [str(target / "cordon" / "__init__.py"), ver]


def installed(pkg):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg],
                       capture_output=True, text=True)
    return "installed" in r.stdout and "not-installed" not in r.stdout


@pytest.fixture
def debs(src_dir, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("installing packages needs root")
    for tool in ("dpkg-buildpackage", "dh", "make"):
        if not shutil.which(tool, path=SYS_PATH):
            pytest.skip(f"{tool} is not installed (make deps)")
    if not (src_dir / "debian" / "control").exists():
        pytest.skip("no debian/ in this copy of the tree")
    for pkg in ("cordon", "python3-cordon"):
        if installed(pkg):
            pytest.skip(f"{pkg} is already installed here: not touching it")
    out = tmp_path / "deb"
    r = subprocess.run(["make", "-s", "deb", f"DEB_DIR={out}"], cwd=src_dir,
                       env={"PATH": SYS_PATH, "LANG": "C.UTF-8",
                            "HOME": str(tmp_path)},
                       capture_output=True, text=True, timeout=900)
    assert r.returncode == 0, (r.stdout + r.stderr)[-4000:]
    ver = version_of(src_dir)
    files = [out / f"cordon_{ver}_amd64.deb",
             out / f"python3-cordon_{ver}_all.deb"]
    assert all(f.exists() for f in files), list(out.iterdir())
    r = subprocess.run(["dpkg", "-i", *files], capture_output=True,
                       text=True, timeout=300, env={"PATH": SYS_PATH})
    try:
        assert r.returncode == 0, r.stdout + r.stderr
        yield files
    finally:
        subprocess.run(["dpkg", "--purge", "python3-cordon", "cordon"],
                       capture_output=True, timeout=300,
                       env={"PATH": SYS_PATH})
        assert not installed("cordon") and not installed("python3-cordon")
        assert not os.path.exists("/usr/share/cordon")


def test_deb_install_run_remove(debs, src_dir, tmp_path):
    for f in ("/usr/bin/cordon", "/usr/bin/cordonc",
              "/usr/lib/cordon/cordon-tls", "/usr/lib/cordon/cordon-egress",
              "/usr/lib/cordon/cordon-audit",
              "/usr/lib/cordon/cordon-observe", "/usr/lib/cordon/cordon-pool",
              "/usr/lib/cordon/libcordon-shm.so",
              "/usr/share/cordon/policies/code_gen.cpol",
              "/usr/share/cordon/policies/base/python.policy",
              "/usr/share/man/man1/cordon.1.gz",
              "/usr/share/man/man1/cordon-mcp.1.gz", "/usr/bin/cordon-mcp",
              "/usr/share/man/man1/cordon-runtime.1.gz",
              "/usr/bin/cordon-runtime",
              "/usr/share/bash-completion/completions/cordon"):
        assert os.path.exists(f), f
    assert not os.path.exists("/usr/bin/cordon-static")
    text = (src_dir / "README.md").read_text()
    block = re.search(r"^    # hello.policy\n((?:    .*\n)+)", text, re.M)
    (tmp_path / "hello.policy").write_text(
        "\n".join(ln[4:] for ln in block.group(0).splitlines()) + "\n")
    env = {"PATH": SYS_PATH, "LANG": "C.UTF-8"}
    # No -I: the installed cordonc finds base/python.policy by itself.
    r = subprocess.run(["cordonc", "compile", "-o", "hello.cpol",
                        "hello.policy"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["cordon", "hello.cpol", "-"], input='print("hi")\n',
                       cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, "hi\n"), r.stderr
    # Without namespaces a run's semaphores are made by the library
    # /usr/bin/cordon finds in /usr/lib/cordon/.
    r = subprocess.run(["cordon", "--no-namespaces",
                        "/usr/share/cordon/policies/code_gen.cpol", "-"],
                       input="import multiprocessing as m, os\nm.Lock()\n"
                       "print(os.environ['LD_PRELOAD'])\n", cwd=tmp_path,
                       env=env, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert os.path.realpath(r.stdout.strip()) == \
        "/usr/lib/cordon/libcordon-shm.so", r.stdout
    # A policy with an HTTP host: /usr/bin/cordon executes
    # /usr/lib/cordon/cordon-tls (the program with the proxy's TLS).
    (tmp_path / "http.policy").write_text(
        'include "base/python.policy";\npolicy "http";\n'
        'network connect "h.example.org":80;\n'
        'http plain "h.example.org":80 GET "/";\n')
    r = subprocess.run(["cordonc", "compile", "-o", "http.cpol",
                        "http.policy"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    r = subprocess.run(["cordon", "http.cpol", "-"], input='print("tls")\n',
                       cwd=tmp_path, env=env, capture_output=True,
                       text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, "tls\n"), r.stderr
    (tmp_path / "example.py").write_text(ZERO_CONFIG)
    r = subprocess.run([PYTHON, "example.py"], cwd=tmp_path, env=env,
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout == ("/usr/lib/python3/dist-packages/cordon/__init__.py"
                        " True 42\n")
    # The MCP server's console script (python3-cordon) starts and says
    # its version.
    r = subprocess.run(["cordon-mcp", "--version"], env=env,
                       capture_output=True, text=True, timeout=60)
    assert (r.returncode, r.stdout) == (0, "cordon-mcp %s\n"
                                        % version_of(src_dir)), r.stderr


def test_make_twice_does_nothing(src_dir, build_dir):
    """A built tree is up to date: `make -q` finds nothing to remake
    (issue 38: a forced stamp rebuilt incsearch.o and relinked cordonc
    on every make). Needs the checkout itself, so uid 65534's copy of
    the tests skips it."""
    if shutil.which("make") is None or not (src_dir / "Makefile").exists():
        pytest.skip("needs make and the checkout's Makefile")
    try:
        build = build_dir.resolve().relative_to(src_dir.resolve())
    except ValueError:
        pytest.skip("the build directory is outside the checkout")
    r = subprocess.run(["make", "-q", f"BUILD={build}"], cwd=src_dir,
                       capture_output=True, text=True)
    if r.returncode != 0:
        todo = subprocess.run(["make", "-n", f"BUILD={build}"],
                              cwd=src_dir, capture_output=True, text=True)
        pytest.fail("make -q: the built tree is out of date; make -n:\n"
                    + todo.stdout[:2000] + todo.stderr[:500])
