// simulate() through WASM: the same numbers as `flopcast serve --json` for the same request
// (closed-loop curve with an engine and uniform lengths, Poisson rates, a trace given as JSON to
// WASM and as a CSV file to the CLI), and errors with the field's pointer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, cli } from './load.mjs';

const { fc, FlopcastError } = await load();

function serve(args) {
  const r = spawnSync(cli, ['serve', ...args, '--no-calibration', '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
}

test('simulate() equals flopcast serve --json: a closed-loop curve with an engine and uniform lengths', () => {
  const w = fc.simulate({
    model: 'llama-3-8b',
    gpu: 'H100',
    engine: 'vllm',
    simulation: {
      concurrency: [1, 4, 32],
      num_requests: 64,
      input_tokens_range: [128, 1024],
      output_tokens_range: [16, 64],
      seed: 7,
      slo_ttft_s: 0.05,
      slo_tpot_s: 0.01,
    },
  });
  const c = serve([
    'llama-3-8b',
    '--gpu',
    'H100',
    '--engine',
    'vllm',
    '--concurrency',
    '1,4,32',
    '--num-requests',
    '64',
    '--isl-range',
    '128:1024',
    '--osl-range',
    '16:64',
    '--seed',
    '7',
    '--slo-ttft',
    '0.05',
    '--slo-tpot',
    '0.01',
  ]);
  assert.equal(w.points.length, 3);
  assert.deepStrictEqual(w, c);
});

test('simulate() equals flopcast serve --json: Poisson rates, scheduler overrides', () => {
  const w = fc.simulate({
    model: 'qwen2.5-7b',
    gpu: 'A100',
    simulation: {
      request_rate: [0.5, 4],
      num_requests: 40,
      input_tokens: 512,
      output_tokens: 32,
      max_num_seqs: 16,
      max_num_batched_tokens: 1024,
      policy: 'prefill_first',
      warmup_requests: 4,
    },
  });
  const c = serve([
    'qwen2.5-7b',
    '--gpu',
    'A100',
    '--request-rate',
    '0.5,4',
    '--num-requests',
    '40',
    '--isl',
    '512',
    '--osl',
    '32',
    '--max-num-seqs',
    '16',
    '--max-num-batched-tokens',
    '1024',
    '--policy',
    'prefill_first',
    '--warmup',
    '4',
  ]);
  assert.equal(w.points[1].request_rate, 4);
  assert.equal(w.points[0].measured_requests, 36);
  assert.deepStrictEqual(w, c);
});

test('simulate() of a trace equals flopcast serve --trace FILE.csv', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flopcast-sim-'));
  try {
    const trace = [
      { arrival_s: 0, input_tokens: 100, output_tokens: 20 },
      { arrival_s: 0.05, input_tokens: 2000, output_tokens: 5 },
      { arrival_s: 0.05, input_tokens: 300, output_tokens: 40 },
      { arrival_s: 1.5, input_tokens: 64, output_tokens: 64 },
    ];
    const file = join(dir, 'trace.csv');
    writeFileSync(
      file,
      'input_tokens,arrival_s,output_tokens\n' +
        trace.map((t) => `${t.input_tokens},${t.arrival_s},${t.output_tokens}`).join('\n') +
        '\n',
    );
    const w = fc.simulate({ model: 'llama-3-8b', gpu: 'L4', simulation: { trace } });
    const c = serve(['llama-3-8b', '--gpu', 'L4', '--trace', file]);
    assert.equal(w.workload.arrivals, 'trace');
    assert.equal(w.points[0].requests, 4);
    assert.deepStrictEqual(w, c);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('simulate() errors name the field by its JSON pointer', () => {
  const cases = [
    [{ concurrency: [4, 0] }, 'config.range', '/simulation/concurrency/1'],
    [{ arrivals: 'poisson' }, 'config.missing', '/simulation/request_rate'],
    [{ input_tokens_range: [9, 3] }, 'config.range', '/simulation/input_tokens_range/1'],
    [{ trace: [{ arrival_s: 0, input_tokens: 1 }] }, 'config.missing', '/simulation/trace/0/output_tokens'],
  ];
  for (const [simulation, code, pointer] of cases)
    assert.throws(
      () => fc.simulate({ model: 'llama-3-8b', gpu: 'H100', simulation }),
      (e) => e instanceof FlopcastError && e.code === code && e.pointer === pointer,
      JSON.stringify(simulation),
    );
  assert.throws(() => fc.simulate({ model: 'llama-3-8b', gpu: null }), { pointer: '/gpu' });
});
