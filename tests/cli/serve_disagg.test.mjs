// `flopcast serve --disagg`: disaggregated prefill and decode workers as users run them (the
// real binary), the JSON shape of both pools, the text table, and errors (exit 2, the flag and
// the JSON pointer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveCli } from './serve-cli.mjs';

const { run, fails } = serveCli('disagg');

// The deployment the issue names: DeepSeek-R1 in NVFP4 on B200, TensorRT-LLM, 8-GPU prefill and
// decode workers.
const deepseek = [
  'deepseek-r1',
  '-g',
  'B200',
  '-p',
  'nvfp4',
  '--concurrency',
  '64,256',
  '--isl',
  '1024',
  '--osl',
  '1024',
  '--engine',
  'tensorrt-llm',
  '--disagg',
  '--prefill-tp',
  '8',
  '--decode-tp',
  '8',
];

test('serve --disagg: DeepSeek-R1 on B200 runs, both pools per point', () => {
  const r = run([...deepseek, '--json']);
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.gpus, 16, 'one prefill and one decode worker of 8 GPUs');
  assert.equal(j.disaggregation.prefill_tensor_parallel, 8);
  assert.equal(j.disaggregation.decode_tensor_parallel, 8);
  assert.equal(j.disaggregation.gpus, 16);
  assert.equal(j.points.length, 2);
  for (const p of j.points) {
    const d = p.disaggregation;
    assert.ok(['prefill', 'decode'].includes(d.bottleneck));
    assert.equal(d.converged, true);
    assert.ok(d.transfer_s.mean > 0);
    assert.ok(d.prefill.utilization > 0 && d.prefill.utilization <= 1);
    assert.ok(d.decode.utilization > 0 && d.decode.utilization <= 1);
    // The first token comes after the prefill and the transfer.
    assert.ok(p.ttft_s.mean > d.transfer_s.mean);
    assert.ok(Math.abs(d.output_tokens_per_s_per_gpu - p.output_tokens_per_s / 16) <= 1e-9 * p.output_tokens_per_s);
  }
  // More clients: more throughput, longer TPOT.
  assert.ok(j.points[1].output_tokens_per_s > j.points[0].output_tokens_per_s);
  assert.ok(j.points[1].tpot_s.mean > j.points[0].tpot_s.mean);
});

test('serve --disagg: the text names the layout and the bottleneck', () => {
  const r = run([...deepseek, '--prefill-workers', '2']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /disaggregated: 2 prefill x 8 GPUs \(TP 8\) \+ 1 decode x 8 GPUs \(TP 8\) = 24 GPUs/);
  assert.match(r.out, /bottleneck/);
  assert.match(r.out, /^\s+64\s+(prefill|decode)\s/m);
});

test('serve without --disagg is unchanged: no disaggregation keys', () => {
  const r = run([
    'llama-3-8b',
    '--gpu',
    'H100',
    '--isl',
    '256',
    '--osl',
    '16',
    '--num-requests',
    '32',
    '--concurrency',
    '4',
    '--json',
  ]);
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.disaggregation, undefined);
  assert.equal(j.points[0].disaggregation, undefined);
});

test('serve --disagg: bad values exit 2 naming the flag and the field', () => {
  const small = ['llama-3-8b', '--gpu', 'H100', '--isl', '256', '--osl', '16', '--num-requests', '16', '--disagg'];
  assert.match(fails([...small, '--prefill-workers', '0']), /--prefill-workers, \/disaggregation\/prefill_workers/);
  assert.match(
    fails([...small, '--decode-tp', '3']),
    /--decode-tp, \/disaggregation\/decode_tensor_parallel\).*decode workers/,
  );
  assert.match(
    fails([...small, '--transfer-bandwidth', '-1']),
    /--transfer-bandwidth, \/disaggregation\/transfer_bandwidth_bytes_per_s/,
  );
  assert.match(fails([...small, '--transfer-latency', 'abc']), /\/disaggregation\/transfer_latency_s/);
});

// The wide-EP deployment, disaggregated: attention DP 8 x EP 8 for the whole layout, and
// each pool its own (prefill: EP 8, attention DP 8 on 8 GPUs; decode: EP 16 with 16 attention
// ranks on 16 GPUs). GPUs by hand: 1 x (1 x 8) + 1 x (1 x 16) = 24.
test('serve --disagg with attention DP x EP: separate prefill and decode layouts', () => {
  const base = deepseek.slice(0, deepseek.indexOf('--engine')); // the model, GPU, precision and load
  const r = run([
    ...base,
    '--engine',
    'tensorrt-llm',
    '--attention-dp',
    '8',
    '--ep',
    '8',
    '--disagg',
    '--decode-ep',
    '16',
    '--decode-attention-dp',
    '16',
    '--json',
  ]);
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  const l = j.disaggregation;
  assert.deepEqual(
    [
      l.prefill_tensor_parallel,
      l.prefill_expert_parallel,
      l.prefill_attention_data_parallel,
      l.prefill_gpus_per_worker,
    ],
    [1, 8, 8, 8],
  );
  assert.deepEqual(
    [l.decode_tensor_parallel, l.decode_expert_parallel, l.decode_attention_data_parallel, l.decode_gpus_per_worker],
    [1, 16, 16, 16],
  );
  assert.equal(l.gpus, 24);
  assert.equal(j.gpus, 24);
  for (const p of j.points) {
    assert.ok(p.ttft_s.mean > 0 && p.tpot_s.mean > 0);
    assert.ok(['prefill', 'decode', 'none'].includes(p.disaggregation.bottleneck));
  }
  const text = run([...base, '--engine', 'tensorrt-llm', '--attention-dp', '8', '--ep', '8', '--disagg']);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /1 prefill x 8 GPUs \(TP 1 x EP 8, attention DP 8\)/);
  // A pool's attention ranks must divide its EP: the error names the pool's field.
  const err = fails([...base, '--attention-dp', '8', '--ep', '8', '--disagg', '--decode-attention-dp', '3']);
  assert.match(err, /decode_attention_data_parallel/);
});

// A bandwidth its unit (GB/s) scales past a double's range is refused, not dropped for the default.
test('serve --disagg refuses a transfer bandwidth that overflows its unit', () => {
  const err = fails(['llama-3-8b', '-g', 'H100', '--concurrency', '1', '--disagg', '--transfer-bandwidth', '1e308']);
  assert.match(err, /transfer_bandwidth_bytes_per_s\) expected a number of bytes\/s/);
});

// Workload shapes the pools do not carry (shared content, length presets) are refused by name.
test('serve --disagg refuses a prompt pool, a shared prefix, sessions and a length preset', () => {
  for (const [flag, value, field] of [
    ['--prompt-pool', '8', '/simulation/prompt_pool'],
    ['--prefix-tokens', '128', '/simulation/prefix_tokens'],
    ['--turns', '3', '/simulation/turns'],
    ['--dataset', 'sharegpt', '/simulation/dataset'],
  ]) {
    const err = fails(['llama-3-8b', '-g', 'H100', '--concurrency', '4', '--disagg', flag, value]);
    assert.match(err, new RegExp(`${field.replace(/\//g, '\\/')}\\) disaggregated serving does not model`), err);
  }
});
