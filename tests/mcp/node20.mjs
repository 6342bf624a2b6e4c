// Node 20 lacks fs.globSync (Node 22), which the conformance suite's
// dist/index.js imports (to read its checks.json files back).  Run it as
//   node --import ./node20.mjs node_modules/.bin/conformance ...
// and this hook gives it a small one: "**/NAME" under cwd, nothing else.
import { register } from "node:module";

register("data:text/javascript," + encodeURIComponent(`
export async function load(url, context, next) {
  const r = await next(url, context);
  if (!url.includes("/@modelcontextprotocol/conformance/dist/")) return r;
  let src = String(r.source);
  if (!/globSync as (\\w+),/.test(src)) return r;
  const name = src.match(/globSync as (\\w+),/)[1];
  src = src.replace(/globSync as \\w+,/, "");
  src += "\\nfunction " + name + "(pat, opts = {}) {" +
    " return globLite(pat, opts); }\\n" +
    "import { readdirSync as __rd } from 'node:fs';\\n" +
    "import { join as __jn, relative as __rl } from 'node:path';\\n" +
    "function globLite(pat, opts) {" +
    " const m = /^\\\\*\\\\*\\\\/([^*?/]+)$/.exec(pat);" +
    " if (!m) throw new Error('node20.mjs: glob ' + pat + ' unsupported');" +
    " const root = opts.cwd || process.cwd(), out = [];" +
    " const walk = (d) => { for (const e of __rd(d, { withFileTypes: true })) {" +
    "   const p = __jn(d, e.name);" +
    "   if (e.isDirectory()) walk(p); else if (e.name === m[1]) out.push(__rl(root, p)); } };" +
    " walk(root); return out; }\\n";
  return { ...r, source: src };
}`));
