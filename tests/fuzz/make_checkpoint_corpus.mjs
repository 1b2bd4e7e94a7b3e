// Writes the seed corpus of the checkpoint readers: tests/fuzz/corpus/fuzz_safetensors/ and
// tests/fuzz/corpus/fuzz_gguf/ (small headers of a 2-layer Llama, a sharded index, GGUF v2/v3
// with llama, qwen2 and Mixtral-style keys). Run from anywhere: node tests/fuzz/make_checkpoint_corpus.mjs
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../..');
function writeAll(dir, files) {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) writeFileSync(join(dir, name), bytes);
}

// ---- safetensors ----------------------------------------------------------------------
function safetensors(tensors, dtype = 'BF16', size = 2) {
  const header = { __metadata__: { format: 'pt' } };
  let at = 0;
  for (const [name, shape] of tensors) {
    const n = size * shape.reduce((a, b) => a * b, 1);
    header[name] = { dtype, shape, data_offsets: [at, at + n] };
    at += n;
  }
  const text = Buffer.from(JSON.stringify(header));
  const len = Buffer.alloc(8);
  len.writeBigUInt64LE(BigInt(text.length));
  return Buffer.concat([len, text]);
}
const llama = [['model.embed_tokens.weight', [256, 64]]];
for (let l = 0; l < 2; l++) {
  const p = `model.layers.${l}.`;
  llama.push([p + 'input_layernorm.weight', [64]], [p + 'self_attn.q_proj.weight', [64, 64]]);
  llama.push([p + 'self_attn.k_proj.weight', [32, 64]], [p + 'self_attn.v_proj.weight', [32, 64]]);
  llama.push([p + 'self_attn.o_proj.weight', [64, 64]], [p + 'post_attention_layernorm.weight', [64]]);
  llama.push([p + 'mlp.gate_proj.weight', [128, 64]], [p + 'mlp.up_proj.weight', [128, 64]]);
  llama.push([p + 'mlp.down_proj.weight', [64, 128]]);
}
llama.push(['model.norm.weight', [64]], ['lm_head.weight', [256, 64]]);
const index = {
  metadata: { total_size: 1234 },
  weight_map: Object.fromEntries(llama.map(([n]) => [n, 'a.safetensors'])),
};
writeAll(join(root, 'tests/fuzz/corpus/fuzz_safetensors'), {
  'llama-2-layer': safetensors(llama),
  'gpt2-f32': safetensors(
    [
      ['transformer.wte.weight', [10, 4]],
      ['transformer.h.0.attn.c_attn.weight', [4, 12]],
    ],
    'F32',
    4,
  ),
  f4: safetensors([['w', [2, 4]]], 'F4', 0.5),
  index: JSON.stringify(index),
});

// ---- GGUF -----------------------------------------------------------------------------
const u32 = (v) => {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(v);
  return b;
};
const u64 = (v) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64LE(BigInt(v));
  return b;
};
const str = (s) => Buffer.concat([u64(Buffer.byteLength(s)), Buffer.from(s)]);
function gguf(version, kv, tensors) {
  const parts = [Buffer.from('GGUF'), u32(version), u64(tensors.length), u64(kv.length)];
  for (const [key, type, value] of kv) {
    parts.push(str(key), u32(type));
    if (type === 4) parts.push(u32(value));
    else if (type === 8) parts.push(str(value));
    else if (type === 9) parts.push(u32(8), u64(value), ...Array.from({ length: value }, (_, i) => str(`t${i}`)));
  }
  let offset = 0;
  for (const [name, ne, type, bytes] of tensors) {
    parts.push(str(name), u32(ne.length), ...ne.map(u64), u32(type), u64(offset));
    offset += Math.ceil(bytes / 32) * 32;
  }
  return Buffer.concat(parts);
}
const keys = (arch, extra = []) => [
  ['general.architecture', 8, arch],
  ['general.alignment', 4, 32],
  [`${arch}.block_count`, 4, 1],
  [`${arch}.embedding_length`, 4, 256],
  [`${arch}.feed_forward_length`, 4, 512],
  [`${arch}.attention.head_count`, 4, 4],
  [`${arch}.attention.head_count_kv`, 4, 2],
  ['tokenizer.ggml.tokens', 9, 8],
  ...extra,
];
const layer = [
  ['token_embd.weight', [256, 8], 12, 8 * 144],
  ['blk.0.attn_norm.weight', [256], 0, 1024],
  ['blk.0.attn_q.weight', [256, 256], 12, 256 * 144],
  ['blk.0.attn_k.weight', [256, 128], 14, 128 * 210],
  ['blk.0.ffn_down.weight', [512, 256], 14, 512 * 210],
  ['output.weight', [256, 8], 8, 8 * 8 * 34],
];
writeAll(join(root, 'tests/fuzz/corpus/fuzz_gguf'), {
  'llama-v3': gguf(3, keys('llama'), layer),
  'llama-v2': gguf(2, keys('llama'), layer.slice(0, 3)),
  'qwen2-v3': gguf(3, keys('qwen2'), layer.slice(1)),
  'mixtral-v3': gguf(
    3,
    keys('llama', [
      ['llama.expert_count', 4, 4],
      ['llama.expert_used_count', 4, 2],
    ]),
    [['blk.0.ffn_gate_exps.weight', [256, 512, 4], 23, 512 * 4 * 136]],
  ),
});
