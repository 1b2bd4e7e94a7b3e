// The page's charts (web/src/charts.js on uPlot, web/src/plot.js): their code is requested only
// after the first estimate is on screen; each chart draws the core's report data for the page's
// request (fc.reportData computed here in Node by the same core: the layer table, the memory parts,
// the roofline points); after quick input changes the charts show the latest request; the dark
// theme redraws them in its colours.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, dist } from './harness.mjs';
import { load } from '../wasm/load.mjs';

let site, browser, fc;
before(async () => {
  site = await serve(dist);
  browser = await launch();
  ({ fc } = await load());
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const drawn = (page, id) => page.waitForFunction((id) => document.getElementById(id)?.flopcastSpec, id);
/** The drawn spec of chart `id` without its functions: kind, labels, series (label, values, points). */
const specOf = (page, id) =>
  page.evaluate((id) => {
    const s = document.getElementById(id).flopcastSpec;
    if (s.kind === 'pie') return { kind: s.kind, slices: s.slices.map(({ label, value }) => ({ label, value })) };
    return {
      kind: s.kind,
      labels: s.x.labels ?? null,
      series: s.series.map((x) => ({ label: x.label, values: x.values ?? null, points: x.points ?? null })),
    };
  }, id);
const requestOf = async (page) => JSON.parse(await page.$eval('#results', (el) => el.dataset.request));

test('the charts’ code loads after the first estimate is on screen', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await drawn(page, 'chart-layers');
  const t = await page.evaluate(() => ({
    first: window.__flopcastFirstEstimateMs,
    chunks: performance
      .getEntriesByType('resource')
      .filter((r) => /\/assets\/(charts|plot)-/.test(r.name))
      .map((r) => [r.name.split('/').pop(), r.startTime]),
  }));
  assert.ok(t.chunks.length >= 2, JSON.stringify(t.chunks));
  for (const [name, start] of t.chunks)
    assert.ok(
      start >= t.first,
      `${name} requested at ${start.toFixed(0)} ms, before the first estimate (${t.first.toFixed(0)} ms)`,
    );
  assert.deepEqual(errors, []);
  await context.close();
});

test('each chart draws the core’s report data for the page’s request', async () => {
  const { page, context, errors } = await openPage(
    browser,
    `${site.url}/index.html?model=mixtral-8x7b&gpu=H100-SXM&batch=8`,
  );
  await ready(page);
  for (const id of ['chart-layers', 'chart-attn-mlp', 'chart-memory', 'chart-roofline', 'chart-batch', 'chart-seq'])
    await drawn(page, id);
  const d = fc.reportData(await requestOf(page));
  const L = d.estimate.details.flops.layers;
  assert.equal(L.length, 32, 'Mixtral 8x7B has 32 layers (its config.json)');

  const layers = await specOf(page, 'chart-layers');
  assert.deepEqual(
    layers.labels,
    L.map((l) => String(l.layer)),
  );
  assert.deepEqual(
    layers.series.map((s) => s.label),
    ['Attention', 'MLP', 'Norms'],
  );
  assert.deepEqual(
    layers.series[0].values,
    L.map((l) => l.attention),
  );
  assert.deepEqual(
    layers.series[1].values,
    L.map((l) => l.mlp),
  );
  assert.deepEqual(
    layers.series[2].values,
    L.map((l) => l.layernorm),
  );

  const f = d.estimate.details.flops.forward;
  const pie = await specOf(page, 'chart-attn-mlp');
  assert.deepEqual(
    pie.slices.map((s) => s.value),
    [f.attention, f.mlp, f.layernorm, f.embedding, f.output_head, f.mixer],
  );

  const m = d.estimate.details.memory;
  const mem = await specOf(page, 'chart-memory');
  assert.deepEqual(mem.labels, ['Needed', 'GPU']);
  assert.deepEqual(
    mem.series.map((s) => s.values),
    [
      [m.weights, null],
      [m.kv_cache, null],
      [m.activations, null],
      [null, m.gpu_memory],
    ],
  );

  const roof = await specOf(page, 'chart-roofline');
  assert.deepEqual(
    roof.series.slice(1).map((s) => s.points[0]),
    d.roofline.points.map((q) => ({ x: q.intensity, y: q.flops_per_s })),
  );
  const batch = await specOf(page, 'chart-batch');
  assert.deepEqual(batch.labels, d.series.batch_size.values.map(String));
  assert.deepEqual(
    batch.series[0].values,
    d.series.batch_size.rows.map((r) => r.prefill_latency_s),
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('after quick input changes the charts show the latest request; the dark theme redraws them', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html?model=llama-3-8b&gpu=H100-SXM`);
  await ready(page);
  await drawn(page, 'chart-memory');
  for (const b of ['2', '16', '64', '5']) await page.fill('#batch', b);
  const want = fc.reportData({ ...(await requestOf(page)) }).estimate.details.memory.kv_cache;
  assert.equal((await requestOf(page)).batch_size, 5);
  await page.waitForFunction(
    (kv) => document.getElementById('chart-memory').flopcastSpec?.series[1].values[0] === kv,
    want,
  );
  // Ink of the layer chart: the colours it uses, light and then dark.
  const colours = () =>
    page.evaluate(() => {
      const c = document.getElementById('chart-layers');
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      const seen = new Map();
      for (let i = 0; i < d.length; i += 4)
        if (d[i + 3] === 255)
          seen.set(`${d[i]},${d[i + 1]},${d[i + 2]}`, (seen.get(`${d[i]},${d[i + 1]},${d[i + 2]}`) ?? 0) + 1);
      return [...seen]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([k]) => k);
    });
  const light = await colours();
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.waitForFunction((was) => {
    const c = document.getElementById('chart-layers');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    const seen = new Map();
    for (let i = 0; i < d.length; i += 4)
      if (d[i + 3] === 255)
        seen.set(`${d[i]},${d[i + 1]},${d[i + 2]}`, (seen.get(`${d[i]},${d[i + 1]},${d[i + 2]}`) ?? 0) + 1);
    const top = [...seen]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 3)
      .map(([k]) => k);
    return top.length && top.every((k) => !was.includes(k));
  }, light);
  assert.deepEqual(errors, []);
  await context.close();
});
