"""The README's examples run as written: the first policy (compiled,
explained and run by the README's own command lines), getting a file back
from the CLI, and the Python examples (through asyncio.run, with only
build/ on PATH: no configuration)."""
import json
import os
import re
import subprocess

import pytest

PYTHON = "/usr/bin/python3"


def blocks(src_dir, name="README.md"):
    """The README's indented code blocks, dedented, in order."""
    text = (src_dir / name).read_text()
    found = re.findall(r"(?:^|\n\n)((?:    .*\n|\n(?=    ))+)", text)
    return ["\n".join(ln[4:] for ln in b.splitlines()) + "\n"
            for b in found]


def block(src_dir, first, name="README.md"):
    for b in blocks(src_dir, name):
        if b.startswith(first):
            return b
    pytest.fail("README lost its example starting %r" % first)


@pytest.fixture
def checkout(tmp_path, src_dir, build_dir):
    """A folder that looks like the checkout's top to the README's
    commands (build/, policies/), where they may write."""
    (tmp_path / "build").symlink_to(build_dir)
    (tmp_path / "policies").symlink_to(src_dir / "policies")
    return tmp_path


def sh(script, cwd, **env):
    e = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", **env}
    return subprocess.run(["sh", "-ec", script], cwd=cwd, env=e,
                          capture_output=True, text=True, timeout=120)


def has_matplotlib():
    return subprocess.run([PYTHON, "-c", "import matplotlib"],
                          capture_output=True).returncode == 0


def test_readme_first_policy(src_dir, checkout):
    (checkout / "hello.policy").write_text(block(src_dir, "# hello.policy"))
    cmds = block(src_dir, "build/cordonc compile -I policies -o hello.cpol")
    r = sh(cmds, checkout)
    assert r.returncode == 0, r.stderr
    assert "policy hello" in r.stdout and "/usr/bin/python3" in r.stdout
    assert r.stdout.endswith("hi\n")
    report = json.loads((checkout / "status.json").read_text())
    assert report["policy"] == "hello" and report["outcome"] == "exited"


def test_readme_files_back_cli(src_dir, checkout):
    if not has_matplotlib():
        pytest.skip("python3-matplotlib is not installed (make deps)")
    r = sh(block(src_dir, "mkdir -p out"), checkout)
    assert r.returncode == 0, r.stderr
    assert (checkout / "out" / "plot.png").read_bytes()[:8] == \
        b"\x89PNG\r\n\x1a\n"
    assert not (checkout / "plot.png").exists()


def run_python(src_dir, build_dir, cwd, code):
    """A README Python example, verbatim, with build/ on PATH and the
    client importable, nothing else configured."""
    (cwd / "example.py").write_text(code)
    env = {"PATH": "%s:/usr/bin:/bin" % build_dir, "LANG": "C.UTF-8",
           "PYTHONPATH": str(src_dir / "clients" / "python")}
    return subprocess.run([PYTHON, "example.py"], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=120)


def test_readme_python_zero_config(src_dir, build_dir, tmp_path):
    code = block(src_dir, "import asyncio\nimport cordon\n\nasync def main")
    assert "await" not in code.split("async def main")[0]
    r = run_python(src_dir, build_dir, tmp_path, code)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "True 42\n", r.stdout


def test_readme_python_files_back(src_dir, build_dir, tmp_path):
    if not has_matplotlib():
        pytest.skip("python3-matplotlib is not installed (make deps)")
    code = block(src_dir, "import asyncio\nimport cordon\n\nPLOT =")
    r = run_python(src_dir, build_dir, tmp_path, code)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "plot.png").read_bytes()[:4] == b"\x89PNG"


def test_client_readme_first_example(src_dir, build_dir, tmp_path):
    code = re.search(r"```python\n(.*?)```", (
        src_dir / "clients" / "python" / "README.md").read_text(),
        re.S).group(1)
    assert "asyncio.run(" in code
    r = run_python(src_dir, build_dir, tmp_path, code)
    assert r.returncode == 0, r.stderr
    assert "42" in r.stdout


def test_zero_config_errors_say_where(src_dir, tmp_path):
    """No launcher anywhere: the error names what it looked for."""
    code = "import cordon\ncordon.Client()\n"
    env = {"PATH": str(tmp_path), "PYTHONPATH":
           str(src_dir / "clients" / "python")}
    r = subprocess.run([PYTHON, "-c", code], env=env, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode != 0
    assert "CORDON_BIN" in r.stderr and str(tmp_path) in r.stderr
    # A launcher with no policies beside it: the folders tried are named.
    fake = tmp_path / "cordon"
    fake.write_text("#!/bin/sh\n")
    os.chmod(fake, 0o755)
    r = subprocess.run([PYTHON, "-c", code], env=env, capture_output=True,
                       text=True, timeout=60)
    assert str(tmp_path / "policies") in r.stderr
    assert "share/cordon/policies" in r.stderr


def lint_ids(build_dir):
    out = subprocess.run([str(build_dir / "cordonc"), "lint", "--list"],
                         capture_output=True, text=True, check=True).stdout
    return [ln.split()[0] for ln in out.splitlines()]


def test_readme_and_man_name_every_lint_rule(src_dir, build_dir):
    """Issue 41: the README's range of lint codes is the rules that
    exist, first to last, and cordonc(1) describes each of them."""
    ids = lint_ids(build_dir)
    assert ids and ids == sorted(ids), ids
    ranges = re.findall(r"\b(CL\d{3})-(CL\d{3})\b",
                        (src_dir / "README.md").read_text())
    assert ranges == [(ids[0], ids[-1])], (ranges, ids)
    man = re.findall(r"^\.It (CL\d{3})$",
                     (src_dir / "man" / "cordonc.1").read_text(), re.M)
    assert man == ids, (man, ids)


def ci_step(src_dir, name):
    """The env and run script of the README's CI step called name (the
    ```yaml block), read without a YAML library: its lines as written."""
    text = (src_dir / "README.md").read_text()
    yml = re.search(r"```yaml\n(.*?)```", text, re.S).group(1).splitlines()
    start = [i for i, ln in enumerate(yml)
             if ln.strip() == "- name: " + name]
    assert start, "README's CI example lost its step %r" % name
    env, run, i = {}, [], start[0] + 1
    while i < len(yml) and not yml[i].strip().startswith("- "):
        ln = yml[i]
        m = re.match(r"\s+([A-Z_]+): (\S+)$", ln)
        if m:
            env[m.group(1)] = m.group(2)
        if ln.strip() == "run: |":
            indent = len(ln) - len(ln.lstrip()) + 2
            i += 1
            while i < len(yml) and (not yml[i].strip() or
                                    yml[i].startswith(" " * indent)):
                run.append(yml[i][indent:])
                i += 1
            continue
        i += 1
    return env, "\n".join(run) + "\n"


def test_readme_ci_example_verifies_real_blobs(src_dir, checkout):
    """Issue 41: the CI example's paths exist (its make target, the
    policies, the blobs it verifies), its step verifies every shipped
    policy's blob, and a folder without them fails loudly instead of
    verifying nothing."""
    make = (src_dir / "Makefile").read_text()
    assert re.search(r"^blobs: \$\(BUILD\)/cordonc \$\(POLICY_BLOBS\)$", make,
                     re.M) and re.search(r"^\.PHONY:.* blobs ", make, re.M)
    assert "make blobs" in ci_step(src_dir, "Build cordonc and the blobs")[1]
    env, script = ci_step(src_dir, "Expectations, lint, the blobs you ship")
    assert env.get("BLOBS") and "$BLOBS" in script, (env, script)
    pols = sorted(p.name for p in (src_dir / "policies").glob("*.policy"))
    assert pols
    blobs = checkout / env["BLOBS"]
    assert blobs.is_dir(), blobs
    r = subprocess.run(["bash", "-e", "-c", script], cwd=checkout,
                       env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                            **env}, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    said = sorted(ln.split()[-1].rsplit("/", 1)[-1] for ln in
                  r.stdout.splitlines() if " matches " in ln)
    assert said == pols, r.stdout
    (checkout / "none").mkdir()
    r = subprocess.run(["bash", "-e", "-c", script], cwd=checkout,
                       env={"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
                            "BLOBS": "none"}, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode != 0 and "No such file" in r.stderr, \
        r.stdout + r.stderr
