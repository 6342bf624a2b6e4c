"""cordon-runtime's workspace: the folder its file endpoints serve and
each run's files come from and go back to.  Every name is a relative
path of plain parts (_fs.rel_parts: no '/' first, no '.', '..' or empty
part, bounded), every folder on the way opened without following a link
(_fs.open_parent), every file opened O_NOFOLLOW and checked with fstat:
a link, FIFO, socket or device in the workspace is refused, never
followed.  Sizes are bounded by the caller's limits.  Blocking: the
server calls these in threads."""
from __future__ import annotations

import dataclasses
import errno
import hashlib
import os
import pathlib
import secrets
import stat
from typing import Any

from . import _fs
from .outputs import OutputFile

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | \
    os.O_CLOEXEC


class Refused(Exception):
    """A request the workspace answers with an error: status 403 (an
    escape, a link), 404 (none), 409 (a folder not empty), 413 (too
    big), 400 (anything else)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status, self.message = status, message


@dataclasses.dataclass(frozen=True)
class Limits:
    max_file: int = 64 << 20        # one file read or written, bytes
    max_entries: int = 10_000       # a listing's entries
    max_tree: int = 256 << 20       # the workspace copied into a run
    max_tree_entries: int = 10_000  # its entries


def parts_of(name: str) -> list[str]:
    """The parts of a workspace name; [] is the workspace itself ('',
    '.' or '/'); Refused 403 for anything that is not a relative path of
    plain parts."""
    if name in ("", ".", "/"):
        return []
    parts = _fs.rel_parts(name.rstrip("/") if name.endswith("/") and
                          name != "/" else name)
    if parts is None:
        raise Refused(403, f"path {name[:200]!r} is not a relative path "
                      "inside the workspace (no '/' first, no '.', '..' "
                      f"or empty part, at most {_fs.MAX_DEPTH} parts)")
    return parts


def _link_refused(name: str) -> Refused:
    return Refused(403, f"{name[:200]!r}: a symbolic link or not a folder "
                   "on the way: never followed")


def _parent(root: str, parts: list[str], create: bool = False) -> int:
    top = os.open(root, _DIR)
    try:
        return _fs.open_parent(top, parts, create)
    except FileNotFoundError:
        raise Refused(404, "no such file or folder in the workspace") \
            from None
    except OSError as e:
        if e.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _link_refused("/".join(parts)) from None
        raise
    finally:
        os.close(top)


def _lstat(pfd: int, base: str) -> os.stat_result | None:
    try:
        return os.stat(base, dir_fd=pfd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def kind(root: str, name: str) -> str | None:
    """'file', 'directory', 'other' (a link, a device: never followed),
    or None when name does not exist."""
    parts = parts_of(name)
    if not parts:
        return "directory"
    try:
        pfd = _parent(root, parts)
    except Refused as e:
        if e.status == 404:
            return None
        raise
    try:
        st = _lstat(pfd, parts[-1])
    finally:
        os.close(pfd)
    if st is None:
        return None
    return "file" if stat.S_ISREG(st.st_mode) else "directory" \
        if stat.S_ISDIR(st.st_mode) else "other"


def read_file(root: str, name: str, lim: Limits) -> tuple[bytes, float]:
    """A regular file's bytes and mtime; Refused otherwise."""
    parts = parts_of(name)
    if not parts:
        raise Refused(404, "the workspace is a folder, not a file")
    pfd = _parent(root, parts)
    try:
        fd = os.open(parts[-1], _READ, dir_fd=pfd)
    except FileNotFoundError:
        raise Refused(404, "no such file in the workspace") from None
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise _link_refused(name) from None
        raise
    finally:
        os.close(pfd)
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise Refused(404, f"{name[:200]!r} is a folder, not a file")
        if not stat.S_ISREG(st.st_mode):
            raise Refused(403, f"{name[:200]!r} is not a regular file: "
                          "not read")
        if st.st_size > lim.max_file:
            raise Refused(413, f"{name[:200]!r} is {st.st_size} bytes: "
                          f"the maximum is {lim.max_file} (--max-file)")
        data = os.read(fd, lim.max_file + 1)
        while len(data) <= lim.max_file:
            more = os.read(fd, lim.max_file + 1 - len(data))
            if not more:
                break
            data += more
        if len(data) > lim.max_file:
            raise Refused(413, f"{name[:200]!r} grew past the maximum of "
                          f"{lim.max_file} bytes while read")
        return data, st.st_mtime
    finally:
        os.close(fd)


def write_file(root: str, name: str, data: bytes, mode: int = 0o644) -> None:
    """data as name (its folders made), by a new file renamed over the
    old: a folder, link, device or FIFO there is never replaced."""
    parts = parts_of(name)
    if not parts:
        raise Refused(400, "a file name is required")
    pfd = _parent(root, parts, create=True)
    try:
        st = _lstat(pfd, parts[-1])
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise Refused(403 if not stat.S_ISDIR(st.st_mode) else 400,
                          f"{name[:200]!r} exists and is not a regular "
                          "file: not replaced")
        tmp = f".cordon-rt-{secrets.token_hex(8)}"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL |
                     os.O_NOFOLLOW | os.O_CLOEXEC, 0o600, dir_fd=pfd)
        try:
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view):]
                os.fchmod(fd, mode)
            finally:
                os.close(fd)
            os.rename(tmp, parts[-1], src_dir_fd=pfd, dst_dir_fd=pfd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=pfd)
            except OSError:
                pass
            raise
    finally:
        os.close(pfd)


def _open_dir(root: str, parts: list[str]) -> int:
    if not parts:
        return os.open(root, _DIR)
    pfd = _parent(root, parts)
    try:
        return os.open(parts[-1], _DIR, dir_fd=pfd)
    except FileNotFoundError:
        raise Refused(404, "no such folder in the workspace") from None
    except OSError as e:
        if e.errno == errno.ENOTDIR:
            raise Refused(404, "not a folder") from None
        if e.errno == errno.ELOOP:
            raise _link_refused("/".join(parts)) from None
        raise
    finally:
        os.close(pfd)


def listing(root: str, name: str, lim: Limits) -> list[dict[str, Any]]:
    """A folder's entries, sorted by name: name, size, type ('file',
    'directory'; links and devices left out, never followed), mtime,
    mode; at most lim.max_entries (Refused 413 past it)."""
    fd = _open_dir(root, parts_of(name))
    out = []
    try:
        with os.scandir(fd) as it:
            for e in it:
                if len(out) >= lim.max_entries:
                    raise Refused(413, f"more than {lim.max_entries} "
                                  "entries in the folder (--max-entries)")
                try:
                    st = os.stat(e.name, dir_fd=fd, follow_symlinks=False)
                except FileNotFoundError:
                    continue
                if not (stat.S_ISREG(st.st_mode) or
                        stat.S_ISDIR(st.st_mode)):
                    continue
                out.append({"name": e.name, "size": st.st_size,
                            "type": "directory" if stat.S_ISDIR(st.st_mode)
                            else "file", "mtime": st.st_mtime,
                            "mode": stat.S_IMODE(st.st_mode)})
    finally:
        os.close(fd)
    return sorted(out, key=lambda d: d["name"])


def delete(root: str, name: str, recursive: bool) -> None:
    """A file, or a folder (empty, or with recursive its whole tree,
    removed without following a link: _fs.remove_tree)."""
    parts = parts_of(name)
    if not parts:
        raise Refused(403, "the workspace itself is not removed")
    pfd = _parent(root, parts)
    try:
        st = _lstat(pfd, parts[-1])
        if st is None:
            raise Refused(404, "no such file or folder in the workspace")
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(parts[-1], dir_fd=pfd)
            return
        try:
            os.rmdir(parts[-1], dir_fd=pfd)
            return
        except OSError as e:
            if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
            if not recursive:
                raise Refused(409, f"{name[:200]!r} is a folder that is "
                              "not empty: ?recursive=true removes its "
                              "tree") from None
    finally:
        os.close(pfd)
    _fs.remove_tree(os.path.join(root, *parts))


def empty(root: str) -> bool:
    """The workspace holds nothing (but the server's own temporary
    files): one getdents, cheap enough for the event loop."""
    with os.scandir(root) as it:
        return all(e.name.startswith(".cordon-rt-") for e in it)


def _digest(fd: int, name: str) -> str:
    f = os.open(name, _READ, dir_fd=fd)
    try:
        h = hashlib.sha256()
        while True:
            b = os.read(f, 1 << 20)
            if not b:
                return h.hexdigest()
            h.update(b)
    finally:
        os.close(f)


def _walk_step(w: "_Tree", fd: int, depth: int, prefix: str) -> None:
    with os.scandir(fd) as it:
        for e in it:
            w.entries += 1
            if w.entries > w.lim.max_tree_entries:
                raise Refused(413, "the workspace holds more than "
                              f"{w.lim.max_tree_entries} entries: not "
                              "copied into a run")
            if not prefix and e.name.startswith(".cordon-rt-"):
                continue
            if not prefix:
                w.names.append(e.name)
            st = os.stat(e.name, dir_fd=fd, follow_symlinks=False)
            if stat.S_ISDIR(st.st_mode):
                if depth + 1 >= _fs.MAX_DEPTH:
                    raise Refused(413, "the workspace is nested deeper "
                                  f"than {_fs.MAX_DEPTH} levels")
                w.stack.append((os.open(e.name, _DIR, dir_fd=fd),
                                depth + 1, prefix + e.name + "/"))
            elif stat.S_ISREG(st.st_mode):
                w.total += st.st_size
                if w.total > w.lim.max_tree:
                    raise Refused(413, "the workspace holds more than "
                                  f"{w.lim.max_tree} bytes: not copied "
                                  "into a run (--max-tree)")
                w.digests[prefix + e.name] = _digest(fd, e.name)
            else:
                raise Refused(403, f"the workspace holds {e.name[:200]!r}"
                              ", not a file or folder (a link?): never "
                              "copied")


@dataclasses.dataclass
class _Tree:
    lim: Limits
    stack: list[tuple[int, int, str]]
    names: list[str] = dataclasses.field(default_factory=list)
    digests: dict[str, str] = dataclasses.field(default_factory=dict)
    total: int = 0
    entries: int = 0


def inputs(root: str, lim: Limits
           ) -> tuple[dict[str, Any], dict[str, str]]:
    """The workspace as a run's inputs= (each top-level entry a
    pathlib.Path: _copyin copies it, no link followed), after a walk
    that bounds its bytes and entries without following a link; and
    each file's SHA-256 by name, so that what the run left unchanged is
    not written back (write_back)."""
    w = _Tree(lim, [(os.open(root, _DIR), 0, "")])
    try:
        while w.stack:
            fd, depth, prefix = w.stack.pop()
            try:
                _walk_step(w, fd, depth, prefix)
            finally:
                os.close(fd)
    finally:
        for fd, _, _ in w.stack:
            os.close(fd)
    return {n: pathlib.Path(root, n) for n in sorted(w.names)}, w.digests


def write_back(root: str, outputs: dict[str, OutputFile],
               before: dict[str, str]) -> list[str]:
    """A run's collected outputs (the client's guards passed them)
    written into the workspace, but those the run left as they came in
    (before: their digests): another run's change to them stays; the
    names that could not be written, with why."""
    failed = []
    for name, out in outputs.items():
        if name in before and \
                hashlib.sha256(out.content).hexdigest() == before[name]:
            continue
        try:
            write_file(root, name, out.content)
        except Refused as e:
            failed.append(f"{name}: {e.message}")
        except OSError as e:
            failed.append(f"{name}: {e.strerror or e}")
    return failed
