// Beyond one GPU and one request: parallel layouts, serving throughput, calibration and
// ranges through the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-system-'));
// Every suite has its own calibration store: nothing the user stored can change a result here.
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');
const store = join(tmp, 'calibration.json');
const env = { ...process.env, FLOPCAST_CALIBRATION_FILE: store };

const run = (args) => {
  const r = spawnSync(bin, args, { encoding: 'utf8', env });
  return { code: r.status, out: r.stdout, err: r.stderr };
};
const json = (args) => {
  const r = run([...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
};
const fails = (args, pattern) => {
  const r = run(args);
  assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
  const lines = r.err.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.err);
  assert.match(lines[0], pattern);
};

test('Llama-2-70B fp16 on A100-80GB: TP=2 fits with an all-reduce time, TP=1 does not fit', () => {
  const two = json(['estimate', 'meta-llama/Llama-2-70b-hf', '-p', 'fp16', '-g', 'A100-80GB-SXM', '--tp', '2']);
  const p2 = two.details.parallelism;
  assert.equal(p2.total_gpus, 2);
  assert.equal(p2.fits_per_gpu, true);
  assert.ok(p2.per_gpu_memory_bytes < 80 * 2 ** 30);
  assert.ok(p2.tp_comm_s > 0);
  assert.ok(p2.prefill_latency_s > two.details.performance.prefill_latency_s / 2);
  const one = json(['estimate', 'meta-llama/Llama-2-70b-hf', '-p', 'fp16', '-g', 'A100-80GB-SXM', '--tp', '1']);
  assert.equal(one.details.parallelism.fits_per_gpu, false);
  assert.equal(one.details.memory.fits_on_gpu, false);
  assert.equal(one.details.parallelism.tp_comm_s, 0);
});

test('every latency and throughput figure has a range with its source', () => {
  const r = json(['estimate', 'llama-3-8b', '-g', 'H100']);
  const ranges = r.details.performance.ranges;
  for (const k of [
    'prefill_latency_s',
    'decode_latency_per_token_s',
    'total_request_latency_s',
    'energy_total_joules',
    'cost_usd',
  ]) {
    const [lo, hi] = ranges[k];
    const point = k === 'energy_total_joules' ? r.details.performance.energy_total_joules : r.details.performance[k];
    assert.ok(lo <= point && point <= hi, `${k}: ${lo} <= ${point} <= ${hi}`);
  }
  const [tlo, thi] = ranges.decode_tokens_per_second;
  assert.ok(
    tlo <= r.details.performance.decode_tokens_per_second && r.details.performance.decode_tokens_per_second <= thi,
  );
  assert.match(ranges.source, /PaLM|Megatron|Databricks/);
});

test('throughput: concurrency from the KV budget, tokens/s, TTFT, TPOT, $ per 1M tokens, speculative decoding', () => {
  const t = json(['throughput', 'llama-3-8b', '-g', 'A100', '--prompt', '512', '--output', '256']);
  assert.ok(t.max_concurrent_batch > 100);
  assert.equal(t.kv_bytes_per_sequence, 768 * 131072);
  assert.ok(t.tokens_per_second > 0 && t.requests_per_second > 0 && t.ttft_s > 0 && t.tpot_s > 0);
  assert.ok(Math.abs(t.cost_per_1m_tokens_usd - (1.79 / 3600 / t.tokens_per_second) * 1e6) < 1e-9);
  assert.ok(
    t.ranges.tokens_per_second[0] <= t.tokens_per_second && t.tokens_per_second <= t.ranges.tokens_per_second[1],
  );
  const spec = json([
    'throughput',
    'llama-3-8b',
    '-g',
    'H100',
    '--concurrency',
    '4',
    '--draft',
    'llama-3.2-1b',
    '--acceptance',
    '0.8',
  ]);
  assert.ok(Math.abs(spec.speculative.expected_tokens_per_step - (1 - 0.8 ** 5) / 0.2) < 1e-12);
  assert.ok(spec.speculative.speedup > 1);
  const big = json(['throughput', 'llama-2-70b', '-p', 'fp16', '-g', 'A100']);
  assert.equal(big.fits, false);
  assert.equal(json(['throughput', 'llama-2-70b', '-p', 'fp16', '-g', 'A100', '--tp', '4']).fits, true);
  assert.match(run(['throughput', 'llama-3-8b', '-g', 'A100']).out, /tokens\/s/);
});

test('calibrate: store, use, explicit args win, show, reset', () => {
  // No engine named: the A100's default engine (vLLM, issue 24) and its fitted efficiencies.
  const before = json(['estimate', 'llama-3-8b', '-g', 'A100', '-s', '512']);
  assert.equal(before.details.settings.mem_efficiency_origin, 'fitted');
  assert.equal(before.details.settings.engine, 'vllm');
  const stored = json(['calibrate', 'llama-3-8b', '-g', 'A100', '-s', '512', '--decode-tps', '80']);
  assert.equal(stored.entries.length, 1);
  assert.ok(existsSync(store));
  // The calibration (fitted on the plain roofline) applies, and no default engine is added to it.
  const after = json(['estimate', 'llama-3-8b', '-g', 'A100', '-s', '512']);
  assert.equal(after.details.settings.mem_efficiency_origin, 'calibrated');
  assert.equal(after.details.settings.engine, null);
  assert.ok(Math.abs(after.details.performance.decode_tokens_per_second - 80) < 1e-4);
  const explicit = json(['estimate', 'llama-3-8b', '-g', 'A100', '-s', '512', '--mem-efficiency', '0.8']);
  assert.equal(explicit.details.settings.mem_efficiency, 0.8);
  assert.equal(explicit.details.settings.mem_efficiency_origin, 'explicit');
  assert.equal(
    json(['estimate', 'llama-3-8b', '-g', 'A100', '-s', '512', '--no-calibration', '--engine', 'none']).details.settings
      .mem_efficiency,
    0.5 + 0.3,
  );
  const shown = JSON.parse(run(['calibrate', 'show', '--json']).out);
  assert.equal(shown.entries[0].gpu, 'A100-80GB-SXM');
  assert.match(run(['calibrate', 'show']).out, /A100-80GB-SXM/);
  // A CSV of measured rows.
  const csv = join(tmp, 'rows.csv');
  writeFileSync(
    csv,
    'model,gpu,precision,batch_size,sequence_length,decode_tokens_per_second\nmistral-7b,H100,bf16,1,512,120\nmistral-7b,H100,bf16,1,1024,110\n',
  );
  const fromFile = json(['calibrate', '--file', csv]);
  assert.equal(fromFile.entries.length, 1);
  assert.match(fromFile.entries[0].source, /geometric mean of 2 measured rows/);
  assert.equal(JSON.parse(readFileSync(store, 'utf8')).entries.length, 2);
  assert.equal(run(['calibrate', 'reset']).code, 0);
  assert.equal(existsSync(store), false);
});

test('bad input: one line, exit 2', () => {
  // Request-field errors are the shared fixture's (bad_inputs.test.mjs); these are command-level ones.
  fails(
    ['estimate', 'llama-3-8b', '--ep', '2'],
    /\(--ep, \/parallelism\/expert_parallel\) expected 1 for a dense model/,
  );
  fails(['throughput', 'bert-base'], /encoder-only/);
  fails(['throughput', 'llama-3-8b', '-g', 'none'], /\(--gpu, \/gpu\) expected a GPU: serving throughput needs one/);
  fails(
    ['calibrate', 'llama-3-8b', '-g', 'A100', '--decode-tps', '5000'],
    /\(--decode-tps, \/measured\/decode_tokens_per_second\) the measured figure is beyond the physical ceiling of this GPU \([\d.]+ tok\/s/,
  );
  fails(
    ['calibrate', 'llama-3-8b', '-g', 'A100'],
    /\(\/measured\) expected \{decode_tokens_per_second, time_to_first_token_s\}/,
  );
  const bad = join(tmp, 'bad.csv');
  writeFileSync(bad, 'model,gpu,decode_tokens_per_second\nnope,H100,100\n');
  fails(
    ['calibrate', '--file', bad],
    /bad\.csv:2: \[flopcast\.unknown_model\] \(MODEL, \/model\) unknown model "nope"/,
  );
});

test("calibrate --from-measure stores this machine's efficiencies and its spec", () => {
  const r = run([
    'calibrate',
    '--from-measure',
    'qwen2.5-0.5b',
    '--layers',
    '1',
    '--prompt',
    '32',
    '--gen',
    '4',
    '--json',
  ]);
  assert.equal(r.code, 0, r.err);
  const entry = JSON.parse(r.out).entries[0];
  assert.equal(entry.gpu, 'this-cpu');
  assert.equal(entry.model, '*');
  assert.ok(entry.compute_efficiency > 0 && entry.compute_efficiency <= 1);
  assert.ok(entry.mem_efficiency > 0 && entry.mem_efficiency <= 1);
  const specPath = `${store}.this-cpu.json`;
  assert.ok(existsSync(specPath));
  // Estimates on the measured machine now use the calibration.
  const e = json(['estimate', 'qwen2.5-0.5b', '-p', 'fp32', '--gpu-file', specPath]);
  assert.equal(e.details.settings.compute_efficiency_origin, 'calibrated');
  assert.equal(e.details.settings.compute_efficiency, entry.compute_efficiency);
  run(['calibrate', 'reset']);
});

test('a stored calibration is applied only from the chosen store, and the output says so', () => {
  const store = join(tmp, 'explicit-store.json');
  const plain = JSON.parse(spawnSync(bin, ['estimate', 'llama-3-8b', '--json'], { encoding: 'utf8' }).stdout);
  writeFileSync(
    store,
    JSON.stringify({
      entries: [{ model: '*', gpu: plain.gpu, precision: 'bf16', mem_efficiency: 0.5, source: 'test' }],
    }),
  );
  const r = spawnSync(bin, ['estimate', 'llama-3-8b', '--json', '--calibration', store], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  const cal = JSON.parse(r.stdout);
  assert.equal(cal.details.settings.calibration_store, store);
  assert.equal(cal.details.settings.mem_efficiency, 0.5);
  assert.equal(plain.details.settings.calibration_store, null);
  assert.notEqual(
    cal.details.performance.decode_latency_per_token_s,
    plain.details.performance.decode_latency_per_token_s,
  );
  const text = spawnSync(bin, ['estimate', 'llama-3-8b', '--calibration', store], { encoding: 'utf8' }).stdout;
  assert.match(
    text,
    new RegExp(`calibrated efficiencies applied from ${store.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`),
  );
  const off = spawnSync(bin, ['estimate', 'llama-3-8b', '--json', '--calibration', store, '--no-calibration'], {
    encoding: 'utf8',
  });
  assert.deepEqual(JSON.parse(off.stdout).details.performance, plain.details.performance);
  const missing = spawnSync(bin, ['estimate', 'llama-3-8b', '--calibration', join(tmp, 'nope.json')], {
    encoding: 'utf8',
  });
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /\(--calibration\) cannot read .*nope\.json/);
});
