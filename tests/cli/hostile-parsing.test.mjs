// Hostile checkpoint headers at the CLI (issue 26, item 1): `flopcast inspect` and `estimate` on
// the GGUF reproducers (tests/fixtures/hostile_files.mjs), written to a temporary folder. A
// block_count of 2^40 is refused naming the key (estimate: exit 2; inspect: the header is shown
// and the architecture check says why it was not made), 65,536 layers x 200k tensors is refused
// at its tensor count and 65,536 x 65,536 (the limit) answered; and a safetensors header of 150k
// tensors is read. Before the fix the first looped 2^40 times, the second was quadratic (103 s)
// and the safetensors header took over 9 minutes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { hugeBlockCountGguf, manyTensorsGguf, manyTensorsSafetensors } from '../fixtures/hostile_files.mjs';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-hostile-parsing-'));
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');
test.after(() => rmSync(tmp, { recursive: true, force: true }));

// A generous cap: the bad behaviour ran until memory ran out or for minutes.
const capMs = 60_000;
function run(args) {
  const t = performance.now();
  const r = spawnSync(bin, args, { encoding: 'utf8', cwd: tmp, timeout: capMs, maxBuffer: 1 << 28 });
  const ms = performance.now() - t;
  console.log(`flopcast ${args.slice(0, 2).join(' ')}: ${(ms / 1e3).toFixed(2)} s, exit ${r.status}`);
  assert.notEqual(r.signal, 'SIGTERM', `flopcast ${args.join(' ')} ran past ${capMs / 1e3} s`);
  return { code: r.status, out: r.stdout, err: r.stderr };
}

const refusal =
  '[flopcast.config.range] (/metadata/qwen3moe.block_count) expected a positive integer (at most 2^16), but got 1099511627776';

test('a GGUF block_count of 2^40 (a 70 KB file): estimate exits 2 naming the key', () => {
  const file = join(tmp, 'blocks-2^40.gguf');
  writeFileSync(file, hugeBlockCountGguf());
  const r = run(['estimate', file, '-g', 'H100']);
  assert.equal(r.code, 2, r.err);
  assert.ok(r.err.includes(refusal), r.err);
  const j = run(['estimate', file, '-g', 'H100', '--json']);
  assert.equal(j.code, 2, j.err);
});

test('a GGUF block_count of 2^40: inspect shows the header and why the architecture was not compared', () => {
  const file = join(tmp, 'blocks-2^40-inspect.gguf');
  writeFileSync(file, hugeBlockCountGguf());
  const r = run(['inspect', file]);
  assert.equal(r.code, 0, r.err);
  assert.ok(r.out.includes(refusal), r.out);
  const j = run(['inspect', file, '--json']);
  assert.equal(j.code, 0, j.err);
  const s = JSON.parse(j.out);
  assert.equal(s.tensor_count, 1);
  assert.ok(s.architecture_check.error.includes(refusal), s.architecture_check.error);
});

test('65,536 layers x 200k tensors (past the 2^16 tensors a GGUF may hold): inspect and estimate exit 2 at /tensor_count', () => {
  const file = join(tmp, 'many-tensors.gguf');
  writeFileSync(file, manyTensorsGguf(65_536, 200_000));
  const limit = '[flopcast.limit] (/tensor_count) 200000 tensors: expected at most 65536 (2^16)';
  for (const args of [
    ['inspect', file, '--json'],
    ['estimate', file, '-g', 'H100', '--json'],
  ]) {
    const r = run(args);
    assert.equal(r.code, 2, r.err);
    assert.ok(r.err.includes(limit), r.err);
  }
});

test('65,536 layers x 65,536 tensors (the limit): inspect and estimate answer, every layer dense (no routers)', () => {
  const file = join(tmp, 'many-tensors-limit.gguf');
  writeFileSync(file, manyTensorsGguf(65_536, 65_536));
  const r = run(['inspect', file, '--json']);
  assert.equal(r.code, 0, r.err);
  const s = JSON.parse(r.out);
  assert.equal(s.tensor_count, 65_536);
  // No blk.N.ffn_gate_inp.weight at all: layers 0..65535 are all in mlp_only_layers.
  assert.equal(s.config.num_hidden_layers, 65_536);
  assert.equal(s.config.mlp_only_layers.length, 65_536);
  assert.equal(s.config.mlp_only_layers.at(-1), 65_535);
  const e = run(['estimate', file, '-g', 'H100', '--json']);
  assert.equal(e.code, 0, e.err);
  assert.equal(JSON.parse(e.out).details.settings.weight_bytes, s.total_bytes);
});

test('a safetensors header of 150k tensors: inspect answers', () => {
  // 150,000 one-element F32 tensors: 600,000 bytes of data.
  const file = join(tmp, 'many-tensors.safetensors');
  writeFileSync(file, manyTensorsSafetensors(150_000));
  const r = run(['inspect', file, '--json']);
  assert.equal(r.code, 0, r.err);
  const s = JSON.parse(r.out);
  assert.equal(s.tensor_count, 150_000);
  assert.equal(s.total_bytes, 600_000);
  assert.equal(s.total_elements, 150_000);
});
