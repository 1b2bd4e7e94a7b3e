// Issue 27 (its "Done when"): one right answer everywhere. For a fixed set of requests (LoRA,
// QLoRA, a multi-GPU layout, an engine, a checkpoint's own format) every figure the page shows is
// read from every panel (the estimate, the serving card, the training panel, the planner, the
// providers' self-hosted row) and from the widget, and each is found equal to the core's JSON for
// the request that panel sent, computed here in Node by the same WebAssembly core; the same
// quantity (fit, memory, TTFT, TPOT, $ per 1M output tokens) reads the same in every panel.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dist, openPage, serve, siteAndBrowser } from './harness.mjs';
import { load } from '../wasm/load.mjs';

const up = siteAndBrowser();
const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });
const at = (obj, pointer) =>
  pointer
    .split('/')
    .slice(1)
    .reduce((o, k) => (o === null || o === undefined ? undefined : o[k]), obj);
const same = (shown, want, what) => {
  const w = want === undefined || want === null ? 'null' : String(want);
  assert.equal(shown, w, what);
};

const CASES = [
  ['LoRA, llama-3-8b on an A100', 'model=llama-3-8b&gpu=A100-80GB-SXM&training=1&ft=lora&lora=16'],
  ['QLoRA, llama-3-8b on an RTX 4090', 'model=llama-3-8b&gpu=RTX-4090&training=1&ft=qlora'],
  ['a layout: llama-3.1-70b on 4 x H100 (TP=4)', 'model=llama-3.1-70b&gpu=H100-SXM&tp=4&batch=4'],
  ['an engine: llama-3-8b with vLLM at batch 8', 'model=llama-3-8b&gpu=A100-80GB-SXM&batch=8&eng=vllm'],
  ['a checkpoint format: gpt-oss-120b (MXFP4 experts) on an H100', 'model=gpt-oss-120b&gpu=H100-SXM'],
];

/** Every [attr] element with a data-value under `root` as {pointer: value}. */
const shownFigures = (page, rootSel, attr) =>
  page.$$eval(`${rootSel} [${attr}]`, (els, attr) => els.map((el) => [el.getAttribute(attr), el.dataset.value]), attr);

for (const [name, query] of CASES)
  test(`issue 27 consistency: ${name}`, async () => {
    const { fc } = await load();
    const { page, errors } = await openPage(up.browser, `${up.site.url}/index.html?${query}`);
    await ready(page);
    const req = JSON.parse(await page.$eval('#results', (el) => el.dataset.request));
    const est = fc.estimate(req);

    // 1. The estimate: every figure in the results at its pointer is the core's.
    const main = await shownFigures(page, '#results', 'data-field');
    assert.ok(main.length > 20, `${main.length} figures`);
    let checked = 0;
    for (const [pointer, value] of main) {
      if (value === undefined) continue; // a label, not a figure
      same(value, at(est, pointer), `estimate ${pointer}`);
      checked++;
    }
    assert.ok(checked > 20, `${checked} estimate figures checked`);

    // 2. The serving card: the core's throughput for what it sent, at the page's workload.
    const serving = await page.$eval('#serving-results', (el) => el.dataset.request ?? null);
    let thr = null;
    if (serving) {
      const sreq = JSON.parse(serving);
      assert.equal(sreq.serving.prompt_tokens, req.sequence_length ?? 2048);
      thr = fc.throughput(sreq);
      for (const [pointer, value] of await shownFigures(page, '#serving-results', 'data-serving'))
        same(value, at(thr, pointer), `serving ${pointer}`);
    }

    // 3. The training panel (training on): the core's train answer; its memory is the estimate's.
    if (req.training) {
      const treq = JSON.parse(await page.$eval('#train-results', (el) => el.dataset.request));
      const tr = fc.train(treq);
      for (const [pointer, value] of await shownFigures(page, '#train-results', 'data-train'))
        same(value, at(tr, pointer), `training ${pointer}`);
    }

    // 4. The planner: the core's plan for what it sent; its row at the page's layout agrees with
    //    the estimate's fit and the serving card's TTFT, TPOT and $ per 1M output tokens.
    await page.locator('#plan').scrollIntoViewIfNeeded();
    await page.waitForFunction(() => document.getElementById('plan-table').dataset.request, null, { timeout: 60000 });
    const preq = JSON.parse(await page.$eval('#plan-table', (t) => t.dataset.request));
    const plan = fc.plan(preq);
    const rows = await page.$$eval('#plan-table tbody tr', (trs) =>
      trs.map((tr) =>
        Object.fromEntries(
          [...tr.querySelectorAll('td[data-field]')].map((td) => [td.dataset.field, td.dataset.value]),
        ),
      ),
    );
    assert.equal(rows.length, plan.layouts.length);
    rows.forEach((row, i) => {
      for (const [k, v] of Object.entries(row)) same(v, plan.layouts[i][k], `plan row ${i} ${k}`);
    });
    const tp = req.parallelism?.tensor_parallel ?? 1;
    const mine = plan.layouts.find((x) => x.gpus === tp && x.tp === tp && x.pp === 1);
    if (mine && !req.training && thr && preq.plan.concurrency === thr.concurrency) {
      assert.ok(
        Math.abs(mine.ttft_s - thr.ttft_s) <= 1e-9 * thr.ttft_s,
        `planner TTFT ${mine.ttft_s} vs ${thr.ttft_s}`,
      );
      assert.ok(Math.abs(mine.tpot_s - thr.tpot_s) <= 1e-9 * thr.tpot_s, 'planner TPOT');
      assert.ok(
        Math.abs(mine.usd_per_million_output_tokens - thr.cost_per_1m_tokens_usd) <= 1e-9 * thr.cost_per_1m_tokens_usd,
        'planner $/1M output tokens',
      );
    }
    if (mine) assert.equal(mine.fits, est.details.memory.fits_on_gpu, 'the planner’s fit at the page’s layout');

    // 5. The providers' self-hosted row (inference, a model some provider serves): the serving card's $.
    await page.locator('#providers').scrollIntoViewIfNeeded();
    await page.waitForFunction(
      () =>
        document.getElementById('providers-table').dataset.request ||
        /catalog|provider/i.test(document.getElementById('providers-status').textContent),
      null,
      { timeout: 60000 },
    );
    const provText = await page.$eval('#providers-table', (t) => t.dataset.request ?? null);
    if (provText && thr) {
      const cmp = fc.priceComparison(JSON.parse(provText));
      const self = await page
        .$eval('#providers-table tr.self-hosted td[data-field="output"]', (td) => td.dataset.value)
        .catch(() => null);
      if (cmp.fits) {
        same(self, cmp.self_hosted.usd_per_million_output_tokens, 'providers self-hosted $/1M output');
        if (JSON.parse(provText).utilization === 1 && thr.fits)
          assert.ok(
            Math.abs(cmp.self_hosted.usd_per_million_output_tokens - thr.cost_per_1m_tokens_usd) <=
              1e-9 * thr.cost_per_1m_tokens_usd,
          );
      }
    }

    // 6. The widget with the same request (its attributes from the core's request table): the same figures.
    const D = fc.defaults();
    const attrs = [];
    let whole = true; // every field of the page's request became an attribute
    const attribute = (part, key, value) => {
      const f = D.request_fields.find((x) => x.part === part && x.key === key);
      if (f?.attribute && (typeof value !== 'object' || value === null))
        attrs.push(`${f.attribute}="${String(value)}"`);
      else whole = false;
    };
    for (const [key, value] of Object.entries(req)) {
      const isPart =
        value && typeof value === 'object' && !Array.isArray(value) && D.request_fields.some((x) => x.part === key);
      if (isPart) for (const [k, v] of Object.entries(value)) attribute(key, k, v);
      else attribute('', key, value);
    }
    // The widget's site as npm start serves it (scripts/serve.mjs sends CORS headers; item 9).
    const host = await serve(dist, {
      headers: { 'Access-Control-Allow-Origin': '*' },
      routes: {
        '/w.html': [
          200,
          'text/html',
          `<!doctype html><flopcast-estimate id="w" ${attrs.join(' ')}></flopcast-estimate><script type="module" src="/flopcast-widget.js"></script>`,
        ],
        '/favicon.ico': [204, 'image/x-icon', ''],
      },
    });
    try {
      const w = await up.browser.newPage();
      await w.goto(`${host.url}/w.html`);
      await w.waitForFunction(
        () => document.getElementById('w')?.shadowRoot?.querySelector('[data-field], .error'),
        null,
        {
          timeout: 60000,
        },
      );
      const wreq = await w.evaluate(() => document.getElementById('w').request);
      const west = fc.estimate(wreq);
      const figs = await w.evaluate(() =>
        [...document.getElementById('w').shadowRoot.querySelectorAll('[data-field]')].map((el) => [
          el.dataset.field,
          el.dataset.value,
        ]),
      );
      assert.ok(figs.length > 3, 'the widget shows figures');
      for (const [pointer, value] of figs) {
        if (value === undefined) continue;
        same(value, at(west, pointer), `widget ${pointer}`);
        // where the widget's request is the page's (no object-form field left out), the page's figure too
        const onPage = main.find(([p]) => p === pointer);
        if (onPage && whole) assert.equal(value, onPage[1], `widget and page ${pointer}`);
      }
      await w.close();
    } finally {
      await host.close();
    }
    assert.deepEqual(errors, []);
  });
