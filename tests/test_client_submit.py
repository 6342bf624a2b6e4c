"""The Python client's own request to a warm pool (clients/python/cordon/
_submit.py): the same promises as cordon --submit (launcher/warm/
submit.c), tried against a real pool and a listener of another uid.

- No word can split into two (a NUL would smuggle an option in).
- Nothing is sent to a listener of another uid (SO_PEERCRED).
- The pool's refusal reaches the caller in --submit's words, exit 125.
- Closing the socket ends the run (the pool kills it: "interrupted").
"""
from __future__ import annotations

import asyncio
import json
import os
import pathlib
import sys
import time

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from client_support import import_client  # noqa: E402
from conftest import BUILD, WARM_OK  # noqa: E402
from test_warm import impostor  # noqa: E402


@pytest.fixture(scope="module")
def sub(src_dir):
    import_client(src_dir)
    from cordon import _submit
    return _submit


@pytest.fixture(scope="module")
def status_fd(sub):
    from cordon._warm import WARM_STATUS_FD
    return str(WARM_STATUS_FD)


@pytest.fixture
def pool(warm_pools):
    if not WARM_OK:
        pytest.skip("no warm pool built (build/warm/_cordon_warm.so: no "
                    "Python headers)")
    return warm_pools(BUILD / "policies" / "code_gen.cpol")


def run(sub, name, cwd, words, cancel_after=None):
    """One run through _submit: (exit status, stdout, stderr, status)."""
    async def go():
        r, w = os.pipe()
        try:
            s = sub.Submitted.start(name, str(cwd), words, w, blocking=True)
        finally:
            os.close(w)
        with os.fdopen(r, "rb") as st:
            try:
                if cancel_after is not None:
                    await asyncio.sleep(cancel_after)
                    rc = await s.terminate(1.0)
                else:
                    rc = await s.wait()
                loop = asyncio.get_running_loop()
                out = await loop.run_in_executor(None, s.stdout.read)
                err = await loop.run_in_executor(None, s.stderr.read)
                status = await loop.run_in_executor(None, st.read)
            finally:
                s.close()
        return rc, out, s.said + err, status
    return asyncio.run(go())


def test_request_refuses_what_would_change_its_words(sub):
    with pytest.raises(ValueError, match="NUL"):
        sub.request("/tmp", ["s.py\0--no-namespaces"])
    with pytest.raises(ValueError, match="absolute"):
        sub.request("tmp", ["s.py"])
    with pytest.raises(ValueError, match="too long"):
        sub.request("/tmp", ["x" * sub.WARM_REQUEST_MAX])
    with pytest.raises(ValueError, match="too long"):
        sub.request("/tmp", ["x"] * (sub.WARM_WORDS_MAX + 1))
    assert sub.request("/t", ["a", "b c"]) == b"/t\0a\0b c\0"


def test_answer_in_submits_words(sub):
    assert sub.answer(b"X" + (7).to_bytes(4, "little")) == (7, b"")
    # A status out of 0..255 or a torn answer is cordon's own failure.
    assert sub.answer(b"X" + (-1).to_bytes(4, "little", signed=True))[0] \
        == 125
    rc, said = sub.answer(b"")
    assert rc == 125 and b"ended the connection" in said
    rc, said = sub.answer(b"Ebad option")
    assert rc == 125 and said.endswith(b"refused the run: bad option\n")


def test_no_pool_is_not_reached(sub, tmp_path):
    with pytest.raises(sub.NotReached):
        sub.connect("@cordon-test-none-%d" % os.getpid(), True)


def test_run_status_and_refusal(sub, pool, tmp_path, status_fd):
    (tmp_path / "s.py").write_text("import sys\nprint('hi', sys.argv[1:])\n"
                                   "sys.exit(3)\n")
    words = ["--status-fd", status_fd, "s.py", "a b"]
    rc, out, err, status = run(sub, pool, tmp_path, words)
    assert (rc, out) == (3, b"hi ['a b']\n"), (rc, out, err)
    st = json.loads(status)
    assert st["warm"] is True and st["exit_code"] == 3, st
    # An option the pool refuses: its words, exit 125, nothing ran.
    rc, out, err, status = run(sub, pool, tmp_path,
                               ["--no-namespaces", "s.py"])
    assert rc == 125 and out == b"" and status == b"", (rc, out, err)
    assert err.startswith(b"cordon: the warm pool refused the run: "), err


def test_closing_the_socket_ends_the_run(sub, pool, tmp_path, status_fd):
    (tmp_path / "s.py").write_text("import time\ntime.sleep(60)\n")
    t0 = time.monotonic()
    rc, out, err, status = run(
        sub, pool, tmp_path,
        ["--status-fd", status_fd, "s.py"], cancel_after=1.0)
    assert rc == 125
    # The status pipe's write end is cordon's: read to EOF only once the
    # run has ended, well before its 60 s.
    assert json.loads(status)["outcome"] == "interrupted", status
    assert time.monotonic() - t0 < 30


def test_nothing_is_sent_to_a_listener_of_another_uid(sub, tmp_path):
    if os.geteuid() != 0:
        pytest.skip("needs root: the impostor runs as another uid (65534)")
    name = "@cordon-test-pyimpostor-%d" % os.getpid()
    with impostor(name) as got:
        with pytest.raises(sub.NotReached, match="uid 65534"):
            sub.Submitted.start(name, str(tmp_path), ["s.py"], 1,
                                blocking=True)
        said = got()
    assert said == "got 0 bytes 0 fds\n", said
