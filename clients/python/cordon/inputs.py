"""Placing a run's inputs into its workdir.

``inputs`` maps a file name to a value; the type decides the format.  A
name may be a relative path (``pkg/mod.py``, ``tests/test_mod.py``): its
folders are made in the workdir; no absolute name, no ``.`` or ``..``
part, no link followed, at most 16 parts of 255 bytes (4096 in all).

==========================  ==================================  =========
value                       written as                          default
                                                                suffix
==========================  ==================================  =========
bytes, bytearray, memoryview  the bytes
str                         UTF-8 text (a path must be a        (none)
                            ``pathlib.Path``)
os.PathLike (pathlib.Path)  a copy of that file or folder
                            (content copied, never linked: a
                            link, FIFO, socket or device in it,
                            or as it, is refused)
pandas DataFrame / Series   CSV (``to_csv``; the index only if  .csv
                            it is not the default RangeIndex)
numpy ndarray               .npy, ``allow_pickle=False``        .npy
                            (object arrays are refused)
dict, list, tuple, int,     JSON (numpy scalars and arrays      .json
float, bool, None           inside become numbers and lists)
==========================  ==================================  =========

A name without a suffix gets the default suffix of its type.  pandas and
numpy are imported only when a value of theirs is passed.
"""
from __future__ import annotations

import io
import json
import os
from typing import Any, Mapping

from . import _fs
from ._copyin import copy_input, read_input
from .errors import InputError

MAX_NAME = _fs.MAX_PART
_FILE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
               | os.O_CLOEXEC)


def check_name(name: str) -> str:
    """A name relative to the workdir (_fs.rel_parts): no absolute name,
    no empty, '.' or '..' part, no NUL, bounded."""
    if not isinstance(name, str) or not name:
        raise InputError(f"input name must be a non-empty string: {name!r}")
    if _fs.rel_parts(name) is None:
        raise InputError(f"input name {name!r} is not a relative path of "
                         "plain names (no leading '/', no '.', '..' or "
                         f"empty part, at most {_fs.MAX_DEPTH} parts of "
                         f"{_fs.MAX_PART} bytes)")
    return name


def _kind(value: Any) -> str:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return "bytes"
    if isinstance(value, str):
        return "text"
    if isinstance(value, os.PathLike):
        return "path"
    mod = type(value).__module__ or ""
    if mod.startswith("pandas") and hasattr(value, "to_csv"):
        return "csv"
    if mod.startswith("numpy") and type(value).__name__ == "ndarray":
        return "npy"
    if value is None or isinstance(value, (dict, list, tuple, int, float,
                                           bool)):
        return "json"
    raise InputError(f"unsupported input type {type(value).__name__}: pass "
                     "bytes, str, a pathlib.Path, a DataFrame, a numpy array "
                     "or a JSON-able value")


_SUFFIX = {"csv": ".csv", "npy": ".npy", "json": ".json"}


def file_name(name: str, value: Any) -> str:
    """The file name an input is written under."""
    check_name(name)
    suffix = _SUFFIX.get(_kind(value))
    if suffix and "." not in name.rsplit("/", 1)[-1].lstrip("."):
        name += suffix
        check_name(name)
    return name


def _json_default(o: Any) -> Any:
    mod = type(o).__module__ or ""
    if mod.startswith("numpy"):
        if hasattr(o, "tolist"):
            return o.tolist()
    if isinstance(o, (set, frozenset)):
        return sorted(o)
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


def _encode(kind: str, value: Any) -> bytes:
    if kind == "bytes":
        return bytes(value)
    if kind == "text":
        return str(value).encode("utf-8")
    if kind == "json":
        try:
            return json.dumps(value, default=_json_default).encode("utf-8")
        except (TypeError, ValueError) as e:
            raise InputError(f"cannot encode as JSON: {e}") from e
    if kind == "csv":
        index = not _default_index(value)
        return str(value.to_csv(index=index)).encode("utf-8")
    if kind == "npy":
        import numpy  # only when the caller passed an array
        if value.dtype.hasobject:
            raise InputError("numpy arrays with object dtype need pickle; "
                             "refused (convert to a numeric or string dtype)")
        buf = io.BytesIO()
        numpy.save(buf, value, allow_pickle=False)
        return buf.getvalue()
    raise AssertionError(kind)


def encode_inputs(inputs: Mapping[str, Any]) -> dict[str, bytes]:
    """{file name: bytes} for inputs that travel as bytes (a session's
    cell: written inside the sandbox by its driver).  A path is read if it
    is a regular file, not a link; a folder is refused."""
    out: dict[str, bytes] = {}
    for name, value in inputs.items():
        kind = _kind(value)
        fname = file_name(name, value)
        if fname in out:
            raise InputError(f"input {fname!r} given twice")
        if kind != "path":
            out[fname] = _encode(kind, value)
            continue
        out[fname] = read_input(os.fspath(value), name)
    return out


def _default_index(frame: Any) -> bool:
    idx: Any = getattr(frame, "index", None)
    if type(idx).__name__ != "RangeIndex" or idx.name is not None:
        return False
    return bool(idx.start == 0 and idx.step == 1)


def _write_new(dir_fd: int, name: str, data: bytes) -> None:
    fd = os.open(name, _FILE_FLAGS, 0o644, dir_fd=dir_fd)
    try:
        view = memoryview(data)
        while view:
            n = os.write(fd, view)
            view = view[n:]
    finally:
        os.close(fd)


def _parent(dir_fd: int, name: str) -> tuple[int, str]:
    """The folder that holds name (made as needed, no link followed) and
    name's last part."""
    parts = _fs.rel_parts(name)
    assert parts is not None
    try:
        return _fs.open_parent(dir_fd, parts, create=True), parts[-1]
    except OSError as e:
        raise InputError(f"input {name!r}: a folder on its way is a link, "
                         f"not a folder, or cannot be made: {e.strerror}") \
            from e


def make_folder(workdir: str, name: str) -> None:
    """An empty folder name (relative, checked) in workdir, its parents
    made as needed: the output folder."""
    dir_fd = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                     | os.O_CLOEXEC)
    try:
        pfd, base = _parent(dir_fd, check_name(name))
        try:
            os.mkdir(base, 0o700, dir_fd=pfd)
        finally:
            os.close(pfd)
    finally:
        os.close(dir_fd)


def place_inputs(workdir: str, inputs: Mapping[str, Any]) -> dict[str, str]:
    """Write every input into workdir (blocking; run it in a thread from
    async code).  Returns {input name: file name written}."""
    written: dict[str, str] = {}
    taken: set[str] = set()
    dir_fd = os.open(workdir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                     | os.O_CLOEXEC)
    try:
        for name, value in inputs.items():
            fname = file_name(name, value)
            if fname in taken:
                raise InputError(f"two inputs write {fname!r}")
            taken.add(fname)
            kind = _kind(value)
            pfd, base = _parent(dir_fd, fname)
            try:
                if kind == "path":
                    copy_input(os.fspath(value), pfd, base, fname)
                else:
                    _write_new(pfd, base, _encode(kind, value))
            except (FileExistsError, IsADirectoryError) as e:
                raise InputError(f"input {fname!r} exists already") from e
            finally:
                os.close(pfd)
            written[name] = fname
    finally:
        os.close(dir_fd)
    return written
