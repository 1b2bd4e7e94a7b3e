// Shared by the browser tests and benchmarks: a real HTTP server on 127.0.0.1 serving the
// built site (dist/), and Debian's chromium driven by playwright-core (never a downloaded browser).
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { load } from '../wasm/load.mjs';

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
  const rawRequests = []; // the request targets exactly as sent (path and query, still encoded)
  const sockets = new Set();
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    requests.push(path);
    rawRequests.push(req.url);
    const send = (status, type, body) => {
      res.writeHead(status, { 'Content-Type': type, 'Cache-Control': 'no-cache', ...headers });
      res.end(body);
    };
    // A route is [status, type, body], or a function (req, res, headers) that answers itself.
    if (typeof routes[path] === 'function') return routes[path](req, res, headers);
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
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const url = `http://127.0.0.1:${server.address().port}`;
  const close = () => {
    for (const s of sockets) s.destroy(); // stalled test responses must not keep the server open
    return new Promise((ok) => server.close(ok));
  };
  return { url, requests, rawRequests, close };
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

/**
 * For a test file: serves dist/ and launches the browser before its tests, closes both after.
 * The returned object holds {site, browser} once the tests run.
 */
export function siteAndBrowser() {
  const up = {};
  before(async () => Object.assign(up, await openSuite()));
  after(() => closeSuite(up));
  return up;
}

/** A suite's fixtures: dist/ served, the browser, and with `core` the WASM core in Node ({fc}). */
export async function openSuite({ core = false } = {}) {
  const site = await serve(dist);
  const browser = await launch();
  return { site, browser, fc: core ? (await load()).fc : undefined };
}
export async function closeSuite({ site, browser }) {
  await browser?.close();
  await site?.close();
}

/**
 * Records every Content-Security-Policy violation in the context's pages (documents and their
 * shadow roots) into `violations`: {directive, blocked, sample}.
 */
export async function watchCsp(context, violations = []) {
  await context.exposeBinding('__flopcastCspViolation', (_source, v) => violations.push(v));
  await context.addInitScript(() => {
    document.addEventListener(
      'securitypolicyviolation',
      (e) =>
        window.__flopcastCspViolation({ directive: e.effectiveDirective, blocked: e.blockedURI, sample: e.sample }),
      true,
    );
  });
  return violations;
}

/**
 * A page that fails the test on any console error or uncaught exception; `violations` collects
 * Content-Security-Policy violations (see watchCsp): tests assert it stays empty.
 */
export async function openPage(browser, url, { context: ctxOptions = {} } = {}) {
  const context = await browser.newContext(ctxOptions);
  const violations = await watchCsp(context);
  // The type of every message the page posts to a worker, in order (see watchMainThread).
  await context.addInitScript(() => {
    window.__workerPosts = [];
    const post = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (msg, ...rest) {
      window.__workerPosts.push(msg?.type ?? typeof msg);
      return post.call(this, msg, ...rest);
    };
  });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text());
  });
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  return { page, context, errors, violations };
}

/**
 * Watches the page's own thread from now on; stop() resolves {longest, posted}: the longest task
 * (ms, a Chromium 'longtask' entry, 0 if none) and the types of the messages the page posted to
 * its workers meanwhile. Tests assert where the work ran (`posted`), a structural fact, and print
 * `longest` as a figure: durations on a shared machine are not pass/fail (the 50 ms budget is
 * checked by tests/browser/bench.mjs).
 */
export async function watchMainThread(page) {
  assert.ok(await page.evaluate(() => PerformanceObserver.supportedEntryTypes.includes('longtask')));
  await page.evaluate(() => {
    window.__long = [];
    window.__postsFrom = window.__workerPosts.length;
    window.__obs = new PerformanceObserver((l) => window.__long.push(...l.getEntries().map((e) => e.duration)));
    window.__obs.observe({ type: 'longtask' });
  });
  return () =>
    page.evaluate(() => {
      window.__obs.takeRecords().forEach((e) => window.__long.push(e.duration));
      window.__obs.disconnect();
      return { longest: Math.max(0, ...window.__long), posted: window.__workerPosts.slice(window.__postsFrom) };
    });
}

/**
 * Records every Blob.slice ([start, end, size]) and whole-File read (['whole', method, size]) made
 * in the page's worker from now on, where the page reads checkpoint headers and ONNX files; call
 * it once the page is ready. Resolves a function that returns the reads so far.
 */
export async function watchWorkerReads(page) {
  const worker = page.workers()[0] ?? (await page.waitForEvent('worker'));
  await worker.evaluate(() => {
    self.__reads = [];
    const slice = Blob.prototype.slice;
    Blob.prototype.slice = function (start, end, type) {
      self.__reads.push([start ?? 0, end ?? this.size, this.size]);
      return slice.call(this, start, end, type);
    };
    for (const m of ['arrayBuffer', 'text', 'stream']) {
      const orig = Blob.prototype[m];
      Blob.prototype[m] = function (...a) {
        if (this instanceof File) self.__reads.push(['whole', m, this.size]);
        return orig.apply(this, a);
      };
    }
  });
  return () => worker.evaluate(() => self.__reads.splice(0));
}

/** A free TCP port on 127.0.0.1 (closed again: nothing listens there until someone binds it). */
export async function freePort() {
  const s = createServer();
  await new Promise((ok) => s.listen(0, '127.0.0.1', ok));
  const { port } = s.address();
  await new Promise((ok) => s.close(ok));
  return port;
}

/**
 * Resolves a JSON pointer ("/details/memory/weights", "/ranges/ttft_s/0") in a result. Throws
 * when the pointer names no key of the result. A null object on the way (details.performance
 * without a GPU, details.memory.training in inference) resolves to null, with `viaNull` naming
 * it, unless `strict`.
 */
export function resolvePointer(result, pointer, { strict = false } = {}) {
  if (typeof pointer !== 'string' || !pointer.startsWith('/')) throw new Error(`not a JSON pointer: ${pointer}`);
  let value = result;
  let at = '';
  for (const raw of pointer.split('/').slice(1)) {
    const key = raw.replaceAll('~1', '/').replaceAll('~0', '~');
    if (value === null) {
      if (strict) assert.fail(`${pointer}: ${at} is null in the core's result, so the key cannot be checked`);
      return { value: null, viaNull: at };
    }
    const has =
      typeof value === 'object' &&
      (Array.isArray(value) ? /^(0|[1-9]\d*)$/.test(key) && Number(key) < value.length : Object.hasOwn(value, key));
    if (!has) {
      const keys = value && typeof value === 'object' ? Object.keys(value) : [];
      assert.fail(
        `${pointer}: the core's result has no ${JSON.stringify(key)} at ${at || '/'}` +
          (Array.isArray(value) ? ` (an array of ${value.length})` : keys.length ? ` (keys: ${keys.join(', ')})` : ''),
      );
    }
    value = value[key];
    at += `/${raw}`;
  }
  return { value, viaNull: null };
}

/**
 * The page shows exactly the core's numbers: `values` maps each displayed element's JSON
 * pointer to its data-value text; every pointer must name a key of `result` (see
 * resolvePointer) and show its value ('null' for null). At least `min` figures are compared.
 */
export function assertSame(values, result, { min = 20, strict = false } = {}) {
  const entries = Object.entries(values);
  for (const [pointer, text] of entries) {
    const { value: expected } = resolvePointer(result, pointer, { strict });
    if (expected === null) assert.equal(text, 'null', `${pointer}: page ${text}, core null`);
    else if (typeof expected === 'number')
      assert.equal(Number(text), expected, `${pointer}: page ${text}, core ${expected}`);
    else if (typeof expected === 'object') assert.fail(`${pointer}: names an object or array, not a figure`);
    else assert.equal(text, String(expected), pointer);
  }
  assert.ok(entries.length >= min, `compared ${entries.length} displayed figures, expected at least ${min}`);
  return entries.length;
}

/** Every displayed value under `root` by its JSON pointer, from the elements with `attr`. */
export async function shownBy(page, attr, root = 'body') {
  return page.evaluate(
    ([attr, root]) => {
      const out = {};
      for (const el of document.querySelectorAll(`${root} [${attr}]`)) out[el.getAttribute(attr)] = el.dataset.value;
      return out;
    },
    [attr, root],
  );
}

/**
 * Waits until the async `fn`, run in the page, resolves to a truthy value (polling every `interval`
 * ms). page.waitForFunction cannot do this: it takes the Promise an async function returns as
 * truthy and returns at once.
 */
export async function waitForAsync(page, fn, { timeout = 30000, interval = 100 } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    if (await page.evaluate(fn)) return;
    if (Date.now() > deadline) throw new Error(`waitForAsync: still false after ${timeout} ms: ${fn}`);
    await new Promise((ok) => setTimeout(ok, interval));
  }
}
