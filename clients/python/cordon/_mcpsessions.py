"""cordon-mcp's sessions: run_code's sessions by id, each one run of
cordon --stdin (cordon.session), under one --max-sessions bound over the
cold and the warm client."""
from __future__ import annotations

import asyncio
import dataclasses
from typing import TYPE_CHECKING, Any

from . import _mcptools as tools
from . import session as sess
from .client import Client
from .errors import CordonError

if TYPE_CHECKING:
    from ._mcpconfig import Config


class SessionRefused(Exception):
    """A session cannot take the cell (the limit, ended, did not start):
    a tool error (isError), said to the model."""


@dataclasses.dataclass
class _Live:
    tool: str
    session: sess.Session
    ready: "asyncio.Future[None]"       # its start


class Sessions:
    """run_code's sessions by id: each one client.session(tool), started
    on first use and ended by end_session, its own idle timeout or maximum
    age, a cancelled cell, or the server's end.  An ended one's id is
    kept, so the next call with it hears why, until room is needed."""

    def __init__(self, client: Client, warm: Client | None,
                 cfg: Config) -> None:
        client.max_sessions = cfg.max_sessions      # session.py's own cap
        if warm is not None:
            warm.max_sessions = cfg.max_sessions
        self.client, self.warm, self.cfg = client, warm, cfg
        self.live: dict[str, _Live] = {}
        self.ending: set["asyncio.Future[Any]"] = set()

    def _taken(self) -> int:
        """Sessions that hold a place: live, or starting (a start holds
        its place from its first call, before any await, so that starts
        asked at once cannot pass the bound together)."""
        return sum(1 for e in self.live.values() if not _over(e))

    def _start(self, sid: str, tool: str) -> _Live:
        if self._taken() >= self.cfg.max_sessions:
            raise SessionRefused(f"session {sid!r} not started: "
                                 f"{self._taken()} sessions live or "
                                 "starting: the maximum is "
                                 f"{self.cfg.max_sessions} (max_sessions; "
                                 "end_session one first)")
        if len(self.live) >= 2 * self.cfg.max_sessions:
            for k, e in list(self.live.items()):
                if e.ready.done() and e.session.end_reason:
                    del self.live[k]
        client = self.warm if self.warm is not None and \
            tool in self.cfg.warm else self.client
        other = self.warm if client is self.client else self.client
        # One cap over both clients: the other's live ones take room.
        client.max_sessions = self.cfg.max_sessions - (
            other.live_sessions() if other else 0)
        s = client.session(
            tool, timeout=self.cfg.session_max_age or None,
            idle_timeout=self.cfg.session_idle,
            cell_timeout=None)      # the policy's timeout
        e = _Live(tool, s, asyncio.ensure_future(s.start()))
        self.live[sid] = e
        return e

    def _forget(self, sid: str, e: _Live) -> None:
        if self.live.get(sid) is e:
            del self.live[sid]

    async def get(self, sid: str, tool: str) -> _Live:
        e = self.live.get(sid) or self._start(sid, tool)
        if e.tool != tool:
            raise tools.bad(f"session: {sid!r} runs under {e.tool!r}, not "
                            f"{tool!r} (end_session it, or use another id)")
        try:
            await asyncio.shield(e.ready)
        except Exception as ex:         # the id is free again, whatever
            self._forget(sid, e)
            if isinstance(ex, sess.SessionLimit):
                raise SessionRefused(f"session {sid!r} not started: {ex} "
                                     "(max_sessions; end_session one "
                                     "first)") from None
            if isinstance(ex, sess.SessionRefused):
                raise SessionRefused(f"session {sid!r} not started: "
                                     f"{ex}") from None
            if isinstance(ex, CordonError):
                raise SessionRefused(f"session {sid!r} did not start: "
                                     f"{ex}") from None
            raise
        if e.session.end_reason or self.live.get(sid) is not e:
            self._forget(sid, e)
            raise SessionRefused(f"session {sid!r} has ended "
                                 f"({e.session.end_reason or 'ended'}): its "
                                 "state is gone; call again to start a new "
                                 "one")
        return e

    async def run(self, sid: str, tool: str, code: str,
                  timeout: float | None,
                  files: dict[str, bytes]) -> sess.CellResult:
        e = await self.get(sid, tool)
        if timeout is None:             # a cell: the policy's, or less
            timeout = min(e.session.cell_timeout or self.cfg.max_timeout,
                          self.cfg.max_timeout)
        try:
            cell = await e.session.run(code, timeout=timeout, inputs=files)
        except sess.SessionRefused as ex:
            raise SessionRefused(f"session {sid!r}: {ex}") from None
        except asyncio.CancelledError:
            # The cell is interrupted and the session kept (session.py);
            # one that cannot be ends, its end_reason "cancelled: ...".
            raise
        except sess.SessionEnded as ex:
            self._forget(sid, e)
            raise SessionRefused(f"session {sid!r} has ended ({ex.reason})"
                                 ": its state is gone; call again to start "
                                 "a new one") from None
        if cell.session_ended:
            self._forget(sid, e)
        return cell

    def end(self, sid: str) -> "asyncio.Future[Any]":
        """Forget the session and close it (in a task of its own, which
        close_all waits for)."""
        e = self.live.pop(sid)
        t = asyncio.ensure_future(self._close(e))
        self.ending.add(t)
        t.add_done_callback(self.ending.discard)
        return t

    @staticmethod
    async def _close(e: _Live) -> Any:
        try:
            await e.ready
        except Exception:
            return None                 # it did not start: nothing to end
        return await e.session.close()

    async def close_all(self) -> None:
        for sid in list(self.live):
            self.end(sid)
        await asyncio.gather(*list(self.ending), return_exceptions=True)


def _over(e: _Live) -> bool:
    """Whether a session has ended (or never started)."""
    if not e.ready.done():
        return False
    return e.ready.cancelled() or e.ready.exception() is not None or \
        bool(e.session.end_reason)
