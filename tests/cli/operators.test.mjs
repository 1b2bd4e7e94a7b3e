// `flopcast estimate MODEL --operators`: the two operator tables in the text report, and with
// --json details.operators whose rows add up to the estimate's prefill and decode-step FLOPs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const env = { ...process.env, FLOPCAST_CALIBRATION_FILE: join(mkdtempSync(join(tmpdir(), 'flopcast-ops-')), 'c.json') };
const run = (args) => spawnSync(bin, args, { encoding: 'utf8', env });

test('--operators prints the prefill and decode-step tables', () => {
  const r = run(['estimate', 'llama-3-8b', '--gpu', 'H100', '--batch', '4', '--operators']);
  assert.equal(r.status, 0, r.stderr);
  const prefill = r.stdout.indexOf('\nPrefill (');
  const decode = r.stdout.indexOf('\nDecode step (');
  assert.ok(prefill > 0 && decode > prefill, 'both tables, prefill first');
  for (const part of [r.stdout.slice(prefill, decode), r.stdout.slice(decode)]) {
    assert.match(part, /operator\s+layers\s+FLOPs\s+bytes\s+FLOP\/B\s+bound\s+time\s+share/);
    for (const op of ['q_proj', 'k_proj', 'v_proj', 'attention_scores', 'softmax', 'attention_values', 'o_proj'])
      assert.match(part, new RegExp(`\\n  ${op}\\s+32\\s`), op);
    for (const op of ['mlp_gate', 'mlp_up', 'mlp_down', 'norms', 'lm_head'])
      assert.match(part, new RegExp(`\\n  ${op}\\s`));
    assert.match(part, /(compute|memory)\s+[\d.]+ (us|ms|s)\s+[\d.]+%/);
  }
  // Decode at batch 4 reads every weight for 4 tokens: the MLP is memory-bound there.
  assert.match(r.stdout.slice(decode), /\n  mlp_down\s+32\s.*\smemory\s/);
  // Without the flag, no tables.
  const plain = run(['estimate', 'llama-3-8b', '--gpu', 'H100']);
  assert.equal(plain.status, 0, plain.stderr);
  assert.doesNotMatch(plain.stdout, /Decode step \(/);
});

test('--operators --json: rows add up to prefill_flops and decode_first_step_flops', () => {
  for (const model of ['llama-3-8b', 'mixtral-8x7b', 'qwen3-next-80b-a3b-instruct']) {
    const r = run(['estimate', model, '--gpu', 'H100', '--operators', '--json']);
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    const ops = out.details.operators;
    const perf = out.details.performance;
    const sum = (rows, k) => rows.reduce((a, row) => a + row[k], 0);
    const close = (a, b, what) => assert.ok(Math.abs(a - b) <= 1e-9 * Math.abs(b), `${model} ${what}: ${a} vs ${b}`);
    close(sum(ops.prefill, 'flops'), perf.prefill_flops, 'prefill FLOPs');
    close(sum(ops.decode, 'flops'), perf.decode_first_step_flops, 'decode FLOPs');
    close(sum(ops.decode, 'weight_bytes') + sum(ops.decode, 'kv_bytes'), perf.decode_first_step_bytes, 'decode bytes');
    for (const row of [...ops.prefill, ...ops.decode]) {
      assert.equal(row.bytes, row.weight_bytes + row.activation_bytes + row.kv_bytes);
      assert.equal(row.time_s, Math.max(row.compute_s, row.memory_s));
      assert.equal(row.bound, row.compute_s > row.memory_s ? 'compute' : 'memory');
    }
  }
  // Not asked: null.
  const plain = run(['estimate', 'llama-3-8b', '--gpu', 'H100', '--json']);
  assert.equal(JSON.parse(plain.stdout).details.operators, null);
});
