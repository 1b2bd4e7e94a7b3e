// The page's Hugging Face Hub fetch against a local Hub (a node HTTP server on 127.0.0.1) serving
// fixture responses: success, gated, missing, slow, cancelled, oversized, wrong type, not JSON,
// unreachable; ids that try to change the path; addresses outside the allow-list (no request).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, openPage, dist, root, freePort } from './harness.mjs';

const CONFIG = JSON.parse(readFileSync(join(root, 'data/models/qwen2.5-7b.json'), 'utf8')).config;
const QWEN_PARAMETERS = '7615616512';
const resolve = (id) => `/${id}/resolve/main/config.json`;
const MiB = 1024 * 1024;

let site, hub, browser;
const streamed = { sent: 0, finished: false, closedEarly: false };
const stalled = { closed: 0 };
const cors = { 'Access-Control-Allow-Origin': '*' };
before(async () => {
  site = await serve(dist);
  hub = await serve(join(root, 'tests/browser/no-such-dir'), {
    headers: cors,
    routes: {
      [resolve('Qwen/Qwen2.5-7B')]: [200, 'application/json', JSON.stringify(CONFIG)],
      [resolve('plain/text')]: [200, 'text/plain; charset=utf-8', JSON.stringify(CONFIG)], // as huggingface.co sends it
      [resolve('gated/model')]: [401, 'application/json', '{"error":"Access to model gated/model is restricted."}'],
      [resolve('private/model')]: [403, 'application/json', '{"error":"forbidden"}'],
      [resolve('broken/server')]: [500, 'text/plain', 'oops'],
      [resolve('html/page')]: [200, 'text/html; charset=utf-8', '<!doctype html><title>login</title>'],
      [resolve('not/json')]: [200, 'text/plain', 'model_type: llama'],
      [resolve('json/array')]: [200, 'application/json', '[1, 2, 3]'],
      // Never answers: the page's timeout must end it.
      [resolve('slow/model')]: () => {},
      // Headers and the start of the body, then nothing: only Cancel (or the 15 s timeout) ends it.
      [resolve('stalled/body')]: (req, res, headers) => {
        res.writeHead(200, { 'Content-Type': 'application/json', ...headers });
        res.write('{"model_type": "llama", ');
        res.on('close', () => stalled.closed++);
      },
      // 512 MiB of JSON-looking bytes (more than a loaded machine buffers before the page cancels), chunked (no Content-Length): the page must stop reading.
      [resolve('huge/model')]: (req, res, headers) => {
        res.writeHead(200, { 'Content-Type': 'application/json', ...headers });
        const chunk = Buffer.alloc(64 * 1024, 0x20);
        streamed.sent = 0;
        const pump = () => {
          while (streamed.sent < 512 * MiB) {
            streamed.sent += chunk.length;
            if (!res.write(chunk)) return res.once('drain', pump);
          }
          streamed.finished = true;
          res.end();
        };
        res.on('close', () => (streamed.closedEarly = !streamed.finished));
        res.write('{"model_type": "llama", "pad": "');
        pump();
      },
      [resolve('big/declared')]: (req, res, headers) => {
        res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(5 * MiB), ...headers });
        res.write('{');
      },
    },
  });
  browser = await launch();
});
after(async () => {
  await browser?.close();
  await hub?.close();
  await site?.close();
});

async function open(query = '') {
  const opened = await openPage(browser, `${site.url}/index.html${query}`);
  const { page } = opened;
  opened.foreign = [];
  page.on('request', (r) => {
    if (!r.url().startsWith(site.url)) opened.foreign.push(r.url());
  });
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  await page.check('#source-hub');
  return opened;
}

/** Fetches `id` from `base` and returns the message shown at the id (or '' when the fetch worked). */
async function fetchId(page, id, base = hub.url) {
  await page.fill('#hf-base', base);
  await page.fill('#hf-id', id);
  await page.click('#hf-fetch');
  await page.waitForFunction(() => !document.getElementById('hf-fetch').disabled);
  return (await page.textContent('#hf-id-error')).trim();
}
const parameters = (page) => page.getAttribute('[data-field="/parameters"]', 'data-value');

test('a config.json from the Hub: JSON or text/plain; gated, missing, failing, wrong type, not JSON', async () => {
  const { page, context, errors, violations } = await open();
  assert.equal(await fetchId(page, 'Qwen/Qwen2.5-7B'), '');
  assert.equal(await parameters(page), QWEN_PARAMETERS);
  assert.equal(JSON.parse(await page.inputValue('#config')).hidden_size, CONFIG.hidden_size);

  await page.fill('#config', '');
  assert.equal(await fetchId(page, 'plain/text'), '');
  assert.equal(await parameters(page), QWEN_PARAMETERS);

  const url = (id) => `${hub.url}${resolve(id)}`;
  const cases = [
    [
      'gated/model',
      /^HTTP 401 for (\S+): the model is gated or private, so the Hub needs an access token, which this page does not send\. Download its config\.json and paste it/,
    ],
    ['private/model', /^HTTP 403 for (\S+): the model is gated or private.*access token/],
    ['nobody/nothing', /^HTTP 404 for (\S+): no such model repository, or it has no config\.json\.$/],
    ['broken/server', /^HTTP 500 Internal Server Error for (\S+)\.$/],
    ['html/page', /^(\S+) sent “text\/html”, not JSON \(expected application\/json or text\/plain\)\.$/],
    ['not/json', /^(\S+) did not return JSON: /],
    ['json/array', /^(\S+) returned JSON but not an object/],
  ];
  for (const [id, message] of cases) {
    const shown = await fetchId(page, id);
    const m = shown.match(message);
    assert.ok(m, `${id}: ${shown}`);
    assert.equal(m[1].replace(/:$/, ''), url(id), `${id}: the message names the URL`);
    assert.equal(await page.getAttribute('#hf-id', 'aria-invalid'), 'true');
    assert.match(await page.textContent('#status'), /Invalid input — Hub model id: /);
    assert.equal(await page.isHidden('#hf-cancel'), true);
  }
  // After failures the Fetch button works again: the page recovers.
  assert.equal(await fetchId(page, 'Qwen/Qwen2.5-7B'), '');
  assert.equal(await parameters(page), QWEN_PARAMETERS);
  // A Hub nobody listens on: a network error naming it.
  const down = `http://127.0.0.1:${await freePort()}`;
  assert.match(
    await fetchId(page, 'Qwen/Qwen2.5-7B', down),
    new RegExp(`^Network error: could not reach ${down.replaceAll('.', '\\.')} \\(offline`),
  );
  assert.deepEqual(
    errors.filter((e) => !/Failed to load resource|ERR_CONNECTION_REFUSED/.test(e)),
    [],
  );
  assert.deepEqual(violations, []);
  await context.close();
});

test('a slow Hub times out (?hftimeout= shortens the 15 s) and the Fetch button is released', async () => {
  const { page, context, violations } = await open('?hftimeout=400');
  const t0 = Date.now();
  await page.fill('#hf-base', hub.url);
  await page.fill('#hf-id', 'slow/model');
  await page.click('#hf-fetch');
  assert.equal(await page.isDisabled('#hf-fetch'), true, 'Fetch is disabled while loading');
  assert.equal(await page.isVisible('#hf-cancel'), true, 'Cancel is offered while loading');
  await page.waitForFunction(() => !document.getElementById('hf-fetch').disabled, null, { timeout: 5000 });
  const ms = Date.now() - t0;
  assert.ok(ms >= 350 && ms < 4000, `timed out after ${ms} ms`);
  assert.equal(
    (await page.textContent('#hf-id-error')).trim(),
    `Timed out after 400 ms waiting for ${hub.url}${resolve('slow/model')}: try again later.`,
  );
  assert.equal(await page.isHidden('#hf-cancel'), true);
  assert.ok(hub.requests.includes(resolve('slow/model')));
  assert.deepEqual(violations, []);
  await context.close();
});

test('Cancel stops a fetch while the body is loading; the page recovers', async () => {
  const { page, context, violations } = await open(); // the default 15 s timeout: only Cancel ends it
  const before = stalled.closed;
  await page.fill('#hf-base', hub.url);
  await page.fill('#hf-id', 'stalled/body');
  await page.click('#hf-fetch');
  await page.waitForFunction(() => /Fetching /.test(document.getElementById('status').textContent));
  await page.waitForTimeout(300); // the headers and a first chunk have arrived; the body stalls
  assert.equal(await page.isDisabled('#hf-fetch'), true);
  await page.click('#hf-cancel');
  await page.waitForFunction(() => !document.getElementById('hf-fetch').disabled, null, { timeout: 3000 });
  assert.equal(
    (await page.textContent('#hf-id-error')).trim(),
    `Cancelled the fetch of ${hub.url}${resolve('stalled/body')}.`,
  );
  assert.equal(await page.isHidden('#hf-cancel'), true);
  // The browser dropped the connection.
  for (let i = 0; i < 50 && stalled.closed === before; i++) await new Promise((ok) => setTimeout(ok, 50));
  assert.equal(stalled.closed, before + 1, 'the stalled response was closed');
  assert.equal(await fetchId(page, 'Qwen/Qwen2.5-7B'), '');
  assert.equal(await parameters(page), QWEN_PARAMETERS);
  assert.deepEqual(violations, []);
  await context.close();
});

test('an oversized body is refused while streaming (the page stops reading), and by Content-Length', async () => {
  const { page, context, violations } = await open();
  const shown = await fetchId(page, 'huge/model');
  assert.equal(
    shown,
    `${hub.url}${resolve('huge/model')} is larger than 1 MiB: not a config.json (stopped reading it).`,
  );
  for (let i = 0; i < 50 && !streamed.closedEarly; i++) await new Promise((ok) => setTimeout(ok, 50));
  // The page stopped reading: the connection closed before the 512 MiB were sent. How much the
  // browser's network process had buffered by then depends on the machine's load (a figure, not
  // a pass/fail bound).
  assert.equal(streamed.closedEarly, true, 'the response was closed before its end');
  console.log(`  oversized body: the server had sent ${(streamed.sent / MiB).toFixed(1)} of 512 MiB when it closed`);
  assert.match(await fetchId(page, 'big/declared'), /big\/declared\/resolve\/main\/config\.json is larger than 1 MiB/);
  assert.deepEqual(violations, []);
  await context.close();
});

test('model ids: every path segment is encoded, and empty, "." or ".." parts are refused without a request', async () => {
  const { page, context, errors, violations } = await open();
  const encoded = [
    ['we?ird/na#me', '/we%3Fird/na%23me/resolve/main/config.json'],
    ['org/%2e%2e', '/org/%252e%252e/resolve/main/config.json'],
    ['a b/c&d=e', '/a%20b/c%26d%3De/resolve/main/config.json'],
    ['org/..x', '/org/..x/resolve/main/config.json'],
  ];
  for (const [id, path] of encoded) {
    const n = hub.rawRequests.length;
    assert.match(await fetchId(page, id), /^HTTP 404 for /, id);
    assert.deepEqual(hub.rawRequests.slice(n), [path], `${id}: the exact path the server saw`);
  }
  const refused = [
    ['org/..', /^“org\/\.\.” is not a model id: “\.\.” is not allowed as a part; use owner\/name/],
    ['../../etc/passwd', /^“\.\.\/\.\.\/etc\/passwd” is not a model id: “\.\.” is not allowed/],
    ['org/./name', /is not a model id: “\.” is not allowed/],
    ['org//name', /is not a model id: it has an empty part/],
    ['/org/name', /is not a model id: it has an empty part/],
    ['org/name/', /is not a model id: it has an empty part/],
    ['', /^Enter a model id such as Qwen\/Qwen2\.5-7B\.$/],
  ];
  const n = hub.rawRequests.length;
  for (const [id, message] of refused) assert.match(await fetchId(page, id), message, id);
  assert.equal(hub.rawRequests.length, n, 'no request for a refused id');
  assert.deepEqual(
    errors.filter((e) => !/Failed to load resource: the server responded with a status of 404/.test(e)),
    [],
  );
  assert.deepEqual(violations, []);
  await context.close();
});

test('an address outside the allow-list (https, or http on loopback) is refused without any request', async () => {
  const { page, context, foreign, errors, violations } = await open();
  const refused = [
    ['http://example.com', /^Refused “http:\/\/example\.com”: plain http:\/\/ is allowed only for this computer/],
    ['http://127.0.0.1.example.com', /^Refused “http:\/\/127\.0\.0\.1\.example\.com”: plain http:\/\//],
    ['http://10.0.0.1:8080', /^Refused “http:\/\/10\.0\.0\.1:8080”: plain http:\/\//],
    ['ftp://127.0.0.1/', /^Refused “ftp:\/\/127\.0\.0\.1\/”: only https:\/\/ addresses are allowed/],
    ['file:///etc', /^Refused “file:\/\/\/etc”: only https:\/\//],
    ['javascript:alert(1)', /^Refused “javascript:alert\(1\)”: only https:\/\//],
    ['data:application/json,{}', /^Refused “data:application\/json,\{\}”: only https:\/\//],
    ['https://user:pw@huggingface.co', /^Refused “https:\/\/user:pw@huggingface\.co”: .*user name or password/],
    ['https://huggingface.co/?x=1', /^Refused “https:\/\/huggingface\.co\/\?x=1”: .*query \(\?\) or fragment/],
    ['huggingface.co', /^“huggingface\.co” is not an address/],
    // Loopback, but beyond what the page's CSP can name (no ranges, no IPv6 literals in CSP).
    [
      'http://127.0.0.2:9',
      /^Refused “http:\/\/127\.0\.0\.2:9”: .*Content-Security-Policy lets http:\/\/ reach only 127\.0\.0\.1 and localhost/,
    ],
    ['http://[::1]:9', /^Refused “http:\/\/\[::1\]:9”: .*only 127\.0\.0\.1 and localhost/],
  ];
  for (const [base, message] of refused) {
    await page.fill('#hf-base', base);
    await page.fill('#hf-id', 'Qwen/Qwen2.5-7B');
    await page.click('#hf-fetch');
    await page.waitForFunction(() => document.getElementById('hf-base-error').textContent.length > 0);
    const shown = (await page.textContent('#hf-base-error')).trim();
    assert.match(shown, message, base);
    assert.equal(await page.getAttribute('#hf-base', 'aria-invalid'), 'true');
    assert.equal(await page.isDisabled('#hf-fetch'), false);
  }
  // The address can come from the URL (?hfbase=) too: still refused, still no request.
  await page.goto(
    `${site.url}/index.html?src=hub&hf=Qwen/Qwen2.5-7B&hfbase=${encodeURIComponent('http://example.com')}`,
  );
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  await page.click('#hf-fetch');
  await page.waitForFunction(() => document.getElementById('hf-base-error').textContent.length > 0);
  assert.match(await page.textContent('#hf-base-error'), /^Refused “http:\/\/example\.com”/);
  assert.deepEqual(foreign, [], 'no request left the page');
  // Loopback http is allowed: localhost (and 127.0.0.1, the other tests) reach the local Hub.
  const port = new URL(hub.url).port;
  assert.equal(await fetchId(page, 'Qwen/Qwen2.5-7B', `http://localhost:${port}/`), '');
  assert.equal(await parameters(page), QWEN_PARAMETERS);
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  await context.close();
});
