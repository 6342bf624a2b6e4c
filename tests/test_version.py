"""The version is written once, in VERSION at the top of the tree: the
Makefile gives it to cordon and cordonc (--version; the blob's compiler
field takes its major.minor), and this test holds the copies that cannot
read the file to it: the Python client's __version__ (pyproject.toml
reads that) and the top entry of debian/changelog."""
import re
import subprocess

import pytest

from conftest import BUILD


def version(src_dir):
    path = src_dir / "VERSION"
    if not path.exists():
        pytest.skip("no VERSION in this copy of the tree")
    v = path.read_text().strip()
    assert re.fullmatch(r"\d+\.\d+\.\d+", v), v
    return v


def test_python_client(src_dir):
    text = (src_dir / "clients" / "python" / "cordon" /
            "__init__.py").read_text()
    m = re.findall(r'^__version__ = "([^"]+)"', text, re.M)
    assert m == [version(src_dir)]


def test_debian_changelog(src_dir):
    path = src_dir / "debian" / "changelog"
    if not path.exists():
        pytest.skip("no debian/ in this copy of the tree")
    first = path.read_text().splitlines()[0]
    m = re.match(r"cordon \(([^)]+)\) ", first)
    assert m and m.group(1) == version(src_dir), first


@pytest.mark.parametrize("prog", ["cordon", "cordonc"])
def test_programs(src_dir, prog):
    p = subprocess.run([str(BUILD / prog), "--version"],
                       capture_output=True, text=True)
    assert p.returncode == 0
    assert p.stdout == f"{prog} {version(src_dir)}\n"


def test_no_other_version_in_c(src_dir):
    """No C file spells a version of its own."""
    if not (src_dir / "launcher").exists():
        pytest.skip("no C sources in this copy of the tree")
    found = []
    paths = [p for d in ("common", "compiler", "launcher", "grammar",
                         "tests", "bench")
             for p in sorted((src_dir / d).glob("**/*.[ch]"))]
    for path in paths:
        for n, line in enumerate(path.read_text().splitlines(), 1):
            if re.search(r'#\s*define\s+\w*VERSION\w*\s+"[^"]*\d+\.\d+',
                         line):
                found.append(f"{path.relative_to(src_dir)}:{n}: {line}")
    assert not found, "\n".join(found)
