// Issue 24 through the CLI: the device class's engine when none is named (and its label in the text
// output), --engine none for the plain roofline, and `validate --loco` (leave one campaign out).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const run = (args) => spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
const json = (args) => {
  const r = run([...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test('no engine named: vLLM on an H100, llama.cpp on an RTX 4090, labelled; none is the plain roofline', () => {
  const h100 = json(['estimate', 'llama-3-8b', '-g', 'H100']).details.settings;
  assert.equal(h100.engine, 'vllm');
  assert.match(h100.engine_rule, /^no engine named: vLLM/);
  const rtx = json(['estimate', 'llama-3-8b', '-g', 'RTX-4090']).details.settings;
  assert.equal(rtx.engine, 'llama.cpp');
  const plain = json(['estimate', 'llama-3-8b', '-g', 'H100', '--engine', 'none']);
  assert.equal(plain.details.settings.engine, null);
  assert.match(plain.details.settings.engine_rule, /^--engine none/);
  const p = plain.details.performance;
  assert.ok(p.decode_latency_per_token_s >= p.speed_of_light_per_token_s);
  // The text output says which engine and why.
  const text = run(['estimate', 'llama-3-8b', '-g', 'H100']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /no engine named: vLLM, the engine most deployments run on data-centre accelerators/);
  // An unknown engine is still refused, naming the field.
  const bad = run(['estimate', 'llama-3-8b', '-g', 'H100', '--engine', 'nonesuch']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /unknown engine "nonesuch"/);
});

test('validate --loco refits each engine without each fit source and predicts that source', () => {
  const d = json(['validate', '--loco', '--engine', 'mlx']);
  assert.ok(Array.isArray(d.loco) && d.loco.length >= 1);
  for (const r of d.loco) {
    assert.equal(r.engine, 'mlx');
    if (!r.fitted_without) continue; // too few rows left to fit without it
    assert.ok(r.rows > 0);
    for (const k of ['in_fit_median_abs_error', 'left_out_median_abs_error', 'left_out_p90_abs_error'])
      assert.ok(Number.isFinite(r[k]) && r[k] >= 0, `${r.source} ${k}`);
  }
  // The sources left out are exactly the engine's fit sources in the table.
  const all = json(['validate', '--engine', 'mlx']);
  const fit = new Set(all.rows.filter((r) => r.split === 'fit').map((r) => r.source));
  assert.deepEqual(new Set(d.loco.map((r) => r.source)), fit);
});

// Megatron-Core's layout settings that the training rows state (issue 24 item 3): interleaved
// virtual stages shrink the bubble to (pp - 1) / (v m + pp - 1) of the step (Narayanan et al. 2021,
// sec. 2.2.2); context-parallel ranks split every sequence, so the layout has cp times the GPUs,
// each with 1/cp of the activations, and the same token budget takes the same GPU-hours.
test('train: --virtual-pipeline shrinks the bubble, --cp multiplies the GPUs and splits the activations', () => {
  const base = ['train', 'llama-3-8b', '-b', '16', '-s', '8192', '-g', 'H100', '--tp', '2', '--pp', '4', '--dp', '2'];
  const at = (extra) => json([...base, '--microbatches', '8', '--recompute', 'selective', ...extra]);
  const v1 = at([]);
  const v4 = at(['--virtual-pipeline', '4']);
  assert.ok(Math.abs(v1.parallelism.pp_bubble_fraction - 3 / (8 + 3)) < 1e-12);
  assert.ok(Math.abs(v4.parallelism.pp_bubble_fraction - 3 / (4 * 8 + 3)) < 1e-12);
  assert.ok(v4.performance.estimate_training_step_s < v1.performance.estimate_training_step_s);
  const cp = at(['--cp', '2']);
  assert.equal(v1.parallelism.total_gpus, 16);
  assert.equal(cp.parallelism.total_gpus, 32);
  assert.equal(cp.token_budget.gpus, 32);
  assert.equal(cp.settings.context_parallel, 2);
  assert.equal(v4.settings.virtual_pipeline, 4);
  assert.ok(cp.parallelism.per_gpu_memory_bytes < v1.parallelism.per_gpu_memory_bytes);
  assert.ok(cp.performance.estimate_training_step_s < v1.performance.estimate_training_step_s);
  const rel = (a, b) => Math.abs(a / b - 1);
  assert.ok(rel(cp.token_budget.gpu_hours, v1.token_budget.gpu_hours) < 1e-9, 'the same budget, the same GPU-hours');
  // Settings that the layout cannot carry are refused, naming the field.
  for (const [args, field] of [
    [['train', 'llama-3-8b', '--virtual-pipeline', '2'], '/training_analysis/virtual_pipeline'],
    [['train', 'llama-3-8b', '--cp', '2'], '/training_analysis/context_parallel'],
    [[...base, '--cp', '0'], '/training_analysis/context_parallel'],
  ]) {
    const r = run(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.ok(r.stderr.includes(field), r.stderr);
  }
});
