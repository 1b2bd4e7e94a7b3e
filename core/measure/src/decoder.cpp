// The reference decoder's public side: the shape it runs (decoder_shape_of: what it rejects),
// first_layers, op_counts arithmetic, the memory it will allocate (decoder_memory_for) and the
// decoder's methods. Its state is decoder::impl (decoder_impl.hpp); the weights are built in
// decoder_weights.cpp, the forward pass runs in decoder_forward.cpp (MoE and MLA layers:
// decoder_moe_mla.cpp).
#include "flopcast/measure/decoder.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "decoder_impl.hpp"
#include "flopcast/base/error.hpp"

namespace flopcast::measure {

// ---------------------------------------------------------------------------------------
// Shape

decoder_shape decoder_shape_of(const model_spec& m, bool moe_mla) {
  const auto reject = [&](const std::string& what) {
    throw error(error_code::unsupported_model, "MODEL",
                "the reference decoder runs Llama-style decoders (RMSNorm, rotary positions, gated SiLU MLP, "
                "GQA: llama, mistral, qwen2, qwen3 and the like), but model_type \"" +
                    m.model_type + "\" " + what);
  };
  const attention_spec& a = m.attention;
  if (m.arch == architecture::encoder) reject("is an encoder-only model (no generation)");
  if (m.arch == architecture::encoder_decoder) reject("is an encoder-decoder model");
  if (a.mla && !moe_mla) reject("uses multi-head latent attention (MLA)");
  if (a.mla && (a.index_heads > 0 || a.qk_rope_head_dim % 2 != 0))
    reject("uses an MLA variant the reference decoder lacks (an indexer or an odd rope dimension)");
  for (const auto& g : m.groups) {
    if (g.moe && !moe_mla) reject("has mixture-of-experts layers");
    if (g.moe && (!m.moe.gated_experts || m.moe.expert_bias || m.moe.num_experts < 1 || m.moe.experts_per_token < 1 ||
                  m.moe.experts_per_token > m.moe.num_experts))
      reject("has experts the reference decoder lacks (ungated, biased, or top-k outside [1, experts])");
    if (!g.mlp || g.mixer != mixer_kind::attention || g.parallel_ssm || g.nope || g.chunk > 0)
      reject("has layers without attention + MLP, without positions or with chunked attention");
    if (g.cross_attention || g.encoder) reject("has cross-attention or encoder layers");
    if (g.intermediate_size > 0) reject("has layers with their own MLP width");
  }
  if (!m.mlp.gated) reject("has a plain (ungated) MLP");
  if (m.mlp.activation != "silu" && m.mlp.activation != "swish")
    reject("uses the \"" + m.mlp.activation + "\" activation (expected silu)");
  if (m.mlp.bias) reject("has MLP biases");
  if (m.norm != norm_kind::rmsnorm) reject("uses LayerNorm");
  if (m.position != position_kind::rotary || a.rotary_dim <= 0) reject("has no rotary position embedding");
  if (m.parallel_attention) reject("runs attention and MLP in parallel");
  if (m.norms_per_layer != 2) reject("has " + std::to_string(m.norms_per_layer) + " norms per layer (expected 2)");
  if (m.scale_embeddings) reject("scales its embeddings");
  if (m.learned_positions > 0 || m.token_type_vocab > 0) reject("has learned position or token-type tables");
  if (m.embedding_norm || m.embed_proj_dim > 0 || m.pooler || !m.lm_head || !m.final_norm)
    reject("has an embedding norm, an embedding projection, a pooler or no LM head");
  if (a.rotary_dim % 2 != 0 || a.rotary_dim > a.head_dim) reject("has an odd or oversized rotary dimension");
  if (!a.mla && (a.num_kv_heads < 1 || a.num_heads % a.num_kv_heads != 0))
    reject("has query heads that are not a multiple of the KV heads");
  if (m.num_layers < 1 || static_cast<std::int64_t>(m.layer_group_of.size()) != m.num_layers)
    throw error(error_code::config_range, "/num_hidden_layers", "the layer table does not match num_layers");

  decoder_shape s;
  s.hidden = m.hidden_size;
  s.vocab = m.vocab_size;
  s.layers = m.num_layers;
  s.heads = a.num_heads;
  s.kv_heads = a.num_kv_heads;
  s.head_dim = a.head_dim;
  s.v_head_dim = a.v_head_dim;
  s.rotary_dim = a.rotary_dim;
  s.intermediate = m.mlp.intermediate_size;
  s.qkv_bias = a.qkv_bias;
  s.qk_norm = a.qk_norm;
  s.tied_embeddings = m.tie_word_embeddings;
  if (a.o_bias) reject("has an output-projection bias");
  if (a.output_gate || a.sinks) reject("has an attention output gate or attention sinks");
  for (std::int64_t l = 0; l < m.num_layers; ++l) {
    const layer_group& g = m.groups.at(m.layer_group_of[static_cast<std::size_t>(l)]);
    s.window.push_back(g.window);
    s.moe.push_back(g.moe);
  }
  if (a.mla) {
    s.mla = true;
    s.kv_heads = a.num_heads;
    s.q_lora = a.q_lora_rank;
    s.kv_lora = a.kv_lora_rank;
    s.qk_nope = a.qk_nope_head_dim;
    s.qk_rope = a.qk_rope_head_dim;
    s.head_dim = s.qk_nope + s.qk_rope;
    s.rotary_dim = s.qk_rope;
    s.qkv_bias = s.qk_norm = false;
  }
  const moe_spec& e = m.moe;
  if (std::find(s.moe.begin(), s.moe.end(), true) != s.moe.end()) {
    s.experts = e.num_experts;
    s.experts_per_token = e.experts_per_token;
    s.expert_intermediate = e.expert_intermediate_size;
    s.shared_intermediate = e.shared_intermediate_size;
    s.shared_expert_gate = e.shared_expert_gate;
    s.router_bias = e.router_bias;
  }
  return s;
}

model_spec first_layers(const model_spec& m, std::int64_t n) {
  if (n < 1 || n > m.num_layers)
    throw error(error_code::invalid_argument, "/layers",
                "expected an integer in [1, " + std::to_string(m.num_layers) + "] (the model's layers), but got " +
                    std::to_string(n));
  if (m.arch == architecture::encoder_decoder)
    throw error(error_code::invalid_argument, "/layers", "cannot truncate an encoder-decoder model");
  model_spec out = m;
  out.num_layers = n;
  out.layer_group_of.assign(m.layer_group_of.begin(), m.layer_group_of.begin() + n);
  // Keep the groups still used, in order of first use, with their new counts.
  std::vector<int> remap(m.groups.size(), -1);
  out.groups.clear();
  for (auto& g : out.layer_group_of) {
    if (remap[g] < 0) {
      remap[g] = static_cast<int>(out.groups.size());
      out.groups.push_back(m.groups[g]);
      out.groups.back().count = 0;
    }
    g = static_cast<std::uint8_t>(remap[g]);
    ++out.groups[g].count;
  }
  return out;
}

// ---------------------------------------------------------------------------------------
// Counts

op_counts& op_counts::operator+=(const op_counts& o) noexcept {
  qkv_projection += o.qkv_projection;
  rotary += o.rotary;
  attention_scores += o.attention_scores;
  softmax += o.softmax;
  attention_values += o.attention_values;
  output_projection += o.output_projection;
  mlp += o.mlp;
  norm += o.norm;
  output_head += o.output_head;
  embedding += o.embedding;
  weight_bytes += o.weight_bytes;
  embedding_bytes += o.embedding_bytes;
  kv_read_bytes += o.kv_read_bytes;
  kv_write_bytes += o.kv_write_bytes;
  attention_pairs += o.attention_pairs;
  return *this;
}

op_counts operator-(op_counts a, const op_counts& b) noexcept {
  a.qkv_projection -= b.qkv_projection;
  a.rotary -= b.rotary;
  a.attention_scores -= b.attention_scores;
  a.softmax -= b.softmax;
  a.attention_values -= b.attention_values;
  a.output_projection -= b.output_projection;
  a.mlp -= b.mlp;
  a.norm -= b.norm;
  a.output_head -= b.output_head;
  a.embedding -= b.embedding;
  a.weight_bytes -= b.weight_bytes;
  a.embedding_bytes -= b.embedding_bytes;
  a.kv_read_bytes -= b.kv_read_bytes;
  a.kv_write_bytes -= b.kv_write_bytes;
  a.attention_pairs -= b.attention_pairs;
  return a;
}

// ---------------------------------------------------------------------------------------
// Memory

namespace {

double padded_bytes(std::int64_t n, std::int64_t k, weight_format f) {
  const double panels = static_cast<double>((n + panel_width - 1) / panel_width);
  return panels * panel_width * static_cast<double>(k) * bytes_per_element(f) +
         (f == weight_format::i8 ? 4.0 * panels * panel_width : 0.0);
}

}  // namespace

decoder_memory decoder_memory_for(const model_spec& m, const decoder_options& o) {
  const decoder_shape s = decoder_shape_of(m);
  decoder_memory mem;
  const std::int64_t q = s.heads * s.head_dim, kv = s.kv_heads * (s.head_dim + s.v_head_dim);
  const double per_layer =
      padded_bytes(q + kv, s.hidden, o.weights) + padded_bytes(s.hidden, s.heads * s.v_head_dim, o.weights) +
      padded_bytes(2 * s.intermediate, s.hidden, o.weights) + padded_bytes(s.hidden, s.intermediate, o.weights) +
      4.0 * (2 * s.hidden + 2 * s.head_dim + q + kv);
  mem.weights = static_cast<double>(s.layers) * per_layer +
                padded_bytes(s.vocab, s.hidden, o.weights) * (s.tied_embeddings ? 1 : 2) +
                4.0 * static_cast<double>(s.hidden);
  const kv_layout layout{o.batch, s.kv_heads, s.head_dim, s.v_head_dim, o.max_tokens};
  mem.kv_cache = static_cast<double>(s.layers) * static_cast<double>(o.batch) * static_cast<double>(o.max_tokens) *
                 kv_bytes_per_token(o.kv, layout);
  const double rows = static_cast<double>(o.batch) *
                      static_cast<double>(o.max_prefill_tokens > 0 ? o.max_prefill_tokens : o.max_tokens);
  // Activations, the GEMM's packed copy of the widest input, and the RoPE tables.
  const double widest = static_cast<double>(std::max({s.hidden, s.intermediate, s.heads * s.v_head_dim}));
  mem.scratch =
      4.0 * rows * (static_cast<double>(2 * s.hidden + q + kv + s.heads * s.v_head_dim + 3 * s.intermediate) + widest) +
      4.0 * static_cast<double>(o.max_tokens) * static_cast<double>(s.rotary_dim);
  return mem;
}

// ---------------------------------------------------------------------------------------
// The decoder

decoder::decoder(const model_spec& m, const decoder_options& o, thread_pool& pool) : p_(std::make_unique<impl>()) {
  p_->build(m, o, pool);
}
decoder::~decoder() = default;

const decoder_shape& decoder::shape() const noexcept { return p_->s; }
const decoder_options& decoder::options() const noexcept { return p_->o; }
void decoder::prefill(const std::int32_t* tokens, std::int64_t prompt, float* logits) {
  p_->forward(tokens, prompt, logits);
}
void decoder::decode(const std::int32_t* tokens, float* logits) { p_->forward(tokens, 1, logits, true); }
void decoder::reset() {
  for (auto& L : p_->layers)
    if (L.cache) L.cache->clear();
  p_->position = 0;
}
std::int64_t decoder::position() const noexcept { return p_->position; }
const op_counts& decoder::counts() const noexcept { return p_->counts; }
void decoder::reset_counts() noexcept { p_->counts = op_counts{}; }

kv_profile_report decoder::kv_report(double elapsed_s) const {
  kv_profile_report r;
  r.elapsed_s = elapsed_s;
  for (const auto& L : p_->layers)
    if (L.cache) r.layers.push_back(L.cache->profile());
  return r;
}
void decoder::reset_kv_profiles() noexcept {
  for (auto& L : p_->layers)
    if (L.cache) L.cache->reset_profile();
}
double decoder::kv_bytes() const {
  double b = 0;
  for (const auto& L : p_->layers)
    b += L.cache ? L.cache->memory_bytes() : 4.0 * static_cast<double>(L.latent.size() + L.krope.size());
  return b;
}
double decoder::weight_bytes() const {
  double b = p_->embedding.storage_bytes() + (p_->s.tied_embeddings ? 0.0 : p_->untied_head.storage_bytes()) +
             4.0 * static_cast<double>(p_->final_norm.size());
  for (const auto& L : p_->layers)
    b += L.qkv.storage_bytes() + L.o.storage_bytes() + L.gate_up.storage_bytes() + L.down.storage_bytes() +
         4.0 * static_cast<double>(L.attn_norm.size() + L.mlp_norm.size() + L.q_norm.size() + L.k_norm.size() +
                                   L.qkv_bias.size());
  for (const auto& L : p_->layers) {
    b += L.q_a.storage_bytes() + L.q_b.storage_bytes() + L.kv_a.storage_bytes() + L.kv_b.storage_bytes() +
         L.router.storage_bytes() + L.shared_gate_up.storage_bytes() + L.shared_down.storage_bytes() +
         L.shared_gate.storage_bytes() +
         4.0 * static_cast<double>(L.q_a_norm.size() + L.kv_a_norm.size() + L.router_bias.size());
    for (const auto& e : L.experts)
      if (e) b += e->gate_up.storage_bytes() + e->down.storage_bytes();
  }
  return b;
}
std::int64_t decoder::experts_built() const noexcept { return p_->built_experts; }

decoder::layer_view decoder::layer(std::int64_t l) const {
  const auto& L = p_->layers.at(static_cast<std::size_t>(l));
  return {L.qkv, L.o, L.gate_up, L.down, L.attn_norm, L.mlp_norm, L.q_norm, L.k_norm, L.qkv_bias};
}
const packed_matrix& decoder::embedding() const noexcept { return p_->embedding; }
const packed_matrix& decoder::head() const noexcept { return p_->head(); }
const std::vector<float>& decoder::final_norm() const noexcept { return p_->final_norm; }

std::vector<std::int32_t> argmax_rows(const float* logits, std::int64_t rows, std::int64_t vocab) {
  std::vector<std::int32_t> out(static_cast<std::size_t>(rows));
  for (std::int64_t r = 0; r < rows; ++r) {
    const float* row = logits + r * vocab;
    out[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(std::max_element(row, row + vocab) - row);
  }
  return out;
}

}  // namespace flopcast::measure
