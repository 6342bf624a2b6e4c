"""File-system helpers: private run folders and removal that never follows
a link the sandboxed code planted."""
from __future__ import annotations

import errno
import os
import stat
import tempfile

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
MAX_REMOVE_DEPTH = 256   # deeper trees are left behind (and reported)


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


def _empty_dir(fd: int, depth: int) -> None:
    if depth > MAX_REMOVE_DEPTH:
        raise OSError(errno.ELOOP, "directory tree too deep to remove")
    try:
        os.fchmod(fd, 0o700)     # unlink needs write+search on the folder
    except OSError:
        pass
    with os.scandir(fd) as it:
        names = [(e.name, e.is_dir(follow_symlinks=False)) for e in it]
    for name, is_dir in names:
        if is_dir:
            _remove_subdir(name, fd, depth)
        else:
            try:
                os.unlink(name, dir_fd=fd)
            except IsADirectoryError:   # replaced meanwhile: retry as dir
                _remove_subdir(name, fd, depth)


def _remove_subdir(name: str, fd: int, depth: int) -> None:
    """Empty the directory name below fd (without following links), then
    remove it."""
    sub = _open_dir(name, fd)
    try:
        _empty_dir(sub, depth + 1)
    finally:
        os.close(sub)
    os.rmdir(name, dir_fd=fd)


def remove_tree(path: str) -> None:
    """Remove path and everything below it.  Symlinks are removed, never
    followed; every step is relative to an open directory descriptor, so
    a link planted anywhere cannot redirect the removal outside path.
    A missing path is not an error."""
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
        fd = _open_dir(name, pfd)
        try:
            _empty_dir(fd, 0)
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=pfd)
    finally:
        os.close(pfd)
