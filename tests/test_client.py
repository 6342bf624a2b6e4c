"""Tests of the Python client (clients/python): unit tests of its input,
output, blob and policy handling, and live tests against the real cordon
and the shipped policies.

The package is imported from src_dir/clients/python (see client_support).
"""
from __future__ import annotations

import asyncio
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import threading
import time
import uuid

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from client_support import LoopWatch, import_client, procs_with  # noqa: E402

GENERAL = "code_gen"          # the shipped general-purpose policy


# ---------------------------------------------------------------- fixtures

@pytest.fixture(scope="session")
def cpkg(src_dir):
    return import_client(src_dir)


@pytest.fixture(scope="session")
def general_dir(policies_dir):
    """The shipped compiled policies; code_gen is the general one."""
    assert (policies_dir / f"{GENERAL}.cpol").is_file(), \
        f"{policies_dir}/{GENERAL}.cpol missing: run make"
    return policies_dir


@pytest.fixture
def runs_dir(tmp_path):
    """Where the client makes its private run folders."""
    runs = tmp_path / "runs"
    runs.mkdir()
    return runs


@pytest.fixture
def client(cpkg, general_dir, cordon_bin, runs_dir):
    runs = runs_dir
    return cpkg.Client(general_dir, cordon=cordon_bin, work_root=runs,
                       concurrency=20)


def run(coro):
    return asyncio.run(coro)


def leftovers(client):
    return sorted(os.listdir(client.work_root))


# --------------------------------------------------- blob and source digest

def make_blob(name="t", digest=b"\0" * 32, arch=0xC000003E):
    """A minimal well-formed header + META/LAYERS/LIMITS (for the client's
    own reader; the launcher would refuse it for missing sections)."""
    def s(x):
        b = x.encode()
        return struct.pack("<H", len(b)) + b

    def sect(t, body):
        return struct.pack("<HHI", t, 1, len(body)) + body
    body = (sect(1, s(name) + s("d") + s("v") + digest)
            + sect(2, struct.pack("<III", 6, 2, 0))
            + sect(6, struct.pack("<QQI", 7000, 4096, 0)))
    hdr = b"\x89CPOL\r\n\x1a" + struct.pack("<HHIIIII", 1, 64, arch,
                                             64 + len(body), 3, 0, 0)
    import hashlib
    h = hashlib.sha256(hdr)
    h.update(body)
    return hdr + h.digest() + body


def test_blob_reader(cpkg):
    from cordon import blob
    info = blob.parse_blob(make_blob("radiomics", b"\x11" * 32))
    assert info.name == "radiomics"
    assert info.source_digest == "11" * 32
    assert info.timeout_ms == 7000 and info.output_cap == 4096
    assert info.network == "off"
    good = make_blob()
    for bad in (good[:-1], b"X" + good[1:],
                good[:40] + bytes([good[40] ^ 1]) + good[41:],
                good + b"\0"):
        with pytest.raises(blob.BlobFormatError):
            blob.parse_blob(bad)


def test_include_lexer(cpkg):
    from cordon import blob
    src = b'''# include "no1";
    /* include "no2"; */ include "a.policy";
    description "include \\"no3\\""; include "b/c.policy"; allow read;
    '''
    assert blob._includes(src) == ["a.policy", "b/c.policy"]


def test_shipped_blobs_digest(cpkg, policies_dir, src_dir):
    """The client's digest of each shipped source equals what cordonc
    recorded in its blob (so fresh blobs are never called stale)."""
    from cordon import blob
    blobs = sorted(policies_dir.glob("*.cpol"))
    if not blobs:
        pytest.skip("no shipped policies built in build/policies yet")
    for b in blobs:
        info = blob.load_blob(str(b))
        src = src_dir / "policies" / (b.stem + ".policy")
        assert blob.source_digest(str(src)) == info.source_digest, b


# ----------------------------------------------------------- policy store

@pytest.fixture
def policy_tree(tmp_path, src_dir, cordonc_bin):
    """A source folder with a policy that includes a fragment, and its
    blob compiled by the real cordonc."""
    srcd = tmp_path / "src"
    shutil.copytree(src_dir / "tests" / "policies", srcd)
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    subprocess.run([str(cordonc_bin), "compile", "-o",
                    str(blobs / "client_stale.cpol"),
                    str(srcd / "client_stale.policy")], check=True)
    return srcd, blobs


def test_policy_fresh_and_missing(cpkg, policy_tree, cordonc_bin,
                                  cordon_bin):
    srcd, blobs = policy_tree
    store = cpkg.PolicyStore(blobs, source_dir=srcd, cordon=cordon_bin)
    info = store.load("client_stale")
    assert info.name == "client_stale"
    assert store.tools() == ["client_stale"]
    with pytest.raises(cpkg.PolicyNotFound) as e:
        store.load("radiomics")
    assert "radiomics.cpol does not exist" in str(e.value)
    assert "client_stale" in str(e.value)     # lists what is there
    for bad in ("../client_stale", "a/b", "", "X"):
        with pytest.raises(cpkg.PolicyNotFound):
            store.load(bad)


@pytest.mark.parametrize("what", ["main", "include"])
@pytest.mark.parametrize("confirm", [False, True])
def test_policy_stale(cpkg, policy_tree, cordonc_bin, what, confirm):
    """Changing the tool's source, or a file it includes, makes the blob
    stale; with cordonc configured the compiler confirms it."""
    srcd, blobs = policy_tree
    store = cpkg.PolicyStore(blobs, source_dir=srcd,
                             cordonc=cordonc_bin if confirm else None)
    store.load("client_stale")
    target = srcd / ("client_stale.policy" if what == "main"
                     else "client_stale_inc.policy")
    with open(target, "a") as f:
        f.write("\n# changed\n")
    with pytest.raises(cpkg.PolicyStale) as e:
        store.load("client_stale")
    assert "stale" in str(e.value)
    assert e.value.blob_digest != e.value.source_digest
    # Removing the source is stale too: the blob can no longer be checked.
    target.unlink()
    with pytest.raises(cpkg.PolicyStale):
        store.load("client_stale")


def test_policy_comment_only_change_confirmed(cpkg, policy_tree,
                                             cordonc_bin):
    """The digest covers bytes, so a comment change is a change; after
    recompiling, the blob is fresh again."""
    srcd, blobs = policy_tree
    store = cpkg.PolicyStore(blobs, source_dir=srcd, cordonc=cordonc_bin)
    with open(srcd / "client_stale.policy", "a") as f:
        f.write("# note\n")
    with pytest.raises(cpkg.PolicyStale):
        store.load("client_stale")
    subprocess.run([str(cordonc_bin), "compile", "-o",
                    str(blobs / "client_stale.cpol"),
                    str(srcd / "client_stale.policy")], check=True)
    assert store.load("client_stale").name == "client_stale"


def test_policy_invalid(cpkg, tmp_path, cordon_bin):
    (tmp_path / "junk.cpol").write_bytes(b"not a blob at all" * 10)
    os.symlink("/etc/hostname", tmp_path / "link.cpol")
    store = cpkg.PolicyStore(tmp_path, cordon=cordon_bin)
    for tool in ("junk", "link"):
        with pytest.raises(cpkg.PolicyInvalid):
            store.load(tool)


def test_policy_unenforceable(cpkg, general_dir, cordon_bin, tmp_path):
    """A valid blob the kernel cannot enforce (here: a filter built for
    another architecture) makes cordon --check exit 125: a typed error."""
    import hashlib
    buf = bytearray((general_dir / f"{GENERAL}.cpol").read_bytes())
    buf[12:16] = struct.pack("<I", 0xC00000B7)          # AUDIT_ARCH_AARCH64
    h = hashlib.sha256(bytes(buf[:32]))
    h.update(bytes(buf[64:]))
    buf[32:64] = h.digest()
    (tmp_path / "foreign.cpol").write_bytes(bytes(buf))
    store = cpkg.PolicyStore(tmp_path, cordon=cordon_bin)
    with pytest.raises(cpkg.PolicyUnenforceable) as e:
        store.check("foreign")
    assert e.value.tool == "foreign" and e.value.detail
    with pytest.raises(cpkg.PolicyUnenforceable):
        run(store.acheck("foreign"))


# ------------------------------------------------------------------ inputs

def test_inputs_formats(cpkg, tmp_path):
    import numpy as np
    import pandas as pd
    from cordon.inputs import place_inputs
    src = tmp_path / "scan.bin"
    src.write_bytes(b"\x01\x02")
    folder = tmp_path / "series"
    folder.mkdir()
    (folder / "a.dcm").write_bytes(b"dicom")
    work = tmp_path / "w"
    work.mkdir()
    df = pd.DataFrame({"x": [1, 2], "s": ["a", "b"]})
    written = place_inputs(str(work), {
        "raw.bin": b"\x00\xff", "note.txt": "héllo", "scan": src,
        "series": folder, "frame": df, "arr": np.arange(3, dtype="<i4"),
        "cfg": {"k": [1, 2], "n": np.int64(3)}})
    assert written == {"raw.bin": "raw.bin", "note.txt": "note.txt",
                       "scan": "scan", "series": "series",
                       "frame": "frame.csv", "arr": "arr.npy",
                       "cfg": "cfg.json"}
    assert (work / "raw.bin").read_bytes() == b"\x00\xff"
    assert (work / "note.txt").read_text("utf-8") == "héllo"
    assert (work / "frame.csv").read_text() == "x,s\n1,a\n2,b\n"
    assert np.load(work / "arr.npy", allow_pickle=False).tolist() == [0, 1, 2]
    assert json.loads((work / "cfg.json").read_text()) == {"k": [1, 2],
                                                           "n": 3}
    assert (work / "series" / "a.dcm").read_bytes() == b"dicom"
    copied = work / "scan"
    assert not copied.is_symlink() and copied.stat().st_nlink == 1
    assert copied.stat().st_ino != src.stat().st_ino


def test_inputs_refused(cpkg, tmp_path):
    import numpy as np
    from cordon.inputs import place_inputs
    work = tmp_path / "w"
    work.mkdir()
    for bad in ({"../x": b""}, {"a/../b": b""}, {"/abs": b""},
                {"a//b": b""}, {"a/./b": b""}, {"a/": b""},
                {"/".join("d" * 17): b""}, {"a/" + "x" * 256: b""},
                {"..": b""}, {"": b""},
                {"o": np.array([object()])}, {"s": object()},
                {"p": pathlib.Path("/nonexistent/file")},
                {"d": pathlib.Path("/dev/null")}):
        with pytest.raises(cpkg.InputError):
            place_inputs(str(work), bad)
    assert not (tmp_path / "x").exists()


def test_input_folder_links_refused(cpkg, tmp_path):
    """Issue 38: a pathlib.Path folder holding a link to a host file
    copied the file in ("content copied, never linked"). A link, FIFO
    or socket anywhere in an input tree, or as the input itself, is
    refused with its name; nothing of the link's target reaches the
    workdir."""
    import socket
    from cordon.inputs import place_inputs
    secret = tmp_path / "secret"
    secret.write_text("TOP SECRET\n")
    plain = tmp_path / "plain"
    (plain / "sub").mkdir(parents=True)
    (plain / "sub" / "a.txt").write_text("a")
    cases = []
    for kind in ("file", "dir", "dangling", "fifo", "socket", "top",
                 "top-file"):
        tree = tmp_path / kind
        (tree / "sub").mkdir(parents=True)
        (tree / "ok.txt").write_text("ok")
        bad = tree / "sub" / "bad"
        if kind == "file":
            os.symlink("/etc/passwd", bad)
        elif kind == "dir":
            os.symlink(tmp_path, bad)
        elif kind == "dangling":
            os.symlink(tmp_path / "nowhere", bad)
        elif kind == "fifo":
            os.mkfifo(bad)
        elif kind == "socket":
            s = socket.socket(socket.AF_UNIX)
            s.bind(str(bad))
            s.close()
        elif kind == "top":
            bad = tmp_path / "top-link"
            os.symlink(plain, bad)
            tree = bad
        else:
            bad = tmp_path / "top-file-link"
            os.symlink(secret, bad)
            tree = bad
        cases.append((kind, tree, bad))
    for kind, tree, bad in cases:
        work = tmp_path / ("w-" + kind)
        work.mkdir()
        with pytest.raises(cpkg.InputError) as e:
            place_inputs(str(work), {"data": tree})
        shown = str(bad) if kind.startswith("top") else \
            f"{tree}/sub/bad"
        assert shown in str(e.value), (kind, str(e.value))
        assert "never linked" in str(e.value), (kind, str(e.value))
        for f in work.rglob("*"):
            assert not f.is_symlink(), (kind, f)
            if f.is_file():
                assert f.read_text() in ("ok", "a"), (kind, f)
    work = tmp_path / "w-plain"
    work.mkdir()
    place_inputs(str(work), {"data": plain, "one": plain / "sub" / "a.txt"})
    assert (work / "data" / "sub" / "a.txt").read_text() == "a"
    assert (work / "one").read_text() == "a"


def test_cell_input_file_not_a_link(cpkg, tmp_path):
    """A session cell's file input (encode_inputs) is read only from a
    regular file that is not a link."""
    from cordon.inputs import encode_inputs
    f = tmp_path / "f.txt"
    f.write_text("mine")
    assert encode_inputs({"f": f}) == {"f": b"mine"}
    os.symlink("/etc/passwd", tmp_path / "lnk")
    os.mkfifo(tmp_path / "fifo")
    for bad in ("lnk", "fifo"):
        with pytest.raises(cpkg.InputError) as e:
            encode_inputs({"f": tmp_path / bad})
        assert str(tmp_path / bad) in str(e.value)
    with pytest.raises(cpkg.InputError, match="only a regular file"):
        encode_inputs({"f": tmp_path})


def test_input_swapped_for_a_link_not_followed(cpkg, tmp_path, monkeypatch):
    """An entry swapped for a link between the listing and its copy is
    refused, not followed (every part opened O_NOFOLLOW below its
    folder's descriptor)."""
    from cordon import _copyin
    from cordon.inputs import place_inputs
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "f").write_text("mine")
    real_listdir = os.listdir

    def swapping_listdir(fd):
        names = real_listdir(fd)
        os.unlink(tree / "f")
        os.symlink("/etc/passwd", tree / "f")
        return names
    monkeypatch.setattr(_copyin.os, "listdir", swapping_listdir)
    work = tmp_path / "w"
    work.mkdir()
    with pytest.raises(cpkg.InputError) as e:
        place_inputs(str(work), {"data": tree})
    assert "symbolic link" in str(e.value)
    assert not (work / "data" / "f").exists()


def test_pandas_numpy_imported_lazily(src_dir, tmp_path):
    code = ("import sys, cordon\n"
            "from cordon.inputs import place_inputs\n"
            f"place_inputs({str(tmp_path)!r}, "
            "{'a': b'1', 'b': {'x': 1}, 'c': 'text'})\n"
            "print('pandas' in sys.modules, 'numpy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True,
                         text=True, check=True,
                         env={"PYTHONPATH": str(src_dir / "clients/python"),
                              "PATH": "/usr/bin:/bin"})
    assert out.stdout.split() == ["False", "False"]


# ----------------------------------------------------------------- outputs

def _npy_object_bytes(payload: bytes, descr: str = "'|O'") -> bytes:
    hdr = "{'descr': %s, 'fortran_order': False, 'shape': (1,), }" % descr
    hdr += " " * (63 - (10 + len(hdr)) % 64) + "\n"
    return (b"\x93NUMPY\x01\x00" + struct.pack("<H", len(hdr))
            + hdr.encode() + payload)


def test_outputs_refusals(cpkg, tmp_path):
    """Planted links, hard links, special files, folders, oversized files
    and pickles are refused; regular files are returned."""
    from cordon.outputs import OutputLimits, collect_outputs
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    work = tmp_path / "w"
    work.mkdir()
    (work / "ok.json").write_text('{"a": 1}')
    os.symlink(secret, work / "link.txt")
    os.symlink("ok.json", work / "rel.json")
    os.link(secret, work / "hard.txt")
    os.mkfifo(work / "fifo")
    (work / "sub").mkdir()
    (work / "sub" / "deep.json").write_text("{}")
    (work / "big.bin").write_bytes(b"x" * 5000)
    (work / "evil.pkl").write_bytes(b"\x80\x04K\x01.")
    (work / "disguised.json").write_bytes(b"\x80\x04K\x01.")
    (work / "obj.npy").write_bytes(_npy_object_bytes(b"\x80\x04N."))
    (work / "rec.npy").write_bytes(
        _npy_object_bytes(b"", "[('a', '<i4'), ('b', '|O')]"))
    outs, refused = collect_outputs(
        str(work), limits=OutputLimits(max_file_bytes=4096))
    assert list(outs) == ["ok.json", "sub/deep.json"]
    assert outs["ok.json"].json() == {"a": 1}
    why = {r.name: r.reason for r in refused}
    assert "symbolic link" in why["link.txt"]
    assert "symbolic link" in why["rel.json"]
    assert "hard links" in why["hard.txt"]
    assert "regular" in why["fifo"] and "sub" not in why
    assert "cap" in why["big.bin"]
    assert "pickle" in why["evil.pkl"] and "pickle" in why["disguised.json"]
    assert "object" in why["obj.npy"] and "object" in why["rec.npy"]
    assert "TOP SECRET" not in repr(outs)


def test_outputs_tree_guarded(cpkg, tmp_path):
    """Outputs come back as a tree (issue 28): nested names, a folder
    that is a link is not entered, a file linked in a folder is refused,
    past 16 levels nothing is entered, saved copies keep the tree."""
    from cordon.outputs import collect_outputs
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET")
    work = tmp_path / "w"
    (work / "pkg" / "sub").mkdir(parents=True)
    (work / "pkg" / "mod.py").write_text("x = 1\n")
    (work / "pkg" / "sub" / "r.json").write_text("[1]")
    os.symlink(outside, work / "pkg" / "escape")
    os.symlink(outside / "secret.txt", work / "pkg" / "sub" / "s.txt")
    deep = work.joinpath(*["d"] * 17)
    deep.mkdir(parents=True)
    (deep / "too_deep.txt").write_text("deep")
    save = tmp_path / "save"
    save.mkdir()
    outs, refused = collect_outputs(str(work), save_dir=str(save),
                                    exclude=frozenset({"pkg/mod.py"}))
    assert list(outs) == ["pkg/sub/r.json"], (outs, refused)
    assert (save / "pkg" / "sub" / "r.json").read_text() == "[1]"
    why = {r.name: r.reason for r in refused}
    assert "symbolic link" in why["pkg/escape"], why
    assert "symbolic link" in why["pkg/sub/s.txt"], why
    assert any("deeper than 16" in r for n, r in why.items()
               if n.startswith("d/")), why
    assert "TOP SECRET" not in repr(outs)
    assert not list(save.rglob("secret.txt"))


def test_inputs_as_a_tree(cpkg, tmp_path):
    """Nested input names make their folders; a folder on the way that
    is a link (or a file) is refused, nothing written through it."""
    from cordon.inputs import place_inputs
    work = tmp_path / "w"
    work.mkdir()
    got = place_inputs(str(work), {"pkg/mod.py": "x = 1\n",
                                   "tests/test_mod.py": "import pkg\n",
                                   "pkg/data/n": 7})
    assert got["pkg/data/n"] == "pkg/data/n.json"
    assert (work / "pkg" / "mod.py").read_text() == "x = 1\n"
    assert (work / "pkg" / "data" / "n.json").read_text() == "7"
    target = tmp_path / "target"
    target.mkdir()
    os.symlink(target, work / "lnk")
    for bad in ({"lnk/x": b"no"}, {"pkg/mod.py/x": b"no"}):
        with pytest.raises(cpkg.InputError):
            place_inputs(str(work), bad)
    assert list(target.iterdir()) == []


def test_outputs_caps_and_subdir(cpkg, tmp_path):
    from cordon.outputs import OutputLimits, collect_outputs
    work = tmp_path / "w"
    (work / "out").mkdir(parents=True)
    for i in range(10):
        (work / "out" / f"f{i}.txt").write_text("x" * 100)
    (work / "top.txt").write_text("not collected")
    outs, refused = collect_outputs(
        str(work), subdir="out",
        limits=OutputLimits(max_files=5, max_total_bytes=450))
    assert sorted(outs) == ["f0.txt", "f1.txt", "f2.txt", "f3.txt"]
    why = {r.name: r.reason for r in refused}
    assert "total cap" in why["f4.txt"]
    assert "count cap" in why["f9.txt"] or "total cap" in why["f9.txt"]
    # A planted link in place of the output folder is not followed.
    shutil.rmtree(work / "out")
    os.symlink(tmp_path, work / "out")
    outs, refused = collect_outputs(str(work), subdir="out")
    assert outs == {} and "following links" in refused[0].reason


def test_output_decoding_never_unpickles(cpkg, tmp_path):
    from cordon.outputs import OutputFile
    marker = tmp_path / "pwned"
    evil = b"cbuiltins\nexec\n(V" + \
        f"open({str(marker)!r}, 'w').write('x')".encode() + b"\ntR."
    f = OutputFile("x.npy", 0, "npy", data=_npy_object_bytes(evil))
    with pytest.raises(cpkg.UnsafeOutput):
        f.array()
    with pytest.raises(cpkg.UnsafeOutput):
        f.decode()
    assert not marker.exists()
    # The package has no way to unpickle anything.
    for py in (pathlib.Path(cpkg.__file__).parent).glob("*.py"):
        text = py.read_text()
        assert "import pickle" not in text and "pickle.load" not in text


def test_remove_tree_does_not_follow(cpkg, tmp_path):
    from cordon._fs import remove_tree
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("keep")
    run_dir = tmp_path / "run"
    (run_dir / "a" / "b").mkdir(parents=True)
    os.symlink(outside, run_dir / "a" / "link")
    os.symlink(outside / "keep", run_dir / "flink")
    (run_dir / "a" / "b" / "f").write_text("x")
    os.chmod(run_dir / "a" / "b", 0)
    os.chmod(run_dir / "a", 0o500)
    remove_tree(str(run_dir))
    assert not run_dir.exists()
    assert (outside / "keep").read_text() == "keep"
    remove_tree(str(run_dir))   # missing: fine


def deep_tree(root, depth):
    """root/d/d/.../d (depth levels) made by descriptor, with a file, an
    unreadable folder and links to outside at the bottom."""
    fd = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(depth):
            os.mkdir("d", dir_fd=fd)
            sub = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = sub
        os.mkdir("locked", dir_fd=fd)
        os.chmod("locked", 0, dir_fd=fd)
        os.symlink("/etc", "dlink", dir_fd=fd)
    finally:
        os.close(fd)


@pytest.mark.parametrize("depth", [300, 2000])
def test_remove_tree_any_depth(cpkg, tmp_path, depth):
    # Deeper than Python's recursion limit and than the default limit of
    # 1024 descriptors (the old cap was 256 levels).
    from cordon._fs import remove_tree
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep").write_text("keep")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    deep_tree(run_dir, depth)
    remove_tree(str(run_dir))
    assert not run_dir.exists()
    assert (outside / "keep").read_text() == "keep"


def test_remove_tree_raises_on_leftovers(cpkg, tmp_path):
    from cordon._fs import remove_tree
    if os.geteuid() != 0:
        pytest.skip("placing an unremovable mount point needs root")
    mnt = tmp_path / "run" / "a" / "mnt"
    mnt.mkdir(parents=True)
    (tmp_path / "run" / "a" / "other").write_text("x")
    m = subprocess.run(["mount", "-t", "tmpfs", "none", str(mnt)],
                       capture_output=True, text=True)
    if m.returncode != 0:
        pytest.skip("cannot mount a tmpfs here: " + m.stderr)
    try:
        (mnt / "inside").write_text("x")
        with pytest.raises(OSError) as ei:
            remove_tree(str(tmp_path / "run"))
        assert "1 entry left" in str(ei.value) and "mnt" in str(ei.value)
        # Everything else went; the other file system was not entered.
        assert os.listdir(tmp_path / "run" / "a") == ["mnt"]
        assert (mnt / "inside").exists()
    finally:
        subprocess.run(["umount", str(mnt)])


# ------------------------------------------------------------ live: basics

def test_run_basic(cpkg, client):
    r = client.run(GENERAL, "import sys\nprint('hello', sys.argv[1:])\n"
                   "print('warn', file=sys.stderr)\n", args=["a", "b"])
    assert r.ok, (r.outcome, r.reason, r.stderr)
    assert r.outcome == cpkg.Outcome.EXITED and r.exit_code == 0
    assert r.stdout == b"hello ['a', 'b']\n"
    assert b"warn" in r.stderr
    assert not r.stdout_truncated and not r.stderr_truncated
    assert r.layers.seccomp and r.layers.no_new_privs
    assert r.layers.landlock_abi >= 1 and r.layers.landlock_fs
    assert r.timings.wall_ms >= 0 and r.timings.client_ms > 0
    assert len(r.blob) == 64 and r.policy
    assert r.outputs == {} and r.refused == ()
    assert leftovers(client) == []


def test_run_failure_and_timeout(cpkg, client):
    r = client.run(GENERAL, "raise SystemExit(3)")
    assert r.outcome == cpkg.Outcome.EXITED and r.exit_code == 3
    assert not r.ok
    with pytest.raises(cpkg.SnippetFailed):
        r.check()
    t = time.monotonic()
    r = client.run(GENERAL, "import time\ntime.sleep(60)", timeout=1)
    assert r.outcome == cpkg.Outcome.TIMEOUT and r.exit_code == 124
    assert time.monotonic() - t < 30     # not the snippet's 60 s
    assert leftovers(client) == []


def test_capped_timeout_is_said_and_stderr_is_the_snippets(cpkg, client,
                                                          caplog):
    # cordon runs --quiet under the client: its stderr notes never mix
    # with the snippet's; a timeout= above the policy's (code_gen: 120s)
    # is said in the client's log instead.
    code = "import sys\nsys.stderr.write('mine\\n')\n"
    with caplog.at_level("WARNING", logger="cordon"):
        r = client.run(GENERAL, code, timeout=900)
    assert r.ok and r.stderr == b"mine\n", r
    said = [m.getMessage() for m in caplog.records]
    assert said == ["tool 'code_gen': timeout=900 capped at the policy's "
                    "120s"], said
    caplog.clear()
    with caplog.at_level("WARNING", logger="cordon"):
        r = client.run(GENERAL, code, timeout=5)
    assert r.ok and r.stderr == b"mine\n" and caplog.records == [], r


def test_run_inside_loop_refused(cpkg, client):
    async def inner():
        with pytest.raises(RuntimeError):
            client.run(GENERAL, "pass")
    run(inner())


def test_module_level_api(cpkg, general_dir, cordon_bin, runs_dir):
    cpkg.configure(general_dir, cordon=cordon_bin, work_root=runs_dir)
    assert cpkg.run(GENERAL, "print(6 * 7)").stdout == b"42\n"
    r = run(cpkg.arun(GENERAL, "print(6 * 7)"))
    assert r.stdout == b"42\n"
    with pytest.raises(cpkg.PolicyNotFound):
        cpkg.run("no_such_tool", "pass")


def test_server_environment_not_passed(cpkg, client, monkeypatch):
    monkeypatch.setenv("CORDON_TEST_SECRET", "hunter2")
    r = client.run(GENERAL, "import os\nprint(sorted(os.environ))")
    assert r.ok, r.stderr
    assert b"CORDON_TEST_SECRET" not in r.stdout
    assert "CORDON_TEST_SECRET" not in client._env(None)


def test_concurrency_limit(cpkg, general_dir, cordon_bin, runs_dir):
    """With a limit of 2 for the tool, 6 runs of 1 s take 3 rounds."""
    c = cpkg.Client(general_dir, cordon=cordon_bin, work_root=runs_dir,
                    concurrency={GENERAL: 2})
    assert c.concurrency(GENERAL) == 2 and c.concurrency("other") == 4

    async def main():
        t = time.monotonic()
        rs = await asyncio.gather(*[c.arun(GENERAL, "import time\n"
                                           "time.sleep(1)")
                                    for _ in range(6)])
        return time.monotonic() - t, rs
    took, rs = run(main())
    assert all(r.ok for r in rs)
    assert took >= 3.0, took


# ----------------------------------------- live: the issue's required tests

@pytest.mark.parametrize("priority", ["idle", 5, None])
def test_priority_applied_by_cordon_to_the_run(cpkg, general_dir,
                                               cordon_bin, runs_dir,
                                               priority):
    """The run gets the priority (cordon --idle / --nice); the client's
    spawner threads keep this process's, so a spawner holding the GIL
    never waits behind idle-class runs."""
    code = ("import os\n"
            "print(os.getpriority(os.PRIO_PROCESS, 0),"
            " os.sched_getscheduler(0))\n")
    base = os.getpriority(os.PRIO_PROCESS, 0)
    mine = os.sched_getscheduler(0)
    want = {"idle": [base, os.SCHED_IDLE], 5: [min(19, base + 5), mine],
            None: [base, mine]}[priority]
    c = cpkg.Client(general_dir, cordon=cordon_bin, work_root=runs_dir,
                    priority=priority)
    try:
        r = c.run(GENERAL, code)
        assert r.ok, (r.outcome, r.reason, r.stderr)
        assert [int(x) for x in r.stdout.split()] == want
        spawner = c._spawner.submit(lambda: (
            os.getpriority(os.PRIO_PROCESS, threading.get_native_id()),
            os.sched_getscheduler(0))).result()
        assert spawner == (base, mine)
    finally:
        c.close()
    with pytest.raises(ValueError):
        cpkg.Client(general_dir, cordon=cordon_bin, priority=20)


def test_twenty_concurrent_runs_do_no_blocking_work_on_the_loop(cpkg,
                                                                client):
    """20 runs at once (inputs, snippet, outputs).  The client spawns in
    worker threads, waits on pidfds and does its file work in threads, so
    the event loop's thread makes no blocking call: LoopWatch records any
    (an opened path, a spawn, a listing, a removal) made on it while the
    runs go.  A self-check first: the watch sees a spawn
    and a sleep made on the loop."""
    code = ("import json, sys\n"
            "n = json.load(open('n.json'))\n"
            "open('sq.json', 'w').write(json.dumps(n * n))\n"
            "print(n)\n")

    async def main():
        watch = LoopWatch()
        watch.start()
        try:
            rs = await asyncio.gather(*[client.arun(GENERAL, code,
                                                    inputs={"n": i})
                                        for i in range(20)])
        finally:
            watch.stop()
        return rs, watch.blocking

    async def blocking_on_the_loop():
        watch = LoopWatch()
        watch.start()
        try:
            subprocess.run(["true"], check=True)
            os.listdir("/")
        finally:
            watch.stop()
        return watch.blocking

    seen = run(blocking_on_the_loop())
    assert any(b.startswith("subprocess.Popen") for b in seen) and \
        any(b.startswith("os.listdir") for b in seen), seen
    client.run(GENERAL, "pass")
    rs, blocking = run(main())
    for i, r in enumerate(rs):
        assert r.ok, (r.outcome, r.reason, r.stderr)
        assert r.stdout == f"{i}\n".encode()
        assert r.outputs["sq.json"].json() == i * i
    assert blocking == [], blocking
    assert leftovers(client) == []


def test_cancel_leaves_no_process(cpkg, client):
    """A hanging snippet (which also forks a setsid() grandchild) cancelled
    by asyncio.wait_for: afterwards no process carrying the run's marker
    exists, and the run's folder is gone."""
    marker = f"cordon-cancel-{uuid.uuid4().hex}"
    code = ("import os, sys, time\n"
            "if os.fork() == 0:\n"
            "    os.setsid()\n"
            "    if os.fork() == 0:\n"
            "        time.sleep(3600)\n"
            "    os._exit(0)\n"
            "print('started', flush=True)\n"
            "time.sleep(3600)\n")

    async def main():
        task = asyncio.ensure_future(client.arun(GENERAL, code,
                                                 args=[marker]))
        for _ in range(200):              # wait until the tree is up
            await asyncio.sleep(0.05)
            if len(procs_with(marker)) >= 3:
                break
        seen = len(procs_with(marker))
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(task, 0.2)
        return seen
    seen = run(main())
    assert seen >= 3, "the snippet's process tree never came up"
    assert procs_with(marker) == []
    assert leftovers(client) == []


def test_symlink_output_refused(cpkg, client, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    os.chmod(tmp_path, 0o755)
    code = ("import os, sys\n"
            "for name, target in (('out.txt', sys.argv[1]),\n"
            "                     ('passwd.txt', '/etc/passwd')):\n"
            "    try:\n"
            "        os.symlink(target, name); print('planted', name)\n"
            "    except OSError as e:\n"
            "        print('symlink refused by the sandbox:', e)\n")
    r = client.run(GENERAL, code, args=[str(secret)])
    assert r.ok, r.stderr
    assert "out.txt" not in r.outputs and "passwd.txt" not in r.outputs
    why = {x.name: x.reason for x in r.refused}
    for name in ("out.txt", "passwd.txt"):
        if f"planted {name}".encode() in r.stdout:
            assert "symbolic link" in why[name]
    assert b"TOP SECRET" not in b"".join(
        f.content for f in r.outputs.values())
    assert secret.read_text() == "TOP SECRET"
    print("\nsnippet:", r.stdout.decode().strip().replace("\n", "; "))


TREE_CODE = (
    "import json, os, subprocess, sys, unittest\n"
    "sys.path.insert(0, os.getcwd())\n"
    "import pkg.mod\n"
    "suite = unittest.defaultTestLoader.discover('tests', top_level_dir='.')\n"
    "res = unittest.TextTestRunner(stream=open(os.devnull, 'w')).run(suite)\n"
    "os.makedirs('results/deep', exist_ok=True)\n"
    "json.dump({'run': res.testsRun, 'ok': res.wasSuccessful()},\n"
    "          open('results/deep/report.json', 'w'))\n")


@pytest.mark.parametrize("warm", [False, True])
def test_a_source_tree_in_and_results_out(cpkg, general_dir, cordon_bin,
                                          runs_dir, warm):
    """An agent's test-runner shape (issue 28): a package and its tests
    in, a report out, as trees, cold and warm."""
    c = cpkg.Client(general_dir, cordon=cordon_bin, work_root=runs_dir,
                    warm=warm)
    try:
        r = c.run(GENERAL, TREE_CODE, inputs={
            "pkg/__init__.py": "",
            "pkg/mod.py": "def double(x):\n    return 2 * x\n",
            "tests/__init__.py": "",
            "tests/test_mod.py": "import unittest\nimport pkg.mod\n"
            "class T(unittest.TestCase):\n"
            "    def test_double(self):\n"
            "        self.assertEqual(pkg.mod.double(2), 4)\n"})
    finally:
        c.close()
    assert r.ok, (r.stderr, r.status)
    assert r.outputs["results/deep/report.json"].json() == \
        {"run": 1, "ok": True}, r.outputs
    assert "pkg/mod.py" not in r.outputs       # an input, not an output
    if warm:
        assert r.status.get("warm") is True, r.status


def test_hardlinks_in_a_run_come_back_as_copies(cpkg, client, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")
    code = ("import os, sys\n"
            "open('a.txt', 'w').write('mine')\n"
            "os.link('a.txt', 'b.txt')\n"
            "try:\n"
            "    os.link(sys.argv[1], 'stolen.txt'); print('linked')\n"
            "except OSError as e:\n"
            "    print('link refused by the sandbox:', e)\n"
            "open('fine.txt', 'w').write('fine')\n")
    r = client.run(GENERAL, code, args=[str(secret)])
    assert r.ok, r.stderr
    # The run's files live on its own tmpfs: nothing there can link to a
    # host file (EXDEV, and Landlock), and cordon copies what it made
    # back as fresh files, so two names of one file come back as copies.
    assert b"link refused by the sandbox" in r.stdout, r.stdout
    assert sorted(r.outputs) == ["a.txt", "b.txt", "fine.txt"]
    assert r.outputs["b.txt"].text() == "mine"
    assert secret.read_text() == "TOP SECRET"


def test_huge_output_refused(cpkg, general_dir, cordon_bin, runs_dir):
    c = cpkg.Client(general_dir, cordon=cordon_bin, work_root=runs_dir,
                    output_limits=cpkg.OutputLimits(max_file_bytes=64 << 10))
    r = c.run(GENERAL, "open('huge.bin', 'wb').write(b'x' * (1 << 20))\n"
              "open('small.txt', 'w').write('ok')\n")
    assert r.ok, (r.outcome, r.reason, r.stderr)
    assert "huge.bin" not in r.outputs
    assert r.outputs["small.txt"].text() == "ok"
    assert "cap" in {x.name: x.reason for x in r.refused}["huge.bin"]


def test_dataframe_round_trip(cpkg, client):
    import numpy as np
    import pandas as pd
    df = pd.DataFrame({"id": [1, 2, 3], "name": ["a", "b, c", "d\"e"],
                       "value": [0.5, -1.25, 1e10]})
    arr = np.arange(12, dtype="<f8").reshape(3, 4)
    code = ("import csv, json, struct\n"
            "rows = list(csv.DictReader(open('frame.csv', newline='')))\n"
            "with open('out.csv', 'w', newline='') as f:\n"
            "    w = csv.DictWriter(f, ['id', 'name', 'value', 'double'])\n"
            "    w.writeheader()\n"
            "    for r in rows:\n"
            "        r['double'] = float(r['value']) * 2\n"
            "        w.writerow(r)\n"
            "raw = open('arr.npy', 'rb').read()\n"
            "open('copy.npy', 'wb').write(raw)\n"
            "json.dump({'n': len(rows)}, open('meta.json', 'w'))\n")
    r = client.run(GENERAL, code, inputs={"frame": df, "arr": arr})
    assert r.ok, r.stderr
    assert set(r.outputs) == {"out.csv", "copy.npy", "meta.json"}
    back = r.outputs["out.csv"].dataframe()
    pd.testing.assert_frame_equal(back[["id", "name", "value"]], df)
    assert back["double"].tolist() == [1.0, -2.5, 2e10]
    np.testing.assert_array_equal(r.outputs["copy.npy"].array(), arr)
    assert r.outputs["meta.json"].decode() == {"n": 3}


def test_dataframe_round_trip_with_pandas_inside(cpkg, client):
    """The same with pandas used by the snippet (the common case)."""
    import pandas as pd
    df = pd.DataFrame({"x": [1, 2, 3], "y": ["p", "q", "r"]})
    code = ("import pandas as pd\n"
            "df = pd.read_csv('df.csv')\n"
            "df['z'] = df['x'] ** 2\n"
            "df.to_csv('result.csv', index=False)\n")
    r = client.run(GENERAL, code, inputs={"df": df}, timeout=60)
    assert r.ok, r.stderr.decode()[-3000:]
    out = r.outputs["result.csv"].dataframe()
    pd.testing.assert_frame_equal(out[["x", "y"]], df)
    assert out["z"].tolist() == [1, 4, 9]


def test_malicious_pickle_never_executed(cpkg, client, tmp_path):
    marker = tmp_path / "pwned-by-pickle"
    code = ("import pickle, struct, sys\n"
            "class Evil:\n"
            "    def __reduce__(self):\n"
            "        return (exec, (f'open({sys.argv[1]!r}, \"w\")"
            ".write(\"pwned\")',))\n"
            "data = pickle.dumps(Evil())\n"
            "for n in ('result.pkl', 'result.pickle', 'model.pt',\n"
            "          'result.json', 'result.bin'):\n"
            "    open(n, 'wb').write(data)\n"
            "hdr = \"{'descr': '|O', 'fortran_order': False, "
            "'shape': (1,), }\"\n"
            "hdr += ' ' * (63 - (10 + len(hdr)) % 64) + '\\n'\n"
            "open('result.npy', 'wb').write(b'\\x93NUMPY\\x01\\x00'"
            " + struct.pack('<H', len(hdr)) + hdr.encode() + data)\n")
    r = client.run(GENERAL, code, args=[str(marker)])
    assert r.ok, r.stderr
    assert r.outputs == {}, list(r.outputs)
    why = {x.name: x.reason for x in r.refused}
    assert set(why) == {"result.pkl", "result.pickle", "model.pt",
                        "result.json", "result.bin", "result.npy"}
    for f in r.outputs.values():
        f.decode()
    assert not marker.exists()


def test_output_dir_save_and_truncation(cpkg, general_dir, cordon_bin,
                                        runs_dir, tmp_path):
    """Outputs from a named folder only, saved as files; stdout beyond the
    client's stream cap is cut and flagged."""
    c = cpkg.Client(general_dir, cordon=cordon_bin, work_root=runs_dir,
                    stream_cap=1000)
    saved = tmp_path / "saved"
    saved.mkdir()
    png = b"\x89PNG\r\n\x1a\n" + b"\0" * 32
    code = ("import sys\n"
            f"open('out/plot.png', 'wb').write({png!r})\n"
            "open('out/scan.nii.gz', 'wb').write(b'nifti')\n"
            "open('not-collected.txt', 'w').write('top level')\n"
            "sys.stdout.write('x' * 5000)\n")
    r = c.run(GENERAL, code, output_dir="out", save_outputs_to=saved)
    assert r.ok, r.stderr
    assert sorted(r.outputs) == ["plot.png", "scan.nii.gz"]
    plot = r.outputs["plot.png"]
    assert plot.kind == "png" and plot.data is None
    assert pathlib.Path(plot.path).read_bytes() == png == plot.content
    assert r.outputs["scan.nii.gz"].kind == "nifti"
    assert len(r.stdout) == 1000 and r.stdout_truncated
    assert not r.stderr_truncated
    assert leftovers(c) == []


def test_policy_output_cap_flagged(cpkg, client):
    """More output than the policy's cap: cordon cuts it and the result
    says so."""
    cap = client.policies.load(GENERAL).output_cap
    r = client.run(GENERAL, "import sys\n"
                   f"sys.stdout.write('y' * {cap + 100_000})\n")
    assert r.status["output_truncated"] is True
    assert r.stdout_truncated and len(r.stdout) <= cap


def test_links_planted_during_a_run_refused(cpkg, client, runs_dir,
                                            tmp_path):
    """The shipped policies do not let a snippet make symlinks, so this
    plants them (and a hard link) in the run's folder from outside while
    the snippet runs, as a policy with make-sym rights would allow.  (The
    run itself sees a copy of the folder on its own tmpfs: cordon copies
    regular files back and never through a link.)"""
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET")

    async def main():
        task = asyncio.ensure_future(client.arun(
            GENERAL, "import os, time\n"
            "open('real.txt', 'w').write('real')\n"
            "open('hard.txt', 'w').write('not through the link')\n"
            "time.sleep(2)\n"))
        work = None
        for _ in range(400):
            await asyncio.sleep(0.05)
            found = list(runs_dir.glob("cordon-*/work"))
            if found and list(found[0].glob("snippet*.py")):
                work = found[0]
                break
        assert work is not None, "the run's workdir never appeared"
        os.symlink(secret, work / "link.txt")
        os.symlink("/etc/passwd", work / "passwd.txt")
        os.link(secret, work / "hard.txt")
        (work / "planted").write_text("")
        return await task
    r = run(main())
    assert r.ok, r.stderr
    # hard.txt: the run's own file replaced the planted hard link; the
    # file it pointed to is untouched
    assert sorted(r.outputs) == ["hard.txt", "planted", "real.txt"]
    assert r.outputs["hard.txt"].text() == "not through the link"
    why = {x.name: x.reason for x in r.refused}
    assert "symbolic link" in why["link.txt"]
    assert "symbolic link" in why["passwd.txt"]
    assert secret.read_text() == "TOP SECRET"
    assert leftovers(client) == []


def test_deep_tree_leaves_no_run_folder(client):
    code = ("import os\nfor _ in range(1500):\n"
            "    os.mkdir('d'); os.chdir('d')\n"
            "open('f', 'w').write('x')\nprint('deep')\n")
    r = client.run(GENERAL, code)
    assert r.exit_code == 0 and b"deep" in r.stdout, r
    assert leftovers(client) == []


def test_cleanup_failure_raises_with_result(cpkg, client, monkeypatch):
    # A run folder that cannot be removed is never silent: CleanupError,
    # carrying the complete result.
    from cordon import _fs

    def fails(path):
        raise OSError(39, "1 entry left, the first 'x'", path)
    monkeypatch.setattr(_fs, "remove_tree", fails)
    with pytest.raises(cpkg.CleanupError) as ei:
        client.run(GENERAL, "print('ran')")
    assert "1 entry left" in str(ei.value)
    assert ei.value.result.exit_code == 0
    assert b"ran" in ei.value.result.stdout
    monkeypatch.undo()
    _fs.remove_tree(ei.value.path)


def test_run_denials_on_the_result(cpkg, client):
    # The refused call, decoded, with its rule and count, on the result
    # object (issue 15, item 3).
    r = client.run(GENERAL, "import socket\n"
                   "for i in range(2):\n"
                   "    try:\n"
                   "        socket.socket(socket.AF_INET, socket.SOCK_STREAM)\n"
                   "    except OSError:\n"
                   "        pass\n")
    assert r.ok, (r.outcome, r.reason, r.stderr)
    if "pid" not in r.layers.namespaces:
        assert r.denials is None and "seccomp" in r.denials_unobserved
        return
    calls = [d for d in r.denials if d.syscall == "socket"]
    assert len(calls) == 1, r.denials
    d = calls[0]
    assert isinstance(d, cpkg.Denial)
    assert d.call.startswith("socket(AF_INET, SOCK_STREAM"), d
    assert d.action == "errno(EAFNOSUPPORT)" and d.count == 2, d
    assert ".policy:" in d.rule, d
    assert r.denials_dropped == 0
    assert "landlock" in r.denials_unobserved


def test_run_watch_names_landlock_refusals(cpkg, client, tmp_path):
    """Issue 41: watch=True runs cordon --landlock-watch: the refused read
    is on the result with the rule to add (and in summary()), where the
    kernel's audit cannot name it; a credential file is warned of.
    Without it the list is None unless the kernel's audit names it."""
    d = "/var/tmp/cordon-watch-%s" % uuid.uuid4().hex
    os.mkdir(d)
    try:
        os.chmod(d, 0o755)
        data = os.path.join(d, "x.csv")
        with open(data, "w") as f:
            f.write("a\n")
        os.chmod(data, 0o644)
        code = ("try:\n    open(%r)\nexcept PermissionError:\n"
                "    print('refused')\n" % data)
        r = client.run(GENERAL, code, watch=True)
        assert r.ok and r.stdout == b"refused\n", (r.reason, r.stderr)
        if "pid" not in r.layers.namespaces:
            pytest.skip("no PID namespace here: the watch needs one")
        got = [x for x in r.landlock_denials if x.object == data]
        assert len(got) == 1, r.landlock_denials
        assert isinstance(got[0], cpkg.LandlockDenial)
        assert got[0].access == "fs.read_file", got
        assert got[0].add == "path %s ro;" % data, got
        assert ("Landlock refused: fs.read_file on %s x1; add: path %s ro;"
                % (data, data)) in r.summary(), r.summary()
        assert "--landlock-watch" in r.status["landlock_denials_by"]
    finally:
        shutil.rmtree(d)


# ------------------------------------------------- live: warm pools (17)

from conftest import WARM_OK  # noqa: E402

needs_warm = pytest.mark.skipif(not WARM_OK, reason="no warm pool built "
                                "(build/warm/_cordon_warm.so: no Python "
                                "headers)")


@pytest.fixture
def warm_client(cpkg, general_dir, cordon_bin, runs_dir):
    c = cpkg.Client(general_dir, cordon=cordon_bin, work_root=runs_dir,
                    concurrency=20, warm=True)
    yield c
    c.close()


def pool_pid(client, tool=GENERAL):
    return client._pools[tool].pid


def pid_gone(pid):
    """No process (not even a zombie) with this pid."""
    return not os.path.exists(f"/proc/{pid}")


def live(pid):
    """pid is a process and not a zombie (the pool's runs' cordon
    processes are reparented to init, which reaps them, or in some
    containers never does)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except OSError:
        return False


def descendants(pid):
    """Live descendants of pid."""
    children = {}
    for name in os.listdir("/proc"):
        if name.isdigit() and live(name):
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except OSError:
                continue
            children.setdefault(ppid, []).append(int(name))
    found, todo = [], [pid]
    while todo:
        kids = children.get(todo.pop(), [])
        found += kids
        todo += kids
    return found


WARM_SNIPPET = (
    "import json, os, sys\n"
    "print('args', sys.argv[1:], __name__)\n"
    "print('inputs', sorted(n for n in os.listdir('.')\n"
    "                       if not n.startswith('snippet')),\n"
    "      json.load(open('n.json')))\n"
    "print('sched', os.sched_getscheduler(0))\n"
    "print('pandas' in sys.modules or 'pandas loaded lazily')\n"
    "open('sq.json', 'w').write(json.dumps(json.load(open('n.json')) ** 2))\n"
    "sys.stderr.write('err\\n')\n"
    "sys.exit(3)\n")


@needs_warm
def test_warm_run_equals_cold(cpkg, client, warm_client):
    """Same stdout, stderr, exit, inputs seen and outputs collected as a
    cold run of the same tool and code (and the same priority: the
    client's --idle reaches the warm run too); status says warm."""
    kw = dict(inputs={"n.json": 7}, args=["a", "b c"])
    cold = client.run(GENERAL, WARM_SNIPPET, **kw)
    warm = warm_client.run(GENERAL, WARM_SNIPPET, **kw)
    assert cold.exit_code == warm.exit_code == 3, (cold, warm)
    assert cold.outcome == warm.outcome == cpkg.Outcome.EXITED
    assert warm.stdout.replace(b"True", b"pandas loaded lazily") == \
        cold.stdout, (cold.stdout, warm.stdout)
    assert b"sched 5\n" in warm.stdout           # SCHED_IDLE
    assert warm.stderr == cold.stderr == b"err\n"
    assert {k: v.content for k, v in warm.outputs.items()} == \
        {k: v.content for k, v in cold.outputs.items()} == \
        {"sq.json": b"49"}
    assert warm.status["warm"] is True and "warm" not in cold.status
    assert warm.layers == cold.layers and warm.blob == cold.blob
    assert warm.policy == cold.policy
    assert leftovers(warm_client) == []


@needs_warm
def test_warm_reuses_one_pool_and_runs_share_no_files(warm_client):
    a = warm_client.run(GENERAL, "import os\nopen('mark','w').write('x')\n"
                        "open('/tmp/mark','w').write('x')\nprint(os.getcwd())")
    assert a.ok, (a.outcome, a.reason, a.stderr)
    assert list(a.outputs) == ["mark"]
    pid = pool_pid(warm_client)
    b = warm_client.run(GENERAL, "import os, sys\n"
                        "print(os.path.exists('mark'), "
                        "os.path.exists('/tmp/mark'), "
                        "os.path.exists(sys.argv[1]), sorted(os.listdir()))",
                        args=[a.stdout.decode().strip()])
    assert b.ok, (b.outcome, b.reason, b.stderr)
    assert b.stdout.startswith(b"False False False ["), b.stdout
    assert b"mark" not in b.stdout
    assert pool_pid(warm_client) == pid
    assert b.status["warm"] is True


@needs_warm
def test_warm_concurrent_runs_start_one_pool(warm_client):
    async def main():
        return await asyncio.gather(*[warm_client.arun(
            GENERAL, "import sys\nprint(sys.argv[1])", args=[str(i)])
            for i in range(6)])
    rs = run(main())
    assert [r.stdout for r in rs] == [f"{i}\n".encode() for i in range(6)]
    assert len(warm_client._pools) == 1
    assert all(r.status["warm"] for r in rs)


@needs_warm
def test_warm_pool_killed_is_restarted(warm_client):
    assert warm_client.run(GENERAL, "print(1)").stdout == b"1\n"
    pid = pool_pid(warm_client)
    os.kill(pid, 9)
    for _ in range(100):                 # dead (a zombie until reaped)
        with open(f"/proc/{pid}/stat", "rb") as f:
            if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                break
        time.sleep(0.02)
    r = warm_client.run(GENERAL, "print(2)")
    assert r.ok and r.stdout == b"2\n", (r.outcome, r.reason, r.stderr)
    assert r.status["warm"] is True
    assert pool_pid(warm_client) != pid
    assert pid_gone(pid)                 # reaped: no zombie


@needs_warm
def test_warm_close_leaves_no_process(cpkg, general_dir, cordon_bin,
                                      runs_dir):
    """close() stops the pool, reaps it, and ends a run still in flight
    in it, with its whole tree (the run's cordon is in the pool's process
    group); the pool's socket is gone."""
    c = cpkg.Client(general_dir, cordon=cordon_bin, work_root=runs_dir,
                    warm=True)
    code = ("import os, time\nif os.fork() == 0:\n"
            "    time.sleep(3600)\nprint('up', flush=True)\n"
            "time.sleep(3600)\n")

    async def main():
        task = asyncio.ensure_future(c.arun(GENERAL, code))
        # The run's cordon, its init, the snippet and its child.
        for _ in range(400):
            await asyncio.sleep(0.05)
            if c._pools and len(descendants(pool_pid(c))) >= 4:
                break
        pid = pool_pid(c)
        tree = descendants(pid)
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        return pid, tree
    pid, tree = run(main())
    name = c._pools[GENERAL].name
    assert len(tree) >= 4, "the run never came up in the pool"
    t = time.monotonic()
    c.close()
    assert time.monotonic() - t < 30     # not the run's 3600 s
    assert pid_gone(pid)
    # killed, they may still be exiting (a loaded machine): "never gone"
    # is the failure, not slowness
    end = time.monotonic() + 20
    while [p for p in tree if live(p)] and time.monotonic() < end:
        time.sleep(0.05)
    assert [p for p in tree if live(p)] == []
    assert procs_with(name) == []
    p = subprocess.run([str(cordon_bin), "--submit", name, "/dev/null"],
                       capture_output=True, timeout=30)
    assert p.returncode == 125, p
    assert leftovers(c) == []


@needs_warm
def test_warm_client_collected_without_close(cpkg, general_dir, cordon_bin,
                                             runs_dir):
    import gc
    c = cpkg.Client(general_dir, cordon=cordon_bin, work_root=runs_dir,
                    warm=True)
    assert c.run(GENERAL, "print(1)").ok
    pid = pool_pid(c)
    del c
    # The client's last references may still be held for a moment by the
    # threads that ran its file work (slow under ASan): collected once
    # they let go, its finalizer stops the pool.
    deadline = time.monotonic() + 60
    while not pid_gone(pid) and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.1)
    assert pid_gone(pid)


@needs_warm
def test_warm_async_with(cpkg, general_dir, cordon_bin, runs_dir):
    async def main():
        async with cpkg.Client(general_dir, cordon=cordon_bin,
                               work_root=runs_dir, warm=True) as c:
            r = await c.arun(GENERAL, "print(5)")
            return r, pool_pid(c)
    r, pid = run(main())
    assert r.stdout == b"5\n" and pid_gone(pid)


@needs_warm
def test_warm_failure_and_timeout_as_cold(cpkg, warm_client):
    r = warm_client.run(GENERAL, "raise SystemExit(3)")
    assert r.outcome == cpkg.Outcome.EXITED and r.exit_code == 3
    r = warm_client.run(GENERAL, "raise ValueError('boom')")
    assert r.exit_code == 1 and r.stderr.startswith(b"Traceback")
    assert b"ValueError: boom" in r.stderr
    t = time.monotonic()
    r = warm_client.run(GENERAL, "import time\ntime.sleep(60)", timeout=1)
    assert r.outcome == cpkg.Outcome.TIMEOUT and r.exit_code == 124
    assert r.status["warm"] is True
    assert time.monotonic() - t < 30     # not the snippet's 60 s
    assert leftovers(warm_client) == []


@needs_warm
def test_warm_pool_restarted_for_a_recompiled_blob(cpkg, src_dir, tmp_path,
                                                   cordonc_bin, cordon_bin,
                                                   runs_dir):
    src = tmp_path / "code_gen.policy"
    shutil.copy(src_dir / "policies" / "code_gen.policy", src)
    blobs = tmp_path / "blobs"
    blobs.mkdir()

    def compile_blob():
        subprocess.run([str(cordonc_bin), "compile", "-I",
                        str(src_dir / "policies"), "-o",
                        str(blobs / "code_gen.cpol"), str(src)], check=True)
    compile_blob()
    with cpkg.Client(blobs, cordon=cordon_bin, work_root=runs_dir,
                     warm=True) as c:
        r1 = c.run(GENERAL, "print(1)")
        assert r1.ok and r1.status["warm"], (r1.outcome, r1.reason,
                                             r1.stderr)
        pid = pool_pid(c)
        assert c.run(GENERAL, "print(1)").ok
        assert pool_pid(c) == pid
        with open(src, "a") as f:
            f.write("\n# changed\n")
        compile_blob()
        r2 = c.run(GENERAL, "print(2)")
        assert r2.stdout == b"2\n" and r2.blob != r1.blob
        assert r2.status["warm"] is True
        assert pool_pid(c) != pid
        assert pid_gone(pid)


@needs_warm
def test_warm_pool_that_cannot_start(cpkg, launcher_blobs, cordon_bin,
                                     runs_dir):
    blob = launcher_blobs("launcher-notfound")
    c = cpkg.Client(blob.parent, cordon=cordon_bin, work_root=runs_dir,
                    warm=True, check_kernel=False)
    try:
        with pytest.raises(cpkg.LauncherError) as e:
            c.run(blob.stem, "print(1)")
        assert "did not start" in str(e.value)
        assert b"nonexistent" in e.value.stderr, e.value.stderr
        assert c._pools == {}
        assert leftovers(c) == []
    finally:
        c.close()


def test_pool_closing_stderr_then_exiting_did_not_start(cpkg, tmp_path):
    # A pool that ends its stderr without the ready word has not started,
    # though it has not exited yet (as a failing cordon --serve, between
    # closing its files and becoming a zombie, on a loaded machine).
    fake = tmp_path / "cordon"
    fake.write_text("#!/bin/sh\necho 'cordon: nonexistent' >&2\n"
                    "exec 2>&-\nsleep 5\nexit 125\n")
    fake.chmod(0o755)
    from importlib import import_module
    pool_mod = import_module(cpkg.__name__ + "._pool")
    p = pool_mod.Pool(str(fake), "t", str(tmp_path / "t.cpol"), "0", {})
    with pytest.raises(pool_mod.PoolStartError) as e:
        p.start(30)
    assert b"nonexistent" in e.value.stderr, e.value.stderr
    assert not p.alive()


@needs_warm
def test_warm_cancel_ends_the_run(warm_client):
    # The pool keeps idle spares (their runs wait in a read); the run
    # cancelled here sleeps: it is the pool's process in nanosleep.
    code = "import time\nprint('up', flush=True)\ntime.sleep(3600)\n"

    def sleepers(pid):
        found = []
        for p in descendants(pid):
            try:
                with open(f"/proc/{p}/wchan") as f:
                    if "nanosleep" in f.read():
                        found.append(p)
            except OSError:
                pass
        return found

    async def main():
        assert (await warm_client.arun(GENERAL, "pass")).ok
        pid = pool_pid(warm_client)
        task = asyncio.ensure_future(warm_client.arun(GENERAL, code,
                                                      timeout=30))
        for _ in range(400):
            await asyncio.sleep(0.05)
            if sleepers(pid):
                break
        victims = sleepers(pid)
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(task, 0.2)
        return victims
    victims = run(main())
    assert victims, "the run never came up in the pool"
    for _ in range(100):
        if not [p for p in victims if live(p)]:
            break
        time.sleep(0.05)
    assert [p for p in victims if live(p)] == []


def test_matplotlib_state_folder_is_expected(cpkg, client):
    """Issue 26, item 7: matplotlib makes $WORKDIR/.config (the base sets
    MPLCONFIGDIR there); that folder is the policy working as meant:
    refused as expected, with the reason, and nothing in it collected.
    A folder the snippet makes is an output tree like any (issue 28); a
    clone3 answered ENOSYS by the base's own rule is an expected
    denial."""
    pytest.importorskip("matplotlib")
    r = client.run(GENERAL, "import os, threading\n"
                   "os.makedirs(os.path.join(os.environ['MPLCONFIGDIR'], "
                   "'x'), exist_ok=True)\n"
                   "open(os.path.join(os.environ['MPLCONFIGDIR'], 'x', "
                   "'state'), 'w').write('s')\n"
                   "os.mkdir('mine')\n"
                   "open('mine/b.txt', 'w').write('b')\n"
                   "t = threading.Thread(target=print); t.start(); t.join()\n"
                   "open('a.txt', 'w').write('a')\n")
    assert r.ok, (r.outcome, r.reason, r.stderr)
    why = {x.name: x for x in r.refused}
    assert why[".config"].expected is True, r.refused
    assert "environment" in why[".config"].reason
    assert not [x for x in r.refused if x.expected and x.name != ".config"]
    assert set(r.outputs) == {"a.txt", "mine/b.txt"}, r.outputs
    info = client.policies.load(GENERAL)
    assert ".config" in info.workdir_state
    if r.denials is not None:
        assert all(d.expected for d in r.denials
                   if d.syscall == "clone3"), r.denials
