// `flopcast validate` on the shipped table (data/measurements/): every predicted row is a finite,
// positive figure of the core, filters work, an unknown engine is refused, and the ratchet: no
// engine/metric's median |error| may get worse than tests/fixtures/validation_ratchet.json says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const run = (args) => spawnSync(bin, args, { encoding: 'utf8' });
const json = (args) => {
  const r = run([...args, '--json']);
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout);
};

test('validate predicts the table with the core and says what it leaves out', () => {
  const d = json(['validate']);
  assert.ok(d.rows_predicted >= 500, `${d.rows_predicted} rows predicted`);
  const skipped = Object.values(d.skipped).reduce((a, b) => a + b, 0);
  assert.equal(d.rows_predicted + skipped, d.rows_considered);
  for (const r of d.rows) {
    assert.ok(Number.isFinite(r.predicted) && r.predicted > 0, r.id);
    assert.ok(Math.abs(r.error - (r.predicted / r.measured - 1)) < 1e-12, r.id);
  }
  const trt = json(['validate', '--engine', 'trtllm', '--metric', 'output_tokens_per_s']);
  assert.ok(trt.rows.length > 0);
  assert.ok(trt.rows.every((r) => r.engine === 'tensorrt-llm' && r.metric === 'output_tokens_per_s'));
  const bad = run(['validate', '--engine', 'foo']);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /\(\/engine\) unknown engine "foo"/);
});

test('ratchet: no median |error| gets worse than the recorded one', () => {
  const recorded = JSON.parse(readFileSync(join(root, 'tests/fixtures/validation_ratchet.json'), 'utf8')).summary;
  const now = Object.fromEntries(json(['validate']).summary.map((s) => [`${s.engine} ${s.metric}`, s]));
  for (const [key, r] of Object.entries(recorded)) {
    assert.ok(now[key], `${key}: no longer predicted`);
    assert.ok(
      now[key].median_abs_error <= r.median_abs_error + 1e-9,
      `${key}: median |error| ${now[key].median_abs_error} is worse than the recorded ${r.median_abs_error}`,
    );
  }
});
