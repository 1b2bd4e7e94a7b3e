// Issue 27, items 8-11: an .onnx file as the checkpoint is profiled as the result (not an error);
// the widget served by `npm start`'s server loads on a page of another origin, shows the core's
// ranges, and a failed load still shows a card and fires `error`; the first visit downloads the
// .wasm once; the page's polish (panel margins, chart legends, labels and units, the model picker,
// the planner's nodes, the README's accelerator count).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, launch, openPage, dist, root, freePort, waitForAsync } from './harness.mjs';
import { load } from '../wasm/load.mjs';

let browser, fc, site8;
const children = new Set();
const fixtures = mkdtempSync(join(tmpdir(), 'flopcast-page27-'));
execFileSync('/usr/bin/python3', [join(root, 'tests/fixtures/onnx/make_fixtures.py'), fixtures]);
before(async () => {
  browser = await launch();
  ({ fc } = await load());
});
after(async () => {
  for (const child of children) child.kill('SIGTERM');
  await browser?.close();
  await site8?.close();
});

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');

/** scripts/serve.mjs (the server of `npm start`) serving dist/ on a free port; resolves once it answers. */
async function npmStartServer() {
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [join(root, 'scripts/serve.mjs'), '--host', '127.0.0.1', '--port', String(port), '--strictPort', dist],
    { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  children.add(child);
  let log = '';
  child.stdout.on('data', (d) => (log += d));
  child.stderr.on('data', (d) => (log += d));
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      if ((await fetch(`${url}/flopcast-widget.js`)).ok) break;
    } catch {
      /* not up yet */
    }
    if (i > 200 || child.exitCode !== null) throw new Error(`scripts/serve.mjs did not start:\n${log}`);
    await new Promise((ok) => setTimeout(ok, 100));
  }
  const exited = new Promise((ok) => child.once('exit', ok));
  const stop = async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await exited;
    }
    children.delete(child);
  };
  return { url, stop };
}

/** A documentation page: one element, its events recorded before the widget's script runs. */
const docsPage = (script, attrs = 'model="llama-3-8b" gpu="H100"') => `<!doctype html><html><head>
<meta charset="utf-8"><title>docs</title></head><body>
<flopcast-estimate id="a" ${attrs}></flopcast-estimate>
<script>
  window.__events = [];
  for (const t of ['error', 'flopcast-estimate'])
    document.getElementById('a').addEventListener(t, (e) => window.__events.push({ type: t, detail: t === 'error' ? e.detail : null }));
</script>
<script type="module" src="${script}"></script></body></html>`;

test('issue 27 item 8: an .onnx checkpoint is profiled as the result: no red status, no dimming, full-width tables, the page’s words for a symbolic dimension', async () => {
  const { page, context } = await openPage(browser, 'about:blank', {
    context: { viewport: { width: 1280, height: 900 } },
  });
  await page.goto(`${(site8 ??= await serve(dist)).url}/index.html`);
  await ready(page);
  await page.setInputFiles('#checkpoint-file', join(fixtures, 'llama_block.onnx'));
  await page.waitForSelector('#onnx-dims input');
  await page.waitForFunction(() => document.getElementById('onnx-error').textContent !== '');
  // The unbound dimension: the page's control, not the CLI's flag.
  const dims = await page.$$eval('#onnx-dims input', (els) => els.map((e) => e.dataset.dim));
  const err = await page.textContent('#onnx-error');
  assert.ok(!err.includes('--dim'), `the page's error names a CLI flag: ${err}`);
  assert.ok(err.includes(`“${dims[0]}”`) && /\bbox(es)? of this profile\b/.test(err), err);
  assert.equal(await page.getAttribute(`[data-dim="${dims[0]}"]`, 'aria-invalid'), 'true');
  const look = () =>
    page.evaluate(() => ({
      status: document.getElementById('status').className,
      statusText: document.getElementById('status').textContent,
      stale: document.getElementById('results').classList.contains('stale'),
      fieldError: document.getElementById('checkpoint-file-error').textContent,
    }));
  let s = await look();
  assert.ok(!s.status.includes('bad'), `status: ${s.status} ${s.statusText}`);
  assert.equal(s.stale, false, 'the results are dimmed');
  assert.equal(s.fieldError, '');
  assert.ok(!/Choose a \.gguf/.test(s.statusText), s.statusText);
  for (const [k, d] of dims.entries()) await page.fill(`[data-dim="${d}"]`, String(k + 2));
  await page.waitForSelector('#onnx-total [data-onnx="flops"]');
  await page.waitForFunction(() => document.getElementById('status').textContent.startsWith('Profiled'));
  s = await look();
  assert.match(s.statusText, /^Profiled llama_block\.onnx: \d+ nodes/);
  assert.ok(s.status.includes('ok'), s.status);
  assert.equal(s.stale, false);
  // The profile's tables take the results column, not the inputs column.
  const w = await page.evaluate(() => {
    const r = (id) => document.getElementById(id).getBoundingClientRect();
    const table = document.querySelector('#onnx-profile table').getBoundingClientRect();
    return { inputs: r('inputs'), results: r('results'), panel: r('onnx-profile'), table };
  });
  assert.ok(
    w.panel.left >= w.inputs.right,
    `the profile starts at ${w.panel.left}, inside the inputs (to ${w.inputs.right})`,
  );
  assert.ok(w.panel.width > w.inputs.width, `profile ${w.panel.width} px, inputs ${w.inputs.width} px`);
  assert.ok(w.table.width >= 0.9 * w.results.width, `table ${w.table.width} px of ${w.results.width} px`);
  // Back to a registry model: the estimate's cards return.
  await page.check('#source-registry');
  await page.waitForFunction(() => !document.getElementById('results').classList.contains('onnx'));
  assert.equal(await page.isVisible('#fits'), true);
  await context.close();
});

test('issue 27 item 9: the widget served by npm start’s server loads on another origin with its ranges; a failed load shows an error card and fires error', async () => {
  const cdn = await npmStartServer();
  const host = await serve(dist, {
    routes: {
      '/docs.html': [200, 'text/html', docsPage(`${cdn.url}/flopcast-widget.js`)],
      '/favicon.ico': [204, 'image/x-icon', ''],
    },
  });
  try {
    const head = await fetch(`${cdn.url}/flopcast-widget.js`);
    assert.equal(head.headers.get('access-control-allow-origin'), '*');
    const { page, context, errors } = await openPage(browser, `${host.url}/docs.html`);
    await page.waitForFunction(
      () =>
        document.getElementById('a').shadowRoot?.querySelector('[data-field="/details/performance/prefill_latency_s"]'),
      null,
      { timeout: 30000 },
    );
    const shown = await page.evaluate(() =>
      Object.fromEntries(
        [...document.getElementById('a').shadowRoot.querySelectorAll('[data-field]')].map((e) => [
          e.dataset.field,
          e.dataset.value,
        ]),
      ),
    );
    // The ranges the page shows, from the core's JSON for the same request.
    const r = fc.estimate({ model: 'llama-3-8b', gpu: 'H100' });
    const ranges = r.details.performance.ranges;
    for (const key of ['prefill_latency_s', 'decode_tokens_per_second', 'energy_total_joules', 'cost_usd'])
      for (const k of [0, 1]) {
        const p = `/details/performance/ranges/${key}/${k}`;
        assert.equal(Number(shown[p]), ranges[key][k], `${p}: widget ${shown[p]}, core ${ranges[key][k]}`);
      }
    assert.deepEqual(await page.evaluate(() => window.__events.map((e) => e.type)), ['flopcast-estimate']);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await host.close();
    await cdn.stop();
  }

  // A chunk of the widget answers 404: the card says so and the element fires error.
  const chunk = readdirSync(join(dist, 'assets')).find((f) => /^widget-[\w-]+\.js$/.test(f));
  assert.ok(chunk, 'the widget chunk in dist/assets');
  const broken = await serve(dist, {
    routes: {
      [`/assets/${chunk}`]: [404, 'text/plain', 'not found'],
      '/docs.html': [200, 'text/html', docsPage('/flopcast-widget.js')],
    },
  });
  try {
    const { page, context } = await openPage(browser, `${broken.url}/docs.html`);
    await page.waitForFunction(() => document.getElementById('a').shadowRoot?.querySelector('.error'), null, {
      timeout: 30000,
    });
    const card = await page.evaluate(() => document.getElementById('a').shadowRoot.querySelector('.error').textContent);
    assert.match(card, /Could not load the flopcast widget/);
    const events = await page.evaluate(() => window.__events);
    assert.equal(events.length, 1);
    assert.equal(events[0].type, 'error');
    assert.equal(events[0].detail.stage, 'engine');
    assert.ok(events[0].detail.message.length > 0);
    await context.close();
  } finally {
    await broken.close();
  }
});

test('issue 27 item 10: the first visit requests the .wasm once (the service worker precaches the bytes already fetched)', async () => {
  const site = await serve(dist);
  try {
    const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
    await ready(page);
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 30000 });
    await waitForAsync(page, async () => {
      const keys = await caches.keys();
      return keys.length === 1 && (await (await caches.open(keys[0])).keys()).some((r) => r.url.endsWith('.wasm'));
    });
    await page.waitForFunction(() => document.getElementById('chart-layers')?.dataset.rendered === '1');
    const counts = {};
    for (const p of site.requests) counts[p] = (counts[p] ?? 0) + 1;
    const wasm = Object.keys(counts).filter((p) => p.endsWith('.wasm'));
    console.log(
      `  first visit: ${site.requests.length} requests; repeated: ${JSON.stringify(Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 1)))}`,
    );
    assert.equal(wasm.length, 1, wasm.join());
    assert.equal(counts[wasm[0]], 1, `${wasm[0]} requested ${counts[wasm[0]]} times`);
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await site.close();
  }
});

test('issue 27 item 11: panels off the viewport edge, legends without "–", every precision bar labelled, GiB on byte axes, no error while a model name is typed, the planner’s nodes, the README’s count', async () => {
  const site = await serve(dist);
  try {
    const { page, context, errors } = await openPage(
      browser,
      `${site.url}/index.html?model=llama-3.1-405b&gpu=H100&precision=fp16`,
      { context: { viewport: { width: 1280, height: 900 } } },
    );
    await ready(page);
    // Panels: the same margin from the viewport's edges as the other full-width panels.
    const edges = await page.evaluate(() =>
      ['operators', 'plan', 'providers', 'serve'].map((id) => {
        const r = document.getElementById(id).getBoundingClientRect();
        return [id, r.left, innerWidth - r.right];
      }),
    );
    for (const [id, left, right] of edges) {
      assert.ok(left >= 8 && right >= 8, `#${id}: ${left} px from the left edge, ${right} px from the right`);
      assert.equal(left, edges.find(([i]) => i === 'serve')[1], `#${id} is not aligned with #serve`);
    }
    // Legends: without a hover they read no "–" (a hover readout), here and in the report.
    await page.waitForFunction(() =>
      [...document.querySelectorAll('.charts canvas')].every((c) => c.dataset.rendered === '1'),
    );
    const values = await page.$$eval('.charts .u-legend .u-value', (els) => els.map((e) => e.textContent));
    assert.ok(values.length > 0);
    for (const v of values) assert.ok(!/^\s*[-–]+\s*$/.test(v), `a legend reads "${v}" without a hover`);
    // Every precision bar has its label.
    const precision = await page.evaluate(() => {
      const c = document.getElementById('chart-precision');
      return { labels: c.flopcastSpec.x.labels.length, shown: Number(c.dataset.xLabels) };
    });
    assert.ok(precision.labels > 20, `${precision.labels} precisions`);
    assert.equal(precision.shown, precision.labels, `${precision.labels} bars, ${precision.shown} labels`);
    // Byte axes in the tables' units: 2^34 bytes is "16 GiB" (a table's figure), not "17 GB".
    const ticks = await page.evaluate(() =>
      [
        ['chart-memory', 'y'],
        ['chart-precision', 'y'],
        ['chart-seq', 'y1'],
      ].map(([id, axis]) => document.getElementById(id).flopcastSpec.axes[axis].fmt(2 ** 34)),
    );
    assert.deepEqual(ticks, ['16 GiB', '16 GiB', '16 GiB']);

    // The planner: a layout over two nodes says so, with the core's node count and link.
    await page.locator('#plan').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.getElementById('plan-table').dataset.request, null, { timeout: 60000 });
    const sent = JSON.parse(await page.$eval('#plan-table', (t) => t.dataset.request));
    const plan = fc.plan(sent);
    const multi = plan.layouts.findIndex((x) => x.nodes > 1);
    assert.ok(multi >= 0, 'a layout over several nodes');
    const note = await page.$eval(`#plan-table tbody tr[data-index="${multi}"] .plan-nodes`, (e) => ({
      text: e.textContent,
      value: e.dataset.value,
    }));
    assert.equal(Number(note.value), plan.layouts[multi].nodes);
    assert.ok(
      note.text.startsWith(`${plan.layouts[multi].nodes} nodes of ${plan.interconnect_domain_size} GPUs`),
      note.text,
    );
    assert.ok(note.text.includes(plan.layouts[multi].inter_node), note.text);

    // The model picker: no error while a name is typed that bundled models match.
    await page.fill('#model', '');
    await page.focus('#model');
    for (const ch of 'llama-3') {
      await page.keyboard.type(ch);
      const s = await page.evaluate(() => ({
        error: document.getElementById('model-error').textContent,
        invalid: document.getElementById('model').getAttribute('aria-invalid'),
        status: document.getElementById('status').className,
      }));
      assert.equal(s.error, '', `after typing "${ch}"`);
      assert.equal(s.invalid, null);
      assert.ok(!s.status.includes('bad'), s.status);
    }
    // Leaving a name that is none: now it is an error.
    await page.fill('#model', 'no-such-model');
    await page.locator('#gpu').focus();
    await page.waitForFunction(() => document.getElementById('model-error').textContent !== '');
    assert.deepEqual(errors, []);
    await context.close();
  } finally {
    await site.close();
  }
  // The README states no accelerator count other than the core's.
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const gpus = fc.listGpus().length;
  for (const m of readme.matchAll(/(\d+) accelerators/g)) assert.equal(Number(m[1]), gpus, `README: "${m[0]}"`);
});
