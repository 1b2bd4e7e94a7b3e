// Issue 29 item 1: the default page paints its first estimate and charts from the answers the
// build computed with the module (web/first-visit-plugin.js, web/src/first-visit.js), then loads
// the module after that first paint. These tests hold the answers byte-identical to the module's,
// the calls file equal to what the page asks, and the figures on screen equal to the module's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { serve, launch, openPage, dist, root, shownBy, siteAndBrowser } from './harness.mjs';
import { recordCalls, chartsDrawn } from './first-visit-calls.mjs';
import { load } from '../wasm/load.mjs';
import { firstVisitAnswers } from '../../web/first-visit-plugin.js';

const up = siteAndBrowser();
const calls = JSON.parse(readFileSync(join(root, 'web/first-visit.calls.json'), 'utf8'));
const inlined = () => {
  const m = readFileSync(join(dist, 'index.html'), 'utf8').match(
    /<script type="application\/json" id="flopcast-first">(.*?)<\/script>/s,
  );
  assert.ok(m, 'dist/index.html holds the first visit answers');
  return JSON.parse(m[1]);
};

/** dist/ served with the module's response held until release() (the page's first paint without it). */
async function heldModule() {
  const wasm = `/assets/${readdirSync(join(dist, 'assets')).find((f) => f.endsWith('.wasm'))}`;
  let release;
  const held = new Promise((ok) => (release = ok));
  const site = await serve(dist, {
    routes: {
      [wasm]: async (_req, res) => {
        await held;
        res.writeHead(200, { 'Content-Type': 'application/wasm', 'Cache-Control': 'no-cache' });
        res.end(readFileSync(join(dist, wasm)));
      },
    },
  });
  return { site, release };
}

test('the answers in dist/index.html are the module’s answers to the calls file, byte for byte', async () => {
  const { fc } = await load();
  const answers = inlined();
  assert.deepEqual(
    Object.keys(answers),
    calls.map((c) => JSON.stringify(c)),
  );
  // The plugin's own answering (the same dispatch and JSON-exactness check), run on the live module.
  const live = await firstVisitAnswers(fc, calls);
  for (const key of Object.keys(live))
    assert.equal(JSON.stringify(answers[key]), JSON.stringify(live[key]), `the answer to ${key.slice(0, 60)}`);
});

test('web/first-visit.calls.json is what the default page asks before its first estimate and charts', async () => {
  const asked = await recordCalls(up.browser, `${up.site.url}/index.html`);
  assert.deepEqual(
    asked,
    calls.map((c) => JSON.stringify(c)),
    'the start-up asks something else now: run `node scripts/record-first-visit.mjs` and build again',
  );
});

test('the first estimate and charts are painted before the module arrives, and equal the module’s', async () => {
  const { site, release } = await heldModule();
  try {
    const { page, context, errors, violations } = await openPage(up.browser, `${site.url}/index.html`);
    await chartsDrawn(page);
    assert.equal(await page.evaluate(() => document.body.dataset.first), 'answers');
    // (the module is not preloaded: it is fetched after the first paint)
    assert.equal(await page.evaluate(() => document.querySelector('link[href$=".wasm"]').rel), 'flopcast-preload');
    assert.equal(await page.evaluate(() => document.body.dataset.module), undefined, 'the module has not arrived');
    assert.deepEqual(await page.evaluate(() => window.__flopcastMisses), []);
    const before = await shownBy(page, 'data-field', '#results');
    assert.ok(Object.keys(before).length >= 20, 'the results show the estimate');
    assert.match(await page.textContent('#status'), /^Estimated meta-llama\/Meta-Llama-3-8B \(bf16\) on A100-80GB-SXM/);

    release();
    await page.waitForFunction(() => document.body.dataset.module === '1');
    // The module's own estimate of the same inputs (an input changed and changed back).
    await page.fill('#batch', '2');
    await page.fill('#batch', '1');
    await page.waitForFunction(() => document.getElementById('results').dataset.request?.includes('"batch_size":1'));
    assert.deepEqual(await shownBy(page, 'data-field', '#results'), before);

    // A page that waits for the module shows the same figures.
    const other = await up.browser.newContext();
    await other.addInitScript(() => {
      window.__flopcastNoAnswers = true;
    });
    const p2 = await other.newPage();
    await p2.goto(`${site.url}/index.html`);
    await chartsDrawn(p2);
    assert.equal(await p2.evaluate(() => document.body.dataset.first), 'module');
    assert.deepEqual(await shownBy(p2, 'data-field', '#results'), before);
    await other.close();
    assert.deepEqual(errors, []);
    assert.deepEqual(violations, []);
    await context.close();
  } finally {
    release();
    await site.close();
  }
});

test('a page with a query string or stored settings waits for the module (the answers are the default page’s)', async () => {
  for (const [url, init] of [
    [`${up.site.url}/index.html?model=gpt2`, null],
    [`${up.site.url}/index.html`, () => localStorage.setItem('flopcast-test', '1')],
  ]) {
    const context = await up.browser.newContext();
    if (init) await context.addInitScript(init);
    const page = await context.newPage();
    await page.goto(url);
    await chartsDrawn(page);
    assert.equal(await page.evaluate(() => document.body.dataset.first), 'module', url);
    assert.equal(await page.evaluate(() => document.querySelector('link[href$=".wasm"]').rel), 'preload', url);
    await context.close();
  }
});

test('typing before the module arrives: the estimate waits for it, then shows the typed inputs', async () => {
  const { site, release } = await heldModule();
  try {
    const { page, context, errors } = await openPage(up.browser, `${site.url}/index.html`);
    await chartsDrawn(page);
    await page.fill('#batch', '4');
    await page.fill('#model', 'gpt2');
    assert.match(await page.textContent('#status'), /^Loading the estimator for the new inputs/);
    assert.ok(await page.evaluate(() => document.getElementById('results').classList.contains('stale')));
    // The new inputs asked for estimates (and the picker for the model list) the answers do not hold.
    const missed = new Set((await page.evaluate(() => window.__flopcastMisses)).map((k) => JSON.parse(k)[0]));
    assert.deepEqual([...missed].sort(), ['estimate', 'listModels']);
    release();
    await page.waitForFunction(() => document.getElementById('results').dataset.request?.includes('"gpt2"'));
    const req = JSON.parse(await page.getAttribute('#results', 'data-request'));
    assert.equal(req.batch_size, 4);
    assert.match(
      await page.textContent('#status'),
      /^Estimated openai-community\/gpt2 \(bf16\) on A100-80GB-SXM, batch 4 ×/,
    );
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    release();
    await site.close();
  }
});
