// The "How many GPUs?" panel in Debian's chromium: for the page's model, precision and GPU it
// shows exactly fc.plan()'s layouts for the request it sent (cheapest and fastest marked on the
// rows the core marks), runs in the worker (no long task on the page's thread), its code is not
// part of the first load, "Use this layout" puts the ranks into the layout inputs and the estimate
// then fits, and a bad value shows the core's error at its field.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, siteAndBrowser, watchMainThread } from './harness.mjs';
import { load } from '../wasm/load.mjs';

const up = siteAndBrowser();
let fc;
before(async () => ({ fc } = await load()));

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const planned = (page, prev = '') =>
  page.waitForFunction(
    (prev) => {
      const t = document.getElementById('plan-table').dataset.request ?? '';
      return t !== '' && t !== prev && !document.getElementById('plan-results').hidden;
    },
    prev,
    { timeout: 60000 },
  );

test('the panel shows fc.plan()’s layouts, marks, and Use this layout sets the layout', async () => {
  const { page, errors, violations } = await openPage(
    up.browser,
    `${up.site.url}/index.html?model=llama-2-70b&gpu=A100-80GB-SXM&precision=fp16`,
  );
  await ready(page);
  assert.equal(
    await page.evaluate(() => performance.getEntriesByType('resource').some((r) => /\/plan-[\w-]+\.js/.test(r.name))),
    false,
    'the panel’s code is not part of the first load',
  );
  // The page's own charts are drawn first (they are not this panel's work).
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.charts canvas')].every((c) => c.dataset.rendered === '1'),
  );
  await page.waitForTimeout(500);
  const stop = await watchMainThread(page);
  // Coming into view loads the panel and plans for the inputs above.
  await page.locator('#plan').scrollIntoViewIfNeeded();
  await planned(page);
  assert.equal(await page.textContent('#plan-error'), '');
  // Planning ran in the worker, not on the page's thread.
  const { longest, posted } = await stop();
  assert.ok(posted.includes('plan'), `the page posted the plan to its worker: ${posted.join(', ')}`);
  console.log(`  planner panel: longest task on the page's thread ${longest.toFixed(0)} ms (budget 50 ms)`);

  const sent = JSON.parse(await page.$eval('#plan-table', (t) => t.dataset.request));
  assert.equal(sent.model, 'llama-2-70b');
  assert.equal(sent.gpu, 'A100-80GB-SXM');
  assert.equal(sent.precision, 'fp16');
  assert.equal(sent.parallelism, undefined, 'the plan chooses the ranks');
  assert.deepEqual(sent.plan, { concurrency: 1, max_gpus: 64 }); // the workload's batch as the concurrency (issue 27 item 7)
  const expected = fc.plan(sent);
  assert.equal(expected.min_gpus, 2);

  const rows = await page.$$eval('#plan-table tbody tr', (trs) =>
    trs.map((tr) => ({
      values: Object.fromEntries(
        [...tr.querySelectorAll('td[data-field]')].map((td) => [td.dataset.field, td.dataset.value]),
      ),
      cheapest: 'cheapest' in tr.dataset,
      fastest: 'fastest' in tr.dataset,
      marks: tr.querySelector('.plan-marks').textContent,
    })),
  );
  assert.equal(rows.length, expected.layouts.length);
  rows.forEach((row, i) => {
    const want = expected.layouts[i];
    for (const [key, value] of Object.entries(row.values)) assert.equal(value, String(want[key]), `row ${i} ${key}`);
    assert.equal(row.cheapest, want.cheapest);
    assert.equal(row.fastest, want.fastest);
    assert.equal(/cheapest/.test(row.marks), want.cheapest);
    assert.equal(/fastest/.test(row.marks), want.fastest);
  });
  assert.equal(rows.filter((r) => r.cheapest).length, 1);
  assert.equal(rows.filter((r) => r.fastest).length, 1);
  assert.match(
    await page.textContent('#plan-answer'),
    /^Fits on 2 × A100-80GB-SXM \(TP=2\) at [\d.]+ GiB per GPU of 72(\.0+)? GiB usable\.$/,
  );

  // Before: one GPU cannot hold 138 GB of weights, and the headline says so. "Use this layout" on
  // the TP=2 row: the layout inputs take its ranks, and the headline follows the layout.
  const shownAt = (sel) => page.$eval(sel, (el) => el.dataset.value);
  assert.equal(await shownAt('#fits'), 'false');
  const i = expected.layouts.findIndex((l) => l.tp === 2 && l.gpus === 2);
  assert.ok(i >= 0);
  await page.click(`#plan-table tbody tr[data-index="${i}"] .plan-use`);
  assert.equal(await page.inputValue('#tp'), '2');
  assert.equal(await page.inputValue('#pp'), '1');
  await page.waitForFunction(() => document.getElementById('fits').dataset.value === 'true');
  assert.equal(await shownAt('.summary [data-field="/gpus"]'), '2');
  assert.equal(
    Number(await shownAt('.summary [data-field="/memory_per_gpu"]')),
    expected.layouts[i].per_gpu_memory_bytes,
  );
  assert.equal(await shownAt('[data-field="/details/parallelism/fits_per_gpu"]'), 'true');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('tp') === '2');

  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
});

test('a concurrency target and a bad cap reach the core; its error shows at the field', async () => {
  const { page, errors } = await openPage(up.browser, `${up.site.url}/index.html?model=llama-3-8b&gpu=H100-SXM`);
  await ready(page);
  await page.locator('#plan').scrollIntoViewIfNeeded();
  await planned(page);
  let prev = await page.$eval('#plan-table', (t) => t.dataset.request);
  await page.fill('#plan-concurrency', '32');
  await page.fill('#plan-max-gpus', '4');
  await page.click('#plan-run');
  await planned(page, prev);
  const sent = JSON.parse(await page.$eval('#plan-table', (t) => t.dataset.request));
  assert.deepEqual(sent.plan, { concurrency: 32, max_gpus: 4 });
  const expected = fc.plan(sent);
  assert.equal(expected.concurrency, 32);
  // The panel's inputs are in the URL.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('plan-conc') === '32');
  assert.equal(new URL(page.url()).searchParams.get('plan-gpus'), '4');
  const gpus = await page.$$eval('#plan-table tbody td[data-field="gpus"]', (tds) =>
    tds.map((td) => Number(td.dataset.value)),
  );
  assert.deepEqual(
    gpus,
    expected.layouts.map((l) => l.gpus),
  );
  assert.ok(gpus.every((g) => g <= 4));

  await page.fill('#plan-max-gpus', '0');
  await page.click('#plan-run');
  await page.waitForFunction(() => document.getElementById('plan-max-gpus-error').textContent !== '');
  assert.equal(await page.getAttribute('#plan-max-gpus-error', 'data-pointer'), '/plan/max_gpus');
  assert.equal(await page.getAttribute('#plan-max-gpus', 'aria-invalid'), 'true');
  assert.match(await page.textContent('#plan-max-gpus-error'), /At most GPUs/);
  assert.deepEqual(errors, []);
});
