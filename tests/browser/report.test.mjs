// The report file in Chromium with the network blocked: the CLI's file and the page's "Download
// report" both draw every chart (inked canvases, the charts it made), log no error and violate no
// CSP; the page's file embeds fc.reportData of the page's request; printing keeps every chart
// within an A4 page's printable width.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serve, launch, watchCsp, dist, root, outDir } from './harness.mjs';
import { load } from '../wasm/load.mjs';

let site, browser, fc;
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-report-browser-'));
before(async () => {
  site = await serve(dist);
  browser = await launch();
  ({ fc } = await load());
  mkdirSync(outDir, { recursive: true });
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const embedded = (html) => JSON.parse(/<script type="application\/json" id="data">([\s\S]*?)<\/script>/.exec(html)[1]);
const ESTIMATE_CHARTS = [
  'chart-layers',
  'chart-attn-mlp',
  'chart-memory',
  'chart-roofline',
  'chart-batch',
  'chart-seq',
  'chart-precision',
];
const SERVING_CHARTS = ['chart-serving-ttft_s', 'chart-serving-tpot_s'];
// A4 (210 mm) less the report's @page margins (12 mm a side), in CSS pixels (96 per inch).
const A4_PRINTABLE_PX = Math.floor(((210 - 24) / 25.4) * 96);

/**
 * Opens a report file with every request but the file's own aborted; resolves with the page,
 * its console errors, CSP violations and the URLs it tried to fetch besides itself.
 */
async function openOffline(file, viewport = { width: 900, height: 1200 }) {
  const context = await browser.newContext({ viewport, acceptDownloads: false });
  const violations = await watchCsp(context);
  const url = pathToFileURL(file).href;
  const outside = [];
  await context.route('**', (route) => {
    if (route.request().url() === url) return route.continue();
    outside.push(route.request().url());
    return route.abort();
  });
  const page = await context.newPage();
  page.on('request', (r) => r.url() !== url && outside.push(r.url()));
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(url);
  await page.waitForFunction(() => window.__flopcastReport !== undefined);
  await page.waitForTimeout(200);
  return { page, context, errors, violations, outside };
}

/** Non-transparent pixels of each canvas, and the ids of the charts the report made. */
async function drawn(page) {
  return page.evaluate(() => {
    const inked = {};
    for (const c of document.querySelectorAll('canvas')) {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let n = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) n++;
      inked[c.id] = n;
    }
    return { inked, charts: window.__flopcastReport.charts.map((c) => c.id) };
  });
}

function assertAllDrawn({ inked, charts }, ids) {
  assert.deepEqual(charts, ids);
  assert.deepEqual(Object.keys(inked), ids);
  for (const id of ids) assert.ok(inked[id] > 2000, `${id} drew ${inked[id]} pixels`);
}

test("the CLI's report opens offline and draws every chart, the serving curve included", async () => {
  const file = join(tmp, 'cli.html');
  const r = spawnSync(
    join(root, 'build/flopcast'),
    ['report', 'llama-3-8b', '-g', 'H100-SXM', '-b', '4', '--serving', '--no-calibration', '-o', file],
    { encoding: 'utf8', env: { ...process.env, FLOPCAST_REPORT_RUNTIME: join(dist, 'report-runtime.html') } },
  );
  assert.equal(r.status, 0, r.stderr);
  const { page, context, errors, violations, outside } = await openOffline(file);
  assertAllDrawn(await drawn(page), [...ESTIMATE_CHARTS, ...SERVING_CHARTS]);
  // The header and the table: the model, the GPU, and the core's row fields with their values.
  assert.match(await page.textContent('h1'), /Meta-Llama-3-8B on H100-SXM/);
  const data = embedded(readFileSync(file, 'utf8'));
  // The CLI's data is the WebAssembly module's for the same request (one core, one choice of series).
  assert.deepEqual(
    data,
    fc.reportData({ model: 'llama-3-8b', gpu: 'H100-SXM', batch_size: 4, report: { serving: true } }),
  );
  const rows = await page.$$eval('table.estimate tbody tr', (trs) => trs.length);
  assert.equal(rows, data.fields.length);
  assert.equal(
    await page.$$eval('figure figcaption .badge', (b) => b.map((x) => x.textContent).join()),
    'ESTIMATED,ESTIMATED,ESTIMATED,ESTIMATED',
  );
  await page.screenshot({ path: join(outDir, 'report.png'), fullPage: true });
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  assert.deepEqual(outside, []);

  // Printing: every chart within an A4 page's printable width, sections on their own pages.
  await page.setViewportSize({ width: A4_PRINTABLE_PX, height: 1000 });
  await page.emulateMedia({ media: 'print' });
  const boxes = await page.$$eval('canvas', (cs) => cs.map((c) => c.getBoundingClientRect().right));
  for (const right of boxes) assert.ok(right <= A4_PRINTABLE_PX, `a chart ends at ${right} px > ${A4_PRINTABLE_PX}`);
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= A4_PRINTABLE_PX);
  const breaks = await page.$$eval('section.sheet', (s) => s.map((x) => getComputedStyle(x).breakBefore));
  assert.deepEqual(breaks, ['auto', 'page', 'page']);
  const pdf = await page.pdf({ format: 'A4' });
  assert.equal(pdf.subarray(0, 5).toString('latin1'), '%PDF-');
  await context.close();
});

test('the page downloads the report of its request (fc.reportData), lazily, and it renders the same way', async () => {
  // No service worker: its offline precache fetches every built file; the page itself must not.
  const context = await browser.newContext({ acceptDownloads: true, serviceWorkers: 'block' });
  const violations = await watchCsp(context);
  const page = await context.newPage();
  const errors = [];
  page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
  page.on('pageerror', (e) => errors.push(e.message));
  const before = site.requests.length;
  await page.goto(`${site.url}/index.html?model=qwen2.5-7b&gpu=L40S&batch=4`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  await page.waitForFunction(() => !document.getElementById('download-report').disabled);
  const firstVisit = site.requests.slice(before);
  assert.ok(
    !firstVisit.some((p) => /report-runtime|\/download-/.test(p)),
    `not loaded on the first visit: ${firstVisit}`,
  );

  const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-report')]);
  assert.equal(download.suggestedFilename(), 'flopcast-Qwen_Qwen2.5-7B-L40S.html');
  const file = join(tmp, 'page.html');
  await download.saveAs(file);
  const data = embedded(readFileSync(file, 'utf8'));
  assert.deepEqual(
    data,
    fc.reportData({ model: 'qwen2.5-7b', gpu: 'L40S', batch_size: 4, report: { serving: false } }),
  );
  assert.equal(data.serving, null);
  // With the serving curve: the same request with report.serving.
  await page.check('#report-serving');
  const [again] = await Promise.all([page.waitForEvent('download'), page.click('#download-report')]);
  const served = join(tmp, 'page-serving.html');
  await again.saveAs(served);
  assert.deepEqual(
    embedded(readFileSync(served, 'utf8')),
    fc.reportData({ model: 'qwen2.5-7b', gpu: 'L40S', batch_size: 4, report: { serving: true } }),
  );
  assert.match(await page.textContent('#share-status'), /Saved flopcast-Qwen_Qwen2\.5-7B-L40S\.html/);
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  await context.close();

  const opened = await openOffline(file);
  assertAllDrawn(await drawn(opened.page), ESTIMATE_CHARTS);
  assert.deepEqual(opened.errors, []);
  assert.deepEqual(opened.violations, []);
  assert.deepEqual(opened.outside, []);
  await opened.context.close();
});
