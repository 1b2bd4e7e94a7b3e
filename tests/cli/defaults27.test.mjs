// Issue 27, items 4-6 at the CLI: the checkpoint's formats by default, engines only where they run
// (list-engines --gpu; refused elsewhere with exit 2 at /engine), the unfitted label, and the
// "if it fitted" speeds of a configuration that does not fit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const run = (args) => spawnSync(bin, args, { encoding: 'utf8' });
const json = (args) => {
  const r = run([...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test('issue 27 item 4: estimate without -p uses the checkpoint formats (gpt-oss-120b mxfp4 experts, deepseek-v3 fp8)', () => {
  const oss = json(['estimate', 'gpt-oss-120b', '-g', 'H100']);
  assert.equal(oss.details.settings.weight_formats_source, 'checkpoint');
  assert.equal(oss.details.config.checkpoint_formats, 'mxfp4 experts, bf16 rest');
  const spelled = json(['estimate', 'gpt-oss-120b', '-g', 'H100', '-p', 'experts=mxfp4,default=bf16']);
  assert.equal(oss.details.memory.weights, spelled.details.memory.weights);
  const ds = json(['estimate', 'deepseek-v3', '-g', 'H200']);
  assert.equal(ds.precision, 'fp8_block');
  assert.equal(ds.details.settings.weight_formats_source, 'checkpoint');
});

test('issue 27 item 5: list-engines --gpu lists the engines that run there; others are refused at /engine', () => {
  const apple = json(['list-engines', '--gpu', 'M3-Max-128GB']).map((e) => e.id);
  assert.deepEqual(apple, ['llama.cpp', 'mlx', 'transformers']);
  const all = json(['list-engines']);
  for (const e of all) {
    assert.match(e.runs_on_source, /^https:\/\//, e.id);
    assert.ok(e.runs_on.length > 0, e.id);
    if (!e.fitted) assert.match(e.basis, /^unfitted \(plain roofline plus the engine's scheduler defaults\)/, e.id);
  }
  const r = run(['estimate', 'llama-3-8b', '-g', 'M3-Max-128GB', '--engine', 'vllm']);
  assert.equal(r.status, 2);
  assert.match(r.stderr, /\/engine/);
  assert.match(r.stderr, /does not run on M3-Max-128GB \(Apple soc\)/);
  assert.match(r.stderr, /docs\.vllm\.ai/);
  const t = run([
    'throughput',
    'llama-3-8b',
    '-g',
    'M3-Max-128GB',
    '--engine',
    'trtllm',
    '--prompt',
    '512',
    '--output',
    '64',
  ]);
  assert.equal(t.status, 2);
  assert.match(t.stderr, /does not run on M3-Max-128GB/);
  // The text report names the basis of an engine's figures.
  // transformers: unfitted (MLX was fitted in issue 24, to mlx-lm's BENCHMARKS.md).
  const text = run(['estimate', 'llama-3-8b', '-g', 'M3-Max-128GB', '--engine', 'transformers']);
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /engine transformers: unfitted \(plain roofline plus the engine's scheduler defaults\)/);
});

test('issue 27 item 6: a configuration that does not fit: speeds "if it fitted" and the GPUs it needs', () => {
  const r = json(['estimate', 'llama-3.1-70b', '-g', 'RTX-4090', '-p', 'int4']);
  assert.equal(r.fits, false);
  assert.equal(r.performance_hypothetical, true);
  const plan = json(['plan', 'llama-3.1-70b', '-g', 'RTX-4090', '-p', 'int4']);
  console.log(`llama-3.1-70b int4 on RTX-4090: estimate says ${r.min_gpus_to_fit}, plan's min_gpus ${plan.min_gpus}`);
  assert.ok(r.min_gpus_to_fit >= 2);
  assert.match(r.fit_advice, new RegExp(`needs ${r.min_gpus_to_fit} x RTX-4090`));
  const text = run(['estimate', 'llama-3.1-70b', '-g', 'RTX-4090', '-p', 'int4']);
  assert.match(text.stdout, /Performance IF IT FITTED/);
  assert.match(text.stdout, /if it fitted/);
  const ds = json(['estimate', 'deepseek-v3', '-g', 'H100']);
  assert.equal(ds.performance_hypothetical, true);
  assert.ok(ds.min_gpus_to_fit >= 8, String(ds.min_gpus_to_fit));
  const fits = json(['estimate', 'llama-3-8b', '-g', 'H100']);
  assert.equal(fits.performance_hypothetical, false);
  assert.equal(fits.min_gpus_to_fit, null);
  assert.doesNotMatch(run(['estimate', 'llama-3-8b', '-g', 'H100']).stdout, /IF IT FITTED/);
});
