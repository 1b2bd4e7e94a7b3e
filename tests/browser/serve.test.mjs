// The serving-simulation panel in Debian's chromium: filled and run, its table equals the WASM
// simulate() result for the request the page sent (one row per concurrency, TTFT growing with
// concurrency), the simulation runs in the worker (no long task on the page's thread), the label
// and charts show, the URL restores the panel, and bad input shows the core's error at its field.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, dist, assertSame, shownBy, watchMainThread } from './harness.mjs';
import { load } from '../wasm/load.mjs';

let site, browser, fc, FlopcastError;
before(async () => {
  site = await serve(dist);
  browser = await launch();
  ({ fc, FlopcastError } = await load());
});
after(async () => {
  await browser?.close();
  await site?.close();
});

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const CONCURRENCY = [1, 4, 16, 64];

/** Chooses an engine the core lists (vLLM, else the first), else none; returns its id ('' for none). */
async function pickEngine(page) {
  const ids = await page.$$eval('#sim-engine option', (os) => os.map((o) => o.value));
  const id = ids.find((v) => v === 'vllm') ?? ids.find((v) => v !== '') ?? '';
  await page.selectOption('#sim-engine', id);
  return id;
}

async function fillPanel(page, { concurrency = CONCURRENCY.join(',') } = {}) {
  await page.selectOption('#gpu', 'H100-SXM');
  await page.locator('#serve').scrollIntoViewIfNeeded();
  const engine = await pickEngine(page);
  await page.fill('#sim-concurrency', concurrency);
  await page.fill('#sim-isl', '512');
  await page.fill('#sim-osl', '64');
  await page.fill('#sim-requests', '128');
  await page.fill('#sim-slo-ttft', '0.5');
  await page.fill('#sim-slo-tpot', '0.05');
  return engine;
}

async function runPanel(page) {
  const before = await page.$eval('#sim-summary', (el) => el.textContent);
  await page.click('#sim-run');
  await page.waitForFunction(
    (prev) => {
      const t = document.getElementById('sim-summary').textContent;
      return t !== prev && !/Simulating/.test(t);
    },
    before,
    { timeout: 60000 },
  );
}

test('the serving panel runs in the worker and shows exactly simulate()’s figures', async () => {
  const { page, context, errors, violations } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  // The panel's code is not part of the first load.
  assert.equal(
    await page.evaluate(() => performance.getEntriesByType('resource').some((r) => /\/serve-/.test(r.name))),
    false,
  );

  const engine = await fillPanel(page);
  // The simulation runs in the worker, not on the page's thread.
  const stop = await watchMainThread(page);
  await runPanel(page);
  assert.equal(await page.textContent('#sim-error'), '');

  const sent = JSON.parse(await page.$eval('#sim-table', (t) => t.dataset.request));
  assert.equal(sent.model, await page.inputValue('#model'));
  assert.equal(sent.gpu, 'H100-SXM');
  assert.equal(sent.engine ?? '', engine);
  assert.deepEqual(sent.simulation, {
    concurrency: CONCURRENCY,
    input_tokens: 512,
    output_tokens: 64,
    num_requests: 128,
    slo_ttft_s: 0.5,
    slo_tpot_s: 0.05,
  });
  const expected = fc.simulate(sent);

  // One row per concurrency, in order; every cell is the core's number.
  const rows = await page.$$eval('#sim-table tbody tr', (trs) => trs.length);
  assert.equal(rows, CONCURRENCY.length);
  const cells = await shownBy(page, 'data-field', '#sim-table');
  assertSame(cells, expected, { min: CONCURRENCY.length * 20 });
  const conc = CONCURRENCY.map((_, i) => Number(cells[`/points/${i}/concurrency`]));
  assert.deepEqual(conc, CONCURRENCY);
  const ttft = CONCURRENCY.map((_, i) => Number(cells[`/points/${i}/ttft_s/mean`]));
  for (let i = 1; i < ttft.length; i++)
    assert.ok(ttft[i] > ttft[i - 1], `TTFT grows with concurrency: ${ttft.join(' < ')}`);

  // The label: ESTIMATED, the engine, fitted or plain roofline.
  assert.equal(await page.textContent('#sim-label'), expected.label);
  assert.match(expected.label, /ESTIMATED/);
  const kind = await page.textContent('#sim-kind');
  if (engine) assert.ok(kind.includes(expected.engine), kind);
  assert.match(kind, expected.engine_fitted ? /fitted/ : /plain roofline/);

  // The charts: the latency-throughput curve and the selected point's timeline.
  await page.waitForFunction(() =>
    ['chart-sim-latency', 'chart-sim-timeline'].every((id) => document.getElementById(id).dataset.rendered === '1'),
  );
  await page.selectOption('#sim-metric', 'ttft_s');
  await page.click('#sim-table tbody tr:first-child');
  assert.equal(await page.inputValue('#sim-point'), '0');
  assert.equal(await page.getAttribute('#sim-table tbody tr:first-child', 'aria-selected'), 'true');

  const { longest, posted } = await stop();
  assert.ok(posted.includes('simulate'), `the page posted the simulation to its worker: ${posted.join(', ')}`);
  console.log(`  serving panel: longest task on the page's thread ${longest.toFixed(0)} ms (budget 50 ms)`);

  // The URL holds the panel's fields: a reload restores them.
  await page.waitForFunction(() => new URLSearchParams(location.search).get('conc') === '1,4,16,64');
  const url = page.url();
  const q = new URL(url).searchParams;
  assert.equal(q.get('isl'), '512');
  assert.equal(q.get('simy'), 'ttft_s');
  if (engine) assert.equal(q.get('engine'), engine);
  const again = await context.newPage();
  await again.goto(url);
  await ready(again);
  assert.equal(await again.inputValue('#sim-concurrency'), '1,4,16,64');
  assert.equal(await again.inputValue('#sim-engine'), engine);
  assert.equal(await again.inputValue('#sim-osl'), '64');
  assert.equal(await again.inputValue('#sim-slo-tpot'), '0.05');
  assert.equal(await again.inputValue('#sim-metric'), 'ttft_s');

  await page.screenshot({ path: 'build-web/serve-panel.png', fullPage: true });
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  await context.close();
});

test('bad panel input shows the error at its field: the core’s message for concurrency 0', async () => {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  await fillPanel(page, { concurrency: '4,1' });
  await runPanel(page);
  const good = JSON.parse(await page.$eval('#sim-table', (t) => t.dataset.request));

  await page.fill('#sim-concurrency', '4,0');
  await runPanel(page);
  const message = await page.textContent('#sim-concurrency-error');
  let expected;
  try {
    fc.simulate({ ...good, simulation: { ...good.simulation, concurrency: [4, 0] } });
  } catch (e) {
    expected = e;
  }
  assert.ok(expected instanceof FlopcastError, 'the core rejects concurrency 0');
  assert.equal(expected.pointer, '/simulation/concurrency/1');
  // In plain words: the field's label, then the core's message without its "[flopcast.code] (pointer)".
  assert.equal(
    message,
    `Concurrency list (override): ${expected.message.replace(/^\[flopcast\.[\w.]+\] \([^)]*\) /, '')}`,
  );
  assert.equal(await page.getAttribute('#sim-concurrency-error', 'data-pointer'), expected.pointer);
  assert.equal(await page.getAttribute('#sim-concurrency', 'aria-invalid'), 'true');
  assert.match(await page.textContent('#sim-summary'), /failed/);
  assert.ok(await page.$eval('#sim-results', (el) => el.classList.contains('stale')), 'the old table is dimmed');

  // Not a number: the page says so at the field, without asking the core.
  await page.fill('#sim-concurrency', '4,x');
  assert.equal(await page.textContent('#sim-concurrency-error'), '', 'typing clears the error');
  await page.click('#sim-run');
  await page.waitForFunction(() => document.getElementById('sim-concurrency-error').textContent !== '');
  assert.equal(await page.textContent('#sim-concurrency-error'), 'Not a number: "x".');

  // A fix clears it and runs again.
  await page.fill('#sim-concurrency', '2');
  await runPanel(page);
  assert.equal(await page.textContent('#sim-concurrency-error'), '');
  assert.equal(await page.$$eval('#sim-table tbody tr', (trs) => trs.length), 1);
  assert.deepEqual(errors, []);
  await context.close();
});

// The panel's further settings come from the core's request table (web/src/app/table-inputs.js):
// one input per field, with the table's choices; what they hold reaches the request, the result's
// feature columns show, the address restores them, and a bad value shows the core's error there.
test('the serving panel takes the workload, prefix caching, speculation and a disaggregated layout', async () => {
  const { page, context, errors, violations } = await openPage(browser, `${site.url}/index.html`);
  await ready(page);
  const D = fc.defaults();
  const field = (part, key) => D.request_fields.find((f) => f.part === part && f.key === key);
  const id = (part, key) => `#sim-${part}-${key}`.replace(/_/g, '-');
  for (const [part, key] of [
    ['simulation', 'prompt_pool'],
    ['simulation', 'prefix_tokens'],
    ['simulation', 'prefix_caching'],
    ['simulation', 'speculative'],
    ['simulation', 'harness'],
    ['disaggregation', 'enabled'],
    ['disaggregation', 'decode_workers'],
  ]) {
    assert.ok(field(part, key), `the core has ${part}/${key}`);
    assert.equal(await page.locator(id(part, key)).count(), 1, id(part, key));
  }
  // A choice field lists exactly the core's choices, after the default.
  const choices = await page.$$eval(`${id('simulation', 'speculative')} option`, (os) => os.map((o) => o.value));
  assert.deepEqual(choices, ['', ...field('simulation', 'speculative').choices]);
  // The layout's attention data parallelism is an input of the main form.
  assert.equal(await page.locator('#attention-dp').count(), 1);

  await fillPanel(page, { concurrency: '4,16' });
  await page.click('#sim-more summary');
  await page.fill(id('simulation', 'prompt_pool'), '4');
  await page.fill(id('simulation', 'prefix_tokens'), '256');
  await page.selectOption(id('simulation', 'prefix_caching'), 'on');
  await runPanel(page);
  assert.equal(await page.textContent('#sim-error'), '');
  let sent = JSON.parse(await page.$eval('#sim-table', (t) => t.dataset.request));
  assert.equal(sent.simulation.prompt_pool, 4);
  assert.equal(sent.simulation.prefix_tokens, 256);
  assert.equal(sent.simulation.prefix_caching, true);
  let expected = fc.simulate(sent);
  assert.ok(
    expected.points.every((p) => p.cache_hit_rate > 0.5),
    'a pool of 4 prompts is mostly cached',
  );
  let cells = await shownBy(page, 'data-field', '#sim-table');
  assertSame(cells, expected, { min: 2 * 20 });
  assert.equal(Number(cells['/points/0/cache_hit_rate']), expected.points[0].cache_hit_rate);

  // Disaggregated (without the pool and prefix: not modelled across the pools): the layout reaches
  // the request, the pools' columns show.
  await page.fill(id('simulation', 'prompt_pool'), '');
  await page.fill(id('simulation', 'prefix_tokens'), '');
  await page.selectOption(id('disaggregation', 'enabled'), 'on');
  await page.fill(id('disaggregation', 'decode_workers'), '2');
  await runPanel(page);
  assert.equal(await page.textContent('#sim-error'), '');
  sent = JSON.parse(await page.$eval('#sim-table', (t) => t.dataset.request));
  assert.deepEqual(sent.disaggregation, { enabled: true, decode_workers: 2 });
  expected = fc.simulate(sent);
  cells = await shownBy(page, 'data-field', '#sim-table');
  assertSame(cells, expected, { min: 2 * 20 });
  assert.ok(['prefill', 'decode', 'none'].includes(cells['/points/0/disaggregation/bottleneck']));

  // The address keeps them.
  await page.waitForFunction(() => [...new URLSearchParams(location.search).values()].includes('2'));
  const again = await context.newPage();
  await again.goto(page.url());
  await ready(again);
  assert.equal(await again.inputValue(id('disaggregation', 'decode_workers')), '2');
  assert.equal(await again.inputValue(id('disaggregation', 'enabled')), 'on');
  assert.equal(await again.inputValue(id('simulation', 'prefix_caching')), 'on');

  // A value the core refuses: its message at the generated input.
  await page.fill(id('simulation', 'prompt_pool'), '-3');
  await runPanel(page);
  let refused;
  try {
    fc.simulate({ ...sent, simulation: { ...sent.simulation, prompt_pool: -3 } });
  } catch (e) {
    refused = e;
  }
  assert.ok(refused instanceof FlopcastError);
  assert.equal(
    await page.getAttribute(`${id('simulation', 'prompt_pool')}-error`, 'data-pointer'),
    '/simulation/prompt_pool',
  );
  assert.equal(await page.getAttribute(id('simulation', 'prompt_pool'), 'aria-invalid'), 'true');
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  await context.close();
});
