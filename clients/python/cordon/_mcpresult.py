"""cordon-mcp's results: a run or a session's cell as a tools/call result,
its facts the same in the text content and in structuredContent (hosts
read one or the other), sized by _mcpsize (see cordon-mcp(1), RESULTS
and REFUSALS)."""
from __future__ import annotations

from typing import Any

from . import _mcpsize as size
from .result import Outcome, RunResult
from .session import CellResult

# The protocol revision from which tools declare an output schema and
# results carry structuredContent.
STRUCTURED_FROM = "2025-06-18"
# A session cell's file content sent, at most (_sessiondrv.FILE_BYTES).
CELL_FILE_BYTES = 64 << 10


def structured(version: str) -> bool:
    return version >= STRUCTURED_FROM


def outcome_name(r: RunResult) -> str:
    o = r.outcome
    return o.value if isinstance(o, Outcome) else str(o)


def _order(names: list[str]) -> list[str]:
    """Images first (the reply's budget goes to them before other
    files), then by name."""
    return sorted(names, key=lambda n: (not n.lower().endswith(
        (".png", ".jpg", ".jpeg", ".svg")), n))


def _texts(facts: list[str], streams: list[tuple[str, bytes]],
           limits: size.Limits) -> tuple[list[str], str]:
    """The streams clipped to the text budget, and the report: facts,
    then each stream that has something under its heading."""
    shown = size.clip_all(streams, limits.text_bytes)
    return shown, "\n".join(facts) + _body(streams, shown)


def _body(streams: list[tuple[str, bytes]], shown: list[str]) -> str:
    return "".join(f"\n--- {name} ---\n" + text
                   for (name, raw), text in zip(streams, shown) if raw)


def _finish(facts: list[str], body: str, sizer: size.Sizer,
            ok: bool) -> tuple[dict[str, Any], list[str]]:
    """content: the report (facts, the files in words, the streams), then
    what the sizer kept (images, texts, resources)."""
    lines = facts + size.file_line(sizer.files)
    return {"content": [{"type": "text", "text": "\n".join(lines) + body},
                        *sizer.content], "isError": not ok}, lines


def _run_facts(r: RunResult) -> list[str]:
    lines = [f"outcome: {outcome_name(r)} (exit {r.exit_code}"
             + (f", signal {r.signal}" if r.signal else "") + ")"]
    if r.reason:
        lines.append(f"reason: {r.reason}")
    for name, cut in (("stdout", r.stdout_truncated),
                      ("stderr", r.stderr_truncated)):
        if cut:
            lines.append(f"{name} was truncated (the policy's output cap)")
    if r.denials is None:
        lines.append("denials: not observed")
    return lines + r.summary()


def _report(r: RunResult, limits: size.Limits = size.Limits()) -> str:
    return _texts(_run_facts(r), [("stdout", r.stdout),
                                  ("stderr", r.stderr)], limits)[1]


def run_result(r: RunResult, version: str,
               limits: size.Limits = size.Limits()) -> dict[str, Any]:
    """A run as a tools/call result; isError when it did not exit 0.
    The same facts in the text content and in structuredContent (hosts
    read one or the other: cordon-mcp(1), RESULTS)."""
    facts = _run_facts(r)
    streams = [("stdout", r.stdout), ("stderr", r.stderr)]
    (out, err), text = _texts(facts, streams, limits)
    sizer = size.Sizer(limits, 2 * size.json_len(text))
    for name in _order(list(r.outputs)):
        f = r.outputs[name]
        e = sizer.offer(name, f.size, f.data)
        e["kind"] = f.kind
    res, lines = _finish(facts, _body(streams, [out, err]), sizer, r.ok)
    if structured(version):
        res["structuredContent"] = {
            "tool": r.tool, "ok": r.ok, "outcome": outcome_name(r),
            "reason": r.reason, "exit_code": r.exit_code,
            "signal": r.signal, "stdout": out, "stderr": err,
            "stdout_bytes": len(r.stdout), "stderr_bytes": len(r.stderr),
            "stdout_truncated": r.stdout_truncated,
            "stderr_truncated": r.stderr_truncated,
            "summary": lines,
            "denials": None if r.denials is None else [
                {"syscall": d.syscall, "call": d.call, "action": d.action,
                 "rule": d.rule, "count": d.count, "expected": d.expected}
                for d in r.denials],
            "denials_dropped": r.denials_dropped,
            "network_refused": [
                {"dest": n.dest, "method": n.method, "path": n.path,
                 "why": n.why} for n in r.network_refused],
            "wall_ms": r.timings.wall_ms, "warm": r.status.get("warm") is True,
            "files": sizer.files,
            "refused": [{"name": x.name, "reason": x.reason,
                         "expected": x.expected} for x in r.refused],
            "policy": r.policy, "blob": r.blob}
    return res


def cell_outcome(c: CellResult) -> str:
    return ("session_ended" if c.session_ended else "timeout"
            if c.timed_out else "exception" if c.error is not None
            else "completed")


def _cell_facts(c: CellResult, sid: str) -> list[str]:
    lines = [f"session {sid}, cell {c.seq}: {cell_outcome(c)}"]
    if c.session_ended:
        lines.append(f"the session ended: {c.end_reason} (its state is "
                     "gone; the next call with this id starts a new one)")
        if c.run is not None:
            lines.append(f"the session's run: {outcome_name(c.run)} "
                         f"({c.run.reason})")
            lines += c.run.summary()
    return lines


def _cell_streams(c: CellResult) -> list[tuple[str, bytes]]:
    return [(name, (body or "").encode("utf-8", "replace"))
            for name, body in (("stdout", c.stdout), ("stderr", c.stderr),
                               ("value", c.value), ("error", c.error))]


def cell_result(c: CellResult, tool: str, sid: str,
                version: str, limits: size.Limits = size.Limits()
                ) -> dict[str, Any]:
    """A session's cell as a tools/call result; isError when it raised,
    timed out or ended the session."""
    facts = _cell_facts(c, sid)
    streams = _cell_streams(c)
    shown, text = _texts(facts, streams, limits)
    sizer = size.Sizer(limits, 2 * size.json_len(text))
    byname = {f.name: f for f in c.files}
    for name in _order(list(byname)):
        f = byname[name]
        sizer.offer(name, f.size, f.data, cut=(
            f"too large for a session cell ({size.megabytes(f.size)}; a "
            f"cell sends files up to {size.megabytes(CELL_FILE_BYTES)}: "
            "run it without a session, or make it smaller)"
            if f.truncated else ""))
    ok = c.ok and not c.timed_out
    res, lines = _finish(facts, _body(streams, shown), sizer, ok)
    if structured(version):
        sc: dict[str, Any] = {
            "tool": tool, "ok": ok, "outcome": cell_outcome(c),
            "session": sid, "seq": c.seq, "stdout": shown[0],
            "stderr": shown[1], "value": shown[2] if c.value is not None
            else None, "timed_out": c.timed_out,
            "session_ended": c.session_ended, "end_reason": c.end_reason,
            "reason": c.run.reason if c.run is not None else "",
            "summary": lines, "files": sizer.files}
        if c.error is not None:
            sc["error"] = shown[3]
        res["structuredContent"] = sc
    return res


def ended_result(sid: str, reason: str, run: RunResult | None
                 ) -> dict[str, Any]:
    """end_session's answer: what the session's run came to."""
    text = f"session {sid} ended ({reason})"
    if run is not None:
        text += "\n" + _report(run)
    return {"content": [{"type": "text", "text": text}], "isError": False}
