// Issue 26's reproducers through the WASM API (the page's path), items 3, 4 and 5: each is refused
// with the core's coded error, quickly and without growing the module's heap. The CLI and Catch2
// suites check the same inputs natively (tests/cli/hostile-*.test.mjs, tests/cpp/test_hostile_*).
// Durations are printed, not asserted.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { load } from './load.mjs';

const { fc, FlopcastError } = await load();
const p62 = '4611686018427387904'; // 2^62, written as JSON text (a JS number is not exact past 2^53)

/** The error `fn` throws (a FlopcastError), with its time printed under `what`. */
function refusal(what, fn) {
  const t0 = performance.now();
  let error = null;
  try {
    fn();
  } catch (e) {
    error = e;
  }
  console.log(`#   ${what}: ${(performance.now() - t0).toFixed(1)} ms`);
  assert.ok(error instanceof FlopcastError, `${what}: a FlopcastError, got ${error}`);
  return error;
}

test('item 4: shape arithmetic that overflowed int64 is refused at its node or input', () => {
  // x [4, 4] tiled by [2^62, 2^62]: it gave 64 B of activations and 0 FLOPs.
  const tile = `{"opset":17,"inputs":[{"name":"x","elem_type":1,"dims":[4,4]}],
    "initializers":[{"name":"r","elem_type":7,"dims":[2],"values":[${p62},${p62}]}],
    "nodes":[{"name":"tile","op_type":"Tile","inputs":["x","r"],"outputs":["y"]}]}`;
  const e = refusal('Tile by [2^62, 2^62]', () => fc.profile(tile));
  assert.equal(e.code, 'config.range');
  assert.equal(e.pointer, '/nodes/0');
  assert.match(e.message, /node "tile" \(Tile\): a size overflows 64-bit integers .*at most 1099511627776/);
  // A MatMul of 2^62-sized inputs: it gave 1.96e56 FLOPs.
  const matmul = `{"inputs":[{"name":"a","elem_type":1,"dims":[${p62},${p62}]},{"name":"b","elem_type":1,"dims":[${p62},${p62}]}],
    "nodes":[{"op_type":"MatMul","inputs":["a","b"],"outputs":["y"]}]}`;
  const m = refusal('MatMul of 2^62 dimensions', () => fc.profile(matmul));
  assert.equal(m.pointer, '/inputs/0');
  assert.match(m.message, /graph input "a" has a dimension of 4611686018427387904: expected at most 1099511627776/);
});

test('item 5: a graph over the node limit is refused by its count, before it is built', () => {
  // 131,073 nodes (the limit plus one), 7.6 MB of graph JSON: under the 16 MiB text limit, so the
  // node count is what refuses it.
  const node = '{"op_type":"Relu","inputs":["x"],"outputs":["x"]}';
  const text = `{"inputs":[{"name":"x","elem_type":1,"dims":[4]}],"nodes":[${Array(131073).fill(node).join(',')}]}`;
  const heap = fc.heapUsed();
  const e = refusal(`${(text.length / 2 ** 20).toFixed(1)} MiB graph of 131,073 nodes`, () => fc.profile(text));
  assert.equal(e.code, 'limit');
  assert.equal(e.pointer, '/nodes');
  assert.match(e.message, /the graph has 131073 nodes: expected at most 131072/);
  assert.ok(fc.heapUsed() - heap <= 1 << 20, `heap grew by ${fc.heapUsed() - heap} bytes`);
});

test('item 3: a simulation whose work passes the bound is refused before it runs', () => {
  // The second reproducer: 1000 requests of 10^6 output tokens at concurrency 1 (78 s a
  // point before); and 1e6 requests of 9,999,999 prompt tokens in chunks of 1 (days).
  const sim = { input_tokens: 1, output_tokens: 1000000, concurrency: 1 };
  const run = (simulation) => () => fc.simulate({ model: 'llama-3.2-1b', gpu: 'H100', engine: 'none', simulation });
  const e = refusal('1000 x 10^6 output tokens', run({ ...sim, num_requests: 1000 }));
  assert.equal(e.code, 'limit');
  assert.equal(e.pointer, '/simulation/num_requests');
  assert.match(e.message, /the simulation's work is bounded by 1000001000 units .*expected at most 150000000/);
  const days = refusal(
    '1e6 x 9,999,999 prompt tokens in chunks of 1',
    run({
      ...sim,
      num_requests: 1000000,
      input_tokens: 9999999,
      output_tokens: 1,
      max_num_batched_tokens: 1,
      kv_blocks: 1000000000,
    }),
  );
  assert.equal(days.code, 'limit');
});
