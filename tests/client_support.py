"""Helpers for tests/test_client.py (the Python client's tests)."""
from __future__ import annotations

import asyncio
import importlib
import os
import pathlib
import sys
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


class Ticker:
    """Measures the event loop's worst stall: a task that sleeps interval
    seconds over and over and records how late it wakes up."""

    def __init__(self, interval: float = 0.002) -> None:
        self.interval = interval
        self.worst = 0.0
        self.ticks = 0
        self._task: asyncio.Task | None = None

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            await asyncio.sleep(self.interval)
            now = loop.time()
            self.worst = max(self.worst, now - last - self.interval)
            self.ticks += 1
            last = now

    def start(self) -> None:
        self._task = asyncio.ensure_future(self._run())

    async def stop(self) -> None:
        assert self._task is not None
        self._task.cancel()
        try:
            await self._task
        except asyncio.CancelledError:
            pass
