// One answer (issue 13 item 1) in Debian's chromium: with a layout in the link, the page's headline
// (fit badge, memory per GPU, time to first token, decode, energy and cost for all GPUs) is the
// layout's and equals the CLI's JSON for the same request; with training on the page shows the
// training step's time, memory and cost instead of the inference rows; the widget does the same.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { openPage, root, assertSame, shownBy, openSuite, closeSuite } from './harness.mjs';

let site, browser;
before(async () => ({ site, browser } = await openSuite()));
after(() => closeSuite({ site, browser }));

const cli = (args) => {
  const r = spawnSync(join(root, 'build/flopcast'), [...args, '--json', '--no-calibration'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};
const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
/** The visible text of `selector` (hidden rows excluded: what a reader sees). */
const visibleText = (page, selector) => page.$eval(selector, (el) => el.innerText);

test('the tp=4 link from the issue: "Fits", memory per GPU and the 4-GPU figures everywhere', async () => {
  const { page, context, errors } = await openPage(
    browser,
    `${site.url}/index.html?model=llama-2-70b&gpu=A100-80GB-SXM&precision=fp16&tp=4`,
  );
  await ready(page);
  const expected = cli(['estimate', 'llama-2-70b', '-g', 'A100-80GB-SXM', '-p', 'fp16', '--tp', '4']);
  assertSame(await shownBy(page, 'data-field', '#results'), expected);

  // The JSON's top level is the configuration: these are what the headline shows.
  assert.equal(expected.fits, true);
  assert.equal(expected.gpus, 4);
  assert.equal(expected.details.memory.fits_on_gpu, true);
  assert.equal(expected.memory_per_gpu, expected.details.parallelism.per_gpu_memory_bytes);
  assert.equal(expected.details.performance.prefill_latency_s, expected.details.parallelism.prefill_latency_s);
  assert.equal(
    expected.details.performance.decode_tokens_per_second,
    expected.details.parallelism.decode_tokens_per_second,
  );
  // Cost: four GPUs' price over the request (hand rule: seconds / 3600 x 4 x $/h).
  const p = expected.details.performance;
  assert.ok(Math.abs(p.cost_usd - (p.total_request_latency_s / 3600) * 4 * p.cost_per_hour_usd) < 1e-12 * p.cost_usd);

  assert.match(await page.textContent('#fits'), /^Fits/);
  const summary = await visibleText(page, '.summary-line');
  assert.match(summary, /per GPU on 4 GPUs/);
  assert.doesNotMatch(summary, /Does not fit/);
  // The per-GPU figure in the summary and the Multi-GPU card are the same number.
  const shown = await shownBy(page, 'data-field', '.summary-line');
  assert.equal(Number(shown['/memory_per_gpu']), expected.details.parallelism.per_gpu_memory_bytes);
  const cost = await visibleText(page, '.card.perf');
  assert.match(cost, /4 GPUs ×/);

  // One GPU again: the summary no longer speaks of GPUs, and the badge says it does not fit.
  await page.fill('#tp', '1');
  await page.waitForFunction(() => document.querySelector('#fits').textContent.startsWith('Does not fit'));
  assert.doesNotMatch(await visibleText(page, '.summary-line'), /per GPU on/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('training on: the training step, its memory and cost, no prefill or decode rows', async () => {
  const { page, context, errors } = await openPage(
    browser,
    `${site.url}/index.html?model=llama-3-8b&gpu=H100-SXM&training=1&batch=4&seq=1024`,
  );
  await ready(page);
  const expected = cli(['estimate', 'llama-3-8b', '-g', 'H100-SXM', '--training', '-b', '4', '-s', '1024']);
  assertSame(await shownBy(page, 'data-field', '#results'), expected);
  const hero = await visibleText(page, '.hero');
  assert.match(hero, /Training step/);
  assert.match(hero, /Cost per step/);
  assert.doesNotMatch(hero, /Time to first token/);
  const perf = await visibleText(page, '.card.perf');
  assert.match(perf, /One training step/);
  assert.match(perf, /Energy per training step/);
  assert.doesNotMatch(perf, /Prefill|Decode|request/);
  // The memory total is the training state (the top-level memory in training mode).
  assert.equal(expected.memory, expected.details.memory.training.total);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the widget with tp="4" shows memory per GPU, the layout and the cost of all GPUs', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/embed.html`);
  await page.evaluate(() => {
    const el = document.createElement('flopcast-estimate');
    el.id = 'answer';
    for (const [k, v] of Object.entries({ model: 'llama-2-70b', gpu: 'A100-80GB-SXM', precision: 'fp16', tp: '4' }))
      el.setAttribute(k, v);
    document.body.append(el);
  });
  await page.waitForFunction(() => document.querySelector('#answer')?.result);
  const text = await page.$eval('#answer', (el) => el.shadowRoot.querySelector('.card').innerText);
  assert.match(text, /4 × A100-80GB-SXM/);
  assert.match(text, /Memory per GPU/);
  assert.match(text, /× 4 GPUs/);
  assert.match(text, /Cost per request/);
  assert.match(text, /\(4 GPUs\)/);
  assert.match(text, /\bfits\b/);
  const r = await page.$eval('#answer', (el) => el.result);
  assert.equal(r.fits, true);
  assert.equal(r.gpus, 4);
  assert.deepEqual(errors, []);
  await context.close();
});
