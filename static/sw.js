// Tessel's service worker: makes the playground work offline after the
// first visit. Everything it serves is same-origin and static.
//
// - Hashed assets (trunk names them `name-<hex hash>.ext`) never change:
//   cache first.
// - Everything else (index.html, the workers' unhashed `*worker*.js/.wasm`,
//   sw.js's neighbours): network first, falling back to the cache offline,
//   so a deploy is picked up on the next load.
// - Installing caches the core worker (a page's first need); the full
//   worker, with the code generators, is cached when a backend first
//   fetches it.
// - Every response it serves gets COOP/COEP headers, so the page is
//   cross-origin isolated (SharedArrayBuffer: the CPU backend's threads)
//   even on a static host that sends no headers, from the second load on.
const CACHE = 'tessel-v3';
const HASHED = /-[0-9a-f]{12,16}(_bg)?\.(wasm|js|css|svg)$/;

self.addEventListener('install', (event) => {
  event.waitUntil(
    caches.open(CACHE)
      .then((cache) => cache.addAll(['./', './core-worker_loader.js', './core-worker.js', './core-worker_bg.wasm']))
      .catch(() => {})
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
      .then(() => self.clients.claim()),
  );
});

async function cacheFirst(request) {
  const cached = await caches.match(request);
  if (cached) return cached;
  const response = await fetch(request);
  if (response.ok) (await caches.open(CACHE)).put(request, response.clone());
  return response;
}

async function networkFirst(request) {
  try {
    const response = await fetch(request);
    if (response.ok) (await caches.open(CACHE)).put(request, response.clone());
    return response;
  } catch (err) {
    const cached = await caches.match(request, { ignoreSearch: request.mode === 'navigate' });
    if (cached) return cached;
    if (request.mode === 'navigate') {
      const index = await caches.match('./');
      if (index) return index;
    }
    throw err;
  }
}

// The response with the isolation headers added (everything served is
// same-origin, so `require-corp` blocks nothing).
function isolated(response) {
  if (!response || response.type === 'opaque' || response.type === 'opaqueredirect' || response.status === 0) return response;
  const headers = new Headers(response.headers);
  headers.set('Cross-Origin-Opener-Policy', 'same-origin');
  headers.set('Cross-Origin-Embedder-Policy', 'require-corp');
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

self.addEventListener('fetch', (event) => {
  const url = new URL(event.request.url);
  if (event.request.method !== 'GET' || url.origin !== self.location.origin) return;
  const served = HASHED.test(url.pathname) ? cacheFirst(event.request) : networkFirst(event.request);
  event.respondWith(served.then(isolated));
});
