// The whole-model benchmark's runtimes, as functions of the library objects
// (`ort` from onnxruntime-web, `tf` from @tensorflow/tfjs with the wasm
// backend), so that index.html runs them in Chromium and check-node.mjs the
// same code in Node.
//
// A model directory is what tools/models/make_models.py writes: model.onnx,
// input.bin (NCHW), input_nhwc.bin, golden.bin (onnxruntime's output) and
// tfjs.json + tfjs.bin (the same network as a list of TF.js ops with folded,
// NHWC / HWIO weights). Each runtime loads a model into a `runner`: an async
// function from nothing to the output as a Float32Array, on the model's
// fixed input. `measure` checks a runner against golden.bin, warms it up and
// times it.

/** Loads `model.onnx` into an ONNX Runtime Web session on the wasm EP. */
export async function loadOrt(ort, files) {
  const session = await ort.InferenceSession.create(files.onnx, {
    executionProviders: ["wasm"],
    graphOptimizationLevel: "all",
  });
  const [inputName] = session.inputNames;
  const [outputName] = session.outputNames;
  const input = new ort.Tensor("float32", files.input, files.meta.input_shape);
  return async () => {
    const result = await session.run({ [inputName]: input });
    return result[outputName].data;
  };
}

/** Builds the network of `tfjs.json` from tf ops over its weights. */
export function loadTfjs(tf, files) {
  const spec = files.tfjsSpec;
  const weights = new Map();
  for (const w of spec.weights) {
    const count = w.shape.reduce((a, b) => a * b, 1);
    const data = new Float32Array(files.tfjsWeights, w.offset, count);
    weights.set(w.name, tf.tensor(data, w.shape, "float32"));
  }
  const weight = (name) => {
    const t = weights.get(name);
    if (!t) throw new Error(`tfjs.json: no weight ${name}`);
    return t;
  };
  const input = tf.tensor(files.inputNhwc, spec.input.shape, "float32");
  const forward = () =>
    tf.tidy(() => {
      const values = new Map([[spec.input.name, input]]);
      const get = (name) => {
        const v = values.get(name);
        if (!v) throw new Error(`tfjs.json: ${name} is used before it is computed`);
        return v;
      };
      for (const s of spec.steps) values.set(s.y, step(tf, s, get, weight));
      return get(spec.output);
    });
  return async () => {
    const y = forward();
    try {
      return await y.data();
    } finally {
      y.dispose();
    }
  };
}

function step(tf, s, get, weight) {
  switch (s.op) {
    case "conv": {
      const args = {
        x: get(s.x),
        filter: weight(s.filter),
        bias: weight(s.bias),
        strides: s.strides,
        // A number pads every side by it, as the ONNX Conv's pads do.
        pad: s.pad === 0 ? "valid" : s.pad,
        activation: s.activation,
      };
      return s.depthwise ? tf.fused.depthwiseConv2d(args) : tf.fused.conv2d(args);
    }
    case "maxpool":
      return tf.maxPool(get(s.x), s.size, s.strides, "valid");
    case "concat":
      return tf.concat(s.xs.map(get), 3);
    case "add":
      return tf.add(get(s.a), get(s.b));
    case "mean_hw":
      return tf.mean(get(s.x), [1, 2]);
    case "flatten":
      return tf.reshape(get(s.x), [get(s.x).shape[0], -1]);
    case "dense":
      return tf.fused.matMul({
        a: get(s.x),
        b: weight(s.weight),
        bias: weight(s.bias),
        activation: s.activation,
      });
    default:
      throw new Error(`tfjs.json: unknown op ${s.op}`);
  }
}

/** The largest |a[i] - b[i]| (Infinity when the lengths differ or a value is not finite). */
export function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let worst = 0;
  for (let i = 0; i < a.length; i++) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= worst)) worst = Number.isNaN(d) ? Infinity : d;
  }
  return worst;
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Checks `run`'s output against the golden one, then `warmup` untimed runs,
 * then `runs` timed ones (ms, performance.now()). The tolerance is relative
 * to the output's scale: 1e-3 * max(1, max |golden|).
 */
export async function measure(run, golden, { warmup, runs }) {
  const first = await run();
  const diff = maxAbsDiff(first, golden);
  const scale = golden.reduce((m, v) => Math.max(m, Math.abs(v)), 1);
  const tolerance = 1e-3 * scale;
  for (let i = 0; i < warmup; i++) await run();
  const times = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    await run();
    times.push(performance.now() - t0);
  }
  return {
    maxAbsDiff: diff,
    tolerance,
    ok: diff <= tolerance,
    medianMs: median(times),
    minMs: Math.min(...times),
    maxMs: Math.max(...times),
    runs: times.length,
  };
}

/** Reads a model directory through `read(relativePath) -> ArrayBuffer`. */
export async function modelFiles(read, name, meta) {
  const f32 = async (file) => new Float32Array(await read(`${name}/${file}`));
  return {
    meta,
    onnx: new Uint8Array(await read(`${name}/model.onnx`)),
    input: await f32("input.bin"),
    inputNhwc: await f32("input_nhwc.bin"),
    golden: await f32("golden.bin"),
    tfjsSpec: JSON.parse(new TextDecoder().decode(await read(`${name}/tfjs.json`))),
    tfjsWeights: await read(`${name}/tfjs.bin`),
  };
}
