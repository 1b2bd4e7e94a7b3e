// `flopcast profile` on hostile .onnx files the test writes byte by byte (tests/cli/onnx-wire.mjs),
// issue 26: the Tile reproducer whose sizes overflowed int64 (it reported 64 B and 0 FLOPs), a
// MatMul of 2^62 dimensions (1.96e56 FLOPs), a 10 MB file of 300k nodes (parsed, shape-inferred
// and written as 830 MB of graph JSON before a limit refused it) and If bodies nested 33 deep
// (reported as "not an ONNX model"). Each exits 2 with one coded line naming the file or node and
// the limit; the wall time of each is printed (not asserted tightly: the limits are checked
// before any work, so a generous cap is enough to catch a regression to the old behaviour).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import * as w from './onnx-wire.mjs';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const dir = mkdtempSync(join(tmpdir(), 'flopcast-hostile-profile-'));

function write(name, bytes) {
  const file = join(dir, name);
  writeFileSync(file, bytes);
  return file;
}
function profile(file) {
  const t0 = process.hrtime.bigint();
  const r = spawnSync(bin, ['profile', file, '--json'], { encoding: 'utf8', maxBuffer: 64 << 20 });
  const s = Number(process.hrtime.bigint() - t0) / 1e9;
  console.log(`  ${file.slice(dir.length + 1)}: exit ${r.status} in ${s.toFixed(3)} s`);
  return { code: r.status, out: r.stdout, err: r.stderr, s };
}
const output = (name) => [w.bytes(1, name)]; // a graph output with no type
const big = 2n ** 62n;
// A model of one node "op" whose output is y.
const oneNode = (file, op, names, inputs, initializers = []) =>
  write(
    file,
    w.model(
      w.graph({ nodes: [w.node(op, names, ['y'], op.toLowerCase())], inputs, outputs: [output('y')], initializers }),
    ),
  );

test('Tile of a 4x4 tensor by [2^62, 2^62] is refused, naming the node', () => {
  const file = oneNode(
    'tile.onnx',
    'Tile',
    ['x', 'r'],
    [w.valueInfo('x', 1, [4, 4])],
    [w.int64Tensor('r', [big, big])],
  );
  const r = profile(file);
  assert.equal(r.code, 2, r.out);
  assert.match(
    r.err,
    /^flopcast: error: \[flopcast\.config\.range\] \(\/nodes\/0\) node "tile" \(Tile\): a size overflows 64-bit integers \(4 x 4611686018427387904\): expected sizes at most 1099511627776 \(2\^40, as --dim\)\n$/,
  );
});

test('MatMul of [2^62, 2^62] inputs is refused at the graph input', () => {
  const file = oneNode(
    'matmul.onnx',
    'MatMul',
    ['a', 'b'],
    [w.valueInfo('a', 1, [big, big]), w.valueInfo('b', 1, [big, big])],
  );
  const r = profile(file);
  assert.equal(r.code, 2, r.out);
  assert.match(
    r.err,
    /\[flopcast\.config\.range\] \(\/inputs\/0\) graph input "a" has a dimension of 4611686018427387904/,
  );
});

test('a 10 MB file of 300k nodes is refused before decoding, naming the file and the limit', () => {
  const n = 300000;
  const nodes = [];
  for (let i = 0; i < n; i++) nodes.push(w.node('Relu', [`t${i}`], [`t${i + 1}`], `n${i}`));
  const bytes = w.model(w.graph({ nodes, inputs: [w.valueInfo('t0', 1, [1, 8])], outputs: [output(`t${n}`)] }));
  console.log(`  many.onnx: ${(bytes.length / 1e6).toFixed(1)} MB`);
  const file = write('many.onnx', bytes);
  const r = profile(file);
  assert.equal(r.code, 2, r.out.slice(0, 200));
  assert.equal(
    r.err,
    `flopcast: error: [flopcast.limit] (MODEL) ${file} has 300000 nodes: expected at most 131072 (flopcast profile's graph limit)\n`,
  );
  // Before: shape inference and 830 MB of graph JSON, 7 s or more. Now: its nodes are counted on
  // the wire format, before protobuf decodes it.
  assert.ok(r.s < 15, `${r.s} s`);
});

// An If node whose then_branch nests `depth - 1` more If bodies (else branches stay flat).
function nested(depth) {
  const chain = (k) =>
    k === 0
      ? w.graph({ nodes: [w.node('Identity', ['x'], ['y0'])], outputs: [output('y0')], name: 'b0' })
      : w.graph({
          nodes: [
            w.node('If', ['c'], [`y${k}`], `if${k}`, [
              w.attrGraph('then_branch', chain(k - 1)),
              w.attrGraph('else_branch', chain(0)),
            ]),
          ],
          outputs: [output(`y${k}`)],
          name: `b${k}`,
        });
  const g = chain(depth);
  return w.model([...g, w.bytes(11, w.valueInfo('c', 9, [])), w.bytes(11, w.valueInfo('x', 1, [2]))]);
}

test('If bodies nested 33 deep get the nesting limit, not "not an ONNX model"; 32 deep is read', () => {
  const deep = write('nest33.onnx', nested(33));
  const r = profile(deep);
  assert.equal(r.code, 2, r.out);
  assert.equal(
    r.err,
    `flopcast: error: [flopcast.limit] (MODEL) ${deep} nests subgraphs (If / Loop / Scan bodies) more than 32 levels deep: expected at most 32\n`,
  );
  // 200 deep (600 nested messages, past protobuf's default limit of 100) gets the same error.
  const deeper = profile(write('nest200.onnx', nested(200)));
  assert.equal(deeper.code, 2);
  assert.match(deeper.err, /\[flopcast\.limit\] .* more than 32 levels deep/);
  // At the limit the model is read: its one If node is not costed (no rule for If).
  const ok = profile(write('nest32.onnx', nested(32)));
  assert.equal(ok.code, 0, ok.err);
  const p = JSON.parse(ok.out);
  assert.equal(p.total.nodes, 1);
  assert.deepEqual(p.unknown_ops, ['If']);
});
