"""cordon-mcp's tools: their schemas, the checks of their arguments, and
a run's result as MCP content (see cordon-mcp(1))."""
from __future__ import annotations

import base64
import binascii
import functools
import importlib.util
import json
import re
import subprocess
from typing import Any, Mapping, NamedTuple

from . import _mcpsize as size
from ._jsonrpc import INVALID_PARAMS, RpcError
from .blob import BlobInfo
from .result import Outcome, RunResult
from .session import CellResult

MAX_CODE = 1 << 20          # bytes of one snippet
MAX_FILES = 64              # input files of one call
EXPLAIN_TIMEOUT = 30.0      # seconds for cordonc explain --json
# A session id: chosen by the client, echoed in logs and results, so short
# and plain (no path, no control character).
MAX_SESSION_ID = 64
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,%d}"
                        % (MAX_SESSION_ID - 1))
# A session cell's file content sent, at most (_sessiondrv.FILE_BYTES).
CELL_FILE_BYTES = 64 << 10
# Common packages a model reaches for: the tool description says which
# of them the server's Python has (the policies' python3, by default),
# so that a model does not write `import seaborn` on a host without it.
COMMON_PACKAGES = ("numpy", "pandas", "scipy", "matplotlib", "PIL",
                   "requests", "pydicom", "nibabel", "SimpleITK", "sklearn",
                   "seaborn", "skimage", "statsmodels", "torch", "monai",
                   "radiomics")
# Saves the figures still open when a snippet ends, as a notebook shows
# them (plt.show() under the Agg backend a headless run has draws
# nothing): appended to run_code's snippet, after the model's last line,
# so its line numbers stay; pyplot imported by the snippet only.
FIGURES_EPILOGUE = """

def _cordon_mcp_figures():  # cordon-mcp: open figures come back (cordon-mcp(1))
    import os, sys
    plt = sys.modules.get("matplotlib.pyplot")
    for n in plt.get_fignums() if plt is not None else ():
        name = "figure-%d.png" % n
        try:
            if not os.path.exists(name):
                plt.figure(n).savefig(name)
        except Exception as e:
            print("cordon-mcp: figure %d not saved: %s" % (n, e),
                  file=sys.stderr)
    if plt is not None:
        plt.close("all")
_cordon_mcp_figures()
"""
# The protocol revision from which tools declare an output schema and
# results carry structuredContent.
STRUCTURED_FROM = "2025-06-18"

_DENIAL = {"type": "object", "properties": {
    "syscall": {"type": "string"}, "call": {"type": "string"},
    "action": {"type": "string"}, "rule": {"type": "string"},
    "count": {"type": "integer"}, "expected": {"type": "boolean"}}}
_FILE = {"type": "object", "properties": {
    "name": {"type": "string"}, "bytes": {"type": "integer"},
    "kind": {"type": "string"},
    "returned": {"type": ["string", "null"]},   # image, text, resource
    "mimeType": {"type": "string"}, "text": {"type": "string"},
    "reason": {"type": "string"}}, "required": ["name", "bytes"]}
RUN_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "tool": {"type": "string"},
        "ok": {"type": "boolean"},
        "outcome": {"type": "string"},
        "reason": {"type": "string"},
        "exit_code": {"type": "integer"},
        "signal": {"type": "integer"},
        "stdout": {"type": "string"},
        "stderr": {"type": "string"},
        "stdout_truncated": {"type": "boolean"},
        "stderr_truncated": {"type": "boolean"},
        "denials": {"type": ["array", "null"], "items": _DENIAL},
        "denials_dropped": {"type": "integer"},
        "wall_ms": {"type": "integer"},
        "warm": {"type": "boolean"},
        "stdout_bytes": {"type": "integer"},
        "stderr_bytes": {"type": "integer"},
        # The report's lines (outcome, refusals, files), as in content.
        "summary": {"type": "array", "items": {"type": "string"}},
        "network_refused": {"type": "array", "items": {
            "type": "object", "properties": {
                "dest": {"type": "string"}, "method": {"type": "string"},
                "path": {"type": "string"}, "why": {"type": "string"}}}},
        "files": {"type": "array", "items": _FILE},
        "refused": {"type": "array", "items": {"type": "object",
                    "properties": {"name": {"type": "string"},
                                   "reason": {"type": "string"},
                                   "expected": {"type": "boolean"}}}},
        "policy": {"type": "string"},
        "blob": {"type": "string"},
        "error": {"type": "string"},
        # A session's cell (run_code with session): outcome is completed,
        # exception, timeout or session_ended.
        "session": {"type": "string"},
        "seq": {"type": "integer"},
        "value": {"type": ["string", "null"]},
        "timed_out": {"type": "boolean"},
        "session_ended": {"type": "boolean"},
        "end_reason": {"type": "string"},
    },
    "required": ["tool", "ok", "outcome"],
}
POLICIES_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"policies": {"type": "array", "items": {
        "type": "object", "properties": {
            "name": {"type": "string"}, "description": {"type": "string"},
            "network": {"type": "string"},
            "timeout_s": {"type": "number"}},
        "required": ["name", "description"]}}},
    "required": ["policies"],
}
EXPLAIN_OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string"}, "description": {"type": "string"},
        "network": {"type": "object"}, "paths": {"type": "array"},
        "limits": {"type": "array"}, "timeout_ms": {"type": "integer"},
        "output_cap": {"type": "integer"}, "env": {"type": "array"},
        "command": {"type": "array"},
        "syscalls": {"type": "object"},
    },
    "required": ["name", "paths", "syscalls"],
}


def structured(version: str) -> bool:
    return version >= STRUCTURED_FROM


def limits(text_bytes: int) -> size.Limits:
    return size.Limits(text_bytes=text_bytes)


_FIND = ("import importlib.util as u\nfor m in %r:\n"
         "    print(m if u.find_spec(m) else '')" % (COMMON_PACKAGES,))


@functools.lru_cache(maxsize=8)
def installed(python: str | None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """COMMON_PACKAGES the policy's interpreter has (found, not imported;
    -E -s as the policies run it), and those it has not; this Python's
    when the interpreter is not known or cannot say."""
    names: set[str] | None = None
    if python:
        try:
            p = subprocess.run([python, "-E", "-s", "-c", _FIND],
                               capture_output=True, timeout=EXPLAIN_TIMEOUT,
                               stdin=subprocess.DEVNULL)
            if p.returncode == 0:
                names = set(p.stdout.decode("utf-8", "replace").split())
        except (OSError, subprocess.SubprocessError):
            names = None
    if names is None:
        names = {m for m in COMMON_PACKAGES
                 if importlib.util.find_spec(m) is not None}
    have = tuple(m for m in COMMON_PACKAGES if m in names)
    return have, tuple(m for m in COMMON_PACKAGES if m not in names)


@functools.lru_cache(maxsize=64)
def _explained(cordonc: str, blob: str, digest: str) -> dict[str, Any]:
    return explain(cordonc, blob)


def _view(info: BlobInfo, cordonc: str | None) -> dict[str, Any] | None:
    if not cordonc:
        return None
    try:
        return _explained(cordonc, info.path, info.blob_digest)
    except (OSError, RuntimeError, ValueError, KeyError,
            subprocess.SubprocessError):
        return None


def _python(infos: Mapping[str, BlobInfo], cordonc: str | None) -> str | None:
    """The interpreter the policies run (the first one's command)."""
    for n in sorted(infos):
        view = _view(infos[n], cordonc)
        cmd = view["command"] if view else []
        if cmd and "python" in cmd[0].rsplit("/", 1)[-1]:
            return str(cmd[0])
    return None


def network_words(info: BlobInfo, cordonc: str | None) -> str:
    """What a policy's network reaches, in words: its named hosts when
    cordonc can say them."""
    if info.network == "off":
        return "no network"
    view = _view(info, cordonc)
    hosts = view["network"].get("hosts") if view else None
    if not hosts:
        return "network as the policy says (explain_policy)"
    return ("HTTPS only to " + ", ".join(
        h["host"] + ("" if h.get("port") == 443 else f":{h.get('port')}")
        for h in hosts) + " (through cordon's proxy; any other host is "
        "refused, and the result says so)")


def run_description(infos: Mapping[str, BlobInfo],
                    cordonc: str | None, lim: size.Limits) -> str:
    have, lack = installed(_python(infos, cordonc))
    pols = "; ".join(f"{n}: {infos[n].description} ({network_words(infos[n], cordonc)}, "
                     f"timeout {infos[n].timeout_ms / 1000:g} s)"
                     for n in sorted(infos))
    return (
        "Run a Python 3 snippet in a cordon sandbox (seccomp, Landlock, "
        "namespaces, limits). Each call without `session` starts fresh: "
        "no variable, import or file of an earlier call is there; with "
        "`session` the code is a cell of one interpreter that keeps them. "
        "Imports: the standard library and the packages installed here"
        + (f" ({', '.join(have)})" if have else "")
        + (f"; not installed: {', '.join(lack)}" if lack else "")
        + ". Files the snippet writes in its working folder come back: "
        f"PNG, JPEG and SVG as images (up to {size.megabytes(lim.image_bytes)}"
        f" and {lim.image_side} pixels a side), UTF-8 text as text, others "
        f"as embedded resources up to {size.megabytes(lim.resource_bytes)}; "
        "what does not fit is listed with the reason. Matplotlib figures "
        "saved with plt.savefig, or still open at the end (plt.show()), "
        "come back as images. stdout and stderr are shown up to "
        f"{lim.text_bytes:,} bytes (head and tail; what is left out is "
        "said). Policies: " + pols)


def tool_list(infos: Mapping[str, BlobInfo], max_timeout: float,
              version: str, cordonc: str | None = None,
              lim: size.Limits = size.Limits()) -> list[dict[str, Any]]:
    """tools/list's tools for the exposed policies."""
    names = sorted(infos)
    which = "; ".join(f"{n}: {infos[n].description}" for n in names)
    tool_prop = {"type": "string", "enum": names,
                 "description": "the policy to run under (" + which + ")"}
    session_prop = {"type": "string",
                    "pattern": "^" + SESSION_ID.pattern + "$",
                    "maxLength": MAX_SESSION_ID,
                    "description": "run the code as a cell of the session "
                    "with this id (chosen by you; started on first use, "
                    "under this tool): variables, imports and files stay "
                    "between calls with the same id until end_session"}
    file_val = {"type": "object", "oneOf": [
        {"properties": {"text": {"type": "string"}}, "required": ["text"],
         "additionalProperties": False},
        {"properties": {"base64": {"type": "string"}},
         "required": ["base64"], "additionalProperties": False}]}
    tools = [
        {"name": "run_code",
         "title": "Run Python in a cordon sandbox",
         "description": run_description(infos, cordonc, lim),
         "inputSchema": {
             "type": "object",
             "properties": {
                 "code": {"type": "string", "description": "Python source"},
                 "tool": tool_prop,
                 "timeout": {"type": "number", "exclusiveMinimum": 0,
                             "maximum": max_timeout,
                             "description": "wall-clock seconds (default: "
                                            "the policy's)"},
                 "files": {"type": "object", "additionalProperties":
                           file_val, "description": "input files placed in "
                           "the working folder: name (as the Python "
                           "client's inputs= takes it) -> {text} or "
                           "{base64} (not with session)"},
                 "session": session_prop,
             },
             "required": ["code", "tool"], "additionalProperties": False},
         "outputSchema": RUN_OUTPUT_SCHEMA,
         "annotations": {"readOnlyHint": False, "destructiveHint": False,
                         "openWorldHint": False}},
        {"name": "list_policies",
         "title": "List the cordon policies",
         "description": "The policies run_code may run under, with their "
                        "descriptions.",
         "inputSchema": {"type": "object", "properties": {},
                         "additionalProperties": False},
         "outputSchema": POLICIES_OUTPUT_SCHEMA,
         "annotations": {"readOnlyHint": True}},
        {"name": "explain_policy",
         "title": "What a cordon policy may touch",
         "description": "A short summary of what one policy lets a "
                        "snippet do: the network (its hosts), the paths and "
                        "rights, the limits and timeout, the system calls "
                        "counted (cordonc explain lists them).",
         "inputSchema": {"type": "object", "properties": {"tool": tool_prop},
                         "required": ["tool"],
                         "additionalProperties": False},
         "outputSchema": EXPLAIN_OUTPUT_SCHEMA,
         "annotations": {"readOnlyHint": True}},
        {"name": "end_session",
         "title": "End a cordon session",
         "description": "End the session run_code started under this id: "
                        "its interpreter, state and files are gone.",
         "inputSchema": {"type": "object",
                         "properties": {"session": session_prop},
                         "required": ["session"],
                         "additionalProperties": False},
         "annotations": {"readOnlyHint": False, "destructiveHint": True,
                         "idempotentHint": False, "openWorldHint": False}},
    ]
    if not structured(version):
        for t in tools:
            t.pop("outputSchema", None)
            del t["title"]
    return tools


def bad(msg: str) -> RpcError:
    return RpcError(INVALID_PARAMS, msg)


def no_extra(args: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    extra = sorted(set(args) - set(allowed))
    if extra:
        raise bad(f"unknown argument(s): {', '.join(extra)}")


def pick_tool(args: Mapping[str, Any], exposed: Mapping[str, Any]) -> str:
    tool = args.get("tool")
    if not isinstance(tool, str):
        raise bad("tool: a policy name (a string) is required")
    if tool not in exposed:
        raise bad(f"tool: {tool!r} is not one of the exposed policies "
                  f"({', '.join(sorted(exposed))})")
    return tool


class RunArgs(NamedTuple):
    tool: str
    code: str
    timeout: float | None
    files: dict[str, bytes]
    session: str | None


def session_id(args: Mapping[str, Any]) -> str:
    sid = args.get("session")
    if not isinstance(sid, str) or not SESSION_ID.fullmatch(sid):
        raise bad(f"session: an id of 1 to {MAX_SESSION_ID} letters, "
                  "digits and _.:- (starting with a letter or digit) is "
                  "required")
    return sid


def run_args(args: Mapping[str, Any], exposed: Mapping[str, Any],
             max_timeout: float, max_input: int) -> RunArgs:
    """run_code's arguments checked."""
    no_extra(args, ("code", "tool", "timeout", "files", "session"))
    tool = pick_tool(args, exposed)
    code = args.get("code")
    if not isinstance(code, str):
        raise bad("code: a string is required")
    if len(_utf8("code", code)) > MAX_CODE:
        raise bad(f"code: longer than {MAX_CODE} bytes")
    timeout = args.get("timeout")
    if timeout is not None:
        if isinstance(timeout, bool) or not isinstance(timeout,
                                                       (int, float)):
            raise bad("timeout: a number of seconds is required")
        if not 0 < timeout <= max_timeout:
            raise bad(f"timeout: must be > 0 and <= {max_timeout:g} s")
        timeout = float(timeout)
    sid = session_id(args) if "session" in args else None
    if sid is None:         # a session's driver saves a cell's figures
        code += FIGURES_EPILOGUE
    return RunArgs(tool, code, timeout, _files(args.get("files"), max_input),
                   sid)


def _utf8(what: str, s: str) -> bytes:
    try:
        return s.encode("utf-8")
    except UnicodeEncodeError:
        raise bad(f"{what}: not valid Unicode text (a lone surrogate)") \
            from None


def _files(raw: Any, max_input: int) -> dict[str, bytes]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise bad("files: an object name -> {text} or {base64} is required")
    if len(raw) > MAX_FILES:
        raise bad(f"files: more than {MAX_FILES} files")
    out: dict[str, bytes] = {}
    total = 0
    for name, val in raw.items():
        if not isinstance(val, dict) or len(val) != 1 or \
                not isinstance(next(iter(val.values())), str):
            raise bad(f"files[{name!r}]: {{\"text\": ...}} or "
                      "{\"base64\": ...} is required")
        (kind, s), = val.items()
        if kind == "text":
            data = _utf8(f"files[{name!r}]", s)
        elif kind == "base64":
            try:
                data = base64.b64decode(s, validate=True)
            except (binascii.Error, ValueError):
                raise bad(f"files[{name!r}]: not valid base64") from None
        else:
            raise bad(f"files[{name!r}]: {kind!r}: text or base64 expected")
        total += len(data)
        if total > max_input:
            raise bad(f"files: more than {max_input} bytes in all")
        out[name] = data
    return out


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


def _cell_report(c: CellResult, sid: str,
                 limits: size.Limits = size.Limits()) -> str:
    return _texts(_cell_facts(c, sid), _cell_streams(c), limits)[1]


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


def failure(tool: str, msg: str, version: str) -> dict[str, Any]:
    """A run that could not be made (the launcher failed): isError."""
    res: dict[str, Any] = {"content": [{"type": "text", "text": msg}],
                           "isError": True}
    if structured(version):
        res["structuredContent"] = {"tool": tool, "ok": False,
                                    "outcome": "error", "error": msg}
    return res


def policies_result(infos: Mapping[str, BlobInfo],
                    version: str) -> dict[str, Any]:
    pols = [{"name": n, "description": i.description, "network": i.network,
             "timeout_s": i.timeout_ms / 1000.0}
            for n, i in sorted(infos.items())]
    text = "\n".join(f"{p['name']}: {p['description']} (network "
                     f"{p['network']}, timeout {p['timeout_s']:g} s)"
                     for p in pols)
    res: dict[str, Any] = {"content": [{"type": "text", "text": text}],
                           "isError": False}
    if structured(version):
        res["structuredContent"] = {"policies": pols}
    return res


def explain(cordonc: str, blob: str) -> dict[str, Any]:
    """(Thread.)  What a policy may touch, from cordonc explain --json:
    the views an agent reads (the BPF's numbers left out)."""
    p = subprocess.run([cordonc, "explain", "--json", blob],
                       capture_output=True, timeout=EXPLAIN_TIMEOUT,
                       stdin=subprocess.DEVNULL)
    if p.returncode != 0:
        raise RuntimeError("cordonc explain failed: "
                           + p.stderr.decode("utf-8", "replace")[-1000:])
    d = json.loads(p.stdout)
    sysc: dict[str, int] = {}
    for rule in d["seccomp"]["rules"]:
        sysc[rule["action"]] = sysc.get(rule["action"], 0) + 1
    lay = d["layers"]
    net = {k: lay[k] for k in ("network", "connect", "bind", "hosts")
           if k in lay}
    return {"name": d["policy"]["name"],
            "description": d["policy"]["description"],
            "network": net,
            "paths": [{"path": x["path"], "rights": x["text"],
                       "optional": x["optional"]} for x in d["paths"]],
            "private_tmp": lay.get("private_tmp"),
            "limits": [{"resource": x["resource"], "value": x["text"]}
                       for x in d["limits"]],
            "timeout_ms": d["timeout_ms"], "output_cap": d["output_cap"],
            "command": d["argv"],
            # Counted, not listed: the lists are thousands of characters
            # a model has no use for (cordonc explain prints them).
            "syscalls": {"default": d["seccomp"]["default"],
                         "rules": sysc}}


def explain_result(view: dict[str, Any], version: str) -> dict[str, Any]:
    """A policy in a few lines a model can act on."""
    net = view["network"]
    hosts = net.get("hosts") or []
    if net.get("network") == "off":
        words = "none"
    elif hosts:
        words = ("HTTPS only to " + ", ".join(
            f"{h['host']}:{h['port']}" for h in hosts)
            + " (through cordon's proxy)")
    else:
        words = "TCP: connect " + json.dumps(net.get("connect")) + \
            ", bind " + json.dumps(net.get("bind"))
    rw = [p["path"] for p in view["paths"] if "w" in p["rights"]
          or "write" in p["rights"] or "make" in p["rights"]]
    ro = [p["path"] for p in view["paths"] if p["path"] not in rw]
    lines = [f"policy {view['name']}: {view['description']}",
             f"network: {words}",
             "writable: " + ", ".join(
                 f"{p['path']} {p['rights']}" for p in view["paths"]
                 if p["path"] in rw)
             + (", /tmp (private)" if view.get("private_tmp") else ""),
             f"readable: {len(ro)} paths (" + ", ".join(ro[:12])
             + (", ..." if len(ro) > 12 else "") + ")",
             "limits: " + ", ".join(f"{x['resource']} {x['value']}"
                                    for x in view["limits"]),
             f"timeout: {view['timeout_ms'] / 1000:g} s, output cap: "
             f"{view['output_cap']:,} bytes",
             "command: " + " ".join(view["command"]),
             "system calls: " + ", ".join(
                 f"{n} {a}" for a, n in view["syscalls"]["rules"].items())
             + f"; any other: {view['syscalls']['default']} "
             "(cordonc explain lists them)"]
    res: dict[str, Any] = {"content": [{"type": "text",
                                        "text": "\n".join(lines)}],
                           "isError": False}
    if structured(version):
        res["structuredContent"] = view
    return res
