// Tests of the native CLI as users run it: the real binary, real files, exit codes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-cli-'));
// Every suite has its own calibration store: nothing the user stored can change a result here.
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

function run(args, opts = {}) {
  const r = spawnSync(bin, args, { encoding: 'utf8', cwd: opts.cwd ?? tmp });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function json(args) {
  const r = run([...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}
// A bad input: exit 2, exactly one line on stderr, nothing on stdout.
function fails(args, pattern) {
  const r = run(args);
  assert.equal(r.code, 2, `exit code for ${args.join(' ')}: ${r.err}`);
  assert.equal(r.out, '');
  const lines = r.err.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${r.err}`);
  assert.match(lines[0], /^flopcast: error: /);
  assert.match(lines[0], pattern);
  return lines[0];
}
function execJson(args) {
  const r = run([...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}

test('the foundation example: Llama-3-8B on A100 with llm-flops keys', () => {
  const r = json([
    'estimate',
    'meta-llama/Meta-Llama-3-8B',
    '-b',
    '4',
    '-s',
    '2048',
    '-p',
    'bf16',
    '-g',
    'A100',
    '--layer-table',
    '--engine', // the plain roofline (with no engine named the A100 runs vLLM's fit, issue 24)
    'none',
  ]);
  const keys = [
    'parameters',
    'active_parameters',
    'forward_flops',
    'backward_flops',
    'attention_flops',
    'mlp_flops',
    'embedding_flops',
    'layernorm_flops',
    'output_head_flops',
    'memory',
    'kv_cache',
    'latency',
    'energy',
    'model',
    'precision',
    'gpu',
    'batch_size',
    'sequence_length',
    'details',
  ];
  for (const k of keys) assert.ok(k in r, `missing ${k}`);
  assert.equal(r.parameters, 8030261248);
  assert.equal(r.gpu, 'A100-80GB-SXM');
  assert.equal(r.batch_size, 4);
  assert.equal(r.backward_flops, 2 * r.forward_flops);
  const d = r.details;
  assert.equal(d.flops.layers.length, 32);
  // Without --layer-table the output does not grow with depth.
  assert.equal(json(['estimate', 'meta-llama/Meta-Llama-3-8B']).details.flops.layers, null);
  assert.equal(
    d.flops.layers.reduce((s, l) => s + l.total, 0) +
      r.output_head_flops +
      r.embedding_flops +
      (r.layernorm_flops - d.flops.layers.reduce((s, l) => s + l.layernorm, 0)),
    r.forward_flops,
  );
  for (const k of ['qkv_projection', 'attention_scores', 'softmax', 'attention_values', 'output_projection'])
    assert.ok(d.flops.forward_attention_detail[k] > 0, k);
  assert.equal(typeof d.memory.fits_on_gpu, 'boolean');
  for (const k of [
    'prefill_latency_s',
    'prefill_bound',
    'decode_latency_per_token_s',
    'decode_tokens_per_second',
    'total_request_latency_s',
    'energy_total_joules',
    'energy_total_wh',
    'energy_total_kwh',
    'co2_grams',
    'cost_usd',
  ])
    assert.ok(k in d.performance, k);
  assert.equal(d.performance.energy_total_wh * 3600, d.performance.energy_total_joules);
  assert.equal(d.settings.compute_efficiency, 0.5);
  assert.equal(r.latency, d.performance.prefill_latency_s);
});

test('works from any folder: the registry is compiled in', () => {
  const r = run(['estimate', 'llama-3-8b', '--json'], { cwd: '/' });
  assert.equal(r.code, 0, r.err);
  assert.equal(JSON.parse(r.out).parameters, 8030261248);
});

test('a config.json path gives the same answer as the registry', () => {
  const record = JSON.parse(readFileSync(join(root, 'data/models/llama-3-8b.json'), 'utf8'));
  const dir = mkdtempSync(join(tmp, 'model-'));
  const path = join(dir, 'config.json');
  writeFileSync(path, JSON.stringify(record.config, null, 2));
  const fromFile = json(['estimate', path, '-b', '2']);
  const fromRegistry = json(['estimate', 'llama-3-8b', '-b', '2']);
  assert.equal(fromFile.model, dir);
  delete fromFile.model;
  delete fromRegistry.model;
  assert.deepEqual(fromFile, fromRegistry);
});

test('human report names parameters, FLOPs, memory, fit, latency with bound, decode, energy', () => {
  const r = run(['estimate', 'mistral-7b', '-g', 'H100']);
  assert.equal(r.code, 0, r.err);
  for (const re of [
    /Parameters\s+: 7\.24B\s+\(7,241,732,096\)/,
    /Forward\s+: [\d.]+ TFLOP/,
    /kv cache/,
    /Fits on GPU\s+: yes/,
    /Prefill latency\s+: [\d.]+ ms\s+\[(compute|memory)-bound\]/,
    /Decode\/token\s+: [\d.]+ ms\s+\([\d.]+ tok\/s/,
    /Energy\s+: [\d.]+ J/,
  ])
    assert.match(r.out, re);
});

test('bad input: one clear line on stderr and exit 2', () => {
  // The request fields' errors are the shared fixture's (bad_inputs.test.mjs); these are the CLI's own.
  fails(
    ['estimate', 'lama-3-8b'],
    /\(MODEL, \/model\) unknown model "lama-3-8b": expected a registry model name or alias; did you mean "llama-3-8b"/,
  );
  fails(
    ['estimate', 'llama-3-8b', '-b', '0'],
    /\(--batch, \/batch_size\) expected a positive integer \(at most 2\^40\), but got 0$/,
  );
  fails(['estimate', 'llama-3-8b', '-s', 'many'], /\(--seq-len, \/sequence_length\) .* but got string "many"$/);
  fails(
    ['estimate', join(tmp, 'missing', 'config.json')],
    /\(MODEL, \/model\) cannot read ".*missing\/config\.json": No such file or directory/,
  );
  fails(['estimate', 'llama-3-8b', '--bogus'], /--bogus/);
  fails(['frobnicate'], /frobnicate/);
});

test('malformed and invalid config.json files are rejected with the field named', () => {
  const dir = mkdtempSync(join(tmp, 'bad-'));
  const broken = join(dir, 'broken.json');
  writeFileSync(broken, '{"model_type": "llama", "hidden_size": 4096,');
  fails(
    ['estimate', broken],
    /\[flopcast\.config\.parse\] \(MODEL, \/model\) config\.json is not valid JSON: .* in .*broken\.json$/,
  );
  const wrong = join(dir, 'wrong.json');
  writeFileSync(wrong, JSON.stringify({ model_type: 'llama', hidden_size: '4096', num_hidden_layers: 2 }));
  fails(
    ['estimate', wrong],
    /\(MODEL, \/model\/hidden_size\) expected a positive integer \(at most 2\^30\), but got string "4096" in .*wrong\.json$/,
  );
  const unknown = join(dir, 'rwkv.json');
  writeFileSync(unknown, JSON.stringify({ model_type: 'rwkv' }));
  fails(['estimate', unknown], /unsupported model_type "rwkv": supported are llama, mistral, .*mamba/);
  const gpu = join(dir, 'gpu.json');
  writeFileSync(gpu, JSON.stringify({ name: 'X', memory_bytes: -1 }));
  fails(
    ['estimate', 'gpt2', '--gpu-file', gpu],
    /\(--gpu-file, \/gpu\/memory_bytes\) expected a number of bytes in \[1000000, 1e\+15\], but got -1 in .*gpu\.json$/,
  );
});

test('a custom accelerator from --gpu-file', () => {
  const path = join(tmp, 'chip.json');
  writeFileSync(
    path,
    JSON.stringify({
      name: 'MyChip',
      memory_bytes: 32e9,
      memory_bandwidth_bytes_per_s: 1e12,
      tdp_watts: 200,
      peak_flops: { bf16: 100e12, fp32: 25e12 },
      cost_per_hour_usd: 1,
    }),
  );
  const r = json(['estimate', 'llama-3-8b', '--gpu-file', path]);
  assert.equal(r.gpu, 'MyChip');
  assert.equal(r.details.performance.peak_flops_per_s, 100e12);
  assert.equal(r.details.memory.gpu_memory, 32e9);
});

test('-g none skips latency and energy', () => {
  const r = json(['estimate', 'gpt2', '-g', 'none', '-s', '1024']);
  assert.equal(r.gpu, null);
  assert.equal(r.latency, null);
  assert.equal(r.details.performance, null);
  assert.equal(r.details.memory.fits_on_gpu, null);
});

test('training mode reports weights, gradients, optimizer state and activations', () => {
  const r = json(['estimate', 'llama-2-7b', '--training', '--optimizer', 'adamw', '-s', '1024']);
  const t = r.details.memory.training;
  assert.equal(t.weights + t.gradients + t.optimizer_state, 16 * 6738415616);
  assert.equal(r.memory, t.total);
  assert.ok(r.details.performance.training_step_s > 0);
});

test('compare: the Cartesian product, a row each, varying columns in the table', () => {
  const rows = json(['compare', 'llama-3-8b', 'mistral-7b', '-b', '1,8', '-p', 'bf16,int4', '-g', 'A100']);
  assert.equal(rows.length, 8);
  assert.deepEqual(rows.map((r) => [r.model.split('/')[1], r.precision, r.batch_size]).slice(0, 4), [
    ['Meta-Llama-3-8B', 'bf16', 1],
    ['Meta-Llama-3-8B', 'bf16', 8],
    ['Meta-Llama-3-8B', 'int4', 1],
    ['Meta-Llama-3-8B', 'int4', 8],
  ]);
  const single = json(['estimate', 'mistral-7b', '-b', '8', '-p', 'int4', '-g', 'A100']);
  const row = rows[7];
  assert.equal(row.memory, single.memory);
  assert.equal(row.prefill_latency_s, single.latency);

  const csv = run(['compare', 'gpt2', '-s', '128,256,512', '--csv']);
  assert.equal(csv.code, 0, csv.err);
  const lines = csv.out.trimEnd().split('\n');
  assert.equal(lines.length, 4);
  assert.match(lines[0], /^model,precision,gpu,batch_size,sequence_length,/);

  const table = run(['compare', 'gpt2', 'opt-125m', '-b', '1,4']);
  assert.equal(table.code, 0, table.err);
  const header = table.out.split('\n')[0];
  assert.match(header, /^model\s+batch\s+params/);
  assert.doesNotMatch(header, /precision|gpu/);
  assert.equal(table.out.trimEnd().split('\n').length, 2 + 4);
  fails(
    ['compare', 'gpt2', '-b', '1,x'],
    /\(--batch, \/batch_size\/1\) expected a positive integer .* but got string "x"/,
  );
});

test('single estimate as CSV uses the same row schema', () => {
  const r = run(['estimate', 'qwen2.5-7b', '--csv']);
  assert.equal(r.code, 0, r.err);
  const [head, row, ...rest] = r.out.trimEnd().split('\n');
  assert.equal(rest.length, 0);
  assert.equal(head.split(',').length, row.split(',').length);
  assert.match(row, /^Qwen\/Qwen2\.5-7B,bf16,A100-80GB-SXM,1,2048,128,7615616512,/);
});

test('unknown model or GPU: the CLI adds where to look (the core’s message does not)', () => {
  fails(
    ['estimate', 'nope-model'],
    /unknown model "nope-model": .*\(flopcast list-models shows all; a path to a config\.json also works\)$/,
  );
  fails(
    ['estimate', 'llama-3-8b', '-g', 'nope'],
    /\(--gpu, \/gpu\) unknown GPU "nope": .*\(flopcast list-gpus shows all; --gpu-file reads a custom one\)$/,
  );
});

test('list-models and list-gpus', () => {
  const models = execJson(['list-models']);
  assert.ok(models.length >= 40);
  const ids = new Set(models.map((m) => m.id));
  for (const id of ['meta-llama/Meta-Llama-3-8B', 'mistralai/Mixtral-8x7B-v0.1', 'google-t5/t5-base'])
    assert.ok(ids.has(id), id);
  for (const m of models) {
    // A figure of the language model alone, or without the embedding, is checked by the C++ test.
    if (!m.published_parameters || m.published_scope !== 'all') continue;
    if (m.published_significant_digits === 0) assert.equal(m.parameters, m.published_parameters, m.id);
    else {
      const unit = 10 ** (Math.floor(Math.log10(m.published_parameters)) - m.published_significant_digits + 1);
      assert.ok(Math.abs(m.parameters - m.published_parameters) <= unit / 2, m.id);
    }
  }
  const gpus = execJson(['list-gpus']);
  assert.ok(gpus.length >= 15);
  const a100 = gpus.find((g) => g.name === 'A100-80GB-SXM');
  assert.ok(a100.aliases.includes('A100'));
  assert.equal(a100.peak_flops.bf16, 312e12);
  assert.equal(run(['list-models']).code, 0);
  assert.match(run(['list-gpus']).out, /H100-SXM/);
});

test('--help on every command and --version', () => {
  for (const args of [
    ['--help'],
    ['estimate', '--help'],
    ['compare', '--help'],
    ['list-models', '--help'],
    ['list-gpus', '--help'],
  ]) {
    const r = run(args);
    assert.equal(r.code, 0, args.join(' '));
    assert.match(r.out, /Usage|Options/i);
  }
  assert.match(run(['estimate', '--help']).out, /--kv-precision/);
  assert.match(run(['--version']).out, /^flopcast \d+\.\d+\.\d+/);
});

test('counts past 2^63 stay correct in the JSON', () => {
  const one = json(['estimate', 'llama-3-70b', '-b', '1', '-s', '1048576', '-g', 'H100']);
  const many = json(['estimate', 'llama-3-70b', '-b', '64', '-s', '1048576', '-g', 'H100']);
  assert.ok(many.forward_flops > 2 ** 63);
  assert.ok(Number.isFinite(many.details.performance.total_request_latency_s));
  assert.ok(Math.abs(many.forward_flops / one.forward_flops - 64) < 1e-9);
});

test('list-models filters: family, type and parameter bounds (7B, 500M, 1e9)', () => {
  const all = JSON.parse(run(['list-models', '--json']).out);
  const pick = (args) => JSON.parse(run(['list-models', '--json', ...args]).out).map((m) => m.id);
  assert.deepEqual(
    pick(['--type', 'mixtral']),
    all.filter((m) => m.model_type === 'mixtral').map((m) => m.id),
  );
  assert.deepEqual(
    pick(['--family', 'QWEN2', '--max-params', '8B']),
    all.filter((m) => m.family === 'qwen2' && m.parameters <= 8e9).map((m) => m.id),
  );
  const mid = pick(['--min-params', '500M', '--max-params', '1e9']);
  assert.deepEqual(
    mid,
    all.filter((m) => m.parameters >= 5e8 && m.parameters <= 1e9).map((m) => m.id),
  );
  assert.ok(mid.length > 0);
  // The table, a blank line, then the footer ("2 of 256 models shown (...)").
  const [table, footer] = run(['list-models', '--type', 'mixtral']).out.split('\n\n');
  const mixtral = all.filter((m) => m.model_type === 'mixtral').length;
  assert.equal(table.trimEnd().split('\n').length, 1 + mixtral);
  assert.match(footer, new RegExp(`^${mixtral} of ${all.length} models shown \\(\\d+ config\\.json model types\\)\\.`));
  fails(['list-models', '--min-params', 'lots'], /\(--min-params\) expected a number of parameters/);
});
