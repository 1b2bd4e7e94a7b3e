// Issue 27 item 7: one workload (the main form's prompt and generated tokens, its batch as the
// concurrency, its engine) drives the serving card, the providers' self-hosted row, the planner and
// the simulation; a panel's own input overrides it only visibly (its note names the override).
// Every figure is checked against the core's JSON for the request the panel sent, computed here in
// Node by the same WebAssembly core.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, siteAndBrowser } from './harness.mjs';
import { load } from '../wasm/load.mjs';

const up = siteAndBrowser();
const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const value = (page, sel) => page.$eval(sel, (el) => Number(el.dataset.value));
const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b)), `${what}: ${a} vs ${b}`);

const URL_QUERY = 'model=llama-3-8b&gpu=A100-80GB-SXM&batch=8&seq=2048&gen=128&eng=vllm';

test('issue 27 item 7: the serving card, providers, planner and simulation use the one workload', async () => {
  const { fc } = await load();
  const { page, errors } = await openPage(up.browser, `${up.site.url}/index.html?${URL_QUERY}`);
  await ready(page);
  // The serving card: the workload's lengths, its batch as the concurrency, its engine.
  await page.waitForFunction(() => document.querySelector('[data-serving="/cost_per_1m_tokens_usd"]').dataset.value);
  const want = fc.throughput({
    model: 'llama-3-8b',
    gpu: 'A100-80GB-SXM',
    precision: 'bf16',
    engine: 'vllm',
    serving: { prompt_tokens: 2048, output_tokens: 128, concurrency: 8 },
  });
  assert.equal(want.prompt_tokens, 2048);
  assert.equal(want.concurrency, 8);
  const cardCost = await value(page, '[data-serving="/cost_per_1m_tokens_usd"]');
  close(cardCost, want.cost_per_1m_tokens_usd, 'serving card $/1M output tokens');
  close(await value(page, '[data-serving="/ttft_s"]'), want.ttft_s, 'serving card TTFT');
  close(await value(page, '[data-serving="/tpot_s"]'), want.tpot_s, 'serving card TPOT');
  assert.match(
    await page.textContent('#serving-workload'),
    /2048 prompt \+ 128 output tokens, concurrency 8, engine vllm/,
  );
  assert.doesNotMatch(await page.textContent('#serving-workload'), /overrides/);

  // The providers' self-hosted row at full utilisation: the serving card's cost.
  await page.locator('#providers').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelector('#providers-table tr.self-hosted td[data-field="output"]'));
  const self = await value(page, '#providers-table tr.self-hosted td[data-field="output"]');
  close(self, cardCost, 'providers self-hosted $/1M output tokens');

  // The planner: its one-GPU layout at the workload's concurrency has the card's figures.
  await page.locator('#plan').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll('#plan-table tbody tr').length > 0, null, {
    timeout: 60000,
  });
  const sent = JSON.parse(await page.$eval('#plan-table', (t) => t.dataset.request));
  assert.equal(sent.plan.concurrency, 8, 'the planner plans for the workload’s concurrency');
  assert.equal(sent.engine, 'vllm');
  const planRow = await page.$$eval('#plan-table tbody tr', (trs) =>
    trs
      .map((tr) =>
        Object.fromEntries(
          [...tr.querySelectorAll('td[data-field]')].map((td) => [td.dataset.field, Number(td.dataset.value)]),
        ),
      )
      .find((r) => r.gpus === 1),
  );
  close(planRow.usd_per_million_output_tokens, cardCost, 'planner $/1M output tokens');
  close(planRow.ttft_s, want.ttft_s, 'planner TTFT');
  close(planRow.tpot_s, want.tpot_s, 'planner TPOT');

  // The simulation: the workload's lengths, concurrency and engine.
  await page.locator('#serve').scrollIntoViewIfNeeded();
  await page.fill('#sim-requests', '40');
  await page.click('#sim-run');
  await page.waitForFunction(() => document.getElementById('sim-table').dataset.request, null, { timeout: 120000 });
  const sim = JSON.parse(await page.$eval('#sim-table', (t) => t.dataset.request));
  assert.equal(sim.engine, 'vllm');
  assert.equal(sim.simulation.input_tokens, 2048);
  assert.equal(sim.simulation.output_tokens, 128);
  assert.deepEqual(sim.simulation.concurrency, [8]);
  const simWant = fc.simulate(sim);
  close(
    await value(page, '#sim-table td[data-field="/points/0/ttft_s/mean"]'),
    simWant.points[0].ttft_s.mean,
    'simulation TTFT mean',
  );
  assert.doesNotMatch(await page.textContent('#sim-workload'), /overrides/);
  assert.deepEqual(errors, []);
});

test('issue 27 item 7: a panel that overrides the workload says so, in view', async () => {
  const { page, errors } = await openPage(up.browser, `${up.site.url}/index.html?${URL_QUERY}`);
  await ready(page);
  await page.waitForFunction(() => document.querySelector('[data-serving="/cost_per_1m_tokens_usd"]').dataset.value);
  assert.equal(await page.getAttribute('#srv-prompt', 'placeholder'), 'workload: 2048');
  await page.fill('#srv-prompt', '512');
  await page.waitForFunction(() =>
    /overrides the workload: prompt tokens 512/.test(document.getElementById('serving-workload').textContent),
  );
  assert.ok(await page.isVisible('#serving-workload'));
  // The providers' row keeps the workload (the card's override is the card's own).
  await page.locator('#providers').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.getElementById('providers-table').dataset.request);
  const sent = JSON.parse(await page.$eval('#providers-table', (t) => t.dataset.request));
  assert.equal(sent.self_hosted.serving.prompt_tokens, 2048);
  // The simulation with its own input length names it.
  await page.locator('#serve').scrollIntoViewIfNeeded();
  await page.fill('#sim-isl', '300');
  await page.fill('#sim-requests', '20');
  await page.click('#sim-run');
  await page.waitForFunction(
    () => /overrides the workload: input tokens 300/.test(document.getElementById('sim-workload').textContent),
    null,
    {
      timeout: 120000,
    },
  );
  assert.deepEqual(errors, []);
});
