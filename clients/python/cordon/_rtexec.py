"""cordon-runtime's runs: an execute is one cordon run (Client.arun)
under a policy of the set given at the start, the workspace copied in
(inputs=, no link followed) and what the run wrote copied back (its
collected outputs, through outputs.py's guards); or one cell of a
session (Client.session: one cordon --session run, state kept between
cells).  Bounded: runs at once (--max-runs), runs waiting
(--max-queue), sessions (--max-sessions)."""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import secrets
from typing import Any, AsyncIterator, Mapping

from . import _rtfiles as files
from . import session as sess
from ._rtparse import Bad, Execute
from .client import Client
from .errors import CordonError, InputError, LauncherError, PolicyError

log = logging.getLogger("cordon.runtime")


@dataclasses.dataclass
class Bounds:
    max_runs: int = 4
    max_queue: int = 16
    max_sessions: int = 8


@dataclasses.dataclass
class _Live:
    policy: str
    session: sess.Session


class Runs:
    def __init__(self, client: Client, policies: list[str], root: str,
                 lim: files.Limits, bounds: Bounds,
                 credentials: Mapping[str, Mapping[str, Any]]) -> None:
        self.client, self.policies, self.root = client, policies, root
        self.lim, self.bounds = lim, bounds
        self.credentials = credentials      # policy -> {NAME: Path}
        client.max_sessions = bounds.max_sessions
        self.sem = asyncio.Semaphore(bounds.max_runs)
        self.busy = 0                       # running and waiting
        self.sessions: dict[str, _Live] = {}

    def policy(self, name: str | None) -> str:
        if name is None:
            return self.policies[0]
        if name not in self.policies:
            raise Bad(f"policy {name[:64]!r} is not served here: "
                      f"{', '.join(self.policies)}", 404)
        return name

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """A place among --max-runs runs (waiting among --max-queue for
        one); 503 past both."""
        if self.busy >= self.bounds.max_runs + self.bounds.max_queue:
            raise Bad(f"{self.busy} runs running or waiting: the maximum "
                      f"is {self.bounds.max_runs} running and "
                      f"{self.bounds.max_queue} waiting (--max-runs, "
                      "--max-queue); retry later", 503)
        self.busy += 1
        try:
            async with self.sem:
                yield
        finally:
            self.busy -= 1

    async def code_of(self, ex: Execute) -> str:
        if ex.code is not None:
            return ex.code
        assert ex.file is not None
        try:
            data, _ = await asyncio.to_thread(
                files.read_file, self.root, ex.file,
                dataclasses.replace(self.lim, max_file=1 << 20))
            return data.decode("utf-8")
        except UnicodeDecodeError:
            raise Bad(f"{ex.file[:100]!r} is not UTF-8 text") from None
        except files.Refused as e:
            raise Bad(f"{ex.file[:100]!r}: {e.message}", e.status) from None

    async def execute(self, ex: Execute) -> dict[str, Any]:
        if ex.session is not None:
            return await self.cell(ex)
        policy = self.policy(ex.policy)
        code = await self.code_of(ex)
        async with self.slot():
            try:
                # An empty workspace (one look, no thread) copies nothing.
                inputs, before = ({}, {}) if files.empty(self.root) \
                    else await asyncio.to_thread(files.inputs, self.root,
                                                 self.lim)
            except files.Refused as e:
                raise Bad(e.message, e.status) from None
            try:
                r = await self.client.arun(
                    policy, code, inputs=inputs, args=ex.args,
                    timeout=ex.timeout, include_inputs=True,
                    credentials=self.credentials.get(policy) or None)
            except InputError as e:
                raise Bad(f"the workspace: {e}", 403) from None
            except PolicyError as e:
                raise Bad(f"policy {policy!r}: {e}", 503) from None
            except LauncherError as e:
                # cordon refused the run (exit 125: a missing credential,
                # an option) or ended without a status: said as a run's
                # result, the python-runtime's way, in cordon's words.
                return {"stdout": "", "stderr": f"cordon: {e}\n",
                        "exit_code": e.exit_code if e.exit_code is not None
                        else 125, "outcome": "error", "reason": str(e),
                        "policy": policy, "files_refused": []}
            failed = await asyncio.to_thread(
                files.write_back, self.root, dict(r.outputs), before) \
                if r.outputs else []
        refused = [f"{o.name}: {o.reason}" for o in r.refused
                   if not o.expected]
        outcome = getattr(r.outcome, "value", str(r.outcome))
        note = "" if r.ok else f"cordon: {outcome}: {r.reason}\n"
        return {"stdout": r.stdout.decode("utf-8", "replace"),
                "stderr": r.stderr.decode("utf-8", "replace") + note,
                "exit_code": r.exit_code,
                "outcome": outcome,
                "reason": r.reason, "policy": policy,
                "warm": bool(r.status.get("warm")),
                "files_refused": refused + failed}

    # -- sessions --------------------------------------------------------

    async def open(self, policy: str | None) -> dict[str, Any]:
        name = self.policy(policy)
        live = sum(1 for e in self.sessions.values()
                   if e.session.result is None)
        if live >= self.bounds.max_sessions:
            raise Bad(f"{live} sessions live: the maximum is "
                      f"{self.bounds.max_sessions} (--max-sessions); end "
                      "one (DELETE /sessions/ID)", 503)
        s = self.client.session(name)
        sid = secrets.token_urlsafe(16)
        self.sessions[sid] = _Live(name, s)
        try:
            await s.start()
        except (CordonError, sess.SessionError) as e:
            del self.sessions[sid]
            raise Bad(f"the session did not start: {e}", 503) from None
        return {"session": sid, "policy": name,
                "max_age_seconds": s.max_age}

    def _live(self, sid: str) -> _Live:
        e = self.sessions.get(sid)
        if e is None:
            raise Bad("no such session (ended, or never made): POST "
                      "/sessions makes one", 404)
        return e

    async def close(self, sid: str) -> dict[str, Any]:
        e = self._live(sid)
        del self.sessions[sid]
        await e.session.close()
        return {"session": sid, "end_reason": e.session.end_reason}

    async def cell(self, ex: Execute) -> dict[str, Any]:
        assert ex.session is not None
        e = self._live(ex.session)
        if ex.args:
            raise Bad("a session's cell takes no arguments")
        if ex.policy is not None and ex.policy != e.policy:
            raise Bad(f"session {ex.session[:40]!r} runs policy "
                      f"{e.policy!r}, not {ex.policy[:64]!r}")
        code = await self.code_of(ex)
        async with self.slot():
            try:
                c = await e.session.run(code, timeout=ex.timeout)
            except sess.SessionEnded as err:
                self.sessions.pop(ex.session, None)
                raise Bad(f"the session has ended: {err.reason}", 410) \
                    from None
            except sess.SessionRefused as err:
                raise Bad(str(err), 422) from None
        failed = []
        for f in c.files:
            if f.truncated:
                failed.append(f"{f.name}: {f.size} bytes, only the first "
                              f"{len(f.data)} came back: not written")
                continue
            try:
                await asyncio.to_thread(files.write_file, self.root,
                                        f.name, f.data)
            except (files.Refused, OSError) as err:
                failed.append(f"{f.name}: {getattr(err, 'message', err)}")
        if c.session_ended:
            self.sessions.pop(ex.session, None)
        return {"stdout": c.stdout,
                "stderr": c.stderr + (c.error or "") +
                (f"cordon: the session ended: {c.end_reason}\n"
                 if c.session_ended else ""),
                "exit_code": 0 if c.ok else 1, "value": c.value,
                "timed_out": c.timed_out, "session": ex.session,
                "session_ended": c.session_ended,
                "end_reason": c.end_reason, "policy": e.policy,
                "files_refused": failed}

    async def close_all(self) -> None:
        for sid in list(self.sessions):
            e = self.sessions.pop(sid)
            with contextlib.suppress(Exception):
                await e.session.close()

    async def sweep(self) -> None:
        """Forget sessions that ended by themselves (idle, age)."""
        while True:
            await asyncio.sleep(30)
            for sid, e in list(self.sessions.items()):
                if e.session.result is not None:
                    self.sessions.pop(sid, None)
