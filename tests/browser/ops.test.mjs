// The Operators card in Debian's chromium: it loads only when scrolled to (not on the first
// estimate), shows exactly the core's estimate({...request, operator_table: true}).details.operators
// rows for the prefill and, after the toggle, the decode step, sorts by a column, and its roofline
// chart has one point per operator that has FLOPs and bytes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, shownBy, openSuite, closeSuite } from './harness.mjs';

let site, browser, fc;
before(async () => ({ site, browser, fc } = await openSuite({ core: true })));
after(() => closeSuite({ site, browser }));

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const key = (row) => `${row.name}@${row.group ?? 'model'}`;

/** Waits until the card has shown more estimates than `count`. */
const shown = (page, count) =>
  page.waitForFunction((n) => Number(document.getElementById('operators').dataset.ready ?? 0) > n, count);

async function checkRows(page, rows) {
  const names = await page.$$eval('#ops-table tbody tr', (trs) => trs.map((tr) => tr.dataset.op));
  assert.deepEqual(names, rows.map(key), 'one table row per operator, in the core’s order');
  const flops = await shownBy(page, 'data-op-flops', '#operators');
  const bytes = await shownBy(page, 'data-op-bytes', '#operators');
  const intensity = await shownBy(page, 'data-op-intensity', '#operators');
  const bound = await shownBy(page, 'data-op-bound', '#operators');
  const time = await shownBy(page, 'data-op-time', '#operators');
  for (const row of rows) {
    const k = key(row);
    assert.equal(Number(flops[k]), row.flops, `${k} FLOPs`);
    assert.equal(Number(bytes[k]), row.bytes, `${k} bytes`);
    assert.equal(intensity[k], row.intensity === null ? '' : String(row.intensity), `${k} intensity`);
    assert.equal(bound[k], row.bound, `${k} bound`);
    assert.equal(Number(time[k]), row.time_s, `${k} time`);
  }
  const plotted = rows.filter((r) => r.flops > 0 && r.bytes > 0 && r.time_s > 0).map(key);
  assert.ok(plotted.length >= rows.length - 3, 'nearly every operator is drawn');
  const points = await page.$eval('#chart-ops', (c) => JSON.parse(c.dataset.pointNames));
  assert.deepEqual(points, plotted, 'one chart point per operator with FLOPs and bytes');
  assert.equal(await page.$eval('#operators', (el) => Number(el.dataset.points)), plotted.length);
}

test('the Operators card shows the core’s operator tables, prefill and decode, with one point per operator', async () => {
  const { page, context, errors, violations } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  // Not loaded by the first estimate.
  assert.equal(await page.$eval('#operators', (el) => el.dataset.ready ?? null), null);
  await page.fill('#model', 'qwen2.5-7b');
  await page.fill('#batch', '4');
  await page.selectOption('#gpu', 'L40S');
  await page.waitForFunction(() => new URL(location.href).searchParams.get('gpu') === 'L40S');
  await page.locator('#operators').scrollIntoViewIfNeeded();
  const expected = fc.estimate({
    model: 'qwen2.5-7b',
    gpu: 'L40S',
    batch_size: 4,
    layer_table: true,
    operator_table: true,
  }).details.operators;
  await page.waitForFunction(() => document.querySelectorAll('#ops-table tbody tr').length > 0);
  await checkRows(page, expected.prefill);
  assert.equal(await page.getAttribute('#ops-prefill', 'aria-pressed'), 'true');

  await page.click('#ops-decode');
  assert.equal(await page.getAttribute('#ops-decode', 'aria-pressed'), 'true');
  await checkRows(page, expected.decode);
  assert.notDeepEqual(
    expected.decode.map((r) => r.flops),
    expected.prefill.map((r) => r.flops),
  );

  // Sorting by FLOPs (largest first, then ascending on a second click).
  await page.click('#ops-table thead button[data-sort="flops"]');
  const order = await page.$$eval('#ops-table tbody tr', (trs) => trs.map((tr) => tr.dataset.op));
  const byFlops = [...expected.decode].sort((a, b) => b.flops - a.flops).map(key);
  assert.deepEqual(
    order.map((k) => expected.decode.find((r) => key(r) === k).flops),
    byFlops.map((k) => expected.decode.find((r) => key(r) === k).flops),
  );
  assert.equal(await page.getAttribute('#ops-table thead th:nth-child(3)', 'aria-sort'), 'descending');
  await page.click('#ops-table thead button[data-sort="flops"]');
  assert.equal(await page.getAttribute('#ops-table thead th:nth-child(3)', 'aria-sort'), 'ascending');

  // A changed input re-estimates the card: batch 16.
  const count = await page.$eval('#operators', (el) => Number(el.dataset.ready));
  await page.fill('#batch', '16');
  await shown(page, count);
  const b16 = fc.estimate({ model: 'qwen2.5-7b', gpu: 'L40S', batch_size: 16, operator_table: true }).details.operators;
  const flops = await shownBy(page, 'data-op-flops', '#operators');
  for (const row of b16.decode) assert.equal(Number(flops[key(row)]), row.flops);

  // An invalid input marks the card stale until the next valid estimate reaches it.
  await page.fill('#batch', '0');
  await page.waitForFunction(() => document.getElementById('operators').classList.contains('stale'));
  const before = await page.$eval('#operators', (el) => Number(el.dataset.ready));
  await page.fill('#batch', '2');
  await shown(page, before);
  assert.equal(await page.$eval('#operators', (el) => el.classList.contains('stale')), false);

  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  await context.close();
});
