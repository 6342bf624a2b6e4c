"""File-system helpers: private run folders and removal that never follows
a link the sandboxed code planted."""
from __future__ import annotations

import errno
import os
import stat
import tempfile
from typing import Tuple

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def make_private_dir(parent: str | None, prefix: str) -> str:
    """A fresh directory, mode 0700, owned by us (mkdtemp semantics)."""
    d = tempfile.mkdtemp(prefix=prefix, dir=parent)
    os.chmod(d, 0o700)
    return d


def _open_dir(name: str, dir_fd: int | None) -> int:
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except PermissionError:
        # The snippet may have made a folder unreadable (chmod 000).  Pin
        # it with O_PATH (no permission needed, no link followed), make it
        # ours again through the pinned descriptor, then open it.
        pfd = os.open(name, os.O_PATH | os.O_DIRECTORY | os.O_NOFOLLOW
                      | os.O_CLOEXEC, dir_fd=dir_fd)
        try:
            os.chmod(f"/proc/self/fd/{pfd}", 0o700)
            # Reopen the pinned inode itself: the /proc magic link is the
            # one link to follow here (O_NOFOLLOW would refuse it).
            return os.open(f"/proc/self/fd/{pfd}", _DIR_FLAGS
                           & ~os.O_NOFOLLOW)
        finally:
            os.close(pfd)


_Ident = Tuple[int, int]      # (st_dev, st_ino)


def _ident(st: os.stat_result) -> _Ident:
    return st.st_dev, st.st_ino


class _Walk:
    """Removal state: one directory open at a time whatever the depth
    (no recursion, no descriptor per level); coming back up by "..", the
    directory reached must be the one recorded on the way down."""

    def __init__(self, root: int) -> None:
        self.up: list[_Ident] = [_ident(os.fstat(root))]
        self.kept: set[_Ident] = set()   # staying: skipped on later passes
        self.left: list[str] = []        # what stays, and why

    def keep(self, fd: int, name: str, err: OSError) -> None:
        try:
            ident = _ident(os.stat(name, dir_fd=fd, follow_symlinks=False))
        except OSError:
            ident = (-1, len(self.left))   # vanished meanwhile
        if ident in self.kept:
            return
        self.kept.add(ident)
        depth = len(self.up)
        self.left.append("%r %d level%s down: %s" % (
            name, depth, "s" if depth > 1 else "",
            err.strerror or str(err)))

    def known(self, fd: int, name: str) -> bool:
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except OSError:
            return False
        return _ident(st) in self.kept


def _entry(w: _Walk, fd: int, name: str) -> int | None:
    """Remove one entry: None when removed, -1 when it stays, or the
    descriptor of a non-empty directory to empty first."""
    try:
        os.unlink(name, dir_fd=fd)
        return None
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        pass
    except OSError as e:
        if not w.known(fd, name):
            w.keep(fd, name, e)
        return -1
    try:
        os.rmdir(name, dir_fd=fd)
        return None
    except FileNotFoundError:
        return None
    except OSError as e:
        if w.known(fd, name):
            return -1
        if e.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            w.keep(fd, name, e)
            return -1
    try:
        sub = _open_dir(name, fd)
    except OSError as e:
        w.keep(fd, name, e)
        return -1
    if os.fstat(sub).st_dev != w.up[0][0]:     # a mount point: not ours
        os.close(sub)
        w.keep(fd, name, OSError(errno.EXDEV, "on another file system"))
        return -1
    return sub


def _pass(w: _Walk, fd: int) -> tuple[int | None, bool]:
    """One pass over the directory at fd: (a subdirectory to empty first,
    _) or (None, whether something stays here)."""
    try:
        os.fchmod(fd, 0o700)     # unlink needs write+search on the folder
    except OSError:
        pass
    busy = False
    with os.scandir(fd) as it:
        for e in it:
            r = _entry(w, fd, e.name)
            if r is None:
                continue
            if r < 0:
                busy = True
                continue
            return r, busy
    return None, busy


def _empty_tree(fd: int) -> list[str]:
    """Empty the directory open at fd (consumed); return what stays."""
    try:
        w = _Walk(fd)
        while True:
            sub, busy = _pass(w, fd)
            if sub is not None:
                w.up.append(_ident(os.fstat(sub)))
                os.close(fd)
                fd = sub
                continue
            if busy:
                w.kept.add(w.up[-1])
            if len(w.up) == 1:
                return w.left
            parent = os.open("..", _DIR_FLAGS, dir_fd=fd)
            if _ident(os.fstat(parent)) != w.up[-2]:
                os.close(parent)
                raise OSError(errno.EXDEV, "folder moved during removal")
            os.close(fd)
            fd = parent
            w.up.pop()
    finally:
        os.close(fd)


def remove_tree(path: str) -> None:
    """Remove path and everything below it, at any depth.  Symlinks are
    removed, never followed; every step is relative to an open directory
    descriptor, so a link planted anywhere cannot redirect the removal
    outside path, and removal never crosses onto another file system.
    A missing path is not an error; anything that stays raises OSError
    saying how many entries and which first."""
    parent, name = os.path.split(os.path.abspath(path))
    try:
        pfd = os.open(parent, _DIR_FLAGS)
    except FileNotFoundError:
        return
    try:
        try:
            st = os.stat(name, dir_fd=pfd, follow_symlinks=False)
        except FileNotFoundError:
            return
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(name, dir_fd=pfd)
            return
        left = _empty_tree(_open_dir(name, pfd))
        if left:
            raise OSError(errno.ENOTEMPTY, "%d entr%s left, the first %s"
                          % (len(left), "y" if len(left) == 1 else "ies",
                             left[0]), path)
        os.rmdir(name, dir_fd=pfd)
    finally:
        os.close(pfd)


# A name inside a run's workdir (an input, an output, an output folder):
# a relative path of plain parts, bounded.  The one definition, for the
# client, the warm runs, sessions and the MCP server.
MAX_PART = 255           # bytes of one part (NAME_MAX)
MAX_PATH = 4096          # bytes of the whole name (PATH_MAX)
MAX_DEPTH = 16           # parts


def rel_parts(name: str) -> list[str] | None:
    """The parts of a workdir-relative name, or None when it is not one:
    empty, absolute, a '.', '..' or empty part (so no trailing '/'), a
    NUL, a part over MAX_PART bytes, more than MAX_DEPTH parts or over
    MAX_PATH bytes."""
    if not isinstance(name, str) or not name or "\0" in name:
        return None
    try:
        size = len(name.encode("utf-8", "surrogateescape"))
    except UnicodeError:
        return None
    parts = name.split("/")
    if size > MAX_PATH or len(parts) > MAX_DEPTH:
        return None
    for p in parts:
        if p in ("", ".", "..") or \
                len(p.encode("utf-8", "surrogateescape")) > MAX_PART:
            return None
    return parts


def open_parent(dir_fd: int, parts: list[str], create: bool) -> int:
    """A new descriptor of the folder that holds parts[-1], below dir_fd:
    each folder on the way opened without following a link (ELOOP or
    ENOTDIR when one is a link or not a folder), made (0700) first when
    create.  The caller closes it."""
    fd = os.dup(dir_fd)
    try:
        for p in parts[:-1]:
            if create:
                try:
                    os.mkdir(p, 0o700, dir_fd=fd)
                except FileExistsError:
                    pass
            nfd = os.open(p, _DIR_FLAGS, dir_fd=fd)
            os.close(fd)
            fd = nfd
    except BaseException:
        os.close(fd)
        raise
    return fd
