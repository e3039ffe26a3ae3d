// The whole-model benchmark's peers in headless Chromium:
//
//   node e2e/bench/models/run.mjs MODELS_DIR OUT_DIR [--threads N] [--runs N]
//        [--warmup N] [--only mlp,mnist,...] [--runtimes ort,tfjs]
//
// MODELS_DIR is tools/models/make_models.py's output. Each model runs in
// ONNX Runtime Web (wasm EP, SIMD, N threads) and TensorFlow.js (wasm
// backend, threaded SIMD build, N threads), one page per runtime (index.html
// with ?runtime=), batch 1 on the model's fixed input. Each output is
// checked against onnxruntime's golden output (max |diff| <= 1e-3 *
// max(1, max |golden|), else the run fails), then `warmup` untimed runs,
// then `runs` timed ones; the median is the figure. A runtime that does not
// run on the N threads asked for fails the run too.
//
// Writes into OUT_DIR (`cargo xtask bench` reads them back):
//   models.tsv        one row per model and runtime, tab-separated:
//                     MODEL RUNTIME MEDIAN_MS MIN_MS RUNS THREADS MAX_ABS_DIFF VERSION BACKEND
//                     (MODEL is the manifest's name, e.g. mobilenetv2;
//                     RUNTIME is onnxruntime-web or tfjs-wasm). Another step
//                     adds its runtime by writing rows of this format to
//                     OUT_DIR/models-RUNTIME.tsv (e.g. models-tessel.tsv).
//   models-env.tsv    KEY VALUE: chromium, cores, threads, runs, warmup,
//                     cross_origin_isolated
//   models-sizes.tsv  RUNTIME FILE BYTES GZIP_BYTES: the wasm binaries each
//                     npm package ships (all of them; the one loaded is
//                     named in models.tsv's BACKEND column)
//
// Served from 127.0.0.1 with COOP/COEP headers (cross-origin isolated:
// SharedArrayBuffer, so both runtimes can start their thread pools). Uses
// the system Chromium (/usr/bin/chromium, or $CHROMIUM) through the
// playwright-core of e2e/package.json; never downloads a browser. The
// runtimes come from this directory's package.json (`npm ci` here).
import { chromium } from "playwright-core";
import { createServer } from "node:http";
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, tmpdir } from "node:os";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

const usage = "usage: node e2e/bench/models/run.mjs MODELS_DIR OUT_DIR [--threads N] [--runs N] [--warmup N] [--only a,b] [--runtimes ort,tfjs]";
const positional = [];
const opts = { threads: 2, runs: 30, warmup: 10, only: null, runtimes: "ort,tfjs" };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  if (!a.startsWith("--")) {
    positional.push(a);
    continue;
  }
  const key = a.slice(2);
  if (!(key in opts) || i + 1 >= argv.length) {
    console.error(`${usage}\nunknown or incomplete option ${a}`);
    process.exit(2);
  }
  opts[key] = argv[++i];
}
const [modelsDir, outDir] = positional;
if (!modelsDir || !outDir) {
  console.error(usage);
  process.exit(2);
}
for (const key of ["threads", "runs", "warmup"]) {
  opts[key] = Number(opts[key]);
  if (!Number.isInteger(opts[key]) || opts[key] < (key === "warmup" ? 0 : 1)) {
    console.error(`--${key} must be a positive integer`);
    process.exit(2);
  }
}

const here = dirname(fileURLToPath(import.meta.url));
const modules = join(here, "node_modules");
const RUNTIMES = {
  ort: { label: "onnxruntime-web", packages: [join(modules, "onnxruntime-web")] },
  tfjs: {
    label: "tfjs-wasm",
    packages: [join(modules, "@tensorflow/tfjs"), join(modules, "@tensorflow/tfjs-backend-wasm")],
  },
};
const runtimes = opts.runtimes.split(",").filter(Boolean);
for (const r of runtimes) {
  if (!RUNTIMES[r]) {
    console.error(`unknown runtime ${r}; known: ${Object.keys(RUNTIMES).join(", ")}`);
    process.exit(2);
  }
}
let manifest;
try {
  manifest = JSON.parse(readFileSync(join(modelsDir, "manifest.json"), "utf8"));
} catch (e) {
  console.error(`cannot read ${join(modelsDir, "manifest.json")} (${e.message}): run tools/models/make_models.py ${modelsDir} first`);
  process.exit(2);
}
for (const [name, dir] of [["onnxruntime-web", "onnxruntime-web"], ["@tensorflow/tfjs-backend-wasm", "@tensorflow/tfjs-backend-wasm"]]) {
  try {
    statSync(join(modules, dir, "package.json"));
  } catch {
    console.error(`${name} is not installed: run \`npm ci\` in ${here}`);
    process.exit(2);
  }
}
const wanted = opts.only ? opts.only.split(",").filter(Boolean) : manifest.models.map((m) => m.name);
const models = wanted.map((name) => {
  const m = manifest.models.find((m) => m.name === name);
  if (!m) {
    console.error(`${name} is not in ${modelsDir}/manifest.json`);
    process.exit(2);
  }
  return m;
});

// URL prefix -> directory; nothing outside them is served.
const roots = {
  "/models/": modelsDir,
  "/ort/": join(modules, "onnxruntime-web", "dist"),
  "/tfjs/": join(modules, "@tensorflow", "tfjs", "dist"),
  "/tfjs-wasm/": join(modules, "@tensorflow", "tfjs-backend-wasm", "dist"),
};
const pages = { "/index.html": join(here, "index.html"), "/models.mjs": join(here, "models.mjs") };
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript",
  ".mjs": "text/javascript",
  ".wasm": "application/wasm",
  ".json": "application/json",
};
function resolve(pathname) {
  if (pages[pathname]) return pages[pathname];
  for (const [prefix, dir] of Object.entries(roots)) {
    if (!pathname.startsWith(prefix)) continue;
    const rel = normalize(decodeURIComponent(pathname.slice(prefix.length)));
    if (rel.startsWith("..") || rel.startsWith(sep)) return null;
    return join(dir, rel);
  }
  return null;
}
// The wasm binaries the pages fetched: which build each runtime chose.
const servedWasm = new Set();
const server = createServer((req, res) => {
  const file = resolve(new URL(req.url, "http://127.0.0.1").pathname);
  if (file?.endsWith(".wasm")) servedWasm.add(file.split(sep).pop());
  let body;
  try {
    body = file && readFileSync(file);
  } catch {
    body = null;
  }
  if (!body) return res.writeHead(req.url === "/favicon.ico" ? 204 : 404).end();
  res.writeHead(200, {
    "content-type": TYPES[extname(file)] ?? "application/octet-stream",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-embedder-policy": "require-corp",
    "cross-origin-resource-policy": "same-origin",
  });
  res.end(body);
});

function version(dir) {
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
}

// The wasm binaries each package ships, with their gzip size (what a
// server sending them compressed would transfer).
function wasmSizes() {
  const rows = [];
  for (const [key, dir] of [["onnxruntime-web", roots["/ort/"]], ["tfjs-wasm", roots["/tfjs-wasm/"]]]) {
    for (const f of readdirSync(dir).filter((f) => f.endsWith(".wasm")).sort()) {
      const bytes = readFileSync(join(dir, f));
      rows.push([key, f, statSync(join(dir, f)).size, gzipSync(bytes, { level: 9 }).length].join("\t"));
    }
  }
  return rows;
}

await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const origin = `http://127.0.0.1:${server.address().port}`;
const profile = mkdtempSync(join(tmpdir(), "tessel-bench-models-chromium-"));
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
const env = [];
let failures = 0;
try {
  for (const r of runtimes) {
    const page = await browser.newPage();
    page.setDefaultTimeout(600_000);
    page.on("console", (m) => ["error", "warning"].includes(m.type()) && console.error(`page (${r}): ${m.text()}`));
    page.on("pageerror", (e) => console.error(`page (${r}): ${e.message}`));
    servedWasm.clear();
    await page.goto(`${origin}/index.html?runtime=${r}&threads=${opts.threads}`);
    await page.waitForFunction(() => window.benchReady === true, null, { timeout: 120_000 });
    if (env.length === 0) {
      const ua = await page.evaluate(() => navigator.userAgent.match(/Chrome\/[\d.]+/)?.[0] ?? "?");
      const cores = await page.evaluate(() => navigator.hardwareConcurrency);
      const isolated = await page.evaluate(() => crossOriginIsolated);
      env.push(["chromium", ua], ["cores", cores], ["threads", opts.threads], ["runs", opts.runs],
        ["warmup", opts.warmup], ["cross_origin_isolated", isolated]);
      console.log(`Chromium (${ua}, ${cores} cores, cross-origin isolated: ${isolated}), ${opts.threads} threads, median of ${opts.runs} runs after ${opts.warmup}`);
    }
    for (const m of models) {
      const res = await page.evaluate(([name, meta, o]) => window.benchModel(name, meta, o), [
        m.name,
        m,
        { warmup: opts.warmup, runs: opts.runs },
      ]);
      const status = res.ok ? "ok" : `WRONG (tolerance ${res.tolerance.toExponential(1)})`;
      console.log(
        `${m.name.padEnd(14)} ${res.runtime.padEnd(16)} median ${res.medianMs.toFixed(3).padStart(9)} ms ` +
          `(min ${res.minMs.toFixed(3)}, load ${res.loadMs.toFixed(0)} ms), threads ${res.threads}, ` +
          `workers ${res.workers}, max |diff| ${res.maxAbsDiff.toExponential(2)} ${status}`,
      );
      if (!res.ok) failures++;
      if (res.threads !== opts.threads) {
        console.error(`${res.runtime} ran ${m.name} on ${res.threads} thread(s), not ${opts.threads}`);
        failures++;
      }
      rows.push([m.name, res.runtime, res.medianMs.toFixed(4), res.minMs.toFixed(4), res.runs, res.threads,
        res.maxAbsDiff.toExponential(3), res.version, res.backend].join("\t"));
    }
    console.log(`${RUNTIMES[r].label} loaded ${[...servedWasm].join(", ") || "no wasm file"}`);
    await page.close();
  }
} finally {
  server.close();
  await browser.close();
  rmSync(profile, { recursive: true, force: true });
}
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "models.tsv"), rows.join("\n") + "\n");
writeFileSync(join(outDir, "models-env.tsv"), env.map((e) => e.join("\t")).join("\n") + "\n");
const sizes = wasmSizes();
writeFileSync(join(outDir, "models-sizes.tsv"), sizes.join("\n") + "\n");
for (const r of runtimes) console.log(`${RUNTIMES[r].label}: ${RUNTIMES[r].packages.map((p) => `${p.split("node_modules/")[1]} ${version(p)}`).join(", ")}`);
for (const s of sizes) console.log(`  ${s.replaceAll("\t", "  ")}`);
if (failures) {
  console.error(`${failures} failure(s): wrong outputs or thread counts (above)`);
  process.exit(1);
}
