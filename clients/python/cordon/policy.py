"""Finding a tool's compiled policy and deciding whether it can be used.

A :class:`PolicyStore` maps a tool name to ``BLOB_DIR/TOOL.cpol``.  Before
a blob is used it must be

* present and a valid blob (header, checksum)    -> PolicyNotFound / PolicyInvalid
* fresh, if a source folder is configured        -> PolicyStale
* enforceable on this kernel (``cordon --check``) -> PolicyUnenforceable

Staleness: the compiler records in the blob's META section a SHA-256 digest
over every source file it read (the tool's ``.policy`` and each file it
includes, in order, each as a u32 length then the bytes).  The store
recomputes that digest in Python from ``SOURCE_DIR/TOOL.policy``.  If it
matches, the blob is fresh.  If it does not and a ``cordonc`` binary is
configured, the store asks the real compiler -- ``cordonc compile`` into a
private temporary file -- and compares the digest *it* records, so a
difference between this client's include resolution and the compiler's can
never call a fresh blob stale.  Without cordonc, a mismatch is stale.

Results are cached; the cache entry is invalidated when the blob or any
source file it was computed from changes (inode, size, mtime).
"""
from __future__ import annotations

import asyncio
import os
import re
import subprocess
import tempfile
import threading
from typing import Sequence, Union

from . import _mode
from . import blob as _blob
from .errors import (ConfigError, LauncherError, PolicyInvalid,
                     PolicyNotFound, PolicyStale, PolicyUnenforceable)

StrPath = Union[str, "os.PathLike[str]"]
TOOL_RE = re.compile(r"[a-z0-9_-]{1,64}\Z")
CHECK_UNENFORCEABLE = 125
COMPILE_TIMEOUT = 60.0


StatKey = tuple[int, int, int, int, int]


def _stat_key(path: str) -> StatKey | None:
    try:
        st = os.stat(path, follow_symlinks=False)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


class PolicyStore:
    """Compiled policies by tool name.

    blob_dir:     folder of ``NAME.cpol`` (e.g. build/policies).
    source_dir:   folder of ``NAME.policy``; enables the staleness check.
    include_dirs: extra ``-I`` folders for includes (after the including
                  file's own folder, as the compiler searches).
    cordonc:      path of the compiler, to confirm a suspected stale blob.
    cordon:       path of the launcher, for ``cordon --check``.
    """

    def __init__(self, blob_dir: StrPath, *,
                 source_dir: StrPath | None = None,
                 include_dirs: Sequence[StrPath] = (),
                 cordonc: StrPath | None = None,
                 cordon: StrPath | None = None) -> None:
        # Absolute: cordon and cordonc run in other folders.
        self.blob_dir = os.path.abspath(blob_dir)
        self.source_dir = os.path.abspath(source_dir) if source_dir \
            else None
        self.include_dirs = tuple(os.path.abspath(d) for d in include_dirs)
        self.cordonc = os.path.abspath(cordonc) if cordonc else None
        self.cordon = os.path.abspath(cordon) if cordon else None
        self._lock = threading.Lock()
        self._check_lock = threading.Lock()
        self._cache: dict[str, tuple[StatKey | None,
                                     list[tuple[str, StatKey | None]],
                                     _blob.BlobInfo]] = {}
        # blob digest -> the launch mode cordon --check allows (_mode.py)
        self._enforceable: dict[str, _mode.Mode] = {}

    # -- lookup -----------------------------------------------------------

    def blob_path(self, tool: str) -> str:
        if not isinstance(tool, str) or not TOOL_RE.match(tool):
            raise PolicyNotFound(str(tool), f"invalid tool name {tool!r}: "
                                 "expected [a-z0-9_-]{1,64}")
        return os.path.join(self.blob_dir, tool + ".cpol")

    def tools(self) -> list[str]:
        """Names of the tools with a blob in blob_dir."""
        try:
            names = os.listdir(self.blob_dir)
        except OSError:
            return []
        return sorted(n[:-5] for n in names
                      if n.endswith(".cpol") and TOOL_RE.match(n[:-5]))

    def load(self, tool: str) -> _blob.BlobInfo:
        """Find, read and (if sources are configured) freshness-check the
        tool's blob.  Blocking (small file reads; maybe one cordonc run):
        async callers run it in a thread."""
        path = self.blob_path(tool)
        bkey = _stat_key(path)
        with self._lock:
            hit = self._cache.get(tool)
        if hit and hit[0] == bkey and all(_stat_key(p) == k
                                          for p, k in hit[1]):
            return hit[2]
        if bkey is None:
            avail = ", ".join(self.tools()) or "none"
            raise PolicyNotFound(tool, f"no compiled policy for tool "
                                 f"{tool!r}: {path} does not exist "
                                 f"(available: {avail})")
        try:
            info = _blob.load_blob(path)
        except (OSError, _blob.BlobFormatError) as e:
            raise PolicyInvalid(tool, f"{path}: unusable policy blob: {e}") \
                from e
        deps: list[tuple[str, StatKey | None]] = []
        if self.source_dir is not None:
            deps = self._check_fresh(tool, info)
        with self._lock:
            self._cache[tool] = (bkey, deps, info)
        return info

    # -- staleness --------------------------------------------------------

    def source_path(self, tool: str) -> str | None:
        if self.source_dir is None:
            return None
        return os.path.join(self.source_dir, tool + ".policy")

    def _check_fresh(self, tool: str, info: _blob.BlobInfo
                     ) -> list[tuple[str, StatKey | None]]:
        src = self.source_path(tool)
        assert src is not None
        files: list[str] = []
        try:
            digest = self._digest(src, files)
        except OSError as e:
            raise PolicyStale(tool, f"{info.path}: its source cannot be "
                              f"read ({e}); recompile or remove the blob",
                              info.source_digest, None) from e
        if digest != info.source_digest and self.cordonc:
            digest = self._compiled_digest(tool, src, info)
        if digest != info.source_digest:
            raise PolicyStale(
                tool, f"{info.path} is stale: it was compiled from a source "
                f"with digest {info.source_digest[:16]}..., {src} (with its "
                f"includes) now has {digest[:16]}...; run make or "
                f"cordonc compile", info.source_digest, digest)
        return [(p, _stat_key(p)) for p in files]

    def _digest(self, src: str, files: list[str]) -> str:
        return _blob.source_digest(src, self.include_dirs, files)

    def _compiled_digest(self, tool: str, src: str,
                         info: _blob.BlobInfo) -> str:
        """What the real compiler records for src today."""
        assert self.cordonc is not None
        with tempfile.TemporaryDirectory(prefix="cordon-verify-") as tmp:
            out = os.path.join(tmp, tool + ".cpol")
            cmd = [self.cordonc, "compile", "-o", out]
            for d in self.include_dirs:
                cmd += ["-I", d]
            cmd.append(src)
            try:
                p = subprocess.run(cmd, stdin=subprocess.DEVNULL,
                                   capture_output=True,
                                   timeout=COMPILE_TIMEOUT, check=False)
            except (OSError, subprocess.TimeoutExpired) as e:
                raise ConfigError(f"cannot run {self.cordonc}: {e}") from e
            if p.returncode != 0:
                msg = p.stderr.decode("utf-8", "replace").strip()
                raise PolicyStale(tool, f"{info.path} is stale: its source "
                                  f"{src} changed and no longer compiles:\n"
                                  f"{msg}", info.source_digest, None)
            try:
                return _blob.load_blob(out).source_digest
            except (OSError, _blob.BlobFormatError) as e:
                raise ConfigError(f"{self.cordonc} wrote an unreadable "
                                  f"blob: {e}") from e

    # -- enforceability ---------------------------------------------------

    def _run_check(self, cmd: Sequence[str]
                   ) -> "subprocess.CompletedProcess[bytes]":
        try:
            return subprocess.run(list(cmd), stdin=subprocess.DEVNULL,
                                  capture_output=True, check=False,
                                  timeout=COMPILE_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise LauncherError(f"{' '.join(cmd)}: {e}", None) from e

    def _check_result(self, tool: str, info: _blob.BlobInfo,
                      mode: _mode.Mode | None,
                      p: "subprocess.CompletedProcess[bytes]") -> None:
        msg = p.stderr.decode("utf-8", "replace").strip()
        if mode is not None:
            with self._lock:
                self._enforceable[info.blob_digest] = mode
            return
        if p.returncode == CHECK_UNENFORCEABLE:
            raise PolicyUnenforceable(
                tool, f"the kernel cannot enforce policy {tool!r} "
                f"({info.path}): {msg}", msg)
        raise LauncherError(f"cordon --check {info.path} exited "
                            f"{p.returncode}: {msg}", p.returncode, p.stderr)

    def check_now(self, tool: str) -> str | None:
        """``cordon --check`` of TOOL now, not cached, in the mode the
        machine allows (_mode.choose): None where a run could go, else
        why not (a health probe's answer)."""
        info = self.load(tool)
        if not self.cordon:
            return "no cordon launcher configured"
        mode, p = _mode.choose(self._run_check, self.cordon, info.path, tool,
                               quiet=True)
        if mode is not None:
            return None
        msg = p.stderr.decode("utf-8", "replace").strip()[-500:]
        return f"cordon --check {tool} exited {p.returncode}: {msg}"

    def _known_ok(self, info: _blob.BlobInfo) -> bool:
        with self._lock:
            return info.blob_digest in self._enforceable

    def check(self, tool: str) -> _blob.BlobInfo:
        """load() plus ``cordon --check`` (cached per blob digest; one
        check at a time, so concurrent first runs share it)."""
        info = self.load(tool)
        if self._known_ok(info):
            return info
        with self._check_lock:
            if self._known_ok(info):
                return info
            if not self.cordon:
                raise ConfigError("no cordon launcher configured")
            mode, p = _mode.choose(self._run_check, self.cordon, info.path,
                                   tool)
            self._check_result(tool, info, mode, p)
        return info

    def mode(self, tool: str) -> tuple[tuple[str, ...], str]:
        """The options every run of tool gets for the mode this machine
        allows (check() chose it), and why, or "" where runs get
        namespaces: (("--no-namespaces",), "the kernel gives ...")."""
        info = self.check(tool)
        with self._lock:
            m = self._enforceable[info.blob_digest]
        return m.options, m.reason

    def known_mode(self, info: _blob.BlobInfo) -> "_mode.Mode | None":
        """The mode check() chose for this blob, or None (not checked)."""
        with self._lock:
            return self._enforceable.get(info.blob_digest)

    def warm_ok(self, tool: str) -> bool:
        """Whether tool's runs can be warm here (they need namespaces)."""
        info = self.check(tool)
        with self._lock:
            return self._enforceable[info.blob_digest].warm_ok

    async def acheck(self, tool: str) -> _blob.BlobInfo:
        """check() in a worker thread: file reads, a possible cordonc run
        and the one-time cordon --check never block the event loop."""
        return await asyncio.to_thread(self.check, tool)
