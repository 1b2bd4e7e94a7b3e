// The page shows every result figure by the display rules (web/src/format.js, the same as the
// CLI's core/src/base/format.cpp, both checked against tests/fixtures/format_cases.json): each element's
// text is show(data-fmt, data-value) for the raw number the core returned, and none reads like
// the odd outputs of issue 13 ("1 GPUs", "0.00 us", "-0", exponents, false precision).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { serve, launch, openPage, dist } from './harness.mjs';
import { show } from '../../web/src/app/fmt.js';

// One static server and one browser for the three pages.
const up = {};
before(async () => Object.assign(up, { site: await serve(dist), browser: await launch() }));
after(() => Promise.all([up.browser?.close(), up.site?.close()]));

/** Every [data-field] element under #results: its format, raw value and shown text. */
const figures = (page) =>
  page.$$eval('#results [data-field]', (els) =>
    els.map((e) => ({ field: e.dataset.field, fmt: e.dataset.fmt, value: e.dataset.value, text: e.textContent })),
  );
const raw = (v) =>
  v === 'null' ? null : v === 'true' ? true : v === 'false' ? false : Number.isNaN(Number(v)) ? v : Number(v);

for (const [what, query, gpus] of [
  ['one GPU', 'model=llama-2-70b&gpu=A100-80GB-SXM&precision=fp16', '1 GPU'],
  ['tensor parallel over 4', 'model=llama-2-70b&gpu=A100-80GB-SXM&precision=fp16&tp=4', '4 GPUs'],
  ['training', 'model=llama-3-8b&gpu=H100-SXM&training=1', null],
]) {
  test(`every figure follows the display rules: ${what}`, async () => {
    const { page, context, errors } = await openPage(up.browser, `${up.site.url}/index.html?${query}`);
    await page.waitForFunction(() => document.body.dataset.ready === '1');
    const all = await figures(page);
    assert.ok(all.length >= 40, `${all.length} figures`);
    for (const f of all) {
      if (f.value === undefined) continue;
      assert.equal(f.text, show(f.fmt, raw(f.value)), `${f.field} (${f.fmt}) = ${f.value}`);
      assert.doesNotMatch(f.text, /NaN|Infinity|undefined|e[+-]\d|^-0(?![.\d])|\b1 GPUs|0\.0+ (us|µs|FLOP)/, f.field);
      // Three significant digits at most where a unit carries a prefix ("16.5 GiB", not "16.497 GB").
      if (['bytes', 'flops', 'seconds', 'joules', 'wh', 'grams'].includes(f.fmt) && f.text !== '–')
        assert.ok(f.text.replace(/[^\d]/g, '').replace(/^0+/, '').length <= 3, `${f.field}: ${f.text}`);
    }
    if (gpus) {
      const el = all.find((f) => f.field === '/details/parallelism/total_gpus');
      assert.equal(el.text, gpus);
    }
    assert.deepEqual(errors, []);
    await context.close();
  });
}
