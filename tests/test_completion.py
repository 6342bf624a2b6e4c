"""The bash completion (tools/cordon.bash-completion): sourced in a plain
bash, it offers cordonc's subcommands and a subcommand's options (read
from --help), policy files, cordon's options and blob files."""
import shutil
import subprocess

import pytest


def complete(src_dir, build_dir, cwd, func, *words):
    script = ('source "$1"; shift; COMP_WORDS=("$@"); '
              'COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); ' + func +
              '; printf "%s\\n" "${COMPREPLY[@]}"')
    r = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", script, "bash",
         src_dir / "tools" / "cordon.bash-completion", *words],
        cwd=cwd, capture_output=True, text=True, timeout=30,
        env={"PATH": "%s:/usr/bin:/bin" % build_dir})
    assert r.returncode == 0, r.stderr
    return set(r.stdout.split())


@pytest.fixture(autouse=True)
def need_bash():
    if not shutil.which("bash"):
        pytest.skip("bash is not installed")


def test_cordonc_subcommands(src_dir, build_dir, tmp_path):
    got = complete(src_dir, build_dir, tmp_path, "_cordonc", "cordonc", "")
    assert {"compile", "explain", "lint", "audit", "diff"} <= got
    assert complete(src_dir, build_dir, tmp_path, "_cordonc", "cordonc",
                    "co") == {"compile"}


def test_cordonc_options_and_policy_files(src_dir, build_dir, tmp_path):
    assert complete(src_dir, build_dir, tmp_path, "_cordonc", "cordonc",
                    "lint", "--s") == {"--strict"}
    assert {"-I", "-D", "-o", "-Werror"} <= complete(
        src_dir, build_dir, tmp_path, "_cordonc", "cordonc", "compile", "-")
    (tmp_path / "tool.policy").write_text("")
    (tmp_path / "tool.cpol").write_text("")
    (tmp_path / "tool.txt").write_text("")
    assert complete(src_dir, build_dir, tmp_path, "_cordonc", "cordonc",
                    "compile", "t") == {"tool.policy", "tool.cpol"}


def test_cordon_options_and_blobs(src_dir, build_dir, tmp_path):
    assert {"--workdir", "--keep-workdir", "--status-fd", "--quiet"} <= \
        complete(src_dir, build_dir, tmp_path, "_cordon", "cordon", "--")
    (tmp_path / "code_gen.cpol").write_text("")
    (tmp_path / "code.py").write_text("")
    assert complete(src_dir, build_dir, tmp_path, "_cordon", "cordon",
                    "--quiet", "co") == {"code_gen.cpol"}
    assert complete(src_dir, build_dir, tmp_path, "_cordon", "cordon",
                    "code_gen.cpol", "") == {"code.py", "-"}
