// Bundles src/editor.js and CodeMirror into one minified script,
// build/tessel-editor.js, which web-ui/index.html hands to trunk; and
// src/markdown.js (marked) and src/rich.js (DOMPurify) into
// build/tessel-markdown.js and build/tessel-rich.js, which trunk copies as
// they are and editor.js loads on first use.
// It also minifies static/style.css into build/style.css, the stylesheet
// index.html hands to trunk (every page's first load carries it).
// Trunk runs this as a pre-build hook (Trunk.toml); it installs the npm
// packages on first use (`npm ci`, pinned by package-lock.json) and does
// nothing when the bundle is newer than its inputs.
import { execSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, 'build', 'tessel-editor.js');
const richOut = join(here, 'build', 'tessel-rich.js');
const markdownOut = join(here, 'build', 'tessel-markdown.js');
const cssIn = join(here, '..', '..', 'static', 'style.css');
const cssOut = join(here, 'build', 'style.css');
const inputs = [join(here, 'package-lock.json'), join(here, 'build.mjs'), cssIn,
  ...readdirSync(join(here, 'src')).map((f) => join(here, 'src', f))];

const mtime = (p) => (existsSync(p) ? statSync(p).mtimeMs : 0);
const oldest = Math.min(mtime(out), mtime(richOut), mtime(markdownOut), mtime(cssOut));
if (oldest > 0 && inputs.every((p) => mtime(p) <= oldest) &&
    existsSync(join(here, 'node_modules', '.package-lock.json'))) {
  process.exit(0);
}
if (mtime(join(here, 'node_modules', '.package-lock.json')) < mtime(join(here, 'package-lock.json'))) {
  console.log('editor: npm ci (CodeMirror, DOMPurify, marked, esbuild)');
  execSync('npm ci --no-audit --no-fund --loglevel=error', { cwd: here, stdio: 'inherit' });
}
const esbuild = await import(join(here, 'node_modules', 'esbuild', 'lib', 'main.js'));
mkdirSync(dirname(out), { recursive: true });
for (const [entry, outfile] of [['editor.js', out], ['rich.js', richOut], ['markdown.js', markdownOut]]) {
  const result = await esbuild.build({
    entryPoints: [join(here, 'src', entry)],
    bundle: true,
    minify: true,
    format: 'iife',
    target: ['es2020'],
    outfile,
    legalComments: 'none',
    logLevel: 'warning',
  });
  if (result.errors.length) process.exit(1);
  console.log(`editor: built ${outfile} (${statSync(outfile).size} bytes)`);
}
{
  const result = await esbuild.build({
    entryPoints: [cssIn],
    minify: true,
    outfile: cssOut,
    legalComments: 'none',
    logLevel: 'warning',
  });
  if (result.errors.length) process.exit(1);
  console.log(`editor: built ${cssOut} (${statSync(cssOut).size} bytes)`);
}
