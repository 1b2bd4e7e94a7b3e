// `flopcast serve` with workloads as people send them (shared prefix, prompt pool, sessions,
// length presets, vLLM's range ratio, trace ids) and prefix caching: the flags reach the core
// (exact cached-token counts), and bad values exit 2 with the flag and the field named.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serveCli } from './serve-cli.mjs';

const { tmp, run, json, fails } = serveCli('serve-workload');

// One client, 5 requests of 1000 prompt tokens from a pool of one prompt.
const pooled = [
  'llama-3-8b',
  '-g',
  'H100',
  '--concurrency',
  '1',
  '--num-requests',
  '5',
  '--isl',
  '1000',
  '--osl',
  '10',
];

test('serve: prefix caching follows the engine and the switches', () => {
  // vLLM: on, 16-token blocks: each of the 4 later requests takes floor(999 / 16) x 16 = 992 tokens.
  let r = json([...pooled, '--prompt-pool', '1', '--engine', 'vllm']);
  assert.equal(r.scheduler.prefix_caching, 'block');
  assert.equal(r.workload.prompt_pool, 1);
  const p = r.points[0];
  assert.equal(p.prefix_cache, 'block');
  assert.equal(p.prompt_tokens, 5000);
  assert.equal(p.cached_prompt_tokens, 4 * 992);
  assert.equal(p.computed_prompt_tokens, 1000 + 4 * 8);
  assert.ok(Math.abs(p.cache_hit_rate - (4 * 992) / 5000) < 1e-12);
  assert.ok(p.timeline.every((t) => t.cache_hit_rate >= 0 && t.cache_hit_rate <= 1));
  // SGLang: the radix tree on 1-token pages: 999 tokens.
  r = json([...pooled, '--prompt-pool', '1', '--engine', 'sglang']);
  assert.equal(r.scheduler.prefix_caching, 'radix');
  assert.equal(r.points[0].cached_prompt_tokens, 4 * 999);
  // --no-prefix-caching turns vLLM's off; no engine is off unless --prefix-caching.
  r = json([...pooled, '--prompt-pool', '1', '--engine', 'vllm', '--no-prefix-caching']);
  assert.equal(r.scheduler.prefix_caching, 'off');
  assert.equal(r.points[0].cached_prompt_tokens, 0);
  assert.match(r.scheduler.source, /prefix_caching/);
  // --engine none (no engine named: the H100's default, vLLM, issue 24).
  assert.equal(json([...pooled, '--prompt-pool', '1', '--engine', 'none']).scheduler.prefix_caching, 'off');
  assert.equal(json([...pooled, '--prompt-pool', '1']).scheduler.prefix_caching, 'block');
  r = json([...pooled, '--prompt-pool', '1', '--engine', 'none', '--prefix-caching']);
  assert.equal(r.points[0].cached_prompt_tokens, 4 * 992);
  // Under preemption (a small KV pool) the prompt tokens are still the cached plus the prefilled.
  r = json([
    ...['llama-3-8b', '-g', 'H100', '--engine', 'vllm', '--concurrency', '64', '--isl-range', '100:4000'],
    ...['--osl', '100', '--num-requests', '300', '--prefix-tokens', '1000', '--kv-blocks', '1000'],
  ]);
  const q = r.points[0];
  assert.ok(q.preemptions > 0);
  assert.ok(q.cached_prompt_tokens > 0);
  assert.equal(q.cached_prompt_tokens + q.computed_prompt_tokens, q.prompt_tokens);
});

test('serve: shared prefix, sessions, presets and the range ratio reach the core', () => {
  // A 500-token system prompt before unique prompts: 31 blocks = 496 tokens hit.
  let r = json([...pooled, '--prefix-tokens', '500', '--prefix-caching']);
  assert.equal(r.workload.prefix_tokens, 500);
  assert.equal(r.points[0].cached_prompt_tokens, 4 * 496);
  // Sessions of 5 turns: prompts 1000, 2010, 3020, 4030, 5040 (history + 1000 new tokens).
  r = json([...pooled, '--turns', '5', '--think-time', '2', '--prefix-caching']);
  assert.equal(r.workload.turns, 5);
  assert.equal(r.workload.think_time_s, 2);
  assert.equal(r.points[0].prompt_tokens, 1000 + 2010 + 3020 + 4030 + 5040);
  // Each turn finds the previous turn's computed tokens (prompt + 10 - 1) in whole blocks:
  // floor(1009/16)*16 = 1008, floor(2019/16)*16 = 2016, 3024, 4032.
  assert.equal(r.points[0].cached_prompt_tokens, 1008 + 2016 + 3024 + 4032);
  r = json(['llama-3-8b', '-g', 'H100', '--num-requests', '50', '--dataset', 'sharegpt']);
  assert.equal(r.workload.dataset, 'sharegpt');
  r = json([
    'llama-3-8b',
    '-g',
    'H100',
    '--num-requests',
    '5',
    '--isl',
    '1000',
    '--osl',
    '100',
    '--range-ratio',
    '0.2',
  ]);
  assert.deepEqual(r.workload.input_tokens, [800, 1200]);
  assert.deepEqual(r.workload.output_tokens, [80, 120]);
  const t = run([...pooled, '--prompt-pool', '1', '--engine', 'vllm']);
  assert.equal(t.code, 0, t.err);
  assert.match(t.out, /workload: pool of 1 prompts\n/);
  assert.match(t.out, /prefix caching: hashed full blocks/);
  assert.match(
    t.out,
    /cache hit rate at concurrency 1: 79\.4 % \(3,968 of 5,000 prompt tokens from the cache, 1,032 prefilled\)/,
  );
});

test('serve: a trace CSV may name prefix and session ids', () => {
  const file = join(tmp, 'sessions.csv');
  writeFileSync(file, 'arrival_s,session_id,input_tokens,output_tokens\n0,3,100,50\n100,3,200,10\n');
  const r = json(['llama-3-8b', '-g', 'H100', '--trace', file, '--prefix-caching']);
  // Row 1 continues row 0: 149 computed tokens, 9 whole blocks = 144 from the cache.
  assert.equal(r.points[0].cached_prompt_tokens, 144);
  writeFileSync(file, 'arrival_s,input_tokens,output_tokens,prefix_id\n0,100,50,1\n');
  assert.match(
    fails(['llama-3-8b', '--trace', file]),
    /\(--trace, \/simulation\/trace\/0\/prefix_id\) a prefix id names a shared prefix/,
  );
  writeFileSync(file, 'arrival_s,input_tokens,output_tokens,input_tokens\n0,100,50,1\n');
  assert.match(fails(['llama-3-8b', '--trace', file]), /expected the header/);
});

test('serve: bad workload values exit 2 with the flag and the field named', () => {
  assert.match(fails(['llama-3-8b', '--prefix-tokens', '-1']), /\(--prefix-tokens, \/simulation\/prefix_tokens\)/);
  assert.match(fails(['llama-3-8b', '--prompt-pool', 'x']), /\(--prompt-pool, \/simulation\/prompt_pool\)/);
  assert.match(fails(['llama-3-8b', '--turns', '0']), /\(--turns, \/simulation\/turns\)/);
  assert.match(fails(['llama-3-8b', '--think-time', '-2']), /\(--think-time, \/simulation\/think_time_s\)/);
  assert.match(
    fails(['llama-3-8b', '--dataset', 'imagenet']),
    /\(--dataset, \/simulation\/dataset\) expected one of sharegpt, alpaca/,
  );
  assert.match(fails(['llama-3-8b', '--range-ratio', '1.5']), /\(--range-ratio, \/simulation\/range_ratio\)/);
  assert.match(
    fails(['llama-3-8b', '--dataset', 'sharegpt', '--isl', '100']),
    /\(--isl, \/simulation\/input_tokens\) the dataset gives the lengths/,
  );
  assert.match(fails(['llama-3-8b', '--turns', '10000', '--isl', '5000']), /\(--turns, \/simulation\/turns\)/);
});
