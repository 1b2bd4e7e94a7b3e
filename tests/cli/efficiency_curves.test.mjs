// `flopcast list-curves`: every measured kernel curve of data/efficiency/ with its source; and
// `estimate --operators --json`: each row's kernel_curve (null where no curve covers it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const run = (args) => spawnSync(bin, args, { encoding: 'utf8' });
const dir = join(root, 'data/efficiency');
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

test('list-curves lists every curve of every file with its source address', () => {
  const r = run(['list-curves']);
  assert.equal(r.status, 0, r.stderr);
  let curves = 0;
  for (const f of files) {
    const doc = JSON.parse(readFileSync(join(dir, f), 'utf8'));
    assert.match(r.stdout, new RegExp(`^${doc.id}: `, 'm'));
    assert.ok(r.stdout.includes(doc.source.url), doc.source.url);
    for (const c of doc.curves) {
      assert.match(r.stdout, new RegExp(`\\n  ${c.id}\\s+${c.op}\\s+${c.device}\\s`), c.id);
      ++curves;
    }
  }
  assert.match(r.stdout, new RegExp(`\\n${curves} curves from ${files.length} sources`));
});

test('estimate --operators --json: kernel_curve beside the row, null where none covers it', () => {
  const r = run(['estimate', 'llama-3-8b', '--gpu', 'H800', '-p', 'fp8', '--operators', '--json']);
  assert.equal(r.status, 0, r.stderr);
  const ops = JSON.parse(r.stdout).details.operators;
  const q = ops.prefill.find((row) => row.name === 'q_proj');
  assert.equal(q.kernel_curve.source, 'deepseek-deepgemm-readme-h800-fp8');
  assert.equal(q.kernel_curve.op, 'gemm');
  assert.ok(q.kernel_curve.efficiency > 0 && q.kernel_curve.efficiency <= 1.05);
  assert.ok(
    Math.abs(q.kernel_curve.time_s - q.flops / (q.kernel_curve.efficiency * 1.9789e15)) <= 1e-9 * q.kernel_curve.time_s,
  );
  assert.equal(ops.prefill.find((row) => row.name === 'softmax').kernel_curve, null);
  const plain = JSON.parse(run(['estimate', 'llama-3-8b', '--gpu', 'A100', '--operators', '--json']).stdout);
  for (const row of plain.details.operators.prefill) assert.equal(row.kernel_curve, null, row.name);
});
