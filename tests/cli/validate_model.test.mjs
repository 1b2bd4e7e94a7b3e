// `flopcast validate-model` as users run it: the real binary, the reference decoder on a model's
// first layers, counted FLOPs and bytes per operation against the estimate. Exit 0 when every
// checked operation agrees, 2 on bad input (exit 1, a disagreement, is tested in
// tests/cpp/test_validate_model.cpp with a perturbed estimator input).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = resolve(root, process.env.FLOPCAST_BIN ?? 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-validate-model-'));
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

function run(args) {
  const r = spawnSync(bin, ['validate-model', ...args], { encoding: 'utf8', cwd: tmp, maxBuffer: 64 << 20 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function config(name, body) {
  const path = join(tmp, `${name}.json`);
  writeFileSync(path, JSON.stringify(body));
  return path;
}
function validates(args, kinds) {
  const r = run([...args, '--json', '--threads', '2']);
  assert.equal(r.code, 0, r.out + r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.ok, true);
  for (const k of kinds) assert.ok(j.kinds.includes(k), `${k} in ${j.kinds}`);
  const flops = j.rows.filter((w) => w.unit === 'FLOP');
  assert.equal(flops.length, 3 * 11, 'every FLOP component of the prefill and two decode steps');
  for (const w of flops) assert.equal(w.counted, w.estimated, `${w.pass} ${w.op}`);
  for (const w of j.rows) if (!w.checked) assert.ok(w.note, `unchecked ${w.pass} ${w.op} says why`);
  return j;
}

const tiny = {
  hidden_size: 64,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  intermediate_size: 96,
  vocab_size: 200,
  tie_word_embeddings: false,
};

test('dense GQA: llama-3.2-1b, one layer, text table', () => {
  const r = run(['llama-3.2-1b', '--layers', '1', '--prompt', '8', '--threads', '2']);
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /GQA/);
  assert.match(r.out, /first 1 of 16/);
  assert.match(r.out, /^prefill +qkv_projection +(\d+) +\1 +0\.0000 +ok$/m);
  assert.match(r.out, /every checked operation agrees/);
});

test('sliding window crossed by the prompt, MQA', () => {
  const path = config('mistral', {
    ...tiny,
    model_type: 'mistral',
    num_key_value_heads: 1,
    sliding_window: 5,
    layer_types: ['sliding_attention', 'full_attention'],
  });
  const j = validates([path, '--prompt', '12'], ['MQA', 'sliding-window']);
  const write = j.rows.find((w) => w.pass === 'prefill' && w.op === 'kv_write_bytes');
  assert.equal(write.checked, false);
  assert.match(write.note, /window/);
  validates(['mistral-7b', '--layers', '1', '--window', '8', '--prompt', '12'], ['sliding-window']);
});

test('MoE: a tiny Mixtral and granite-3.1-1b-a400m', () => {
  const path = config('mixtral', {
    ...tiny,
    model_type: 'mixtral',
    num_key_value_heads: 2,
    num_local_experts: 4,
    num_experts_per_tok: 2,
  });
  const j = validates([path, '--prompt', '8'], ['GQA', 'MoE']);
  assert.ok(j.rows.find((w) => w.pass === 'decode 1' && w.op === 'weight_bytes').checked);
  const g = validates(['granite-3.1-1b-a400m', '--layers', '1', '--prompt', '8'], ['MoE']);
  assert.ok(g.experts_built > 0 && g.experts_built <= g.experts_total);
});

test('MLA: a tiny DeepSeek-V2 (dense and MoE layers) and deepseek-v2-lite', () => {
  const path = config('deepseek', {
    ...tiny,
    model_type: 'deepseek_v2',
    num_key_value_heads: 4,
    moe_intermediate_size: 32,
    n_routed_experts: 8,
    num_experts_per_tok: 2,
    n_shared_experts: 1,
    first_k_dense_replace: 1,
    q_lora_rank: null,
    kv_lora_rank: 16,
    qk_nope_head_dim: 8,
    qk_rope_head_dim: 4,
    v_head_dim: 8,
  });
  validates([path, '--prompt', '8'], ['MLA', 'MoE', 'dense MLP']);
  validates(['deepseek-v2-lite', '--layers', '1', '--prompt', '8'], ['MLA']);
});

test('bad input exits 2 with one line naming the problem', () => {
  const cases = [
    [['no-such-model'], /unknown model "no-such-model"/],
    [['gpt2'], /\(MODEL\).*model_type "gpt2"/],
    [['llama-3.2-1b', '--prompt', '0'], /\(--prompt\) expected an integer in \[1, 4096\], but got 0/],
    [['llama-3.2-1b', '--layers', 'x'], /\(--layers\) expected an integer/],
    [['llama-3.2-1b', '--layers', '0'], /\(--layers\) expected an integer >= 1/],
  ];
  for (const [args, pattern] of cases) {
    const r = run(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.out}${r.err}`);
    assert.equal(r.out, '');
    const lines = r.err.trimEnd().split('\n');
    assert.equal(lines.length, 1, r.err);
    assert.match(lines[0], /^flopcast: error: /);
    assert.match(lines[0], pattern);
  }
});

test('--onnx: a llama-3.2-1b block exported to ONNX has the analytic estimate matmul FLOPs', () => {
  const dir = mkdtempSync(join(tmpdir(), 'flopcast-validate-onnx-'));
  spawnSync('/usr/bin/python3', [join(root, 'tests/fixtures/onnx/make_fixtures.py'), dir], { encoding: 'utf8' });
  const file = join(dir, 'llama_block.onnx');
  const args = ['llama-3.2-1b', '--layers', '1', '--onnx', file, '--dim', 'batch=2,seq=128', '--batch', '2'];
  const r = run([...args, '--prompt', '128', '--json']);
  assert.equal(r.code, 0, r.out + r.err);
  const rows = Object.fromEntries(JSON.parse(r.out).rows.map((x) => [x.op, x]));
  // By hand, llama-3.2-1b (hidden 2048, 32 heads of 64, 8 KV heads: K/V width 512, MLP 8192),
  // T = 2 x 128 tokens: q and o 2Th^2 each, k and v 2T h 512 each, gate/up/down 2ThI each;
  // attention scores and values 2 x 2 x 32 heads x 128^2 x 64 (every pair: the export's matmuls).
  const T = 256;
  const weights = 2 * 2 * T * 2048 * 2048 + 2 * 2 * T * 2048 * 512 + 3 * 2 * T * 2048 * 8192;
  const attention = 2 * 2 * 2 * 32 * 128 * 128 * 64;
  assert.equal(rows.weight_matmuls.counted, weights);
  assert.equal(rows.weight_matmuls.estimated, weights);
  assert.equal(rows.attention_matmuls.counted, attention);
  assert.equal(rows.attention_matmuls.estimated, attention);
  assert.equal(rows.matmul_total.ok, true);
  assert.equal(rows.other_flops.checked, false);

  // Another architecture's estimate disagrees: exit 1, the weight matmuls named.
  const other = run([
    'llama-3.2-3b',
    '--layers',
    '1',
    '--onnx',
    file,
    '--dim',
    'batch=2,seq=128',
    '--batch',
    '2',
    '--prompt',
    '128',
  ]);
  assert.equal(other.code, 1, other.out + other.err);
  assert.match(other.out, /weight_matmuls .*FAIL/);
  // The export's size and the estimate's must be the same.
  const sizes = run([...args, '--prompt', '64']);
  assert.equal(sizes.code, 2);
  assert.match(sizes.err, /--onnx.*is 2 x 128 tokens, but the estimate is asked for --batch 2 x --prompt 64/);
  const lone = run(['llama-3.2-1b', '--dim', 'batch=2']);
  assert.equal(lone.code, 2);
  assert.match(lone.err, /--dim.*only with --onnx/);
});
