// The measurement report (`flopcast measure --suite --html`) in Chromium with the network
// blocked: no request besides the file, no error or CSP violation, every chart canvas inked,
// and the tables show the measured figures of the embedded JSON (the core's suite_to_json).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, watchCsp, dist, root } from './harness.mjs';
import { formatMeasure } from '../../web/src/report/measure-format.js';

let browser;
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-measure-report-'));
before(async () => {
  browser = await launch();
});
after(async () => {
  await browser?.close();
});

const CHARTS = [
  'chart-measure-prefill',
  'chart-measure-prefill-dist',
  'chart-measure-decode',
  'chart-measure-decode-dist',
  'chart-measure-batch-ttft',
  'chart-measure-batch-step',
  'chart-measure-kv',
];

test('the suite report opens offline, draws every chart and shows the measured figures', async () => {
  const file = join(tmp, 'report.html');
  const w = spawnSync(
    join(root, 'build/flopcast'),
    [
      'measure',
      'llama-3.2-1b',
      '--layers',
      '1',
      '--precision',
      'int8',
      '--suite',
      '--prompt',
      '32',
      '--gen',
      '6',
      '--batch',
      '2',
      '--html',
      file,
    ],
    { encoding: 'utf8', env: { ...process.env, FLOPCAST_REPORT_RUNTIME: join(dist, 'report-runtime.html') } },
  );
  assert.equal(w.status, 0, w.stderr);
  const html = readFileSync(file, 'utf8');
  const data = JSON.parse(/<script type="application\/json" id="data">([\s\S]*?)<\/script>/.exec(html)[1]);
  assert.equal(data.kind, 'measure-suite');

  const context = await browser.newContext({ viewport: { width: 900, height: 1200 } });
  const violations = await watchCsp(context);
  const url = pathToFileURL(file).href;
  const outside = [];
  await context.route('**', (route) => {
    if (route.request().url() === url) return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.__flopcastReport !== undefined);
  await page.waitForTimeout(200);

  const { inked, charts } = await page.evaluate(() => {
    const ink = {};
    for (const c of document.querySelectorAll('canvas')) {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      ink[c.id] = n;
    }
    return { inked: ink, charts: window.__flopcastReport.charts.map((c) => c.id) };
  });
  assert.deepEqual(charts, CHARTS);
  assert.deepEqual(Object.keys(inked), CHARTS);
  for (const id of CHARTS) assert.ok(inked[id] > 2000, `${id} drew ${inked[id]} pixels`);

  // Every point of every task is a row whose mean, stddev and n are the JSON's, shown in its unit.
  for (const t of data.tasks) {
    const rows = await page.$$eval(`table[data-task="${t.name}"] tbody tr`, (trs) =>
      trs.map((tr) =>
        Object.fromEntries(
          [...tr.querySelectorAll('td[data-key]')].map((td) => [td.dataset.key, [td.dataset.value, td.textContent]]),
        ),
      ),
    );
    assert.equal(rows.length, t.points.length, t.name);
    t.points.forEach((q, i) => {
      assert.equal(Number(rows[i].mean[0]), q.measured.mean);
      assert.equal(rows[i].mean[1], formatMeasure(q.unit, q.measured.mean));
      assert.equal(rows[i].stddev[1], formatMeasure(q.unit, q.measured.stddev));
      assert.equal(Number(rows[i].n[0]), q.measured.samples.length);
      if (q.estimated.value !== null) assert.equal(rows[i].estimated[1], formatMeasure(q.unit, q.estimated.value));
    });
  }
  assert.match(await page.textContent('h1'), /Llama-3\.2-1B: measured on this machine/);
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  assert.deepEqual(outside, []);
  await context.close();
});
