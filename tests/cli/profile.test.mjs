// `flopcast profile` on ONNX files the test builds itself (tests/fixtures/onnx/make_fixtures.py,
// Debian's python3-onnx): FLOPs, MACs and parameters equal the hand counts below exactly; the
// llama block's matmul FLOPs equal flopcast's analytic estimate of one llama-3.2-1b layer; the
// core's own shape propagation (what the page relies on, with no ONNX shape inference) gives
// the same totals as the native reader's inferred shapes; bad input exits 2 with one line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const dir = mkdtempSync(join(tmpdir(), 'flopcast-profile-'));
execFileSync('/usr/bin/python3', [join(root, 'tests/fixtures/onnx/make_fixtures.py'), dir]);
const fx = (name) => join(dir, name);

function run(args, env = {}) {
  const r = spawnSync(bin, args, { encoding: 'utf8', env: { ...process.env, ...env } });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function profile(file, ...args) {
  const r = run(['profile', file, '--json', ...args]);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}
const node = (p, name) => p.nodes.find((n) => n.name === name);

test('conv net (shapes not stored: ONNX shape inference) matches its hand count', () => {
  const p = profile(fx('convnet.onnx'));
  // conv1: out [1,16,32,32] = 16384 elements x (3 x 3 x 3) = 442368 MACs; + bias 16384.
  assert.equal(node(p, '/features/conv1/Conv').macs, 442368);
  assert.equal(node(p, '/features/conv1/Conv').flops, 2 * 442368 + 16384);
  // conv2 (group 4, stride 2, pad 1): 16x16 -> 8x8; out 32 x 64 = 2048 x (16/4 x 3 x 3 = 36).
  assert.equal(node(p, '/features/conv2/Conv').macs, 73728);
  assert.deepEqual(node(p, '/features/conv2/Conv').output_shapes, [[1, 32, 8, 8]]);
  // maxpool 2x2: 4096 outputs x 4; BN 2 x 16384; relus 16384 + 2048; GAP 2048 inputs;
  // gemm 10 x 32 MACs + 10 bias.
  assert.equal(node(p, '/features/pool/MaxPool').flops, 16384);
  assert.equal(node(p, '/classifier/fc/Gemm').flops, 650);
  // 901120 + 32768 + 16384 + 16384 + 147456 + 2048 + 2048 + 650
  assert.equal(p.total.flops, 1118858);
  assert.equal(p.total.macs, 442368 + 73728 + 320);
  // w1 432 + b1 16 + bn 4 x 16 + w2 32x4x3x3 1152 + w3 320 + b3 10
  assert.equal(p.total.parameters, 1994);
  assert.equal(p.total.not_costed, 0);
  assert.deepEqual(
    p.by_scope.map((s) => s.scope),
    ['features', 'pool', 'classifier', '(root)'],
  );
  const n = node(p, '/features/conv1/Conv');
  assert.ok(n.roofline_time_s > 0 && ['compute', 'memory'].includes(n.bound));
  // bytes: input 3x32x32 + output 16x32x32 fp32 activations; 448 weights x 4 bytes.
  assert.equal(n.activation_bytes, (3072 + 16384) * 4);
  assert.equal(n.weight_bytes, 448 * 4);
});

test('LSTM (bidirectional) and GRU match the per-step formulas', () => {
  const p = profile(fx('rnn.onnx'));
  // LSTM, H 16, I 8, seq 5, batch 2, 2 directions = 20 steps; per step 4H(I+H) = 1536 MACs,
  // 2 x 1536 + 13H (208) + biases 8H (128) = 3408 FLOPs.
  const l = node(p, '/encoder/lstm/LSTM');
  assert.equal(l.macs, 20 * 1536);
  assert.equal(l.flops, 20 * 3408);
  assert.equal(l.parameters, 2 * 64 * 8 + 2 * 64 * 16 + 2 * 128);
  assert.deepEqual(l.output_shapes, [
    [5, 2, 2, 16],
    [2, 2, 16],
    [2, 2, 16],
  ]);
  // GRU forward, 10 steps; per step 3H(I+H) = 1152 MACs, 2304 + 11H (176) + 6H (96) = 2576.
  const g = node(p, '/decoder/gru/GRU');
  assert.equal(g.macs, 10 * 1152);
  assert.equal(g.flops, 10 * 2576);
  assert.equal(g.parameters, 48 * 8 + 48 * 16 + 96);
});

test('ViT block matches its hand count', () => {
  const p = profile(fx('vit_block.onnx'));
  // T 16 tokens, D 64, 4 heads of 16, MLP 256. patch conv 1024 out x 192 = 196608 MACs + 1024;
  // LN 7 x 1024 twice; q/k/v/o 16x64x64 = 65536 MACs each + 1024 bias; scores and values
  // 4 x 16 x 16 x 16 = 16384 MACs each; scale 1024; softmax 5 x 1024; residuals 1024 twice;
  // fc1 16x64x256 = 262144 MACs + 4096; GELU (Div, Erf, Add, Mul, Mul) 5 x 4096; fc2 262144 + 1024.
  const macs = 196608 + 4 * 65536 + 2 * 16384 + 2 * 262144;
  const rest = 1024 + 2 * 7168 + 4 * 1024 + 1024 + 5120 + 2 * 1024 + 4096 + 5 * 4096 + 1024;
  assert.equal(p.total.macs, macs);
  assert.equal(p.total.flops, 2 * macs + rest); // 2084864
  // conv 64x192 + 64; LN 2 x 128; q/k/v/o 4 x (4096 + 64); fc1 16384 + 256; fc2 16384 + 64
  assert.equal(p.total.parameters, 12352 + 256 + 4 * 4160 + 16640 + 16448);
});

test('llama block: hand count, and the analytic estimate of one llama-3.2-1b layer', () => {
  const B = 2,
    S = 128,
    T = B * S,
    h = 2048,
    kv = 512,
    I = 8192;
  const p = profile(fx('llama_block.onnx'), '--dim', 'batch=2,seq=128');
  const matmul = p.by_op_type.find((o) => o.op_type === 'MatMul');
  // q, o 2Th^2; k, v 2Th x 512; scores, values 2 x B x 32 heads x S^2 x 64; gate/up/down 2ThI.
  const proj = 2 * 2 * T * h * h + 2 * 2 * T * h * kv;
  const attn = 2 * 2 * B * 32 * S * S * 64;
  const mlp = 3 * 2 * T * h * I;
  assert.equal(matmul.flops, proj + attn + mlp); // 31406948352
  assert.equal(p.total.parameters, 2 * h * h + 2 * h * kv + 3 * h * I + 2 * h);
  // RMS norm written out (Pow, ReduceMean, Add, Sqrt, Div, Mul): 4 per element + 2 per row.
  const norm = profile(fx('llama_block.onnx'), '--dim', 'batch=2,seq=128', '--depth', '4').by_scope.find(
    (s) => s.scope === 'model/layers/0/input_layernorm',
  );
  assert.equal(norm.flops, 4 * T * h + 2 * T);

  // The core's analytic figures for the same architecture at the same batch and length. Compared:
  // q/k/v projections, output projection, attention scores and values (the core's forward pass
  // counts all S x S pairs, as the masked ONNX matmuls do), and the MLP's three matmuls: the
  // core's MLP adds 1 FLOP per element for SiLU and 1 for the gate product (2TI), which the
  // export writes as Sigmoid + Mul + Mul (3TI), so those are left out of the comparison.
  const est = JSON.parse(execFileSync(bin, ['estimate', 'llama-3.2-1b', '-b', String(B), '-s', String(S), '--json']));
  const L = est.details.config.num_layers;
  const a = est.details.flops.forward_attention_detail;
  const analytic =
    (a.qkv_projection + a.output_projection + a.attention_scores + a.attention_values + est.mlp_flops) / L - 2 * T * I;
  assert.equal(matmul.flops, analytic);
});

test("the core's own shape propagation (the page's path) gives the native totals", () => {
  for (const [name, dims] of [
    ['convnet', []],
    ['rnn', []],
    ['vit_block', []],
    ['llama_block', ['--dim', 'batch=1,seq=64']],
  ]) {
    const g = JSON.parse(run(['profile', fx(name + '.onnx'), '--graph']).out);
    const native = profile(fx(name + '.onnx'), ...dims).total;
    g.value_infos = [];
    g.outputs = g.outputs.map((o) => ({ name: o.name, elem_type: o.elem_type }));
    const file = join(dir, name + '.graph.json');
    writeFileSync(file, JSON.stringify(g));
    const own = profile(file, ...dims);
    assert.deepEqual(own.total, native, name);
    assert.equal(own.total.not_costed, 0, name);
  }
  // The native reader ran ONNX shape inference on the conv net, which stores no shapes.
  const conv = JSON.parse(run(['profile', fx('convnet.onnx'), '--graph']).out);
  assert.equal(conv.shape_inference, true);
  assert.ok(conv.value_infos.length > 0);
});

test('unknown ops are listed and counted as not costed, never as zero', () => {
  const p = profile(fx('unknown_op.onnx'));
  assert.deepEqual(p.unknown_ops, ['FancyOp']);
  assert.equal(p.total.not_costed, 2);
  assert.equal(p.by_op_type.find((o) => o.op_type === 'FancyOp').not_costed, 2);
  assert.equal(node(p, '/custom/FancyOp').status, 'unknown_op');
  const text = run(['profile', fx('unknown_op.onnx')]).out;
  assert.match(text, /3 nodes \(2 not costed\)/);
  assert.match(text, /FancyOp x 2 {2}unknown/);
});

test('text and CSV output', () => {
  const text = run(['profile', fx('convnet.onnx'), '-g', 'A100']).out;
  assert.match(text, /^op type/m);
  assert.match(text, /^scope \(depth 1\)/m);
  assert.match(text, /^Conv +2 /m);
  const csv = run(['profile', fx('convnet.onnx'), '--csv'])
    .out.trim()
    .split('\n');
  assert.equal(csv.length, 1 + 9);
  assert.match(csv[0], /^name,op_type,scope,status,flops,macs,parameters/);
  assert.match(csv[1], /^\/features\/conv1\/Conv,Conv,features,ok,901120,442368,448,/);
});

test('precision sets bytes per element and the compute rate', () => {
  const f32 = profile(fx('llama_block.onnx'), '--dim', 'batch=1,seq=16');
  const int4 = profile(fx('llama_block.onnx'), '--dim', 'batch=1,seq=16', '-p', 'int4');
  assert.equal(f32.compute_precision, 'fp32');
  assert.equal(int4.compute_precision, 'bf16');
  assert.ok(int4.total.weight_bytes < f32.total.weight_bytes / 7);
  assert.equal(int4.total.flops, f32.total.flops);
});

test('bad input exits 2 with one clear line', () => {
  const bytes = readFileSync(fx('vit_block.onnx'));
  writeFileSync(join(dir, 'truncated.onnx'), bytes.subarray(0, bytes.length >> 1));
  writeFileSync(join(dir, 'text.onnx'), '{"not": "onnx"}\n');
  const cases = [
    [['profile', join(dir, 'truncated.onnx')], /\[flopcast\.io\] \(MODEL\) .*is not an ONNX model/],
    [['profile', join(dir, 'text.onnx')], /\[flopcast\.io\] \(MODEL\) .*is not an ONNX model/],
    [['profile', join(dir, 'nothing.onnx')], /\[flopcast\.io\] \(MODEL\) cannot open/],
    [['profile', fx('llama_block.onnx')], /\(--dim\) unbound symbolic dimension "batch" of graph input "x"/],
    [['profile', fx('llama_block.onnx'), '--dim', 'batch=1,seq=8,heads=3'], /no tensor .* named "heads"/],
    // The profile options' own checks (as WASM's profile): profile_json.cpp read_options_json.
    [['profile', fx('llama_block.onnx'), '--dim', 'batch=0'], /\(--dim, \/dims\/batch\) expected a positive size/],
    [['profile', fx('llama_block.onnx'), '--dim', 'batch'], /\(--dim\) expected NAME=SIZE/],
    [['profile', fx('convnet.onnx'), '-g', 'NoSuchGPU'], /flopcast\.unknown_gpu/],
    [['profile', fx('convnet.onnx'), '--depth', '0'], /\[flopcast\.config\.range\] \(--depth, \/depth\) /],
  ];
  for (const [args, pattern] of cases) {
    const r = run(args);
    assert.equal(r.code, 2, args.join(' ') + ': ' + r.err);
    assert.match(r.err, pattern);
    assert.equal(r.err.trim().split('\n').length, 1);
  }
  const r = run(['profile', fx('convnet.onnx')], { FLOPCAST_ONNX_LIBRARY: join(dir, 'none.so') });
  assert.equal(r.code, 2);
  assert.match(r.err, /cannot load the ONNX reader: .*libonnx-dev/);
});

test('the CLI does not link libonnx or libprotobuf', () => {
  const dynamic = execFileSync('readelf', ['-d', bin], { encoding: 'utf8' });
  assert.doesNotMatch(dynamic, /onnx|protobuf/);
});

test('an installed CLI finds the ONNX reader in ../lib/flopcast/', () => {
  const prefix = join(dir, 'prefix');
  execFileSync('cmake', ['--install', join(root, 'build'), '--prefix', prefix], { stdio: 'ignore' });
  const r = spawnSync(join(prefix, 'bin/flopcast'), ['profile', fx('convnet.onnx'), '--json'], { encoding: 'utf8' });
  assert.equal(r.status, 0, r.stderr);
  assert.equal(JSON.parse(r.stdout).total.parameters, 1994);
});
