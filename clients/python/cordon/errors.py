"""Exceptions raised by the cordon client.

Everything the client raises on purpose derives from :class:`CordonError`,
so an application can catch one type.  A snippet that fails (non-zero exit,
timeout, killed by the seccomp filter, ...) is *not* an exception: it is a
normal :class:`cordon.RunResult` with the matching ``outcome``.  Exceptions
are for the cases where no meaningful run happened.
"""
from __future__ import annotations

from typing import Any


class CordonError(Exception):
    """Base class of every error the client raises."""


class ConfigError(CordonError):
    """The client is misconfigured (no launcher binary, bad folder, ...)."""


class PolicyError(CordonError):
    """A tool's policy cannot be used.  ``tool`` names the tool."""

    def __init__(self, tool: str, message: str) -> None:
        super().__init__(message)
        self.tool = tool


class PolicyNotFound(PolicyError):
    """No compiled blob ``TOOL.cpol`` in the configured policy folder."""


class PolicyInvalid(PolicyError):
    """The blob exists but is not a valid cordon blob (bad magic, checksum,
    version, truncated ...)."""


class PolicyStale(PolicyError):
    """The blob was compiled from a source that has changed since (its
    recorded SHA-256 source digest differs from the current sources).

    ``blob_digest`` is the digest recorded in the blob, ``source_digest``
    the digest of the sources now (hex; None if the source is missing)."""

    def __init__(self, tool: str, message: str, blob_digest: str,
                 source_digest: str | None) -> None:
        super().__init__(tool, message)
        self.blob_digest = blob_digest
        self.source_digest = source_digest


class PolicyUnenforceable(PolicyError):
    """The running kernel cannot apply what the policy asks for
    (``cordon --check BLOB`` exited 125).  ``detail`` is cordon's message."""

    def __init__(self, tool: str, message: str, detail: str) -> None:
        super().__init__(tool, message)
        self.detail = detail


class InputError(CordonError):
    """An input could not be placed in the run's workdir (bad name,
    unsupported type, unreadable path)."""


class LauncherError(CordonError):
    """cordon itself failed: it exited 125 with outcome "error", or ended
    without a status report.  The snippet may not have run at all.

    The message holds only what cordon reported through its status (its
    reason) and its exit status, never the run's standard error.
    ``exit_code`` is cordon's exit status, ``stderr`` the standard error
    that came back (for a run, the snippet's: cordon runs --quiet, so
    anything there may be the snippet's own words), ``status`` the parsed
    status report if there was one."""

    def __init__(self, message: str, exit_code: int | None,
                 stderr: bytes = b"",
                 status: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.exit_code = exit_code
        self.stderr = stderr
        self.status = status


class CleanupError(CordonError):
    """The run finished but its folder could not be removed entirely
    (something in it stays: the message says how many entries and which
    first).  ``path`` is the folder, ``result`` the run's
    :class:`cordon.RunResult`, complete: the run itself is not lost."""

    def __init__(self, message: str, path: str, result: Any) -> None:
        super().__init__(message)
        self.path = path
        self.result = result


class UnsafeOutput(CordonError):
    """An output file was asked to be decoded in a way that is not safe
    (a pickle, a .npy with object dtype, ...)."""
