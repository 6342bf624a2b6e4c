"""cordon-mcp's tools: their schemas, the checks of their arguments, and
a run's result as MCP content (see cordon-mcp(1))."""
from __future__ import annotations

import base64
import binascii
import json
import re
import subprocess
from typing import Any, Mapping, NamedTuple

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
IMAGE_TYPES = ((".png", "image/png", (b"\x89PNG\r\n\x1a\n",)),
               (".jpg", "image/jpeg", (b"\xff\xd8\xff",)),
               (".jpeg", "image/jpeg", (b"\xff\xd8\xff",)),
               (".svg", "image/svg+xml", ()))
# The protocol revision from which tools declare an output schema and
# results carry structuredContent.
STRUCTURED_FROM = "2025-06-18"

_DENIAL = {"type": "object", "properties": {
    "syscall": {"type": "string"}, "call": {"type": "string"},
    "action": {"type": "string"}, "rule": {"type": "string"},
    "count": {"type": "integer"}}}
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
        "files": {"type": "array", "items": {"type": "object", "properties": {
            "name": {"type": "string"}, "bytes": {"type": "integer"},
            "kind": {"type": "string"}}, "required": ["name", "bytes"]}},
        "refused": {"type": "array", "items": {"type": "object",
                    "properties": {"name": {"type": "string"},
                                   "reason": {"type": "string"}}}},
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
        "command": {"type": "array"}, "preload": {"type": "array"},
        "syscalls": {"type": "object"},
    },
    "required": ["name", "paths", "syscalls"],
}


def structured(version: str) -> bool:
    return version >= STRUCTURED_FROM


def tool_list(infos: Mapping[str, BlobInfo], max_timeout: float,
              version: str) -> list[dict[str, Any]]:
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
         "description": "Run a Python snippet under a named cordon policy "
                        "(seccomp, Landlock, namespaces, limits). Files it "
                        "writes in its working folder come back; PNG, "
                        "JPEG and SVG ones as images. Policies: " + which,
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
         "description": "The paths and rights, network, limits, environment "
                        "and system calls of one policy (cordonc explain).",
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


def _image_type(name: str, data: bytes) -> str | None:
    low = name.lower()
    for suffix, mime, magics in IMAGE_TYPES:
        if not low.endswith(suffix):
            continue
        if magics and not any(data.startswith(m) for m in magics):
            return None
        if not magics and b"<svg" not in data[:4096]:
            return None
        return mime
    return None


def outcome_name(r: RunResult) -> str:
    o = r.outcome
    return o.value if isinstance(o, Outcome) else str(o)


def _report(r: RunResult) -> str:
    lines = [f"outcome: {outcome_name(r)} (exit {r.exit_code}"
             + (f", signal {r.signal}" if r.signal else "") + ")"]
    if r.reason:
        lines.append(f"reason: {r.reason}")
    for name, cut in (("stdout", r.stdout_truncated),
                      ("stderr", r.stderr_truncated)):
        if cut:
            lines.append(f"{name} was truncated (the output cap)")
    if r.denials is None:
        lines.append("denials: not observed")
    elif r.denials:
        lines.append("denied:")
        lines += [f"  {d.call} -> {d.action} ({d.rule}) x{d.count}"
                  for d in r.denials]
        if r.denials_dropped:
            lines.append(f"  and {r.denials_dropped} more")
    if r.outputs:
        lines.append("files: " + ", ".join(
            f"{n} ({f.size} bytes)" for n, f in sorted(r.outputs.items())))
    for ref in r.refused:
        lines.append(f"not returned: {ref.name}: {ref.reason}")
    out = "\n".join(lines)
    if r.stdout:
        out += "\n--- stdout ---\n" + r.stdout_text()
    if r.stderr:
        out += "\n--- stderr ---\n" + r.stderr_text()
    return out


def run_result(r: RunResult, version: str) -> dict[str, Any]:
    """A run as a tools/call result; isError when it did not exit 0."""
    content: list[dict[str, Any]] = [{"type": "text", "text": _report(r)}]
    files = []
    for name, f in sorted(r.outputs.items()):
        files.append({"name": name, "bytes": f.size, "kind": f.kind})
        data = f.data
        mime = _image_type(name, data) if data is not None else None
        if mime and data is not None:
            content.append({"type": "image", "mimeType": mime,
                            "data": base64.b64encode(data).decode()})
    res: dict[str, Any] = {"content": content, "isError": not r.ok}
    if structured(version):
        res["structuredContent"] = {
            "tool": r.tool, "ok": r.ok, "outcome": outcome_name(r),
            "reason": r.reason, "exit_code": r.exit_code,
            "signal": r.signal, "stdout": r.stdout_text(),
            "stderr": r.stderr_text(),
            "stdout_truncated": r.stdout_truncated,
            "stderr_truncated": r.stderr_truncated,
            "denials": None if r.denials is None else [
                {"syscall": d.syscall, "call": d.call, "action": d.action,
                 "rule": d.rule, "count": d.count} for d in r.denials],
            "denials_dropped": r.denials_dropped,
            "wall_ms": r.timings.wall_ms, "warm": r.status.get("warm") is True,
            "files": files,
            "refused": [{"name": x.name, "reason": x.reason}
                        for x in r.refused],
            "policy": r.policy, "blob": r.blob}
    return res


def cell_outcome(c: CellResult) -> str:
    return ("session_ended" if c.session_ended else "timeout"
            if c.timed_out else "exception" if c.error is not None
            else "completed")


def _cell_report(c: CellResult, sid: str) -> str:
    lines = [f"session {sid}, cell {c.seq}: {cell_outcome(c)}"]
    if c.session_ended:
        lines.append(f"the session ended: {c.end_reason} (its state is "
                     "gone; the next call with this id starts a new one)")
        if c.run is not None:
            lines.append(f"the session's run: {outcome_name(c.run)} "
                         f"({c.run.reason})")
    if c.files:
        lines.append("files: " + ", ".join(f"{f.name} ({f.size} bytes)"
                                           for f in c.files))
    out = "\n".join(lines)
    for name, body in (("stdout", c.stdout), ("stderr", c.stderr),
                       ("value", c.value), ("error", c.error)):
        if body:
            out += f"\n--- {name} ---\n" + body
    return out


def cell_result(c: CellResult, tool: str, sid: str,
                version: str) -> dict[str, Any]:
    """A session's cell as a tools/call result; isError when it raised,
    timed out or ended the session."""
    content: list[dict[str, Any]] = [{"type": "text",
                                      "text": _cell_report(c, sid)}]
    for f in c.files:
        mime = None if f.truncated else _image_type(f.name, f.data)
        if mime:
            content.append({"type": "image", "mimeType": mime,
                            "data": base64.b64encode(f.data).decode()})
    ok = c.ok and not c.timed_out
    res: dict[str, Any] = {"content": content, "isError": not ok}
    if structured(version):
        sc: dict[str, Any] = {
            "tool": tool, "ok": ok, "outcome": cell_outcome(c),
            "session": sid, "seq": c.seq, "stdout": c.stdout,
            "stderr": c.stderr, "value": c.value, "timed_out": c.timed_out,
            "session_ended": c.session_ended, "end_reason": c.end_reason,
            "reason": c.run.reason if c.run is not None else "",
            "files": [{"name": f.name, "bytes": f.size} for f in c.files]}
        if c.error is not None:
            sc["error"] = c.error
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
    sysc: dict[str, list[str]] = {}
    for rule in d["seccomp"]["rules"]:
        sysc.setdefault(rule["action"], []).append(rule["text"])
    lay = d["layers"]
    return {"name": d["policy"]["name"],
            "description": d["policy"]["description"],
            "network": {k: lay[k] for k in ("network", "connect", "bind")
                        if k in lay},
            "paths": [{"path": x["path"], "rights": x["text"],
                       "optional": x["optional"]} for x in d["paths"]],
            "private_tmp": lay.get("private_tmp"),
            "limits": [{"resource": x["resource"], "value": x["text"]}
                       for x in d["limits"]],
            "timeout_ms": d["timeout_ms"], "output_cap": d["output_cap"],
            "env": d["env"], "command": d["argv"],
            "preload": d.get("preload", []),
            "syscalls": {"default": d["seccomp"]["default"],
                         "rules": sysc}}


def explain_result(view: dict[str, Any], version: str) -> dict[str, Any]:
    lines = [f"policy {view['name']}: {view['description']}",
             "network: " + json.dumps(view["network"]), "paths:"]
    lines += [f"  {p['path']} {p['rights']}"
              + (" (optional)" if p["optional"] else "")
              for p in view["paths"]]
    lines.append("limits: " + ", ".join(f"{x['resource']} {x['value']}"
                                        for x in view["limits"]))
    lines.append(f"timeout: {view['timeout_ms']} ms, output cap: "
                 f"{view['output_cap']} bytes")
    lines.append("command: " + " ".join(view["command"]))
    lines.append(f"system calls not named: {view['syscalls']['default']}")
    for action, calls in view["syscalls"]["rules"].items():
        lines.append(f"  {action}: {', '.join(calls)}")
    res: dict[str, Any] = {"content": [{"type": "text",
                                        "text": "\n".join(lines)}],
                           "isError": False}
    if structured(version):
        res["structuredContent"] = view
    return res
