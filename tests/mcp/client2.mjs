// Drives cordon-mcp through the official MCP client 2.x
// (@modelcontextprotocol/client, its Client and StdioClientTransport) in
// one version-negotiation mode (tests/test_mcp_eras.py runs it):
//
//   CORDON_MCP_SERVER='{"command": ..., "args": [...], "env": {...}}' \
//     node tests/mcp/client2.mjs MODE      (MODE: pin, auto or legacy)
//
// pin: only 2026-07-28; auto: probe with server/discover, fall back to
// initialize; legacy: initialize only.  It lists the tools and runs
// print(1), then prints "ok MODE ERA VERSION" (or throws: exit 1).
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const MODES = {
  pin: { mode: { pin: "2026-07-28" } },
  auto: { mode: "auto" },
  legacy: { mode: "legacy" },
};
const mode = process.argv[2];
assert.ok(mode in MODES, `MODE: one of ${Object.keys(MODES)}`);

const spec = JSON.parse(process.env.CORDON_MCP_SERVER);
const transport = new StdioClientTransport({ ...spec, stderr: "inherit" });
const client = new Client({ name: "cordon-test-2x", version: "1.0.0" },
  { versionNegotiation: MODES[mode] });
await client.connect(transport);

const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name),
  ["run_code", "list_policies", "explain_policy", "end_session"]);
const res = await client.callTool({ name: "run_code",
  arguments: { tool: "code_gen", code: "print(1)" } }, { timeout: 600000 });
assert.equal(res.isError, false, JSON.stringify(res));
assert.equal(res.structuredContent.stdout, "1\n");
assert.match(res.content[0].text, /--- stdout ---\n1\n/);
const era = client.getProtocolEra();
const version = client.getNegotiatedProtocolVersion();
const want = mode === "legacy" ? ["legacy", "2025-11-25"]
  : ["modern", "2026-07-28"];
assert.deepEqual([era, version], want);
await client.close();
console.log(`ok ${mode} ${era} ${version}`);
