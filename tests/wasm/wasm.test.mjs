// The WebAssembly module through the same JS API the web UI uses: parity with the native
// CLI, errors, memory, types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, cli, root, wasmDir } from './load.mjs';

const { fc, FlopcastError } = await load();
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-wasm-'));

function runCli(args) {
  const r = spawnSync(cli, args, { encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

// A deterministic generator of varied inputs: the same request as CLI arguments and as a
// JS request object.
function* cases(count) {
  let seed = 12345;
  const rand = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  const pick = (xs) => xs[Math.floor(rand() * xs.length)];
  const models = fc.listModels();
  const gpus = fc
    .listGpus()
    .map((g) => g.name)
    .concat(['none', 'A100', 'H100']);
  const precisions = fc.precisions();
  for (let i = 0; i < count; i++) {
    const m = models[i % models.length];
    const training = rand() < 0.25;
    const req = {
      model: rand() < 0.5 ? m.id : m.aliases[0],
      batch_size: pick([1, 2, 3, 8, 32, 256]),
      sequence_length: pick([1, 17, 128, 512, 2048, 8192, 32768]),
      num_generated_tokens: pick([0, 1, 2, 64, 500]),
      precision: training ? pick(['fp32', 'tf32', 'fp16', 'bf16']) : pick(precisions),
      gpu: pick(gpus),
      training,
    };
    const args = [
      'estimate',
      req.model,
      '-b',
      req.batch_size,
      '-s',
      req.sequence_length,
      '-n',
      req.num_generated_tokens,
      '-p',
      req.precision,
      '-g',
      req.gpu,
    ];
    if (training) {
      args.push('--training');
      req.optimizer = pick(fc.optimizers());
      args.push('--optimizer', req.optimizer);
      if (rand() < 0.5) {
        req.gradient_checkpointing = false;
        args.push('--no-checkpointing');
      }
    }
    if (rand() < 0.3) {
      req.causal = true;
      args.push('--causal');
    }
    if (rand() < 0.2) {
      req.flash_attention = false;
      args.push('--no-flash-attention');
    }
    if (rand() < 0.2) {
      req.kv_cache_precision = pick(['fp16', 'fp8', 'int8', 'int4']);
      args.push('--kv-precision', req.kv_cache_precision);
    }
    if (rand() < 0.3) {
      req.compute_efficiency = pick([0.3, 0.55, 1]);
      args.push('--compute-efficiency', req.compute_efficiency);
    }
    if (rand() < 0.3) {
      req.mem_efficiency = pick([0.6, 0.95]);
      args.push('--mem-efficiency', req.mem_efficiency);
    }
    if (rand() < 0.2) {
      req.power_utilization = pick([0.5, 1]);
      args.push('--power-utilization', req.power_utilization);
    }
    if (rand() < 0.2) {
      req.carbon_intensity = pick([0, 50, 700]);
      args.push('--carbon-intensity', req.carbon_intensity);
    }
    if (rand() < 0.2) {
      req.cost_per_hour = pick([0.5, 12.25]);
      args.push('--cost-per-hour', req.cost_per_hour);
    }
    if (req.gpu === 'none') req.gpu = null;
    yield { req, args: [...args.map(String), '--json'] };
  }
}

test('WASM results equal the native CLI JSON over 240 varied inputs', () => {
  let n = 0;
  for (const { req, args } of cases(240)) {
    const native = runCli(args);
    assert.equal(native.code, 0, `${args.join(' ')}: ${native.err}`);
    assert.deepStrictEqual(fc.estimate(req), JSON.parse(native.out), args.join(' '));
    n++;
  }
  assert.equal(n, 240);
});

test('inline config.json objects and custom GPUs match the CLI reading the same files', () => {
  const dir = join(tmp, 'my-model');
  mkdirSync(dir);
  for (const alias of [
    'llama-3-8b',
    'mixtral-8x7b',
    'deepseek-v2-lite',
    't5-small',
    'bert-base',
    'gemma-2-9b',
    'falcon-7b',
  ]) {
    const config = JSON.parse(readFileSync(join(root, 'data/models', `${alias}.json`), 'utf8')).config;
    writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
    const gpu = {
      name: 'Chip',
      memory_bytes: 48e9,
      memory_bandwidth_bytes_per_s: 1.5e12,
      tdp_watts: 250,
      peak_flops: { fp32: 40e12, bf16: 300e12, fp8: 600e12 },
      cost_per_hour_usd: 2,
    };
    writeFileSync(join(tmp, 'chip.json'), JSON.stringify(gpu));
    const native = runCli([
      'estimate',
      join(dir, 'config.json'),
      '--gpu-file',
      join(tmp, 'chip.json'),
      '-b',
      '3',
      '--json',
    ]);
    assert.equal(native.code, 0, native.err);
    const a = fc.estimate({ model: config, gpu, batch_size: 3 });
    const b = JSON.parse(native.out);
    delete a.model; // the CLI names an inline model by its folder
    delete b.model;
    assert.deepStrictEqual(a, b, alias);
  }
});

test('compare equals `flopcast compare --json`', () => {
  const req = {
    model: ['llama-3-8b', 'qwen3-30b-a3b', 'bert-base'],
    batch_size: [1, 16],
    precision: ['bf16', 'int4'],
    gpu: ['A100', 'L4'],
  };
  const native = runCli([
    'compare',
    'llama-3-8b',
    'qwen3-30b-a3b',
    'bert-base',
    '-b',
    '1,16',
    '-p',
    'bf16,int4',
    '-g',
    'A100,L4',
    '--json',
  ]);
  assert.equal(native.code, 0, native.err);
  const rows = fc.compare(req);
  assert.equal(rows.length, 24);
  assert.deepStrictEqual(rows, JSON.parse(native.out));
});

test('sweep values equal compare rows, NaN where a figure does not apply', () => {
  const req = {
    model: ['llama-3-8b', 'bert-base'],
    batch_size: [1, 4, 64],
    sequence_length: [128, 4096],
    gpu: ['H100', null],
  };
  const rows = fc.compare(req);
  let progress = [];
  const s = fc.sweep(req, { chunk: 5, onProgress: (done, total) => progress.push([done, total]) });
  assert.equal(s.count, rows.length);
  assert.deepEqual(progress.at(-1), [rows.length, rows.length]);
  assert.ok(progress.length >= 4);
  rows.forEach((row, i) => {
    s.fields.forEach((f, j) => {
      const v = s.values[i * s.fields.length + j];
      const expected =
        row[f] === null
          ? NaN
          : typeof row[f] === 'boolean'
            ? Number(row[f])
            : f === 'prefill_bound'
              ? Number(row[f] === 'compute')
              : row[f];
      assert.ok(Object.is(v, expected) || v === expected, `${f} of row ${i}: ${v} vs ${expected}`);
    });
  });
  const part = fc.sweep(req, { offset: 5, count: 3 });
  assert.deepEqual(Array.from(part.values), Array.from(s.values.slice(5 * s.fields.length, 8 * s.fields.length)));
});

test('errors are FlopcastError with the CLI message, and the module keeps working', () => {
  const bad = [
    [{ model: 'lama-3-8b' }, ['estimate', 'lama-3-8b'], 'unknown_model'],
    [{ model: 'llama-3-8b', batch_size: 0 }, ['estimate', 'llama-3-8b', '-b', '0'], 'config.range'],
    [{ model: 'llama-3-8b', precision: 'fp12' }, ['estimate', 'llama-3-8b', '-p', 'fp12'], 'unknown_precision'],
    [{ model: 'llama-3-8b', gpu: 'H1000' }, ['estimate', 'llama-3-8b', '-g', 'H1000'], 'unknown_gpu'],
    [
      { model: 'llama-3-8b', compute_efficiency: 1.5 },
      ['estimate', 'llama-3-8b', '--compute-efficiency', '1.5'],
      'config.range',
    ],
    [
      { model: 'llama-3-8b', training: true, precision: 'int4' },
      ['estimate', 'llama-3-8b', '--training', '-p', 'int4'],
      'invalid_argument',
    ],
  ];
  for (const [req, args, code] of bad) {
    let caught;
    try {
      fc.estimate(req);
    } catch (e) {
      caught = e;
    }
    assert.ok(caught instanceof FlopcastError, JSON.stringify(req));
    assert.ok(caught instanceof Error);
    assert.equal(caught.code, code);
    const native = runCli(args);
    assert.equal(native.code, 2);
    // The same text after the field on both paths (the CLI adds its option's name).
    const body = (m) =>
      m
        .replace(/^flopcast: error: /, '')
        .replace(/^\[[^\]]+\] (\([^)]*\) )?/, '')
        .trim();
    // ... and, for an unknown model or GPU, where to look: the CLI's commands, not the API's.
    const hint = / \(flopcast list-(models|gpus) shows all[^)]*\)$/;
    if (code.startsWith('unknown_') && code !== 'unknown_precision') assert.match(body(native.err), hint);
    assert.doesNotMatch(caught.message, /flopcast list-|--gpu-file/);
    assert.equal(body(caught.message), body(native.err).replace(hint, ''), JSON.stringify(req));
    assert.equal(fc.estimate({ model: 'llama-3-8b' }).parameters, 8030261248);
  }
  // Config errors name the field under /model.
  assert.throws(() => fc.estimate({ model: { model_type: 'llama', hidden_size: '4096' } }), {
    name: 'FlopcastError',
    code: 'config.type',
    pointer: '/model/hidden_size',
    message:
      '[flopcast.config.type] (/model/hidden_size) expected a positive integer (at most 2^30), but got string "4096"',
  });
  assert.throws(() => fc.estimate({ model: 'llama-3-8b', batch_size: NaN }), {
    code: 'invalid_argument',
    pointer: '/batch_size',
  });
  assert.throws(() => fc.estimate({ model: 'llama-3-8b', sequence_length: Infinity }), { pointer: '/sequence_length' });
  assert.throws(() => fc.estimate({ model: 'llama-3-8b', batch_size: '8' }), { code: 'config.type' });
  assert.throws(() => fc.estimate(null), FlopcastError);
  assert.throws(() => fc.estimate('{not json'), { code: 'config.parse' });
  assert.throws(() => fc.compare({ model: [] }), { pointer: '/model', message: /non-empty list/ });
  assert.throws(() => fc.estimate({ model: ['llama-3-8b'] }), { code: 'config.type', pointer: '/model' });
  assert.throws(
    () =>
      fc.compare({
        model: 'gpt2',
        batch_size: Array.from({ length: 400 }, (_, i) => i + 1),
        sequence_length: Array.from({ length: 300 }, (_, i) => i + 1),
      }),
    { message: /120000 combinations: expected at most 100000/ },
  );
});

test('memory does not grow over 100,000 calls', () => {
  const req = JSON.stringify({ model: 'mixtral-8x7b', batch_size: 8, gpu: 'H100' });
  for (let i = 0; i < 2000; i++) {
    fc.estimate(req);
    try {
      fc.estimate({ model: 'nope' });
    } catch {}
  }
  const before = fc.heapUsed();
  for (let i = 0; i < 100000; i++) {
    if (i % 10 === 0) {
      try {
        fc.estimate({ model: 'llama-3-8b', batch_size: -1 });
      } catch {}
    } else fc.estimate(req);
  }
  const after = fc.heapUsed();
  assert.ok(after - before < 64 * 1024, `heap grew by ${after - before} bytes`);
});

test('defaults and lists come from the core', () => {
  const d = fc.defaults();
  assert.equal(d.settings.batch_size, 1);
  assert.equal(d.settings.sequence_length, 2048);
  assert.equal(d.settings.num_generated_tokens, 128);
  assert.equal(d.settings.precision, 'bf16');
  assert.equal(d.settings.gpu, 'A100-80GB-SXM');
  assert.equal(d.settings.compute_efficiency, 0.5);
  // Every format of the core's table, in its order, the CLI's list included.
  const formats = fc.precisions();
  assert.deepEqual(formats.slice(0, 7), ['fp32', 'tf32', 'fp16', 'bf16', 'fp8', 'int8', 'int4']);
  assert.ok(formats.includes('nvfp4') && formats.includes('q4_k_m') && formats.includes('mxfp4'));
  assert.deepEqual(
    formats,
    d.precisions.map((p) => p.name),
  );
  assert.deepEqual(fc.optimizers(), ['adam', 'adamw', 'sgd', 'none']);
  const native = JSON.parse(runCli(['list-models', '--json']).out);
  assert.deepStrictEqual(fc.listModels(), native);
  assert.deepStrictEqual(fc.listGpus(), JSON.parse(runCli(['list-gpus', '--json']).out));
  assert.equal(fc.version(), runCli(['--version']).out.trim().replace('flopcast ', ''));
});

test('the .d.ts types the API (tsc --noEmit)', () => {
  const file = join(tmp, 'use.ts');
  writeFileSync(
    file,
    `
import createFlopcast, { FlopcastError, type EstimateResult, type CompareRow } from ${JSON.stringify(join(wasmDir, 'flopcast.js'))};
async function main(): Promise<number> {
  const fc = await createFlopcast({ wasmBinary: new Uint8Array(0) });
  const r: EstimateResult = fc.estimate({ model: 'llama-3-8b', batch_size: 4, gpu: 'H100', precision: 'int4' });
  const rows: CompareRow[] = fc.compare({ model: ['gpt2'], batch_size: [1, 2], gpu: [null, 'A100'] });
  const s = fc.sweep({ model: 'gpt2' }, { onProgress: (done: number, total: number) => void (done / total) });
  const perf = r.details.performance;
  try { fc.estimate({ model: { model_type: 'llama' } }); } catch (e) { if (e instanceof FlopcastError) return e.code.length; }
  return r.parameters + (perf ? perf.prefill_latency_s : 0) + rows.length + s.values.length + fc.defaults().max_compare_rows;
}
void main;
`,
  );
  const bad = join(tmp, 'bad.ts');
  writeFileSync(
    bad,
    `
import createFlopcast from ${JSON.stringify(join(wasmDir, 'flopcast.js'))};
async function main() { const fc = await createFlopcast(); const n: string = fc.estimate({ model: 'x', batch_size: 'four' }).parameters; return n; }
void main;
`,
  );
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  const opts = ['--noEmit', '--strict', '--target', 'es2022', '--module', 'nodenext', '--moduleResolution', 'nodenext'];
  const ok = spawnSync(process.execPath, [tsc, ...opts, file], { encoding: 'utf8' });
  assert.equal(ok.status, 0, ok.stdout + ok.stderr);
  const ko = spawnSync(process.execPath, [tsc, ...opts, bad], { encoding: 'utf8' });
  assert.notEqual(ko.status, 0, 'tsc must reject a wrong call');
  assert.match(ko.stdout, /batch_size|Type 'number' is not assignable to type 'string'/);
});

test('throughput, training analysis and calibration equal the CLI', () => {
  const t = fc.throughput({
    model: 'llama-3-8b',
    gpu: 'H100',
    precision: 'bf16',
    serving: { prompt_tokens: 1024, output_tokens: 128, concurrency: 32 },
  });
  const tc = JSON.parse(
    runCli([
      'throughput',
      'llama-3-8b',
      '-g',
      'H100',
      '--prompt',
      '1024',
      '--output',
      '128',
      '--concurrency',
      '32',
      '--no-calibration',
      '--json',
    ]).out,
  );
  assert.deepStrictEqual(t, tc);
  const tr = fc.train({ model: 'llama-3-8b', gpu: 'A100', batch_size: 2, sequence_length: 1024 });
  const trc = JSON.parse(runCli(['train', 'llama-3-8b', '-g', 'A100', '-b', '2', '-s', '1024', '--json']).out);
  assert.deepStrictEqual(tr, trc);
  const cal = fc.calibrate({
    model: 'llama-3-8b',
    gpu: 'A100',
    sequence_length: 512,
    measured: { decode_tokens_per_second: 80 },
  });
  assert.equal(cal.entries.length, 1);
  const calibrated = fc.estimate({ model: 'llama-3-8b', gpu: 'A100', sequence_length: 512, calibration: cal.entries });
  assert.ok(Math.abs(calibrated.details.performance.decode_tokens_per_second - 80) < 1e-4);
  assert.equal(calibrated.details.settings.mem_efficiency_origin, 'calibrated');
  const par = fc.estimate({
    model: 'meta-llama/Llama-2-70b-hf',
    precision: 'fp16',
    gpu: 'A100-80GB-SXM',
    parallelism: { tensor_parallel: 2 },
  });
  assert.deepStrictEqual(
    par,
    JSON.parse(
      runCli([
        'estimate',
        'meta-llama/Llama-2-70b-hf',
        '-p',
        'fp16',
        '-g',
        'A100-80GB-SXM',
        '--tp',
        '2',
        '--no-calibration',
        '--json',
      ]).out,
    ),
  );
  assert.throws(() => fc.throughput({ model: 'llama-3-8b', serving: { concurrency: 0 } }), {
    pointer: '/serving/concurrency',
  });
});

// estimate() parses `details` when first read: the result must behave as the plain parse of the
// core's JSON does (same keys in the same order, stringify, spread, structured clone, assignment).
test('estimate() details read lazily are the whole parsed result', () => {
  const request = { model: 'mixtral-8x7b', gpu: 'H100', batch_size: 3, operator_table: true };
  const full = JSON.parse(
    runCli(['estimate', 'mixtral-8x7b', '--gpu', 'H100', '-b', '3', '--operators', '--json']).out,
  );
  const r = fc.estimate(request);
  assert.deepEqual(Object.keys(r), Object.keys(full));
  assert.equal(Object.keys(r).at(-1), 'details');
  assert.deepEqual(JSON.parse(JSON.stringify(fc.estimate(request))), full);
  assert.deepEqual({ ...fc.estimate(request) }.details, full.details);
  assert.deepEqual(structuredClone(fc.estimate(request)), full);
  assert.deepEqual(r.details.operators, full.details.operators);
  assert.equal(r.details, r.details); // parsed once, then a plain property
  r.details = 'replaced';
  assert.equal(r.details, 'replaced');
  // a model name holding the key's text does not move the split point
  const named = fc.estimate({
    model: {
      _name_or_path: 'x,"details":{',
      model_type: 'llama',
      hidden_size: 64,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      intermediate_size: 128,
      vocab_size: 100,
    },
  });
  assert.equal(named.model, 'x,"details":{');
  assert.equal(named.details.config.hidden_size, 64);
});
