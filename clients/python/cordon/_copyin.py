"""Copying a file or folder the caller names into a run's workdir, as the
inputs table says: content copied, never linked.

Every part below the path the caller gave is opened relative to its
folder's descriptor with O_PATH | O_NOFOLLOW, checked with fstat, and
only then opened for reading through that pinned descriptor: a symbolic
link, a FIFO, a socket or a device anywhere in the tree (or as the path
itself) is refused with its name, and an entry swapped for a link
between the listing and the copy is refused the same way, never
followed.  The folders on the way to the path are the caller's own and
are followed as given (pass ``os.path.realpath(p)`` to copy what a link
points to)."""
from __future__ import annotations

import errno
import os
import stat

from .errors import InputError

_PIN = os.O_PATH | os.O_NOFOLLOW | os.O_CLOEXEC
_NEW_FILE = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
             | os.O_CLOEXEC)
_CHUNK = 1 << 20


def _refuse(name: str, shown: str, what: str) -> InputError:
    return InputError(f"input {name!r}: {shown} is {what}; inputs are "
                      "copied, never linked: only regular files and "
                      "folders are copied")


def _kind_of(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file or folder"


def _reopen(pin: int, flags: int) -> int:
    """The pinned inode itself, opened for reading: the /proc magic link
    names the inode pinned, whatever its name became since."""
    return os.open(f"/proc/self/fd/{pin}", flags | os.O_CLOEXEC)


def _pin(src: str, name: str) -> int:
    try:
        return os.open(src, _PIN)
    except OSError as e:
        raise InputError(f"input {name!r}: cannot read {src}: "
                         f"{e.strerror}") from e


def read_input(src: str, name: str) -> bytes:
    """The content of src, a regular file and not a link (a session's
    cell takes files only)."""
    pin = _pin(src, name)
    try:
        mode = os.fstat(pin).st_mode
        if stat.S_ISDIR(mode):
            raise InputError(f"input {name!r}: only a regular file is "
                             "taken here (a folder: pass its files)")
        if not stat.S_ISREG(mode):
            raise _refuse(name, src, _kind_of(mode))
        fd = _reopen(pin, os.O_RDONLY)
    finally:
        os.close(pin)
    with os.fdopen(fd, "rb") as f:
        return f.read()


def _copy_file(pin: int, dst_fd: int, base: str) -> None:
    fin = _reopen(pin, os.O_RDONLY)
    try:
        fout = os.open(base, _NEW_FILE, 0o644, dir_fd=dst_fd)
        try:
            while True:
                data = os.read(fin, _CHUNK)
                if not data:
                    break
                view = memoryview(data)
                while view:
                    view = view[os.write(fout, view):]
        finally:
            os.close(fout)
    finally:
        os.close(fin)


def _copy_entry(pin: int, dst_fd: int, base: str, name: str,
                shown: str) -> None:
    """The pinned entry (consumed by the caller) copied as base in
    dst_fd, or refused."""
    mode = os.fstat(pin).st_mode
    if stat.S_ISREG(mode):
        _copy_file(pin, dst_fd, base)
        return
    if not stat.S_ISDIR(mode):
        raise _refuse(name, shown, _kind_of(mode))
    src = _reopen(pin, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.mkdir(base, 0o700, dir_fd=dst_fd)
        dst = os.open(base, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
                      | os.O_CLOEXEC, dir_fd=dst_fd)
        try:
            for entry in sorted(os.listdir(src)):
                _copy_child(src, entry, dst, name, f"{shown}/{entry}")
        finally:
            os.close(dst)
    finally:
        os.close(src)


def _copy_child(src: int, entry: str, dst: int, name: str,
                shown: str) -> None:
    try:
        pin = os.open(entry, _PIN, dir_fd=src)
    except FileNotFoundError as e:
        raise InputError(f"input {name!r}: {shown} vanished while "
                         "copying") from e
    try:
        _copy_entry(pin, dst, entry, name, shown)
    finally:
        os.close(pin)


def copy_input(src: str, dst_fd: int, base: str, name: str) -> None:
    """src (a file or folder, not a link) copied as base in dst_fd;
    InputError naming the first entry that is refused."""
    pin = _pin(src, name)
    try:
        _copy_entry(pin, dst_fd, base, name, src)
    except RecursionError as e:
        raise InputError(f"input {name!r}: {src} is nested too deep to "
                         "copy") from e
    except OSError as e:
        if e.errno in (errno.EEXIST, errno.EISDIR):
            raise
        raise InputError(f"input {name!r}: cannot copy {src}: {e}") from e
    finally:
        os.close(pin)
