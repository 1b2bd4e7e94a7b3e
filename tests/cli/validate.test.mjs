// `flopcast validate` on the shipped table (data/measurements/): every predicted row is a finite,
// positive figure of the core, filters work, an unknown engine is refused, and the ratchet: no
// engine/metric's median |error| may get worse than tests/fixtures/validation_ratchet.json says.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const run = (args) => spawnSync(bin, args, { encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
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
  assert.match(bad.stderr, /\/engine\) unknown engine "foo"/);
  // Both parts of the split are reported; the held-out rows are whole sources.
  const splits = new Set(d.rows.map((r) => r.split));
  assert.deepEqual([...splits].sort(), ['fit', 'held_out']);
  const bySource = new Map();
  for (const r of d.rows) bySource.set(r.source, (bySource.get(r.source) ?? new Set()).add(r.split));
  for (const [source, s] of bySource) assert.equal(s.size, 1, `${source} is split across the fit and held-out parts`);
});

// The ratchet: each engine/metric/split median |error| per source (campaign; groups of at least 5
// rows) may only improve, so a new campaign adds groups instead of moving old ones.
// FLOPCAST_WRITE_RATCHET=1 records the current figures where they are better (or new).
test('ratchet: no median |error| gets worse than the recorded one', () => {
  const file = join(root, 'tests/fixtures/validation_ratchet.json');
  const stored = JSON.parse(readFileSync(file, 'utf8'));
  // Rows that state serving features (prefix caching, attention DP, speculative decoding, ...)
  // are their own groups: "<engine> <metric> <split> features <source>".
  const all = json(['validate', '--by-source']);
  const now = Object.fromEntries(
    all.summary.map((s) => [`${s.engine} ${s.metric} ${s.split}${s.features ? ' features' : ''} ${s.source}`, s]),
  );
  // Training rows (the training step model) per framework, metric, split and source.
  const median = (v) => {
    const x = [...v].sort((a, b) => a - b);
    const h = (x.length - 1) * 0.5;
    return x[Math.floor(h)] + (x[Math.ceil(h)] - x[Math.floor(h)]) * (h - Math.floor(h));
  };
  const training = new Map();
  for (const r of all.training?.rows ?? []) {
    const key = `training ${r.engine} ${r.metric} ${r.split} ${r.source}`;
    training.set(key, [...(training.get(key) ?? []), Math.abs(r.error)]);
  }
  for (const [key, e] of training) now[key] = { rows: e.length, median_abs_error: median(e) };
  if (process.env.FLOPCAST_WRITE_RATCHET === '1') {
    for (const [key, s] of Object.entries(now)) {
      if (s.rows < 5) continue;
      const value = Math.ceil(s.median_abs_error * 1e6) / 1e6;
      const old = stored.summary[key];
      if (!old || value < old.median_abs_error) stored.summary[key] = { rows: s.rows, median_abs_error: value };
    }
    stored.summary = Object.fromEntries(Object.entries(stored.summary).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(file, JSON.stringify(stored, null, 1) + '\n');
  }
  for (const [key, r] of Object.entries(stored.summary)) {
    assert.ok(now[key], `${key}: no longer predicted`);
    assert.ok(
      now[key].median_abs_error <= r.median_abs_error + 1e-9,
      `${key}: median |error| ${now[key].median_abs_error} is worse than the recorded ${r.median_abs_error}`,
    );
  }
});
