// The CPU benchmark in headless Chromium: `node e2e/bench/run.mjs DIR OUT.tsv`.
//
// DIR is what `cargo bench -p codegen-wasm --bench matmul` writes with
// BENCH_OUT=DIR: wasm/manifest.json, wasm/mm_{a,b,c}.wasm (Tessel) and
// wasm/llvm_ref.wasm (rustc/LLVM). Each variant runs in index.html, Tessel's
// and LLVM's runs interleaved, best of the manifest's `reps`; rows
// `chromium KEY TESSEL_GFLOPS LLVM_GFLOPS VERSION` are written to OUT.tsv.
// Uses the system Chromium (/usr/bin/chromium) through playwright-core;
// never downloads a browser. `cargo xtask bench` runs it.
//
// The page is served from 127.0.0.1 with COOP/COEP headers (cross-origin
// isolated: shared memories and Atomics.wait in workers), together with
// the playground's pool thread, static/tessel-pool.js.
//
// manifest.json: {"n": N, "variants": [VARIANT, ...]}, a VARIANT being
//   key, label      the row's key and the printed name
//   wasm            Tessel's module (in wasm/)
//   kernel          its export, main(A, B, C) (f32 N×N tensor addresses)
//   tasks           its parallel tasks in tessel.parallel_for's numbering:
//                   [{"export": "__task_…", "wide": i64 bounds?}]
//   stack_base, stack_limit, heap_start
//                   MemoryPlan::for_threads(module, threads): thread k's
//                   stack is the k-th of that size from stack_base
//   llvm_fn         the LLVM module's export, same signature
//   llvm_wasm       the LLVM module (default llvm_ref.wasm)
//   llvm_tasks      its parallel tasks, as `tasks` (default none)
//   threads         N >= 1 (default 1): with N > 1 both modules import a
//                   shared memory and their parallel_for chunks run on N
//                   threads (this page's and N - 1 workers); the LLVM tasks
//                   use no stack
//   reps            timed runs of each (the best is kept)
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error("usage: node e2e/bench/run.mjs DIR OUT.tsv");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "wasm", "manifest.json"), "utf8"));
const n = manifest.n;
const modules = new Map();
const wasm = (file) => {
  if (!modules.has(file)) modules.set(file, readFileSync(join(dir, "wasm", file)).toString("base64"));
  return modules.get(file);
};

// index.html and the pool thread, cross-origin isolated.
const files = {
  "/index.html": join(here, "index.html"),
  "/tessel-pool.js": join(here, "..", "..", "static", "tessel-pool.js"),
};
const server = createServer((req, res) => {
  const file = files[new URL(req.url, "http://127.0.0.1").pathname];
  if (!file) return res.writeHead(req.url === "/favicon.ico" ? 204 : 404).end();
  res.writeHead(200, {
    "content-type": file.endsWith(".js") ? "text/javascript" : "text/html; charset=utf-8",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-embedder-policy": "require-corp",
  });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const profile = mkdtempSync(join(tmpdir(), "tessel-bench-chromium-"));
const browser = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  headless: true,
  args: [
    "--no-sandbox",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
    "--no-first-run",
  ],
});
const rows = [];
try {
  const page = await browser.newPage();
  page.setDefaultTimeout(600_000);
  page.on("console", (m) => m.type() === "error" && console.error(`page: ${m.text()}`));
  await page.goto(`http://127.0.0.1:${server.address().port}/index.html`);
  const version = await page.evaluate(() => navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? "?");
  const cores = await page.evaluate(() => navigator.hardwareConcurrency);
  console.log(`Chromium (${version}, ${cores} cores), f32 matmul ${n}^3`);
  const flops = 2 * n ** 3;
  for (const v of manifest.variants) {
    const threads = v.threads ?? 1;
    if (!(Number.isInteger(threads) && threads >= 1)) throw new Error(`${v.label}: threads must be an integer >= 1, got ${v.threads}`);
    const llvm = wasm(v.llvm_wasm ?? "llvm_ref.wasm");
    const r = await page.evaluate(([o, l, v, n]) => window.runVariant(o, l, v, n), [wasm(v.wasm), llvm, v, n]);
    if (!(r.diff < 1e-3) || !(r.ref < 1e-3)) {
      throw new Error(`${v.label}: results differ (Tessel vs LLVM ${r.diff}, vs f64 ${r.ref})`);
    }
    if (threads > 1 && r.ours_pooled === 0) throw new Error(`${v.label}: no parallel launch ran on the ${threads} threads`);
    if (threads > 1 && (v.llvm_tasks ?? []).length > 0 && r.llvm_pooled === 0) {
      throw new Error(`${v.label}: no LLVM parallel launch ran on the ${threads} threads`);
    }
    const go = flops / r.ours_s / 1e9, gl = flops / r.llvm_s / 1e9;
    const on = threads > 1 ? ` on ${threads} threads` : "";
    console.log(`${(v.label + on).padEnd(22)} Tessel ${go.toFixed(2)} GF/s, LLVM ${gl.toFixed(2)} GF/s (${(go / gl).toFixed(2)}x)`);
    rows.push(`chromium\t${v.key}\t${go.toFixed(4)}\t${gl.toFixed(4)}\t${version}`);
  }
} finally {
  server.close();
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
writeFileSync(out, rows.join("\n") + "\n");
