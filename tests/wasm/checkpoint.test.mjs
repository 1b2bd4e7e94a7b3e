// The checkpoint bindings: checkpointHeaderBytes / inspectCheckpoint / inspectCheckpointFile on
// files written here (tests/fixtures/checkpoint_files.mjs), and an estimate with the exact bytes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from './load.mjs';
import {
  tinyLlamaConfig,
  tinyLlamaGguf,
  tinyLlamaParams,
  tinyLlamaSafetensors,
} from '../fixtures/checkpoint_files.mjs';

const { fc, FlopcastError } = await load();

test('GGUF: the header loop, the summary, the implied config, and an estimate at the exact bytes', async () => {
  const g = tinyLlamaGguf();
  const file = g.file();
  const header = g.header();
  // A prefix too short asks for more; the whole header is enough.
  assert.ok(fc.checkpointHeaderBytes(file.subarray(0, 64)) > 64);
  assert.equal(fc.checkpointHeaderBytes(header), header.length);
  const s = await fc.inspectCheckpointFile(new Blob([file]));
  assert.equal(s.format, 'gguf');
  assert.equal(s.total_bytes, g.weightBytes);
  assert.equal(s.weight_bytes, g.weightBytes);
  assert.equal(s.total_elements, tinyLlamaParams);
  assert.equal(s.mix, 'Q4_K_M');
  assert.deepEqual(s.by_dtype.map((t) => t.name).sort(), ['F16', 'F32', 'Q4_K', 'Q6_K']);
  assert.equal(s.config.model_type, 'llama');
  assert.equal(s.architecture_check.matches, true);
  const e = fc.estimate({ model: s.config, weight_bytes: s.weight_bytes, gpu: 'H100' });
  assert.equal(e.details.memory.weights, g.weightBytes);
  assert.equal(e.details.settings.weight_bytes, g.weightBytes);
  assert.equal(e.details.settings.weight_bytes_source, null);
});

test('safetensors: bytes by dtype, the architecture only with a config, and errors', () => {
  const st = tinyLlamaSafetensors();
  const alone = fc.inspectCheckpoint(st.bytes, st.bytes.length);
  assert.equal(alone.total_bytes, st.weightBytes);
  assert.equal(alone.mix, 'BF16 + F32');
  assert.equal(alone.config, null);
  assert.match(alone.architecture_error, /holds no architecture/);
  const withConfig = fc.inspectCheckpoint(st.bytes.buffer.slice(0), st.bytes.length, tinyLlamaConfig);
  assert.equal(withConfig.config_source, 'config');
  assert.equal(withConfig.architecture_check.architecture_parameters, tinyLlamaParams);
  assert.equal(withConfig.architecture_check.matches, true);
  // A truncated header, a bad size, a bad argument: FlopcastErrors with the core's message.
  assert.throws(
    () => fc.inspectCheckpoint(st.bytes.subarray(0, 40)),
    (e) => e instanceof FlopcastError && e.code === 'config.parse',
  );
  assert.throws(
    () => fc.inspectCheckpoint(st.bytes, 1.5),
    (e) => e.pointer === '/file_size',
  );
  assert.throws(() => fc.inspectCheckpoint('not bytes'), FlopcastError);
  assert.throws(
    () => fc.checkpointHeaderBytes(new TextEncoder().encode('hello world, not a checkpoint')),
    /\[flopcast\.config\.parse\] not a checkpoint/,
  );
  assert.throws(
    () => fc.checkpointHeaderBytes(new TextEncoder().encode('{"weight_map": {}}')),
    /index\.json only lists shards/,
  );
  // A config the reader refuses: the summary still comes, with the reason.
  const bad = fc.inspectCheckpoint(st.bytes, st.bytes.length, { model_type: 'llama' });
  assert.equal(bad.config, null);
  assert.match(bad.architecture_error, /hidden_size/);
});
