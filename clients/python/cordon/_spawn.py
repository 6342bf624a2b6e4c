"""posix_spawn through ctypes, with the GIL released.

CPython 3.11 keeps the GIL while subprocess's vfork() child runs up to its
exec (3.12 releases it); on a loaded machine that exec can take hundreds of
milliseconds, and every other thread -- the event loop's included -- waits.
ctypes releases the GIL around a foreign call, so calling glibc's
posix_spawn (clone(CLONE_VM|CLONE_VFORK) + exec) through it blocks only the
calling worker thread.

The child gets: stdin /dev/null, stdout and stderr the given pipe ends,
fd 3 the status pipe, every other descriptor closed, default signal
dispositions, an empty signal mask, the given cwd and environment, and with pgroup the process group pgroup
(which must exist: cordon-mcp's guardian's, _guard.py).
Returns the pid.  Raises OSError; :func:`available` says whether this
libc has what is needed (glibc 2.34+), otherwise callers fall back to
subprocess.
"""
from __future__ import annotations

import ctypes
import os
from typing import Mapping, Sequence

_libc = None
_ok = False
try:
    _libc = ctypes.CDLL(None, use_errno=True)
    for _name in ("posix_spawn", "posix_spawn_file_actions_init",
                  "posix_spawn_file_actions_adddup2",
                  "posix_spawn_file_actions_addopen",
                  "posix_spawn_file_actions_addclosefrom_np",
                  "posix_spawn_file_actions_addchdir_np",
                  "posix_spawn_file_actions_destroy",
                  "posix_spawnattr_init", "posix_spawnattr_setflags",
                  "posix_spawnattr_setsigmask",
                  "posix_spawnattr_setsigdefault", "posix_spawnattr_destroy",
                  "posix_spawnattr_setpgroup",
                  "sigemptyset", "sigfillset"):
        getattr(_libc, _name)
    _ok = True
except (OSError, AttributeError):
    _ok = False

POSIX_SPAWN_SETPGROUP = 0x02
POSIX_SPAWN_SETSIGDEF = 0x04
POSIX_SPAWN_SETSIGMASK = 0x08
_OPAQUE = 1024      # larger than glibc's posix_spawn_* types and sigset_t
CHILD_STATUS_FD = 3


def available() -> bool:
    return _ok


def _check(rc: int, what: str) -> None:
    if rc != 0:
        raise OSError(rc, f"{what}: {os.strerror(rc)}")


def _high(fd: int) -> int:
    """A close-on-exec copy of fd numbered 10 or more, so no dup2 below
    can clobber another source descriptor."""
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)


def spawn(argv: Sequence[str], env: Mapping[str, str], cwd: str,
          stdout_w: int, stderr_w: int, status_w: int,
          pgroup: int | None = None) -> int:
    assert _libc is not None and _ok
    lib = _libc
    fa = ctypes.create_string_buffer(_OPAQUE)
    attr = ctypes.create_string_buffer(_OPAQUE)
    mask = ctypes.create_string_buffer(_OPAQUE)
    dflt = ctypes.create_string_buffer(_OPAQUE)
    copies = [_high(fd) for fd in (stdout_w, stderr_w, status_w)]
    try:
        _check(lib.posix_spawn_file_actions_init(fa), "file actions")
        try:
            _check(lib.posix_spawnattr_init(attr), "spawn attributes")
            try:
                for fd, target in zip(copies, (1, 2, CHILD_STATUS_FD)):
                    _check(lib.posix_spawn_file_actions_adddup2(
                        fa, fd, target), "dup2")
                _check(lib.posix_spawn_file_actions_addopen(
                    fa, 0, b"/dev/null", os.O_RDONLY, 0), "open")
                _check(lib.posix_spawn_file_actions_addclosefrom_np(
                    fa, CHILD_STATUS_FD + 1), "closefrom")
                _check(lib.posix_spawn_file_actions_addchdir_np(
                    fa, os.fsencode(cwd)), "chdir")
                lib.sigemptyset(mask)
                lib.sigfillset(dflt)
                _check(lib.posix_spawnattr_setsigmask(attr, mask),
                       "sigmask")
                _check(lib.posix_spawnattr_setsigdefault(attr, dflt),
                       "sigdefault")
                flags = POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK
                if pgroup is not None:
                    _check(lib.posix_spawnattr_setpgroup(
                        attr, ctypes.c_int(pgroup)), "pgroup")
                    flags |= POSIX_SPAWN_SETPGROUP
                _check(lib.posix_spawnattr_setflags(
                    attr, ctypes.c_short(flags)), "flags")
                args = [os.fsencode(a) for a in argv]
                c_argv = (ctypes.c_char_p * (len(args) + 1))(*args, None)
                envs = [os.fsencode(k) + b"=" + os.fsencode(v)
                        for k, v in env.items()]
                c_env = (ctypes.c_char_p * (len(envs) + 1))(*envs, None)
                pid = ctypes.c_int(0)
                # The GIL is released for the duration of this call.
                _check(lib.posix_spawn(ctypes.byref(pid), args[0], fa, attr,
                                       c_argv, c_env), f"spawn {argv[0]}")
                return pid.value
            finally:
                lib.posix_spawnattr_destroy(attr)
        finally:
            lib.posix_spawn_file_actions_destroy(fa)
    finally:
        for fd in copies:
            os.close(fd)
