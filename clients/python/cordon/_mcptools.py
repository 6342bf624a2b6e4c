"""cordon-mcp's tools: their schemas and descriptions, the checks of their
arguments, and the answers of list_policies and explain_policy (a run's
result: _mcpresult.py; see cordon-mcp(1))."""
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
# The results, for mcp.py (tools.run_result ...): _mcpresult.py.
from ._mcpresult import (STRUCTURED_FROM, cell_outcome,  # noqa: F401
                         cell_result, ended_result, outcome_name,
                         run_result, structured)
from .blob import BlobInfo

MAX_CODE = 1 << 20          # bytes of one snippet
MAX_FILES = 64              # input files of one call
EXPLAIN_TIMEOUT = 30.0      # seconds for cordonc explain --json
# A session id: chosen by the client, echoed in logs and results, so short
# and plain (no path, no control character).
MAX_SESSION_ID = 64
SESSION_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:-]{0,%d}"
                        % (MAX_SESSION_ID - 1))
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

def _cordon_mcp_figures():  # cordon-mcp(1): open figures come back
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
        "session_ms": {"type": "integer"},
        "output_cap": {"type": "integer"}, "env": {"type": "array"},
        "command": {"type": "array"},
        "syscalls": {"type": "object"},
    },
    "required": ["name", "paths", "syscalls"],
}


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
        for h in hosts))


def run_description(infos: Mapping[str, BlobInfo],
                    cordonc: str | None, lim: size.Limits) -> str:
    have, lack = installed(_python(infos, cordonc))
    pols = "; ".join(
        f"{n}: {i.description} ({network_words(i, cordonc)}, "
        f"timeout {i.timeout_ms / 1000:g} s, a session up to "
        f"{i.session_max_ms / 1000:g} s)"
        for n, i in sorted(infos.items()))
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
        "said). A host the policy does not name is refused by cordon's "
        "proxy; the result's 'network refused:' line says which and why. "
        "Policies: " + pols)


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
             "timeout_s": i.timeout_ms / 1000.0,
             "session_s": i.session_max_ms / 1000.0}
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
            "session_ms": d["session_ms"], "command": d["argv"],
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
             f"{view['output_cap']:,} bytes (each session cell's too), a "
             f"session up to {view['session_ms'] / 1000:g} s",
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
