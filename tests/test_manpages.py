"""The man pages' example policies (cordon.policy(5), EXAMPLES) compile,
and a snippet runs under them (issue 16: an example that breaks Python
is worse than none).  Root and uid 65534 (tests/run-pytest.sh copies
man/)."""
import re
import subprocess

import pytest


def examples(page):
    text = page.read_text()
    sect = re.search(r"^\.Sh EXAMPLES\n(.*?)^\.Sh ", text, re.S | re.M)
    assert sect, "no EXAMPLES section in %s" % page
    return re.findall(r"^\.Bd -literal.*?\n(.*?)^\.Ed", sect.group(1),
                      re.S | re.M)


def test_policy_examples_compile_and_run(src_dir, cordonc_bin, cordon_bin,
                                         tmp_path):
    page = src_dir / "man" / "cordon.policy.5"
    if not page.exists():
        pytest.skip("man/ is not in this copy of the tree")
    found = examples(page)
    assert found
    for i, body in enumerate(found):
        src = tmp_path / ("example%d.policy" % i)
        src.write_text(body.replace("\\e", "\\"))
        blob = tmp_path / ("example%d.cpol" % i)
        p = subprocess.run([str(cordonc_bin), "compile", "-I",
                            str(src_dir / "policies"), "-o", str(blob),
                            str(src)], capture_output=True, text=True)
        assert p.returncode == 0, (body, p.stderr)
        snip = tmp_path / "s.py"
        snip.write_text("import math, json\nprint(math.sqrt(49))\n")
        p = subprocess.run([str(cordon_bin), str(blob), str(snip)],
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 0 and p.stdout == "7.0\n", (body, p)
        p = subprocess.run([str(cordonc_bin), "test", "-I",
                            str(src_dir / "policies"), str(src)],
                           capture_output=True, text=True)
        assert p.returncode == 0, (body, p.stdout, p.stderr)


def _rendered(page):
    p = subprocess.run(["mandoc", "-T", "utf8", str(page)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip("mandoc cannot render %s: %s" % (page, p.stderr))
    return re.sub(r".\x08", "", p.stdout)


def test_every_network_form_in_the_page_compiles(src_dir, cordonc_bin,
                                                 tmp_path):
    """Each network statement cordon.policy(5) writes at the start of a
    line (the statement list, the examples) compiles once its
    placeholders are filled in (issue 26: the page's named-host form did
    not)."""
    import shutil
    page = src_dir / "man" / "cordon.policy.5"
    if not page.exists():
        pytest.skip("man/ is not in this copy of the tree")
    if not shutil.which("mandoc"):
        pytest.skip("no mandoc (make deps installs it)")
    forms = set(re.findall(r"^\s*(network (?:off|connect|bind)[^;\n]*;)"
                           r"\s*(?:#.*)?$", _rendered(page), re.M))
    assert any('"' in f for f in forms), forms     # the named-host form
    for i, form in enumerate(sorted(forms)):
        stmt = (form.replace(", ...", "").replace('"host"',
                '"api.example.org"').replace("port", "443"))
        src = tmp_path / ("net%d.policy" % i)
        src.write_text('include "base/python.policy";\npolicy "t";\n'
                       'path "$WORKDIR" rw;\n%s\n'
                       'command "/usr/bin/python3" "$SNIPPET";\n' % stmt)
        p = subprocess.run([str(cordonc_bin), "compile", "-I",
                            str(src_dir / "policies"), "-D", "PORT=443",
                            "-o", str(tmp_path / "net.cpol"), str(src)],
                           capture_output=True, text=True)
        assert p.returncode == 0, (form, stmt, p.stderr)


def test_every_page_lints_clean(src_dir):
    """mandoc -Tlint at warning level and above on every page in man/
    (issue 25): a broken macro renders as something other than what the
    page says.  Style notes (references to pages not installed on this
    machine) are not errors."""
    import shutil
    if not (src_dir / "man").is_dir():
        pytest.skip("man/ is not in this copy of the tree")
    if not shutil.which("mandoc"):
        pytest.skip("no mandoc (make deps installs it)")
    pages = sorted(str(p) for p in (src_dir / "man").iterdir()
                   if re.search(r"\.[1-8]$", p.name))
    assert pages
    p = subprocess.run(["mandoc", "-Tlint", "-Wwarning"] + pages,
                       capture_output=True, text=True)
    lines = [l for l in (p.stdout + p.stderr).splitlines()
             if "outdated mandoc.db" not in l]
    assert p.returncode == 0 and not lines, "\n".join(lines)
