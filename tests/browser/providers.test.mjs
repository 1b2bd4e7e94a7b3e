// The "Hosted providers vs self-hosted" panel in Debian's chromium: lazily loaded (not part of the
// first load), it lists the catalog's providers serving the page's model with the figures
// fc.priceComparison() gives for the request it sent, the self-hosted row first; a new
// utilisation recomputes it (half the utilisation, twice the cost per token).
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, siteAndBrowser } from './harness.mjs';
import { load } from '../wasm/load.mjs';

const up = siteAndBrowser();
let fc;
before(async () => ({ fc } = await load()));

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const rowsOf = (page) =>
  page.$$eval('#providers-table tbody tr', (trs) =>
    trs.map((tr) => ({
      provider: tr.dataset.provider,
      values: Object.fromEntries(
        [...tr.querySelectorAll('td[data-field]')].map((td) => [td.dataset.field, td.dataset.value]),
      ),
    })),
  );

test('the panel shows the providers of the model beside the self-hosted cost, as the core computes them', async () => {
  const { page, errors, violations } = await openPage(
    up.browser,
    `${up.site.url}/index.html?model=llama-3.3-70b&gpu=H100-SXM&tp=4`,
  );
  await ready(page);
  assert.equal(
    await page.evaluate(() =>
      performance.getEntriesByType('resource').some((r) => /\/providers-[\w-]+\.js/.test(r.name)),
    ),
    false,
    'the panel’s code is not part of the first load',
  );
  await page.locator('#providers').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => document.querySelectorAll('#providers-table tbody tr').length > 1, null, {
    timeout: 60000,
  });
  const sent = JSON.parse(await page.$eval('#providers-table', (t) => t.dataset.request));
  // The self-hosted side is the serving card's throughput request at the page's workload (issue 27 item 7).
  assert.equal(sent.model, 'llama-3.3-70b');
  assert.equal(sent.utilization, 1);
  assert.equal(sent.self_hosted.gpu, 'H100-SXM');
  assert.equal(sent.self_hosted.parallelism.tensor_parallel, 4);
  assert.deepEqual(sent.self_hosted.serving, { prompt_tokens: 2048, output_tokens: 128, concurrency: 1 });
  const want = fc.priceComparison(sent);
  const rows = await rowsOf(page);
  assert.equal(rows.length, want.providers.length + 1);
  assert.equal(rows[0].provider, 'self-hosted');
  assert.equal(rows[0].values.output, String(want.self_hosted.usd_per_million_output_tokens));
  assert.equal(rows[0].values.request, String(want.self_hosted.usd_per_request));
  want.providers.forEach((p, i) => {
    const r = rows[i + 1];
    assert.equal(r.provider, p.provider);
    assert.equal(r.values.input, String(p.input_usd_per_million));
    assert.equal(r.values.request, String(p.usd_per_request));
    assert.equal(r.values.ratio, String(p.self_hosted_to_api_cost));
  });
  // GroqCloud's published price (data/providers/groq.json) is on its row.
  const groq = rows.find((r) => r.provider === 'groq');
  assert.equal(groq.values.input, '0.59');
  assert.equal(groq.values.output, '0.79');
  assert.match(await page.textContent('#providers-table'), /llama-3\.3-70b-versatile/);
  assert.match(await page.textContent('#providers-status'), /prices change/);

  // Half the hours busy instead of all: the self-hosted cost per token doubles.
  await page.fill('#providers-utilization', '0.5');
  await page.waitForFunction(
    () => JSON.parse(document.getElementById('providers-table').dataset.request).utilization === 0.5,
  );
  const after = await rowsOf(page);
  const ratio = Number(after[0].values.output) / Number(rows[0].values.output);
  assert.ok(Math.abs(ratio - 2) < 1e-9, `ratio ${ratio}`);
  assert.deepEqual(errors, []);
  assert.deepEqual(violations, []);
});

test('a model no provider serves says so', async () => {
  const { page, errors } = await openPage(up.browser, `${up.site.url}/index.html?model=bert-base&gpu=H100-SXM`);
  await ready(page);
  await page.locator('#providers').scrollIntoViewIfNeeded();
  await page.waitForFunction(() => /No provider/.test(document.getElementById('providers-status').textContent), null, {
    timeout: 60000,
  });
  assert.deepEqual(errors, []);
});
