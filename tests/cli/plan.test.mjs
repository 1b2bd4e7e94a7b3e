// `flopcast plan`: the text answer and table, --json and --csv of the same layouts, exit 2 on
// bad input with the code and the flag.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const env = {
  ...process.env,
  FLOPCAST_CALIBRATION_FILE: join(mkdtempSync(join(tmpdir(), 'flopcast-plan-')), 'c.json'),
};
const run = (args) => spawnSync(bin, ['plan', ...args], { encoding: 'utf8', env });
const base = ['llama-2-70b', '-g', 'A100-80GB-SXM', '-p', 'fp16'];

test('text: the answer first, then the table with the marks', () => {
  const r = run(base);
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  // 137.95 GB of fp16 weights cannot fit 80 GiB x 0.9: the answer is two GPUs at TP=2.
  assert.match(lines[1], /^Fits on 2 x A100-80GB-SXM \(TP=2\) at [\d.]+ GiB per GPU of 72(\.0+)? GiB usable$/);
  const rows = lines.filter((l) => /^\s+\d+\s+\d+\s+\d+\s+\d+\s+\d+\s/.test(l));
  assert.ok(rows.length >= 2);
  assert.equal(rows.filter((l) => /cheapest/.test(l)).length, 1);
  assert.equal(rows.filter((l) => /fastest/.test(l)).length, 1);
  assert.match(rows[0], /^\s+2\s+2\s+1\s+1\s+1\s/);
});

test('--json and --csv list the same layouts', () => {
  const j = run([...base, '--json']);
  assert.equal(j.status, 0, j.stderr);
  const plan = JSON.parse(j.stdout);
  assert.equal(plan.min_gpus, 2);
  assert.equal(plan.layouts[plan.cheapest].cheapest, true);
  assert.equal(plan.layouts[plan.fastest].fastest, true);
  const c = run([...base, '--csv']);
  assert.equal(c.status, 0, c.stderr);
  const [header, ...lines] = c.stdout.trim().split('\n');
  const keys = header.split(',');
  assert.deepEqual(keys, Object.keys(plan.layouts[0]));
  assert.equal(lines.length, plan.layouts.length);
  lines.forEach((line, i) => {
    const cells = line.split(',');
    assert.equal(Number(cells[keys.indexOf('gpus')]), plan.layouts[i].gpus);
    assert.equal(Number(cells[keys.indexOf('per_gpu_memory_bytes')]), plan.layouts[i].per_gpu_memory_bytes);
    assert.equal(cells[keys.indexOf('cheapest')], String(plan.layouts[i].cheapest));
  });
});

test('--concurrency and --max-gpus reach the plan', () => {
  const r = run(['llama-3-8b', '-g', 'H100', '--concurrency', '16', '--max-gpus', '2', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const plan = JSON.parse(r.stdout);
  assert.equal(plan.concurrency, 16);
  assert.equal(plan.max_gpus, 2);
  assert.ok(plan.layouts.every((l) => l.gpus <= 2));
});

test('nothing fits: a clear answer with the closest layout, exit 0', () => {
  const r = run(['llama-3.1-405b', '-g', 'A100-80GB-SXM', '--max-gpus', '4']);
  assert.equal(r.status, 0, r.stderr);
  assert.match(
    r.stdout,
    /Does not fit on up to 4 x A100-80GB-SXM: the closest, .* needs [\d.]+ GiB per GPU of 72(\.0+)? GiB usable/,
  );
});

test('bad input: exit 2 with the code, the flag and the pointer', () => {
  for (const [args, pattern] of [
    [[...base, '--max-gpus', '0'], /\[flopcast\.config\.range\] \(--max-gpus, \/plan\/max_gpus\)/],
    [[...base, '--concurrency', 'x'], /\[flopcast\.config\.type\] \(--concurrency, \/plan\/concurrency\)/],
    [['llama-2-70b', '-g', 'none'], /\[flopcast\.invalid_argument\] \(--gpu, \/gpu\)/],
    [['llama-2-70b', '--tp', '2'], /flopcast: error:/],
    [[...base, '--json', '--csv'], /excludes/],
  ]) {
    const r = run(args);
    assert.equal(r.status, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.match(r.stderr, pattern);
  }
});
