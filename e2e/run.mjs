// Browser end-to-end tests for the built playground.
//
//   node e2e/run.mjs [DIST]      (DIST defaults to ../dist; `cargo xtask test` runs this)
//
// Serves DIST on 127.0.0.1 (a free port) under a sub-path, to prove the
// relative asset URLs work, drives the system Chromium headless through
// playwright-core (never downloads a browser), and writes screenshots to
// test-output/e2e/. Prints `e2e: N passed, M failed`; exits 1 on any failure.
//
// Environment: TESSEL_CHROMIUM overrides the browser (default /usr/bin/chromium);
// E2E_ONLY=TEXT runs only the tests whose name contains TEXT (and the first,
// which loads the page).

import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { gzipSync } from 'node:zlib';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.argv[2] ?? join(here, '..', 'dist'));
const outDir = resolve(here, '..', 'test-output', 'e2e');
const repoRoot = resolve(here, '..');
const chromiumPath = process.env.TESSEL_CHROMIUM || '/usr/bin/chromium';
const SUB_PATH = '/tessel/';
const TIMEOUT_MS = 20_000;

function die(message) {
  console.error(`e2e: error: ${message}`);
  console.log('e2e: 0 passed, 1 failed');
  process.exit(1);
}

if (!existsSync(join(dist, 'index.html'))) {
  die(`${join(dist, 'index.html')} not found: build the site first (cargo xtask build-web)`);
}
if (!existsSync(chromiumPath)) {
  die(`no browser at ${chromiumPath}: run \`cargo xtask setup\` (apt chromium) or set TESSEL_CHROMIUM`);
}
let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  die(`cannot load playwright-core (${e.message}): run \`cargo xtask setup\` or \`npm ci\` in e2e/`);
}

// --- a tiny static server for dist/, mounted at SUB_PATH -------------------

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.wasm': 'application/wasm',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.webmanifest': 'application/manifest+json',
  '.txt': 'text/plain; charset=utf-8',
};

/** A course page outside the playground's folder, embedding an exercise. */
const COURSE_PAGE = '/course/broadcast.html';
const courseHtml = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Course: broadcasting</title></head>
<body>
  <h1>Exercise: broadcast add</h1>
  <p>Try it below.</p>
  <iframe id="exercise-frame" title="Tessel exercise" width="1000" height="700"
    src="${SUB_PATH}?embed=1&exercise=broadcast-add"></iframe>
</body></html>`;

// --- a browser without relaxed SIMD (as Safari) -----------------------------

/**
 * Whether a wasm module (bytes) holds a relaxed-SIMD instruction: in its
 * code section, the 0xfd prefix followed by an opcode 0x100–0x113
 * (LEB128). Runs here (on dist/'s files) and, as part of the shim below,
 * in the browser, so it must not use anything from outside itself.
 */
function hasRelaxedSimd(src) {
  const b = src instanceof ArrayBuffer ? new Uint8Array(src)
    : ArrayBuffer.isView(src) ? new Uint8Array(src.buffer, src.byteOffset, src.byteLength) : null;
  if (!b || b.length < 8) return false;
  const leb = (i) => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = b[i++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80 && shift < 35 && i < b.length);
    return [value, i];
  };
  for (let i = 8; i < b.length;) {
    const id = b[i];
    const [size, start] = leb(i + 1);
    const end = Math.min(start + size, b.length);
    if (id === 10) {
      for (let j = start; j + 2 < end; j++) {
        if (b[j] !== 0xfd) continue;
        const [op] = leb(j + 1);
        if (op >= 0x100 && op <= 0x113) return true;
      }
    }
    i = end;
  }
  return false;
}

/**
 * Makes this global's WebAssembly reject relaxed SIMD as Safari's engine
 * does: `validate` says false, `compile`, `instantiate` (and their
 * streaming forms) and `new WebAssembly.Module` throw a CompileError for a
 * module with a relaxed-SIMD instruction; every other module is untouched.
 */
function withoutRelaxedSimd(has) {
  const W = globalThis.WebAssembly;
  if (!W || W.withoutRelaxedSimd) return;
  const fail = () => new W.CompileError('relaxed SIMD is not supported by this engine (a 0xfd 0x100-0x113 opcode)');
  const { validate, compile, instantiate, Module } = W;
  class CheckedModule extends Module {
    constructor(bytes) {
      if (has(bytes)) throw fail();
      super(bytes);
    }
    static [Symbol.hasInstance](x) { return x instanceof Module; }
  }
  W.Module = CheckedModule;
  W.validate = (bytes, ...rest) => !has(bytes) && validate(bytes, ...rest);
  W.compile = (bytes, ...rest) => (has(bytes) ? Promise.reject(fail()) : compile(bytes, ...rest));
  W.instantiate = (src, ...rest) => (!(src instanceof Module) && has(src) ? Promise.reject(fail()) : instantiate(src, ...rest));
  const read = async (source) => (await source).arrayBuffer();
  W.compileStreaming = async (source, ...rest) => W.compile(await read(source), ...rest);
  W.instantiateStreaming = async (source, ...rest) => W.instantiate(await read(source), ...rest);
  W.withoutRelaxedSimd = true;
}

/** The shim as a script: the page gets it through `addInitScript`. */
const NO_RELAXED_SIMD_SHIM = `(${withoutRelaxedSimd})(${hasRelaxedSimd});`;

/**
 * The same playground, served from a second path whose worker scripts (the
 * compiler workers' loaders and the thread pool's script; nothing else)
 * start with the shim: an init script reaches the page and its frames, not
 * its workers, which are the ones that compile and instantiate.
 */
const NO_RELAXED_PATH = '/tessel-no-relaxed-simd/';
const WORKER_SCRIPT = /^(core-worker_loader|worker_loader|tessel-pool)\.js$/;

/** codegen-wasm's RELAXED_SIMD_PROBE: one f32x4.relaxed_madd of three zero vectors. */
const RELAXED_SIMD_PROBE = [
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,
  0x03, 0x02, 0x01, 0x00, 0x0a, 0x3d, 0x01, 0x3b, 0x00,
  ...[0, 1, 2].flatMap(() => [0xfd, 0x0c, ...new Array(16).fill(0)]),
  0xfd, 0x85, 0x02, 0x0b,
];

/** A course page embedding exercises (iframe ids exercise-1, exercise-2, …). */
function courseHtmlFor(title, base, exercises) {
  const frames = exercises.map((id, i) => `<h2>${id}</h2>
  <iframe id="exercise-${i + 1}" title="Tessel exercise ${id}" width="1000" height="620"
    src="${base}?embed=1&exercise=${id}"></iframe>`).join('\n  ');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>
<body>
  <h1>${title}</h1>
  ${frames}
</body></html>`;
}

const COURSE_PAGES = {
  [COURSE_PAGE]: courseHtml,
  // A learner on a browser without relaxed SIMD.
  '/course/no-relaxed-simd.html': courseHtmlFor('Course: broadcasting (no relaxed SIMD)', NO_RELAXED_PATH, ['broadcast-add']),
  // Two exercises on one page: one progress for both.
  '/course/two-exercises.html': courseHtmlFor('Course: broadcasting, two ways', SUB_PATH, ['broadcast-add', 'numpy-broadcast']),
};

/** An exercise as the site serves it (its file holds the solution). */
const servedExercise = (id) => JSON.parse(readFileSync(join(dist, 'exercises', `${id}.json`), 'utf8')).exercise;

/** A notebook whose vector multiply-add is built for `llvm -mattr=+relaxed-simd`. */
const RELAXED_SIMD_SCRIPT = [
  'import tvm',
  'from tvm.script import tir as T',
  '',
  '@T.prim_func',
  'def fma(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32"), D: T.Buffer((64,), "float32")):',
  '    for i in range(64):',
  '        with T.block("D"):',
  '            vi = T.axis.spatial(64, i)',
  '            D[vi] = C[vi] + A[vi] * B[vi]',
  '',
  'sch = tvm.tir.Schedule(fma)',
  'i = sch.get_loops(sch.get_block("D"))[0]',
  'i0, i1 = sch.split(i, factors=[None, 4])',
  'sch.vectorize(i1)',
  'f = tvm.build(sch.mod, target="llvm -mattr=+relaxed-simd")',
  'print("relaxed_madd" in f.get_source(), "f32x4.mul" in f.get_source())',
  '',
].join('\n');

function serveDist(root) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (COURSE_PAGES[url.pathname]) {
      // A plain course page that embeds exercises, as a course site would.
      res.writeHead(200, { 'content-type': MIME['.html'] }).end(COURSE_PAGES[url.pathname]);
      return;
    }
    const base = [SUB_PATH, NO_RELAXED_PATH].find((b) => url.pathname.startsWith(b));
    if (!base) {
      res.writeHead(404).end('not found');
      return;
    }
    let rel = decodeURIComponent(url.pathname.slice(base.length)) || 'index.html';
    const file = normalize(join(root, rel));
    if (file !== root && !file.startsWith(root + sep)) {
      res.writeHead(403).end('forbidden');
      return;
    }
    let body;
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      body = readFileSync(file);
    } catch {
      res.writeHead(404).end('not found');
      return;
    }
    if (base === NO_RELAXED_PATH && WORKER_SCRIPT.test(rel)) {
      body = Buffer.concat([Buffer.from(`${NO_RELAXED_SIMD_SHIM}\n`), body]);
    }
    res.writeHead(200, {
      'content-type': MIME[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    res.end(body);
  });
  return new Promise((ok, fail) => {
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => ok(server));
  });
}

// --- the tests ---------------------------------------------------------------

const doc = (page) => page.evaluate(() => window.TesselEditor.current.getDoc());
const irText = (page) => page.evaluate(() => document.querySelector('#ir-view')?.innerText ?? '');
const shot = (page, name) => page.screenshot({ path: join(outDir, name) });

async function waitIr(page, pred, what) {
  try {
    await page.waitForFunction(pred, null, { timeout: TIMEOUT_MS });
  } catch (e) {
    const ir = (await irText(page)).slice(0, 600);
    throw new Error(`${what}: not seen within ${TIMEOUT_MS} ms; the IR pane shows:\n${ir}`);
  }
}

async function openExample(page, id) {
  await page.click('#examples-button');
  await page.waitForSelector('#gallery');
  await page.fill('#gallery-filter', id);
  await page.click(`#gallery [data-example="${id}"]`);
  await page.waitForSelector('#gallery', { state: 'detached' });
}

/** Waits until the editor holds `want` and the IR pane reflects it. */
async function typeAtEnd(page, text) {
  await page.click('.cm-content');
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text, { delay: 5 });
}

const BOOK_SCHEDULE_STEPS = 5; // original + split, reorder, reverse_compute_at, decompose_reduction
const latencies = [];

// A page of `ctx` made cross-origin isolated by the service worker (this
// server sends no COOP/COEP headers): load, wait for the worker, reload.
async function isolatedPage(ctx, url) {
  const page = await ctx.newPage();
  const errors = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
  if (await page.evaluate(() => window.crossOriginIsolated)) throw new Error('isolated on the first load: the server sends headers?');
  await page.evaluate(() => navigator.serviceWorker.ready);
  await page.reload({ waitUntil: 'load' });
  await page.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
  if (!(await page.evaluate(() => window.crossOriginIsolated))) throw new Error('not cross-origin isolated on the second load (service worker headers)');
  return { page, errors };
}

const tests = [
  // Every later test needs this one: if it fails, they are not run.
  ['page loads: header, editor, IR of the default example', async ({ page, url, errors }) => {
    await page.goto(url, { waitUntil: 'load' });
    try {
      await page.waitForSelector('header h1', { timeout: TIMEOUT_MS });
      await page.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
    } catch (e) {
      const seen = errors.length ? `; errors seen:\n  ${errors.join('\n  ')}` : '';
      throw new Error(`the app did not render within ${TIMEOUT_MS} ms${seen}`);
    }
    const title = await page.title();
    if (title !== 'Tessel') throw new Error(`title is ${JSON.stringify(title)}, want "Tessel"`);
    const bg = await page.evaluate(() => getComputedStyle(document.querySelector('header')).backgroundColor);
    if (bg === 'rgba(0, 0, 0, 0)') throw new Error('header has no background: static/style.css not applied');
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('def mm_relu'), 'the printed mm_relu');
    await page.waitForFunction(() => /step 4 \/ 4/.test(document.querySelector('#step-label')?.textContent ?? ''));
    await shot(page, '01-loaded.png');
  }],

  ['typing in the editor updates the IR (debounced, in the worker)', async ({ page }) => {
    await openExample(page, 'mm_relu_start');
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('for i, j, k in T.grid(128, 128, 128)'), 'the unscheduled mm_relu');
    // Long main-thread tasks while typing (the compiler runs in a worker).
    await page.evaluate(() => {
      window.__longTasks = [];
      new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((e) => e.duration)))
        .observe({ type: 'longtask' });
    });
    await typeAtEnd(page, 'b = sch.get_block("C")\ni, j = sch.get_loops(b)\nsch.parallel(i)\n');
    const long = await page.evaluate(() => window.__longTasks);
    console.log(`e2e: main-thread tasks over 50 ms while typing 47 characters: ${long.length ? long.map((d) => d.toFixed(0) + ' ms').join(', ') : 'none'}`);
    const text = await doc(page);
    if (!text.includes('sch.parallel(i)')) throw new Error(`the editor holds:\n${text.slice(-200)}`);
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('T.parallel(128)'), 'a parallel loop after typing sch.parallel(i)');
    await shot(page, '02-typed.png');
  }],

  ['a broken program shows a spanned error with its message on hover', async ({ page }) => {
    // C is the output block: compute_inline refuses it.
    await typeAtEnd(page, 'sch.compute_inline(b)\n');
    await page.waitForSelector('.cm-lintRange-error', { timeout: TIMEOUT_MS });
    const marked = await page.$eval('.cm-lintRange-error', (el) => el.textContent);
    if (marked !== 'sch.compute_inline(b)') throw new Error(`the squiggle covers ${JSON.stringify(marked)}, want the compute_inline call`);
    await page.hover('.cm-lintRange-error');
    await page.waitForSelector('.cm-tooltip-lint', { timeout: TIMEOUT_MS });
    const tip = await page.textContent('.cm-tooltip-lint');
    if (!/output block/.test(tip)) throw new Error(`hover says ${JSON.stringify(tip)}`);
    await page.waitForSelector('details.marked pre');
    const consoleText = await page.textContent('#console');
    if (!/line \d+:\d+/.test(consoleText)) throw new Error(`the console does not list the error: ${consoleText.slice(0, 300)}`);
    await shot(page, '03-error.png');
    // A syntax error in the module part: an exact span too.
    await page.evaluate(() => {
      const ed = window.TesselEditor.current;
      ed.setDoc(ed.getDoc().replace('def mm_relu(', 'def mm_relu(('), true);
    });
    await page.waitForFunction(() => document.querySelector('#compile-status')?.textContent.includes('error'), null, { timeout: TIMEOUT_MS });
    await page.waitForSelector('.cm-lintRange-error', { timeout: TIMEOUT_MS });
    await shot(page, '03b-syntax-error.png');
  }],

  ['step through the trace of the book schedule, with a diff', async ({ page }) => {
    await openExample(page, 'mm_relu');
    await page.waitForFunction((n) => document.querySelectorAll('#trace-steps li').length === n, BOOK_SCHEDULE_STEPS, { timeout: TIMEOUT_MS });
    await page.waitForFunction(() => /step 4 \/ 4: .*decompose_reduction/.test(document.querySelector('#step-label').textContent));
    const last = await irText(page);
    if (!last.includes('Y_init')) throw new Error('the last step has no Y_init block');
    await page.click('#trace-steps li:nth-child(2) button');
    await page.waitForFunction(() => /step 1 \/ 4: .*split/.test(document.querySelector('#step-label').textContent));
    const afterSplit = await irText(page);
    if (!afterSplit.includes('j_0') || afterSplit.includes('Y_init')) throw new Error(`step 1 IR unexpected:\n${afterSplit.slice(0, 400)}`);
    await page.click('button[aria-label="Next step"]');
    await page.waitForFunction(() => /step 2 \/ 4: .*reorder/.test(document.querySelector('#step-label').textContent));
    await page.selectOption('#compare-select', '1');
    await page.waitForSelector('#ir-diff .irl.add');
    const added = await page.$$eval('#ir-diff .irl.add', (els) => els.map((e) => e.textContent));
    const removed = await page.$$eval('#ir-diff .irl.del', (els) => els.map((e) => e.textContent));
    if (!added.length || !removed.length) throw new Error('the diff shows no added or removed lines');
    await shot(page, '04-diff.png');
    await page.selectOption('#compare-select', '');
  }],

  ['apply split, reorder and reverse_compute_at by clicking', async ({ page }) => {
    await openExample(page, 'mm_relu_start');
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('T.grid(128, 128, 128)'), 'the unscheduled mm_relu');
    // split j
    await page.click('#ir-view button.irtarget[data-kind="loop"][data-name="j"]');
    await page.waitForSelector('#primitives');
    await page.fill('#prim-split-arg', 'None, 4');
    await page.click('#prim-split');
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('j_1'), 'j_0 and j_1 after split');
    // reorder j_0, k, j_1
    await page.click('#ir-view button.irtarget[data-kind="loop"][data-name="j_0"]');
    await page.fill('#prim-reorder-arg', 'j_0, k, j_1');
    await page.click('#prim-reorder');
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('for i, j_0, k, j_1 in T.grid(128, 32, 128, 4)'), 'k between j_0 and j_1 after reorder');
    // reverse_compute_at C under j_0
    await page.click('#ir-view button.irtarget[data-kind="loop"][data-name="j_0"]');
    await page.selectOption('#prim-reverse_compute_at-arg', 'C');
    await page.click('#prim-reverse_compute_at');
    await page.waitForFunction(() => document.querySelectorAll('#trace-steps li').length === 4, null, { timeout: TIMEOUT_MS });
    const text = await doc(page);
    for (const want of ['sch.split(j, factors=[None, 4])', 'sch.reorder(j_0, k, j_1)', 'sch.reverse_compute_at(sch.get_block("C"), j_0)']) {
      if (!text.includes(want)) throw new Error(`the script lacks ${want}:\n${text.slice(-600)}`);
    }
    // The loop-nest picture and the regions of one iteration of j_0.
    await page.click('#nest button.nest-head[data-name="j_0"]');
    await page.waitForSelector('#regions figure.region');
    const regions = await page.$$eval('#regions figcaption code', (els) => els.map((e) => e.textContent));
    if (!regions.some((r) => r.startsWith('A[i, 0:128]'))) throw new Error(`regions: ${regions.join(' | ')}`);
    await shot(page, '05-clicked.png');
  }],

  ['run on the CPU backend (wasm SIMD128): the scheduled program matches the original', async ({ page }) => {
    // Chromium's engine has relaxed SIMD: the FMA backend is offered.
    const fma = await page.$eval('#backend option[value="wasm-fma"]', (o) => ({ disabled: o.disabled, title: o.title }));
    if (fma.disabled) throw new Error(`the relaxed-FMA backend is disabled: ${fma.title}`);
    await page.selectOption('#backend', 'wasm');
    await page.click('#run-button');
    await page.waitForFunction(() => document.querySelector('#run-verdict')?.dataset.backend === 'wasm', null, { timeout: 60_000 });
    const verdict = await page.textContent('#run-verdict');
    const message = await page.textContent('#run-message');
    if (!verdict.includes('outputs match')) throw new Error(`CPU run: ${verdict} — ${message}`);
    const backend = await page.textContent('#run-backend');
    if (!backend.includes('WebAssembly')) throw new Error(`run backend shows ${backend}`);
    const err = await page.textContent('#run-error');
    if (!err.includes(' / ') || err.includes('—')) throw new Error(`max error cell: ${err}`);
    const time = await page.textContent('#run-time');
    if (!/\d/.test(time)) throw new Error(`no run time: ${time}`);
    const gflops = await page.textContent('#run-gflops');
    console.log(`e2e: mm_relu (split/reorder/reverse_compute_at) on the CPU backend: ${time}, ${gflops} GFLOPS, max error ${err}`);
    await shot(page, '06-run-cpu.png');
    // The reference interpreter still answers too.
    await page.selectOption('#backend', 'interpreter');
    await page.click('#run-button');
    await page.waitForFunction(() => document.querySelector('#run-verdict')?.dataset.backend === 'interpreter', null, { timeout: 60_000 });
    if (!(await page.textContent('#run-verdict')).includes('outputs match')) throw new Error('the interpreter run does not match');
    const itime = await page.textContent('#run-time');
    console.log(`e2e: the same on the reference interpreter: ${itime}`);
    await page.selectOption('#backend', 'wasm');
  }],

  ['generated code pane: WAT and lowered TIR of the step; a GPU error names the loop', async ({ page }) => {
    await page.waitForFunction(() => document.querySelector('#code-target')?.dataset.backend === 'wasm' && document.querySelector('#code-text'), null, { timeout: TIMEOUT_MS });
    const wat = await page.textContent('#code-text');
    if (!wat.includes('(module') || !wat.includes('(func $mm_relu')) throw new Error(`the code pane shows:\n${wat.slice(0, 300)}`);
    if (!wat.includes('(import "env" "memory"')) throw new Error('the WAT does not import env.memory');
    await page.click('#code-show-lowered');
    const lowered = await page.textContent('#code-text');
    if (!lowered.includes('j_0')) throw new Error(`the lowered TIR lacks the scheduled loop j_0:\n${lowered.slice(0, 400)}`);
    await shot(page, '06b-code-wat.png');
    // Step back to the original: the code follows the selected step.
    await page.click('#trace-steps li:nth-child(1) button');
    await page.waitForFunction(() => document.querySelector('#code-target')?.textContent.includes('step 0'), null, { timeout: TIMEOUT_MS });
    const lowered0 = await page.textContent('#code-text');
    if (lowered0.includes('j_0')) throw new Error('the lowered TIR of step 0 still has j_0');
    await page.click('#trace-steps li:last-child button');
    await page.click('#code-show-code');
    // No loop of mm_relu is bound to GPU threads: the WGSL view says which.
    const gpuOk = await page.evaluate(() => !document.querySelector('#backend option[value="webgpu"]').disabled);
    if (gpuOk) {
      await page.selectOption('#backend', 'webgpu');
      await page.waitForSelector('#code-error', { timeout: TIMEOUT_MS });
      const msg = await page.textContent('#code-error');
      if (!/loop/.test(msg) || !/bind/.test(msg)) throw new Error(`the GPU error does not name the loop: ${msg}`);
      console.log(`e2e: GPU code for unbound mm_relu: ${msg.slice(0, 160)}`);
      await shot(page, '06c-code-gpu-error.png');
      await page.selectOption('#backend', 'wasm');
    }
  }],

  ['a share link reproduces the state in a fresh browser context', async ({ page, browser, url }) => {
    await page.click('#share-button');
    await page.waitForSelector('#share-link');
    const link = await page.inputValue('#share-link');
    if (!link.includes('#v1.')) throw new Error(`share link ${link}`);
    const want = await doc(page);
    const wantLabel = await page.textContent('#step-label');
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 760 } });
    try {
      const p2 = await fresh.newPage();
      await p2.goto(link, { waitUntil: 'load' });
      await p2.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
      await p2.waitForFunction((w) => document.querySelector('#step-label')?.textContent === w, wantLabel, { timeout: TIMEOUT_MS });
      const got = await doc(p2);
      if (got !== want) throw new Error('the shared editor text differs');
      await p2.screenshot({ path: join(outDir, '07-shared.png') });
    } finally {
      await fresh.close();
    }
  }],

  ['embed mode: minimal chrome, read-only example', async ({ page, browser, url }) => {
    const ctx = await browser.newContext({ viewport: { width: 900, height: 560 } });
    try {
      const p = await ctx.newPage();
      await p.goto(`${url}?embed=1&example=vecadd_schedule&readonly=1`, { waitUntil: 'load' });
      await p.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
      await p.waitForFunction(() => document.querySelector('#ir-view')?.innerText.includes('T.parallel'), null, { timeout: TIMEOUT_MS });
      if (await p.$('#examples-button')) throw new Error('embed mode shows the examples button');
      if (!(await p.$('a:has-text("Open in Tessel")'))) throw new Error('embed mode has no "Open in Tessel" link');
      const editable = await p.$eval('.cm-content', (el) => el.getAttribute('contenteditable'));
      if (editable !== 'false') throw new Error(`read-only embed editor is editable (${editable})`);
      await p.screenshot({ path: join(outDir, '08-embed.png') });
    } finally {
      await ctx.close();
    }
  }],

  ['exercise embedded in a course page: wrong answer, hint, right answer, progress kept', async ({ browser, url }) => {
    const origin = new URL(url).origin;
    const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 } });
    try {
      const p = await ctx.newPage();
      // Every file the embedded playground fetches (its workers' too).
      const fetched = new Set();
      p.on('request', (r) => {
        const u = new URL(r.url());
        if (u.origin === origin && u.pathname.startsWith(SUB_PATH)) fetched.add(u.pathname.slice(SUB_PATH.length) || 'index.html');
      });
      const frameOf = async () => {
        await p.goto(`${origin}${COURSE_PAGE}`, { waitUntil: 'load' });
        const frame = await (await p.waitForSelector('#exercise-frame')).contentFrame();
        await frame.waitForSelector('#exercise-title', { timeout: TIMEOUT_MS });
        await frame.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
        return frame;
      };
      const editorDoc = (f) => f.evaluate(() => window.TesselEditor.current.getDoc());
      let f = await frameOf();
      const title = await f.textContent('#exercise-title');
      if (!title.includes('Broadcast add')) throw new Error(`exercise title: ${title}`);
      // The statement is Markdown: `add` as code, the formula as a code block.
      await f.waitForSelector('#exercise-statement[data-rendered="markdown"] p code', { timeout: TIMEOUT_MS });
      const statement = await f.$eval('#exercise-statement', (el) => ({
        code: [...el.querySelectorAll('p code')].map((c) => c.textContent),
        block: el.querySelector('pre code')?.textContent ?? '',
        text: el.textContent,
      }));
      if (!statement.code.includes('add') || !statement.block.includes('C[i, j] = A[i, j] + B[j]') || statement.text.includes('`')) {
        throw new Error(`the statement is not rendered Markdown: ${JSON.stringify(statement)}`);
      }
      if (await f.$('#run-button')) throw new Error('the embedded exercise shows Run');
      if (await f.$('#examples-button')) throw new Error('the embedded exercise shows the gallery');
      if (!(await f.$('a:has-text("Open in Tessel")'))) throw new Error('no "Open in Tessel" link');
      // Before a backend is used, the page has fetched only the core
      // worker, and everything it fetched fits the embedded page's goal.
      const firstLoad = [...fetched].sort();
      if (!firstLoad.includes('core-worker_bg.wasm')) throw new Error(`the core worker was not fetched: ${firstLoad.join(', ')}`);
      if (firstLoad.includes('worker_bg.wasm')) throw new Error(`the full worker was fetched before a backend was used: ${firstLoad.join(', ')}`);
      // No exercise is compiled into the page: it fetched this one's file
      // (and the list), no other exercise's.
      const exerciseFiles = firstLoad.filter((file) => file.startsWith('exercises/') && file !== 'exercises/index.json');
      if (exerciseFiles.join() !== 'exercises/broadcast-add.json') throw new Error(`exercise files fetched: ${exerciseFiles.join(', ')}`);
      const gz = firstLoad.reduce((n, file) => n + gzipSync(readFileSync(join(dist, file)), { level: 9 }).length, 0);
      console.log(`e2e: an embedded exercise's first load: ${firstLoad.length} files, ${gz} bytes gzipped (${firstLoad.join(', ')})`);
      if (gz > 1_500_000) throw new Error(`the embedded exercise's first load is ${gz} bytes gzipped, over the 1.5 MB goal`);
      const start = await editorDoc(f);
      if (!start.includes('# TODO: add B')) throw new Error(`the editor does not hold the starting code:\n${start}`);
      // The starting code is wrong: the numbers check names the element.
      await f.click('#check-button');
      await f.waitForSelector('#verdict [data-check="numbers"].fail', { timeout: TIMEOUT_MS });
      const wrong = await f.textContent('#verdict [data-check="numbers"]');
      if (!wrong.includes('output `C` differs from the reference: at index [0, 0]')) throw new Error(`wrong-answer message: ${wrong}`);
      if (!(await f.textContent('#verdict .verdict-summary')).startsWith('Not yet')) throw new Error('the summary does not say "Not yet"');
      // A hint, one at a time.
      if ((await f.$$('#hints li')).length !== 0) throw new Error('hints shown before asking');
      await f.click('#hint-button');
      await f.waitForSelector('#hints li');
      const hint = await f.textContent('#hints li');
      if (!hint.includes('`B` has one axis')) throw new Error(`first hint: ${hint}`);
      await p.screenshot({ path: join(outDir, '10-exercise-wrong.png') });
      // The right answer passes.
      const right = start.replace(/ *# TODO: add B, broadcast along the rows\n/, '').replace('C[vi, vj] = A[vi, vj]', 'C[vi, vj] = A[vi, vj] + B[vj]');
      await f.evaluate((t) => window.TesselEditor.current.setDoc(t, true), right);
      await f.click('#check-button');
      await f.waitForSelector('#verdict.passed', { timeout: TIMEOUT_MS });
      const verdict = await f.textContent('#verdict');
      if (!verdict.includes('All checks passed')) throw new Error(`verdict: ${verdict}`);
      await p.screenshot({ path: join(outDir, '11-exercise-passed.png') });
      // Checking ran the answer on the CPU backend: the full worker (with
      // the code generators) was fetched for it, not before.
      if (!fetched.has('worker_bg.wasm')) throw new Error(`Check did not fetch the full worker: ${[...fetched].join(', ')}`);
      // After a reload the answer and the hint are still there.
      await p.waitForTimeout(500);
      f = await frameOf();
      await f.waitForFunction((t) => window.TesselEditor.current?.getDoc() === t, right, { timeout: TIMEOUT_MS });
      await f.waitForSelector('#hints li', { timeout: TIMEOUT_MS });
      // Reset goes back to the starting code.
      await f.click('#reset-button');
      await f.waitForFunction((t) => window.TesselEditor.current.getDoc() === t, start, { timeout: TIMEOUT_MS });
      if ((await f.$$('#hints li')).length !== 0) throw new Error('reset kept the hints');
    } finally {
      await ctx.close();
    }
  }],

  ["the page's own wasm uses no relaxed SIMD (Safari's engine would reject it)", async () => {
    if (!hasRelaxedSimd(new Uint8Array(RELAXED_SIMD_PROBE))) throw new Error('the scanner does not see the probe\'s relaxed_madd');
    // Node 20's engine has no relaxed SIMD: it validates each file exactly.
    const nodeLacksIt = !WebAssembly.validate(new Uint8Array(RELAXED_SIMD_PROBE));
    const files = readdirSync(dist).filter((f) => f.endsWith('.wasm'));
    if (files.length < 3) throw new Error(`only ${files.join(', ')} in dist/`);
    const how = [];
    for (const file of files) {
      const bytes = readFileSync(join(dist, file));
      if (hasRelaxedSimd(bytes)) throw new Error(`${file} has a relaxed-SIMD instruction`);
      if (nodeLacksIt) {
        try {
          new WebAssembly.Module(bytes);
          how.push(`${file}: valid without relaxed SIMD`);
        } catch (e) {
          if (/relaxed/i.test(e.message)) throw new Error(`${file} needs relaxed SIMD: ${e.message}`);
          how.push(`${file}: scanned (node ${process.version} cannot compile it: ${e.message.slice(0, 80)})`);
        }
      } else {
        how.push(`${file}: scanned`);
      }
    }
    console.log(`e2e: no relaxed SIMD in the page's wasm: ${how.join('; ')}`);
  }],

  ['no relaxed SIMD (as in Safari): an embedded exercise loads and checks its solution, with a note; scripts get plain SIMD', async ({ browser, url }) => {
    const origin = new URL(url).origin;
    // No service worker: every worker script comes from the server, shimmed.
    const ctx = await browser.newContext({ viewport: { width: 1100, height: 800 }, serviceWorkers: 'block' });
    await ctx.addInitScript({ content: NO_RELAXED_SIMD_SHIM });
    try {
      const p = await ctx.newPage();
      const problems = [];
      p.on('pageerror', (e) => problems.push(`uncaught: ${e.message}`));
      // (A course page of its own has no icon: its /favicon.ico is not the playground's.)
      p.on('console', (m) => { if (m.type() === 'error' && !m.text().startsWith('Failed to load resource')) problems.push(`console.error: ${m.text()}`); });
      p.on('response', (r) => { if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`HTTP ${r.status()}: ${r.url()}`); });
      const fetched = new Set();
      p.on('request', (r) => {
        const u = new URL(r.url());
        if (u.pathname.startsWith(NO_RELAXED_PATH)) fetched.add(u.pathname.slice(NO_RELAXED_PATH.length));
      });
      await p.goto(`${origin}/course/no-relaxed-simd.html`, { waitUntil: 'load' });
      const f = await (await p.waitForSelector('#exercise-1')).contentFrame();
      await f.waitForSelector('#exercise-title', { timeout: TIMEOUT_MS });
      await f.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
      if (await f.evaluate((probe) => WebAssembly.validate(new Uint8Array(probe)), RELAXED_SIMD_PROBE)) {
        throw new Error('the shim is not active in the embedded page');
      }
      const note = await f.textContent('#capability-note');
      if (!/no relaxed SIMD/.test(note) || !/plain SIMD128/.test(note)) throw new Error(`the note says: ${note}`);
      // The exercise's own solution passes; the check ran on the CPU
      // backend, in the full worker, under the shim.
      await f.evaluate((t) => window.TesselEditor.current.setDoc(t, true), servedExercise('broadcast-add').solution);
      await f.click('#check-button');
      await f.waitForSelector('#verdict', { timeout: 60_000 });
      const verdict = await f.$eval('#verdict', (el) => ({ passed: el.classList.contains('passed'), text: el.textContent }));
      if (!verdict.passed) throw new Error(`the solution did not pass: ${verdict.text}`);
      if (!fetched.has('worker_bg.wasm')) throw new Error(`Check did not use the full worker: ${[...fetched].join(', ')}`);
      await p.screenshot({ path: join(outDir, '13-no-relaxed-simd-exercise.png') });
      // The full page on the same browser: FMA greyed out with the reason,
      // and a script asking for relaxed SIMD gets the plain-SIMD build with
      // a note (the worker, shimmed too, saw no relaxed SIMD).
      const full = await ctx.newPage();
      full.on('pageerror', (e) => problems.push(`uncaught (full page): ${e.message}`));
      await full.goto(`${origin}${NO_RELAXED_PATH}`, { waitUntil: 'load' });
      await full.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
      const fma = await full.$eval('#backend option[value="wasm-fma"]', (o) => ({ disabled: o.disabled, title: o.title }));
      if (!fma.disabled || !/no relaxed SIMD/.test(fma.title)) throw new Error(`the FMA option: ${JSON.stringify(fma)}`);
      await full.evaluate((t) => window.TesselEditor.current.setDoc(t, true), RELAXED_SIMD_SCRIPT);
      await full.waitForFunction(() => /(True|False) (True|False)/.test(document.querySelector('#console .console-text')?.textContent ?? ''), null, { timeout: 60_000 });
      const out = await full.textContent('#console .console-text');
      if (!out.includes('False True')) throw new Error(`the build used relaxed SIMD, or no SIMD:\n${out.slice(0, 900)}`);
      if (!out.includes('does not have: built with plain SIMD128')) throw new Error(`no note about the plain-SIMD build:\n${out.slice(0, 900)}`);
      await full.click('#device-button');
      await full.waitForSelector('#capabilities tr[data-cap="relaxed-simd"][data-ok="no"]', { timeout: TIMEOUT_MS });
      await full.screenshot({ path: join(outDir, '14-no-relaxed-simd-device.png') });
      if (problems.length) throw new Error(`errors on the page:\n  ${problems.join('\n  ')}`);
      console.log(`e2e: without relaxed SIMD: ${verdict.text.trim().slice(0, 60)}…; the script's note: ${out.match(/note: target[^\n]*/)?.[0] ?? ''}`);
    } finally {
      await ctx.close();
    }
  }],

  ['course progress across embedded exercises: one view, exported and imported', async ({ browser, url }) => {
    const origin = new URL(url).origin;
    const ctx = await browser.newContext({ viewport: { width: 1100, height: 1500 }, acceptDownloads: true });
    const fresh = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    try {
      const p = await ctx.newPage();
      await p.goto(`${origin}/course/two-exercises.html`, { waitUntil: 'load' });
      const frame = async (n) => {
        const f = await (await p.waitForSelector(`#exercise-${n}`)).contentFrame();
        await f.waitForSelector('#exercise-title', { timeout: TIMEOUT_MS });
        await f.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
        return f;
      };
      const [add, numpy] = [await frame(1), await frame(2)];
      // The NumPy exercise's starting code fails: attempted.
      await numpy.click('#check-button');
      await numpy.waitForSelector('#verdict', { timeout: 60_000 });
      if (await numpy.$('#verdict.passed')) throw new Error('the starting code passed');
      // The other iframe's solution passes.
      await add.evaluate((t) => window.TesselEditor.current.setDoc(t, true), servedExercise('broadcast-add').solution);
      await add.click('#check-button');
      await add.waitForSelector('#verdict.passed', { timeout: 60_000 });
      // Either iframe's Progress view shows both (one storage per origin).
      await numpy.click('#progress-button');
      await numpy.waitForSelector('#progress-table tr[data-exercise="broadcast-add"][data-status="passed"]', { timeout: TIMEOUT_MS });
      await numpy.waitForSelector('#progress-table tr[data-exercise="numpy-broadcast"][data-status="attempted"]', { timeout: TIMEOUT_MS });
      const summary = await numpy.textContent('#progress-summary');
      if (!summary.startsWith('1 of ') || !summary.includes('1 attempted')) throw new Error(`summary: ${summary}`);
      await p.screenshot({ path: join(outDir, '15-progress.png') });
      // Export: a JSON file, no server.
      const [download] = await Promise.all([p.waitForEvent('download'), numpy.click('#progress-export')]);
      const text = readFileSync(await download.path(), 'utf8');
      const file = JSON.parse(text);
      const got = (id) => file.exercises?.[id] ?? {};
      if (file.format !== 'tessel-progress' || file.version !== 1) throw new Error(`exported header: ${text.slice(0, 120)}`);
      if (got('broadcast-add').passed !== true || got('broadcast-add').attempts !== 1) throw new Error(`broadcast-add exported as ${JSON.stringify(got('broadcast-add'))}`);
      if (got('numpy-broadcast').passed !== false || got('numpy-broadcast').attempts !== 1) throw new Error(`numpy-broadcast exported as ${JSON.stringify(got('numpy-broadcast'))}`);
      // Import on another browser profile: a bad file is refused with its
      // problems, the exported one restores the progress.
      const q = await fresh.newPage();
      await q.goto(url, { waitUntil: 'load' });
      await q.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
      await q.click('#progress-button');
      await q.waitForSelector('#progress-table tr[data-exercise="broadcast-add"][data-status="not-attempted"]', { timeout: TIMEOUT_MS });
      const upload = (name, content) => q.setInputFiles('#progress-import', { name, mimeType: 'application/json', buffer: Buffer.from(content) });
      const bad = JSON.parse(text);
      bad.exercises['broadcast-add'].passed = 'yes';
      await upload('bad.json', JSON.stringify(bad));
      await q.waitForSelector('#progress-status.bad', { timeout: TIMEOUT_MS });
      const refused = await q.textContent('#progress-status');
      if (!refused.includes('nothing was imported') || !refused.includes('exercises.broadcast-add.passed: "yes" instead of true or false')) throw new Error(`the bad file: ${refused}`);
      await upload('notes.json', '{"format": "my-notes", "version": 1}');
      await q.waitForFunction(() => document.querySelector('#progress-status')?.textContent.includes('not a Tessel progress file'), null, { timeout: TIMEOUT_MS });
      if (!(await q.$('#progress-table tr[data-exercise="broadcast-add"][data-status="not-attempted"]'))) throw new Error('a refused file changed the progress');
      await upload('tessel-progress.json', text);
      await q.waitForFunction(() => document.querySelector('#progress-status')?.textContent.startsWith('imported 2 exercises'), null, { timeout: TIMEOUT_MS });
      await q.waitForSelector('#progress-table tr[data-exercise="broadcast-add"][data-status="passed"]', { timeout: TIMEOUT_MS });
      await q.waitForSelector('#progress-table tr[data-exercise="numpy-broadcast"][data-status="attempted"]', { timeout: TIMEOUT_MS });
      await q.screenshot({ path: join(outDir, '16-progress-imported.png') });
      console.log(`e2e: progress exported (${text.length} characters) and imported: ${await q.textContent('#progress-status')}`);
    } finally {
      await fresh.close();
      await ctx.close();
    }
  }],

  ['the Device panel shows what this browser offers', async ({ page }) => {
    await page.click('#device-button');
    await page.waitForSelector('#capabilities tr[data-cap="webgpu"]:not([data-ok="checking"])', { timeout: TIMEOUT_MS });
    const facts = await page.$$eval('#capabilities tr[data-cap]', (rows) => Object.fromEntries(rows.map((r) => [r.dataset.cap, { ok: r.dataset.ok, text: r.querySelector('td').textContent }])));
    const truth = await page.evaluate(async () => {
      const a = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
      return {
        threads: crossOriginIsolated && typeof SharedArrayBuffer === 'function' && navigator.hardwareConcurrency > 1,
        cores: navigator.hardwareConcurrency,
        gpu: !!a,
        timestamps: a ? a.features.has('timestamp-query') : null,
        invocations: a?.limits.maxComputeInvocationsPerWorkgroup,
        storage: a?.limits.maxComputeWorkgroupStorageSize,
      };
    });
    const fact = (cap) => facts[cap] ?? { ok: 'absent', text: '' };
    // Chromium's engine has relaxed SIMD.
    if (fact('relaxed-simd').ok !== 'yes') throw new Error(`relaxed SIMD: ${JSON.stringify(fact('relaxed-simd'))}`);
    if (fact('threads').ok !== (truth.threads ? 'yes' : 'no') || !fact('threads').text.includes(`${truth.cores} core`)) throw new Error(`threads: ${JSON.stringify(fact('threads'))}, the page has ${JSON.stringify(truth)}`);
    if (fact('webgpu').ok !== (truth.gpu ? 'yes' : 'no')) throw new Error(`WebGPU: ${JSON.stringify(fact('webgpu'))}`);
    if (truth.gpu) {
      if (fact('timestamp-query').ok !== (truth.timestamps ? 'yes' : 'no')) throw new Error(`timestamps: ${JSON.stringify(fact('timestamp-query'))}, adapter: ${truth.timestamps}`);
      const limits = fact('gpu-limits').text;
      for (const want of [`maxComputeInvocationsPerWorkgroup ${truth.invocations}`, `maxComputeWorkgroupStorageSize ${truth.storage}`]) {
        if (!limits.includes(want)) throw new Error(`GPU limits: ${limits}; want ${want}`);
      }
    }
    await shot(page, '17-device.png');
    console.log(`e2e: the Device panel: ${Object.entries(facts).map(([k, v]) => `${k}: ${v.text}`).join(' | ')}`);
    await page.click('#device-panel button[aria-label="Close"]');
    await page.waitForSelector('#device-panel', { state: 'detached' });
  }],

  ['a failed structure check shows both functions with the mismatch highlighted', async ({ browser, url }) => {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
    try {
      const p = await ctx.newPage();
      await p.goto(`${url}?exercise=bmm-relu-transform`, { waitUntil: 'load' });
      await p.waitForSelector('#exercise-title', { timeout: TIMEOUT_MS });
      await p.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
      const start = await doc(p);
      if (!start.includes('# TODO: split')) throw new Error(`the editor does not hold the starting code:\n${start}`);
      // The book's schedule without its last step, `sch.unroll(k1)`.
      const partial = start.replace(/# TODO: split[^\n]*\n[^\n]*\n/, [
        'C = sch.get_block("C", func_name="bmm_relu")',
        'j0, j1 = sch.split(j, factors=[None, 8])',
        'k0, k1 = sch.split(k, factors=[None, 4])',
        'sch.reorder(j0, k0, k1, j1)',
        'sch.reverse_compute_at(C, j0)',
        'sch.parallel(b)',
        'Y_init = sch.decompose_reduction(Y, k0)',
        'sch.vectorize(sch.get_loops(Y_init)[-1])',
        'sch.vectorize(sch.get_loops(C)[-1])',
        '',
      ].join('\n'));
      if (partial === start) throw new Error('could not fill in the schedule');
      await p.evaluate((t) => window.TesselEditor.current.setDoc(t, true), partial);
      await p.click('#check-button');
      await p.waitForSelector('#verdict [data-check="structure"].fail', { timeout: TIMEOUT_MS });
      await p.waitForSelector('#structure-diff', { timeout: TIMEOUT_MS });
      const pane = async (id) => p.$eval(`#${id}`, (el) => {
        const ir = el.querySelector('.structure-ir');
        const box = ir.getBoundingClientRect();
        return {
          title: el.querySelector('.structure-title').textContent,
          lines: [...el.querySelectorAll('.irl')].length,
          hl: [...el.querySelectorAll('.irl.hl')].map((l) => {
            const r = l.getBoundingClientRect();
            return { text: l.textContent, visible: r.top >= box.top && r.bottom <= box.bottom };
          }),
          cols: el.querySelector('.irl.hl mark.hl-cols')?.textContent ?? null,
          scrolled: ir.scrollTop,
        };
      });
      const yours = await pane('structure-yours');
      const target = await pane('structure-target');
      const one = (side, name, want) => {
        if (side.hl.length !== 1) throw new Error(`${name}: ${side.hl.length} highlighted lines`);
        if (!side.hl[0].text.includes(want)) throw new Error(`${name}: highlighted ${JSON.stringify(side.hl[0].text)}, want ${want}`);
        if (!side.hl[0].visible) throw new Error(`${name}: the highlighted line is not scrolled into view`);
        if (side.lines < 20) throw new Error(`${name}: only ${side.lines} lines shown`);
      };
      one(yours, 'yours', 'for k_0, k_1, j_1 in T.grid(32, 4, 8):');
      one(target, 'target', 'for ax1_1 in T.unroll(4):');
      if (yours.cols !== 'k_1') throw new Error(`yours: marked columns ${yours.cols}`);
      if (!yours.title.startsWith('Your function') || !target.title.startsWith('Target')) throw new Error(`titles: ${yours.title} / ${target.title}`);
      // The page shows the same verdict text as before: where, yours, target.
      const details = await p.textContent('#verdict [data-check="structure"] .check-details');
      if (!details.includes('where: bmm_relu.')) throw new Error(`details: ${details}`);
      await p.$eval('#structure-diff', (el) => el.scrollIntoView());
      await p.screenshot({ path: join(outDir, '12-exercise-structure.png') });
      // Side by side on a wide screen, stacked on a narrow one.
      const sideBySide = async () => p.evaluate(() => {
        const a = document.querySelector('#structure-yours').getBoundingClientRect();
        const b = document.querySelector('#structure-target').getBoundingClientRect();
        return b.left >= a.right - 1;
      });
      if (!(await sideBySide())) throw new Error('the panes are not side by side on a wide screen');
      await p.setViewportSize({ width: 600, height: 900 });
      await p.waitForTimeout(200);
      if (await sideBySide()) throw new Error('the panes are side by side on a narrow screen');
    } finally {
      await ctx.close();
    }
  }],

  ['the gallery lists the exercises', async ({ page }) => {
    await page.click('#examples-button');
    await page.waitForSelector('#exercise-list [data-exercise="conv2d"]', { timeout: TIMEOUT_MS });
    const n = (await page.$$('#exercise-list [data-exercise]')).length;
    if (n < 12) throw new Error(`${n} exercises listed`);
    await page.keyboard.press('Escape');
    await page.waitForSelector('#gallery', { state: 'detached' });
  }],

  ['dark mode and keyboard-reachable controls', async ({ page }) => {
    await page.click('#theme-button');
    await page.waitForFunction(() => document.documentElement.dataset.theme === 'dark');
    await shot(page, '09-dark.png');
    await page.click('#theme-button');
    const unlabeled = await page.$$eval('button, select, input', (els) => els.filter((e) => {
      const name = e.getAttribute('aria-label') || e.textContent.trim() || e.id && document.querySelector(`label[for="${e.id}"]`) || e.closest('label') || e.title;
      return !name;
    }).map((e) => e.outerHTML.slice(0, 80)));
    if (unlabeled.length) throw new Error(`controls without a label:\n  ${unlabeled.join('\n  ')}`);
  }],

  ['a course notebook runs in the script interpreter (Python mode)', async ({ page }) => {
    await openExample(page, 'tutorial_tensorir_blitz');
    await page.waitForFunction(() => document.querySelector('#compile-status')?.dataset.fresh === 'true', null, { timeout: 60_000 });
    const out = await page.textContent('#console .console-text');
    if (!out.includes('T.prim_func')) throw new Error(`the console does not show the script's output:\n${out.slice(0, 300)}`);
    const steps = await page.$$eval('#trace-steps li', (els) => els.length);
    if (steps < 2) throw new Error(`the notebook's schedule shows ${steps} step(s)`);
    await shot(page, '10-notebook.png');
  }],

  ['a notebook whose middle cell fails runs to the end (as Jupyter)', async ({ page }) => {
    await openExample(page, 'tutorial_tensorir_blitz');
    await page.click('.cm-content');
    await page.keyboard.press('Control+A');
    await page.keyboard.type("x = 2\n# %%\nprint(undefined_name)\n# %%\nprint('after the failing cell', x)\n", { delay: 5 });
    await page.waitForFunction(
      () => (document.querySelector('#console .console-text')?.textContent ?? '').includes('after the failing cell 2'),
      null,
      { timeout: 60_000 },
    );
    const out = await page.textContent('#console .console-text');
    if (!out.includes("NameError: name 'undefined_name' is not defined")) throw new Error(`no traceback for the failing cell:\n${out.slice(0, 600)}`);
    if (out.indexOf('NameError') > out.indexOf('after the failing cell')) throw new Error(`the traceback is not under its cell:\n${out.slice(0, 600)}`);
    await page.waitForSelector('.cm-lintRange-error', { timeout: TIMEOUT_MS });
    await shot(page, '10b-notebook-failing-cell.png');
  }],

  ['rich display: HTML sanitised, Markdown rendered, Code highlighted', async ({ page }) => {
    const requests = [];
    const onRequest = (req) => requests.push(req.url());
    page.on('request', onRequest);
    const script = [
      'from IPython.display import HTML, Markdown, Code, display',
      `display(HTML('<p id="rich-p"><b>bold</b><script>window.__richScript = 1</script>'`
        + ` '<img src=x onerror="window.__richImg = 1"><a href="javascript:window.__richLink = 1">link</a>'`
        + ` '<iframe src="https://example.com/"></iframe><style>body { background: red }</style></p>'))`,
      '# %%',
      "Markdown('## Heading\\n\\n- one\\n- *two*')",
      '# %%',
      "Code('for i in range(4):\\n    x = i', language='python')",
      '',
    ].join('\n');
    try {
      await page.evaluate((t) => window.TesselEditor.current.setDoc(t, true), script);
      await page.waitForSelector('#console .rich-html[data-rendered="html"] b', { timeout: 60_000 });
      await page.waitForSelector('#console .rich-markdown[data-rendered="markdown"] h2', { timeout: TIMEOUT_MS });
      await page.waitForSelector('#console .rich-code[data-rendered="code"]', { timeout: TIMEOUT_MS });
      // Long enough for an image error handler or a fetch to have happened.
      await page.waitForTimeout(500);
      const html = await page.$eval('#console .rich-html', (el) => ({
        bold: el.querySelector('b')?.textContent,
        inner: el.innerHTML,
        scripts: el.querySelectorAll('script, iframe, style').length,
        img: el.querySelector('img') ? [...el.querySelector('img').attributes].map((a) => a.name) : null,
        href: el.querySelector('a')?.getAttribute('href') ?? null,
        pageIdTaken: !!document.getElementById('rich-p'),
        flags: [window.__richScript, window.__richImg, window.__richLink],
        background: getComputedStyle(document.body).backgroundColor,
      }));
      if (html.bold !== 'bold') throw new Error(`no bold element: ${html.inner}`);
      if (html.scripts) throw new Error(`a script, iframe or style survived: ${html.inner}`);
      if (!html.img || html.img.some((a) => a === 'onerror' || a === 'src')) throw new Error(`the image keeps ${html.img}: ${html.inner}`);
      if (html.href !== null) throw new Error(`the javascript: link kept its href ${html.href}`);
      if (html.pageIdTaken) throw new Error('displayed HTML took a page id');
      if (html.flags.some((f) => f !== undefined)) throw new Error(`displayed HTML ran code: flags ${html.flags}`);
      if (html.background === 'rgb(255, 0, 0)') throw new Error('a displayed style sheet restyled the page');
      const fetched = requests.filter((r) => r.endsWith('/x') || r.includes('example.com'));
      if (fetched.length) throw new Error(`displayed HTML loaded ${fetched.join(', ')}`);
      const md = await page.$eval('#console .rich-markdown', (el) => ({
        h2: el.querySelector('h2')?.textContent,
        items: [...el.querySelectorAll('li')].map((li) => li.textContent),
        em: el.querySelector('li em')?.textContent,
      }));
      if (md.h2 !== 'Heading' || md.items.join('|') !== 'one|two' || md.em !== 'two') throw new Error(`Markdown: ${JSON.stringify(md)}`);
      const code = await page.$eval('#console .rich-code', (el) => ({
        language: el.dataset.language,
        keywords: [...el.querySelectorAll('.tok-kw')].map((k) => k.textContent),
        text: el.textContent,
      }));
      if (code.language !== 'python' || !code.keywords.includes('for') || !code.text.includes('    x = i')) throw new Error(`Code: ${JSON.stringify(code)}`);
      // A tall window, so that the console shows all three displays.
      await page.setViewportSize({ width: 1366, height: 1300 });
      await shot(page, '10c-rich-display.png');
    } finally {
      await page.setViewportSize({ width: 1366, height: 768 });
      page.off('request', onRequest);
    }
  }],

  ['compile latency of the course programs and schedules', async ({ page }) => {
    await page.click('#examples-button');
    const all = await page.$$eval('#gallery .gallery-cat', (cats) => cats
      .filter((c) => /Course programs|Book schedules|Course schedules/.test(c.querySelector('h3').textContent))
      .flatMap((c) => [...c.querySelectorAll('[data-example]')].map((b) => b.dataset.example)));
    await page.keyboard.press('Escape');
    for (const id of all) {
      await openExample(page, id);
      await page.waitForFunction(() => document.querySelector('#compile-status')?.dataset.fresh === 'true', null, { timeout: TIMEOUT_MS });
      const ms = await page.$eval('#compile-status', (el) => parseFloat(el.dataset.compileMs));
      latencies.push([id, ms]);
    }
    const sorted = latencies.map(([, ms]) => ms).sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    console.log(`e2e: compile latency over ${sorted.length} examples: median ${median.toFixed(1)} ms, max ${sorted[sorted.length - 1].toFixed(1)} ms`);
    for (const [id, ms] of latencies) console.log(`e2e:   ${ms.toFixed(1).padStart(7)} ms  ${id}`);
    writeFileSync(join(outDir, 'compile-latency.json'), JSON.stringify(Object.fromEntries(latencies), null, 1));
  }],

  ['latency of the live session on the book\'s ch.2 notebook: keystroke to IR, loop click to menu and to regions', async ({ page }) => {
    // Figures, not limits (speed is judged in benchmarks): printed and
    // written to test-output/e2e/live-latency.json.
    await openExample(page, 'book_ch2_tensorir');
    const fresh = () => page.waitForFunction(() => document.querySelector('#compile-status')?.dataset.fresh === 'true', null, { timeout: 120_000 });
    await fresh();
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    // Keystroke to new IR: one character typed at the end (a comment), until
    // the IR of that text is shown.
    const keystroke = [];
    await typeAtEnd(page, '\n# latency ');
    await fresh();
    for (let i = 0; i < 3; i++) {
      await page.click('.cm-content');
      await page.keyboard.press('Control+End');
      const t0 = await page.evaluate(() => performance.now());
      await page.keyboard.type(String(i));
      await fresh();
      keystroke.push((await page.evaluate(() => performance.now())) - t0);
    }
    // A click, timed in the page until `done` holds (checked every frame).
    const clickUntil = (selector, done, arg) => page.evaluate(async ([selector, done, arg]) => {
      const ready = new Function('arg', `return (${done})(arg)`);
      const t0 = performance.now();
      document.querySelector(selector).click();
      return await new Promise((resolve, reject) => {
        const check = () => {
          if (ready(arg)) resolve(performance.now() - t0);
          else if (performance.now() - t0 > 120_000) reject(new Error(`not done within 120 s: ${done}`));
          else requestAnimationFrame(check);
        };
        check();
      });
    }, [selector, done.toString(), arg]);
    const loops = await page.$$eval('#nest button.nest-head[data-name]', (els) => els.map((e) => e.dataset.name));
    if (loops.length < 2) throw new Error(`the loop-nest view shows ${loops.length} loop(s)`);
    const toRegions = [];
    const toMenu = [];
    const regionsOf = (n) => document.querySelector('#regions h3')?.textContent === `one iteration of ${n}` && document.querySelector('#regions figure.region') !== null;
    for (let i = 0; i < 6; i++) {
      // A loop of the nest view (alternating, so the regions must change).
      const name = loops[i % 2];
      toRegions.push(await clickUntil(`#nest button.nest-head[data-name="${name}"]`, regionsOf, name));
      // The same loop from the IR, after closing its menu: until its menu shows.
      await page.click('#primitives button.hide');
      toMenu.push(await clickUntil(`#ir-view button.irtarget[data-kind="loop"][data-name="${name}"]`,
        (n) => document.querySelector('#memory-button')?.title === `Which elements of each buffer one iteration of ${n} touches`, name));
      // Settle: that click asked for the same regions again.
      await page.waitForFunction(regionsOf, name, { timeout: 120_000 });
    }
    const figures = {
      example: 'book_ch2_tensorir',
      keystroke_to_ir_ms: keystroke,
      loop_click_to_menu_ms: toMenu,
      loop_click_to_regions_ms: toRegions,
      median: { keystroke_to_ir_ms: median(keystroke), loop_click_to_menu_ms: median(toMenu), loop_click_to_regions_ms: median(toRegions) },
    };
    console.log(`e2e: live session on book_ch2_tensorir: keystroke→IR median ${median(keystroke).toFixed(0)} ms; loop click→menu ${median(toMenu).toFixed(1)} ms; loop click→regions ${median(toRegions).toFixed(1)} ms`);
    writeFileSync(join(outDir, 'live-latency.json'), JSON.stringify(figures, null, 1));
  }],

  ['offline after the first visit (service worker)', async ({ browser, url }) => {
    const ctx = await browser.newContext({ viewport: { width: 1280, height: 760 } });
    try {
      const p = await ctx.newPage();
      await p.goto(url, { waitUntil: 'load' });
      await p.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
      await p.waitForFunction(() => navigator.serviceWorker.controller !== null || navigator.serviceWorker.ready.then(() => false), null, { timeout: TIMEOUT_MS }).catch(() => {});
      await p.evaluate(() => navigator.serviceWorker.ready);
      // Reload once online so every asset goes through the service worker's cache.
      await p.reload({ waitUntil: 'load' });
      await p.waitForFunction(() => document.querySelector('#ir-view')?.innerText.includes('def '), null, { timeout: TIMEOUT_MS });
      await ctx.setOffline(true);
      await p.reload({ waitUntil: 'load' });
      await p.waitForFunction(() => document.querySelector('#ir-view')?.innerText.includes('def '), null, { timeout: TIMEOUT_MS });
      await p.screenshot({ path: join(outDir, '11-offline.png') });
    } finally {
      await ctx.close();
    }
  }],

  ['a script cell with tvm.build(target="llvm") runs on the browser CPU backend', async ({ page }) => {
    await openExample(page, 'tutorial_tensorir_blitz');
    await page.waitForFunction(() => document.querySelector('#compile-status')?.dataset.fresh === 'true', null, { timeout: 60_000 });
    const out = await page.textContent('#console .console-text');
    if (!/compiled to WebAssembly \(\d+ bytes\), running on this browser's CPU/.test(out)) throw new Error(`no note that tvm.build used the CPU backend:\n${out.slice(0, 600)}`);
    // mod(a, b) computed b = a + 1 on the wasm module.
    if (!/\[1\.\s+2\.\s+3\.\s+4\.\s+5\.\s+6\.\s+7\.\s+8\.\]/.test(out)) throw new Error(`b is not a + 1:\n${out.slice(0, 900)}`);
    await shot(page, '12-script-llvm.png');
  }],

  ['GPU backend (WebGPU): vector add bound to threads runs and matches', async ({ page }) => {
    await openExample(page, 'book_gpu_vecadd_bind');
    const gpu = await page.evaluate(() => document.querySelector('#backend').value);
    if (gpu !== 'webgpu') {
      const why = await page.$eval('#backend option[value="webgpu"]', (o) => o.title);
      throw new Error(`the GPU example did not select the GPU backend (${gpu}): ${why}`);
    }
    await page.waitForFunction(() => document.querySelector('#compile-status')?.dataset.fresh === 'true', null, { timeout: TIMEOUT_MS });
    await page.click('#run-button');
    await page.waitForFunction(() => document.querySelector('#run-verdict')?.dataset.backend === 'webgpu', null, { timeout: 60_000 });
    const verdict = await page.textContent('#run-verdict');
    const message = await page.textContent('#run-message');
    if (!verdict.includes('outputs match')) throw new Error(`GPU run: ${verdict} — ${message}`);
    const timing = await page.textContent('#run-timing');
    console.log(`e2e: vector add on WebGPU: ${await page.textContent('#run-time')} (${timing})`);
    await page.waitForFunction(() => document.querySelector('#code-target')?.dataset.backend === 'webgpu' && document.querySelector('#code-text'), null, { timeout: TIMEOUT_MS });
    const wgsl = await page.textContent('#code-text');
    if (!wgsl.includes('@compute') || !wgsl.includes('@workgroup_size')) throw new Error(`the code pane shows:\n${wgsl.slice(0, 300)}`);
    await shot(page, '13-gpu-vecadd.png');
  }],

  ['GPU backend: window sum with shared memory and the shared-memory matmul match', async ({ page }) => {
    for (const id of ['book_gpu_window_sum_3_coop_fetch', 'gpu_matmul_blocking_with_shared_256']) {
      await openExample(page, id);
      await page.waitForFunction(() => document.querySelector('#compile-status')?.dataset.fresh === 'true', null, { timeout: 60_000 });
      await page.evaluate(() => { const v = document.querySelector('#run-verdict'); if (v) v.dataset.backend = ''; });
      await page.click('#run-button');
      await page.waitForFunction(() => document.querySelector('#run-verdict')?.dataset.backend === 'webgpu', null, { timeout: 120_000 });
      const verdict = await page.textContent('#run-verdict');
      const message = await page.textContent('#run-message');
      if (!verdict.includes('outputs match')) throw new Error(`${id} on the GPU: ${verdict} — ${message}`);
      console.log(`e2e: ${id} on WebGPU: ${await page.textContent('#run-time')}, ${await page.textContent('#run-gflops')} GFLOPS, max error ${await page.textContent('#run-error')}`);
      const wgsl = await page.textContent('#code-text');
      if (!wgsl.includes('var<workgroup>')) throw new Error(`${id}: no var<workgroup> in the WGSL`);
      await shot(page, `14-gpu-${id}.png`);
    }
  }],

  ['GPU exercise: the speed check of the reference answer is timed on WebGPU', async ({ browser, url }) => {
    const ctx = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    try {
      const p = await ctx.newPage();
      const errors = [];
      p.on('pageerror', (err) => errors.push(err.message));
      await p.goto(`${url}?exercise=gpu-shared-memory`, { waitUntil: 'load' });
      await p.waitForSelector('#exercise-title', { timeout: TIMEOUT_MS });
      await p.waitForFunction(() => window.TesselEditor?.current?.getDoc().includes('# TODO: fetch A'), null, { timeout: TIMEOUT_MS });
      // The reference answer: the starting code plus the cooperative fetch
      // (the page never ships solutions).
      const start = await p.evaluate(() => window.TesselEditor.current.getDoc());
      const fetch = [
        'A_shared = sch.cache_read(block=block_C, read_buffer_index=0, storage_scope="shared")',
        'sch.compute_at(block=A_shared, loop=k0)',
        'inner0, inner1 = sch.get_loops(block=A_shared)[-2:]',
        'inner = sch.fuse(inner0, inner1)',
        '_, ftx = sch.split(loop=inner, factors=[None, 64])',
        'sch.bind(ftx, "threadIdx.x")',
      ].join('\n');
      const answer = start.replace("# TODO: fetch A's tile into shared memory, cooperatively", fetch);
      if (answer === start) throw new Error('the starting code has no TODO line to replace');
      await p.evaluate((t) => window.TesselEditor.current.setDoc(t, true), answer);
      await p.click('#check-button');
      await p.waitForSelector('#verdict [data-check="speed"]', { timeout: 120_000 });
      const status = async (name) => p.$eval(`#verdict [data-check="${name}"]`, (el) => ['pass', 'fail', 'skip'].find((c) => el.classList.contains(c)));
      const speed = await p.textContent('#verdict [data-check="speed"]');
      for (const name of ['runs', 'schedule', 'numbers']) {
        if ((await status(name)) !== 'pass') throw new Error(`${name}: ${await p.textContent(`#verdict [data-check="${name}"]`)}`);
      }
      // Timed, not skipped; SwiftShader runs the kernels on the CPU, so the
      // ratio it measures is not a GPU's: the numbers must be there, the pass
      // is not asserted.
      const speedStatus = await status('speed');
      if (speedStatus === 'skip') throw new Error(`the speed check was skipped: ${speed}`);
      const numbers = /yours: ([\d.]+ (?:µs|ms|s)), baseline: ([\d.]+ (?:µs|ms|s)) \(median of 5 runs each\): ([\d.]+)x/.exec(speed);
      if (!numbers) throw new Error(`no measured times in the speed check: ${speed}`);
      const verdictLine = speedStatus === 'pass' ? /is [\d.]+x as fast as the baseline \(needed 1x\)/ : /is [\d.]+x as fast as the baseline; it must reach 1x/;
      if (!verdictLine.test(speed)) throw new Error(`speed message: ${speed}`);
      const timing = await p.textContent('#verdict-timing');
      if (!timing.includes('WebGPU') || !/timestamp queries|wall clock/.test(timing)) throw new Error(`timing note: ${timing}`);
      console.log(`e2e: gpu-shared-memory speed on WebGPU: ${speedStatus}, yours ${numbers[1]}, baseline ${numbers[2]}, ${numbers[3]}x (${timing})`);
      await p.screenshot({ path: join(outDir, '15-gpu-exercise-speed.png') });
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    } finally {
      await ctx.close();
    }
  }],

  ['threads: a static host gets isolation from the service worker; T.parallel runs on several workers', async ({ browser, url }) => {
    // This server sends no COOP/COEP headers: static/sw.js adds them, so the
    // second load is cross-origin isolated.
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    try {
      const { page: p, errors } = await isolatedPage(ctx, url);
      // The notebook's In[41] (32x32 blocking) and In[46] (the same, the
      // outer loop parallel) at 256, so the reference check stays quick.
      const blocked = [
        'import tvm',
        'from tvm.script import tir as T',
        '',
        '@tvm.script.ir_module',
        'class Mod:',
        '    @T.prim_func',
        '    def main(A: T.Buffer((256, 256), "float32"), B: T.Buffer((256, 256), "float32"), C: T.Buffer((256, 256), "float32")):',
        '        T.func_attr({"global_symbol": "main", "tir.noalias": True})',
        '        for m, n, k in T.grid(256, 256, 256):',
        '            with T.block("C"):',
        '                v_m, v_n, v_k = T.axis.remap("SSR", [m, n, k])',
        '                with T.init():',
        '                    C[v_m, v_n] = T.float32(0.0)',
        '                C[v_m, v_n] = C[v_m, v_n] + A[v_m, v_k] * B[v_k, v_n]',
        '',
        'sch = tvm.tir.Schedule(Mod)',
        'block_c = sch.get_block("C")',
        '(y, x, k) = sch.get_loops(block_c)',
        'yo, yi = sch.split(y, [None, 32])',
        'xo, xi = sch.split(x, [None, 32])',
        'sch.reorder(yo, xo, k, yi, xi)',
        '',
      ].join('\n');
      const run = async (source, what) => {
        await p.evaluate((t) => window.TesselEditor.current.setDoc(t, true), source);
        await p.waitForFunction(() => document.querySelector('#step-label') && !document.querySelector('#compile-status')?.textContent.includes('compiling'), null, { timeout: TIMEOUT_MS });
        await p.selectOption('#backend', 'wasm');
        const before = await p.evaluate(() => document.querySelector('#run-timing')?.textContent ?? '');
        await p.click('#run-button');
        await p.waitForFunction((b) => document.querySelector('#run-verdict')?.dataset.backend === 'wasm' && document.querySelector('#run-timing')?.textContent !== b, before, { timeout: 120_000 });
        const verdict = await p.textContent('#run-verdict');
        const message = await p.textContent('#run-message');
        if (!verdict.includes('outputs match')) throw new Error(`${what}: ${verdict} — ${message}`);
        return { time: await p.textContent('#run-time'), timing: await p.textContent('#run-timing') };
      };
      const one = await run(blocked, 'In[41] blocked');
      const par = await run(`${blocked}sch.parallel(yo)\n`, 'In[46] blocked + parallel');
      const threads = /(\d+) threads: (\d+) parallel launch(?:es)?, (\d+) chunks on (\d+) threads/.exec(par.timing);
      if (!threads || Number(threads[4]) < 2) throw new Error(`the parallel run did not use several threads: ${par.timing}`);
      if (!/1 thread: no parallel launch|threads: no parallel launch/.test(one.timing)) throw new Error(`the blocked run launched tasks: ${one.timing}`);
      const cores = await p.evaluate(() => navigator.hardwareConcurrency);
      console.log(`e2e: 256³ matmul in headless Chromium (${cores} cores): In[41] blocked ${one.time}, In[46] parallel ${par.time} (${threads[0]})`);
      await p.screenshot({ path: join(outDir, '16-threads.png') });
      // A trap in the chunk a pool worker runs (a zero divisor at index 50
      // of 64: the second chunk) fails that call with the trap's message;
      // the pool works again for the next call.
      const trap = [
        'import numpy as np',
        'import tvm',
        'from tvm.script import tir as T',
        '',
        '@T.prim_func',
        'def div(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32"), C: T.Buffer((64,), "int32")):',
        '    for i in T.parallel(64):',
        '        with T.block("C"):',
        '            vi = T.axis.spatial(64, i)',
        '            C[vi] = T.truncdiv(A[vi], B[vi])',
        '',
        'f = tvm.build(div, target="llvm")',
        'a = tvm.nd.array(np.arange(64, dtype="int32"))',
        'c = tvm.nd.array(np.zeros(64, dtype="int32"))',
        'b = np.ones(64, dtype="int32")',
        'b[50] = 0',
        '# %%',
        'f(a, tvm.nd.array(b), c)',
        '# %%',
        'f(a, tvm.nd.array(np.ones(64, dtype="int32")), c)',
        'print("after the trap", c.numpy()[60:])',
        '',
      ].join('\n');
      await p.evaluate((t) => window.TesselEditor.current.setDoc(t, true), trap);
      await p.waitForFunction(
        () => (document.querySelector('#console .console-text')?.textContent ?? '').includes('after the trap'),
        null,
        { timeout: 120_000 },
      ).catch(async (e) => {
        throw new Error(`${e.message}\nconsole:\n${(await p.textContent('#console')).slice(0, 1500)}`);
      });
      const out = await p.textContent('#console .console-text');
      if (!/divide by zero|division by zero/i.test(out)) throw new Error(`the trapping call did not fail with the trap's message:\n${out.slice(0, 900)}`);
      if (!/after the trap \[60 61 62 63\]/.test(out)) throw new Error(`the call after the trap did not work:\n${out.slice(0, 900)}`);
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    } finally {
      await ctx.close();
    }
  }],

  ['a script GPU build runs its kernels on WebGPU while the script waits (isolated page)', async ({ browser, url }) => {
    // The book ch.6.1 GPU cells as `tessel run` tests them (vector add,
    // window sum with shared memory, matmul blocking and blocking_with_shared
    // at 256), plus the source and timing cells. The script asserts its
    // results against NumPy; the console must say the kernels ran on WebGPU.
    const ctx = await browser.newContext({ viewport: { width: 1366, height: 900 } });
    try {
      const { page: p, errors } = await isolatedPage(ctx, url);
      const cells = readFileSync(join(repoRoot, 'cli/tests/data/backends/gpu_ch6.py'), 'utf8');
      const source = `${cells}
# %%
dev_src = rt_mod.imported_modules[0].get_source()
print("wgsl lines:", len(dev_src.splitlines()) > 10, "@compute" in dev_src)
timer = rt_mod.time_evaluator("main", dev, number=2, repeat=3)
t = timer(A_nd, B_nd, C_nd)
print("timed:", len(t.results), t.mean > 0)
print("gpu script done")
`;
      const started = Date.now();
      await p.evaluate((t) => window.TesselEditor.current.setDoc(t, true), source);
      await p.waitForFunction(
        () => (document.querySelector('#console .console-text')?.textContent ?? '').includes('gpu script done'),
        null,
        { timeout: 180_000 },
      ).catch(async (e) => {
        throw new Error(`${e.message}\nconsole:\n${(await p.textContent('#console')).slice(0, 3000)}`);
      });
      const seconds = (Date.now() - started) / 1000;
      const out = await p.textContent('#console .console-text');
      const onGpu = (out.match(/compiled to WGSL, kernels running on this browser's WebGPU/g) ?? []).length;
      if (onGpu < 5) throw new Error(`expected every tvm.build (5) to run on WebGPU, ${onGpu} did:\n${out.slice(0, 3000)}`);
      if (/reference interpreter/.test(out)) throw new Error(`a build fell back to the interpreter:\n${out.slice(0, 3000)}`);
      for (const want of ['blocking_with_shared:', 'wgsl lines: True True', 'timed: 3 True']) {
        if (!out.includes(want)) throw new Error(`missing "${want}":\n${out.slice(0, 3000)}`);
      }
      if (/Error|Traceback/.test(out)) throw new Error(`the script failed:\n${out.slice(0, 3000)}`);
      console.log(`e2e: the book ch.6.1 GPU cells as a script, kernels on WebGPU through the bridge worker: ${seconds.toFixed(1)} s`);
      await p.screenshot({ path: join(outDir, '19-script-webgpu.png') });
      if (errors.length) throw new Error(`page errors: ${errors.join('; ')}`);
    } finally {
      await ctx.close();
    }
  }],

  ['tune the book matmul: progress, plot, apply, faster run; records kept, resumed and shared', async ({ page, browser }) => {
    const TRIALS = Number(process.env.E2E_TUNE_TRIALS ?? 64);
    await openExample(page, 'mm_tune');
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('T.grid(128, 128, 128)'), 'the unscheduled matmul');
    // Tuning records live in IndexedDB (`tessel` / `tuning-records`), read
    // here as the page wrote them.
    const idb = (mode) => page.evaluate((mode) => new Promise((resolve, reject) => {
      const open = indexedDB.open('tessel');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const store = db.transaction('tuning-records', mode).objectStore('tuning-records');
        if (mode === 'readwrite') {
          const cleared = store.clear();
          cleared.onsuccess = () => { db.close(); resolve({}); };
          cleared.onerror = () => reject(cleared.error);
          return;
        }
        const keys = store.getAllKeys();
        const values = store.getAll();
        values.onsuccess = () => {
          const out = {};
          keys.result.forEach((k, i) => { out[k] = values.result[i]; });
          db.close();
          resolve(out);
        };
        values.onerror = () => reject(values.error);
      };
    }), mode);
    const storeReady = () => page.waitForFunction(() => document.documentElement.dataset.tuneStore, null, { timeout: TIMEOUT_MS });
    await storeReady();
    const kind = await page.evaluate(() => document.documentElement.dataset.tuneStore);
    if (kind !== 'indexeddb') throw new Error(`the tuning records are kept in ${kind}, want indexeddb`);
    await idb('readwrite');
    // A run has ended when the Run button went to Stop and back.
    const runOnCpu = async () => {
      await page.selectOption('#backend', 'wasm');
      await page.evaluate(() => {
        const b = document.querySelector('#run-button');
        window.__runEnded = false;
        let stopped = false;
        const watch = new MutationObserver(() => {
          if (b.textContent.includes('Stop')) stopped = true;
          else if (stopped) { window.__runEnded = true; watch.disconnect(); }
        });
        watch.observe(b, { subtree: true, childList: true, characterData: true });
      });
      await page.click('#run-button');
      await page.waitForFunction(() => window.__runEnded, null, { timeout: 60_000 });
      const verdict = await page.textContent('#run-verdict');
      if (!verdict.includes('outputs match')) throw new Error(`run: ${verdict} — ${await page.textContent('#run-message')}`);
      const text = await page.textContent('#run-time');
      const m = /([\d.]+)\s*(ms|µs)/.exec(text);
      if (!m) throw new Error(`no run time: ${text}`);
      return { text, ms: Number(m[1]) / (m[2] === 'µs' ? 1000 : 1), gflops: await page.textContent('#run-gflops') };
    };
    // The Run pane, enlarged over the page for a screenshot of the panel.
    const shotTune = async (name) => {
      await page.evaluate(() => {
        const p = document.querySelector('#pane-run');
        p.dataset.style = p.getAttribute('style') ?? '';
        p.style.cssText += ';position:fixed;inset:40px 0 0 0;z-index:50';
        p.querySelector('.pane-body').scrollTop = document.querySelector('#tune').offsetTop;
      });
      await shot(page, name);
      await page.evaluate(() => {
        const p = document.querySelector('#pane-run');
        p.setAttribute('style', p.dataset.style);
      });
    };
    const untuned = await runOnCpu();
    await page.click('#tune summary');
    await page.fill('#tune-trials', String(TRIALS));
    await page.dispatchEvent('#tune-trials', 'change');
    const started = Date.now();
    await page.click('#tune-start');
    await page.evaluate(() => {
      window.__tuneLongTasks = [];
      new PerformanceObserver((list) => window.__tuneLongTasks.push(...list.getEntries().map((e) => e.duration)))
        .observe({ type: 'longtask' });
    });
    await page.waitForFunction(() => Number(document.querySelector('#tune-progress')?.dataset.done) >= 1, null, { timeout: 60_000 });
    await page.waitForFunction(() => document.querySelectorAll('#tune-plot polyline.best').length === 1);
    await shotTune('20-tune-progress.png');
    // Typing still compiles while the tuning worker measures.
    await typeAtEnd(page, '# typed while tuning\n');
    await page.waitForFunction(() => document.querySelector('#compile-status')?.dataset.fresh === 'true'
      && document.querySelector('#ir-view')?.innerText.includes('T.grid(128, 128, 128)'), null, { timeout: TIMEOUT_MS });
    const compiledDuring = await page.$eval('#tune-progress', (el) => `${el.dataset.done} / ${el.dataset.total}`);
    await page.waitForFunction(() => document.querySelector('#tune-start')?.textContent.includes('Start'), null, { timeout: 180_000 });
    const seconds = (Date.now() - started) / 1000;
    const err = await page.$('#tune-error');
    if (err) throw new Error(`the tuning failed: ${await err.textContent()}`);
    const [done, total] = await page.$eval('#tune-progress', (el) => [Number(el.dataset.done), Number(el.dataset.total)]);
    if (done !== TRIALS || total !== TRIALS) throw new Error(`progress shows ${done} / ${total}, want ${TRIALS}`);
    const count = await page.textContent('#tune-count');
    if (!count.includes(`${TRIALS} / ${TRIALS} trials`)) throw new Error(`the count says ${count}`);
    const points = await page.$eval('#tune-plot polyline.best', (el) => el.getAttribute('points').trim().split(/\s+/).length);
    if (points < TRIALS / 2) throw new Error(`the best-GFLOPS plot has ${points} points for ${TRIALS} trials`);
    const cands = await page.$$eval('#tune-model circle.cand', (els) => els.length);
    if (TRIALS > 16 && cands === 0) throw new Error('no measured-vs-predicted points after the cost model was trained');
    await shotTune('21-tune-done.png');
    const long = await page.evaluate(() => window.__tuneLongTasks);
    console.log(`e2e: tuned the 128³ matmul, ${TRIALS} trials in ${seconds.toFixed(1)} s (${count.trim()}); ${cands} candidates on the model plot; an edit compiled at ${compiledDuring} trials; main-thread tasks over 50 ms meanwhile: ${long.length ? long.map((d) => d.toFixed(0) + ' ms').join(', ') : 'none'}`);
    // Apply: the best schedule replaces the script's, and compiles to steps.
    const best = await page.textContent('#tune-best');
    await page.click('#tune-apply');
    await page.waitForFunction(() => window.TesselEditor.current.getDoc().includes('sch.split('), null, { timeout: TIMEOUT_MS });
    const applied = await doc(page);
    if (!applied.includes(best.trim().split('\n')[0])) throw new Error(`the script does not hold the best schedule:\n${applied.slice(-600)}`);
    await page.waitForFunction(() => document.querySelectorAll('#trace-steps li').length > 2, null, { timeout: TIMEOUT_MS });
    const tuned = await runOnCpu();
    console.log(`e2e: untuned ${untuned.text} (${untuned.gflops} GFLOPS), tuned ${tuned.text} (${tuned.gflops} GFLOPS): ${(untuned.ms / tuned.ms).toFixed(2)}x`);
    if (!(tuned.ms < untuned.ms)) throw new Error(`the tuned program (${tuned.text}) is not faster than the untuned one (${untuned.text})`);
    await shot(page, '22-tuned-run.png');
    // The records survive a reload, and a second tuning starts from them;
    // stopping it keeps what it measured.
    const MIGRATED = 'tune.00000000000e2e00.llvm';
    const stored = async () => Object.entries(await idb('readonly'))
      .filter(([k]) => k !== MIGRATED)
      .map(([, v]) => v.trim().split('\n').length - 1);
    const before = await stored();
    if (before.length !== 1 || before[0] !== TRIALS) throw new Error(`stored records: ${JSON.stringify(before)}, want [${TRIALS}]`);
    const chars = Object.values(await idb('readonly'))[0].length;
    console.log(`e2e: ${TRIALS} tuning records kept in IndexedDB: ${chars} characters (${(chars / TRIALS).toFixed(0)} per record)`);
    // Records an earlier page kept in localStorage move into IndexedDB on
    // the next load.
    await page.evaluate((key) => localStorage.setItem(`tessel.${key}`, '{"workload": 1}\n{"record": 1}\n'), MIGRATED);
    // (Without a share link in the address, which a reload would restore instead.)
    await page.evaluate(() => history.replaceState(null, '', location.pathname + location.search));
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
    await storeReady();
    const migrated = (await idb('readonly'))[MIGRATED];
    const left = await page.evaluate((key) => localStorage.getItem(`tessel.${key}`), MIGRATED);
    if (migrated !== '{"workload": 1}\n{"record": 1}\n' || left !== null) throw new Error(`localStorage records not moved: IndexedDB has ${JSON.stringify(migrated)}, localStorage ${JSON.stringify(left)}`);
    await page.waitForFunction(() => window.TesselEditor.current.getDoc().includes('sch.split('), null, { timeout: TIMEOUT_MS });
    await page.click('#tune summary');
    await page.click('#tune-start');
    await page.waitForFunction(() => Number(document.querySelector('#tune-progress')?.dataset.done) >= 2, null, { timeout: 60_000 });
    const resumed = await page.textContent('#tune-count');
    if (!resumed.includes(`resumed from ${TRIALS} records`)) throw new Error(`the second tuning says ${resumed}`);
    await page.click('#tune-start');
    await page.waitForFunction(() => document.querySelector('#tune-start')?.textContent.includes('Start'));
    const shown = await page.$eval('#tune-progress', (el) => Number(el.dataset.done));
    const after = await stored();
    if (after[0] < TRIALS + shown) throw new Error(`after stopping at ${shown} trials the store holds ${after[0]} records, want ≥ ${TRIALS + shown}`);
    // A share link carries the tuned schedule.
    await page.click('#share-button');
    const link = await page.inputValue('#share-link');
    const fresh = await browser.newContext();
    try {
      const p2 = await fresh.newPage();
      await p2.goto(link, { waitUntil: 'load' });
      await p2.waitForSelector('.cm-editor', { timeout: TIMEOUT_MS });
      const got = await p2.evaluate(() => window.TesselEditor.current.getDoc());
      if (!got.includes(best.trim().split('\n')[0])) throw new Error('the shared script lacks the tuned schedule');
    } finally {
      await fresh.close();
    }
  }],

  ['tune on WebGPU: the search measured on this browser adapter, records kept, the tuned program runs on the GPU', async ({ page }) => {
    const TRIALS = Number(process.env.E2E_GPU_TUNE_TRIALS ?? 8);
    await openExample(page, 'mm_tune');
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('T.grid(128, 128, 128)'), 'the unscheduled matmul');
    await page.waitForFunction(() => !document.querySelector('#backend option[value="webgpu"]').title.includes('checking'), null, { timeout: TIMEOUT_MS });
    const gpuOk = await page.evaluate(() => !document.querySelector('#backend option[value="webgpu"]').disabled);
    if (!gpuOk) throw new Error(`no WebGPU adapter: ${await page.$eval('#backend option[value="webgpu"]', (o) => o.title)}`);
    await page.waitForFunction(() => document.documentElement.dataset.tuneStore, null, { timeout: TIMEOUT_MS });
    const open = await page.evaluate(() => document.querySelector('#tune').open);
    if (!open) await page.click('#tune summary');
    await page.selectOption('#tune-target', 'webgpu');
    await page.fill('#tune-trials', String(TRIALS));
    await page.dispatchEvent('#tune-trials', 'change');
    const started = Date.now();
    await page.click('#tune-start');
    await page.waitForFunction(() => Number(document.querySelector('#tune-progress')?.dataset.done) >= 1, null, { timeout: 120_000 });
    await page.waitForFunction(() => document.querySelector('#tune-start')?.textContent.includes('Start'), null, { timeout: 300_000 });
    const seconds = (Date.now() - started) / 1000;
    const err = await page.$('#tune-error');
    if (err) throw new Error(`GPU tuning failed: ${await err.textContent()}`);
    const [done, total] = await page.$eval('#tune-progress', (el) => [Number(el.dataset.done), Number(el.dataset.total)]);
    if (done !== TRIALS || total !== TRIALS) throw new Error(`GPU tuning stopped at ${done} / ${total}`);
    const count = await page.textContent('#tune-count');
    await shot(page, '23-tune-gpu-done.png');
    // The records are kept under the WebGPU target's key.
    const keys = await page.evaluate(() => new Promise((resolve, reject) => {
      const r = indexedDB.open('tessel');
      r.onerror = () => reject(r.error);
      r.onsuccess = () => {
        const db = r.result;
        const store = db.transaction('tuning-records').objectStore('tuning-records');
        // Requests of a transaction complete in order: keys first.
        const ks = store.getAllKeys();
        const all = store.getAll();
        all.onsuccess = () => { resolve(ks.result.map((k, i) => [k, all.result[i].trim().split('\n').length - 1])); db.close(); };
        all.onerror = () => reject(all.error);
      };
    }));
    const gpuRecords = keys.filter(([k]) => k.endsWith('.webgpu'));
    if (gpuRecords.length !== 1 || gpuRecords[0][1] !== TRIALS) throw new Error(`WebGPU records: ${JSON.stringify(keys)}`);
    // Apply, then Run on WebGPU: the tuned, thread-bound program runs there.
    const best = await page.textContent('#tune-best');
    if (!best.includes('threadIdx.x')) throw new Error(`the GPU schedule binds no threads:\n${best}`);
    await page.click('#tune-apply');
    await page.waitForFunction(() => window.TesselEditor.current.getDoc().includes('threadIdx.x'), null, { timeout: TIMEOUT_MS });
    await page.selectOption('#backend', 'webgpu');
    await page.click('#run-button');
    await page.waitForFunction(() => document.querySelector('#run-verdict')?.dataset.backend === 'webgpu', null, { timeout: 120_000 });
    const verdict = await page.textContent('#run-verdict');
    if (!verdict.includes('outputs match')) throw new Error(`the tuned GPU program: ${verdict} — ${await page.textContent('#run-message')}`);
    console.log(`e2e: tuned the 128³ matmul on WebGPU (${await page.evaluate(() => document.querySelector('#backend option[value="webgpu"]').textContent)}): ${TRIALS} trials in ${seconds.toFixed(1)} s (${count.trim()}); the applied program runs there: ${verdict.trim()}`);
    await page.selectOption('#backend', 'wasm');
  }],

  ['a primitive left out of the first-load worker runs in the full one', async ({ page }) => {
    // `reorder_block_iter_var` is not in the core worker (compiler-core's
    // `lean`): the script moves to the full worker, and its step shows.
    const script = [
      'import tvm',
      'from tvm.script import tir as T',
      '',
      '@tvm.script.ir_module',
      'class MyModule:',
      '    @T.prim_func',
      '    def main(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):',
      '        for i, j in T.grid(4, 8):',
      '            with T.block("B"):',
      '                vi, vj = T.axis.remap("SS", [i, j])',
      '                B[vi, vj] = A[vi, vj] * T.float32(2)',
      '',
      '# --- schedule ---',
      'sch = tvm.tir.Schedule(MyModule)',
      'sch.reorder_block_iter_var(sch.get_block("B"), [1, 0])',
      '',
    ].join('\n');
    await page.evaluate((t) => window.TesselEditor.current.setDoc(t, true), script);
    await page.waitForFunction(() => [...document.querySelectorAll('#trace-steps li')].some((li) => li.textContent.includes('reorder_block_iter_var')), null, { timeout: 60_000 });
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('T.axis.remap("SS", [j, i])'), 'the reordered block iterators');
  }],

  ['memory picture: one iteration of the book\'s blocked matmul reads the tiles of A and B the regions name', async ({ page }) => {
    // The book's mm_relu schedule, pasted: j split by 4, k between the halves.
    const script = readFileSync(join(repoRoot, 'web-ui/examples/mm_relu.py'), 'utf8');
    await page.evaluate((t) => window.TesselEditor.current.setDoc(t, true), script);
    await waitIr(page, () => document.querySelector('#ir-view')?.innerText.includes('j_0') && document.querySelectorAll('#trace-steps li').length === 5, 'the scheduled mm_relu');
    await page.click('#trace-steps li:last-child button');
    // Click the outer loop j_0 in the IR, open its memory picture.
    await page.click('#ir-view button.irtarget[data-kind="loop"][data-name="j_0"]');
    await page.waitForSelector('#primitives #memory-button');
    await page.click('#memory-button');
    // Touched cells as `buffer access i,j` strings, from the picture.
    const touched = (at) => page.$$eval(`#memory-view .memory-grids[data-at="${at}"] rect.cell`, (els) =>
      els.flatMap((e) => e.dataset.touched.split(' ').map((a) => `${e.dataset.buffer} ${a} ${e.dataset.index}`)));
    // The same from the Regions view: each figure's `min:extent` per dimension.
    const fromRegions = (at) => page.$$eval('#regions figure.region[data-concrete]', (figs, at) => {
      const cells = [];
      for (const f of figs) {
        const [rows, cols] = f.dataset.concrete.split(',').map((d) => d.split(':').map(Number));
        for (let i = rows[0]; i < rows[0] + rows[1]; i++) {
          for (let j = cols[0]; j < cols[0] + cols[1]; j++) cells.push(`${f.dataset.buffer} ${f.dataset.access} ${i},${j}`);
        }
      }
      return cells;
    }, at);
    const compare = async (at) => {
      await page.waitForSelector(`#memory-view .memory-grids[data-at="${at}"] rect[data-buffer="B"]`, { timeout: 60_000 });
      await page.waitForFunction((at) => (document.querySelector('#regions label')?.textContent ?? '').includes(` ${at} (outer loops at 0)`), at, { timeout: TIMEOUT_MS });
      const picture = new Set(await touched(at));
      const regions = new Set(await fromRegions(at));
      for (const buffer of ['A', 'B']) {
        const want = [...regions].filter((c) => c.startsWith(`${buffer} read `)).sort();
        const got = [...picture].filter((c) => c.startsWith(`${buffer} read `)).sort();
        if (want.length === 0) throw new Error(`the regions name no read of ${buffer} at j_0 = ${at}`);
        if (want.join('|') !== got.join('|')) {
          throw new Error(`j_0 = ${at}: ${buffer} read cells differ from the regions: ${got.length} drawn, ${want.length} in the regions (first drawn ${got.slice(0, 3)}, first in regions ${want.slice(0, 3)})`);
        }
      }
      return picture;
    };
    const first = await compare(0);
    if (!first.has('A read 0,127') || !first.has('B read 127,3') || first.has('B read 0,4')) throw new Error('iteration 0 does not read A[0, :] and B[:, 0:4]');
    const counts = await page.$eval('#memory-counts tr[data-scope="global"]', (tr) => [tr.querySelector('.loads').textContent, tr.querySelector('.stores').textContent]);
    if (counts.join() !== '1540,520') throw new Error(`global loads and stores of one j_0 iteration: ${counts}`);
    await shot(page, '30-memory-picture.png');
    // Step both sliders to iteration 5: B's tile moves to columns 20:24.
    const slide = (selector, value) => page.$eval(selector, (el, value) => {
      el.value = String(value);
      el.dispatchEvent(new Event('input', { bubbles: true }));
    }, value);
    await slide('#memory-slider', 5);
    await slide('#regions input[type="range"]', 5);
    const fifth = await compare(5);
    if (!fifth.has('B read 0,20') || fifth.has('B read 0,3')) throw new Error('iteration 5 does not read B[:, 20:24]');
    if (!(await page.textContent('#memory-label')).includes('j_0 = 5')) throw new Error(`label: ${await page.textContent('#memory-label')}`);
    // Play moves on by itself; Pause stops it.
    await page.click('#memory-play');
    await page.waitForSelector('#memory-view .memory-grids:not([data-at="5"])', { timeout: TIMEOUT_MS });
    await page.click('#memory-play');
    await page.click('#memory-view button[aria-label="Close the memory picture"]');
    await page.waitForSelector('#memory-view', { state: 'detached' });
  }],

  ['memory picture of an exercise answer', async ({ page, url }) => {
    const p = await page.context().newPage();
    try {
      await p.goto(`${url}?exercise=broadcast-add`, { waitUntil: 'load' });
      await p.waitForSelector('#exercise-title', { timeout: TIMEOUT_MS });
      await p.waitForSelector('#exercise-memory-button:not([disabled])', { timeout: 60_000 });
      await p.click('#exercise-memory-button');
      // The answer's outermost loop, one iteration: a row of C written.
      await p.waitForSelector('#memory-view rect.cell[data-buffer="C"][data-touched~="write"]', { timeout: 60_000 });
      const unit = await p.$eval('#memory-unit', (s) => s.value);
      if (unit !== 'iteration') throw new Error(`the exercise picture shows a ${unit}`);
      const rows = await p.$$eval('#memory-view rect.cell[data-buffer="C"]', (els) => [...new Set(els.map((e) => e.dataset.index.split(',')[0]))]);
      if (rows.join() !== '0') throw new Error(`iteration 0 of the outer loop writes rows ${rows} of C`);
    } finally {
      await p.close();
    }
  }],

  ['no errors in the console', async ({ errors }) => {
    if (errors.length) throw new Error(`console/page errors:\n  ${errors.join('\n  ')}`);
  }],
];

// --- runner --------------------------------------------------------------------

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
const server = await serveDist(dist);
const url = `http://127.0.0.1:${server.address().port}${SUB_PATH}`;
const profile = mkdtempSync(join(tmpdir(), 'tessel-e2e-'));
console.log(`e2e: serving ${dist} at ${url}`);
console.log(`e2e: browser ${chromiumPath}`);

let passed = 0;
let failed = 0;
let browser;
try {
  browser = await chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
      // WebGPU without a GPU: Chromium's SwiftShader adapter.
      '--enable-unsafe-webgpu',
      '--use-webgpu-adapter=swiftshader',
      '--enable-features=Vulkan',
    ],
    timeout: 60_000,
  });
  const context = await browser.newContext({ viewport: { width: 1366, height: 768 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write']).catch(() => {});
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT_MS);
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console.error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
  page.on('crash', () => errors.push('the page crashed (its renderer process ended)'));
  page.on('requestfailed', (req) => {
    const why = req.failure()?.errorText;
    // A request cancelled by a navigation (the tests reload the page, and a
    // reload can cut short the favicon's fetch) is not a failure of the page.
    if (why === 'net::ERR_ABORTED') return;
    errors.push(`request failed: ${req.url()} (${why})`);
  });
  page.on('response', (res) => {
    if (res.status() >= 400) errors.push(`HTTP ${res.status()}: ${res.url()}`);
  });

  const only = process.env.E2E_ONLY;
  for (const [index, [name, body]] of tests.entries()) {
    if (only && index > 0 && !name.includes(only)) continue;
    if (index > 0 && failed > 0 && passed === 0) {
      failed += 1;
      console.log(`e2e: FAILED ${name}\n       not run: the page did not load`);
      continue;
    }
    const started = Date.now();
    try {
      await body({ page, url, errors, browser });
      passed += 1;
      console.log(`e2e: ok     ${name} (${Date.now() - started} ms)`);
    } catch (e) {
      failed += 1;
      const message = String(e.message ?? e).replace(/\x1b\[[0-9;]*m/g, '').trimEnd();
      console.log(`e2e: FAILED ${name}\n       ${message.split('\n').join('\n       ')}`);
      if (errors.length) console.log(`       page errors so far:\n         ${errors.slice(-5).join('\n         ')}`);
      const file = join(outDir, `failure-${String(index + 1).padStart(2, '0')}.png`);
      await page.screenshot({ path: file, fullPage: true }).then(
        () => console.log(`       screenshot: ${file}`),
        () => {},
      );
    }
  }
} catch (e) {
  failed += 1;
  console.log(`e2e: FAILED could not start the browser: ${e.message}`);
} finally {
  await browser?.close().catch(() => {});
  server.close();
  rmSync(profile, { recursive: true, force: true });
}

console.log(`e2e: screenshots in ${outDir}`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
