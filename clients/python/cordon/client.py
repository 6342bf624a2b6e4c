"""The client: launch one sandboxed run per call, without blocking the
event loop."""
from __future__ import annotations

import asyncio
import concurrent.futures
import functools
import logging
import os
import re
import threading
import time
import weakref
from typing import Any, Awaitable, Callable, Mapping, Sequence, TypeVar

from . import _discover, _fs, _pool, _submit
from ._cpol import CPOL_CA_BUNDLE_NAME, CPOL_SHM_DIR_NAME
from ._proc import (Priority, Process, complete, priority_options,
                    read_pipe, spawner, uncancellable)
from .blob import BlobInfo
from .errors import CleanupError, ConfigError, LauncherError
from .inputs import check_name, make_folder, place_inputs
from .outputs import (OutputFile, OutputLimits, RefusedOutput,
                      collect_outputs)
from .policy import PolicyStore, StrPath
from ._status import parse_status as _parse_status
from ._warm import WARM_STATUS_FD
from .result import (Layers, Outcome, RunResult, Timings,
                     denials_from_status)

T = TypeVar("T")
log = logging.getLogger("cordon")

DEFAULT_CONCURRENCY = 4
IO_THREADS = 2                  # inputs, outputs, removal
DEFAULT_GRACE = 5.0             # SIGTERM -> SIGKILL, seconds
DEFAULT_PRIORITY = "idle"       # runs yield the CPU to the server
DEFAULT_STREAM_CAP = 8 << 20    # bytes kept per stream by the client
STATUS_CAP = 1 << 20            # the status report is one short line
DRAIN_AFTER_EXIT = 2.0          # seconds to reach EOF once cordon exited
BACKSTOP_MARGIN = 10.0          # client deadline past the run's timeout
# The launcher's own environment: nothing else of the server's (its
# secrets) reaches cordon's /proc/PID/environ.  The policy then decides
# what of this the snippet sees ("env keep").
DEFAULT_ENV_KEEP = ("LANG", "LC_ALL", "LC_CTYPE", "TZ")
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
SNIPPET_NAME = "snippet.py"
WORKDIR_NAME = "work"
EXIT_LAUNCHER = _submit.EXIT_CORDON     # cordon failed (launcher/cordon.h)
POOL_READY_TIMEOUT = 60.0       # seconds for cordon --serve to be ready


# cordon's files in the workdir, not the snippet's outputs: the CA bundle
# for a policy with credentials or http rules, the semaphores' folder of
# a run without namespaces.
_CORDON_FILES = frozenset({CPOL_CA_BUNDLE_NAME.decode(),
                           CPOL_SHM_DIR_NAME.decode()})
_CRED_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def _with_credentials(env: Mapping[str, str] | None,
                      credentials: Mapping[str, Any] | None
                      ) -> tuple[Mapping[str, str] | None, tuple[str, ...]]:
    """cordon's environment with the credentials' values, and the words
    of their --credential options: NAME (cordon reads its own variable)
    for a str value, NAME=@FILE for a path (cordon reads the file; the
    value never passes through this process)."""
    if not credentials:
        return env, ()
    out = dict(env or {})
    words = []
    for name, value in credentials.items():
        if not isinstance(name, str) or not _CRED_NAME.match(name):
            raise ValueError(f"credential name {name!r}: letters, digits "
                             "and '_', not starting with a digit")
        if isinstance(value, os.PathLike):
            words.append(f"{name}=@{os.path.abspath(value)}")
            continue
        if not isinstance(value, str) or not value:
            raise ValueError(f"credential {name}: a non-empty str value "
                             "or a path is required")
        if name in out:
            raise ValueError(f"credential {name} is also in env=")
        out[name] = value
        words.append(name)
    return out, tuple(words)


def _test_options(resolve: Mapping[str, str] | None,
                  upstream_ca: StrPath | None) -> list[str]:
    """cordon --resolve NAME:ADDRESS and --upstream-ca FILE: a policy's
    named hosts reached at a local stand-in, its certificate checked
    against the stand-in's own CA (tests; cordon(1) checks the values)."""
    out: list[str] = []
    for name, addr in (resolve or {}).items():
        if not isinstance(name, str) or not name or ":" in name or \
                "\0" in name:
            raise ValueError(f"resolve: {name!r} is not a host name")
        if not isinstance(addr, str) or not addr or "\0" in addr:
            raise ValueError(f"resolve {name}: an address str is required")
        out += ["--resolve", f"{name}:{addr}"]
    if upstream_ca is not None:
        # cordon runs in the run's own folder: the path made absolute
        out += ["--upstream-ca", os.path.abspath(os.fspath(upstream_ca))]
    return out


# The words before cordon's options, and those after them (the blob).
_Command = tuple[list[str], list[str]]


def _int(d: Mapping[str, Any], key: str) -> int:
    v = d.get(key)
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


# cordon copies the snippet into a caller's workdir as snippet-XXXXXX.py.
_SNIPPET_COPY = re.compile(r"snippet(-[a-z0-9]{6})?\.py\Z")


def _snippet_copy(code: bytes) -> Any:
    def skip(name: str, data: bytes) -> bool:
        return bool(_SNIPPET_COPY.match(name)) and data == code
    return skip


class Client:
    """Runs snippets under cordon, one sandboxed process tree per call.

    policy_dir:   folder of compiled policies, ``TOOL.cpol`` (default
                  $CORDON_POLICY_DIR, else the one beside the launcher:
                  build/policies next to build/cordon, or
                  PREFIX/share/cordon/policies next to PREFIX/bin/cordon).
    cordon:       the launcher (default $CORDON_BIN, then PATH).
    Every path given is made absolute (cordon runs in another folder).
    source_dir:   folder of policy sources ``TOOL.policy``; when set, a blob
                  compiled from an older source raises PolicyStale.
    cordonc:      the compiler, to confirm staleness (default $CORDONC_BIN,
                  then PATH, when source_dir is set).
    concurrency:  runs at once per tool: an int for every tool, or a
                  mapping tool -> int (key "*" for the rest).
    work_root:    where private run folders are made (default: $TMPDIR).
    output_limits: caps on collected output files.
    stream_cap:   bytes of stdout and of stderr kept (the policy's output
                  cap applies first, in cordon).
    grace:        seconds between SIGTERM and SIGKILL when a run is
                  cancelled.
    env_keep:     names of this process's environment passed to cordon.
    check_kernel: run ``cordon --check`` once per blob before using it.
    priority:     the runs' CPU priority, applied by cordon to the run
                  only (``cordon --idle`` / ``--nice N``): "idle"
                  (SCHED_IDLE, the default: runs only use CPU time the
                  server's threads do not want, so many sandboxes at once
                  never delay the event loop; under sustained full load
                  from other normal processes they would wait for it),
                  N in 1..19 (nice +N relative to this process), or None
                  (the same).  The client's own threads and cordon keep
                  this process's priority.
    warm:         run each tool's snippets in a warm pool (cordon --serve,
                  see cordon(1) WARM POOLS) that the client starts on the
                  tool's first run, reuses, restarts once if it died or
                  its blob was recompiled, and stops in close() (or when
                  the client is garbage-collected, or at exit).  The
                  policy's preloads (pandas, matplotlib...) are imported
                  once per pool instead of once per run; the result is a
                  cold run's, with status["warm"] True.  Every run of a
                  pool shares the template's memory layout.  Only policies
                  whose command is a Python interpreter can be served.
                  Use close() or a with block.
    """

    def __init__(self, policy_dir: StrPath | None = None, *,
                 cordon: StrPath | None = None,
                 source_dir: StrPath | None = None,
                 include_dirs: Sequence[StrPath] = (),
                 cordonc: StrPath | None = None,
                 concurrency: int | Mapping[str, int] = DEFAULT_CONCURRENCY,
                 work_root: StrPath | None = None,
                 output_limits: OutputLimits = OutputLimits(),
                 stream_cap: int = DEFAULT_STREAM_CAP,
                 grace: float = DEFAULT_GRACE,
                 env_keep: Sequence[str] = DEFAULT_ENV_KEEP,
                 check_kernel: bool = True,
                 priority: Priority = DEFAULT_PRIORITY,
                 warm: bool = False, guard: Any = None) -> None:
        self.cordon = _discover.binary("cordon", "CORDON_BIN", cordon,
                                       "cordon launcher")
        pdir = _discover.policy_dir(policy_dir, self.cordon)
        if source_dir:
            source_dir = _discover.absolute(source_dir)
            cordonc = _discover.binary("cordonc", "CORDONC_BIN", cordonc,
                                       "cordonc compiler", required=False)
        elif cordonc:
            cordonc = _discover.absolute(cordonc)
        self.policies = PolicyStore(pdir, source_dir=source_dir,
                                    include_dirs=_discover.absolutes(
                                        include_dirs),
                                    cordonc=cordonc, cordon=self.cordon)
        if isinstance(concurrency, int):
            self._limits: dict[str, int] = {"*": concurrency}
        else:
            self._limits = dict(concurrency)
            self._limits.setdefault("*", DEFAULT_CONCURRENCY)
        if any(n < 1 for n in self._limits.values()):
            raise ConfigError("concurrency limits must be >= 1")
        self.work_root = _discover.absolute(work_root) if work_root \
            else None
        self.output_limits = output_limits
        self.stream_cap = stream_cap
        self.grace = grace
        self.env_keep = tuple(env_keep)
        self.check_kernel = check_kernel
        self.priority = priority
        # cordon-mcp's guardian (_guard.Guard): every cordon process is
        # spawned into its process group, every pool told to it.
        self._guard = guard
        self._pgroup = guard.pgid if guard is not None else None
        self._priority_opts = priority_options(priority)
        self._spawner = spawner()
        self._io = concurrent.futures.ThreadPoolExecutor(IO_THREADS,
                                                         "cordon-io")
        # One semaphore per (event loop, tool): asyncio primitives belong
        # to the loop that first waits on them, and run() makes a new loop
        # per call.
        self._sems: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Semaphore]] = \
            weakref.WeakKeyDictionary()
        # Warm pools: tool -> the pool serving it; pools replaced while
        # runs were in flight; all under _pool_lock (held briefly).  A
        # pool's start is serialised per loop by an asyncio lock (no
        # thread waits for it) and across loops by a threading lock.
        self.warm = warm
        self._pools: dict[str, _pool.Pool] = {}
        self._retired: set[_pool.Pool] = set()
        self._pool_lock = threading.Lock()
        self._start_locks: dict[str, threading.Lock] = {}
        self._loop_locks: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, dict[str, asyncio.Lock]] = \
            weakref.WeakKeyDictionary()
        self._closed = False
        self._cold_said: set[str] = set()   # tools said to run cold
        # Stops the pools of a client never closed (and at exit); refers
        # to the pools only, not to the client.
        self._finalizer = weakref.finalize(
            self, _pool.stop_all, self._pools, self._retired,
            self._pool_lock)

    def _in_io(self, fn: Callable[..., T], *args: Any,
               **kwargs: Any) -> "asyncio.Future[T]":
        """Run blocking file work on the client's own small thread pool:
        few threads, so little contention for the GIL with the loop."""
        loop = asyncio.get_running_loop()
        return loop.run_in_executor(self._io,
                                    functools.partial(fn, *args, **kwargs))

    def close(self) -> None:
        """Stop the warm pools (SIGTERM, SIGKILL after a short grace,
        reaped) and the client's threads (idle ones; cold runs in flight
        finish, warm ones fail with their pool)."""
        with self._pool_lock:
            self._closed = True
        self._finalizer()
        self._spawner.shutdown(wait=False)
        self._io.shutdown(wait=False)

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    async def __aenter__(self) -> "Client":
        return self

    async def __aexit__(self, *exc: object) -> None:
        # Stopping pools waits for their exit: not on the loop's thread.
        await asyncio.get_running_loop().run_in_executor(None, self.close)

    # -- concurrency ------------------------------------------------------

    def concurrency(self, tool: str) -> int:
        return self._limits.get(tool, self._limits["*"])

    def _semaphore(self, tool: str) -> asyncio.Semaphore:
        loop = asyncio.get_running_loop()
        per_loop = self._sems.setdefault(loop, {})
        sem = per_loop.get(tool)
        if sem is None:
            sem = per_loop[tool] = asyncio.Semaphore(self.concurrency(tool))
        return sem

    # -- the run ----------------------------------------------------------

    def run(self, tool: str, code: str | bytes, **kw: Any) -> RunResult:
        """Blocking form of arun() (for code without an event loop)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(self.arun(tool, code, **kw))
        raise RuntimeError("cordon run() called inside a running event "
                           "loop: use 'await cordon.arun(...)'")

    async def arun(self, tool: str, code: str | bytes, *,
                   inputs: Mapping[str, Any] | None = None,
                   args: Sequence[str] = (),
                   timeout: float | None = None,
                   output_dir: str | None = None,
                   save_outputs_to: StrPath | None = None,
                   env: Mapping[str, str] | None = None,
                   include_inputs: bool = False,
                   credentials: Mapping[str, Any] | None = None,
                   resolve: Mapping[str, str] | None = None,
                   upstream_ca: StrPath | None = None,
                   watch: bool = False
                   ) -> RunResult:
        """Run code under TOOL's policy and return its RunResult.

        inputs:   {file name: value} placed in the workdir (see
                  cordon.inputs for the formats).
        args:     extra command-line words for the snippet.
        timeout:  wall-clock seconds (cordon --timeout); the policy's own
                  timeout applies when None, and caps a larger one (said
                  as a warning on the "cordon" logger).
        output_dir: collect outputs from this folder inside the workdir
                  (created empty before the run) instead of the workdir.
        save_outputs_to: write accepted outputs to this existing folder
                  and return paths instead of bytes (large images).
        env:      extra variables given to cordon; the policy decides
                  which the snippet sees.
        include_inputs: also return input files (by default files with an
                  input's name are not collected).
        credentials: {name: value} for the policy's credential statements
                  (cordon --credential NAME, the value in cordon's own
                  environment, which cordon wipes; or {name: a
                  pathlib.Path}: cordon --credential NAME=@FILE, cordon
                  reads the file, a mounted secret): the egress proxy adds
                  them to the requests for their hosts and the run never
                  sees them.  Such a run is always cold (a warm pool takes
                  no credential).
        resolve:  {host name: address} the egress proxy uses for the
                  policy's named hosts instead of DNS (cordon --resolve):
                  a local stand-in for a real service, in tests.
        upstream_ca: a PEM file the proxy verifies the upstreams of
                  credential and http hosts against, instead of the
                  system's CA store (cordon --upstream-ca): the
                  stand-in's own CA, in tests.  With either, the run is
                  cold.
        watch:    name what Landlock refuses even where the kernel's
                  audit cannot (cordon --landlock-watch: each call that
                  names a path or a port is seen by cordon, checked
                  against the policy's rules and let through to Landlock;
                  slower).  result.landlock_denials then lists each
                  refusal with the rule to add.  For authors; such a run
                  is cold.

        Cancelling the awaiting task terminates cordon (which ends the
        whole process tree), reaps it and removes the run's folder.
        """
        if isinstance(code, str):
            code = code.encode("utf-8")
        if output_dir is not None:
            check_name(output_dir)
        if timeout is not None and not timeout > 0:
            raise ValueError("timeout must be > 0 seconds")
        env, creds = _with_credentials(env, credentials)
        tests = _test_options(resolve, upstream_ca)
        async with self._semaphore(tool):
            t0 = time.monotonic()
            # One trip to the I/O threads before the run (the policy, the
            # run folder, the snippet and inputs written) and one after it
            # (outputs collected, folder removed): each trip is a thread
            # woken and the loop woken back, ~0.1-0.3 ms on a loaded
            # machine (bench/README.md section 8).
            (info, base, prepared), cancelled = await complete(self._in_io(
                self._before, tool, code, inputs or {}, output_dir))
            if cancelled:
                await uncancellable(self._in_io(self._remove, base))
                raise asyncio.CancelledError()
            # cordon runs --quiet (stderr is the snippet's alone): its
            # note on an option looser than the policy is said here.
            if timeout is not None and timeout * 1000 > info.timeout_ms:
                log.warning("tool %r: timeout=%g capped at the policy's "
                            "%gs", tool, timeout, info.timeout_ms / 1000)
            try:
                result, left = await self._run_in(
                    base, tool, info, code, prepared, args, timeout, output_dir,
                    save_outputs_to, env, include_inputs, t0, creds, tests,
                    watch)
            except BaseException:
                # Logged only: raising would hide the run's exception.
                await uncancellable(self._in_io(self._remove, base))
                raise
            if left is not None:
                raise CleanupError(f"run folder {base} of tool {tool!r} "
                                   f"not removed: {left}", base, result)
            return result

    def _before(self, tool: str, code: bytes, inputs: Mapping[str, Any],
                output_dir: str | None
                ) -> tuple[BlobInfo, str, tuple[str, str, dict[str, str]]]:
        """(An I/O thread.)  The tool's policy, a private run folder, the
        snippet and the inputs in it.  A failure after the folder was
        made removes it."""
        info = (self.policies.check if self.check_kernel
                else self.policies.load)(tool)
        base = _fs.make_private_dir(self.work_root, f"cordon-{tool}-")
        try:
            return info, base, self._prepare(base, code, inputs,
                                             output_dir)
        except BaseException:
            self._remove(base)
            raise

    def _after(self, base: str, workdir: str, **collect: Any
               ) -> tuple[Any, str | None]:
        """(An I/O thread.)  The outputs collected, then the run folder
        removed: (collect_outputs' answer, what stayed or None)."""
        try:
            got = collect_outputs(workdir, **collect)
        except BaseException:
            self._remove(base)
            raise
        return got, self._remove(base)

    @staticmethod
    def _remove(base: str) -> str | None:
        """Remove a run folder.  A failure is logged and returned (what
        stays), never silent."""
        try:
            _fs.remove_tree(base)
        except OSError as e:
            log.warning("cannot remove run folder %s: %s", base, e)
            return str(e)
        return None

    def _prepare(self, base: str, code: bytes, inputs: Mapping[str, Any],
                 output_dir: str | None) -> tuple[str, str, dict[str, str]]:
        snippet = os.path.join(base, SNIPPET_NAME)
        fd = os.open(snippet, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                     | os.O_CLOEXEC, 0o600)
        with open(fd, "wb") as f:
            f.write(code)
        workdir = os.path.join(base, WORKDIR_NAME)
        os.mkdir(workdir, 0o700)
        written = place_inputs(workdir, inputs)
        if output_dir is not None:
            make_folder(workdir, output_dir)
        return snippet, workdir, written

    def _env(self, extra: Mapping[str, str] | None) -> dict[str, str]:
        env = {k: os.environ[k] for k in self.env_keep if k in os.environ}
        env.setdefault("PATH", SAFE_PATH)
        if extra:
            env.update(extra)
        return env

    async def _run_in(self, base: str, tool: str, info: BlobInfo,
                      code: bytes, prepared: tuple[str, str, dict[str, str]],
                      args: Sequence[str], timeout: float | None,
                      output_dir: str | None,
                      save_outputs_to: StrPath | None,
                      env: Mapping[str, str] | None,
                      include_inputs: bool, t0: float,
                      creds: Sequence[str] = (),
                      tests: Sequence[str] = (),
                      watch: bool = False
                      ) -> tuple[RunResult, str | None]:
        """The run in its prepared folder: its result, and what of the
        folder stayed (None: removed)."""
        snippet, workdir, written = prepared
        extra = ["--timeout", f"{timeout:g}"] if timeout is not None else []
        for word in creds:
            extra += ["--credential", word]
        extra += tests
        if watch:
            extra.append("--landlock-watch")

        # Cold: cordon [options] BLOB snippet args; warm: the same words
        # without the blob, sent to the pool (_submit.py).  --workdir:
        # cordon uses this existing folder and never removes it (the
        # client collects the outputs, then removes it).
        def words(status_fd: int) -> list[str]:
            return ["--status-fd", str(status_fd), "--workdir", workdir,
                    "--quiet", *extra]
        run_timeout = timeout if timeout is not None else \
            info.timeout_ms / 1000.0
        for attempt in (1, 2):
            command, pool = await self._command(
                tool, info, warm=False if creds or tests or watch else None)
            if pool is None:
                start = self._spawn_cold(
                    lambda fd: [*command[0], *words(fd), *command[1],
                                snippet, *args], env, base)
            else:
                start = self._submit(pool, base,
                                     [*words(WARM_STATUS_FD), snippet, *args])
            try:
                rc, out, err, raw_status = await self._launch(
                    start, run_timeout + BACKSTOP_MARGIN)
            except _submit.NotReached as e:
                # A pool that ended before this run reached it: nothing
                # ran, so the run is made once more, in a restarted pool.
                assert pool is not None
                if attempt == 1 and not pool.alive():
                    continue
                raise LauncherError(f"cordon: warm pool of tool {tool!r}: "
                                    f"{e.strerror}", EXIT_LAUNCHER) from None
            finally:
                self._release(pool)
            status = _parse_status(raw_status)
            break
        if status is None or status.get("outcome") == "error":
            # Only cordon's own words: under --quiet its stderr is the
            # snippet's, which may say anything ("cordon: ...").
            msg = (status or {}).get("reason") or "no status report"
            raise LauncherError(f"cordon failed for tool {tool!r} "
                                f"(exit {rc}): {msg}", rc, err[0], status)
        exclude = (frozenset() if include_inputs or output_dir else
                   frozenset(written.values())) | _CORDON_FILES
        (outputs, refused), left = await uncancellable(self._in_io(
            self._after, base, workdir, subdir=output_dir, exclude=exclude,
            limits=self.output_limits,
            save_dir=os.fspath(save_outputs_to) if save_outputs_to
            else None, skip=_snippet_copy(code),
            state=frozenset(info.workdir_state)))
        return self._result(tool, info, rc, status, out, err, outputs,
                            refused, t0), left

    def _spawn_cold(self, make_argv: Callable[[int], list[str]],
                    env: Mapping[str, str] | None, cwd: str
                    ) -> Callable[[int], Awaitable[Any]]:
        """How _launch starts a cold run: cordon spawned (in a thread)."""
        def start(status_w: int) -> Awaitable[Any]:
            return Process.start(make_argv, status_w=status_w,
                                 env=self._env(env), cwd=cwd,
                                 grace=self.grace, executor=self._spawner,
                                 pgroup=self._pgroup)
        return start

    def _submit(self, pool: _pool.Pool, cwd: str, words: list[str]
                ) -> Callable[[int], Awaitable[Any]]:
        """How _launch starts a warm run: the request sent to the pool
        straight from this process (_submit.py), on the loop's thread
        unless the pool's socket would block."""
        async def start(status_w: int) -> _submit.Submitted:
            try:
                return _submit.Submitted.start(pool.name, cwd, words,
                                               status_w, blocking=False)
            except BlockingIOError:
                pass
            return (await complete(asyncio.get_running_loop(
                ).run_in_executor(self._spawner, functools.partial(
                    _submit.Submitted.start, pool.name, cwd, words,
                    status_w, blocking=True))))[0]
        return start

    async def _launch(self, start: Callable[[int], Awaitable[Any]],
                      deadline: float
                      ) -> tuple[int, tuple[bytes, bool],
                                 tuple[bytes, bool], bytes]:
        """Start the run (start(status write end): a Process or a
        Submitted), read its output and status until it ends (or is
        ended, when the caller is cancelled or after deadline s): (exit
        status, stdout, stderr, raw status)."""
        rfd, wfd = os.pipe()            # both O_CLOEXEC
        status_pipe = os.fdopen(rfd, "rb", buffering=0)
        try:
            proc = await start(wfd)
        except BaseException:
            status_pipe.close()
            raise
        finally:
            os.close(wfd)
        try:
            out, err, raw_status = await self._supervise(proc, status_pipe,
                                                         deadline)
        except BaseException:
            await uncancellable(proc.terminate(self.grace))
            raise
        finally:
            proc.close()
        assert proc.returncode is not None
        return proc.returncode, out, (proc.said + err[0], err[1]), raw_status

    # -- warm pools -------------------------------------------------------

    async def _command(self, tool: str, info: BlobInfo,
                       warm: bool | None = None
                       ) -> tuple[_Command, _pool.Pool | None]:
        """The words before cordon's options and those between them and
        the snippet, and the warm pool used (released by _release).
        warm: the client's choice when None."""
        if self._guard is not None:
            try:
                self._guard.check()
            except Exception as e:
                raise LauncherError(str(e), None) from None
        mode = self.policies.known_mode(info)
        want = self.warm if warm is None else warm
        if want and mode is not None and not mode.warm_ok:
            if tool not in self._cold_said:
                self._cold_said.add(tool)
                log.warning("cordon: tool %r runs cold: a warm pool needs "
                            "namespaces, and here %s", tool, mode.reason)
            want = False
        if not want:
            return ([self.cordon, *self._priority_opts,
                     *(mode.options if mode else ())], [info.path]), None
        pool = self._acquire(tool, info)
        if pool is None:
            loop = asyncio.get_running_loop()
            locks = self._loop_locks.setdefault(loop, {})
            lock = locks.setdefault(tool, asyncio.Lock())
            async with lock:
                # Cancelled meanwhile, the start goes on in its thread and
                # the pool serves the next run.
                fut = loop.run_in_executor(self._spawner, self._start_pool,
                                           tool, info)
                try:
                    pool = await asyncio.shield(fut)
                except asyncio.CancelledError:
                    fut.add_done_callback(self._release_started)
                    raise
        return ([self.cordon, "--submit", pool.name], []), pool

    def _acquire(self, tool: str, info: BlobInfo) -> _pool.Pool | None:
        """The tool's pool if it is up and serves this blob (one more
        user), else None."""
        with self._pool_lock:
            if self._closed:
                raise LauncherError("the client is closed", None)
            pool = self._pools.get(tool)
            if pool is not None and pool.key == (info.path,
                                                 info.blob_digest) \
                    and pool.alive():
                pool.users += 1
                return pool
        return None

    def _release_started(self, fut: "asyncio.Future[_pool.Pool]") -> None:
        if not fut.cancelled() and fut.exception() is None:
            self._release(fut.result())

    def _release(self, pool: _pool.Pool | None) -> None:
        if pool is None:
            return
        with self._pool_lock:
            pool.users -= 1
            done = pool.retired and pool.users == 0
            if done:
                self._retired.discard(pool)
        if done:
            try:
                self._io.submit(pool.stop)
            except RuntimeError:
                pass            # closed: close() stopped every pool

    def _start_pool(self, tool: str, info: BlobInfo) -> _pool.Pool:
        """(In a worker thread.)  The tool's pool for this blob, started
        if there is none, it ended, or it serves another blob (which is
        stopped once its runs in flight are done)."""
        with self._pool_lock:
            start_lock = self._start_locks.setdefault(tool,
                                                      threading.Lock())
        with start_lock:
            pool = self._acquire(tool, info)
            if pool is not None:
                return pool             # started by another caller
            with self._pool_lock:
                old = self._pools.pop(tool, None)
                if old is not None and old.alive() and old.users > 0:
                    old.retired = True
                    self._retired.add(old)
                    old = None
            if old is not None:
                alive = old.alive()
                rc = old.stop()
                if alive:
                    log.info("warm pool %s of tool %r: blob changed, "
                             "stopped", old.name, tool)
                else:
                    log.warning("warm pool %s of tool %r ended (exit %s): "
                                "restarting it", old.name, tool, rc)
            new = _pool.Pool(self.cordon, tool, info.path, info.blob_digest,
                             self._env(None), self._priority_opts,
                             guard=self._guard)
            try:
                new.start(POOL_READY_TIMEOUT)
            except _pool.PoolStartError as e:
                raise LauncherError(f"warm pool for tool {tool!r} did not "
                                    f"start: {e}", e.exit_code,
                                    e.stderr) from None
            except BaseException:
                new.stop()
                raise
            with self._pool_lock:
                if self._closed:
                    closed = True
                else:
                    closed = False
                    new.users += 1
                    self._pools[tool] = new
            if closed:
                new.stop()
                raise LauncherError("the client is closed", None)
            return new

    async def _supervise(self, proc: Process, status_pipe: Any,
                         deadline: float
                         ) -> tuple[tuple[bytes, bool], tuple[bytes, bool],
                                    bytes]:
        """Read stdout, stderr and the status pipe while cordon runs."""
        tasks = [asyncio.ensure_future(read_pipe(proc.stdout,
                                                 self.stream_cap)),
                 asyncio.ensure_future(read_pipe(proc.stderr,
                                                 self.stream_cap)),
                 asyncio.ensure_future(read_pipe(status_pipe, STATUS_CAP))]
        try:
            try:
                async with asyncio.timeout(deadline):
                    await proc.wait()
            except asyncio.TimeoutError:
                raise LauncherError(
                    f"cordon did not end {deadline:.0f}s after start: "
                    "terminated", None) from None
            # cordon has exited, its descendants are gone: EOF follows.
            done, pending = await asyncio.wait(tasks,
                                               timeout=DRAIN_AFTER_EXIT)
            res = [t.result() if t in done else (b"", True) for t in tasks]
            return res[0], res[1], res[2][0]
        finally:
            for t in tasks:
                if not t.done():
                    t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            status_pipe.close()

    def _result(self, tool: str, info: BlobInfo, rc: int,
                status: dict[str, Any],
                out: tuple[bytes, bool], err: tuple[bytes, bool],
                outputs: dict[str, OutputFile],
                refused: list[RefusedOutput], t0: float) -> RunResult:
        cut = status.get("output_truncated") is True
        return RunResult(
            tool=tool,
            outcome=Outcome.parse(status.get("outcome")),
            reason=str(status.get("reason", "")),
            exit_code=rc,
            signal=_int(status, "signal"),
            stdout=out[0], stderr=err[0],
            stdout_truncated=out[1] or cut
            or _int(status, "stdout_bytes") > len(out[0]),
            stderr_truncated=err[1] or cut
            or _int(status, "stderr_bytes") > len(err[0]),
            timings=Timings(wall_ms=_int(status, "wall_ms"),
                            user_ms=_int(status, "user_ms"),
                            sys_ms=_int(status, "sys_ms"),
                            max_rss_kb=_int(status, "max_rss_kb"),
                            client_ms=(time.monotonic() - t0) * 1000.0),
            layers=Layers.from_status(status.get("layers")),
            policy=str(status.get("policy", info.name)),
            blob=str(status.get("blob", info.blob_digest)),
            outputs=outputs, refused=tuple(refused), status=status,
            denials=denials_from_status(status),
            denials_dropped=(status.get("denials_dropped") or 0)
            if isinstance(status.get("denials_dropped"), int) else 0)

    # -- sessions (cordon.session) ----------------------------------------

    # Live sessions at once per client; the next is refused (SessionLimit).
    max_sessions = 8

    def session(self, tool: str, *, timeout: float | None = None,
                cell_timeout: float | None = None,
                idle_timeout: float | None = None,
                env: Mapping[str, str] | None = None,
                warm: bool | None = None) -> Any:
        """A Session: successive cells in one sandboxed interpreter under
        TOOL's policy (one run; see cordon.session).  timeout: the
        session's maximum age (the policy's session bound when None; a
        longer one is refused at the start, SessionRefused); cell_timeout:
        each cell's default (the policy's timeout when None; never more);
        idle_timeout: seconds without
        a cell before the session is ended.  warm: the run is a spare of
        the tool's warm pool (cordon --submit --stdin; the preloads
        already imported) or a cold one; None: warm when the client is
        (Client(warm=True)) and env is None (a warm run's environment is
        its pool's).  Session.warm says which.  Use ``async with``."""
        from . import session as _session
        if timeout is not None and not timeout > 0:
            raise ValueError("timeout must be > 0 seconds")
        return _session.Session(
            self, tool, timeout=timeout,
            cell_timeout=cell_timeout,
            idle_timeout=idle_timeout or _session.DEFAULT_IDLE_TIMEOUT,
            env=env, warm=warm)

    def session_sync(self, tool: str, **kw: Any) -> Any:
        """Blocking form of session() (its event loop in a thread of its
        own): ``with client.session_sync(TOOL) as s: s.run(cell)``."""
        from . import session as _session
        if kw.get("timeout") is not None and not kw["timeout"] > 0:
            raise ValueError("timeout must be > 0 seconds")
        kw.setdefault("cell_timeout", None)
        kw["idle_timeout"] = kw.get("idle_timeout") or \
            _session.DEFAULT_IDLE_TIMEOUT
        kw.setdefault("timeout", None)
        kw.setdefault("env", None)
        kw.setdefault("warm", None)
        return _session.SyncSession(self, tool, **kw)

    def session_opened(self, s: Any) -> None:
        from .session import SessionLimit
        with self._pool_lock:
            live = self.__dict__.setdefault("_sessions", set())
            if self._closed:
                raise LauncherError("the client is closed", None)
            if len(live) >= self.max_sessions:
                raise SessionLimit(f"{len(live)} sessions live: the "
                                   f"client's maximum is "
                                   f"{self.max_sessions}")
            live.add(s)

    def live_sessions(self) -> int:
        """How many of this client's sessions are live now."""
        with self._pool_lock:
            return len(self.__dict__.get("_sessions", ()))

    def session_closed(self, s: Any) -> None:
        with self._pool_lock:
            self.__dict__.setdefault("_sessions", set()).discard(s)

    # -- the interface a Session uses (session.SessionHost) ---------------
    # Public names for the run machinery above, so that session.py calls
    # no private method of Client.

    def in_io(self, fn: Callable[..., T], *args: Any,
              **kwargs: Any) -> "asyncio.Future[T]":
        """fn(*args, **kwargs) on the client's file-work threads."""
        return self._in_io(fn, *args, **kwargs)

    async def command(self, tool: str, info: BlobInfo,
                      warm: bool | None = None
                      ) -> tuple[_Command, _pool.Pool | None]:
        """The launcher's words for a run of TOOL, and the warm pool it
        uses (None: cold), released by release()."""
        return await self._command(tool, info, warm)

    def release(self, pool: _pool.Pool | None) -> None:
        """A run of the pool ended (a retired pool may stop now)."""
        self._release(pool)

    @property
    def pgroup(self) -> int | None:
        """The process group every cordon this client starts joins (a
        guardian's: cordon-mcp ends them all when it dies), or None."""
        return self._pgroup

    def run_env(self, extra: Mapping[str, str] | None) -> dict[str, str]:
        """The environment cordon is started with (env_keep, PATH, extra)."""
        return self._env(extra)

    @staticmethod
    def remove_run_dir(base: str) -> str | None:
        """Remove a run folder; what stays, logged, or None."""
        return Client._remove(base)

    def result(self, tool: str, info: BlobInfo, rc: int,
               status: dict[str, Any],
               out: tuple[bytes, bool], err: tuple[bytes, bool],
               outputs: dict[str, OutputFile],
               refused: list[RefusedOutput], t0: float) -> RunResult:
        """A RunResult from cordon's status and what the client read."""
        return self._result(tool, info, rc, status, out, err, outputs,
                            refused, t0)
