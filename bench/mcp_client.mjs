// bench section 8's MCP client: the official TypeScript SDK's Client and
// StdioClientTransport (from tests/mcp/node_modules, make deps) connected
// once to the server CORDON_MCP_SERVER names ({"command", "args", "env"}),
// or, where CORDON_MCP_URL is set, its StreamableHTTPClientTransport
// connected to that URL (a cordon-mcp --http the bench started).
// Each stdin line is a run_code's arguments (JSON); each stdout line the
// round trip in ms, timed here from callTool to its result, with the
// result's structured content:  {"ms": 12.3, "ok": true, "sc": {...}}.
//
//   node bench/mcp_client.mjs NODE_MODULES_DIR
import { createInterface } from "node:readline";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const sdk = join(process.argv[2], "@modelcontextprotocol", "sdk", "dist",
  "esm", "client");
const { Client } = await import(pathToFileURL(join(sdk, "index.js")));

let transport;
if (process.env.CORDON_MCP_URL) {
  const { StreamableHTTPClientTransport } = await import(
    pathToFileURL(join(sdk, "streamableHttp.js")));
  transport = new StreamableHTTPClientTransport(
    new URL(process.env.CORDON_MCP_URL));
} else {
  const { StdioClientTransport } = await import(
    pathToFileURL(join(sdk, "stdio.js")));
  const spec = JSON.parse(process.env.CORDON_MCP_SERVER);
  transport = new StdioClientTransport({ ...spec, stderr: "inherit" });
}
const client = new Client({ name: "cordon-bench", version: "1.0.0" });
await client.connect(transport);
await client.listTools();

for await (const line of createInterface({ input: process.stdin })) {
  const args = JSON.parse(line);
  const t0 = performance.now();
  const res = await client.callTool({ name: "run_code", arguments: args },
    undefined, { timeout: 600000 });
  const ms = performance.now() - t0;
  process.stdout.write(JSON.stringify({ ms, ok: !res.isError,
    sc: res.structuredContent }) + "\n");
}
await client.close();
