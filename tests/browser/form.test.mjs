// The form's formats, engine, LoRA/QLoRA and memory bar in Debian's chromium: what the page sends
// and shows equals the core's answer for that request (fc.estimate / fc.train in Node, from the
// same WebAssembly build), and the bar's geometry follows the core's bytes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, assertSame, shownBy, openSuite, closeSuite } from './harness.mjs';

let site, browser, fc;
before(async () => ({ site, browser, fc } = await openSuite({ core: true })));
after(() => closeSuite({ site, browser }));

const ready = (page) => page.waitForFunction(() => document.body.dataset.ready === '1');
const shown = (page) => shownBy(page, 'data-field', '#results');
const sent = async (page) => JSON.parse(await page.$eval('#results', (r) => r.dataset.request));
async function open(query) {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html?${query}`);
  await ready(page);
  return { page, context, errors };
}
const loraDone = (page) =>
  page.waitForFunction(() => ['1', 'error'].includes(document.querySelector('#training-card').dataset.lora));

test('a per-component precision sends the object form and shows fc.estimate() of it; the URL keeps it', async () => {
  const { page, context, errors } = await open('model=gpt-oss-20b&gpu=H100-SXM&precision=bf16');
  // The checkpoint's own formats first (issue 27 item 4: the default), then every format the core
  // knows, grouped by family.
  const offered = await page.$$eval('#precision option', (os) => os.map((o) => o.value));
  assert.equal(offered[0], 'auto');
  assert.deepEqual(
    offered.slice(1).sort(),
    fc
      .defaults()
      .precisions.map((p) => p.name)
      .sort(),
  );
  assert.ok((await page.$$eval('#precision optgroup', (g) => g.length)) >= 4);
  // One select per part the core names.
  const parts = await page.$$eval('#precision-parts-grid select', (s) => s.map((x) => x.dataset.part));
  assert.deepEqual(parts, fc.defaults().weight_components);

  await page.click('#precision-parts summary');
  await page.selectOption('#precision-experts', 'mxfp4');
  await page.waitForFunction(() => document.querySelector('#results').dataset.request.includes('mxfp4'));
  const req = await sent(page);
  assert.deepEqual(req.precision, { default: 'bf16', experts: 'mxfp4' });
  const expected = fc.estimate({ ...req, layer_table: true });
  assert.equal(expected.details.memory.weights_precision_by_part.experts, 'mxfp4');
  assertSame(await shown(page), expected);
  // Smaller than all-bf16 (the experts hold most of gpt-oss's weights).
  const plain = fc.estimate({ ...req, precision: 'bf16' });
  assert.ok(expected.details.memory.weights < plain.details.memory.weights);

  await page.locator('#precision-experts').blur();
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('p-experts'), 'mxfp4');
  const again = await context.newPage();
  await again.goto(page.url());
  await ready(again);
  assert.equal(await again.inputValue('#precision-experts'), 'mxfp4');
  assert.deepEqual((await sent(again)).precision, { default: 'bf16', experts: 'mxfp4' });
  assert.deepEqual(errors, []);
  await context.close();
});

test('the engine select sends the engine and the ranges name its fit', async () => {
  const { page, context, errors } = await open('model=llama-3-8b&gpu=H100-SXM');
  const ids = await page.$$eval('#engine-fit option', (os) => os.map((o) => o.value));
  // Unset (the device class's engine, issue 24), none (the plain roofline), then the engines that
  // run on this device (issue 27 item 5: MLX runs on Apple silicon only).
  assert.deepEqual(ids.slice(0, 2), ['', 'none']);
  assert.deepEqual(
    ids.slice(2),
    fc.listEnginesFor('H100-SXM').map((e) => e.id),
  );
  const before = await page.textContent('#range-source');
  // With no engine named the H100 already runs vLLM, labelled as the default; naming it drops the label.
  assert.match(before, /no engine named: vLLM/);
  await page.selectOption('#engine-fit', 'vllm');
  await page.waitForFunction(() => {
    const el = document.querySelector('#range-source');
    return el.dataset.engine === 'vllm' && !el.textContent.includes('no engine named');
  });
  const req = await sent(page);
  assert.equal(req.engine, 'vllm');
  const expected = fc.estimate({ ...req, layer_table: true });
  assertSame(await shown(page), expected);
  const note = await page.textContent('#range-source');
  assert.ok(note.includes(expected.details.performance.ranges.source), note);
  assert.notEqual(note, before);
  assert.match(note, /vllm/i);
  assert.equal(new URL(page.url()).searchParams.get('eng'), 'vllm');
  assert.deepEqual(errors, []);
  await context.close();
});

test("LoRA rank 16 + QLoRA: the core's trainable parameters, less memory than full fine-tuning", async () => {
  const { page, context, errors } = await open('model=llama-3-8b&gpu=A100-80GB-SXM&training=1');
  await page.selectOption('#lora-mode', 'qlora');
  await page.fill('#lora-rank', '16');
  await loraDone(page);
  assert.equal(await page.$eval('#training-card', (c) => c.dataset.lora), '1');
  const treq = JSON.parse(await page.$eval('#training-card', (c) => c.dataset.request));
  assert.equal(treq.training_analysis.lora_rank, 16);
  assert.equal(treq.training_analysis.fine_tuning, 'qlora');
  const t = fc.train({ model: 'llama-3-8b', gpu: 'A100-80GB-SXM', training_analysis: { lora_rank: 16, qlora: true } });
  const got = await shownBy(page, 'data-train-field', '#lora-kv');
  // Hand count: r x (in + out) over q, k, v, o, gate, up, down of 32 layers = 41,943,040.
  assert.equal(Number(got['/lora/trainable_parameters']), 16 * (2 * 8192 + 2 * 5120 + 3 * 18432) * 32);
  assert.equal(Number(got['/lora/trainable_parameters']), t.lora.trainable_parameters);
  assert.equal(Number(got['/memory/total']), t.memory.total);
  assert.equal(Number(got['/performance/step_time_s']), t.performance.step_time_s);
  const full = fc.estimate({ model: 'llama-3-8b', gpu: 'A100-80GB-SXM', training: true });
  assert.ok(t.memory.total < full.details.memory.training.total);
  assert.ok(await page.isVisible('#lora-kv'));
  assert.ok(!(await page.isVisible('#train-kv')));
  // The bar shows the LoRA step's memory.
  assert.equal(Number(await page.$eval('#membar', (b) => b.dataset.total)), t.memory.total);
  // URL state.
  await page.locator('#lora-rank').blur();
  const q = new URL(page.url()).searchParams;
  assert.equal(q.get('ft'), 'qlora');
  assert.equal(q.get('lora'), '16');
  // LoRA without a rank takes the core's default rank (issue 27), shown in the rank input.
  await page.selectOption('#lora-mode', 'lora');
  await page.fill('#lora-rank', '');
  await page.waitForFunction(() => document.querySelector('#lora-rank').placeholder === '8 (default)');
  await loraDone(page);
  assert.equal(await page.textContent('#lora-message'), '');
  assert.deepEqual(errors, []);
  await context.close();
});

test('optimizer none: the fp32 master copy is labelled, no optimizer state row', async () => {
  const { page, context, errors } = await open('model=llama-3-8b&gpu=A100-80GB-SXM&training=1&optimizer=none');
  const rows = await page.$$eval('#training-card dl:not([hidden]) > div:not([hidden])', (ds) =>
    ds.map((d) => [d.querySelector('dt').textContent.trim(), d.querySelector('dd').dataset.value]),
  );
  const m = fc.estimate({ model: 'llama-3-8b', gpu: 'A100-80GB-SXM', training: true, optimizer: 'none' }).details.memory
    .training;
  assert.ok(!rows.some(([dt]) => /optimizer state/i.test(dt)), JSON.stringify(rows));
  assert.ok(!rows.some(([dt]) => /moments/i.test(dt)), 'no moments for optimizer none');
  const master = rows.find(([dt]) => /master/i.test(dt));
  assert.ok(master, JSON.stringify(rows));
  assert.equal(Number(master[1]), m.master_weights);
  // With LoRA too.
  await page.selectOption('#lora-mode', 'lora');
  await page.fill('#lora-rank', '8');
  await loraDone(page);
  const lrows = await page.$$eval('#lora-kv > div:not([hidden]) dt', (ds) => ds.map((d) => d.textContent.trim()));
  assert.ok(!lrows.some((dt) => /optimizer state|moments/i.test(dt)), JSON.stringify(lrows));
  assert.ok(lrows.some((dt) => /master/i.test(dt)));
  assert.deepEqual(errors, []);
  await context.close();
});

/** The bar's geometry: each segment's width, the marker and the overflow, in px. */
const geometry = (page) =>
  page.$eval('#membar', (root) => {
    const bar = root.querySelector('.membar-bar').getBoundingClientRect();
    const box = (el) => el.getBoundingClientRect();
    return {
      width: root.querySelector('.membar-track').getBoundingClientRect().width,
      left: bar.left + root.querySelector('.membar-bar').clientLeft,
      segs: [...root.querySelectorAll('.membar-seg')].map((s) => ({
        part: s.dataset.part,
        bytes: Number(s.dataset.bytes),
        w: box(s).width,
      })),
      marker: box(root.querySelector('.membar-marker')).left + box(root.querySelector('.membar-marker')).width / 2,
      over: !root.querySelector('.membar-over').hidden,
      label: root.querySelector('.membar-bar').getAttribute('aria-label'),
      role: root.querySelector('.membar-bar').getAttribute('role'),
    };
  });

test("the memory bar: widths are the core's bytes over the usable bytes; the overflow past the marker", async () => {
  const { page, context, errors } = await open('model=llama-3-8b&gpu=A100-80GB-SXM');
  let r = fc.estimate({ ...(await sent(page)) });
  let g = await geometry(page);
  let usable = r.details.memory.usable_gpu_memory;
  assert.equal(usable, 0.9 * 80 * 2 ** 30); // vLLM's default 0.9 of 80 GiB
  assert.deepEqual(
    g.segs.map((s) => s.bytes),
    [r.details.memory.weights, r.details.memory.kv_cache, r.details.memory.activations],
  );
  for (const s of g.segs) assert.ok(Math.abs(s.w - (s.bytes / usable) * g.width) <= 1, `${s.part}: ${s.w}px`);
  assert.ok(Math.abs(g.marker - g.left - g.width) <= 1.5, 'fits: the marker at the end');
  assert.equal(g.over, false);
  assert.equal(g.role, 'img');
  assert.match(g.label, /usable/);

  // llama-2-70b fp16 on one A100-80GB: over, the marker at usable / total.
  await page.fill('#model', 'llama-2-70b');
  await page.selectOption('#precision', 'fp16');
  await page.waitForFunction(() => document.querySelector('#membar').classList.contains('over'));
  r = fc.estimate(await sent(page));
  g = await geometry(page);
  usable = r.details.memory.usable_gpu_memory;
  const total = r.details.memory.total;
  assert.equal(r.details.memory.fits_on_gpu, false);
  assert.equal(g.over, true);
  for (const s of g.segs) assert.ok(Math.abs(s.w - (s.bytes / total) * g.width) <= 1, `${s.part}: ${s.w}px`);
  assert.ok(Math.abs(g.marker - g.left - (usable / total) * g.width) <= 1.5);
  assert.match(g.label, /does not fit/);

  // tp=4: one GPU's memory (details.parallelism.per_gpu_*).
  await page.fill('#tp', '4');
  await page.waitForFunction(() => /per GPU/.test(document.querySelector('#membar').dataset.scope));
  r = fc.estimate(await sent(page));
  g = await geometry(page);
  const par = r.details.parallelism;
  assert.deepEqual(
    g.segs.map((s) => s.bytes),
    [par.per_gpu_weights, par.per_gpu_kv_cache, par.per_gpu_activations],
  );
  for (const s of g.segs) assert.ok(Math.abs(s.w - (s.bytes / usable) * g.width) <= 1, `${s.part}: ${s.w}px`);
  assert.equal(g.over, false);
  assert.deepEqual(errors, []);
  await context.close();
});
