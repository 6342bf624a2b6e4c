"""Collecting a run's output files without trusting what the snippet left.

Regular files in the workdir's tree (or in one named output folder's) are
collected, named by their path relative to it (``pkg/out.json``), at most
16 levels deep.  Folders are entered and files opened relative to a
directory descriptor with ``O_NOFOLLOW`` (a planted symlink fails to
open, a linked folder is not entered), checked
with ``fstat`` to be a regular file with exactly one link (a hard link to a
file elsewhere is refused: its other name may be a secret outside the
workdir), and read up to a per-file cap, a total cap and a count cap.
Everything else is listed in ``refused`` with the reason.

Decoding happens only on request and only from safe formats: JSON, CSV,
text, ``.npy`` with ``allow_pickle=False``; PNG and NIfTI come back as bytes
(or a path when the caller asked for files on disk).  Pickle-based formats
are refused outright and are never read back, and a ``.npy`` whose dtype
holds Python objects (which ``numpy.save`` stores as a pickle) is refused
at collection.
"""
from __future__ import annotations

import ast
import csv
import importlib.util
import dataclasses
import io
import json
import os
import stat
import struct
from typing import Any, Callable

from . import _fs
from .errors import UnsafeOutput

# Formats that are pickles underneath; loading any of them runs code.
PICKLE_SUFFIXES = (".pkl", ".pickle", ".joblib", ".dill", ".pt", ".pth",
                   ".ckpt", ".sav")
_OPEN_FLAGS = (os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY
               | os.O_CLOEXEC)
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
NPY_MAGIC = b"\x93NUMPY"


@dataclasses.dataclass(frozen=True)
class OutputLimits:
    """Caps on what is collected from one run."""
    max_files: int = 64                  # files returned
    max_file_bytes: int = 64 << 20       # per file
    max_total_bytes: int = 256 << 20     # all files together
    max_entries: int = 10_000            # directory entries looked at


@dataclasses.dataclass(frozen=True)
class RefusedOutput:
    name: str
    reason: str
    # True for a folder the policy's own environment gives a library
    # (BlobInfo.workdir_state: matplotlib's .config): the policy working
    # as meant, nothing to fix.
    expected: bool = False


def kind_of(name: str) -> str:
    low = name.lower()
    for suffix, kind in ((".json", "json"), (".csv", "csv"), (".npy", "npy"),
                         (".png", "png"), (".nii.gz", "nifti"),
                         (".nii", "nifti"), (".txt", "text"),
                         (".log", "text"), (".md", "text")):
        if low.endswith(suffix):
            return kind
    return "binary"


@dataclasses.dataclass(frozen=True)
class OutputFile:
    """One collected output file.  ``data`` holds the bytes, or ``path``
    the copy the client wrote when outputs were saved to a folder."""
    name: str
    size: int
    kind: str
    data: bytes | None = dataclasses.field(default=None, repr=False)
    path: str | None = None

    @property
    def content(self) -> bytes:
        if self.data is not None:
            return self.data
        assert self.path is not None
        with open(self.path, "rb") as f:
            return f.read()

    def text(self, encoding: str = "utf-8") -> str:
        return self.content.decode(encoding)

    def json(self) -> Any:
        return json.loads(self.content)

    def csv_rows(self) -> list[list[str]]:
        return list(csv.reader(io.StringIO(self.text(), newline="")))

    def dataframe(self) -> Any:
        """A pandas DataFrame read from CSV (pandas imported on demand)."""
        import pandas  # type: ignore[import]
        return pandas.read_csv(io.BytesIO(self.content))

    def array(self) -> Any:
        """A numpy array from .npy, never unpickling."""
        import numpy
        data = self.content
        if npy_has_objects(data) is not False:
            raise UnsafeOutput(f"{self.name}: .npy with object dtype (a "
                               "pickle) or unreadable header: refused")
        try:
            return numpy.load(io.BytesIO(data), allow_pickle=False)
        except ValueError as e:
            raise UnsafeOutput(f"{self.name}: {e}") from e

    def decode(self) -> Any:
        """Decode by suffix: .json -> object, .csv -> DataFrame (list of
        rows without pandas), .npy -> array, text -> str, else bytes."""
        if self.kind == "json":
            return self.json()
        if self.kind == "csv":
            if importlib.util.find_spec("pandas") is None:
                return self.csv_rows()
            return self.dataframe()
        if self.kind == "npy":
            return self.array()
        if self.kind == "text":
            return self.text()
        return self.content


def looks_like_pickle(head: bytes) -> bool:
    """Protocol 2+ pickles start with PROTO (0x80) and a version 2..5."""
    return len(head) >= 2 and head[0] == 0x80 and 2 <= head[1] <= 5


def _descr_has_objects(descr: Any) -> bool:
    if isinstance(descr, str):
        code = descr.lstrip("<>|=")
        return code[:1] == "O"
    if isinstance(descr, list):
        for field in descr:
            if not isinstance(field, tuple) or len(field) < 2:
                return True
            if _descr_has_objects(field[1]):
                return True
        return False
    return True    # unknown shape: treat as unsafe


def npy_has_objects(data: bytes) -> bool | None:
    """True if the .npy header declares Python objects anywhere in its
    dtype, False if not, None if the header cannot be read.  Parsed with
    ast.literal_eval (no code runs), without numpy."""
    if not data.startswith(NPY_MAGIC) or len(data) < 10:
        return None
    major = data[6]
    if major == 1:
        (hlen,), start = struct.unpack("<H", data[8:10]), 10
    elif major in (2, 3):
        if len(data) < 12:
            return None
        (hlen,), start = struct.unpack("<I", data[8:12]), 12
    else:
        return None
    if hlen > 1 << 16 or start + hlen > len(data):
        return None
    try:
        header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        return None
    if not isinstance(header, dict) or "descr" not in header:
        return None
    return _descr_has_objects(header["descr"])


def _read_capped(fd: int, cap: int) -> bytes | None:
    """Up to cap bytes, or None if the file holds more."""
    chunks: list[bytes] = []
    got = 0
    while True:
        b = os.read(fd, min(1 << 20, cap + 1 - got))
        if not b:
            return b"".join(chunks)
        chunks.append(b)
        got += len(b)
        if got > cap:
            return None


def _save(dest_dir: str, name: str, data: bytes) -> str:
    """data written as name (relative, its folders made, no link
    followed) below dest_dir; the path written."""
    parts = _fs.rel_parts(name)
    assert parts is not None
    top = os.open(dest_dir, _DIR_FLAGS)
    try:
        pfd = _fs.open_parent(top, parts, create=True)
    finally:
        os.close(top)
    try:
        fd = os.open(parts[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL
                     | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=pfd)
    finally:
        os.close(pfd)
    with open(fd, "wb") as f:
        f.write(data)
    return os.path.join(dest_dir, name)


def _check_one(dir_fd: int, name: str, limits: OutputLimits,
               budget: int) -> tuple[bytes | None, str | None]:
    """(data, None) for an acceptable file, (None, reason) otherwise."""
    if name.lower().endswith(PICKLE_SUFFIXES):
        return None, "pickle-based format: never read back"
    try:
        lst = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError as e:
        return None, f"cannot stat: {e.strerror}"
    if stat.S_ISLNK(lst.st_mode):
        return None, "symbolic link: not followed"
    if not stat.S_ISREG(lst.st_mode):
        return None, "not a regular file"
    try:
        fd = os.open(name, _OPEN_FLAGS, dir_fd=dir_fd)
    except OSError as e:   # ELOOP: swapped for a link since the lstat
        return None, f"cannot open without following links: {e.strerror}"
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return None, "not a regular file"
        if st.st_nlink != 1:
            return None, (f"has {st.st_nlink} hard links: it may be a file "
                          "from outside the workdir")
        if st.st_size > limits.max_file_bytes:
            return None, (f"{st.st_size} bytes exceeds the per-file cap of "
                          f"{limits.max_file_bytes}")
        if st.st_size > budget:
            return None, (f"{st.st_size} bytes exceeds what is left of the "
                          f"total cap ({budget} of {limits.max_total_bytes})")
        data = _read_capped(fd, min(limits.max_file_bytes, budget))
    finally:
        os.close(fd)
    if data is None:
        return None, "grew beyond the cap while being read"
    if looks_like_pickle(data[:2]):
        return None, "content is a pickle: never read back"
    if kind_of(name) == "npy" and npy_has_objects(data) is not False:
        return None, ".npy with object dtype (stored as a pickle) or an " \
            "unreadable header: refused"
    return data, None


MAX_REFUSED = 100   # refusals listed one by one; the rest are counted


def _refuse(refused: list[RefusedOutput], name: str, reason: str,
            expected: bool = False) -> None:
    if len(refused) < MAX_REFUSED:
        refused.append(RefusedOutput(name, reason, expected))
    elif len(refused) == MAX_REFUSED:
        refused.append(RefusedOutput("*", "more refusals not listed"))


@dataclasses.dataclass
class _Walk:
    """One collection: its caps and what it found and refused so far."""
    limits: OutputLimits
    exclude: frozenset[str]
    save_dir: str | None
    skip: Callable[[str, bytes], bool] | None
    budget: int = 0
    state: frozenset[str] = frozenset()   # top-level folders: not outputs
    entries: int = 0
    outputs: dict[str, OutputFile] = dataclasses.field(default_factory=dict)
    refused: list[RefusedOutput] = dataclasses.field(default_factory=list)


def _excluded(w: _Walk, rel: str) -> bool:
    """rel or a folder above it is an input's name."""
    parts = rel.split("/")
    return any("/".join(parts[:i]) in w.exclude
               for i in range(1, len(parts) + 1))


def _take(w: _Walk, fd: int, name: str, rel: str) -> None:
    """One file, name in fd, checked (_check_one) within the caps."""
    if len(w.outputs) >= w.limits.max_files:
        _refuse(w.refused, rel,
                f"count cap of {w.limits.max_files} files reached")
        return
    data, reason = _check_one(fd, name, w.limits, w.budget)
    if data is None:
        _refuse(w.refused, rel, reason or "refused")
        return
    if w.skip is not None and w.skip(rel, data):
        return
    w.budget -= len(data)
    kind = kind_of(name)
    if kind == "png" and not data.startswith(PNG_MAGIC):
        kind = "binary"
    if w.save_dir is not None:
        w.outputs[rel] = OutputFile(rel, len(data), kind,
                                    path=_save(w.save_dir, rel, data))
    else:
        w.outputs[rel] = OutputFile(rel, len(data), kind, data=data)


def _names(w: _Walk, fd: int) -> list[str]:
    """The names in fd, sorted, at most max_entries looked at in all."""
    names = []
    with os.scandir(fd) as it:
        for entry in it:
            if w.entries >= w.limits.max_entries:
                w.refused.append(RefusedOutput(
                    "*", f"more than {w.limits.max_entries} entries: "
                    "the rest were not looked at"))
                break
            w.entries += 1
            names.append(entry.name)
    return sorted(names)


def _walk(w: _Walk, fd: int, prefix: str, depth: int) -> None:
    """Every file below fd, in name order; folders entered without
    following a link, at most MAX_DEPTH levels."""
    for name in _names(w, fd):
        rel = prefix + name
        if _excluded(w, rel):
            continue
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError as e:
            _refuse(w.refused, rel, f"cannot stat: {e.strerror}")
            continue
        if not stat.S_ISDIR(st.st_mode):
            _take(w, fd, name, rel)
            continue
        if not prefix and name in w.state:
            _refuse(w.refused, rel, "a folder the policy's environment "
                    "gives a library for its state: not an output",
                    expected=True)
            continue
        if depth + 1 >= _fs.MAX_DEPTH:
            _refuse(w.refused, rel + "/", f"folder deeper than "
                    f"{_fs.MAX_DEPTH} levels: not entered")
            continue
        try:
            sub = os.open(name, _DIR_FLAGS, dir_fd=fd)
        except OSError as e:   # swapped for a link since the stat
            _refuse(w.refused, rel + "/", "folder cannot be opened "
                    f"without following links: {e.strerror}")
            continue
        try:
            _walk(w, sub, rel + "/", depth + 1)
        finally:
            os.close(sub)


def _open_subdir(top: int, subdir: str) -> int:
    """subdir (a relative name) below top, no link followed."""
    parts = _fs.rel_parts(subdir)
    if parts is None:
        raise NotADirectoryError(0, "not a relative name")
    pfd = _fs.open_parent(top, parts, create=False)
    try:
        return os.open(parts[-1], _DIR_FLAGS, dir_fd=pfd)
    finally:
        os.close(pfd)


def collect_outputs(workdir: str, *, subdir: str | None = None,
                    exclude: frozenset[str] = frozenset(),
                    limits: OutputLimits = OutputLimits(),
                    save_dir: str | None = None,
                    skip: Callable[[str, bytes], bool] | None = None,
                    state: frozenset[str] = frozenset(),
                    ) -> tuple[dict[str, OutputFile], list[RefusedOutput]]:
    """Collect the output files of a finished run (blocking).

    workdir: the run's workdir; subdir: a folder inside it (a relative
    name) to collect from instead; exclude: names not to collect (the
    inputs; a folder's name excludes what is below it); save_dir: write
    accepted files there (folders made as needed) and return paths, not
    bytes; skip(name, data): True drops an accepted file silently (the
    launcher's copy of the snippet); state: folders of the workdir the
    policy's environment points libraries at, refused as expected and
    not entered.  Names are relative paths.
    """
    w = _Walk(limits, exclude, save_dir, skip, limits.max_total_bytes)
    top = os.open(workdir, _DIR_FLAGS)
    try:
        if subdir is not None:
            try:
                fd = _open_subdir(top, subdir)
            except FileNotFoundError:
                return {}, []
            except OSError as e:
                return {}, [RefusedOutput(
                    subdir, f"output folder cannot be opened without "
                    f"following links: {e.strerror}")]
            os.close(top)
            top = fd
        else:
            w.state = state
        _walk(w, top, "", 0)
        return w.outputs, w.refused
    finally:
        os.close(top)
