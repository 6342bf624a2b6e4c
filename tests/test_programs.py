"""The features the plain cold core leaves out are programs of their own
(launcher/companion.c): cordon holds none of their code and executes the
program that holds a feature a run needs, found beside it (or in
PREFIX/lib/cordon/) by a fixed path, never through PATH; without it the
run is refused before anything of it exists."""
import json
import shutil
import subprocess

import pytest

import workload_util as wu
from test_landlock_denials import audit_on  # noqa: F401 (a fixture)

# A symbol of each room's code, and the program that must hold it.
ROOMS = {
    "egress": (b"proxyreq_parse", "cordon-egress"),
    "learn": (b"pathcall_peek", "cordon-observe"),
    "warm": (b"warmreq_split", "cordon-pool"),
    "kaudit": (b"auditrec_parse", "cordon-audit"),
}


def _blob(cordonc_bin, src_dir, tmp_path, name, text):
    pol = tmp_path / (name + ".policy")
    pol.write_text('include "base/python.policy";\npolicy "%s";\n%s'
                   % (name, text))
    return wu.compile_policy(cordonc_bin, pol, tmp_path / (name + ".cpol"),
                             include_dirs=[src_dir / "policies"])


@pytest.fixture
def setup(cordon_bin, cordonc_bin, src_dir, tmp_path):
    alone = tmp_path / "bin"
    alone.mkdir()
    shutil.copy(cordon_bin, alone / "cordon")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    # PATH names the build folder: a program is never looked up there.
    env = {"PATH": "%s:/usr/bin:/bin" % cordon_bin.parent,
           "TMPDIR": str(tmp)}
    hosts = _blob(cordonc_bin, src_dir, tmp_path, "hosts",
                  'network connect "example.org":443;\n')
    plain = _blob(cordonc_bin, src_dir, tmp_path, "plain", "")

    def run(cordon, blob, *opts):
        return subprocess.run([str(cordon), *opts, str(blob), "-"],
                              input="print(6*7)", env=env,
                              capture_output=True, text=True, timeout=120)
    return alone, tmp, hosts, plain, run


@pytest.mark.parametrize("room", sorted(ROOMS))
def test_cordon_holds_no_room(cordon_bin, room):
    symbol, program = ROOMS[room]
    assert symbol not in cordon_bin.read_bytes()
    assert symbol in (cordon_bin.parent / program).read_bytes()


def test_egress_runs_in_cordon_egress(setup, cordon_bin):
    """A policy with named hosts: cordon alone refuses it, saying which
    program it needs, and leaves nothing; a plain policy runs in cordon;
    with cordon-egress beside it the named-hosts run runs."""
    alone, tmp, hosts, plain, run = setup
    r = run(alone / "cordon", hosts)
    assert r.returncode == 125 and "cordon-egress" in r.stderr, r.stderr
    assert r.stdout == "" and list(tmp.iterdir()) == []
    r = run(alone / "cordon", plain)
    assert (r.returncode, r.stdout) == (0, "42\n"), r.stderr
    shutil.copy(cordon_bin.parent / "cordon-egress", alone / "cordon-egress")
    r = run(alone / "cordon", hosts)
    assert (r.returncode, r.stdout) == (0, "42\n"), r.stderr
    assert list(tmp.iterdir()) == []


def test_program_without_its_room_fails_closed(setup):
    """A cordon-egress that lacks the proxy (cordon copied over it) is
    refused with a clear error, not executed again and again."""
    alone, tmp, hosts, _plain, run = setup
    shutil.copy(alone / "cordon", alone / "cordon-egress")
    r = run(alone / "cordon", hosts)
    assert r.returncode == 125, r.stderr
    assert "cordon-egress lacks" in r.stderr and "broken" in r.stderr, \
        r.stderr
    assert r.stdout == "" and list(tmp.iterdir()) == []


@pytest.mark.parametrize("opts", [["--observe", "TRACE"],
                                  ["--landlock-watch"]])
def test_watch_modes_run_in_cordon_observe(setup, cordon_bin, opts):
    """--observe and --landlock-watch (they read the run's paths): cordon
    alone refuses them, naming cordon-observe, and writes no trace; with
    cordon-observe beside it they run."""
    alone, tmp, _hosts, plain, run = setup
    trace = tmp.parent / "trace.json"
    opts = [str(trace) if o == "TRACE" else o for o in opts]
    r = run(alone / "cordon", plain, *opts)
    assert r.returncode == 125 and "cordon-observe" in r.stderr, r.stderr
    assert r.stdout == "" and list(tmp.iterdir()) == []
    assert not trace.exists()
    shutil.copy(cordon_bin.parent / "cordon-observe",
                alone / "cordon-observe")
    r = run(alone / "cordon", plain, *opts)
    assert (r.returncode, r.stdout) == (0, "42\n"), r.stderr
    assert trace.exists() == ("--observe" in opts)


@pytest.mark.parametrize("how", ["serve", "submit"])
def test_warm_pools_run_in_cordon_pool(setup, cordon_bin, how):
    """cordon --serve and --submit: cordon alone refuses them, naming
    cordon-pool; with cordon-pool beside it they are cordon-pool's (a
    --serve at a path is refused by its own check, a --submit to a pool
    that is not there by its own)."""
    alone, tmp, _hosts, plain, _run = setup
    argv = (["--serve", str(tmp / "sock"), str(plain)] if how == "serve"
            else ["--submit", "@cordon-test-no-such-pool", str(plain)])

    def go():
        return subprocess.run([str(alone / "cordon"), *argv],
                              capture_output=True, text=True, timeout=60)
    r = go()
    assert r.returncode == 125 and "cordon-pool" in r.stderr, r.stderr
    shutil.copy(cordon_bin.parent / "cordon-pool", alone / "cordon-pool")
    r = go()
    assert r.returncode == 125 and "cordon-pool" not in r.stderr, r.stderr
    assert ("abstract" if how == "serve" else "no-such-pool") in r.stderr, \
        r.stderr
    assert list(tmp.iterdir()) == []


def test_audit_reader_runs_in_cordon_audit(setup, cordon_bin,
                                           audit_on):  # noqa: F811
    """Root with the kernel's audit on (the fixture turns it on, or
    skips with why): cordon alone refuses a run, naming cordon-audit, and
    leaves nothing; with cordon-audit beside it the run is read by the
    kernel's audit (the status says so).  Egress's program reads it too:
    a run needs one program for both."""
    alone, tmp, hosts, plain, run = setup
    status = tmp.parent / "status.json"
    r = run(alone / "cordon", plain, "--status-file", str(status))
    assert r.returncode == 125 and "cordon-audit" in r.stderr, r.stderr
    assert r.stdout == "" and list(tmp.iterdir()) == []
    shutil.copy(cordon_bin.parent / "cordon-audit", alone / "cordon-audit")
    r = run(alone / "cordon", plain, "--status-file", str(status))
    assert (r.returncode, r.stdout) == (0, "42\n"), r.stderr
    assert json.loads(status.read_text())["landlock_denials_by"] == \
        "audit"
    shutil.copy(cordon_bin.parent / "cordon-egress", alone / "cordon-egress")
    r = run(alone / "cordon", hosts, "--status-file", str(status))
    assert (r.returncode, r.stdout) == (0, "42\n"), r.stderr
    assert json.loads(status.read_text())["landlock_denials_by"] == \
        "audit"
    assert list(tmp.iterdir()) == []
