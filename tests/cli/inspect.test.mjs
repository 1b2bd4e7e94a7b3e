// `flopcast inspect FILE`: safetensors and GGUF headers written here, read by the real binary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Gguf, F32, Q4_K, Q6_K, safetensorsFile } from '../fixtures/checkpoint_files.mjs';

const root = resolve(import.meta.dirname, '../..');
const bin = join(root, 'build/flopcast');
const tmp = mkdtempSync(join(tmpdir(), 'flopcast-inspect-'));
process.env.FLOPCAST_CALIBRATION_FILE = join(tmp, 'calibration.json');

function run(args) {
  const r = spawnSync(bin, args, { encoding: 'utf8', cwd: tmp });
  return { code: r.status, out: r.stdout, err: r.stderr };
}
function json(args) {
  const r = run(['inspect', ...args, '--json']);
  assert.equal(r.code, 0, r.err);
  return JSON.parse(r.out);
}
function fails(args, pattern) {
  const r = run(['inspect', ...args]);
  assert.equal(r.code, 2, `exit code for ${args.join(' ')}: ${r.err}`);
  assert.equal(r.out, '');
  const lines = r.err.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${r.err}`);
  assert.match(lines[0], pattern);
}

// ---- safetensors ----------------------------------------------------------------------
const config = {
  model_type: 'llama',
  hidden_size: 64,
  num_hidden_layers: 2,
  num_attention_heads: 4,
  num_key_value_heads: 2,
  intermediate_size: 128,
  vocab_size: 256,
  tie_word_embeddings: false,
};
function llamaTensors() {
  const t = [['model.embed_tokens.weight', [256, 64]]];
  for (let l = 0; l < 2; l++) {
    const p = `model.layers.${l}.`;
    t.push([p + 'input_layernorm.weight', [64]], [p + 'self_attn.q_proj.weight', [64, 64]]);
    t.push([p + 'self_attn.k_proj.weight', [32, 64]], [p + 'self_attn.v_proj.weight', [32, 64]]);
    t.push([p + 'self_attn.o_proj.weight', [64, 64]], [p + 'post_attention_layernorm.weight', [64]]);
    t.push([p + 'mlp.gate_proj.weight', [128, 64]], [p + 'mlp.up_proj.weight', [128, 64]]);
    t.push([p + 'mlp.down_proj.weight', [64, 128]]);
  }
  t.push(['model.norm.weight', [64]], ['lm_head.weight', [256, 64]]);
  return t;
}
// A .safetensors file (BF16 tensors, zero data): the shared writer.
const safetensors = (tensors) => safetensorsFile(tensors).bytes;
const params = 2 * 256 * 64 + 2 * (2 * 64 + 2 * 64 * 64 + 2 * 32 * 64 + 3 * 128 * 64) + 64;

test('safetensors beside a config.json: exact bytes and the architecture count matches', () => {
  const dir = join(tmp, 'st');
  mkdirSync(dir);
  writeFileSync(join(dir, 'model.safetensors'), safetensors(llamaTensors()));
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const r = json([join(dir, 'model.safetensors')]);
  assert.equal(r.format, 'safetensors');
  assert.equal(r.tensor_count, 21);
  assert.equal(r.total_elements, params);
  assert.equal(r.total_bytes, 2 * params);
  assert.equal(r.bits_per_weight, 16);
  assert.equal(r.architecture_check.matches, true);
  assert.equal(r.architecture_check.architecture_parameters, params);
  const text = run(['inspect', join(dir, 'model.safetensors')]);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /matches the checkpoint/);
});

test('safetensors alone: no architecture, said so; a sharded index reads every shard header', () => {
  const dir = join(tmp, 'alone');
  mkdirSync(dir);
  const all = llamaTensors();
  writeFileSync(join(dir, 'a.safetensors'), safetensors(all.slice(0, 10)));
  writeFileSync(join(dir, 'b.safetensors'), safetensors(all.slice(10)));
  const r = json([join(dir, 'a.safetensors')]);
  assert.match(r.architecture_check.error, /no config\.json beside/);
  const weight_map = Object.fromEntries(all.map(([n], i) => [n, i < 10 ? 'a.safetensors' : 'b.safetensors']));
  writeFileSync(
    join(dir, 'model.safetensors.index.json'),
    JSON.stringify({ metadata: { total_size: 2 * params }, weight_map }),
  );
  writeFileSync(join(dir, 'config.json'), JSON.stringify(config));
  const x = json([join(dir, 'model.safetensors.index.json')]);
  assert.equal(x.format, 'safetensors index');
  assert.equal(x.total_bytes, 2 * params);
  assert.equal(x.declared_total_size, 2 * params);
  assert.deepEqual(x.notes, []);
  assert.equal(x.architecture_check.matches, true);
});

test('a truncated safetensors header is one clear error', () => {
  const f = join(tmp, 'trunc.safetensors');
  writeFileSync(f, safetensors(llamaTensors()).subarray(0, 100));
  fails([f], /config\.parse.*truncated safetensors header/);
});

// ---- GGUF -----------------------------------------------------------------------------
function ggufLlama(arch = 'llama') {
  const g = new Gguf();
  g.string('general.architecture', arch);
  g.string('general.name', 'tiny-gguf');
  for (const [k, v] of [
    ['block_count', 2],
    ['embedding_length', 256],
    ['feed_forward_length', 512],
    ['attention.head_count', 4],
    ['attention.head_count_kv', 2],
    ['context_length', 2048],
    ['vocab_size', 300],
  ])
    g.u32(`${arch}.${k}`, v);
  g.tensor('token_embd.weight', [256, 300], Q4_K);
  for (let l = 0; l < 2; l++) {
    const p = `blk.${l}.`;
    g.tensor(p + 'attn_norm.weight', [256], F32);
    g.tensor(p + 'attn_q.weight', [256, 256], Q4_K);
    g.tensor(p + 'attn_k.weight', [256, 128], Q4_K);
    g.tensor(p + 'attn_v.weight', [256, 128], Q6_K);
    g.tensor(p + 'attn_output.weight', [256, 256], Q4_K);
    g.tensor(p + 'ffn_norm.weight', [256], F32);
    g.tensor(p + 'ffn_gate.weight', [256, 512], Q4_K);
    g.tensor(p + 'ffn_up.weight', [256, 512], Q4_K);
    g.tensor(p + 'ffn_down.weight', [512, 256], Q6_K);
  }
  g.tensor('output_norm.weight', [256], F32);
  g.tensor('output.weight', [256, 300], Q6_K);
  g.tensor('rope_freqs.weight', [32], F32);
  return g;
}

test('GGUF: the quantization mix, bits per weight, and the mapped architecture', () => {
  const f = join(tmp, 'tiny.gguf');
  const g = ggufLlama();
  writeFileSync(f, Buffer.concat([g.header(), Buffer.alloc(Number(g.offset) + 64)]));
  const r = json([f]);
  assert.equal(r.format, 'gguf');
  assert.equal(r.gguf_version, 3);
  assert.equal(r.architecture, 'llama');
  const byType = Object.fromEntries(r.by_dtype.map((t) => [t.name, t]));
  assert.equal(byType.Q4_K.bits_per_weight, 4.5);
  assert.equal(byType.Q6_K.bits_per_weight, 6.5625);
  assert.equal(byType.F32.bytes, 5 * 1024 + 128);
  assert.equal(r.config.model_type, 'llama');
  assert.equal(r.config.num_key_value_heads, 2);
  assert.deepEqual(r.architecture_check.unaccounted, ['rope_freqs.weight']);
  assert.equal(r.architecture_check.checkpoint_elements - r.architecture_check.architecture_parameters, 32);
  const text = run(['inspect', f, '--tensors']);
  assert.equal(text.code, 0, text.err);
  assert.match(text.out, /by quantization type/);
  assert.match(text.out, /not in the architecture model: rope_freqs\.weight/);
  assert.match(text.out, /blk\.1\.ffn_down\.weight\s+Q6_K/);
});

test('GGUF errors: unknown architecture, truncated header, bad magic, data past the end', () => {
  const xyz = join(tmp, 'xyz.gguf');
  const g = ggufLlama('xyz');
  writeFileSync(xyz, Buffer.concat([g.header(), Buffer.alloc(Number(g.offset) + 64)]));
  const r = json([xyz]);
  assert.match(r.architecture_check.error, /GGUF architecture "xyz" is not supported: supported are llama/);
  const trunc = join(tmp, 'trunc.gguf');
  writeFileSync(trunc, ggufLlama().header().subarray(0, 200));
  fails([trunc], /config\.parse.*truncated GGUF header/);
  const magic = join(tmp, 'magic.gguf');
  writeFileSync(magic, Buffer.from('GGUX0000000000000000000000'));
  fails([magic], /not a checkpoint/);
  const short = join(tmp, 'short.gguf');
  writeFileSync(short, ggufLlama().header());
  fails([short], /past the end of the file/);
});

test('flopcast estimate FILE.gguf: the architecture from the GGUF keys, only the header read', () => {
  const f = join(tmp, 'estimate.gguf');
  const g = ggufLlama();
  writeFileSync(f, Buffer.concat([g.header(), Buffer.alloc(Number(g.offset) + 64)]));
  const check = json([f]).architecture_check;
  const r = run(['estimate', f, '-g', 'none', '--json']);
  assert.equal(r.code, 0, r.err);
  const e = JSON.parse(r.out);
  assert.equal(e.model, 'tiny-gguf');
  assert.equal(e.parameters, check.architecture_parameters);
  assert.equal(e.details.config.num_key_value_heads, 2);
});
