// The SLO planner card (issue 28 item 5) in Debian's chromium: its code is not part of the first
// load; a search runs in a worker of its own (not the page's thread) and shows exactly fc.plan()'s
// answer for the request it sent (the why, every ranked row's figures, the chart's points); the
// chart's shaded TPOT side starts at 1 / slo_tpot_s on the x axis; "Use this configuration" puts
// the row's engine, layout, format and load into the serving panel, whose simulation then shows the
// row's figures; Copy puts the engine's launch command (and TensorRT-LLM's YAML) on the clipboard;
// Cancel stops a long search, leaving the card usable; a bad SLO shows the core's error at its field.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, siteAndBrowser, watchMainThread } from './harness.mjs';
import { load } from '../wasm/load.mjs';

const up = siteAndBrowser();
let fc;
before(async () => ({ fc } = await load()));

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
/** Waits for the card's status to reach `state` ('done', 'cancelled', 'error') after a search started. */
const settled = (page, state, timeout = 60000) =>
  page.waitForFunction((state) => document.getElementById('slo-status').dataset.state === state, state, {
    timeout,
  });
const sentRequest = async (page) => JSON.parse(await page.$eval('#slo-table', (t) => t.dataset.request));
/** Every ranked row's shown figures: {field: data-value} (the margins' spans included). */
const shownRows = (page) =>
  page.$$eval('#slo-table tbody tr', (trs) =>
    trs.map((tr) =>
      Object.fromEntries([...tr.querySelectorAll('[data-field]')].map((el) => [el.dataset.field, el.dataset.value])),
    ),
  );
const LAYOUT_KEYS = ['tp', 'ep', 'attention_dp', 'replicas'];
/** What the page shows at `field` for the core's point `p` (the layout cell holds its ranks as JSON). */
function expectedAt(p, field) {
  if (field === 'layout')
    return JSON.stringify({
      ...Object.fromEntries(LAYOUT_KEYS.map((k) => [k, p[k]])),
      disaggregated: p.disaggregated ?? null,
    });
  const v = p[field];
  return v === null || v === undefined ? 'null' : String(v);
}
/** The card filled and searched; resolves the time the page measured (ms, round trip and in the worker). */
async function search(page, fields, state = 'done') {
  for (const [id, v] of Object.entries(fields)) {
    if ((await page.getAttribute(`#${id}`, 'type')) === null) await page.selectOption(`#${id}`, v);
    else await page.fill(`#${id}`, v);
  }
  await page.$eval('#slo-status', (el) => delete el.dataset.state); // (the last search's)
  await page.click('#slo-run');
  await settled(page, state);
  return page.$eval('#slo-summary', (e) => ({ ms: Number(e.dataset.ms), workerMs: Number(e.dataset.workerMs) }));
}

test('a search runs in its own worker and shows fc.plan()’s answer; the SLO side starts at 1 / TPOT', async () => {
  const { page, errors, violations } = await openPage(
    up.browser,
    `${up.site.url}/index.html?model=llama-3.1-8b&gpu=H100-SXM`,
  );
  await ready(page);
  const loaded = () =>
    page.evaluate(() => performance.getEntriesByType('resource').map((r) => r.name.replace(/^.*\//, '')));
  assert.ok(!(await loaded()).some((n) => /^slo-plan/.test(n)), 'the card’s code is not part of the first load');
  await page.waitForFunction(() =>
    [...document.querySelectorAll('.charts canvas')].every((c) => c.dataset.rendered === '1'),
  );
  await page.waitForTimeout(300);
  const stop = await watchMainThread(page);
  await page.locator('#slo-plan').scrollIntoViewIfNeeded();
  const times = await search(page, { 'slo-ttft': '500', 'slo-tpot': '30', 'slo-load': '64' });
  const { longest } = await stop();
  console.log(
    `  SLO search llama-3.1-8b, 8 × H100, every engine: ${times.workerMs.toFixed(0)} ms in the worker, ` +
      `${times.ms.toFixed(0)} ms round trip; longest task on the page's thread ${longest.toFixed(0)} ms`,
  );
  assert.ok(
    (await loaded()).some((n) => /^slo-plan-[\w-]+\.js$/.test(n)),
    'the card’s code loaded on use',
  );
  assert.ok(
    page.workers().some((w) => /plan-search-worker/.test(w.url())),
    'the search ran in the card’s own worker',
  );
  assert.ok(Number.isFinite(times.workerMs) && times.workerMs > 0);

  // What was sent: the page's model and GPU, the card's fields in SI units, no layout ranks.
  const sent = await sentRequest(page);
  assert.equal(sent.model, 'llama-3.1-8b');
  assert.equal(sent.gpu, 'H100-SXM');
  assert.equal(sent.parallelism, undefined, 'the search chooses the layout');
  assert.deepEqual(sent.plan, { concurrency: 64, slo_ttft_s: 0.5, slo_tpot_s: 0.03, optimize: 'goodput' });
  const s = fc.plan(sent).search;
  assert.ok(s.ranked.length >= 2, `the core ranks configurations for this request (${s.ranked.length})`);
  assert.equal(await page.textContent('#slo-why'), s.why);

  // Every ranked row shows the core's figures for it, best first; the first meets both SLOs.
  const rows = await shownRows(page);
  assert.equal(rows.length, s.ranked.length);
  rows.forEach((row, i) => {
    const fields = Object.keys(row);
    for (const f of ['engine', 'precision', 'layout', 'gpus', 'max_num_seqs', 'max_num_batched_tokens'])
      assert.ok(fields.includes(f), `row ${i} shows ${f}`);
    for (const f of ['speculative_tokens', 'ttft_s', 'tpot_s', 'ttft_margin', 'tpot_margin'])
      assert.ok(fields.includes(f), `row ${i} shows ${f}`);
    for (const f of ['output_tokens_per_s_per_gpu', 'usd_per_million_output_tokens'])
      assert.ok(fields.includes(f), `row ${i} shows ${f}`);
    for (const [field, value] of Object.entries(row))
      assert.equal(value, expectedAt(s.ranked[i], field), `row ${i} ${field}`);
  });
  assert.ok(Number(rows[0].ttft_s) <= 0.5 && Number(rows[0].tpot_s) <= 0.03, 'the best row meets the SLOs');
  assert.ok(Number(rows[0].ttft_margin) >= 0 && Number(rows[0].tpot_margin) >= 0);
  // The ranges shown under the latencies are the core's bands.
  const band = await page.$eval('#slo-table tbody tr[data-index="0"] td[data-field="ttft_s"] .range', (el) => [
    Number(el.dataset.low),
    Number(el.dataset.high),
  ]);
  assert.deepEqual(band, s.ranked[0].ttft_range);

  // The chart draws the core's points: the Pareto front, the ranked and the rejected ones.
  await page.waitForFunction(() => document.getElementById('chart-slo-pareto')?.dataset.rendered === '1');
  const drawn = await page.$eval('#chart-slo-pareto', (c) =>
    c.flopcastSpec.series.map((x) => ({ label: x.label, points: x.points.map((p) => [p.x, p.y]) })),
  );
  const xy = (list) => list.map((p) => [p.tokens_per_s_per_user, p.output_tokens_per_s_per_gpu]);
  assert.deepEqual(drawn.find((x) => /Pareto/.test(x.label)).points, xy(s.pareto));
  assert.deepEqual(drawn.find((x) => /Ranked/.test(x.label)).points, xy(s.ranked));
  assert.deepEqual(drawn.find((x) => /Rejected/.test(x.label)).points, xy(s.rejected));
  assert.ok(s.pareto.length >= 2);

  // The shaded side: from 1 / slo_tpot_s (tokens/s per user) to the plot's right edge. Its left edge
  // is where uPlot's own x scale puts 1 / 0.03, and the pixels change colour there.
  const edge = 1 / 0.03;
  const region = await page.$eval('#chart-slo-pareto', (c) => {
    const [g] = JSON.parse(c.dataset.regions);
    const ctx = c.getContext('2d');
    const r = c.width / c.getBoundingClientRect().width;
    const column = (x) =>
      Array.from({ length: 40 }, (_, k) => {
        const y = Math.round((g.top + ((g.bottom - g.top) * (k + 0.5)) / 40) * r);
        return [...ctx.getImageData(Math.round(x * r), y, 1, 1).data].join(',');
      });
    const outside = column(g.left - 3);
    const inside = column(g.left + 3);
    return {
      ...g,
      atLeft: c.flopcastPosToVal(g.left),
      differing: outside.filter((px, k) => px !== inside[k]).length,
      insideColours: new Set(inside).size,
    };
  });
  assert.equal(region.from, edge);
  assert.equal(region.to, null);
  assert.ok(Math.abs(region.atLeft - edge) / edge < 1e-3, `the band starts at x = ${region.atLeft}, not ${edge}`);
  assert.ok(region.right > region.left + 50, 'the band reaches to the right');
  assert.ok(region.differing >= 30, `the band is drawn: ${region.differing} of 40 pixels differ across its edge`);
  assert.equal(await page.$eval('#chart-slo-pareto', (c) => Number(c.dataset.sloEdge)), edge);

  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
});

test('Copy puts the launch command (and the YAML) on the clipboard; Use this configuration reruns the row', async () => {
  const { page, errors } = await openPage(up.browser, `${up.site.url}/index.html?model=llama-3.1-8b&gpu=H100-SXM`, {
    context: { permissions: ['clipboard-read', 'clipboard-write'] },
  });
  await ready(page);
  await page.locator('#slo-plan').scrollIntoViewIfNeeded();
  await search(page, { 'slo-ttft': '500', 'slo-tpot': '30', 'slo-load': '64', 'slo-gpus': '8' });
  const sent = await sentRequest(page);
  assert.equal(sent.plan.gpus, 8);
  const s = fc.plan(sent).search;
  const best = s.ranked[0];
  assert.ok(best.launch?.command);

  const clipboard = () => page.evaluate(() => navigator.clipboard.readText());
  await page.evaluate(() => navigator.clipboard.writeText('before'));
  await page.click('#slo-table tbody tr[data-index="0"] .slo-copy[data-copy="command"]');
  await page.waitForFunction(
    () => document.querySelector('#slo-table tbody tr[data-index="0"] .slo-copy[data-copy="command"]').dataset.copied,
  );
  assert.equal(await clipboard(), best.launch.command);
  // A row whose engine takes a config file (TensorRT-LLM): its YAML, shown and copied.
  const y = s.ranked.findIndex((p) => p.launch?.yaml?.length);
  if (y >= 0) {
    const row = `#slo-table tbody tr[data-index="${y}"]`;
    assert.equal(await page.textContent(`${row} .slo-yaml`), s.ranked[y].launch.yaml.join('\n'));
    await page.click(`${row} .slo-copy[data-copy="yaml"]`);
    await page.waitForFunction(
      (row) => document.querySelector(`${row} .slo-copy[data-copy="yaml"]`).dataset.copied,
      row,
    );
    assert.equal(await clipboard(), s.ranked[y].launch.yaml.join('\n'));
  } else console.log('  (no ranked row with a YAML file for this request)');

  // Use this configuration: the serving panel (and the layout and format it takes from the form above)
  // holds the row's replica, and its simulation shows the row's figures at the SLO percentile.
  const prev = (await page.$eval('#sim-table', (t) => t.dataset.request)) ?? '';
  await page.click('#slo-table tbody tr[data-index="0"] .slo-use');
  const status = await page.textContent('#slo-status');
  assert.match(status, /^Configuration 1 \(.+\) is in the serving simulation below/);
  assert.doesNotMatch(status, /no input/, 'every argument of the row’s serve_args has an input');
  assert.equal(await page.inputValue('#sim-engine'), best.engine);
  assert.equal(await page.inputValue('#tp'), String(best.tp));
  assert.equal(await page.inputValue('#ep'), String(best.ep));
  assert.equal(await page.inputValue('#precision'), best.precision);
  assert.equal(await page.inputValue('#sim-concurrency'), String(best.replica_concurrency));
  assert.equal(await page.inputValue('#sim-simulation-max-num-seqs'), String(best.max_num_seqs));
  assert.equal(await page.inputValue('#sim-simulation-max-num-batched-tokens'), String(best.max_num_batched_tokens));
  await page.waitForFunction(
    (prev) => {
      const t = document.getElementById('sim-table').dataset.request ?? '';
      return t !== '' && t !== prev && !document.getElementById('sim-results').hidden;
    },
    prev,
    { timeout: 60000 },
  );
  const sim = JSON.parse(await page.$eval('#sim-table', (t) => t.dataset.request));
  assert.equal(sim.engine, best.engine);
  assert.equal(sim.precision, best.precision);
  assert.deepEqual(sim.simulation.concurrency, [best.replica_concurrency]);
  const p = `p${s.question.slo_percentile}`;
  const at = (pointer) => page.$eval(`#sim-table [data-field="${pointer}"]`, (td) => Number(td.dataset.value));
  assert.equal(await at(`/points/0/ttft_s/${p}`), best.ttft_s, 'the simulation reproduces the row’s TTFT');
  assert.equal(await at(`/points/0/tpot_s/${p}`), best.tpot_s, 'and its TPOT');
  assert.equal(await page.textContent('#sim-error'), '');

  // A disaggregated row (separate prefill and decode workers): its split in the layout column, and
  // Use puts the pools into the serving panel's disaggregation inputs.
  const d = s.ranked.findIndex((x) => x.disaggregated);
  if (d >= 0) {
    const x = s.ranked[d];
    const row = `#slo-table tbody tr[data-index="${d}"]`;
    const layout = await page.$eval(`${row} td[data-field="layout"]`, (td) => ({
      text: td.firstChild.textContent,
      marked: 'disaggregated' in td.dataset,
    }));
    const pools = x.disaggregated;
    assert.deepEqual(layout, {
      text: `prefill ${pools.prefill_workers}×TP=${pools.prefill_tp} + decode ${pools.decode_workers}×TP=${pools.decode_tp}`,
      marked: true,
    });
    const before = await page.$eval('#sim-table', (t) => t.dataset.request);
    await page.click(`${row} .slo-use`);
    assert.doesNotMatch(await page.textContent('#slo-status'), /no input/);
    assert.equal(await page.inputValue('#sim-disaggregation-enabled'), 'on');
    assert.equal(await page.inputValue('#sim-disaggregation-prefill-workers'), String(pools.prefill_workers));
    assert.equal(await page.inputValue('#sim-disaggregation-decode-workers'), String(pools.decode_workers));
    assert.equal(await page.inputValue('#sim-disaggregation-prefill-tensor-parallel'), String(pools.prefill_tp));
    assert.equal(await page.inputValue('#sim-disaggregation-decode-tensor-parallel'), String(pools.decode_tp));
    await page.waitForFunction(
      (prev) => (document.getElementById('sim-table').dataset.request ?? '') !== prev,
      before,
      { timeout: 60000 },
    );
    await page.waitForFunction(() => !document.getElementById('sim-run').hasAttribute('aria-busy'));
    assert.equal(await page.textContent('#sim-error'), '');
    const again = JSON.parse(await page.$eval('#sim-table', (t) => t.dataset.request));
    assert.equal(again.disaggregation.enabled, true);
    assert.equal(await at(`/points/0/ttft_s/${p}`), x.ttft_s, 'the simulation reproduces the disaggregated row’s TTFT');
    assert.equal(await at(`/points/0/tpot_s/${p}`), x.tpot_s);
  } else console.log('  (no disaggregated configuration ranked for this request)');
  assert.deepEqual(errors, []);
});

test('Cancel stops a long search and leaves the card usable; the next search runs in a fresh worker', async () => {
  // A big MoE with long requests on up to 64 GPUs: a search of many seconds.
  const { page, errors } = await openPage(
    up.browser,
    `${up.site.url}/index.html?model=gpt-oss-120b&gpu=H100-SXM&seq=8192&gen=2048`,
  );
  await ready(page);
  await page.locator('#slo-plan').scrollIntoViewIfNeeded();
  for (const [id, v] of Object.entries({ 'slo-gpus': '64', 'slo-load': '512', 'slo-ttft': '2000', 'slo-tpot': '50' }))
    await page.fill(`#${id}`, v);
  await page.click('#slo-run');
  // Inside the search: its first progress has arrived from the worker.
  await page.waitForFunction(() => Number(document.getElementById('slo-progress').value) > 0, null, {
    timeout: 30000,
  });
  assert.equal(await page.isVisible('#slo-cancel'), true);
  const searching = (await page.textContent('#slo-status')).match(/^Searching… (\d+) %$/);
  assert.ok(searching, await page.textContent('#slo-status'));
  assert.ok(Number(searching[1]) < 100);
  const t0 = Date.now();
  await page.click('#slo-cancel');
  await settled(page, 'cancelled', 5000);
  console.log(`  Cancel took effect in ${Date.now() - t0} ms (the search runs ~15 s in Node)`);
  assert.equal(await page.textContent('#slo-status'), 'The search was cancelled.');
  assert.equal(await page.isVisible('#slo-cancel'), false);
  assert.equal(await page.getAttribute('#slo-run', 'aria-busy'), null);
  assert.equal(await page.textContent('#slo-error'), '');

  // The card still works: the default search for this MoE (8 GPUs, the page's usual lengths).
  await page.fill('#seq', '2048');
  await page.fill('#gen', '128');
  const times = await search(page, { 'slo-gpus': '8', 'slo-load': '64', 'slo-ttft': '500', 'slo-tpot': '30' });
  console.log(
    `  SLO search gpt-oss-120b, 8 × H100, every engine: ${times.workerMs.toFixed(0)} ms in the worker, ` +
      `${times.ms.toFixed(0)} ms round trip (a fresh worker)`,
  );
  const sent = await sentRequest(page);
  assert.equal(sent.model, 'gpt-oss-120b');
  assert.equal(sent.sequence_length, 2048);
  assert.deepEqual(sent.plan, { gpus: 8, concurrency: 64, slo_ttft_s: 0.5, slo_tpot_s: 0.03, optimize: 'goodput' });
  const s = fc.plan(sent).search;
  const rows = await shownRows(page);
  assert.equal(rows.length, s.ranked.length);
  assert.ok(rows.length >= 1);
  for (const [field, value] of Object.entries(rows[0])) assert.equal(value, expectedAt(s.ranked[0], field), field);
  assert.equal(await page.textContent('#slo-why'), s.why);
  assert.deepEqual(errors, []);
});

test('a bad SLO shows the core’s error at its field, in the card’s units', async () => {
  const { page, errors } = await openPage(up.browser, `${up.site.url}/index.html?model=llama-3.1-8b&gpu=H100-SXM`);
  await ready(page);
  await page.locator('#slo-plan').scrollIntoViewIfNeeded();
  const core = (plan) => {
    try {
      fc.plan({ model: 'llama-3.1-8b', gpu: 'H100-SXM', plan });
    } catch (e) {
      return e;
    }
    assert.fail(`the core accepts ${JSON.stringify(plan)}`);
  };
  for (const [typed, seconds] of [
    ['0', 0],
    ['-5', -0.005],
  ]) {
    await search(page, { 'slo-ttft': '500', 'slo-tpot': typed }, 'error');
    const e = core({ slo_tpot_s: seconds });
    assert.equal(e.pointer, '/plan/slo_tpot_s');
    assert.equal(await page.getAttribute('#slo-tpot-error', 'data-pointer'), '/plan/slo_tpot_s');
    assert.equal(await page.getAttribute('#slo-tpot-error', 'data-code'), e.code);
    assert.equal(await page.getAttribute('#slo-tpot', 'aria-invalid'), 'true');
    const words = e.message.replace(/^\[flopcast\.[\w.]+\] \([^)]*\) /, '');
    assert.equal(
      await page.textContent('#slo-tpot-error'),
      `TPOT SLO (ms): ${words} (${typed} ms sent as ${seconds} s)`,
    );
    assert.equal(await page.textContent('#slo-status'), 'Not searched.');
  }
  // Typing in the field clears its error; a good value searches again.
  await page.fill('#slo-tpot', '30');
  assert.equal(await page.textContent('#slo-tpot-error'), '');
  await search(page, {}, 'done');
  assert.equal(await page.getAttribute('#slo-tpot', 'aria-invalid'), null);
  assert.deepEqual(errors, []);
});

test('other GPUs compared: each row names its GPU, ranked as fc.plan ranks them; a bad name at the field', async () => {
  const { page, errors, violations } = await openPage(
    up.browser,
    `${up.site.url}/index.html?model=llama-3.1-8b&gpu=H100-SXM`,
  );
  await ready(page);
  await page.locator('#slo-plan').scrollIntoViewIfNeeded();
  await search(page, {
    'slo-ttft': '500',
    'slo-tpot': '30',
    'slo-load': '64',
    'slo-compare': 'H200, MI300X',
    'slo-optimize': 'cost',
  });
  const sent = await sentRequest(page);
  assert.deepEqual(sent.gpu, ['H100-SXM', 'H200', 'MI300X']);
  const want = fc.plan(sent).search;
  assert.deepEqual(want.question.devices, ['H100-SXM', 'H200-SXM', 'MI300X']);
  const gpus = await page.$$eval('#slo-table tbody td[data-field="engine"]', (tds) => tds.map((td) => td.dataset.gpu));
  assert.deepEqual(
    gpus,
    want.ranked.map((p) => p.gpu),
  );
  const shown = await shownRows(page);
  for (const [i, p] of want.ranked.entries())
    assert.equal(shown[i].usd_per_million_output_tokens, String(p.usd_per_million_output_tokens), `row ${i + 1}`);
  assert.ok(new Set(gpus).size >= 2, `rows on several GPUs: ${gpus.join(', ')}`);
  // A row on another GPU cannot be simulated on the page's: its Use button says so.
  const other = gpus.findIndex((g) => g !== 'H100-SXM');
  const use = page.locator('#slo-table tbody tr').nth(other).locator('.slo-use');
  assert.equal(await use.isDisabled(), true);
  assert.match(await use.getAttribute('title'), new RegExp(gpus[other]));
  // An unknown GPU: the core's error at the compare field, naming /gpu/1.
  await search(page, { 'slo-compare': 'H9000' }, 'error');
  const msg = await page.$eval('#slo-compare-error', (e) => e.textContent);
  assert.match(msg, /unknown GPU "H9000"/);
  await page.fill('#slo-compare', '');
  assert.equal(await page.$eval('#slo-compare-error', (e) => e.textContent), '');
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
  await page.close();
});
