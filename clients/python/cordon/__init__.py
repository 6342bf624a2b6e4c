"""cordon: run model-generated Python under a compiled cordon policy from
async (or blocking) Python code.

    import cordon
    client = cordon.Client("/usr/local/share/cordon/policies")
    result = await client.arun("code_gen", "print(6 * 7)")
    result.outcome, result.exit_code, result.stdout

or, configured from the environment (CORDON_POLICY_DIR, CORDON_BIN,
CORDON_SOURCE_DIR, CORDONC_BIN) or with cordon.configure(...):

    result = await cordon.arun("code_gen", code, inputs={"df": frame})

Standard library only; pandas and numpy are imported only when used.
"""
from __future__ import annotations

import os
import threading
from typing import Any

from .blob import BlobInfo
from .client import Client
from .errors import (CleanupError, ConfigError, CordonError, InputError,
                     LauncherError,
                     PolicyError, PolicyInvalid, PolicyNotFound, PolicyStale,
                     PolicyUnenforceable, UnsafeOutput)
from .outputs import OutputFile, OutputLimits, RefusedOutput
from .policy import PolicyStore
from .result import (Denial, LandlockDenial, Layers, NetworkRefusal, Outcome, RunResult,
                     SnippetFailed, Timings)

__all__ = [
    "Client", "PolicyStore", "BlobInfo", "RunResult", "Outcome", "Layers",
    "Denial", "LandlockDenial", "NetworkRefusal",
    "Timings", "OutputFile", "OutputLimits", "RefusedOutput",
    "CordonError", "ConfigError", "PolicyError", "PolicyNotFound",
    "PolicyInvalid", "PolicyStale", "PolicyUnenforceable", "InputError",
    "LauncherError", "CleanupError", "UnsafeOutput", "SnippetFailed",
    "configure", "default_client", "arun", "run",
    "Session", "CellResult", "CellFile", "SessionError", "SessionEnded",
    "SessionLimit", "SyncSession",
]
# The tree's VERSION file (tests/test_version.py fails when they differ).
__version__ = "0.1.0"

_SESSION_NAMES = ("Session", "CellResult", "CellFile", "SessionError",
                  "SessionEnded", "SessionLimit", "SyncSession")


def __getattr__(name: str) -> Any:
    """cordon.session's names, imported on first use (so that
    ``python3 -m cordon.session`` runs that module once, as __main__)."""
    if name in _SESSION_NAMES:
        from . import session
        return getattr(session, name)
    raise AttributeError(f"module 'cordon' has no attribute {name!r}")


_default: Client | None = None
_default_lock = threading.Lock()


def configure(*args: Any, **kwargs: Any) -> Client:
    """Make the Client that the module-level arun()/run() use."""
    global _default
    client = Client(*args, **kwargs)
    with _default_lock:
        _default = client
    return client


def default_client() -> Client:
    """The configured Client, or one built from the environment."""
    global _default
    with _default_lock:
        if _default is None:
            src = os.environ.get("CORDON_SOURCE_DIR")
            _default = Client(source_dir=src or None)
        return _default


async def arun(tool: str, code: str | bytes, **kwargs: Any) -> RunResult:
    """await cordon.arun(tool, code, inputs=..., timeout=...): see
    Client.arun."""
    return await default_client().arun(tool, code, **kwargs)


def run(tool: str, code: str | bytes, **kwargs: Any) -> RunResult:
    """Blocking cordon.run(tool, code, ...): see Client.arun."""
    return default_client().run(tool, code, **kwargs)
