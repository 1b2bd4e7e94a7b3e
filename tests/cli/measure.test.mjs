// `flopcast measure` as users run it: the real binary on this machine, small configs. No
// timing assertions: figures are checked for presence, labels and exact counts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = resolve(root, process.env.FLOPCAST_BIN ?? 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-measure-'));
// Every suite has its own calibration store: nothing the user stored can change a result here.
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

function run(args) {
  const r = spawnSync(bin, args, { encoding: 'utf8', cwd: tmp, maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function measureJson(args) {
  const r = run(['measure', ...args, '--json']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, '', 'nothing on stderr when it is not a terminal (no progress bar)');
  return JSON.parse(r.out);
}
// A bad input: exit 2, exactly one line on stderr, nothing on stdout.
function fails(args, pattern) {
  const r = run(['measure', ...args]);
  assert.equal(r.code, 2, `exit code for ${args.join(' ')}: ${r.err}`);
  assert.equal(r.out, '');
  const lines = r.err.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${r.err}`);
  assert.match(lines[0], /^flopcast: error: /);
  assert.match(lines[0], pattern);
}
const labels = new Set(['MEASURED', 'ESTIMATED', 'unavailable']);
function labelled(f) {
  assert.ok(f && labels.has(f.label), `a labelled figure, got ${JSON.stringify(f)}`);
  if (f.label === 'unavailable') assert.equal(f.value, null);
  else assert.equal(typeof f.value, 'number');
}

const tiny = join(tmp, 'tiny', 'config.json');
spawnSync('mkdir', ['-p', join(tmp, 'tiny')]);
writeFileSync(
  tiny,
  JSON.stringify({
    model_type: 'llama',
    hidden_size: 64,
    num_hidden_layers: 2,
    num_attention_heads: 4,
    num_key_value_heads: 2,
    intermediate_size: 128,
    vocab_size: 256,
    tie_word_embeddings: false,
  }),
);
const quick = ['--quick', '--repetitions', '2'];

test('a config.json: measured TTFT and TPOT beside the estimate, with the error', () => {
  const r = measureJson([tiny, '--prompt', '16', '--gen', '5', '--batch', '2', '--threads', '2', ...quick]);
  assert.equal(r.command, 'measure');
  assert.equal(r.model.layers, 2);
  assert.equal(r.run.batch_size, 2);
  assert.equal(r.run.prompt_tokens, 16);
  assert.equal(r.run.decode_steps, 4);
  assert.equal(r.run.threads, 2);
  for (const h of [r.ttft, r.tpot]) {
    assert.equal(h.measured.label, 'MEASURED');
    assert.ok(h.measured.value > 0);
    assert.equal(h.estimated.label, 'ESTIMATED');
    assert.ok(h.estimated.value > 0);
    assert.equal(h.error_pct, (100 * (h.estimated.value - h.measured.value)) / h.measured.value);
    assert.equal(h.calibrated.label, 'ESTIMATED');
    assert.equal(typeof h.calibrated_error_pct, 'number');
  }
  assert.equal(r.ttft.samples_s.length, 2);
  assert.equal(r.tpot.measured.samples, 8);
  for (const p of ['p50_s', 'p90_s', 'p95_s', 'p99_s']) labelled(r.tpot[p]);
  assert.equal(r.phases.decode.samples_s.length, 2);
  assert.equal(r.phases.decode.samples_s[0].length, 4);
  // Counted by the kernels = the analytical count, exactly.
  assert.equal(r.counts.prefill.counted.total, r.counts.prefill.estimated.total);
  assert.equal(r.counts.decode_first_step.counted.total, r.counts.decode_first_step.estimated.total);
  for (const c of r.comparison) {
    labelled(c.measured);
    labelled(c.estimated);
  }
  const energy = r.comparison.find((c) => c.metric === 'energy_j');
  assert.match(energy.estimated.note, /placeholder/);
  assert.equal(r.machine.tdp_watts.label, 'ESTIMATED');
  for (const k of ['copy', 'scale', 'add', 'triad', 'read']) labelled(r.machine.stream_bytes_per_s[k]);
  labelled(r.machine.bandwidth_bytes_per_s);
  labelled(r.machine.gemm_fp32_flops_per_s);
  assert.ok(r.calibration.compute_efficiency > 0 && r.calibration.compute_efficiency <= 1);
  assert.ok(r.calibration.mem_efficiency > 0 && r.calibration.mem_efficiency <= 1);
  assert.equal(r.kv_cache.layers.length, 2);
  assert.equal(r.kv_cache.growth_bytes_per_token.value, r.kv_cache.estimated_bytes_per_token.value);
  assert.deepEqual(
    r.tasks.map((t) => t.name),
    ['machine', 'generate', 'latency', 'throughput', 'kv_cache', 'estimate'],
  );
  for (const m of r.metrics) assert.ok(labels.has(m.label), JSON.stringify(m));
});

test('the table, CSV and the int8 KV cache', () => {
  const t = run([
    'measure',
    tiny,
    '--prompt',
    '8',
    '--gen',
    '3',
    '--kv-cache',
    'int8',
    '--precision',
    'bf16',
    ...quick,
  ]);
  assert.equal(t.code, 0, t.err);
  assert.equal(t.err, '');
  for (const s of [
    '| TTFT',
    '| TPOT (mean)',
    'estimate (peak)',
    'estimate (calibrated)',
    'calibration [MEASURED',
    'Layer 0   int8',
    'Compression vs fp16:',
  ])
    assert.ok(t.out.includes(s), `${s} in\n${t.out}`);
  const c = run(['measure', tiny, '--prompt', '8', '--gen', '3', '--csv', ...quick]);
  assert.equal(c.code, 0, c.err);
  const lines = c.out.trimEnd().split('\n');
  assert.equal(lines[0], 'task,metric,value,unit,label,stddev,samples,note');
  assert.ok(lines.some((l) => l.startsWith('latency,ttft_s,')));
  assert.ok(lines.some((l) => l.startsWith('estimate,error_pct_ttft_s,')));
});

test('a registry model truncated to its first layers', () => {
  const r = measureJson([
    'llama-3.2-1b',
    '--layers',
    '1',
    '--prompt',
    '8',
    '--gen',
    '3',
    '--precision',
    'int8',
    ...quick,
  ]);
  assert.equal(r.model.name, 'meta-llama/Llama-3.2-1B');
  assert.equal(r.model.layers, 1);
  assert.equal(r.model.layers_total, 16);
  assert.equal(r.model.parameters, 128256 * 2048 + 60821504 + 2048);
  assert.equal(r.run.weight_precision, 'int8');
  assert.equal(r.counts.prefill.counted.total, r.counts.prefill.estimated.total);
});

test('the issue example: llama-3.2-1b, 4 layers, prompt 128, 32 generated', { timeout: 300_000 }, () => {
  const r = measureJson(['llama-3.2-1b', '--layers', '4', '--prompt', '128', '--gen', '32']);
  assert.equal(r.model.layers, 4);
  assert.equal(r.run.decode_steps, 31);
  for (const h of [r.ttft, r.tpot]) {
    assert.equal(h.measured.label, 'MEASURED');
    assert.equal(h.estimated.label, 'ESTIMATED');
    assert.equal(typeof h.error_pct, 'number');
  }
  assert.equal(r.counts.prefill.counted.total, r.counts.prefill.estimated.total);
  assert.equal(r.counts.decode_first_step.counted.total, r.counts.decode_first_step.estimated.total);
});

test('bad input: one line on stderr, exit 2', () => {
  fails(['llama-3.2-1b', '--threads', '0'], /\(--threads\) expected an integer >= 1, but got 0/);
  fails(['llama-3.2-1b', '--threads', '-1'], /\(--threads\) expected an integer >= 1, but got -1/);
  fails(['llama-3.2-1b', '--threads', 'two'], /\(--threads\) expected an integer >= 1, but got "two"/);
  fails(['llama-3.2-1b', '--prompt', '0'], /\(--prompt\) expected an integer >= 1, but got 0/);
  fails(['llama-3.2-1b', '--gen', '0'], /\(--gen\) expected an integer >= 1, but got 0/);
  fails(['llama-3.2-1b', '--batch', '0'], /\(--batch\) expected an integer >= 1, but got 0/);
  fails(['llama-3.2-1b', '--layers', '0'], /\(--layers\) expected an integer >= 1, but got 0/);
  fails(['llama-3.2-1b', '--layers', '17'], /\(--layers\) expected an integer in \[1, 16\]/);
  fails(['llama-3.2-1b', '--precision', 'fp8'], /\(--precision\) expected fp32, bf16 or int8/);
  fails(['llama-3.2-1b', '--kv-cache', 'bf16'], /\(--kv-cache\) expected fp32 or int8/);
  fails(['llama-2-70b'], /\(MODEL\) the run needs .* of memory is available on this machine/);
  fails(['gpt2'], /\(MODEL\) the reference decoder runs Llama-style decoders .* model_type "gpt2"/);
  fails(['mixtral-8x7b', '--layers', '1'], /model_type "mixtral" has mixture-of-experts layers/);
  fails(['no-such-model'], /no-such-model/);
  fails([join(tmp, 'missing.json')], /cannot read/);
  fails(['llama-3.2-1b', '--json', '--csv'], /excludes/);
});
