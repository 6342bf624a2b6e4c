// Drives cordon-mcp --http through the official MCP TypeScript SDK's
// Client and StreamableHTTPClientTransport (tests/test_mcp_http.py).
//
//   CORDON_MCP_URL=http://127.0.0.1:PORT/mcp [CORDON_MCP_TOKEN=...] \
//     [CORDON_MCP_SDK=2] node tests/mcp/http_client.mjs
//
// Throws (exit 1, the assertion on stderr) or prints "ok http".
import assert from "node:assert/strict";

// CORDON_MCP_SDK=2: the 2.x client (@modelcontextprotocol/client) instead.
const two = process.env.CORDON_MCP_SDK === "2";
const { Client } = two ? await import("@modelcontextprotocol/client")
  : await import("@modelcontextprotocol/sdk/client/index.js");
const { StreamableHTTPClientTransport } = two
  ? await import("@modelcontextprotocol/client")
  : await import("@modelcontextprotocol/sdk/client/streamableHttp.js");

const LONG = { timeout: 600000 };   // a loaded machine: no speed asserted
const url = new URL(process.env.CORDON_MCP_URL);
const token = process.env.CORDON_MCP_TOKEN;
const opts = token ? { requestInit: { headers:
  { Authorization: `Bearer ${token}` } } } : {};
// callTool(params, resultSchema, options) in 1.x; (params, options) in 2.x.
const call = (params, opts) => two ? client.callTool(params, opts)
  : client.callTool(params, undefined, opts);
const transport = new StreamableHTTPClientTransport(url, opts);
const client = new Client({ name: "cordon-http-test", version: "1.0.0" });
await client.connect(transport);
assert.ok(transport.sessionId, "the server assigned an Mcp-Session-Id");
assert.equal(client.getServerVersion().name, "cordon-mcp");
const { tools } = await client.listTools();
assert.deepEqual(tools.map((t) => t.name).sort(),
  ["end_session", "explain_policy", "list_policies", "run_code"]);
const res = await call({ name: "run_code",
  arguments: { tool: "code_gen", code: "print(1)" } }, LONG);
assert.equal(res.isError, false, JSON.stringify(res.content));
assert.equal(res.structuredContent.stdout, "1\n");
// A run_code session lives in this MCP session until it is ended.
const cell = await call({ name: "run_code", arguments:
  { tool: "code_gen", code: "x = 41\nx + 1", session: "s" } }, LONG);
assert.equal(cell.structuredContent.value, "42", JSON.stringify(cell.content));
// A call that asks for progress is answered with an event stream: its
// progress (the first at its start), then its result.
const progress = [];
const slow = await call({ name: "run_code", arguments:
  { tool: "code_gen", code: "print(2)" } },
  { ...LONG, onprogress: (p) => progress.push(p) });
assert.equal(slow.structuredContent.stdout, "2\n");
assert.ok(progress.length >= 1, "progress notifications came");
console.log(`session ${transport.sessionId}`);
if (process.env.CORDON_MCP_KEEP !== "1") {
  await transport.terminateSession();     // DELETE
  assert.equal(transport.sessionId, undefined);
}
await client.close();
console.log("ok http");
