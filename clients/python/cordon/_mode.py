"""The launch mode this machine allows, chosen without a flag and said.

In a container (a Kubernetes pod) the runtime's seccomp profile decides
what cordon can do: containerd's RuntimeDefault refuses the namespaces
outright (cordon then runs without them by itself); a profile may also
give the namespaces and refuse the run tmpfs's mount calls, and then a
run with namespaces fails.  ``cordon --check`` tries the same calls a
run makes, so the client asks it once per blob:

1. ``cordon --check --json BLOB`` passes: runs go as cordon plans them;
   its ``namespaces.kernel`` says whether they get namespaces (a warm
   pool needs them).
2. It fails, and ``cordon --check --json --no-namespaces BLOB`` passes:
   every run of that blob gets ``--no-namespaces``; the first check's
   words are the reason, logged once as a warning and kept in
   ``Mode.reason``.
3. Both fail: the first failure is the blob's error (policy.py).
"""
from __future__ import annotations

import dataclasses
import json
import logging
import subprocess
from typing import Callable, Sequence

log = logging.getLogger("cordon")

NO_NAMESPACES = "--no-namespaces"


@dataclasses.dataclass(frozen=True)
class Mode:
    options: tuple[str, ...]   # cordon's options every run of the blob gets
    namespaces: bool           # the runs get namespaces (warm pools need them)
    reason: str                # why not, or "" where they do

    @property
    def warm_ok(self) -> bool:
        return self.namespaces


Check = Callable[[Sequence[str]], "subprocess.CompletedProcess[bytes]"]


def _namespaces(out: bytes) -> bool:
    try:
        plan = json.loads(out)
        return plan["namespaces"]["kernel"] == "available"
    except (ValueError, KeyError, TypeError):
        return False


def _words(err: bytes) -> str:
    text = err.decode("utf-8", "replace").strip()
    return text.removeprefix("cordon: ")


def choose(check: Check, cordon: str, path: str, tool: str,
           quiet: bool = False
           ) -> tuple[Mode | None, "subprocess.CompletedProcess[bytes]"]:
    """The mode for one blob: (Mode, the first check's result), or (None,
    that result) where neither mode passes.  quiet: the choice of the
    no-namespace mode is not logged (a health probe asks again and
    again)."""
    first = check([cordon, "--check", "--json", path])
    if first.returncode == 0:
        ns = _namespaces(first.stdout)
        return Mode((), ns, "" if ns else "cordon --check: the kernel or "
                    "the container refuses namespaces"), first
    second = check([cordon, "--check", "--json", NO_NAMESPACES, path])
    if second.returncode != 0:
        return None, first
    reason = _words(first.stderr)
    if not quiet:
        log.warning("cordon: tool %r runs without namespaces (%s), since "
                    "%s", tool, NO_NAMESPACES, reason)
    return Mode((NO_NAMESPACES,), False, reason), first
