// Shared by the browser tests and benchmarks: a real HTTP server on 127.0.0.1 serving the
// built site (dist/), and Debian's chromium driven by playwright-core (never a downloaded browser).
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { chromium } from 'playwright-core';

export const root = resolve(import.meta.dirname, '../..');
export const dist = join(root, 'dist');
export const outDir = join(root, 'build-web');

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript',
  '.mjs': 'text/javascript',
  '.css': 'text/css',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/**
 * Serves `dir` on 127.0.0.1 (a free port). `headers` are added to every response;
 * `routes` maps a path to [status, type, body] for extra endpoints. Counts requests per path.
 */
export async function serve(dir, { headers = {}, routes = {} } = {}) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(path);
    const send = (status, type, body) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-cache', ...headers });
      res.end(body);
    };
    if (routes[path]) return send(...routes[path]);
    const file = normalize(join(dir, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(dir)) return send(403, 'text/plain', 'forbidden');
    try {
      if (!(await stat(file)).isFile()) throw new Error('not a file');
      send(200, TYPES[extname(file)] ?? 'application/octet-stream', await readFile(file));
    } catch {
      send(404, 'text/plain', 'not found');
    }
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  return { url, requests, close: () => new Promise((ok) => server.close(ok)) };
}

export async function launch() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ], // playwright gives each launch a fresh temporary profile
  });
}

/** A page that fails the test on any console error or uncaught exception. */
export async function openPage(browser, url, { context: ctxOptions = {} } = {}) {
  const context = await browser.newContext(ctxOptions);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  return { page, context, errors };
}
