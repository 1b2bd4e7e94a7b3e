// `flopcast train`: the training-step analysis as users run it (the real binary).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-train-'));
// Every suite has its own calibration store: nothing the user stored can change a result here.
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

function run(args) {
  const r = spawnSync(bin, args, { encoding: 'utf8', cwd: tmp });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function json(args) {
  const r = run(['train', ...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}
// A bad input: exit 2, exactly one line on stderr, nothing on stdout.
function fails(args, pattern) {
  const r = run(['train', ...args]);
  assert.equal(r.code, 2, `exit code for ${args.join(' ')}: ${r.err}`);
  assert.equal(r.out, '');
  const lines = r.err.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${r.err}`);
  assert.match(lines[0], /^flopcast: error: /);
  assert.match(lines[0], pattern);
}

test('done when: Llama-3-8B step total = sum of the decomposition, and the 6ND cross-check', () => {
  const r = json(['meta-llama/Meta-Llama-3-8B']);
  const f = r.flops;
  // The step total is within 5% (here: equal) of the sum of its phases.
  assert.ok(Math.abs(f.total_step / f.sum_of_parts - 1) < 0.05);
  assert.ok(Math.abs(f.sum_of_parts_ratio - 1) < 1e-9);
  assert.equal(f.within_5_percent, true);
  const phases = r.bottleneck.reduce((s, p) => s + p.flops, 0);
  assert.ok(Math.abs(phases / f.total_step - 1) < 1e-9);
  const parts =
    f.forward + f.backward.total + f.recompute.total + f.optimizer + f.gradient_clipping + f.mixed_precision;
  assert.ok(Math.abs(parts / f.total_step - 1) < 1e-9);
  // 6 N T with N = all 8,030,261,248 parameters and T = 2048 tokens.
  const x = r.cross_check_6nd;
  assert.equal(x.parameters, 8030261248);
  assert.equal(x.tokens_per_step, 2048);
  assert.equal(x.flops_6nt, 6 * 8030261248 * 2048);
  assert.ok(Math.abs(x.ratio - 1) < 0.05, `ratio ${x.ratio}`);
  assert.equal(x.within_5_percent, true);
  // Backward close to 2 x forward, split by gradient kind and by component.
  const b = f.backward;
  assert.ok(b.ratio_to_forward > 1.95 && b.ratio_to_forward <= 2, `${b.ratio_to_forward}`);
  assert.ok(Math.abs((b.weight_gradient + b.input_gradient) / b.total - 1) < 1e-9);
  const byComponent = b.attention.total + b.mlp + b.norm + b.embedding + b.output_head + b.lora_adapters;
  assert.ok(Math.abs(byComponent / b.total - 1) < 1e-9);
  for (const k of ['dq_dk', 'dv_dp', 'softmax', 'rotary', 'qkv_projection', 'output_projection'])
    assert.ok(b.attention[k] > 0, k);
  // 16 bytes per parameter of mixed-precision Adam.
  assert.equal(r.memory.bytes_per_trainable_parameter, 16);
  assert.equal(r.memory.fits_on_gpu, false);
  // Every phase has a bound and a time; the optimizer streams state and is memory-bound.
  assert.equal(r.bottleneck.length, 8);
  const byName = Object.fromEntries(r.bottleneck.map((p) => [p.phase, p]));
  assert.equal(byName.forward.bound, 'compute');
  assert.equal(byName.backward_weight_gradients.bound, 'compute');
  assert.equal(byName.optimizer.bound, 'memory');
  for (const p of r.bottleneck) assert.equal(p.time_s, Math.max(p.compute_s, p.memory_s));
  for (const k of ['forward', 'backward', 'optimizer', 'total'])
    assert.ok(r.memory_traffic[k].read_bytes > 0 && r.memory_traffic[k].arithmetic_intensity > 0, k);
  assert.ok(r.recommendations.some((x) => /fused optimizer/.test(x.action)));
  assert.ok(r.recommendations.some((x) => /ZeRO stage/.test(x.action)));
  assert.ok(r.recommendations.every((x) => x.reason.length > 0));
  assert.equal(r.lora, null);
  assert.equal(r.token_budget.tokens, 20 * 8030261248);
});

test('token budget: GPU-hours at an MFU against 6ND', () => {
  const r = json([
    'llama-3-8b',
    '-g',
    'H100',
    '--tokens',
    '15T',
    '--mfu',
    '0.4',
    '--gpus',
    '1024',
    '-b',
    '4',
    '-s',
    '8192',
    '--causal',
  ]);
  const t = r.token_budget;
  assert.equal(t.tokens, 15e12);
  assert.equal(t.source, 'user');
  assert.equal(t.gpus, 1024);
  assert.equal(t.steps, Math.ceil(15e12 / (4 * 8192)));
  assert.ok(Math.abs(t.time_s / (t.model_flops / (1024 * 989.4e12 * 0.4)) - 1) < 1e-9);
  assert.ok(Math.abs(t.gpu_hours - (t.time_s * 1024) / 3600) < 1e-6 * t.gpu_hours);
  assert.equal(t.flops_6nd, 6 * 8030261248 * 15e12);
  // Causal attention at 8192 tokens adds about 10% to 6ND (Llama-3-8B).
  assert.ok(t.ratio_model_to_6nd > 1 && t.ratio_model_to_6nd < 1.15, `${t.ratio_model_to_6nd}`);
  assert.ok(t.total_flops > t.model_flops); // recompute, optimizer, clipping, casts
});

test('LoRA on q,v matches the PEFT print; QLoRA quantises the base', () => {
  const r = json(['llama-2-7b', '--lora-rank', '8', '--lora-targets', 'q_proj,v_proj']);
  assert.equal(r.lora.trainable_parameters, 4194304);
  assert.equal(r.lora.all_parameters, 6742609920);
  assert.equal(r.parameters.trainable, 4194304);
  assert.equal(r.flops.optimizer, 14 * 4194304);
  assert.ok(r.cross_check_6nd.ratio < 0.75);
  const q = json(['llama-2-7b', '--qlora', '-s', '512']);
  assert.equal(q.lora.rank, 64);
  assert.equal(q.lora.base_precision, 'int4');
  assert.equal(q.lora.quantized_base, true);
  assert.ok(q.memory.total < r.memory.total / 2);
  const q8 = json(['llama-2-7b', '--lora-rank', '16', '--base-precision', 'int8', '-s', '512']);
  assert.equal(q8.lora.base_precision, 'int8');
  assert.ok(q8.lora.base_weight_bytes > q.lora.base_weight_bytes);
});

test('recompute policies and the readable report', () => {
  const none = json(['llama-3-8b', '--recompute', 'none']);
  const full = json(['llama-3-8b', '--recompute', 'full']);
  assert.equal(none.flops.recompute.layers, 0);
  assert.ok(full.flops.recompute.layers > 0.9 * full.flops.forward);
  assert.ok(full.memory.activations < none.memory.activations);
  const r = run(['train', 'llama-3-8b', '-g', 'H100']);
  assert.equal(r.code, 0, r.err);
  for (const s of [
    'Forward',
    'Backward',
    'weight gradients',
    'input gradients',
    'Optimizer (adam)',
    'Recompute (full)',
    'Step total',
    '6·N·T',
    'Token budget',
    'GPU-hours',
    'Recommendations',
  ])
    assert.ok(r.out.includes(s), s);
  assert.match(r.out, /flopcast train: meta-llama\/Meta-Llama-3-8B/);
  assert.match(r.out, /optimizer\s+[\d.]+ GFLOP.*memory/);
});

test('a config.json path works like a registry name', () => {
  const path = join(tmp, 'config.json');
  writeFileSync(
    path,
    JSON.stringify({
      model_type: 'llama',
      hidden_size: 1024,
      num_hidden_layers: 4,
      num_attention_heads: 8,
      intermediate_size: 2816,
      vocab_size: 32000,
    }),
  );
  const r = json([path, '-g', 'none']);
  assert.equal(r.performance, null);
  assert.equal(r.bottleneck[0].bound, null);
  assert.ok(r.flops.total_step > 0);
});

test('bad input: one line on stderr, exit 2', () => {
  // Request-field errors are the shared fixture's (bad_inputs.test.mjs); these are train's own.
  fails(
    ['llama-3-8b', '--base-precision', 'int4'],
    /\(--base-precision, \/training_analysis\/base_precision\) a frozen base precision applies to LoRA only/,
  );
  fails(['llama-3-8b', '-p', 'int8'], /\(--precision, \/precision\) training in int8 is not modelled/);
  fails(['no-such-model'], /unknown model "no-such-model"/);
  fails(
    ['gpt2', '--lora-rank', '4', '--lora-targets', 'gate'],
    /\(--lora-targets, \/training_analysis\/lora_targets\) no linear layer of openai-community\/gpt2/,
  );
});

test('train and estimate --training give one answer, on one GPU and on a layout', () => {
  const est = (args) => {
    const r = run(['estimate', ...args, '--training', '--json']);
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out);
  };
  for (const args of [
    ['llama-2-7b', '-g', 'A100'],
    ['llama-2-7b', '-g', 'A100', '--tp', '2'],
    ['mixtral-8x7b', '-g', 'H100', '--tp', '2', '--ep', '4', '-b', '2'],
    ['llama-3-8b', '-g', 'H100', '--dp', '2', '-b', '4', '--no-checkpointing', '--optimizer', 'sgd'],
  ]) {
    const t = json(args);
    const e = est(args);
    if (t.parallelism) {
      assert.equal(t.parallelism.step_time_s, e.details.parallelism.training_step_s, args.join(' '));
      assert.equal(t.parallelism.per_gpu_memory_bytes, e.details.parallelism.per_gpu_memory_bytes, args.join(' '));
    } else {
      assert.equal(t.performance.step_time_s, e.details.performance.training_step_s, args.join(' '));
      assert.equal(t.memory.total, e.details.memory.training.total, args.join(' '));
    }
  }
});
