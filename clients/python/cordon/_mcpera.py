"""The two eras of MCP that cordon-mcp serves, side by side (cordon-mcp(1),
PROTOCOL).

Legacy (2024-11-05 to 2025-11-25): an initialize handshake picks the
revision for the rest of the channel.  Modern (2026-07-28): no handshake;
each request names its revision and the client's capabilities in its
params' _meta, and every result says resultType.  A request is modern
when its _meta names a protocol version, legacy otherwise (the dual-era
rule of 2026-07-28's versioning page), so both may share one channel.
"""
from __future__ import annotations

from typing import Any

from . import __version__
from . import _jsonrpc as rpc

LEGACY = ("2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05")
MODERN = ("2026-07-28",)
ALL = MODERN + LEGACY
META_VERSION = "io.modelcontextprotocol/protocolVersion"
META_CAPS = "io.modelcontextprotocol/clientCapabilities"
META_SERVER = "io.modelcontextprotocol/serverInfo"
# What a modern client may call (2026-07-28 has no ping, no initialize).
MODERN_METHODS = ("server/discover", "tools/list", "tools/call")
# How long a client may keep tools/list and server/discover: the tools and
# policies are fixed for the server's life, so an hour is safe.
LIST_TTL_MS = 3_600_000
# 2026-07-28 reserves -32000..-32099 (new codes may not come from
# -32000..-32019): "busy" is an application code outside that range.
MODERN_BUSY = -31000

SERVER_INFO = {"name": "cordon-mcp", "version": __version__}
INSTRUCTIONS = (
    "run_code runs Python under one of the policies list_policies names; "
    "explain_policy says what a policy may touch.  Each call is a fresh "
    "sandboxed run, unless it names a session: then it runs as a cell of "
    "that session's interpreter (state kept between calls with the same "
    "id until end_session).")
CAPABILITIES = {"tools": {"listChanged": False}}


def modern_version(method: str, params: dict[str, Any]) -> str | None:
    """The revision a modern request names, or None for a legacy one.
    Raises RpcError for a modern request that is malformed or names a
    revision not served this way."""
    meta = params.get("_meta")
    if not isinstance(meta, dict) or META_VERSION not in meta:
        if method == "server/discover":
            raise rpc.RpcError(rpc.INVALID_PARAMS, "server/discover: "
                               f"_meta must name {META_VERSION} and "
                               f"{META_CAPS}")
        return None
    asked = meta[META_VERSION]
    if asked not in MODERN:
        hint = (f"; {asked} is served after initialize"
                if asked in LEGACY else "")
        raise rpc.RpcError(UNSUPPORTED, f"Unsupported protocol version"
                           f"{hint}", {"supported": list(ALL),
                                       "requested": asked})
    if not isinstance(meta.get(META_CAPS), dict):
        raise rpc.RpcError(rpc.INVALID_PARAMS, f"_meta: {META_CAPS} (an "
                           "object) is required with " + META_VERSION)
    if method not in MODERN_METHODS:
        raise rpc.RpcError(rpc.METHOD_NOT_FOUND, f"method not found: "
                           f"{method[:100]} (in {asked}: "
                           f"{', '.join(MODERN_METHODS)})")
    return str(asked)


UNSUPPORTED = -32022            # UnsupportedProtocolVersionError


def complete(result: dict[str, Any], cacheable: bool = False
             ) -> dict[str, Any]:
    """A modern result: resultType, the server's name in _meta, and the
    caching hints a list carries."""
    out = dict(result)
    out["resultType"] = "complete"
    meta = dict(out.get("_meta") or {})
    meta[META_SERVER] = SERVER_INFO
    out["_meta"] = meta
    if cacheable:
        out["ttlMs"] = LIST_TTL_MS
        out["cacheScope"] = "public"
    return out


def discover() -> dict[str, Any]:
    return complete({"supportedVersions": list(ALL),
                     "capabilities": CAPABILITIES,
                     "instructions": INSTRUCTIONS}, cacheable=True)


def modern_error(err: rpc.RpcError) -> rpc.RpcError:
    """An error as 2026-07-28 has it: no codes from its legacy range."""
    if -32019 <= err.code <= -32000:
        return rpc.RpcError(MODERN_BUSY, err.message, err.data)
    return err
