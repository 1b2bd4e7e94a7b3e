// Linear-attention and state-space mixers, attention sinks, gated and sparse attention, chunked
// and NoPE layers: parameters from the modules of each family's modeling code, FLOPs from the
// conventions in flops.cpp, and the constant per-sequence state in place of a KV cache.
#include <catch2/catch.hpp>
#include <cmath>

#include "flopcast/checkpoint/checkpoint.hpp"
#include "helpers.hpp"

using namespace flopcast;
using test::json;

namespace {

// A spec with `layers` layers all in one group of the given kind (no reader involved).
model_spec one_group(mixer_kind k, std::int64_t layers, bool mlp) {
  model_spec m;
  m.name = "test";
  m.model_type = "test";
  m.hidden_size = 768;
  m.vocab_size = 50280;
  m.num_layers = layers;
  m.tie_word_embeddings = true;
  m.position = position_kind::none;
  layer_group g;
  g.count = layers;
  g.mixer = k;
  g.mlp = mlp;
  g.norms = mlp ? -1 : 1;
  m.groups = {g};
  m.layer_group_of.assign(static_cast<std::size_t>(layers), 0);
  return m;
}

model_spec mamba_130m() {
  // state-spaces/mamba-130m-hf: d_model 768, 24 layers, expand 2, d_state 16, d_conv 4,
  // dt_rank ceil(768 / 16) = 48, conv bias, no projection biases, tied embeddings.
  model_spec m = one_group(mixer_kind::mamba, 24, false);
  m.ssm.inner = 1536;
  m.ssm.state_size = 16;
  m.ssm.conv_kernel = 4;
  m.ssm.dt_rank = 48;
  return m;
}

settings at(std::int64_t seq) {
  settings s;
  s.sequence_length = seq;
  s.num_generated_tokens = 16;
  return s;
}

}  // namespace

TEST_CASE("mamba-1: the modules of MambaMixer and the published mamba-130m total") {
  const model_spec m = mamba_130m();
  const parameter_breakdown p = count_parameters(m);
  // in_proj 768 x 3072, conv1d 1536 x 4 + bias, x_proj 1536 x (48 + 32), dt_proj 48 x 1536 + bias,
  // A_log 1536 x 16, D 1536, out_proj 1536 x 768; one RMSNorm per block.
  const std::int64_t mixer =
      768LL * 3072 + (1536 * 4 + 1536) + 1536LL * 80 + (48LL * 1536 + 1536) + 1536 * 16 + 1536 + 1536LL * 768;
  CHECK(p.mixer == 24 * mixer);
  CHECK(p.norm == 24 * 768 + 768);
  CHECK(p.attention == 0);
  CHECK(p.mlp == 0);
  // 129,135,360 = 24 x 3,771,648 + 50280 x 768 + 768: the Hub lists state-spaces/mamba-130m-hf
  // at 129M parameters (published as "mamba-130m").
  CHECK(p.total == 129135360);
  CHECK(p.active == p.total);
}

TEST_CASE("mamba-1: jamba's dt, B and C norms add dt_rank + 2 x state per mixer") {
  model_spec m = mamba_130m();
  const auto base = count_parameters(m).total;
  m.ssm.dt_bc_norms = true;
  CHECK(count_parameters(m).total - base == 24 * (48 + 2 * 16));
  m.ssm.proj_bias = true;
  CHECK(count_parameters(m).total - base == 24 * (48 + 2 * 16 + 2 * 1536 + 768));
}

TEST_CASE("mamba-2: in_proj width, conv channels, per-head dt, A, D and the gated norm") {
  // Mamba2 at mamba-codestral-7B's sizes: hidden 4096, expand 2 (inner 8192), 128 heads of 64,
  // 8 groups, state 128, conv 4, conv bias, no projection bias.
  model_spec m = one_group(mixer_kind::mamba2, 64, false);
  m.hidden_size = 4096;
  m.vocab_size = 32768;
  m.ssm.inner = 8192;
  m.ssm.state_size = 128;
  m.ssm.conv_kernel = 4;
  m.ssm.num_heads = 128;
  m.ssm.n_groups = 8;
  const std::int64_t conv = 8192 + 2 * 8 * 128;
  const std::int64_t mixer =
      4096LL * (8192 + conv + 128) + (conv * 4 + conv) + 3 * 128 + 8192 /* gated norm */ + 8192LL * 4096;
  CHECK(count_parameters(m).mixer == 64 * mixer);
  m.ssm.gated_norm = false;
  CHECK(count_parameters(m).mixer == 64 * (mixer - 8192));
}

TEST_CASE("gated deltanet: Qwen3-Next's linear attention layer") {
  // Qwen3-Next-80B-A3B's linear layers: 16 key heads, 32 value heads, both of 128, conv 4.
  model_spec m = one_group(mixer_kind::linear_attention, 1, false);
  m.hidden_size = 2048;
  m.linear = {16, 32, 128, 128, 4};
  // in_proj_qkvz 2048 x (2 x 2048 + 2 x 4096), in_proj_ba 2048 x 64, conv1d (2048 + 2048 + 4096) x 4,
  // dt_bias and A_log 32 each, RMSNormGated 128, out_proj 4096 x 2048.
  const std::int64_t expected = 2048LL * 12288 + 2048 * 64 + 8192 * 4 + 64 + 128 + 4096LL * 2048;
  CHECK(count_parameters(m).mixer == expected);
  // The state: 32 heads x 128 x 128 plus three conv inputs of 8192 channels, bf16.
  const double state = (32.0 * 128 * 128 + 8192.0 * 3) * 2;
  CHECK(kv_cache_bytes(m, 1, 100, precision::bf16, 0) == state);
  CHECK(kv_cache_bytes(m, 3, 100000, precision::bf16, 0) == 3 * state);
}

TEST_CASE("state-space models: the decode step and the cache do not grow with the context") {
  const model_spec m = mamba_130m();
  const estimate_result a = estimate(m, at(1000), nullptr);
  const estimate_result b = estimate(m, at(8000), nullptr);
  CHECK(a.decode_step.parts.total == b.decode_step.parts.total);
  CHECK(a.memory.kv_cache == b.memory.kv_cache);
  CHECK(a.memory.kv_cache_per_token == 0);
  // 24 layers x (1536 x 16 state + 1536 x 3 conv inputs) x 2 bytes.
  CHECK(a.memory.recurrent_state == 24.0 * (1536 * 16 + 1536 * 3) * 2);
  CHECK(a.memory.kv_cache == a.memory.recurrent_state);
  // Prefill grows linearly: no attention pairs anywhere.
  CHECK(b.prefill.parts.mixer == Approx(8 * a.prefill.parts.mixer).epsilon(1e-12));
  CHECK(a.prefill.parts.attention == 0);
  CHECK((a.notes & note_recurrent_state) != 0);
}

TEST_CASE("mamba-1 FLOPs per token follow the module list") {
  const model_spec m = mamba_130m();
  const pass_flops f = forward_flops(m, 1, 1, true);
  const double h = 768, I = 1536, N = 16, K = 4, r = 48;
  const double per_layer =
      2 * h * 2 * I + 2 * I * K + I + 2 * I * (r + 2 * N) + 2 * r * I + 2 * I + 8 * I * N + 4 * I + 2 * I * h;
  CHECK(f.parts.mixer == Approx(24 * per_layer).epsilon(1e-12));
  CHECK(f.per_layer[0].mixer == Approx(per_layer).epsilon(1e-12));
}

TEST_CASE("hybrids: only attention layers grow the cache, mixer-only and MLP-only blocks have one norm") {
  // A Nemotron-H-like stack: 4 Mamba-2 blocks, 1 attention block, 4 MLP blocks.
  model_spec m;
  m.name = m.model_type = "hybrid";
  m.hidden_size = 1024;
  m.vocab_size = 1000;
  m.num_layers = 9;
  m.position = position_kind::none;
  m.attention = {8, 2, 128, 128};
  m.mlp.intermediate_size = 4096;
  m.mlp.gated = false;
  m.ssm.inner = 2048;
  m.ssm.state_size = 64;
  m.ssm.conv_kernel = 4;
  m.ssm.num_heads = 32;
  m.ssm.n_groups = 1;
  layer_group mamba, attn, mlp;
  mamba.count = 4;
  mamba.mixer = mixer_kind::mamba2;
  mamba.mlp = false;
  mamba.norms = 1;
  attn.count = 1;
  attn.mlp = false;
  attn.norms = 1;
  mlp.count = 4;
  mlp.mixer = mixer_kind::none;
  mlp.norms = 1;
  m.groups = {mamba, attn, mlp};
  m.layer_group_of = {0, 0, 2, 0, 2, 1, 2, 0, 2};
  const parameter_breakdown p = count_parameters(m);
  CHECK(p.norm == 9 * 1024 + 1024);
  CHECK(p.mlp == 4 * 2 * 1024LL * 4096);
  CHECK(p.attention == 1024LL * (1024 + 2 * 256) + 1024LL * 1024);
  // One attention layer: 2 KV heads x 256 per token; the Mamba layers' state is constant.
  const double kv_tokens =
      kv_cache_bytes(m, 1, 2000, precision::bf16, 0) - kv_cache_bytes(m, 1, 1000, precision::bf16, 0);
  CHECK(kv_tokens == 1000.0 * 2 * 256 * 2);
  const estimate_result r = estimate(m, at(1000), nullptr);
  CHECK(r.memory.kv_cache_per_token == 2 * 256 * 2);
  CHECK(r.prefill.attention.rotary == 0);
}

TEST_CASE("attention sinks and the output gate") {
  json c = test::llama_config(8);
  model_spec m = test::spec(c);
  const auto base = count_parameters(m);
  const pass_flops f0 = forward_flops(m, 1, 100, true);
  m.attention.sinks = true;
  CHECK(count_parameters(m).total - base.total == 32 * 32);
  const pass_flops f1 = forward_flops(m, 1, 100, true);
  CHECK(f1.attention.softmax - f0.attention.softmax == 32 * 5.0 * 100 * 32);
  m.attention.sinks = false;
  m.attention.output_gate = true;
  CHECK(count_parameters(m).total - base.total == 32 * 4096LL * 4096);
  const pass_flops f2 = forward_flops(m, 1, 100, true);
  CHECK(f2.attention.qkv_projection - f0.attention.qkv_projection == 32 * 2.0 * 100 * 4096 * 4096);
  CHECK(f2.attention.output_projection - f0.attention.output_projection == 32 * 2.0 * 100 * 4096);
}

TEST_CASE("chunked local attention: exact pairs per chunk in prefill, at most one chunk cached") {
  json c = test::llama_config(8);
  model_spec m = test::spec(c);
  for (auto& g : m.groups) g.chunk = 1000;
  const pass_flops f = forward_flops(m, 1, 2500, true);
  // Chunks of 1000, 1000 and 500 tokens: each query sees its chunk's earlier tokens.
  const double pairs = 2 * (1000.0 * 1001 / 2) + 500.0 * 501 / 2;
  CHECK(f.attention.attention_scores == 32 * 2 * pairs * 32 * 128);
  CHECK(kv_cache_bytes(m, 1, 5000, precision::bf16, 0) == kv_cache_bytes(m, 1, 1000, precision::bf16, 0));
  const estimate_result r = estimate(m, at(2500), nullptr);
  CHECK((r.notes & note_chunked_attention) != 0);
}

TEST_CASE("NoPE layers skip the rotary FLOPs only where they are") {
  json c = test::llama_config(8);
  model_spec m = test::spec(c);
  const double rot = forward_flops(m, 1, 64, true).attention.rotary;
  REQUIRE(rot > 0);
  m.groups[0].count = 24;
  layer_group nope = m.groups[0];
  nope.count = 8;
  nope.nope = true;
  m.groups.push_back(nope);
  CHECK(forward_flops(m, 1, 64, true).attention.rotary == Approx(rot * 24 / 32).epsilon(1e-12));
}

TEST_CASE("deepseek sparse attention: the indexer reads every key, attention the top-k") {
  const model_spec& v3 = test::model("deepseek-v3");
  model_spec m = v3;
  m.attention.index_heads = 64;
  m.attention.index_head_dim = 128;
  m.attention.index_topk = 2048;
  // Indexer per layer: wq_b 1536 x 64 x 128, wk 7168 x 128, k_norm 2 x 128, weights_proj 7168 x 64.
  CHECK(count_parameters(m).total - count_parameters(v3).total == 61 * (1536LL * 8192 + 7168 * 128 + 256 + 7168 * 64));
  // The cache gains one 128-wide indexer key per token and layer.
  CHECK(kv_cache_bytes(m, 1, 1000, precision::bf16, 0) - kv_cache_bytes(v3, 1, 1000, precision::bf16, 0) ==
        61.0 * 1000 * 128 * 2);
  // Decode at 100k context: attention over 2048 keys, the indexer over all of them.
  const estimate_result r = estimate(m, at(100000), nullptr);
  const estimate_result dense = estimate(v3, at(100000), nullptr);
  const double keys = 100001;
  const double nh = 128, kvr = 512, rope = 64;
  const double attn_dense = 61 * (2 * keys * nh * (kvr + rope) + 2 * keys * nh * kvr);
  const double attn_sparse = 61 * (2 * 2048 * nh * (kvr + rope) + 2 * 2048 * nh * kvr);
  const double index = 61 * keys * 64 * (2 * 128 + 3);
  CHECK(dense.decode_step.attention.attention_scores + dense.decode_step.attention.attention_values ==
        Approx(attn_dense).epsilon(1e-12));
  CHECK(r.decode_step.attention.attention_scores + r.decode_step.attention.attention_values ==
        Approx(attn_sparse + index).epsilon(1e-12));
  CHECK((r.notes & note_sparse_attention) != 0);
}

TEST_CASE("falcon-h1 style: attention and a Mamba-2 mixer side by side in one layer") {
  json c = test::llama_config(8);
  model_spec m = test::spec(c);
  m.ssm.inner = 4096;
  m.ssm.state_size = 16;
  m.ssm.conv_kernel = 4;
  m.ssm.num_heads = 64;
  m.ssm.n_groups = 1;
  const auto base = count_parameters(m);
  for (auto& g : m.groups) g.parallel_ssm = true;
  const auto p = count_parameters(m);
  const std::int64_t conv = 4096 + 2 * 16;
  const std::int64_t mixer = 4096LL * (4096 + conv + 64) + conv * 5 + 3 * 64 + 4096 + 4096LL * 4096;
  CHECK(p.mixer == 32 * mixer);
  CHECK(p.total - base.total == 32 * mixer);
  const estimate_result r = estimate(m, at(1000), nullptr);
  CHECK(r.memory.recurrent_state == 32.0 * (4096 * 16 + conv * 3) * 2);
  CHECK(r.memory.kv_cache_per_token == 32.0 * 8 * 256 * 2);
}

TEST_CASE("vision towers count in the weights, not in the active parameters") {
  json c = test::llama_config(8);
  model_spec m = test::spec(c);
  const auto base = count_parameters(m);
  m.vision_parameters = 400000000;
  const auto p = count_parameters(m);
  CHECK(p.vision == 400000000);
  CHECK(p.total == base.total + 400000000);
  CHECK(p.active == base.active);
}

TEST_CASE("checkpoint tensors of mixers and vision towers are classified as such") {
  using flopcast::classify_tensor;
  using flopcast::tensor_component;
  // state-spaces/mamba-130m-hf, Qwen3-Next, Jamba, Nemotron-H and llama.cpp names.
  CHECK(classify_tensor("backbone.layers.0.mixer.in_proj.weight") == tensor_component::mixer);
  CHECK(classify_tensor("backbone.layers.0.mixer.A_log") == tensor_component::mixer);
  CHECK(classify_tensor("backbone.layers.0.mixer.D") == tensor_component::mixer);
  CHECK(classify_tensor("backbone.layers.0.mixer.norm.weight") == tensor_component::mixer);
  CHECK(classify_tensor("backbone.layers.0.norm.weight") == tensor_component::norm);
  CHECK(classify_tensor("model.layers.0.linear_attn.in_proj_qkvz.weight") == tensor_component::mixer);
  CHECK(classify_tensor("model.layers.0.mamba.dt_layernorm.weight") == tensor_component::mixer);
  CHECK(classify_tensor("backbone.layers.5.mixer.q_proj.weight") == tensor_component::attention_q);
  CHECK(classify_tensor("backbone.layers.1.mixer.up_proj.weight") == tensor_component::mlp);
  CHECK(classify_tensor("blk.0.ssm_conv1d.weight") == tensor_component::mixer);
  CHECK(classify_tensor("vision_tower.vision_model.encoder.layers.0.self_attn.q_proj.weight") ==
        tensor_component::vision);
  CHECK(classify_tensor("multi_modal_projector.mm_input_projection_weight") == tensor_component::vision);
  CHECK(classify_tensor("visual.blocks.0.attn.qkv.weight") == tensor_component::vision);
}
