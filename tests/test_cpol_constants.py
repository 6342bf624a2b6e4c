"""The Python client's blob constants are generated from common/cpol.h
(tools/gen_cpol_py.py), never copied by hand (issue 25): the committed
clients/python/cordon/_cpol.py must be what the generator prints, and the
client must take its constants from it."""
import re
import subprocess
import sys

import pytest


def test_client_constants_are_the_headers(src_dir):
    gen = src_dir / "tools" / "gen_cpol_py.py"
    mine = src_dir / "clients" / "python" / "cordon" / "_cpol.py"
    if not gen.exists() or not mine.exists() or \
            not (src_dir / "common" / "cpol.h").exists():
        pytest.skip("tools/, common/cpol.h or the client is not in this "
                    "copy of the tree")
    p = subprocess.run([sys.executable, str(gen)], capture_output=True,
                       text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout == mine.read_text(), \
        "stale: python3 tools/gen_cpol_py.py > clients/python/cordon/_cpol.py"
    assert "CPOL_S_HOSTS = 10" in p.stdout and \
        "CPOL_MAGIC = b'\\x89CPOL\\r\\n\\x1a'" in p.stdout, p.stdout


def test_client_copies_no_constant(src_dir):
    """No number of the format is written again in blob.py."""
    blob = src_dir / "clients" / "python" / "cordon" / "blob.py"
    if not blob.exists():
        pytest.skip("the client is not in this copy of the tree")
    text = blob.read_text()
    assert not re.search(r'^(MAGIC|VERSION|HEADER_LEN|SUM_OFF|MAX_SIZE|'
                         r'MAX_SECTIONS|MAX_STR|S_[A-Z]+|F_[A-Z_]+) *= *'
                         r'(b"|[0-9])', text, re.M), "a copied constant"


def test_client_warm_constants_are_the_headers(src_dir):
    """The warm protocol's constants (launcher/warm/warm.h) in the client:
    generated, and read by _pool.py from there."""
    gen = src_dir / "tools" / "gen_cpol_py.py"
    mine = src_dir / "clients" / "python" / "cordon" / "_warm.py"
    if not gen.exists() or not mine.exists() or \
            not (src_dir / "launcher" / "warm" / "warm.h").exists():
        pytest.skip("tools/, launcher/warm/warm.h or the client is not in "
                    "this copy of the tree")
    p = subprocess.run([sys.executable, str(gen), "warm"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert p.stdout == mine.read_text(), \
        "stale: python3 tools/gen_cpol_py.py warm > " \
        "clients/python/cordon/_warm.py"
    assert "WARM_REQUEST_MAX = 65536" in p.stdout and \
        "WARM_MSG_READY = b'R'" in p.stdout, p.stdout
    pool = (src_dir / "clients" / "python" / "cordon" / "_pool.py")
    assert "from ._warm import WARM_READY_WORD" in pool.read_text()
    assert 'b"ready"' not in pool.read_text()
