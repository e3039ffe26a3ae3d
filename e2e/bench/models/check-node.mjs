// A browser-free check of the peers' side of the whole-model benchmark:
//
//   node e2e/bench/models/check-node.mjs MODELS_DIR
//
// Runs every model of MODELS_DIR (tools/models/make_models.py's output) in
// ONNX Runtime Web and TensorFlow.js's wasm backend under Node, one thread,
// through the same code as the browser page (models.mjs), and fails when an
// output differs from onnxruntime's golden one beyond the benchmark's
// tolerance. It prints no timings: the figures come from run.mjs in
// Chromium.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import * as ort from "onnxruntime-web";
import * as tf from "@tensorflow/tfjs";
import "@tensorflow/tfjs-backend-wasm";
import { loadOrt, loadTfjs, measure, modelFiles } from "./models.mjs";

const [dir] = process.argv.slice(2);
if (!dir) {
  console.error("usage: node e2e/bench/models/check-node.mjs MODELS_DIR");
  process.exit(2);
}
const manifest = JSON.parse(readFileSync(join(dir, "manifest.json"), "utf8"));
const read = async (path) => {
  const b = readFileSync(join(dir, path));
  return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
};
ort.env.wasm.numThreads = 1;
if (!(await tf.setBackend("wasm"))) throw new Error("TF.js: the wasm backend did not initialise");
let failures = 0;
for (const m of manifest.models) {
  const files = await modelFiles(read, m.name, m);
  for (const [runtime, load] of [
    ["onnxruntime-web", () => loadOrt(ort, files)],
    ["tfjs-wasm", () => loadTfjs(tf, files)],
  ]) {
    const r = await measure(await load(), files.golden, { warmup: 0, runs: 1 });
    console.log(`${m.name.padEnd(14)} ${runtime.padEnd(16)} max |diff| ${r.maxAbsDiff.toExponential(2)} (tolerance ${r.tolerance.toExponential(1)}) ${r.ok ? "ok" : "WRONG"}`);
    if (!r.ok) failures++;
  }
}
console.log(`${manifest.models.length * 2 - failures} passed, ${failures} failed`);
process.exit(failures ? 1 : 0);
