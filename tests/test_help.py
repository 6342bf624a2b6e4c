"""--help of cordonc, of each cordonc subcommand and of cordon: every
option in a usage line is described; bad usage prints the short form and
points at --help; an unknown subcommand gets a suggestion."""
import re
import subprocess

import pytest

SUBCOMMANDS = ["compile", "explain", "test", "lint", "diff", "verify",
               "audit", "export", "import", "learn"]


def run(*argv):
    return subprocess.run([str(a) for a in argv], capture_output=True,
                          text=True, timeout=30)


def usage_options(line):
    """The options a usage line names (-o, --json, -Werror...)."""
    return set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", line))


def test_cordonc_help_lists_every_subcommand(cordonc_bin):
    r = run(cordonc_bin, "--help")
    assert r.returncode == 0
    for sub in SUBCOMMANDS:
        assert re.search(r"^  %s +\S" % sub, r.stdout, re.M), sub
        assert re.search(r"^ *(usage: )?cordonc %s " % sub, r.stdout,
                         re.M), sub
    assert "includes: " in r.stdout


@pytest.mark.parametrize("sub", SUBCOMMANDS)
def test_subcommand_help_describes_every_option(cordonc_bin, sub):
    for flag in ("--help", "-h"):
        r = run(cordonc_bin, sub, flag)
        assert r.returncode == 0, r.stderr
        first, _, rest = r.stdout.partition("\n")
        assert first.startswith("usage: cordonc %s " % sub)
        opts = usage_options(first)
        assert opts, first
        for opt in opts:
            assert re.search(r"^  (-\w, )?%s\b" % re.escape(opt), rest,
                             re.M), (sub, opt, r.stdout)


def test_bad_usage_is_the_short_form(cordonc_bin):
    for argv in (["compile", "--bogus", "x.policy"], ["lint"],
                 ["export", "--format", "xml", "x"], ["learn"]):
        r = run(cordonc_bin, *argv)
        assert r.returncode == 2
        lines = r.stderr.splitlines()
        assert any(l.startswith("usage: cordonc %s " % argv[0])
                   for l in lines), r.stderr
        assert "cordonc %s --help describes every option" % argv[0] \
            in r.stderr
        assert "cordonc explain" not in r.stderr or argv[0] == "explain"


def test_unknown_subcommand_is_suggested(cordonc_bin):
    r = run(cordonc_bin, "comple", "x.policy")
    assert r.returncode == 2
    assert "unknown command comple; did you mean compile?" in r.stderr
    r = run(cordonc_bin, "frobnicate")
    assert r.returncode == 2 and "did you mean" not in r.stderr


def test_cordon_help_describes_every_option(cordon_bin):
    r = run(cordon_bin, "--help")
    assert r.returncode == 0
    usage, _, rest = r.stdout.partition("\n\n")
    opts = usage_options(usage)
    assert {"--check", "--limit", "--observe", "--resolve"} <= opts
    for opt in opts | {"--version", "--help"}:
        assert re.search(r"^  %s\b" % re.escape(opt), rest, re.M), opt
    r = run(cordon_bin, "--bogus")
    assert r.returncode == 125
    assert "cordon --help describes every option" in r.stderr
