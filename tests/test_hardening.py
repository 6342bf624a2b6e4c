"""Build hardening of the shipped binaries (issue 7), read with readelf.

The flags come from the top-level Makefile (HARDEN_CFLAGS,
HARDEN_LDFLAGS); this checks that they reached the binaries: PIE, full
RELRO (GNU_RELRO plus BIND_NOW), a non-executable stack, the stack
protector and FORTIFY_SOURCE's checked functions.  Under `make sanitize`
the binaries are ASan builds, where FORTIFY is off on purpose (glibc's
checked functions would bypass ASan's interceptors); that one check is
skipped there, saying so.
"""
import shutil
import subprocess

import pytest

BINARIES = ["cordonc", "cordon", "cordon-audit", "cordon-egress",
            "cordon-tls", "cordon-observe", "cordon-pool", "cordon-static"]

pytestmark = pytest.mark.skipif(shutil.which("readelf") is None,
                                reason="readelf (binutils) is not installed")


def readelf(*args):
    return subprocess.run(["readelf", "-W", *args], check=True,
                          capture_output=True, text=True).stdout


def symbols(path):
    """Names in .dynsym and, when present, .symtab (the static launcher
    has only the latter)."""
    syms = set()
    for line in readelf("-s", str(path)).splitlines():
        fields = line.split()
        if len(fields) >= 8 and fields[0].endswith(":"):
            syms.add(fields[7].split("@")[0])
    syms.discard("Name")  # the table heading
    return syms


@pytest.fixture(params=BINARIES)
def binary(request, build_dir):
    path = build_dir / request.param
    if request.param == "cordon-static" and not path.exists() \
            and (build_dir / "cordonc").exists() \
            and is_asan(build_dir / "cordonc"):
        pytest.skip("ASan build (make sanitize): ASan cannot link "
                    "statically, so there is no cordon-static")
    assert path.exists(), f"{path} is not built (make all)"
    return path


def is_asan(path):
    return any(s.startswith("__asan_") for s in symbols(path))


def test_pie(binary):
    assert "Type:                              DYN" in readelf("-h", str(binary))
    dyn = readelf("-d", str(binary))
    assert "PIE" in dyn, "no DF_1_PIE flag: not linked with -pie"


def test_full_relro(binary):
    assert "GNU_RELRO" in readelf("-l", str(binary)), "no RELRO segment"
    dyn = readelf("-d", str(binary))
    assert "BIND_NOW" in dyn or "FLAGS_1" in dyn and " NOW" in dyn, \
        "RELRO is partial: not linked with -z now"


def test_no_executable_stack(binary):
    for line in readelf("-l", str(binary)).splitlines():
        if "GNU_STACK" in line:
            flags = line.split()[-2]
            assert "E" not in flags, f"executable stack: {line.strip()}"
            return
    pytest.fail("no GNU_STACK header: the stack would be executable")


def linked_message(path, text):
    """The static launcher is stripped: no symbol table to look in.  glibc's
    __stack_chk_fail and __chk_fail are linked in only when something calls
    them, and they carry these messages, so their presence proves it."""
    return text.encode() in path.read_bytes()


def test_stack_protector(binary):
    if not symbols(binary):
        assert linked_message(binary, "stack smashing detected"), \
            "stripped, and no __stack_chk_fail linked in"
        return
    assert "__stack_chk_fail" in symbols(binary), \
        "no __stack_chk_fail: built without -fstack-protector-strong"


def test_fortify(binary):
    if is_asan(binary):
        pytest.skip("ASan build (make sanitize): FORTIFY_SOURCE is off "
                    "there by design")
    if not symbols(binary):
        assert linked_message(binary, "buffer overflow detected"), \
            "stripped, and no __chk_fail linked in"
        return
    chk = sorted(s for s in symbols(binary)
                 if s.startswith("__") and s.endswith("_chk")
                 and s != "__stack_chk_fail")
    assert chk, "no __*_chk symbol: built without -D_FORTIFY_SOURCE"


def test_no_rpath_and_no_textrel(binary):
    dyn = readelf("-d", str(binary))
    assert "TEXTREL" not in dyn
    assert "RPATH" not in dyn and "RUNPATH" not in dyn
