// `flopcast serve` with expert parallelism and attention data parallelism (README "Expert and
// attention-data parallelism"): the wide-EP layout of the issue runs, the JSON carries the layout
// and the all-to-all per step, and invalid combinations exit 2 naming the flag and the field.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveCli } from './serve-cli.mjs';

const { run, fails } = serveCli('serve-ep');

// The command: DeepSeek-R1 in NVFP4 on 8 B200, attention DP 8 x EP 8, TensorRT-LLM.
const wide = ['deepseek-r1', '-g', 'B200', '-p', 'nvfp4', '--attention-dp', '8', '--ep', '8'];
const load = ['--concurrency', '64,256', '--isl', '1024', '--osl', '1024', '--engine', 'tensorrt-llm'];

test('serve: DP attention 8 x EP 8 on B200 runs and reports the layout', () => {
  const r = run([...wide, ...load, '--num-requests', '512', '--json']);
  assert.equal(r.code, 0, r.err);
  const j = JSON.parse(r.out);
  assert.equal(j.gpus, 8);
  assert.equal(j.settings.tensor_parallel, 1);
  assert.equal(j.settings.expert_parallel, 8);
  assert.equal(j.settings.attention_data_parallel, 8);
  assert.equal(j.settings.expert_imbalance, 1);
  assert.deepEqual(
    j.points.map((p) => p.concurrency),
    [64, 256],
  );
  for (const p of j.points) {
    assert.ok(p.alltoall_bytes_per_step > 0, 'EP 8 dispatches and combines every step');
    assert.ok(p.communication_s_per_step > 0);
    assert.ok(p.weights_per_gpu > 0 && p.kv_bytes_per_token_per_gpu > 0);
    assert.ok(p.output_tokens_per_s > 0);
    assert.equal(p.requests, 512);
    assert.ok(p.mean_running <= p.concurrency + 1e-9);
  }
  // More load per rank: more tokens per step, more all-to-all bytes per step.
  assert.ok(j.points[1].alltoall_bytes_per_step > j.points[0].alltoall_bytes_per_step);
  // The text output names the layout.
  const t = run([...wide, ...load, '--num-requests', '512']);
  assert.equal(t.code, 0, t.err);
  assert.match(t.out, /layout: TP 1 x EP 8 = 8 GPUs, 8 attention ranks/);
});

test('serve: EP without attention DP counts the whole batch on every rank; imbalance slows it', () => {
  const base = ['deepseek-r1', '-g', 'B200', '-p', 'nvfp4', '--ep', '8', '--isl', '1024', '--osl', '128'];
  const args = [...base, '--concurrency', '64', '--num-requests', '128', '--json'];
  const even = JSON.parse(run(args).out);
  const skew = JSON.parse(run([...args, '--expert-imbalance', '2']).out);
  assert.equal(even.settings.attention_data_parallel, 1);
  assert.ok(skew.points[0].tpot_s.mean > even.points[0].tpot_s.mean);
});

test('serve: invalid expert / attention-DP layouts exit 2 naming the field', () => {
  assert.match(
    fails([...wide.slice(0, 5), '--attention-dp', '3', '--ep', '8', ...load]),
    /\(--attention-dp, \/parallelism\/attention_data_parallel\) expected a divisor of expert_parallel \(8\)/,
  );
  assert.match(
    fails([...wide.slice(0, 5), '--attention-dp', '8', ...load]),
    /\/parallelism\/attention_data_parallel\) expected a divisor of expert_parallel \(1\)/,
  );
  assert.match(
    fails([...wide, ...load, '--expert-imbalance', '9']),
    /\(--expert-imbalance, \/parallelism\/expert_imbalance\) expected .* in \[1, 8\]/,
  );
  assert.match(
    fails([...wide, '--concurrency', '4', '--isl', '1024', '--osl', '1024']),
    /\/simulation\/clients\) expected at least attention_data_parallel \(8\) clients/,
  );
  assert.match(
    fails(['llama-3-8b', '-g', 'H100', '--ep', '2', '--attention-dp', '2', '--concurrency', '4']),
    /\/parallelism\/expert_parallel\) expected 1 for a dense model/,
  );
  assert.match(
    fails(['deepseek-r1', '-g', 'B200', '-p', 'nvfp4', '--ep', '72', '--attention-dp', '72', '--concurrency', '72']),
    /\/parallelism\/expert_parallel\) expected a divisor of the number of experts \(256\)/,
  );
});
