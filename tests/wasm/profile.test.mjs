// The graph profiler in WebAssembly (profile(graph, options)) gives the native CLI's profile of
// the ONNX fixtures, from the graph alone (value_infos removed: no ONNX shape inference in a
// browser, the core's own shape propagation must cover them), and errors as JS Errors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load, root } from './load.mjs';

const { fc } = await load();
const bin = join(root, 'build/flopcast');
const dir = mkdtempSync(join(tmpdir(), 'flopcast-wasm-profile-'));
execFileSync('/usr/bin/python3', [join(root, 'tests/fixtures/onnx/make_fixtures.py'), dir]);

test('WASM profile = native profile for every fixture', () => {
  for (const [name, dims] of [
    ['convnet', {}],
    ['rnn', {}],
    ['vit_block', {}],
    ['llama_block', { batch: 2, seq: 128 }],
    ['unknown_op', {}],
  ]) {
    const file = join(dir, `${name}.onnx`);
    const dimArgs = Object.keys(dims).length
      ? [
          '--dim',
          Object.entries(dims)
            .map(([k, v]) => `${k}=${v}`)
            .join(','),
        ]
      : [];
    const native = JSON.parse(execFileSync(bin, ['profile', file, '-g', 'A100', '--depth', '2', '--json', ...dimArgs]));
    const graph = JSON.parse(execFileSync(bin, ['profile', file, '--graph']));
    graph.value_infos = [];
    const wasm = fc.profile(graph, { dims, gpu: 'A100', depth: 2 });
    assert.deepEqual(wasm.total, native.total, name);
    assert.deepEqual(wasm.by_op_type, native.by_op_type, name);
    assert.deepEqual(wasm.by_scope, native.by_scope, name);
    assert.equal(wasm.nodes.length, native.nodes.length, name);
  }
});

test('bad graphs and options are JS Errors with the core message', () => {
  const g = {
    inputs: [{ name: 'x', elem_type: 1, dims: ['n', 4] }],
    nodes: [{ op_type: 'Relu', inputs: ['x'], outputs: ['y'] }],
  };
  assert.throws(() => fc.profile(g), /unbound symbolic dimension "n" of graph input "x"/);
  assert.throws(() => fc.profile(g, { dims: { n: 0 } }), /\(\/dims\/n\)/);
  assert.throws(() => fc.profile(g, { dims: { n: 2 }, gpu: 'nope' }), /unknown_gpu/);
  assert.throws(() => fc.profile('{"nodes": 3}'), /\(\/nodes\) expected an array/);
  assert.equal(fc.profile(g, { dims: { n: 2 } }).total.flops, 8);
});
