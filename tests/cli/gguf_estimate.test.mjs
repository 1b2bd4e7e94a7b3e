// `flopcast estimate FILE.gguf` / `FILE.safetensors`: the weights are the checkpoint's exact bytes
// (weight_bytes, from the header), not parameters x bytes per weight. The files are written here
// (tests/fixtures/checkpoint_files.mjs), so the expected bytes come from the formats' block layouts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { formatNumber } from '../../web/src/format.js';
import {
  tinyLlamaConfig,
  tinyLlamaGguf,
  tinyLlamaParams,
  tinyLlamaSafetensors,
} from '../fixtures/checkpoint_files.mjs';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-gguf-estimate-'));
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

function run(args) {
  const r = spawnSync(bin, args, { encoding: 'utf8', cwd: tmp });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function estimate(args) {
  const r = run(['estimate', ...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}

const gguf = tinyLlamaGguf();
const ggufFile = join(tmp, 'tiny-Q4_K_M.gguf');
writeFileSync(ggufFile, gguf.file());
// Q4_K: 144 bytes per 256 weights; Q6_K: 210 per 256; F16 2 bytes; F32 4.
const q4 = (a, b) => (a / 256) * 144 * b;
const q6 = (a, b) => (a / 256) * 210 * b;
const exact =
  q4(256, 300) +
  2 * (2 * 256 * 4 + q4(256, 256) + q4(256, 128) + q6(256, 128) + 2 * 256 * 256 + 2 * q4(256, 512) + q6(512, 256)) +
  256 * 4 +
  q6(256, 300);

test('the tiny GGUF: the writer and the expected bytes agree (the file is what the test says)', () => {
  assert.equal(gguf.weightBytes, exact);
  const r = run(['inspect', ggufFile, '--json']);
  assert.equal(r.code, 0, r.err);
  const i = JSON.parse(r.out);
  assert.equal(i.total_bytes, exact);
  assert.equal(i.total_elements, tinyLlamaParams);
  assert.deepEqual(i.by_dtype.map((t) => t.name).sort(), ['F16', 'F32', 'Q4_K', 'Q6_K']);
});

test('estimate FILE.gguf --json: weights memory is the exact bytes of its tensors, and says so', () => {
  const e = estimate([ggufFile, '-g', 'H100']);
  assert.equal(e.parameters, tinyLlamaParams);
  assert.equal(e.details.memory.weights, exact);
  assert.notEqual(exact, tinyLlamaParams * 2); // not bf16 x parameters
  assert.equal(e.details.settings.weight_bytes, exact);
  const bits = formatNumber((8 * exact) / tinyLlamaParams); // the display rules (web/src/format.js)
  assert.equal(
    e.details.settings.weight_bytes_source,
    `exact bytes from ${ggufFile} (Q4_K_M mix: ${bits} bits/weight)`,
  );
  assert.ok(
    e.note.some((n) => /checkpoint's exact bytes \(weight_bytes\)/.test(n)),
    e.note.join('\n'),
  );
  const m = e.details.memory;
  assert.equal(e.memory, m.weights + m.kv_cache + m.activations);

  // The roofline reads those bytes: decode at batch 1 moves the exact weights (+ the KV cache),
  // less than the same model costed at bf16.
  const plain = estimate([ggufFile, '-g', 'H100', '--weight-bytes', String(tinyLlamaParams * 2)]);
  assert.equal(plain.details.memory.weights, tinyLlamaParams * 2);
  assert.equal(plain.details.settings.weight_bytes_source, '--weight-bytes'); // the flag wins
  const perf = e.details.performance,
    base = plain.details.performance;
  assert.ok(perf.decode_first_step_bytes < base.decode_first_step_bytes);
  // Every weight but the token-embedding rows not gathered is read: the difference is the bytes
  // the two weight totals differ by, scaled by the share read.
  const ratio = (base.decode_first_step_bytes - perf.decode_first_step_bytes) / (tinyLlamaParams * 2 - exact);
  assert.ok(ratio > 0.5 && ratio <= 1, `share of the weights a decode step reads: ${ratio}`);

  const text = run(['estimate', ggufFile, '-g', 'none']);
  assert.equal(text.code, 0, text.err);
  assert.match(
    text.out,
    /- weights .*\(EXACT: exact bytes from .*tiny-Q4_K_M\.gguf \(Q4_K_M mix: [\d.]+ bits\/weight\)\)/,
  );
});

test('estimate FILE.safetensors beside config.json: the exact bytes of a BF16 + F32 file, whatever --precision', () => {
  const dir = join(tmp, 'st');
  mkdirSync(dir);
  const st = tinyLlamaSafetensors();
  writeFileSync(join(dir, 'model.safetensors'), st.bytes);
  writeFileSync(join(dir, 'config.json'), JSON.stringify(tinyLlamaConfig));
  const norms = 5 * 256;
  assert.equal(st.weightBytes, 2 * (tinyLlamaParams - norms) + 4 * norms);
  for (const precision of ['bf16', 'int4']) {
    const e = estimate([join(dir, 'model.safetensors'), '-g', 'none', '-p', precision]);
    assert.equal(e.parameters, tinyLlamaParams);
    assert.equal(e.details.memory.weights, st.weightBytes, precision);
    assert.match(e.details.settings.weight_bytes_source, /^exact bytes from .*model\.safetensors \(BF16 \+ F32 mix: /);
  }
  // A config.json MODEL has no checkpoint: parameters x bytes per weight, as before.
  const c = estimate([join(dir, 'config.json'), '-g', 'none']);
  assert.equal(c.details.memory.weights, 2 * tinyLlamaParams);
  assert.equal(c.details.settings.weight_bytes, null);
});

test('weight_bytes: bounds, and one model only', () => {
  const bad = run(['estimate', 'llama-3-8b', '--weight-bytes', '0']);
  assert.equal(bad.code, 2);
  assert.match(bad.err, /\(--weight-bytes, \/weight_bytes\) expected a number of bytes in \(0, 1e\+16\]/);
  // compare with a checkpoint and another model: the checkpoint's bytes are not applied to both.
  const cmp = run(['compare', ggufFile, 'gpt2', '-g', 'none', '--json']);
  assert.equal(cmp.code, 0, cmp.err);
  const rows = JSON.parse(cmp.out);
  assert.equal(rows.length, 2);
  const two = run(['compare', ggufFile, 'gpt2', '--weight-bytes', '1e9']);
  assert.equal(two.code, 2);
  assert.match(two.err, /weight_bytes is one checkpoint's exact size: expected one model, but got 2/);
});
