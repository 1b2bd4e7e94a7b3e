// Issue 27, items 4-6 in Debian's chromium: the checkpoint's own format is the page's default
// precision, engines are offered only on devices they run on (an unfitted one says so), and a
// configuration that does not fit shows no bare speed. Every figure is compared with the core's
// answer for the request the page sent (fc.estimate in Node, from the same WebAssembly build).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, openSuite, closeSuite } from './harness.mjs';

let site, browser, fc;
before(async () => ({ site, browser, fc } = await openSuite({ core: true })));
after(() => closeSuite({ site, browser }));

const GiB = 2 ** 30;
const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const sent = async (page) => JSON.parse(await page.$eval('#results', (r) => r.dataset.request));
async function open(query) {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html?${query}`);
  await ready(page);
  return { page, context, errors };
}
/** The visible text of the results' hero and summary. */
const visibleText = (page, selector) =>
  page.$$eval(selector, (els) => els.filter((e) => e.offsetParent !== null).map((e) => e.innerText));

test('issue 27 item 4: gpt-oss-120b on an H100 uses its checkpoint format by default (about 60.9 GiB, not 218)', async () => {
  const { page, context, errors } = await open('model=gpt-oss-120b&gpu=H100-SXM');
  // The selector's chosen option is the checkpoint's formats, named by the core.
  const chosen = await page.$eval('#precision', (s) => ({ value: s.value, text: s.selectedOptions[0].textContent }));
  const req = await sent(page);
  assert.equal(req.precision, undefined, 'the page leaves precision to the core (the checkpoint default)');
  const expected = fc.estimate(req);
  assert.equal(chosen.value, 'auto');
  assert.equal(chosen.text, `checkpoint (${expected.details.config.checkpoint_formats})`);
  assert.match(chosen.text, /mxfp4 experts/);
  assert.equal(expected.details.settings.weight_formats_source, 'checkpoint');
  // The core's CLI answer for this model (build/flopcast estimate gpt-oss-120b -g H100) is about
  // 60.9 GiB; bf16 everywhere was 218 GiB. The page shows the core's figure for its request.
  const memory = Number(await page.$eval('.summary-line [data-field="/memory_per_gpu"]', (e) => e.dataset.value));
  assert.equal(memory, expected.memory_per_gpu);
  assert.ok(memory / GiB > 55 && memory / GiB < 70, `${memory / GiB} GiB`);
  const bf16 = fc.estimate({ ...req, precision: 'bf16' });
  assert.ok(bf16.memory_per_gpu / GiB > 200, 'bf16 would need over 200 GiB');
  assert.equal(await page.$eval('#fits', (e) => e.dataset.value), 'true');
  // The summary line names the formats the figures are for, not bare bf16.
  assert.match(
    await page.textContent('.summary-line [data-field="/details/settings/weight_formats"]'),
    /mxfp4 experts/,
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('issue 27 item 4: DeepSeek-V3 defaults to its FP8 checkpoint on the page', async () => {
  const { page, context, errors } = await open('model=deepseek-v3&gpu=H200-SXM');
  const req = await sent(page);
  assert.equal(req.precision, undefined);
  const expected = fc.estimate(req);
  assert.match(expected.details.config.checkpoint_formats, /fp8/);
  // The summary names the formats the figures are for (the checkpoint's), as the core spells them.
  assert.equal(
    await page.$eval('.summary-line [data-field="/details/settings/weight_formats"]', (e) => e.dataset.value),
    expected.details.settings.weight_formats,
  );
  assert.match(expected.details.settings.weight_formats, /fp8/);
  assert.match(expected.precision, /fp8/);
  assert.deepEqual(errors, []);
  await context.close();
});

test('issue 27 item 5: an Apple M-series device offers no vLLM or TensorRT-LLM, and an unfitted engine is labelled', async () => {
  const { page, context, errors } = await open('model=llama-3-8b&gpu=M3-Max-128GB');
  await page.focus('#engine-fit'); // the engine list is filled on first use
  await page.waitForFunction(() => document.querySelector('#engine-fit').options.length > 1);
  const ids = await page.$$eval('#engine-fit option', (os) => os.filter((o) => !o.hidden).map((o) => o.value));
  assert.ok(!ids.includes('vllm'), ids.join());
  assert.ok(!ids.includes('tensorrt-llm'), ids.join());
  assert.ok(ids.includes('mlx') && ids.includes('llama.cpp'), ids.join());
  assert.deepEqual(
    ids.slice(2), // after "default for the device" and "none"
    fc.listEnginesFor('M3-Max-128GB').map((e) => e.id),
  );
  // The simulation panel's engine list: the same rule.
  const sim = await page.$$eval('#sim-engine option', (os) => os.filter((o) => !o.hidden).map((o) => o.value));
  assert.ok(!sim.includes('vllm') && !sim.includes('tensorrt-llm'), sim.join());
  // transformers has no fitted rows (MLX was fitted in issue 24): the page says so instead of "its fitted step costs".
  await page.selectOption('#engine-fit', 'transformers');
  await page.waitForFunction(() => document.querySelector('#range-source').dataset.engine === 'transformers');
  const note = await page.textContent('#range-source');
  assert.doesNotMatch(note, /fitted step costs/);
  const expected = fc.estimate(await sent(page));
  assert.match(expected.details.settings.engine_basis, /^unfitted/);
  assert.ok(note.includes(expected.details.settings.engine_basis), note);
  // Switching to an H100 offers vLLM again.
  await page.selectOption('#gpu', 'H100-SXM');
  await page.waitForFunction(() =>
    [...document.querySelector('#engine-fit').options].some((o) => o.value === 'vllm' && !o.hidden),
  );
  assert.deepEqual(errors, []);
  await context.close();
});

test('issue 27 item 6: Llama-3.1-70B int4 on an RTX 4090 shows no bare tok/s figure', async () => {
  const { page, context, errors } = await open('model=llama-3.1-70b&gpu=RTX-4090&precision=int4');
  const req = await sent(page);
  const expected = fc.estimate(req);
  assert.equal(expected.fits, false);
  assert.equal(expected.performance_hypothetical, true);
  assert.ok(expected.min_gpus_to_fit >= 2, String(expected.min_gpus_to_fit));
  // Every visible hero stat and card that shows a speed says "if it fitted".
  const stats = await visibleText(page, '#results .hero .stat, #results .card.perf');
  const speeds = stats.filter((t) => /tok\/s/.test(t));
  assert.ok(speeds.length > 0, 'the speeds are shown');
  for (const t of speeds) assert.match(t, /if it fitted/i, t);
  // The summary says what it would need: the core's sentence, naming the GPU count.
  const advice = await page.$eval('#fit-advice', (e) => (e.offsetParent === null ? '' : e.innerText));
  assert.equal(advice, expected.fit_advice);
  assert.ok(advice.includes(`${expected.min_gpus_to_fit} x RTX-4090`), advice);
  // A configuration that fits shows no such label.
  const fits = await open('model=llama-3-8b&gpu=RTX-4090&precision=int4');
  const labels = await visibleText(fits.page, '#results .if-fitted');
  assert.deepEqual(labels, []);
  await fits.context.close();
  assert.deepEqual(errors, []);
  await context.close();
});
