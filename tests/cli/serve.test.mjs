// `flopcast serve` as users run it: the real binary, the JSON shape, the latency-throughput
// curve of a closed loop, seeds, trace files, CSV and text output, and errors (exit 2, the flag
// and the JSON pointer).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatSeconds } from '../../web/src/format.js';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-serve-'));
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

function run(args) {
  const r = spawnSync(bin, ['serve', ...args], { encoding: 'utf8', cwd: tmp });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function json(args) {
  const r = run([...args, '--json']);
  assert.equal(r.code, 0, r.err);
  assert.equal(r.err, '', 'nothing on stderr when it is not a terminal (no progress bar)');
  return JSON.parse(r.out);
}
function fails(args) {
  const r = run(args);
  assert.equal(r.code, 2, `exit code for ${args.join(' ')}: ${r.err}`);
  assert.equal(r.out, '');
  const lines = r.err.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.err);
  return lines[0];
}

// --engine none: the simulator's own defaults (with no engine named the H100 runs vLLM's, issue 24).
const curve = [
  'llama-3-8b',
  '--gpu',
  'H100',
  '--isl',
  '512',
  '--osl',
  '64',
  '--num-requests',
  '512',
  '--engine',
  'none',
];
const levels = [1, 4, 16, 64, 256];

test('serve --json: the result shape, one point per concurrency value', () => {
  const r = json([...curve, '--concurrency', levels.join(',')]);
  assert.equal(r.label, 'ESTIMATED');
  assert.match(r.method, /^simulated: iteration-level continuous batching, plain roofline, no engine$/);
  assert.equal(r.engine, null);
  assert.equal(r.workload.arrivals, 'closed_loop');
  assert.deepEqual(r.workload.input_tokens, [512, 512]);
  assert.deepEqual(r.workload.output_tokens, [64, 64]);
  assert.equal(r.workload.num_requests, 512);
  assert.equal(r.scheduler.source, 'simulator defaults (vLLM-like)');
  assert.ok(r.scheduler.kv_blocks > 0);
  assert.deepEqual(
    r.points.map((p) => p.concurrency),
    levels,
  );
  for (const p of r.points) {
    assert.equal(p.request_rate, null);
    assert.equal(p.requests, 512);
    for (const d of ['ttft_s', 'tpot_s', 'itl_s', 'e2e_s']) {
      assert.deepEqual(Object.keys(p[d]), ['mean', 'p50', 'p90', 'p99'], d);
      assert.ok(p[d].p50 > 0 && p[d].p50 <= p[d].p90 && p[d].p90 <= p[d].p99, `${d} percentiles ordered`);
      assert.equal(p[`${d}_range`] ?? null, null, 'no ranges without a fitted engine');
    }
    // Every request finished: its prompt and output went through.
    assert.ok(Math.abs(p.total_tokens_per_s / p.output_tokens_per_s - (512 + 64) / 64) < 1e-9);
    assert.ok(p.goodput_share === 1 && p.goodput_requests_per_s === p.requests_per_s, 'no SLO: every request counts');
    assert.ok(p.peak_kv_utilization >= p.mean_kv_utilization && p.peak_kv_utilization <= 1);
    assert.ok(p.mean_running > 0 && p.mean_running <= p.concurrency + 1e-9);
    assert.ok(p.timeline.length >= 2 && p.timeline.length <= 200, `timeline of ${p.timeline.length} points`);
    for (let i = 1; i < p.timeline.length; i++) assert.ok(p.timeline[i].t_s >= p.timeline[i - 1].t_s);
    assert.ok(p.steps > 0);
  }
});

test('serve: the closed-loop curve is monotone in concurrency (fixed lengths)', () => {
  const r = json([...curve, '--concurrency', levels.join(',')]);
  for (let i = 1; i < r.points.length; i++) {
    const [a, b] = [r.points[i - 1], r.points[i]];
    const at = `concurrency ${a.concurrency} -> ${b.concurrency}`;
    assert.ok(b.output_tokens_per_s >= a.output_tokens_per_s, `throughput non-decreasing, ${at}`);
    assert.ok(b.ttft_s.mean >= a.ttft_s.mean, `TTFT non-decreasing, ${at}`);
    assert.ok(b.tpot_s.mean >= a.tpot_s.mean, `TPOT non-decreasing, ${at}`);
  }
  // Batching pays: 256 clients give many times one client's throughput.
  assert.ok(r.points.at(-1).output_tokens_per_s > 10 * r.points[0].output_tokens_per_s);
});

test('serve: the same seed gives the same output, another seed another (uniform lengths, Poisson)', () => {
  const args = ['llama-3-8b', '--gpu', 'A100', '--request-rate', '2,8', '--num-requests', '60'];
  const lengths = ['--isl-range', '64:2048', '--osl-range', '8:128'];
  const a = run([...args, ...lengths, '--seed', '11', '--json']);
  const b = run([...args, ...lengths, '--seed', '11', '--json']);
  const c = run([...args, ...lengths, '--seed', '12', '--json']);
  assert.equal(a.code, 0, a.err);
  assert.equal(a.out, b.out, 'identical seeds, identical output');
  assert.notEqual(a.out, c.out, 'a different seed changes the result');
  const [ra, rc] = [JSON.parse(a.out), JSON.parse(c.out)];
  assert.equal(ra.workload.arrivals, 'poisson');
  assert.deepEqual(
    ra.points.map((p) => p.request_rate),
    [2, 8],
  );
  assert.notEqual(ra.points[0].e2e_s.mean, rc.points[0].e2e_s.mean);
});

test('serve --engine: the engine scheduler defaults, then explicit overrides', () => {
  const r = json(['llama-3-8b', '--gpu', 'H100', '--engine', 'vllm', '--num-requests', '8', '--osl', '8']);
  assert.equal(r.engine, 'vllm');
  assert.match(r.method, /engine vllm/);
  assert.equal(r.scheduler.source, 'engine vllm defaults');
  const o = json(
    ['llama-3-8b', '--gpu', 'H100', '--engine', 'vllm', '--num-requests', '8', '--osl', '8'].concat([
      '--max-num-seqs',
      '3',
      '--no-chunked-prefill',
    ]),
  );
  assert.equal(o.scheduler.max_num_seqs, 3);
  assert.equal(o.scheduler.chunked_prefill, false);
  assert.equal(o.scheduler.max_num_batched_tokens, r.scheduler.max_num_batched_tokens);
  assert.equal(o.scheduler.source, 'engine vllm defaults; from the request: max_num_seqs, chunked_prefill');
  assert.ok(o.points[0].ttft_s.p99 > r.points[0].ttft_s.p99, 'three at a time: the batch queues');
});

test('serve --trace FILE: a CSV trace from a temp dir (columns in any order)', () => {
  const file = join(tmp, 'trace.csv');
  writeFileSync(file, 'output_tokens,arrival_s,input_tokens\n16,0,128\n8,0.25,1024\n\n32,0.5,256\n');
  const r = json(['llama-3-8b', '--gpu', 'L4', '--trace', file]);
  assert.equal(r.workload.arrivals, 'trace');
  assert.equal(r.workload.num_requests, 3);
  assert.equal(r.workload.input_tokens, null);
  assert.equal(r.points.length, 1);
  assert.equal(r.points[0].requests, 3);
  assert.ok(Math.abs(r.points[0].output_tokens_per_s * r.points[0].window_s - (16 + 8 + 32)) < 1e-6);

  // Errors name the line and column of the file, beside the flag and pointer.
  writeFileSync(file, 'arrival_s,input_tokens,output_tokens\n0,100,10\n0.1,abc,10\n');
  assert.match(
    fails(['llama-3-8b', '--trace', file]),
    new RegExp(
      `^flopcast: error: \\[flopcast\\.config\\.type\\] \\(--trace, /simulation/trace/1/input_tokens\\) expected an integer in \\[1, 10000000\\], but got string "abc" in ${file} line 3, column 2 \\(input_tokens\\)$`,
    ),
  );
  writeFileSync(file, 'arrival_s,input_tokens,output_tokens\n0,100,10\n\n0.1,100,0\n');
  assert.match(
    fails(['llama-3-8b', '--trace', file]),
    /\/simulation\/trace\/1\/output_tokens\).* line 4, column 3 \(output_tokens\)$/,
  );
  writeFileSync(file, 'arrival_s,input_tokens,output_tokens\n1,100,10\n0.5,100,10\n');
  assert.match(
    fails(['llama-3-8b', '--trace', file]),
    /\/simulation\/trace\/1\/arrival_s\) expected the trace in arrival order.* line 3, column 1 \(arrival_s\)$/,
  );
  writeFileSync(file, 'arrival_s,input_tokens,output_tokens\n0,100\n');
  assert.match(
    fails(['llama-3-8b', '--trace', file]),
    /\(--trace, \/simulation\/trace\/0\) expected 3 comma-separated values .* line 2$/,
  );
  writeFileSync(file, 'time,input,output\n0,1,1\n');
  assert.match(
    fails(['llama-3-8b', '--trace', file]),
    /\(--trace, \/simulation\/trace\) expected the header .* line 1$/,
  );
  assert.match(
    fails(['llama-3-8b', '--trace', join(tmp, 'missing.csv')]),
    /flopcast\.io\] \(--trace, \/simulation\/trace\) cannot read/,
  );
  assert.match(
    fails(['llama-3-8b', '--trace', file, '--num-requests', '5']),
    /flopcast\.config\.parse|\/simulation\/num_requests/,
  );
});

test('serve: text and CSV show the same points as the JSON', () => {
  const args = [
    'llama-3-8b',
    '--gpu',
    'H100',
    '--concurrency',
    '2,32',
    '--num-requests',
    '64',
    '--osl',
    '32',
    '--slo-ttft',
    '0.2',
  ];
  const j = json(args);
  const t = run(args);
  assert.equal(t.code, 0, t.err);
  const lines = t.out.trimEnd().split('\n');
  const header = lines.findIndex((l) => /concurrency\s+TTFT mean\s+TTFT p99\s+TPOT mean\s+TPOT p99\s+ITL p99/.test(l));
  assert.ok(header > 0, t.out);
  const rows = lines.slice(header + 1).filter((l) => /^\s+\d+\s/.test(l));
  assert.equal(rows.length, 2, t.out);
  // The text shows the JSON's figure by the display rules (web/src/format.js = core/src/base/format.cpp).
  assert.match(rows[0], new RegExp(`^\\s+2\\s+${formatSeconds(j.points[0].ttft_s.mean).replace('.', '\\.')}\\s`));
  assert.match(t.out, /goodput SLO: TTFT <= 200 ms\n/);
  const c = run([...args, '--csv']);
  assert.equal(c.code, 0, c.err);
  const [head, ...data] = c.out.trimEnd().split('\n');
  const cols = head.split(',');
  assert.equal(data.length, 2);
  data.forEach((line, i) => {
    const v = Object.fromEntries(line.split(',').map((x, k) => [cols[k], x]));
    const p = j.points[i];
    assert.equal(Number(v.concurrency), p.concurrency);
    assert.equal(v.request_rate, '');
    assert.equal(Number(v.ttft_p99_s), p.ttft_s.p99);
    assert.equal(Number(v.output_tokens_per_s), p.output_tokens_per_s);
    assert.equal(Number(v.goodput_share), p.goodput_share);
  });
  assert.ok(j.points[1].goodput_share < j.points[0].goodput_share, 'a tight TTFT limit costs goodput at 32 clients');
});

test('serve: bad values exit 2 with the flag and the JSON pointer', () => {
  assert.match(
    fails(['llama-3-8b', '--concurrency', '4,0']),
    /^flopcast: error: \[flopcast\.config\.range\] \(--concurrency, \/simulation\/concurrency\/1\) expected a positive integer/,
  );
  assert.match(
    fails(['llama-3-8b', '--isl-range', '9:3']),
    /\(--isl-range, \/simulation\/input_tokens_range\/1\) expected max >= min \(9\), but got 3$/,
  );
  assert.match(
    fails(['llama-3-8b', '--isl-range', '9-3']),
    /\(--isl-range, \/simulation\/input_tokens_range\) expected \[min, max\]/,
  );
  assert.match(
    fails(['llama-3-8b', '--arrivals', 'poisson']),
    /config\.missing\] \(--request-rate, \/simulation\/request_rate\)/,
  );
  assert.match(
    fails(['llama-3-8b', '--policy', 'lifo']),
    /\(--policy, \/simulation\/policy\) expected one of mixed, prefill_first/,
  );
  assert.match(fails(['llama-3-8b', '--gpu', 'none']), /\(--gpu, \/gpu\)/);
  assert.match(fails(['llama-3-8b', '--engine', 'transformers']), /\(--engine, \/engine\)/);
});
