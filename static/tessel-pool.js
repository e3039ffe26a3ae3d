// Tessel's pool thread: one of the sub-workers that run the chunks of a
// kernel's parallel loops (`tessel.parallel_for`) next to the calling
// worker, over the same shared WebAssembly.Memory. Used by the full worker
// (web-ui/src/cpu_rt.rs) and by the Chromium benchmark (e2e/bench). Only a
// cross-origin isolated page can share memory, so only such pages start it.
//
// Protocol (a control SharedArrayBuffer, Int32 words; see CONTROL below):
// - On start it posts {type: 'started'}.
// - {type: 'load', module, memory, control, thread, threads, stack: [sp, limit],
//   tasks: [{export, wide}]} (wide: i64 bounds) instantiates `module` over `memory`, sets its
//   stack globals, adds 1 to READY (or writes ERROR), then waits for jobs.
// - A job: the caller writes TASK, CLOSURE, BEGIN/END (f64 words), CMD = JOB,
//   adds 1 to GEN and notifies it. Thread k (1..threads-1) runs chunk k of
//   [BEGIN, END) split into `threads` static chunks (sizes differ by at most
//   one, the first `len % threads` one longer; the caller runs chunk 0),
//   then adds 1 to DONE and notifies it. A trap sets ERROR and its text.
// - CMD = RETURN (GEN + 1, notify) sends the thread back to its event loop,
//   so that it can receive the next 'load'.
// A parallel_for from inside a task runs its whole range inline here.
'use strict';

const CONTROL = {
  GEN: 0, CMD: 1, TASK: 2, CLOSURE: 3, DONE: 4, READY: 5, ERROR: 6, ERROR_LEN: 7,
  BEGIN_F64: 4, END_F64: 5, // Float64 indices (bytes 32..48)
  ERROR_TEXT: 64, ERROR_MAX: 960, // bytes
  BYTES: 1024,
  JOB: 1, RETURN: 2,
};

// The error function as the reference interpreter computes it
// (ir/src/values/scalar.rs: a double-double series below 3, a continued
// fraction for erfc below 6), so results match the reference.
function twoSum(a, b) { const s = a + b; const bb = s - a; return [s, (a - (s - bb)) + (b - bb)]; }
function quickTwoSum(a, b) { const s = a + b; return [s, b - (s - a)]; }
function split(a) { const c = 134217729 * a; const hi = c - (c - a); return [hi, a - hi]; }
function twoProd(a, b) {
  const p = a * b; const [ah, al] = split(a); const [bh, bl] = split(b);
  return [p, ((ah * bh - p) + ah * bl + al * bh) + al * bl];
}
function ddAdd(x, o) { const s = twoSum(x[0], o[0]); return quickTwoSum(s[0], s[1] + x[1] + o[1]); }
function ddMul(x, o) { const p = twoProd(x[0], o[0]); return quickTwoSum(p[0], p[1] + x[0] * o[1] + x[1] * o[0]); }
function ddDiv(x, d) {
  const q1 = x[0] / d; const p = twoProd(q1, d);
  return quickTwoSum(q1, (((x[0] - p[0]) - p[1]) + x[1]) / d);
}
function erfSeries(x) {
  const s = twoProd(x, x); const negX2 = [-s[0], -s[1]];
  let p = [x, 0]; let sum = [x, 0];
  for (let n = 1; n < 200; n++) {
    p = ddDiv(ddMul(p, negX2), n);
    const term = ddDiv(p, 2 * n + 1);
    sum = ddAdd(sum, term);
    if (Math.abs(term[0]) <= Math.abs(sum[0]) * 1e-34 || term[0] === 0) break;
  }
  const r = ddMul(sum, [1.1283791670955126, 1.533545961316588e-17]);
  return r[0] + r[1];
}
function erfcFraction(x) {
  let t = x;
  for (let k = 80; k >= 1; k--) t = x + (k * 0.5) / t;
  const s = twoProd(x, x);
  return (Math.exp(-s[0]) * (1 - s[1])) / (t * 1.772453850905516);
}
function erf(x) {
  if (Number.isNaN(x)) return x;
  const a = Math.abs(x);
  const r = a < 3 ? erfSeries(a) : a < 6 ? 1 - erfcFraction(a) : 1;
  return x < 0 || Object.is(x, -0) ? -r : r;
}

// `tessel_math.*`: every codegen_wasm::MathFn.
const TESSEL_MATH = {
  exp: Math.exp, exp2: (a) => Math.pow(2, a), exp10: (a) => Math.pow(10, a),
  log: Math.log, log2: Math.log2, log10: Math.log10, log1p: Math.log1p,
  tanh: Math.tanh, erf, sin: Math.sin, cos: Math.cos, tan: Math.tan, atan: Math.atan,
  pow: Math.pow, fmod: (a, b) => a % b,
};

// The chunk `k` of [begin, end) split into `n` (empty: [0, 0]).
function chunk(begin, end, n, k) {
  const len = end - begin;
  if (len <= 0) return [0, 0];
  n = Math.min(n, len);
  if (k >= n) return [0, 0];
  const q = Math.floor(len / n); const r = len % n;
  const at = begin + k * q + Math.min(k, r);
  return [at, at + q + (k < r ? 1 : 0)];
}

let loaded = null;

function writeError(ctrl, text) {
  if (Atomics.compareExchange(ctrl, CONTROL.ERROR, 0, 1) !== 0) return;
  const bytes = new TextEncoder().encode(text).slice(0, CONTROL.ERROR_MAX);
  new Uint8Array(ctrl.buffer, CONTROL.ERROR_TEXT, bytes.length).set(bytes);
  Atomics.store(ctrl, CONTROL.ERROR_LEN, bytes.length);
}

function message(e) {
  return e && e.message ? `${e.name || 'Error'}: ${e.message}` : String(e);
}

function runTask(task, begin, end, closure) {
  const t = loaded.tasks[task];
  const f = loaded.exports[t.export];
  if (t.wide) f(BigInt(begin), BigInt(end), closure);
  else f(begin, end, closure);
}

function load(m) {
  const ctrl = new Int32Array(m.control);
  try {
    const imports = {
      env: { memory: m.memory },
      tessel_math: TESSEL_MATH,
      tessel: {
        parallel_for: (task, begin, end, closure) => runTask(task, Number(begin), Number(end), closure),
      },
    };
    const instance = new WebAssembly.Instance(m.module, imports);
    const ex = instance.exports;
    // A stack limit of 0: the module needs no stack of its own.
    if (ex.__stack_pointer && m.stack[1] > 0) ex.__stack_pointer.value = m.stack[0];
    if (ex.__stack_limit && m.stack[1] > 0) ex.__stack_limit.value = m.stack[1];
    loaded = { exports: ex, tasks: m.tasks, ctrl, f64: new Float64Array(m.control), thread: m.thread, threads: m.threads };
  } catch (e) {
    writeError(ctrl, `pool thread ${m.thread}: ${message(e)}`);
    loaded = null;
  }
  const seen = Atomics.load(ctrl, CONTROL.GEN);
  Atomics.add(ctrl, CONTROL.READY, 1);
  Atomics.notify(ctrl, CONTROL.READY);
  if (loaded) serve(seen);
}

function serve(seen) {
  const { ctrl, f64 } = loaded;
  for (;;) {
    Atomics.wait(ctrl, CONTROL.GEN, seen);
    seen = Atomics.load(ctrl, CONTROL.GEN);
    const cmd = Atomics.load(ctrl, CONTROL.CMD);
    if (cmd === CONTROL.RETURN) return;
    if (cmd !== CONTROL.JOB) continue;
    try {
      const [b, e] = chunk(f64[CONTROL.BEGIN_F64], f64[CONTROL.END_F64], loaded.threads, loaded.thread);
      if (e > b) runTask(Atomics.load(ctrl, CONTROL.TASK), b, e, Atomics.load(ctrl, CONTROL.CLOSURE));
    } catch (err) {
      writeError(ctrl, `thread ${loaded.thread}: ${message(err)}`);
    }
    Atomics.add(ctrl, CONTROL.DONE, 1);
    Atomics.notify(ctrl, CONTROL.DONE);
  }
}

self.onmessage = (event) => {
  if (event.data && event.data.type === 'load') load(event.data);
};
self.postMessage({ type: 'started' });
