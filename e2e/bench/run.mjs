// The CPU benchmark in headless Chromium: `node e2e/bench/run.mjs DIR OUT.tsv`.
//
// DIR is what `cargo bench -p codegen-wasm --bench matmul` writes with
// BENCH_OUT=DIR: wasm/manifest.json, wasm/mm_{a,b,c}.wasm (Tessel) and
// wasm/llvm_ref.wasm (rustc/LLVM). Each variant runs in index.html, Tessel's
// and LLVM's runs interleaved, best of the manifest's `reps`; rows
// `chromium KEY TESSEL_GFLOPS LLVM_GFLOPS` are written to OUT.tsv. Uses the
// system Chromium (/usr/bin/chromium) through playwright-core; never
// downloads a browser. `cargo xtask bench` runs it.
import { chromium } from "playwright-core";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const [dir, out] = process.argv.slice(2);
if (!dir || !out) {
  console.error("usage: node e2e/bench/run.mjs DIR OUT.tsv");
  process.exit(2);
}
const here = dirname(fileURLToPath(import.meta.url));
const manifest = JSON.parse(readFileSync(join(dir, "wasm", "manifest.json"), "utf8"));
const n = manifest.n;
const llvm = readFileSync(join(dir, "wasm", "llvm_ref.wasm")).toString("base64");
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
  await page.goto(pathToFileURL(join(here, "index.html")).href);
  const version = await page.evaluate(() => navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? "?");
  console.log(`Chromium (${version}), f32 matmul ${n}^3, one thread`);
  const flops = 2 * n ** 3;
  for (const v of manifest.variants) {
    const ours = readFileSync(join(dir, "wasm", v.wasm)).toString("base64");
    const r = await page.evaluate(([o, l, v, n]) => window.runVariant(o, l, v, n), [ours, llvm, v, n]);
    if (!(r.diff < 1e-3) || !(r.ref < 1e-3)) {
      throw new Error(`${v.label}: results differ (Tessel vs LLVM ${r.diff}, vs f64 ${r.ref})`);
    }
    const go = flops / r.ours_s / 1e9, gl = flops / r.llvm_s / 1e9;
    console.log(`${v.label.padEnd(22)} Tessel ${go.toFixed(2)} GF/s, LLVM ${gl.toFixed(2)} GF/s (${(go / gl).toFixed(2)}x)`);
    rows.push(`chromium\t${v.key}\t${go.toFixed(4)}\t${gl.toFixed(4)}\t${version}`);
  }
} finally {
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
writeFileSync(out, rows.join("\n") + "\n");
