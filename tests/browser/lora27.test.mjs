// Issue 27, item 1: LoRA and QLoRA in the headline. For the page's own URLs, the badge, the memory
// bar, the hero step time, the LoRA card, the training-step panel and the planner all show the
// core's one answer for the request the page sent (fc.estimate / fc.train / fc.plan of it in Node,
// from the same WebAssembly build), and they agree with each other.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openPage, openSuite, closeSuite } from './harness.mjs';

let site, browser, fc;
before(async () => ({ site, browser, fc } = await openSuite({ core: true })));
after(() => closeSuite({ site, browser }));

const close = (a, b, what) =>
  assert.ok(Math.abs(Number(a) - Number(b)) <= 1e-9 * Math.abs(Number(b)), `${what}: ${a} vs ${b}`);

async function open(query) {
  const { page, context, errors } = await openPage(browser, `${site.url}/index.html?${query}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1');
  await page.waitForFunction(() => ['1', 'error'].includes(document.querySelector('#training-card').dataset.lora));
  return { page, context, errors };
}
const value = (page, sel) => page.$eval(sel, (el) => el.dataset.value);

/** Everything the page shows for the training step, and the core's answers for the request it sent. */
async function readAll(page) {
  const req = JSON.parse(await page.$eval('#results', (r) => r.dataset.request));
  const e = fc.estimate(req);
  const treq = JSON.parse(await page.$eval('#training-card', (c) => c.dataset.request));
  const t = fc.train(treq);
  // The planner: run it (it loads on first use) and wait for its answer.
  await page.click('#plan-run');
  await page.waitForFunction(() => document.querySelector('#plan-answer').dataset.fits !== undefined);
  const preq = JSON.parse(await page.$eval('#plan-table', (t) => t.dataset.request));
  const p = fc.plan(preq);
  const shown = {
    badge: await value(page, '#fits'),
    badgeText: await page.textContent('#fits'),
    memory: await value(page, '.summary [data-field="/memory"]'),
    bar: await page.$eval('#membar', (b) => ({
      ...b.dataset,
      caption: b.querySelector('.membar-caption').textContent,
    })),
    hero: await value(page, '.hero [data-field="/details/performance/training_step_s"]'),
    card: {
      total: await value(page, '#lora-kv [data-train-field="/memory/total"]'),
      step: await value(page, '#lora-kv [data-train-field="/performance/step_time_s"]'),
      visible: await page.isVisible('#lora-kv'),
    },
    panel: {
      rank: await value(page, '[data-train="/settings/lora_rank"]'),
      total: await value(page, '[data-train="/memory/total"]'),
      fits: await value(page, '[data-train="/memory/fits_on_gpu"]'),
      step: await value(page, '[data-train="/performance/step_time_s"]'),
      advice: await page.$$eval('#train-recommendations li', (li) => li.map((x) => x.textContent)),
    },
    plan: {
      answer: await page.textContent('#plan-answer'),
      training: await page.$eval('#plan-answer', (a) => a.dataset.training),
      memory: await value(page, '#plan-table tbody tr:first-child [data-field="per_gpu_memory_bytes"]'),
      step: await value(page, '#plan-table tbody tr:first-child [data-field="training_step_s"]'),
      gpus: await value(page, '#plan-table tbody tr:first-child [data-field="gpus"]'),
    },
    rankPlaceholder: await page.$eval('#lora-rank', (i) => i.placeholder),
  };
  return { req, e, treq, t, preq, p, shown };
}

/** The checks both URLs share: one memory, one fit, one step time, everywhere. */
function agree({ req, e, treq, t, preq, p, shown }, method) {
  const m = e.details.memory;
  assert.equal(req.training, true);
  assert.equal(req.training_analysis?.fine_tuning, method, 'the estimate request carries the method');
  assert.deepEqual(treq.training_analysis, req.training_analysis, 'the LoRA card asks for the same step');
  assert.deepEqual(preq.training_analysis, req.training_analysis, 'the planner plans the same step');
  assert.equal(preq.training, true);
  assert.equal(m.training.fine_tuning, method);
  // The core: one figure across estimate, train and plan.
  close(m.training.total, t.memory.total, 'estimate vs train memory');
  assert.equal(m.fits_on_gpu, t.memory.fits_on_gpu);
  close(e.details.performance.training_step_s, t.performance.step_time_s, 'estimate vs train step');
  assert.equal(p.fine_tuning, method);
  assert.equal(p.min_gpus, 1);
  close(p.layouts[0].per_gpu_memory_bytes, m.training.total, 'plan vs estimate memory');
  // The page: badge, summary, bar, hero, card, panel, planner.
  assert.equal(shown.badge, 'true');
  assert.equal(m.fits_on_gpu, true);
  assert.match(shown.badgeText, /^Fits/);
  assert.equal(Number(shown.memory), m.total);
  assert.equal(m.total, m.training.total);
  assert.equal(Number(shown.bar.total), m.training.total);
  assert.equal(Number(shown.bar.usable), m.usable_gpu_memory);
  assert.equal(shown.bar.scope, `training (${method === 'lora' ? 'LoRA' : 'QLoRA'})`);
  assert.match(shown.bar.caption, /fits/);
  assert.equal(Number(shown.hero), e.details.performance.training_step_s);
  assert.ok(shown.card.visible);
  assert.equal(Number(shown.card.total), t.memory.total);
  assert.equal(Number(shown.card.step), t.performance.step_time_s);
  close(shown.card.step, shown.hero, 'LoRA card vs hero step');
  close(shown.card.total, shown.bar.total, 'LoRA card vs memory bar');
  assert.equal(Number(shown.panel.rank), m.training.lora_rank);
  assert.equal(Number(shown.panel.total), t.memory.total);
  assert.equal(shown.panel.fits, 'true');
  close(shown.panel.step, shown.hero, 'training panel vs hero step');
  assert.ok(!shown.panel.advice.some((a) => /ZeRO/.test(a)), `no ZeRO advice: ${shown.panel.advice.join(' | ')}`);
  assert.equal(shown.plan.training, method);
  assert.equal(Number(shown.plan.gpus), 1);
  assert.match(
    shown.plan.answer,
    new RegExp(`^Fits for training \\(${method === 'lora' ? 'LoRA' : 'QLoRA'}\\) on 1 ×`),
  );
  assert.equal(Number(shown.plan.memory), p.layouts[0].per_gpu_memory_bytes);
  close(shown.plan.memory, shown.bar.total, 'planner vs memory bar');
  assert.equal(Number(shown.plan.step), p.layouts[0].training_step_s);
  close(shown.plan.step, shown.hero, 'planner vs hero step');
  // The rank the core applied, shown where the rank is typed.
  assert.equal(shown.rankPlaceholder, `${m.training.lora_rank} (default)`);
}

test('issue 27 item 1: LoRA on an A100 80GB: one LoRA memory, fit and step on every panel, the default rank applied', async () => {
  const { page, context, errors } = await open('model=llama-3-8b&gpu=A100-80GB-SXM&training=1&ft=lora');
  const all = await readAll(page);
  agree(all, 'lora');
  // No rank typed: the request table's default rank (Hugging Face PEFT's LoraConfig r = 8).
  const rank = fc.defaults().request_fields.find((f) => f.pointer === '/training_analysis/lora_rank');
  assert.equal(rank.default, 8);
  assert.equal(all.req.training_analysis.lora_rank, undefined);
  assert.equal(all.e.details.memory.training.lora_rank, rank.default);
  // Full fine-tuning of the same inputs does not fit 80 GB: the page said so for LoRA before.
  const full = fc.estimate({ ...all.req, training_analysis: undefined });
  assert.equal(full.details.memory.fits_on_gpu, false);
  assert.ok(all.e.details.memory.training.total < full.details.memory.training.total / 4);
  // Rank 16 typed: every panel follows.
  await page.fill('#lora-rank', '16');
  await page.waitForFunction(
    () => JSON.parse(document.querySelector('#results').dataset.request).training_analysis?.lora_rank === 16,
  );
  await page.waitForFunction(() => document.querySelector('#training-card').dataset.lora === '1');
  const e16 = fc.estimate(JSON.parse(await page.$eval('#results', (r) => r.dataset.request)));
  assert.equal(
    Number(await value(page, '.hero [data-field="/details/performance/training_step_s"]')),
    e16.details.performance.training_step_s,
  );
  assert.equal(Number(await page.$eval('#membar', (b) => b.dataset.total)), e16.details.memory.training.total);
  assert.deepEqual(errors, []);
  await context.close();
});

test('issue 27 item 1: QLoRA Llama-3-8B on an RTX 4090 (24 GB) fits, on every panel', async () => {
  const { page, context, errors } = await open('model=llama-3-8b&gpu=RTX-4090&training=1&ft=qlora');
  const all = await readAll(page);
  agree(all, 'qlora');
  assert.equal(all.e.details.memory.training.lora_rank, 64); // the QLoRA paper's r, the core's default
  assert.ok(all.e.details.memory.training.total < 24 * 2 ** 30);
  assert.deepEqual(errors, []);
  await context.close();
});
