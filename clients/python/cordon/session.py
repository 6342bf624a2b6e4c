"""Sessions: successive cells in one sandboxed interpreter.

A session is ONE ordinary cordon run whose snippet is _sessiondrv.py:
cold (``cordon --stdin --session POLICY DRIVER``), or, when the client
is warm, a spare of the tool's warm pool (``cordon --submit @POOL
--stdin --session DRIVER``: the preloads already imported; cordon relays
the session's stdin to the run after its arguments).  Every layer and
whole-run bound (memory, processes, disk) and the status apply as to any
run of either kind; the run's wall-clock bound is the policy's session
statement (else its timeout), its maximum age, and a longer
session(timeout=) is refused at the start, never capped.  Each cell is
bounded by the policy's per-run limits: its timeout (the driver's timer)
and its output cap (the driver cuts a cell's output past it and the
session goes on).  Session.warm says which kind it is (and the status's
"warm").
Cells go in on the run's stdin; results come back as frames on its
stdout.  Everything in a frame comes from inside the sandbox (a cell
shares the driver's interpreter and can forge frames): frames are parsed
strictly, with bounded sizes, and can only affect the session's own cell
results; the facts (outcome, denials, bounds) come from cordon's status
at the end (Session.result).

    async with client.session("code_gen") as s:
        r = await s.run("x = 1")
        r = await s.run("x + 1")        # r.value == "2"

    python3 -m cordon.session [--warm] TOOL < cells   (cells separated
    by a line "#%%"; one JSON object per cell on stdout, the status
    last; --warm: in a pool started for it)
"""
from __future__ import annotations

import asyncio
import base64
import binascii
import dataclasses
import json
import os
import sys
import threading
import time
from typing import Any, Awaitable, Callable, Mapping, Protocol

from . import _fs
from ._status import parse_status
from .errors import CordonError, InputError
from .inputs import encode_inputs
from .result import RunResult

# The protocol's one definition is the driver's (imported, not copied).
from ._sessiondrv import CELL, FRAME, HEAD_DIGITS, INTERRUPT, header
from ._sessiondrv import REQ_MAX as REQUEST_MAX

FRAME_MAX = 24 << 20            # one frame's JSON, at most
# An hour: a person who answers the agent half an hour later finds the
# session's state.  The session's maximum age (the policy's `session`
# statement) ends it first where that is shorter.
DEFAULT_IDLE_TIMEOUT = 3600.0
# For tests only: a factor in (0, 1] that shortens every session's idle
# clock (0.001: an hour's idle timeout in 3.6 s), so that a test proves
# what a long idle keeps in seconds.  It never lengthens a clock, and the
# session's age (cordon's --timeout, kept by cordon) is not scaled.
CLOCK_SCALE_ENV = "CORDON_TEST_CLOCK_SCALE"
CELL_GRACE = 2.0                # past a cell's timeout: the session ends
READY_TIMEOUT = 60.0            # the driver's first frame
DEFAULT_MAX_SESSIONS = 8        # live sessions per client
DRIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                      "_sessiondrv.py")


class SessionHost(Protocol):
    """What a Session needs of the client that made it: Client's public
    interface (client.py, "the interface a Session uses"); this module
    imports nothing of client.py's."""
    warm: bool
    check_kernel: bool
    work_root: str
    grace: float
    stream_cap: int
    policies: Any
    pgroup: int | None          # the guardian's process group, or None

    def in_io(self, fn: Callable[..., Any], *args: Any,
              **kwargs: Any) -> Awaitable[Any]: ...

    async def command(self, tool: str, info: Any,
                      warm: bool | None = None) -> tuple[Any, Any]: ...

    def release(self, pool: Any) -> None: ...

    def run_env(self, extra: Mapping[str, str] | None
                ) -> dict[str, str]: ...

    def remove_run_dir(self, base: str) -> str | None: ...

    def result(self, tool: str, info: Any, rc: int, status: dict[str, Any],
               out: tuple[bytes, bool], err: tuple[bytes, bool],
               outputs: dict[str, Any], refused: list[Any],
               t0: float) -> RunResult: ...

    def session_opened(self, s: Any) -> None: ...

    def session_closed(self, s: Any) -> None: ...


class SessionError(CordonError):
    """The session cannot take a cell (ended, too many live sessions)."""


class SessionRefused(SessionError):
    """A request the policy does not allow (a session longer than its
    session bound, a cell longer than its timeout): refused, the session
    (if any) unchanged."""


class SessionLimit(SessionError):
    """The client already holds its maximum number of live sessions."""


class SessionEnded(SessionError):
    """The session has ended; ``reason`` says why, ``result`` is the run's
    RunResult (cordon's status) when it is known."""

    def __init__(self, reason: str, result: RunResult | None) -> None:
        super().__init__(f"session ended: {reason}")
        self.reason = reason
        self.result = result


@dataclasses.dataclass(frozen=True)
class CellFile:
    name: str
    size: int
    data: bytes                 # the first bytes only (bounded)

    @property
    def truncated(self) -> bool:
        return len(self.data) < self.size


@dataclasses.dataclass(frozen=True)
class CellResult:
    """One cell: as reported by the driver (inside the sandbox), except
    session_ended/end_reason/run, which the client decided.
    output_truncated: the cell's output passed the policy's output cap
    (per cell) and was cut; the session went on."""
    seq: int
    stdout: str
    stderr: str
    value: str | None           # repr of a final expression, None: none
    error: str | None           # the traceback, as a cold run prints it
    timed_out: bool
    files: tuple[CellFile, ...]
    session_ended: bool = False
    end_reason: str = ""
    run: RunResult | None = None    # the run's result once it ended
    output_truncated: bool = False
    cancelled: bool = False     # interrupted by a cancel (CellCancelled)

    @property
    def ok(self) -> bool:
        return self.error is None and not self.session_ended


class _Bad(Exception):
    """A frame broke the protocol."""


def _str(d: Mapping[str, Any], key: str, cap: int) -> str:
    v = d.get(key)
    if not isinstance(v, str) or len(v) > cap:
        raise _Bad(key)
    return v


def _opt_str(d: Mapping[str, Any], key: str, cap: int) -> str | None:
    return None if d.get(key) is None else _str(d, key, cap)


def _files(raw: Any) -> tuple[CellFile, ...]:
    if not isinstance(raw, list) or len(raw) > 256:
        raise _Bad("files")
    out = []
    for f in raw:
        if not isinstance(f, dict) or set(f) != {"name", "size", "data"}:
            raise _Bad("file")
        size = f["size"]
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise _Bad("size")
        try:
            data = base64.b64decode(_str(f, "data", 1 << 20),
                                    validate=True)
        except binascii.Error:
            raise _Bad("data") from None
        out.append(CellFile(_str(f, "name", 4096), size, data[:size]))
    return tuple(out)


def _cell(d: Mapping[str, Any], seq: int) -> CellResult:
    got = d.get("seq")
    if type(got) is not int or got != seq or \
            not isinstance(d.get("timed_out"), bool):
        raise _Bad("seq")
    return CellResult(seq=seq, stdout=_str(d, "stdout", 8 << 20),
                      stderr=_str(d, "stderr", 8 << 20),
                      value=_opt_str(d, "value", 64 << 10),
                      error=_opt_str(d, "error", 1 << 20),
                      timed_out=d["timed_out"], files=_files(d.get("files")),
                      output_truncated=d.get("output_truncated") is True,
                      cancelled=d.get("cancelled") is True)


class Session:
    """Made by Client.session(); use as ``async with``."""

    def __init__(self, client: "SessionHost", tool: str, *,
                 timeout: float | None,
                 cell_timeout: float | None, idle_timeout: float,
                 env: Mapping[str, str] | None,
                 warm: bool | None = None) -> None:
        if warm and env:
            raise ValueError("a warm session's environment is its "
                             "pool's: env= needs warm=False")
        self.client = client
        # A spare of the tool's warm pool, or a cold run.
        self.warm = bool(client.warm and not env) if warm is None \
            else bool(warm)
        self._pool: Any = None          # the pool used, while live
        self.tool = tool
        self.timeout = timeout
        self.cell_timeout = cell_timeout
        self.idle_timeout = idle_timeout
        self.env = env
        self.result: RunResult | None = None    # once ended
        self.end_reason = ""
        self._proc: asyncio.subprocess.Process | None = None
        self._seq = 0
        self._lock = asyncio.Lock()
        self._idle: asyncio.TimerHandle | None = None
        self._base: str | None = None
        self._status_r = -1
        self._err_task: asyncio.Task[bytes] | None = None
        self._t0 = 0.0
        self._scale = 1.0               # clock_scale(), read at start
        self._ending: asyncio.Future[None] | None = None
        # A cancelled cell's end, awaited before the next cell.
        self._cancelled: asyncio.Future[None] | None = None
        self.last_cancelled: CellResult | None = None   # its result
        self.max_age = 0.0              # seconds, once started

    async def __aenter__(self) -> "Session":
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self) -> None:
        c = self.client
        c.session_opened(self)
        try:
            await self._start()
        except BaseException:
            await self._finish("start failed")
            raise

    async def _start(self) -> None:
        c = self.client
        self._scale = clock_scale()
        self._t0 = time.monotonic()
        info = await c.in_io(c.policies.check if c.check_kernel else
                              c.policies.load, self.tool)
        self._info = info
        self._bounds(info)
        self._base = await c.in_io(_fs.make_private_dir, c.work_root,
                                    f"cordon-session-{self.tool}-")
        workdir = os.path.join(self._base, "work")
        os.mkdir(workdir, 0o700)
        self.workdir = workdir         # the run's (on the host)
        with open(DRIVER, "rb") as f:
            self._code = f.read()
        snippet = os.path.join(self._base, "session.py")
        with open(snippet, "wb") as f:
            f.write(self._code)
        # Cold: cordon [priority] --stdin ... BLOB DRIVER; warm: cordon
        # --submit @POOL --stdin ... DRIVER (the pool's blob, priority).
        command, self._pool = await c.command(self.tool, info, self.warm)
        rfd, wfd = os.pipe()
        self._status_r = rfd
        extra = ["--timeout", f"{self.timeout:g}"] if self.timeout else []
        argv = [*command[0], "--stdin", "--session", "--status-fd",
                str(wfd),
                "--workdir", workdir, "--quiet", *extra, *command[1],
                snippet]
        try:
            self._proc = await asyncio.create_subprocess_exec(
                *argv, stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE, pass_fds=(wfd,),
                env=c.run_env(self.env), cwd=self._base, limit=FRAME_MAX,
                process_group=c.pgroup)
        finally:
            os.close(wfd)
        assert self._proc.stderr is not None
        self._err_task = asyncio.ensure_future(
            self._proc.stderr.read(c.stream_cap))
        try:
            ready = await asyncio.wait_for(self._frame(self._proc),
                                           READY_TIMEOUT)
        except (asyncio.TimeoutError, _Bad):
            ready = None
        if ready != {"ready": True}:
            await self._finish("the driver did not start")
            raise SessionEnded(self.end_reason, self.result)
        self._arm_idle()

    def _bounds(self, info: Any) -> None:
        """Refuse what the policy does not allow, before anything runs:
        a session longer than its session bound, a cell default longer
        than its timeout.  None: the policy's."""
        age, per_run = info.session_max_ms / 1000, info.timeout_ms / 1000
        if self.timeout and self.timeout > age:
            raise SessionRefused(
                f"session of {self.timeout:g}s refused: {self.tool!r}'s "
                f"policy lets a session live {age:g}s at most (its "
                "`session` statement, else its timeout); ask for less, or "
                "have the policy say more")
        if self.cell_timeout is None:
            self.cell_timeout = per_run
        elif self.cell_timeout > per_run:
            raise SessionRefused(
                f"cell timeout of {self.cell_timeout:g}s refused: "
                f"{self.tool!r}'s policy bounds each run (each cell) at "
                f"{per_run:g}s")
        self.max_age = self.timeout or age

    def _arm_idle(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        loop = asyncio.get_running_loop()
        self._idle = loop.call_later(
            self.idle_timeout * self._scale, lambda: asyncio.ensure_future(
                self._finish("idle timeout")))

    @staticmethod
    async def _frame(proc: asyncio.subprocess.Process) -> dict[str, Any]:
        """proc's next frame, parsed strictly; _Bad otherwise.  (proc, not
        self._proc: the session may end while a cell waits.)"""
        assert proc.stdout is not None
        rd = proc.stdout
        try:
            head = await rd.readexactly(len(FRAME) + HEAD_DIGITS + 1)
        except asyncio.IncompleteReadError:
            raise _Bad("eof") from None
        if head[:len(FRAME)] != FRAME or head[-1:] != b"\n":
            raise _Bad("header")
        hexlen = head[len(FRAME):-1]
        if not all(ch in b"0123456789abcdef" for ch in hexlen):
            raise _Bad("length")
        n = int(hexlen, 16)
        if n > FRAME_MAX:
            raise _Bad("size")
        try:
            d = json.loads(await rd.readexactly(n))
        except (asyncio.IncompleteReadError, ValueError):
            raise _Bad("json") from None
        if not isinstance(d, dict):
            raise _Bad("json")
        return d

    async def run(self, code: str, *, timeout: float | None = None,
                  inputs: Mapping[str, Any] | None = None) -> CellResult:
        """Run one cell; cancelling the task interrupts the cell
        (CellCancelled) and keeps the session when the cell stops within
        CELL_GRACE s; its timeout (default cell_timeout) interrupts it
        and keeps the session when the cell lets the driver's SIGALRM
        through; when not, after CELL_GRACE s the session is ended and the
        result says so.  inputs: files written into the workdir first (as
        a run's, cordon.inputs; relative paths, no link followed), not
        listed among the cell's files.  Raises SessionEnded when it had
        ended before, InputError for a bad input."""
        files = {n: base64.b64encode(b).decode("ascii")
                 for n, b in encode_inputs(inputs or {}).items()}
        size = len(json.dumps({"code": code, "files": files}))
        if size > REQUEST_MAX - 4096:   # room for seq and timeout
            raise InputError(f"the cell's code and inputs are {size} bytes "
                             f"as sent, over the request's {REQUEST_MAX}")
        async with self._lock:
            if self._cancelled is not None:
                await asyncio.shield(self._cancelled)
                self._cancelled = None
            proc = self._proc
            if proc is None:
                raise SessionEnded(self.end_reason or "not started",
                                   self.result)
            if self._idle is not None:
                self._idle.cancel()
            self._seq += 1
            seq = self._seq
            t = timeout if timeout is not None else self.cell_timeout
            if not t > 0:
                raise ValueError("timeout must be > 0 seconds")
            if t > self._info.timeout_ms / 1000:
                self._seq -= 1
                self._arm_idle()
                raise SessionRefused(
                    f"cell timeout of {t:g}s refused: {self.tool!r}'s "
                    f"policy bounds each cell at "
                    f"{self._info.timeout_ms / 1000:g}s; the session goes on")
            body = json.dumps({"seq": seq, "code": code, "timeout": t,
                               "output": self._info.output_cap,
                               "files": files}).encode()

            assert proc.stdin is not None
            try:
                proc.stdin.write(header(CELL, len(body)) + body)
                await proc.stdin.drain()
                if self._proc is not proc:      # ended while it was sent
                    raise _Bad("the session ended")
                async with asyncio.timeout(t + CELL_GRACE):
                    d = await self._frame(proc)
                cell = _cell(d, seq)
            except asyncio.TimeoutError:
                why = (f"cell {seq} did not stop within its {t:g}s "
                       f"timeout (+{CELL_GRACE:g}s grace)")
                stuck = True
            except (_Bad, OSError) as e:
                why = (f"cell {seq}: the driver's frames broke off or were "
                       f"malformed ({e}); see the run's status")
                stuck = False
            except asyncio.CancelledError:
                # Interrupt the cell (the driver's CellCancelled) and keep
                # the session; the next cell waits for it to stop.
                self._cancelled = asyncio.ensure_future(
                    self._interrupt(proc, seq))
                raise
            else:
                self._arm_idle()
                return cell
            await self._finish(why, stuck=stuck)
            return CellResult(seq, "", "", None, None, True, (), True,
                              self.end_reason, self.result)

    async def _interrupt(self, proc: asyncio.subprocess.Process,
                         seq: int) -> None:
        """A cancelled cell: ask the driver to interrupt it and read its
        frame; the session ends, and says why, when it cannot."""
        body = json.dumps({"seq": seq}).encode()
        try:
            assert proc.stdin is not None
            proc.stdin.write(header(INTERRUPT, len(body)) + body)
            await proc.stdin.drain()
            d = await asyncio.wait_for(self._frame(proc), CELL_GRACE)
            self.last_cancelled = _cell(d, seq)
            self._arm_idle()
            return
        except asyncio.TimeoutError:
            why = (f"cancelled: cell {seq} was cancelled and did not stop "
                   f"within {CELL_GRACE:g}s of its interrupt; the session "
                   "ended")
            stuck = True
        except (_Bad, OSError, AssertionError) as e:
            why = (f"cancelled: cell {seq} was cancelled and its session "
                   f"could not be kept ({e}); the session ended")
            stuck = False
        await self._finish(why, stuck=stuck)

    async def close(self) -> RunResult | None:
        """End the session (EOF to the driver) and return the run's
        RunResult (cordon's status); None if cordon gave none."""
        await self._finish("closed")
        return self.result

    async def _finish(self, reason: str, stuck: bool = False) -> None:
        """End the session once (the idle timer, a cell and close() may
        all ask); every caller waits for the same end."""
        if self._ending is None:
            self._ending = asyncio.ensure_future(self._end(reason, stuck))
        await asyncio.shield(self._ending)

    async def _end(self, reason: str, stuck: bool) -> None:
        proc, self._proc = self._proc, None
        if self._idle is not None:
            self._idle.cancel()
            self._idle = None
        if proc is not None:
            self.end_reason = reason
            if proc.stdin is not None:
                proc.stdin.close()
            try:
                if stuck:       # the driver cannot read the EOF
                    raise asyncio.TimeoutError
                await asyncio.wait_for(proc.wait(), self.client.grace)
            except asyncio.TimeoutError:
                proc.terminate()
                try:
                    await asyncio.wait_for(proc.wait(), self.client.grace)
                except asyncio.TimeoutError:
                    proc.kill()
                    await proc.wait()
            await self._collect(proc)
        if self._status_r >= 0:
            os.close(self._status_r)
            self._status_r = -1
        pool, self._pool = self._pool, None
        self.client.release(pool)      # a retired pool may stop now
        if self._base is not None:
            base, self._base = self._base, None
            await self.client.in_io(self.client.remove_run_dir, base)
        self.client.session_closed(self)

    async def _collect(self, proc: asyncio.subprocess.Process) -> None:
        err = await self._err_task if self._err_task else b""
        try:
            rest = await proc.stdout.read() if proc.stdout else b""
        except RuntimeError:    # a cell is reading it: the frames are its
            rest = b""
        raw = await self.client.in_io(_read_status, self._status_r)
        status = parse_status(raw)
        words = end_words(status, self.max_age)
        if words and self.end_reason.startswith("cell ") and \
                "frames broke off" in self.end_reason:
            # What the status says, in words, then what the client saw.
            self.end_reason = f"{words} ({self.end_reason})"
        if status is None or status.get("outcome") == "error":
            self.result = None
            if reason_launcher(status):
                self.end_reason += f"; cordon: {reason_launcher(status)}"
            elif err.strip():       # a pool's refusal, say: no status
                self.end_reason += "; " + err.decode(
                    "utf-8", "replace").strip()[-500:]
            return
        assert proc.returncode is not None
        # stdout carried the frames (the cells' output is in each
        # CellResult): the run's stdout is what followed the last frame.
        res = self.client.result(
            self.tool, self._info, proc.returncode, status, (rest, False),
            (err, False), {}, [], self._t0)
        self.result = dataclasses.replace(
            res, stdout_truncated=status.get("output_truncated") is True)


class SyncSession:
    """Blocking form of Session (client.session_sync()): the session's
    event loop runs in a thread of its own, so the idle timeout holds
    between calls.  Use as ``with``."""

    def __init__(self, client: Any, tool: str, **kw: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever,
                                        name="cordon-session", daemon=True)
        self._thread.start()
        self.session = Session(client, tool, **kw)

    def _call(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self._loop).result()

    def start(self) -> None:
        self._call(self.session.start())

    def run(self, code: str, *, timeout: float | None = None,
            inputs: Mapping[str, Any] | None = None) -> CellResult:
        return self._call(self.session.run(code, timeout=timeout,
                                           inputs=inputs))

    def close(self) -> RunResult | None:
        try:
            return self._call(self.session.close())
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join()
            self._loop.close()

    @property
    def result(self) -> RunResult | None:
        return self.session.result

    @property
    def end_reason(self) -> str:
        return self.session.end_reason

    def __enter__(self) -> "SyncSession":
        try:
            self.start()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _read_status(fd: int) -> bytes:
    raw = b""
    while len(raw) <= 1 << 20:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        raw += chunk
    return raw


def clock_scale() -> float:
    """CORDON_TEST_CLOCK_SCALE's factor (1 without it); a value that is
    not a number in (0, 1] is refused, never taken for another."""
    raw = os.environ.get(CLOCK_SCALE_ENV, "")
    if not raw:
        return 1.0
    try:
        f = float(raw)
    except ValueError:
        f = 0.0
    if not 0 < f <= 1:
        raise SessionError(f"{CLOCK_SCALE_ENV}={raw!r}: a factor in "
                           "(0, 1] is needed (it only shortens the idle "
                           "clock; for tests)")
    return f


def end_words(status: Mapping[str, Any] | None, max_age: float) -> str:
    """How a session's run ended, in words, from cordon's status ("" when
    it just exited: the reason the client chose stands)."""
    if not status:
        return ""
    out = status.get("outcome")
    why = str(status.get("reason", ""))
    words = {
        "timeout": f"age: the session reached its maximum age of "
                   f"{max_age:g}s (the policy's session bound, or "
                   "session(timeout=)) and was ended",
        "output_limit": "output: the run's raw stderr (writes that "
                        "bypass the cell's sys.stdout, e.g. a subprocess) "
                        "passed the policy's output cap over the session",
        "oom": "memory: the session passed its memory bound and was killed",
        # RLIMIT_CPU is the kernel's, per process and cumulative: over a
        # session it bounds every cell together, never one cell.
        "cpu_limit": "cpu: the session's interpreter used up the policy's "
                     "`limit cpu`, which counts CPU time over the whole "
                     f"session, every cell together, not each cell ({why}); "
                     "the session ended",
        "disk_limit": "disk: the session's files passed its disk bound",
        "seccomp": f"killed: a refused system call ({why})",
        "signaled": f"killed: the interpreter died ({why})",
        "interrupted": f"killed: cordon was signalled from outside ({why})",
    }
    if out in words:
        return words[out]
    if out == "exited" and status.get("exit_code") not in (0, None):
        return f"exited: the interpreter exited ({why})"
    return ""


def reason_launcher(status: Mapping[str, Any] | None) -> str:
    return str((status or {}).get("reason", ""))


if __name__ == "__main__":
    # python3 -m cordon.session: the command line is _sessioncli's (it
    # makes a Client; this module never imports client.py).
    from cordon._sessioncli import main
    sys.exit(main(sys.argv))
