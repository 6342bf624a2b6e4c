"""Helpers for tests/test_client.py (the Python client's tests)."""
from __future__ import annotations

import importlib
import os
import pathlib
import sys
import threading
from typing import Any


def import_client(src_dir: pathlib.Path) -> Any:
    """Import the client package from the source tree under test (the
    copy in /tmp when run as uid 65534), never from anywhere else."""
    path = str(src_dir / "clients" / "python")
    if path in sys.path:
        sys.path.remove(path)
    sys.path.insert(0, path)
    mod = importlib.import_module("cordon")
    where = pathlib.Path(mod.__file__).resolve()
    assert str(where).startswith(str(pathlib.Path(path).resolve())), where
    return mod


def procs_with(marker: str) -> list[tuple[int, bytes]]:
    """Live processes (not zombies) whose command line carries marker."""
    found = []
    me = os.getpid()
    needle = marker.encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read()
            with open(f"/proc/{name}/stat", "rb") as f:
                state = f.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if needle in cmd and state != b"Z":
            found.append((int(name), cmd))
    return found


class LoopWatch:
    """Records the blocking work the calling thread (the event loop's)
    does between start() and stop(): every audited operation (PEP 578:
    opening a path, spawning, listing or removing files, ...)
    but wrapping a descriptor already held (open(fd)).  What runs where,
    not how long it took: a timing on a loaded machine proves nothing.
    (A wait is not audited; the client waits for a pidfd to be readable
    first, then reaps.)"""

    _hooked = False
    _active: "LoopWatch | None" = None

    def __init__(self) -> None:
        self.thread = 0
        self.blocking: list[str] = []

    def start(self) -> None:
        self.thread = threading.get_ident()
        LoopWatch._active = self
        if not LoopWatch._hooked:      # an audit hook stays for good
            sys.addaudithook(LoopWatch._audit)
            LoopWatch._hooked = True

    def stop(self) -> None:
        LoopWatch._active = None

    @staticmethod
    def _audit(event: str, args: tuple) -> None:
        w = LoopWatch._active
        if w is None or threading.get_ident() != w.thread:
            return
        if event == "open" and isinstance(args[0], int):
            return
        w.blocking.append(f"{event} {args!r:.100}")
