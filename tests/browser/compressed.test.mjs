// The server `npm start` runs (scripts/serve.mjs) sends the copies web/compress-plugin.js wrote at
// build time: a real request with Accept-Encoding: br gets Content-Encoding: br, its own
// Content-Type (application/wasm for the module) and Vary: Accept-Encoding, and decodes to the
// very bytes of the plain file; gzip likewise; q=0 refuses an encoding; no Accept-Encoding gets
// the plain file. In chromium the page loads compressed and shows its first estimate.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { launch, openPage, dist } from './harness.mjs';
import { startServer, acceptedEncodings } from '../../scripts/serve.mjs';

let site, browser;
before(async () => {
  site = await startServer({ dir: dist, port: 0 });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await site?.close();
});

/** GET `path` with `headers`; resolves to {status, headers, body} with the body as sent (not decoded). */
function get(path, headers = {}) {
  return new Promise((ok, fail) => {
    const req = request(new URL(path, site.url), { headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => ok({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', fail);
    req.end();
  });
}

const files = readdirSync(dist, { recursive: true, withFileTypes: true })
  .filter((d) => d.isFile() && !/\.(br|gz)$/.test(d.name))
  .map((d) =>
    relative(dist, join(d.parentPath ?? d.path, d.name))
      .split(sep)
      .join('/'),
  );
const wasm = files.find((f) => f.endsWith('.wasm'));

test('the build wrote a .br and a .gz beside the module, the scripts, the styles and the pages', () => {
  for (const ext of ['.wasm', '.js', '.css', '.html'])
    for (const f of files.filter((x) => x.endsWith(ext) && readFileSync(join(dist, x)).length > 1024)) {
      assert.ok(existsSync(join(dist, `${f}.br`)), `${f}.br`);
      assert.ok(existsSync(join(dist, `${f}.gz`)), `${f}.gz`);
    }
  // The service worker does not precache the server's copies.
  const sw = readFileSync(join(dist, 'sw.js'), 'utf8');
  assert.doesNotMatch(sw.match(/^const FILES = (.*);$/m)[1], /\.(br|gz)"/);
});

test('Accept-Encoding: br gets the brotli copy, which decodes to the plain file', async () => {
  for (const f of [wasm, 'index.html', files.find((x) => /^assets\/main-.*\.js$/.test(x))]) {
    const plain = readFileSync(join(dist, f));
    const r = await get(`/${f}`, { 'Accept-Encoding': 'gzip, deflate, br' });
    assert.equal(r.status, 200, f);
    assert.equal(r.headers['content-encoding'], 'br', f);
    assert.equal(r.headers.vary, 'Accept-Encoding', f);
    assert.ok(r.body.length < plain.length, `${f}: ${r.body.length} >= ${plain.length}`);
    assert.equal(Number(r.headers['content-length']), r.body.length);
    assert.ok(brotliDecompressSync(r.body).equals(plain), `${f} decodes to the plain file`);
  }
  const r = await get(`/${wasm}`, { 'Accept-Encoding': 'br' });
  assert.equal(r.headers['content-type'], 'application/wasm');
  assert.match((await get('/', { 'Accept-Encoding': 'br' })).headers['content-type'], /^text\/html/);
});

test('gzip when brotli is not accepted; the plain file when nothing is', async () => {
  const plain = readFileSync(join(dist, wasm));
  for (const ae of ['gzip', 'br;q=0, gzip', 'gzip;q=1, br;q=0.5']) {
    const r = await get(`/${wasm}`, { 'Accept-Encoding': ae });
    assert.equal(r.headers['content-encoding'], 'gzip', ae);
    assert.ok(gunzipSync(r.body).equals(plain), ae);
  }
  for (const headers of [{}, { 'Accept-Encoding': 'identity' }, { 'Accept-Encoding': 'br;q=0, gzip;q=0' }]) {
    const r = await get(`/${wasm}`, headers);
    assert.equal(r.headers['content-encoding'], undefined, JSON.stringify(headers));
    assert.equal(r.headers['content-type'], 'application/wasm');
    assert.equal(r.headers.vary, 'Accept-Encoding');
    assert.ok(r.body.equals(plain));
  }
  assert.deepEqual(acceptedEncodings('*'), ['br', 'gzip']);
  assert.deepEqual(acceptedEncodings('gzip;q=0.9, *;q=0.1'), ['gzip', 'br']);
  assert.deepEqual(acceptedEncodings('br;q=0.2, gzip;q=0.8'), ['gzip', 'br']);
  assert.deepEqual(acceptedEncodings(''), []);
});

test('a revalidation gets 304 for its variant; paths outside the site and unknown files get 404', async () => {
  const first = await get('/index.html', { 'Accept-Encoding': 'br' });
  const again = await get('/index.html', { 'Accept-Encoding': 'br', 'If-None-Match': first.headers.etag });
  assert.equal(again.status, 304);
  const other = await get('/index.html', { 'Accept-Encoding': 'gzip', 'If-None-Match': first.headers.etag });
  assert.equal(other.status, 200, 'a brotli ETag does not validate the gzip copy');
  assert.equal((await get('/../package.json')).status, 404);
  assert.equal((await get('/%2e%2e/package.json')).status, 404);
  assert.equal((await get('/no-such-file.js')).status, 404);
});

test('in chromium the page arrives compressed (brotli) and shows its first estimate', async () => {
  // No service worker: every file comes from the server.
  const { page, context, errors } = await openPage(browser, 'about:blank', { context: { serviceWorkers: 'block' } });
  const encodings = {};
  // Each response's headers, awaited before the checks and before the context closes (a lookup
  // still pending when it closes would reject after the test).
  const pending = [];
  const onResponse = (r) => {
    const path = new URL(r.url()).pathname;
    pending.push(
      r.allHeaders().then((h) => {
        encodings[path] = h['content-encoding'] ?? 'none';
      }),
    );
  };
  page.on('response', onResponse);
  await page.goto(site.url);
  // (the default page paints from the build's answers and fetches the module after that paint)
  await page.waitForFunction(() => document.body.dataset.ready === '1' && document.body.dataset.module === '1');
  page.off('response', onResponse);
  await Promise.all(pending);
  assert.match(await page.textContent('#status'), /^Estimated /);
  assert.equal(encodings[`/${wasm}`], 'br');
  assert.equal(encodings['/'], 'br');
  for (const [path, enc] of Object.entries(encodings)) if (/\.(js|css)$/.test(path)) assert.equal(enc, 'br', path);
  assert.deepEqual(errors, []);
  await context.close();
});
