"""Placing a run's inputs into its workdir.

``inputs`` maps a file name (no ``/``) to a value; the type decides the
format:

==========================  ==================================  =========
value                       written as                          default
                                                                suffix
==========================  ==================================  =========
bytes, bytearray, memoryview  the bytes
str                         UTF-8 text (a path must be a        (none)
                            ``pathlib.Path``)
os.PathLike (pathlib.Path)  a copy of that file or folder
                            (content copied, never linked)
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
import shutil
import stat
from typing import Any, Mapping

from .errors import InputError

MAX_NAME = 255
_FILE_FLAGS = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
               | os.O_CLOEXEC)


def check_name(name: str) -> str:
    """A plain file name: no folder part, no NUL, not . or .."""
    if not isinstance(name, str) or not name:
        raise InputError(f"input name must be a non-empty string: {name!r}")
    if ("/" in name or "\0" in name or name in (".", "..")
            or len(name.encode("utf-8", "surrogateescape")) > MAX_NAME):
        raise InputError(f"input name {name!r} is not a plain file name")
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
    if suffix and "." not in name.lstrip("."):
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


def _copy_path(src: str, dir_fd: int, workdir: str, name: str) -> None:
    try:
        st = os.stat(src)
    except OSError as e:
        raise InputError(f"input {name!r}: cannot read {src}: {e}") from e
    if stat.S_ISDIR(st.st_mode):
        dst = os.path.join(workdir, name)
        try:
            shutil.copytree(src, dst, symlinks=False,
                            copy_function=shutil.copyfile)
        except (OSError, shutil.Error) as e:
            raise InputError(f"input {name!r}: cannot copy {src}: {e}") \
                from e
        return
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"input {name!r}: {src} is not a regular file or "
                         "folder")
    try:
        with open(src, "rb") as fin:
            fd = os.open(name, _FILE_FLAGS, 0o644, dir_fd=dir_fd)
            with open(fd, "wb") as fout:
                shutil.copyfileobj(fin, fout, 1 << 20)
    except OSError as e:
        raise InputError(f"input {name!r}: cannot copy {src}: {e}") from e


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
            if kind == "path":
                _copy_path(os.fspath(value), dir_fd, workdir, fname)
            else:
                try:
                    _write_new(dir_fd, fname, _encode(kind, value))
                except FileExistsError as e:
                    raise InputError(f"input {fname!r} exists already") \
                        from e
            written[name] = fname
    finally:
        os.close(dir_fd)
    return written
