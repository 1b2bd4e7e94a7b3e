// Hostile serving inputs (issue 26): the simulator's work bound refuses runs of days before they
// start, a trace CSV is counted as read (rows, request size) and named by --trace and its file,
// and warm-up requests must leave some measured. Each case prints its wall time; the caps are
// generous (the old behaviour was days, 78 s, 9 s and 464 MB).
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { serveCli } from './serve-cli.mjs';

const { tmp, fails } = serveCli('hostile');
// --engine none: the simulator's own scheduler (no prefix cache), whose work bound these cases state.
const base = ['llama-3.2-1b', '-g', 'H100', '--engine', 'none'];

// Runs fails() and prints its wall time; `cap` seconds at most.
function timedFail(args, cap) {
  const start = process.hrtime.bigint();
  const message = fails(args);
  const seconds = Number(process.hrtime.bigint() - start) / 1e9;
  console.log(`  ${seconds.toFixed(3)} s: flopcast serve ${args.join(' ').slice(0, 90)}`);
  assert.ok(seconds < cap, `took ${seconds} s`);
  return message;
}

test('10^6 requests of 9,999,999 one-token chunks: refused with flopcast.limit before running', () => {
  // Work bound: 10^6 x (ceil(9999999 / 1) + 1) = 10^13 steps, against the cap of 1.5e8.
  const m = timedFail(
    [
      ...base,
      '--num-requests',
      '1000000',
      '--isl',
      '9999999',
      '--osl',
      '1',
      '--max-num-batched-tokens',
      '1',
      '--kv-blocks',
      '1000000000',
      '--concurrency',
      '1',
    ],
    15,
  );
  assert.match(m, /^flopcast: error: \[flopcast\.limit\] \(--num-requests, \/simulation\/num_requests\) /);
  assert.match(m, /work is bounded by 10000000000000 units/);
  assert.match(m, /max_num_batched_tokens/);
});

test('1000 requests of 10^6 output tokens at concurrency 1: refused with flopcast.limit', () => {
  // 1000 x (1 + 10^6) = 1.000001e9 units > 1.5e8 (the old simulator ran 78 s per point).
  const m = timedFail([...base, '--concurrency', '1', '--num-requests', '1000', '--isl', '1', '--osl', '1000000'], 15);
  assert.match(m, /\[flopcast\.limit\] \(--num-requests, \/simulation\/num_requests\)/);
  assert.match(m, /expected at most 150000000/);
  assert.match(m, /output_tokens/);
});

test('a sweep multiplies the bound by its points', () => {
  // One point: 1000 x (1 + 10^5) = 1.00001e8 units (accepted alone); 2 points: 2.00002e8.
  const m = timedFail([...base, '--concurrency', '1,2', '--num-requests', '1000', '--isl', '1', '--osl', '100000'], 15);
  assert.match(m, /\[flopcast\.limit\] .*2 points/);
});

test('a 10^6-row trace CSV is counted as read: refused naming --trace and the file', () => {
  const file = join(tmp, 'million.csv');
  writeFileSync(file, 'arrival_s,input_tokens,output_tokens\n' + '0,1,1\n'.repeat(1000000));
  const m = timedFail([...base, '--trace', file], 5);
  assert.match(m, /^flopcast: error: \[flopcast\.limit\] \(--trace, \/simulation\/trace\) /);
  assert.ok(m.includes(file), m);
  assert.match(m, /1000000 rows/);
});

test('a trace CSV with more rows than the simulator takes: refused at the row past the limit', () => {
  const file = join(tmp, 'too-many.csv');
  writeFileSync(file, 'arrival_s,input_tokens,output_tokens\n' + '0,1,1\n'.repeat(1000001));
  const m = timedFail([...base, '--trace', file], 5);
  assert.match(m, /\[flopcast\.limit\] \(--trace, \/simulation\/trace\) expected a trace of at most 1000000 requests/);
  assert.ok(m.includes(file), m);
});

test('a trace CSV asking for more output tokens than the work cap: refused from its counts', () => {
  // 20 rows x 10^7 output tokens: at least 2.00000002e8 units whatever the other settings.
  const file = join(tmp, 'long.csv');
  writeFileSync(file, 'arrival_s,input_tokens,output_tokens\n' + '0,1,10000000\n'.repeat(20));
  const m = timedFail([...base, '--trace', file], 5);
  assert.match(m, /\[flopcast\.limit\] \(--trace, \/simulation\/trace\) the simulation's work is bounded by at least/);
  assert.ok(m.includes(file), m);
});

test('--warmup >= --num-requests: refused (no request would be measured)', () => {
  const m = timedFail([...base, '--num-requests', '10', '--warmup', '10', '--isl', '100', '--osl', '10'], 15);
  assert.equal(
    m,
    'flopcast: error: [flopcast.invalid_argument] (--warmup, /simulation/warmup_requests) expected fewer warm-up ' +
      'requests than the 10 requests (num_requests) so that some are measured, but got 10',
  );
});
