// The README's first command, checked: waits for `cargo xtask serve` to
// answer, then loads the page once in headless Chromium and checks that the
// playground rendered (editor, and the starting example printed by the
// compiler worker).
//
//   node e2e/serve_smoke.mjs URL [TIMEOUT_SECONDS]   (`cargo xtask test` runs this)
//
// Prints `serve: 1 passed, 0 failed` or `serve: 0 passed, 1 failed`. The
// browser gets a fresh temporary profile from playwright.

import { mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const url = process.argv[2];
const timeoutMs = Number(process.argv[3] ?? 1200) * 1000;
const chromiumPath = process.env.TESSEL_CHROMIUM || '/usr/bin/chromium';
const here = dirname(fileURLToPath(import.meta.url));
const outDir = resolve(here, '..', 'test-output', 'serve');

function finish(ok, message) {
  if (ok) {
    console.log(`serve: ${message}`);
    console.log('serve: 1 passed, 0 failed');
  } else {
    console.error(`serve: error: ${message}`);
    console.log('serve: 0 passed, 1 failed');
  }
  process.exit(ok ? 0 : 1);
}

if (!url) finish(false, 'usage: node e2e/serve_smoke.mjs URL [TIMEOUT_SECONDS]');

// The first `trunk serve` builds the whole playground in the debug profile:
// poll until the page answers.
const started = Date.now();
let html = '';
let headers = null;
while (Date.now() - started < timeoutMs) {
  try {
    const res = await fetch(url);
    if (res.ok) {
      html = await res.text();
      headers = res.headers;
      if (html.includes('<script')) break;
    }
  } catch {
    // not listening yet
  }
  await new Promise((r) => setTimeout(r, 2000));
}
if (!html.includes('<script')) finish(false, `${url} did not answer with the page within ${timeoutMs / 1000} s`);
// Cross-origin isolation (Trunk.toml [serve] headers): the CPU backend's
// worker pool needs SharedArrayBuffer.
const coop = headers.get('cross-origin-opener-policy');
const coep = headers.get('cross-origin-embedder-policy');
if (coop !== 'same-origin' || coep !== 'require-corp') {
  finish(false, `the page is served without isolation headers (COOP ${coop}, COEP ${coep})`);
}
console.log(`serve: ${url} answered after ${Math.round((Date.now() - started) / 1000)} s`);

let chromium;
try {
  ({ chromium } = await import('playwright-core'));
} catch (e) {
  finish(false, `cannot load playwright-core (${e.message}): run \`cargo xtask setup\``);
}
const browser = await chromium.launch({
  executablePath: chromiumPath,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-quic',
    '--no-first-run',
  ],
});
let ok = false;
let message = '';
try {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForSelector('.cm-editor', { timeout: 120_000 });
  await page.waitForFunction(
    () => document.querySelector('#ir-view')?.innerText.includes('def mm_relu'),
    null,
    { timeout: 120_000 },
  );
  mkdirSync(outDir, { recursive: true });
  await page.screenshot({ path: join(outDir, 'served.png') });
  const isolated = await page.evaluate(() => window.crossOriginIsolated);
  if (!isolated) errors.push('crossOriginIsolated is false under cargo xtask serve');
  ok = errors.length === 0;
  message = ok
    ? 'the served playground rendered the editor and the printed mm_relu, cross-origin isolated'
    : `page errors: ${errors.join('; ')}`;
} catch (e) {
  message = `the served page did not render: ${e.message}`;
} finally {
  await browser.close();
}
finish(ok, message);
