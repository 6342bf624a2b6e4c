"""The README's first policy compiles and runs as the README says."""
import json
import re
import subprocess


def test_readme_first_policy(src_dir, cordonc_bin, cordon_bin, tmp_path):
    text = (src_dir / "README.md").read_text()
    block = re.search(r"^    # hello.policy\n((?:    .*\n)+)", text, re.M)
    assert block, "README lost its first-policy example"
    policy = "\n".join(line[4:] for line in block.group(0).splitlines())
    (tmp_path / "hello.policy").write_text(policy + "\n")
    blob = tmp_path / "hello.cpol"
    subprocess.run([cordonc_bin, "compile", "-I", src_dir / "policies",
                    "-o", blob, tmp_path / "hello.policy"], check=True)
    explain = subprocess.run([cordonc_bin, "explain", blob], check=True,
                             capture_output=True, text=True).stdout
    assert "policy hello" in explain and "/usr/bin/python3" in explain
    status = tmp_path / "status.json"
    r = subprocess.run([cordon_bin, "--status-file", status, blob, "-"],
                       input=b'print("hi")\n', capture_output=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert r.stdout == b"hi\n"
    report = json.loads(status.read_text())
    assert report["policy"] == "hello" and report["outcome"] == "exited"
