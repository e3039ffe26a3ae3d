// Browser end-to-end tests for the built playground.
//
//   node e2e/run.mjs [DIST]      (DIST defaults to ../dist; `cargo xtask test` runs this)
//
// Serves DIST on 127.0.0.1 (a free port) under a sub-path, to prove the
// relative asset URLs work, drives the system Chromium headless through
// playwright-core (never downloads a browser), and writes screenshots to
// test-output/e2e/. Prints `e2e: N passed, M failed`; exits 1 on any failure.
//
// Environment: TESSEL_CHROMIUM overrides the browser (default /usr/bin/chromium).

import { createServer } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.argv[2] ?? join(here, '..', 'dist'));
const outDir = resolve(here, '..', 'test-output', 'e2e');
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
  '.txt': 'text/plain; charset=utf-8',
};

function serveDist(root) {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    if (!url.pathname.startsWith(SUB_PATH)) {
      res.writeHead(404).end('not found');
      return;
    }
    let rel = decodeURIComponent(url.pathname.slice(SUB_PATH.length)) || 'index.html';
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

/** What the output pane should say for `text` (mirrors web-ui's `describe`). */
function expectedOutput(text) {
  // Rust's str::lines(): split on \n, a final empty piece is not a line.
  const lines = text === '' ? 0 : text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  const chars = [...text].length; // Unicode scalar values, like str::chars()
  const count = (n, what) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `${count(lines, 'line')}, ${count(chars, 'character')}`;
}

async function outputSettlesTo(page, expected) {
  await page.waitForFunction(
    (want) => document.querySelector('#output')?.textContent === want,
    expected,
    { timeout: TIMEOUT_MS },
  );
}

const tests = [
  // Every later test needs this one: if it fails, they are not run.
  ['page loads and shows the header', async ({ page, url, errors }) => {
    await page.goto(url, { waitUntil: 'load' });
    try {
      await page.waitForSelector('header h1', { timeout: TIMEOUT_MS });
    } catch (e) {
      const seen = errors.length ? `; errors seen:\n  ${errors.join('\n  ')}` : '';
      throw new Error(`the app did not render a header within ${TIMEOUT_MS} ms${seen}`);
    }
    const title = await page.title();
    if (title !== 'Tessel') throw new Error(`title is ${JSON.stringify(title)}, want "Tessel"`);
    const h1 = (await page.textContent('header h1'))?.trim();
    if (h1 !== 'Tessel') throw new Error(`header is ${JSON.stringify(h1)}, want "Tessel"`);
    const bg = await page.evaluate(() => getComputedStyle(document.querySelector('header')).backgroundColor);
    if (bg === 'rgba(0, 0, 0, 0)') throw new Error('header has no background: static/style.css not applied');
    await page.screenshot({ path: join(outDir, '01-loaded.png'), fullPage: true });
  }],

  ['editor holds the sample program and the output describes it', async ({ page }) => {
    const source = await page.inputValue('#editor');
    if (!source.includes('@T.prim_func')) {
      throw new Error(`#editor does not hold the sample program: ${JSON.stringify(source.slice(0, 80))}`);
    }
    await outputSettlesTo(page, expectedOutput(source));
  }],

  ['typing into the editor updates the output', async ({ page }) => {
    const before = await page.textContent('#output');
    await page.click('#editor');
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n# edited in the browser');
    const source = await page.inputValue('#editor');
    const want = expectedOutput(source);
    if (want === before) throw new Error('typing did not change the editor text');
    await outputSettlesTo(page, want);
    await page.screenshot({ path: join(outDir, '02-typed.png'), fullPage: true });
  }],

  ['replacing the whole program updates the output', async ({ page }) => {
    await page.fill('#editor', 'x = 1');
    await outputSettlesTo(page, '1 line, 5 characters');
    await page.fill('#editor', '');
    await outputSettlesTo(page, '0 lines, 0 characters');
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
let context;
try {
  context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1200, height: 700 },
    args: [
      '--no-sandbox',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
    timeout: 60_000,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(TIMEOUT_MS);
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push(`console.error: ${msg.text()}`);
  });
  page.on('pageerror', (err) => errors.push(`uncaught: ${err.message}`));
  page.on('requestfailed', (req) => errors.push(`request failed: ${req.url()} (${req.failure()?.errorText})`));
  page.on('response', (res) => {
    if (res.status() >= 400) errors.push(`HTTP ${res.status()}: ${res.url()}`);
  });

  for (const [index, [name, body]] of tests.entries()) {
    if (index > 0 && failed > 0 && passed === 0) {
      failed += 1;
      console.log(`e2e: FAILED ${name}\n       not run: the page did not load`);
      continue;
    }
    const started = Date.now();
    try {
      await body({ page, url, errors });
      passed += 1;
      console.log(`e2e: ok     ${name} (${Date.now() - started} ms)`);
    } catch (e) {
      failed += 1;
      const message = String(e.message ?? e).replace(/\x1b\[[0-9;]*m/g, '').trimEnd();
      console.log(`e2e: FAILED ${name}\n       ${message.split('\n').join('\n       ')}`);
      const shot = join(outDir, `failure-${String(index + 1).padStart(2, '0')}.png`);
      await page.screenshot({ path: shot, fullPage: true }).then(
        () => console.log(`       screenshot: ${shot}`),
        () => {},
      );
    }
  }
} catch (e) {
  failed += 1;
  console.log(`e2e: FAILED could not start the browser: ${e.message}`);
} finally {
  await context?.close().catch(() => {});
  server.close();
  rmSync(profile, { recursive: true, force: true });
}

console.log(`e2e: screenshots in ${outDir}`);
console.log(`e2e: ${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
