// cordon-mcp's results as the official MCP TypeScript SDK's client reads
// them: bounded text, figures from plt.show(), session cells' figures
// (tests/test_mcp_results.py runs it, one step a process).
//
//   CORDON_MCP_SERVER='{"command": ..., "args": [...], "env": {...}}' \
//     node tests/mcp/results.mjs STEP
//
// Each step throws (exit 1, the assertion on stderr) or prints "ok STEP".
import assert from "node:assert/strict";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const LONG = { timeout: 600000 };   // a loaded machine: no speed asserted
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const TEXT_BUDGET = 20000;          // cordon-mcp's default --max-text-bytes

async function connect() {
  const spec = JSON.parse(process.env.CORDON_MCP_SERVER);
  const transport = new StdioClientTransport({ ...spec, stderr: "inherit" });
  const client = new Client({ name: "cordon-results-test", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();         // the SDK checks the output schemas
  return client;
}

function run(client, code, extra = {}) {
  return client.callTool({ name: "run_code",
    arguments: { tool: "code_gen", code, ...extra } }, undefined, LONG);
}

function text(res) {
  return res.content.filter((c) => c.type === "text").map((c) => c.text)
    .join("\n");
}

function pngs(res) {
  return res.content.filter((c) => c.type === "image" &&
    c.mimeType === "image/png");
}

const steps = {
  // print('x' * 5_000_000): the head and tail, what was left out said, in
  // both the content and structuredContent; the reply stays small.
  async big_print(client) {
    const res = await run(client, "print('a' * 5_000_000)\nprint('END')");
    const t = text(res);
    assert.ok(t.length < 2 * TEXT_BUDGET, `text of ${t.length} chars`);
    assert.match(t, /bytes of stdout left out here/);
    assert.ok(JSON.stringify(res.structuredContent).length < 3 * TEXT_BUDGET);
    assert.match(res.structuredContent.stdout, /left out here/);
    assert.ok(res.structuredContent.summary.length > 0);
  },

  // The 8.8 MB PNG (an 11.8 MB line the SDK's client dropped the
  // connection on): listed as too large, the connection kept.
  async big_image(client) {
    const res = await run(client, "import os\n" +
      "open('big.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + " +
      "os.urandom(8_800_000))\nprint('wrote')");
    assert.equal(pngs(res).length, 0);
    assert.match(text(res), /not returned: big\.png: too large \(8\.8 MB/);
    const f = res.structuredContent.files.find((x) => x.name === "big.png");
    assert.equal(f.returned, null);
    const again = await run(client, "print('still here')");
    assert.equal(again.structuredContent.stdout, "still here\n");
  },

  // plt.show() under Agg draws nothing: the open figure comes back as a
  // PNG image, and the text (in both shapes) names it.
  async show_figure(client) {
    const res = await run(client, "import matplotlib.pyplot as plt\n" +
      "plt.plot([1, 3, 2])\nplt.show()\nprint('shown')");
    assert.equal(res.isError, false, text(res));
    const imgs = pngs(res);
    assert.equal(imgs.length, 1, JSON.stringify(res.content.map((c) => c.type)));
    assert.deepEqual(Buffer.from(imgs[0].data, "base64").subarray(0, 8), PNG);
    assert.match(text(res), /figure-1\.png \([\d,]+ bytes, image\)/);
    const f = res.structuredContent.files.find((x) => x.name === "figure-1.png");
    assert.equal(f.returned, "image");
    assert.doesNotMatch(text(res), /denied:/);
  },

  // A session cell's open figure comes back the same way; one too large
  // for a cell is listed with the reason, not dropped in silence.
  async session_figure(client) {
    const a = await run(client, "import matplotlib.pyplot as plt\n" +
      "plt.plot([1, 2])\nplt.show()", { session: "figs" });
    assert.equal(a.isError, false, text(a));
    assert.equal(pngs(a).length, 1, text(a));
    const b = await run(client, "import os\n" +
      "open('big.png', 'wb').write(b'\\x89PNG\\r\\n\\x1a\\n' + os.urandom(200000))",
      { session: "figs" });
    assert.equal(pngs(b).length, 0);
    assert.match(text(b), /not returned: big\.png: too large for a session cell/);
    await client.callTool({ name: "end_session",
      arguments: { session: "figs" } }, undefined, LONG);
  },
};

const name = process.argv[2];
if (!steps[name]) {
  console.error(`usage: results.mjs ${Object.keys(steps).join("|")}`);
  process.exit(2);
}
const client = await connect();
try {
  await steps[name](client);
} finally {
  await client.close();
}
console.log(`ok ${name}`);
