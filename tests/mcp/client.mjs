// Drives cordon-mcp through the official MCP TypeScript SDK's Client and
// StdioClientTransport (tests/test_mcp.py runs it, one step a process).
//
//   CORDON_MCP_SERVER='{"command": ..., "args": [...], "env": {...}}' \
//     node tests/mcp/client.mjs STEP
//
// Each step throws (exit 1, the assertion on stderr) or prints "ok STEP".
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";

const LONG = { timeout: 600000 };   // a loaded machine: no speed asserted
const WAIT_MS = 120000;             // bound on a wait for the server's state
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

async function connect() {
  const spec = JSON.parse(process.env.CORDON_MCP_SERVER);
  const transport = new StdioClientTransport({ ...spec, stderr: "inherit" });
  const client = new Client({ name: "cordon-test", version: "1.0.0" });
  await client.connect(transport);
  await client.listTools();         // the SDK keeps the output schemas
  return { client, transport };
}

function run(client, code, extra = {}, opts = {}) {
  return client.callTool({ name: "run_code",
    arguments: { tool: "code_gen", code, ...extra } }, undefined,
    { ...LONG, ...opts });
}

function cell(client, session, code, extra = {}, opts = {}) {
  return run(client, code, { session, ...extra }, opts);
}

function endSession(client, session) {
  return client.callTool({ name: "end_session", arguments: { session } },
    undefined, LONG);
}

function text(res) {
  return res.content.filter((c) => c.type === "text").map((c) => c.text)
    .join("\n");
}

async function rpcError(promise, code, pattern) {
  await assert.rejects(promise, (e) => {
    assert.ok(e instanceof McpError, `not an McpError: ${e}`);
    assert.equal(e.code, code, e.message);
    if (pattern) assert.match(e.message, pattern);
    return true;
  });
}

// Processes from /proc: pid -> [ppid, cmdline].
function processes() {
  const out = new Map();
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, "utf8");
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const cmd = readFileSync(`/proc/${d}/cmdline`, "utf8");
      out.set(Number(d), [ppid, cmd]);
    } catch { continue; }         // gone meanwhile
  }
  return out;
}

// The server's runs: cordon children whose command names a snippet (a
// session's is its driver, session.py), each with its descendants (the
// sandboxed tree).
function runTrees(server, snippet = "snippet.py") {
  const procs = processes();
  const trees = [];
  for (const [pid, [ppid, cmd]] of procs) {
    if (ppid !== server || !cmd.includes(snippet)) continue;
    const tree = new Set([pid]);
    let grew = true;
    while (grew) {
      grew = false;
      for (const [p, [pp]] of procs)
        if (tree.has(pp) && !tree.has(p)) { tree.add(p); grew = true; }
    }
    trees.push(tree);
  }
  return trees;
}

// User-mode CPU ticks of these processes (utime, /proc/PID/stat).
function cpuTicks(pids) {
  let n = 0;
  for (const p of pids) {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      n += Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[11]);
    } catch { continue; }
  }
  return n;
}

function alive(pid) {
  try { readFileSync(`/proc/${pid}/stat`); return true; } catch { return false; }
}

async function until(what, fn) {
  const end = Date.now() + WAIT_MS;
  while (!fn()) {
    if (Date.now() > end) throw new Error(`gave up waiting: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const steps = {
  async basics({ client }) {
    assert.equal(client.getServerVersion().name, "cordon-mcp");
    assert.ok(client.getServerCapabilities().tools);
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((t) => t.name).sort(),
      ["end_session", "explain_policy", "list_policies", "run_code"]);
    const rc = tools.find((t) => t.name === "run_code");
    assert.ok(rc.outputSchema, "run_code declares an output schema");
    assert.ok(rc.inputSchema.properties.tool.enum.includes("code_gen"));
    const res = await run(client, "print(6 * 7)");
    assert.equal(res.isError, false, text(res));
    assert.equal(res.structuredContent.stdout, "42\n");
    assert.equal(res.structuredContent.outcome, "exited");
    assert.match(text(res), /outcome: exited/);
    assert.match(text(res), /42/);
    // Input files, as text and as base64; a file written comes back named.
    const files = await run(client,
      "d = open('a.txt').read() + open('b.bin', 'rb').read().hex()\n" +
      "open('out.txt', 'w').write(d)\nprint(d)",
      { files: { "a.txt": { text: "hello " },
                 "b.bin": { base64: Buffer.from([1, 255]).toString("base64") } } });
    assert.equal(files.isError, false, text(files));
    assert.equal(files.structuredContent.stdout, "hello 01ff\n");
    assert.ok(files.structuredContent.files.some((f) => f.name === "out.txt"
      && f.bytes === 10), JSON.stringify(files.structuredContent.files));
    const pols = await client.callTool({ name: "list_policies", arguments: {} });
    const cg = pols.structuredContent.policies.find((p) => p.name === "code_gen");
    assert.match(cg.description, /general analysis/);
    const ex = await client.callTool({ name: "explain_policy",
      arguments: { tool: "code_gen" } }, undefined, LONG);
    assert.equal(ex.isError, false, text(ex));
    assert.ok(ex.structuredContent.paths.some((p) => p.path === "$WORKDIR"));
    assert.equal(ex.structuredContent.network.network, "off");
    assert.ok(ex.structuredContent.syscalls.rules.allow > 100);
    assert.match(text(ex), /\$WORKDIR rw/);
  },

  async failure({ client }) {
    const res = await run(client,
      "import socket, sys\ntry:\n    socket.socket()\nexcept OSError as e:\n" +
      "    print('refused', e.errno)\nsys.stderr.write('bad\\n')\nsys.exit(3)");
    assert.equal(res.isError, true);
    assert.equal(res.structuredContent.exit_code, 3);
    assert.equal(res.structuredContent.ok, false);
    assert.equal(res.structuredContent.stderr, "bad\n");
    assert.match(res.structuredContent.stdout, /^refused 97\n/);
    const den = res.structuredContent.denials;
    assert.ok(den === null || den.some((d) => d.syscall === "socket"),
      JSON.stringify(den));
    if (den !== null) assert.match(text(res), /socket\(AF_INET/);
    const exc = await run(client, "raise ValueError('nope')");
    assert.equal(exc.isError, true);
    assert.match(exc.structuredContent.stderr, /ValueError: nope/);
  },

  async image({ client }) {
    const res = await run(client,
      "import matplotlib\nmatplotlib.use('Agg')\n" +
      "import matplotlib.pyplot as plt\nplt.plot([1, 3, 2])\n" +
      "plt.savefig('plot.png')\nplt.savefig('plot.svg')\nprint('saved')");
    assert.equal(res.isError, false, text(res));
    const imgs = res.content.filter((c) => c.type === "image");
    const png = imgs.find((c) => c.mimeType === "image/png");
    assert.ok(png, JSON.stringify(res.content.map((c) => c.type)));
    assert.deepEqual(Buffer.from(png.data, "base64").subarray(0, 8), PNG);
    const svg = imgs.find((c) => c.mimeType === "image/svg+xml");
    assert.match(Buffer.from(svg.data, "base64").toString(), /<svg/);
    // Not an image for all its name: no image content.
    const fake = await run(client, "open('x.png', 'w').write('not a png')");
    assert.equal(fake.content.filter((c) => c.type === "image").length, 0);
  },

  async timeout({ client }) {
    const res = await run(client, "import time\ntime.sleep(600)",
      { timeout: 2 });
    assert.equal(res.isError, true);
    assert.equal(res.structuredContent.outcome, "timeout");
    assert.match(text(res), /outcome: timeout/);
  },

  async cancel({ client, transport }) {
    const pid = transport.pid;
    assert.ok(pid > 0);
    assert.deepEqual(runTrees(pid), []);
    const ac = new AbortController();
    const progress = [];
    const call = run(client, "import time\ntime.sleep(600)", { timeout: 300 },
      { signal: ac.signal, onprogress: (p) => progress.push(p) });
    // The run is under way once cordon runs the snippet with a process
    // below it; progress was announced before.
    let tree;
    await until("the run to start", () => {
      const t = runTrees(pid);
      if (t.length === 1 && t[0].size > 1 && progress.length > 0) tree = t[0];
      return tree !== undefined;
    });
    ac.abort("test cancels");
    await assert.rejects(call);
    // notifications/cancelled ended it: cordon and the whole sandboxed tree
    // are gone, long before the run's 300 s.
    await until("the cancelled run to end",
      () => [...tree].every((p) => !alive(p)));
    assert.deepEqual(runTrees(pid), []);
    const after = await run(client, "print('still serving')");
    assert.equal(after.structuredContent.stdout, "still serving\n");
  },

  async concurrent({ client }) {
    const n = 20;
    const calls = [];
    for (let i = 0; i < n; i++)
      calls.push(run(client, `print(${i} * 1000)`));
    const res = await Promise.all(calls);
    res.forEach((r, i) => {
      assert.equal(r.isError, false, text(r));
      assert.equal(r.structuredContent.stdout, `${i * 1000}\n`);
    });
  },

  // Sessions by id: state across calls, isolation, a cell's timeout,
  // end_session, an id unknown once ended, bad ids and a policy mismatch.
  async sessions({ client }) {
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "end_session"));
    let r = await cell(client, "a", "x = 41\nopen('kept.txt', 'w').write('k')");
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.session, "a");
    assert.ok(r.structuredContent.files.some((f) => f.name === "kept.txt"));
    r = await cell(client, "a", "x = x + 1\nprint(open('kept.txt').read())\nx");
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.value, "42");
    assert.equal(r.structuredContent.stdout, "k\n");
    assert.equal(r.structuredContent.seq, 2);
    // Another session sees none of it: not the variable, not the file.
    r = await cell(client, "b", "import os\nprint(os.path.exists('kept.txt'))\nx");
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.outcome, "exception");
    assert.equal(r.structuredContent.stdout, "False\n");
    assert.match(r.structuredContent.error, /NameError: name 'x'/);
    // A plain call is a fresh run, whatever the sessions hold.
    r = await run(client, "print('x' in globals())");
    assert.equal(r.structuredContent.stdout, "False\n");
    // A cell's timeout interrupts the cell; the session keeps its state.
    r = await cell(client, "a", "import time\ntime.sleep(300)", { timeout: 1 });
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.outcome, "timeout");
    assert.equal(r.structuredContent.session_ended, false);
    r = await cell(client, "a", "x");
    assert.equal(r.structuredContent.value, "42", text(r));
    // The session runs under one policy: another's call is refused.
    await rpcError(client.callTool({ name: "run_code", arguments: {
      tool: "radiomics", code: "x", session: "a" } }), -32602, /runs under/);
    // Files go into the session's working directory before the cell, as
    // a tree; the cell sees them and state is kept; a bad name is refused.
    r = await cell(client, "a", "open('in/f.txt').read() + str(x)",
      { files: { "in/f.txt": { text: "got " } } });
    assert.equal(r.structuredContent.value, "'got 42'", text(r));
    assert.ok(!r.structuredContent.files.some((f) => f.name === "in/f.txt"),
      JSON.stringify(r.structuredContent.files));
    await rpcError(cell(client, "a", "1", { files: { "../f.txt": { text: "" } } }),
      -32602, /files/);
    for (const bad of ["", "../a", "a b", "x".repeat(65), 7])
      await rpcError(cell(client, bad, "1"), -32602, /session/);
    await rpcError(endSession(client, "../a"), -32602, /session/);
    // end_session ends it; its id is then unknown to end_session, and the
    // next run_code with it starts a new session, empty.
    r = await endSession(client, "a");
    assert.equal(r.isError, false, text(r));
    assert.match(text(r), /session a ended/);
    await rpcError(endSession(client, "a"), -32602, /no session 'a'/);
    await rpcError(endSession(client, "never"), -32602, /no session/);
    r = await cell(client, "a", "x");
    assert.equal(r.isError, true);
    assert.equal(r.structuredContent.seq, 1);
    assert.match(r.structuredContent.error, /NameError/);
  },

  // The server was started with --max-sessions 2.
  async session_limit({ client }) {
    for (const id of ["s1", "s2"]) {
      const r = await cell(client, id, `v = '${id}'`);
      assert.equal(r.isError, false, text(r));
    }
    let r = await cell(client, "s3", "1");
    assert.equal(r.isError, true);
    assert.match(text(r), /maximum is 2/);
    assert.match(text(r), /max_sessions/);
    // The live ones are untouched; ending one makes room.
    r = await cell(client, "s1", "v");
    assert.equal(r.structuredContent.value, "'s1'");
    await endSession(client, "s1");
    r = await cell(client, "s3", "v = 3\nv");
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.value, "3");
  },

  // The server was started with --session-idle 1: an idle session ends,
  // and the next call with its id hears why.
  async session_idle({ client, transport }) {
    const r = await cell(client, "idle", "x = 1");
    assert.equal(r.isError, false, text(r));
    await until("the idle session to end",
      () => runTrees(transport.pid, "session.py").length === 0);
    const again = await cell(client, "idle", "x");
    assert.equal(again.isError, true);
    assert.match(text(again), /has ended \(idle timeout\)/);
    // And the id after that is a new session's.
    const fresh = await cell(client, "idle", "x = 2\nx");
    assert.equal(fresh.structuredContent.value, "2", text(fresh));
  },

  // The server was started with --session-max-age 10: the session's run
  // is ended at its age (its cordon timeout); the next call says so.
  async session_age({ client, transport }) {
    const r = await cell(client, "old", "x = 1");
    assert.equal(r.isError, false, text(r));
    await until("the session to reach its age",
      () => runTrees(transport.pid, "session.py").length === 0);
    const late = await cell(client, "old", "x");
    assert.equal(late.isError, true);
    assert.equal(late.structuredContent.outcome, "session_ended");
    assert.match(text(late), /the session's run: timeout/);
    const fresh = await cell(client, "old", "x = 2\nx");
    assert.equal(fresh.structuredContent.value, "2", text(fresh));
  },

  // Cancelling a session's cell interrupts it (CellCancelled): the
  // session's run goes on, its state kept.
  async session_cancel({ client, transport }) {
    const pid = transport.pid;
    let r = await cell(client, "c", "x = 5");
    assert.equal(r.isError, false, text(r));
    const ac = new AbortController();
    const [tree] = runTrees(pid, "session.py");
    assert.ok(tree && tree.size > 1, "the session's run is under way");
    const before = cpuTicks(tree);
    const call = cell(client, "c", "while True:\n    pass",
      { timeout: 100 }, { signal: ac.signal });
    // The cell runs once the session's processes burn CPU (idle, the
    // driver waits on a read).
    await until("the cell to run", () => cpuTicks(tree) >= before + 20);
    ac.abort("test cancels");
    await assert.rejects(call);
    r = await cell(client, "c", "x");
    assert.equal(r.isError, false, text(r));
    assert.equal(r.structuredContent.value, "5");
    assert.equal(runTrees(pid, "session.py").length, 1);
  },

  // The README's mcpServers entry (tests/test_mcp.py hands its command
  // and args over as they are written).
  async readme({ client }) {
    const { tools } = await client.listTools();
    const rc = tools.find((t) => t.name === "run_code");
    const want = JSON.parse(process.env.CORDON_MCP_EXPECT_TOOLS);
    assert.deepEqual(rc.inputSchema.properties.tool.enum, want);
    const res = await run(client, "print('from the README')");
    assert.equal(res.structuredContent.stdout, "from the README\n");
  },

  async bad({ client }) {
    await rpcError(client.request({ method: "no/such_method", params: {} },
      (await import("@modelcontextprotocol/sdk/types.js")).EmptyResultSchema),
      -32601);
    await rpcError(client.callTool({ name: "no_such_tool", arguments: {} }),
      -32602, /unknown tool/);
    await rpcError(client.callTool({ name: "run_code",
      arguments: { tool: "code_gen" } }), -32602, /code/);
    await rpcError(client.callTool({ name: "run_code",
      arguments: { tool: "not_a_policy", code: "1" } }), -32602, /exposed/);
    await rpcError(run(client, "1", { timeout: -1 }), -32602, /timeout/);
    await rpcError(run(client, "1", { session: "../s1" }), -32602, /session/);
    await rpcError(run(client, "1", { files: { "../x": { text: "" } } }),
      -32602, /files/);
    await rpcError(run(client, "#".repeat((1 << 20) + 1)), -32602, /longer/);
    const ok = await run(client, "print('fine')");
    assert.equal(ok.structuredContent.stdout, "fine\n");
  },
};

const name = process.argv[2];
if (!steps[name]) {
  console.error(`usage: client.mjs ${Object.keys(steps).join("|")}`);
  process.exit(2);
}
const conn = await connect();
try {
  await steps[name](conn);
} finally {
  await conn.client.close();
}
console.log(`ok ${name}`);
