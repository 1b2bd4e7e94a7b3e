// `flopcast serve` with speculative decoding and a benchmark harness: the flags reach the
// simulator, a list of acceptance rates is one rate per draft position, and the harness's
// figures are the engine's plus its client term.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { serveCli } from './serve-cli.mjs';

const { json } = serveCli('spec');

const base = [
  'qwen3-30b-a3b',
  '-g',
  'H100',
  '--concurrency',
  '4',
  '--isl',
  '256',
  '--osl',
  '64',
  '--num-requests',
  '8',
];

test('serve --speculative mtp: per-position acceptance, 1 + 0.9 + 0.9 x 0.7 tokens per verification', () => {
  const d = json([...base, '--speculative', 'mtp', '--speculative-tokens', '2', '--acceptance', '0.9,0.7']);
  assert.equal(d.speculative.label, 'ESTIMATED');
  assert.equal(d.speculative.method, 'mtp');
  assert.deepEqual(d.speculative.acceptance_rate, [0.9, 0.7]);
  assert.ok(Math.abs(d.speculative.expected_tokens_per_step - 2.53) < 1e-12);
  assert.ok(d.points[0].tokens_per_decode_step > 1);
  const off = json(base);
  assert.equal(off.speculative, null);
  assert.equal(off.points[0].tokens_per_decode_step, 0);
  assert.ok(d.points[0].tpot_s.mean < off.points[0].tpot_s.mean, 'accepted drafts shorten TPOT');
});

test('serve --harness: TTFT and end-to-end gain exactly the client term; aiperf ITL is the per-request mean', () => {
  const plain = json(base);
  const h = json([...base, '--harness', 'aiperf', '--client-overhead', '25']);
  assert.equal(h.harness.id, 'aiperf');
  assert.equal(h.harness.client_overhead_s, 0.025);
  const p = h.points[0];
  assert.ok(Math.abs(p.harness.ttft_mean_s - (plain.points[0].ttft_s.mean + 0.025)) < 1e-12);
  assert.ok(Math.abs(p.harness.e2e_mean_s - (plain.points[0].e2e_s.mean + 0.025)) < 1e-12);
  assert.equal(p.harness.itl_mean_s, p.tpot_s.mean);
  assert.equal(plain.harness, null);
  assert.equal(json([...base, '--harness', 'vllm']).harness.client_overhead_s, 0.02);
});
