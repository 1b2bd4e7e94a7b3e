// The compare & sweep panel with large sweeps in Debian's chromium: a 1,000,000-point sweep runs
// in the worker, its CSV download streams from the worker (header + every point, first and last
// rows equal to the WASM core's compare() for those points; the page's longest task is printed);
// sorting the million rows happens in the worker; Cancel stops a sweep and
// a download; the column picker is remembered; the first column stays put while scrolling
// sideways; the chart draws one line per value of the group-by input with the table's values.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openSync, readSync, closeSync, statSync, readFileSync } from 'node:fs';
import { openPage, openSuite, closeSuite, watchMainThread } from './harness.mjs';
import { formatInteger } from '../../web/src/format.js';

let site, browser, fc;
before(async () => ({ site, browser, fc } = await openSuite({ core: true })));
after(() => closeSuite({ site, browser }));

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const range = (n, f = (i) => i + 1) => Array.from({ length: n }, (_, i) => f(i)).join(',');

async function fillSweep(page, { models, batch, seq, precision = 'bf16', gpu = 'H100' }) {
  await page.fill('#sweep-models', models);
  await page.fill('#sweep-batch', batch);
  await page.fill('#sweep-seq', seq);
  await page.fill('#sweep-precision', precision);
  await page.fill('#sweep-gpu', gpu);
}
async function runSweep(page, points) {
  await page.click('#sweep-run');
  await page.waitForFunction(
    (n) => document.getElementById('sweep-count').textContent.startsWith(`${n} points in `),
    formatInteger(points), // counts are grouped ("1,000,000 points")
    { timeout: 90000 },
  );
}
/** The compare() row of one point of the page's sweep request. */
function coreRow(request, at) {
  const rows = fc.compare({ ...request, ...Object.fromEntries(Object.entries(at).map(([k, v]) => [k, [v]])) });
  assert.equal(rows.length, 1);
  return rows[0];
}
const cellOf = (v) => (v === null || v === undefined ? '' : String(v));

/** The first line, the last line and the line count of a (large) text file, read in blocks. */
function scanLines(path) {
  const fd = openSync(path, 'r');
  const size = statSync(path).size;
  const buf = Buffer.alloc(1 << 22);
  let lines = 0;
  let head = '';
  for (let at = 0; at < size;) {
    const n = readSync(fd, buf, 0, buf.length, at);
    if (at === 0) head = buf.subarray(0, Math.min(n, 65536)).toString('utf8');
    for (let i = 0; i < n; i++) if (buf[i] === 10) lines++;
    at += n;
  }
  const tailLen = Math.min(size, 65536);
  const tail = Buffer.alloc(tailLen);
  readSync(fd, tail, 0, tailLen, size - tailLen);
  closeSync(fd);
  const headLines = head.split('\n');
  const tailLines = tail.toString('utf8').trimEnd().split('\n');
  return { lines, header: headLines[0], first: headLines[1], last: tailLines[tailLines.length - 1] };
}

test('a 1,000,000-point sweep: CSV download streams without a long task and equals compare(); sorting stays off the thread; Cancel stops a download', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await fillSweep(page, { models: 'llama-3-8b', batch: range(1000), seq: range(1000) });
  const t0 = Date.now();
  await runSweep(page, 1000000);
  console.log(`  1M-point sweep: ${Date.now() - t0} ms (${await page.textContent('#sweep-count')})`);
  const request = JSON.parse(await page.$eval('#sweep-table', (t) => t.dataset.request));
  assert.equal(await page.$$eval('#sweep-table tbody tr', (r) => r.length), 100);

  // The CSV, streamed from the worker: the page's thread only collects the parts.
  let stop = await watchMainThread(page);
  const t1 = Date.now();
  const [download] = await Promise.all([page.waitForEvent('download', { timeout: 120000 }), page.click('#sweep-csv')]);
  const path = await download.path();
  const { longest, posted } = await stop();
  console.log(`  1M-row CSV: ${Date.now() - t1} ms, longest main-thread task ${longest.toFixed(0)} ms`);
  assert.ok(posted.includes('sweep-download'), `the worker wrote the CSV: ${posted.join(', ')}`);
  assert.match(await page.textContent('#sweep-count'), /CSV written: 1,000,000 rows\./);
  const csv = scanLines(path);
  assert.equal(csv.lines, 1 + 1000000);
  const header = csv.header.split(',');
  assert.deepEqual(
    header,
    fc.defaults().row_fields.map((f) => f.key),
  );
  for (const [line, at] of [
    [csv.first, { batch_size: 1, sequence_length: 1 }],
    [csv.last, { batch_size: 1000, sequence_length: 1000 }],
  ]) {
    const row = coreRow(request, at);
    const cells = line.split(',');
    assert.equal(cells.length, header.length);
    header.forEach((k, j) => assert.equal(cells[j], cellOf(row[k]), `${k} at ${JSON.stringify(at)}`));
  }

  // Sorting the million rows by memory: in the worker; the first row is the smallest memory
  // (fewest tokens: batch 1, prompt 1), and the shown rows are in order.
  stop = await watchMainThread(page);
  await page.click('#sweep-table th[data-key="memory"]');
  await page.waitForFunction(
    () => document.querySelector('#sweep-table th[data-key="memory"]')?.getAttribute('aria-sort') === 'ascending',
  );
  // The header turns before the sorted window arrives; the note is written with the rows.
  await page.waitForFunction(() => /sorted by .*\(ascending\)/.test(document.getElementById('sweep-note').textContent));
  const sorted = await stop();
  console.log(`  sorting 1M rows: longest main-thread task ${sorted.longest.toFixed(0)} ms`);
  assert.ok(sorted.posted.includes('sweep-sort'), `the worker sorted the rows: ${sorted.posted.join(', ')}`);
  const memCol = await page.$$eval('#sweep-table thead th', (ths) => ths.findIndex((t) => t.dataset.key === 'memory'));
  const shownMem = await page.$$eval(
    '#sweep-table tbody tr',
    (trs, j) => trs.map((tr) => Number(tr.cells[j].dataset.v)),
    memCol,
  );
  assert.equal(shownMem[0], coreRow(request, { batch_size: 1, sequence_length: 1 }).memory);
  for (let i = 1; i < shownMem.length; i++) assert.ok(shownMem[i] >= shownMem[i - 1], `row ${i} out of order`);
  // The next window of the sorted order continues it.
  await page.click('#sweep-next');
  await page.waitForFunction(() =>
    /^Showing rows 101–200 of 1000000/.test(document.getElementById('sweep-note').textContent),
  );
  const nextMem = await page.$eval('#sweep-table tbody tr', (tr, j) => Number(tr.cells[j].dataset.v), memCol);
  assert.ok(nextMem >= shownMem[shownMem.length - 1]);

  // Cancel during a download: no file.
  let files = 0;
  page.on('download', () => files++);
  await page.click('#sweep-json');
  await page.waitForFunction(() => /Writing JSON: [1-9]/.test(document.getElementById('sweep-count').textContent));
  await page.click('#sweep-cancel');
  await page.waitForFunction(() => document.getElementById('sweep-count').textContent === 'Download cancelled.');
  await page.waitForTimeout(1000);
  assert.equal(files, 0);
  assert.equal(await page.isHidden('#sweep-cancel'), true);
  assert.equal(await page.isEnabled('#sweep-csv'), true);
  assert.deepEqual(errors, []);
  await context.close();
});

test('Cancel stops a running sweep; a new sweep then works', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await fillSweep(page, { models: 'llama-3-8b', batch: range(1000), seq: range(1000) });
  await page.click('#sweep-run');
  await page.waitForFunction(() => Number(document.getElementById('sweep-progress').value) > 0);
  await page.click('#sweep-cancel');
  await page.waitForFunction(() => document.getElementById('sweep-count').textContent === 'Sweep cancelled.');
  const at = await page.$eval('#sweep-progress', (p) => p.value);
  assert.ok(at < 1000000, `stopped at ${at}`);
  await page.waitForTimeout(800);
  assert.equal(await page.$eval('#sweep-progress', (p) => p.value), at, 'no progress after Cancel');
  assert.equal(await page.textContent('#sweep-count'), 'Sweep cancelled.');
  await fillSweep(page, { models: 'llama-3-8b', batch: '1,2', seq: '128,256,512' });
  await runSweep(page, 6);
  assert.equal(await page.$$eval('#sweep-table tbody tr', (r) => r.length), 6);
  assert.deepEqual(errors, []);
  await context.close();
});

test('the column picker hides and shows columns and survives a reload; the first column stays put sideways', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`, {
    context: { viewport: { width: 700, height: 900 } },
  });
  await ready(page);
  const heads = () => page.$$eval('#sweep-table thead th', (ths) => ths.map((t) => t.dataset.key));
  const defaults = await heads();
  assert.ok(defaults.includes('cost_usd') && defaults.includes('decode_tokens_per_second'));
  assert.ok(!defaults.includes('kv_cache'));
  await fillSweep(page, { models: 'llama-3-8b, mistral-7b', batch: '1,8', seq: '512' });
  await runSweep(page, 4);
  await page.click('#sweep-columns summary');
  await page.uncheck('#sweep-columns-list input[value="cost_usd"]');
  await page.check('#sweep-columns-list input[value="kv_cache"]');
  const picked = await heads();
  assert.ok(!picked.includes('cost_usd') && picked.includes('kv_cache'));
  await page.waitForFunction((n) => document.querySelector('#sweep-table tbody tr')?.cells.length === n, picked.length);
  await page.reload();
  await ready(page);
  assert.deepEqual(await heads(), picked);
  assert.equal(await page.isChecked('#sweep-columns-list input[value="kv_cache"]'), true);

  // Every column: wider than the 700 px page, so the table scrolls sideways; the model column stays.
  await page.click('#sweep-columns summary');
  for (const box of await page.$$('#sweep-columns-list input')) await box.check();
  await page.click('#sweep-columns summary');
  await runSweep(page, 4);
  const geo = () =>
    page.$eval('#sweep-table', (t) => {
      const wrap = t.parentElement.getBoundingClientRect();
      const row = t.tBodies[0].rows[0];
      return {
        wrap: wrap.left + t.parentElement.clientLeft,
        first: row.cells[0].getBoundingClientRect().left,
        second: row.cells[1].getBoundingClientRect().left,
        head: t.tHead.rows[0].cells[0].getBoundingClientRect().left,
        scrollable: t.parentElement.scrollWidth - t.parentElement.clientWidth,
      };
    });
  const g0 = await geo();
  assert.ok(g0.scrollable > 300, `the table scrolls sideways by ${g0.scrollable} px`);
  await page.$eval('#sweep-table', (t) => (t.parentElement.scrollLeft = 300));
  await page.waitForTimeout(50);
  const g1 = await geo();
  assert.ok(Math.abs(g1.first - g1.wrap) < 1, `first column at ${g1.first}, wrap at ${g1.wrap}`);
  assert.ok(Math.abs(g1.head - g1.wrap) < 1, 'its header too');
  assert.ok(g1.second < g0.second - 100, 'the other columns moved');
  assert.deepEqual(errors, []);
  await context.close();
});

test('the chart: one line per value of the group-by input, its points equal the table’s values', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  // The chart's code is not part of the first load.
  assert.equal(
    await page.evaluate(() => performance.getEntriesByType('resource').some((r) => /sweep-chart/.test(r.name))),
    false,
  );
  await fillSweep(page, { models: 'llama-3-8b, mistral-7b', batch: '1,2,4,8,16,32,64', seq: '512,2048' });
  await runSweep(page, 28);
  await page.waitForFunction(() => document.getElementById('sweep-chart')?.dataset.rendered === '1');
  await page.selectOption('#sweep-chart-y', 'memory');
  await page.selectOption('#sweep-chart-x', 'batch_size');
  await page.selectOption('#sweep-chart-group', 'model');
  await page.waitForFunction(() => /memory/.test(document.getElementById('sweep-chart').getAttribute('aria-label')));
  const series = await page.$eval('#sweep-chart', (c) => c.flopcastSeries);
  assert.equal(series.length, 2);
  const request = JSON.parse(await page.$eval('#sweep-table', (t) => t.dataset.request));
  assert.deepEqual(request.model, ['llama-3-8b', 'mistral-7b']);
  // Each line is named as compare rows name the model.
  assert.deepEqual(
    series.map((s) => s.name),
    request.model.map((m) => coreRow(request, { model: m, batch_size: 1, sequence_length: 512 }).model),
  );
  const memCol = await page.$$eval('#sweep-table thead th', (ths) => ths.findIndex((t) => t.dataset.key === 'memory'));
  const table = await page.$$eval(
    '#sweep-table tbody tr',
    (trs, j) => Object.fromEntries(trs.map((tr) => [tr.dataset.point, Number(tr.cells[j].dataset.v)])),
    memCol,
  );
  for (const [g, s] of series.entries()) {
    assert.deepEqual(
      s.points.map((p) => p.x),
      [1, 2, 4, 8, 16, 32, 64],
    );
    for (const p of s.points) {
      assert.equal(p.y, table[p.point], `${s.name} at batch ${p.x}`);
      assert.equal(p.y, coreRow(request, { model: request.model[g], batch_size: p.x, sequence_length: 512 }).memory);
    }
  }
  // The JSON download: every point, every field, as compare() has it.
  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#sweep-json')]);
  const json = JSON.parse(readFileSync(await download.path(), 'utf8'));
  assert.equal(json.length, 28);
  assert.deepEqual(json[0], coreRow(request, { model: 'llama-3-8b', batch_size: 1, sequence_length: 512 }));
  assert.deepEqual(json[27], coreRow(request, { model: 'mistral-7b', batch_size: 64, sequence_length: 2048 }));
  // Memory spans well under a decade here: a linear y axis; the batch axis spans 64x: log.
  assert.equal(await page.$eval('#sweep-chart', (c) => c.dataset.xScale), 'logarithmic');
  assert.match(await page.textContent('#sweep-chart-note'), /first value: .*512/);
  assert.deepEqual(errors, []);
  await context.close();
});
