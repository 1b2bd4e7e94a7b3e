// Hostile headers and configs in the WebAssembly module (issue 26, items 1 and 2): a GGUF
// block_count of 2^40 ended in an `internal` error (bad_alloc) after looping; a config.json of
// 100k keys took 9.7 s on the page's main thread. Each is now refused with the core's code and
// message, or answered, within a generous cap; the figures are printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from './load.mjs';
import {
  hugeBlockCountGguf,
  manyKeysConfig,
  manyTensorsGguf,
  manyTensorsSafetensors,
} from '../fixtures/hostile_files.mjs';

const { fc, FlopcastError } = await load();

const capSeconds = 15; // generous: the quadratic parse took 9.7 s at 100k keys, the loop forever
function timed(what, fn) {
  const t = performance.now();
  const out = fn();
  const s = (performance.now() - t) / 1e3;
  console.log(`${what}: ${s.toFixed(2)} s`);
  assert.ok(s < capSeconds, `${what} took ${s} s`);
  return out;
}

test('a GGUF block_count of 2^40: the header is summarised and the architecture refused, naming the key', () => {
  const file = hugeBlockCountGguf();
  const s = timed('inspectCheckpoint, block_count 2^40', () => fc.inspectCheckpoint(file, file.length));
  assert.equal(s.format, 'gguf');
  assert.equal(s.tensor_count, 1);
  assert.equal(s.config, null);
  assert.equal(s.architecture_check, null);
  assert.match(s.architecture_error, /^\[flopcast\.config\.range\]/);
  assert.ok(
    s.architecture_error.includes(
      '(/metadata/qwen3moe.block_count) expected a positive integer (at most 2^16), but got 1099511627776',
    ),
    s.architecture_error,
  );
  assert.ok(!s.architecture_error.includes('internal'), s.architecture_error);
});

test('65,536 layers x 200k tensors: refused at /tensor_count (at most 2^16) before any is read', () => {
  const file = manyTensorsGguf(65_536, 200_000);
  assert.throws(
    () => timed('inspectCheckpoint, 65,536 layers x 200k tensors', () => fc.inspectCheckpoint(file, file.length)),
    (e) =>
      e instanceof FlopcastError &&
      e.code === 'limit' &&
      e.pointer === '/tensor_count' &&
      e.message === '[flopcast.limit] (/tensor_count) 200000 tensors: expected at most 65536 (2^16)',
  );
});

test('65,536 layers x 65,536 tensors (the limit): the implied config has every layer dense (no routers)', () => {
  const file = manyTensorsGguf(65_536, 65_536);
  const s = timed('inspectCheckpoint, 65,536 layers x 65,536 tensors', () => fc.inspectCheckpoint(file, file.length));
  assert.equal(s.tensor_count, 65_536);
  assert.equal(s.architecture_error, null);
  assert.equal(s.config.num_hidden_layers, 65_536);
  assert.equal(s.config.mlp_only_layers.length, 65_536);
});

test('a safetensors header of 150k tensors: summarised', () => {
  // 150,000 one-element F32 tensors: 600,000 bytes of data.
  const file = manyTensorsSafetensors(150_000);
  const s = timed('inspectCheckpoint, safetensors of 150k tensors', () => fc.inspectCheckpoint(file, file.length));
  assert.equal(s.tensor_count, 150_000);
  assert.equal(s.total_bytes, 600_000);
});

test('a config of 100k keys: estimated as without them; a repeated key and deep nesting refused', () => {
  const plain = fc.estimate({ model: manyKeysConfig(0), gpu: 'H100' });
  const many = timed('estimate, config of 100k keys', () =>
    fc.estimate({ model: manyKeysConfig(100_000), gpu: 'H100' }),
  );
  assert.equal(many.parameters, plain.parameters);
  assert.equal(many.memory, plain.memory);
  // The same as text with its last key twice: the core's duplicate-key refusal, not `internal`.
  const text = JSON.stringify({ model: manyKeysConfig(100_000), gpu: 'H100' });
  const twice = `${text.slice(0, -1)},"gpu":"H100"}`;
  assert.throws(
    () => timed('estimate, 100k keys and one twice', () => fc.estimate(twice)),
    (e) =>
      e instanceof FlopcastError &&
      e.code === 'config.parse' &&
      e.message.includes('has the key "gpu" twice in one object: expected each key once'),
  );
  // 100k nested arrays as text (the object form is refused by the wrapper's own depth check).
  const deep = `{"model": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`;
  assert.throws(
    () => timed('estimate, 100k nested arrays', () => fc.estimate(deep)),
    (e) => e instanceof FlopcastError && e.code === 'limit' && /nested deeper than 128 levels/.test(e.message),
  );
});
