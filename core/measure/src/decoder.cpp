// The reference decoder. Per layer (pre-norm):
//   h = x + Wo . attention(rope(Wqkv . rmsnorm(x) + b))        (q/k RMSNorm per head: Qwen3)
//   x = h + Wdown . (silu(Wgate . rmsnorm(h)) * (Wup . rmsnorm(h)))
// then a final RMSNorm and the LM head (tied to the embedding when the config says so).
// Counting follows core/src/estimate/estimate.cpp: RMSNorm 4 FLOPs per element, RoPE 3 per rotated
// element, SiLU + gate product 2 per intermediate element, bias 1 per element, residual
// additions 0, the embedding lookup 0.
#include "flopcast/measure/decoder.hpp"

#include <algorithm>
#include <cmath>
#include <string>

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
// Random weights

namespace {

inline std::uint64_t splitmix(std::uint64_t& state) noexcept {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Fills out[0..n) with uniform values in [-a, a), from a stream keyed by (seed, matrix, row).
void random_row(std::uint64_t seed, std::uint64_t matrix, std::uint64_t row, float a, float* out, std::int64_t n) {
  std::uint64_t state = seed * 0x2545f4914f6cdd1dull ^ (matrix << 40) ^ row;
  (void)splitmix(state);
  constexpr float unit = 2.0f / 16777216.0f;  // 24 random bits -> [0, 2)
  std::int64_t i = 0;
  for (; i + 2 <= n; i += 2) {  // two values per 64 random bits
    const std::uint64_t r = splitmix(state);
    out[i] = a * (static_cast<float>(r >> 40) * unit - 1.0f);
    out[i + 1] = a * (static_cast<float>((r >> 8) & 0xffffffu) * unit - 1.0f);
  }
  if (i < n) out[i] = a * (static_cast<float>(splitmix(state) >> 40) * unit - 1.0f);
}

std::vector<float> random_vector(std::uint64_t seed, std::uint64_t matrix, std::int64_t n, float center, float a) {
  std::vector<float> v(static_cast<std::size_t>(n));
  random_row(seed, matrix, 0, a, v.data(), n);
  for (auto& x : v) x += center;
  return v;
}

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

struct decoder::impl {
  decoder_shape s;
  decoder_options o;
  thread_pool* pool = nullptr;

  struct expert_data {
    packed_matrix gate_up, down;
  };
  struct layer_data {
    packed_matrix qkv, o, gate_up, down;
    std::vector<float> attn_norm, mlp_norm, q_norm, k_norm, qkv_bias;
    std::unique_ptr<profiled_kv_cache> cache;  // null in MLA layers (their latent cache below)
    // MLA: q_a/q_a_norm with a q latent; q_b is q_proj without one.
    packed_matrix q_a, q_b, kv_a, kv_b;
    std::vector<float> q_a_norm, kv_a_norm, kv_b_rows;  // kv_b_rows: kv_b unpacked (absorbed decode)
    std::vector<float> latent, krope;                   // [seq][position][kv_lora], [seq][position][rope]
    // MoE: router (+ selection bias), experts built when first routed to, shared experts.
    packed_matrix router, shared_gate_up, shared_down, shared_gate;
    std::vector<float> router_bias;
    std::vector<std::unique_ptr<expert_data>> experts;
    std::uint64_t expert_id = 0;  // random-weight ids of expert e: expert_id + 2e, + 2e + 1
  };
  std::vector<layer_data> layers;
  packed_matrix embedding, untied_head;
  std::vector<float> final_norm;
  std::vector<float> rope_cos, rope_sin;  // [position][rotary_dim / 2]
  std::int64_t position = 0;
  op_counts counts;

  // Scratch, sized for the largest prefill.
  std::int64_t max_rows = 0;
  aligned_array<float> x, xn, qkv, att, gu, act;
  aligned_array<float> mla_q, mla_qa, mla_ckv, mla_lat, mla_kv;  // MLA scratch
  aligned_array<float> moe_logits, moe_in, moe_out;              // MoE scratch
  std::int64_t built_experts = 0;

  [[nodiscard]] const packed_matrix& head() const { return s.tied_embeddings ? embedding : untied_head; }
  [[nodiscard]] std::int64_t q_width() const { return s.heads * s.head_dim; }
  [[nodiscard]] std::int64_t k_width() const { return s.kv_heads * s.head_dim; }
  [[nodiscard]] std::int64_t v_width() const { return s.kv_heads * s.v_head_dim; }
  [[nodiscard]] std::int64_t qkv_width() const { return q_width() + k_width() + v_width(); }

  // Runs fn(row) for rows [0, n), on the pool when there are enough of them.
  template <class F>
  void rows(std::int64_t n, std::int64_t width, F&& fn) {
    if (n < 4 || n * width < (1 << 15)) {
      for (std::int64_t i = 0; i < n; ++i) fn(i);
      return;
    }
    const int parts = static_cast<int>(std::min<std::int64_t>(pool->size() * 4, n));
    pool->parallel_for(parts, [&](std::int64_t part) {
      const auto [a, b] = thread_pool::split(n, parts, static_cast<int>(part));
      for (std::int64_t i = a; i < b; ++i) fn(i);
    });
  }

  // out[i] = in[i] / rms(in) * w, for `count` vectors of `width` (strides in floats).
  void rmsnorm(const float* in, std::int64_t in_stride, float* out, std::int64_t out_stride, std::int64_t count,
               std::int64_t width, const std::vector<float>& w) {
    rows(count, width, [&](std::int64_t i) {
      const float* a = in + i * in_stride;
      float* b = out + i * out_stride;
      double ss = 0;
      for (std::int64_t j = 0; j < width; ++j) ss += static_cast<double>(a[j]) * a[j];
      const float inv = 1.0f / std::sqrt(static_cast<float>(ss / static_cast<double>(width)) + s.norm_eps);
      for (std::int64_t j = 0; j < width; ++j) b[j] = a[j] * inv * w[static_cast<std::size_t>(j)];
    });
    counts.norm += 4.0 * static_cast<double>(count) * static_cast<double>(width);
    counts.weight_bytes += 4.0 * static_cast<double>(width);
  }

  void matmul(std::int64_t m, const float* a, std::int64_t lda, const packed_matrix& w, float* c, std::int64_t ldc,
              bool accumulate, double& flops) {
    work_tally t;
    gemm(*pool, m, a, lda, w, c, ldc, accumulate, &t);
    flops += t.flops;
    counts.weight_bytes += t.bytes;
  }

  void build(const model_spec& m, const decoder_options& opt, thread_pool& tp) {
    s = decoder_shape_of(m, opt.moe_mla);
    o = opt;
    pool = &tp;
    if (o.batch < 1)
      throw error(error_code::invalid_argument, "/batch_size",
                  "expected an integer >= 1, but got " + std::to_string(o.batch));
    if (o.max_tokens < 1)
      throw error(error_code::invalid_argument, "/max_tokens",
                  "expected an integer >= 1, but got " + std::to_string(o.max_tokens));
    const std::int64_t prefill_rows =
        o.max_prefill_tokens > 0 ? std::min(o.max_prefill_tokens, o.max_tokens) : o.max_tokens;
    max_rows = o.batch * prefill_rows;

    const std::uint64_t seed = o.seed;
    std::uint64_t id = 1;
    const auto dense = [&](std::int64_t n, std::int64_t k) {
      const std::uint64_t mid = id++;
      const float a = std::sqrt(3.0f / static_cast<float>(k));  // uniform: std 1/sqrt(fan-in)
      return packed_matrix::build(n, k, o.weights, *pool, [&](std::int64_t row, float* out) {
        random_row(seed, mid, static_cast<std::uint64_t>(row), a, out, k);
      });
    };
    const auto vec = [&](std::int64_t n, float center, float a) { return random_vector(seed, id++, n, center, a); };

    const std::int64_t h = s.hidden;
    {
      const std::uint64_t mid = id++;
      embedding = packed_matrix::build(s.vocab, h, o.weights, *pool, [&](std::int64_t row, float* out) {
        random_row(seed, mid, static_cast<std::uint64_t>(row), 1.0f, out, h);
      });
    }
    layers.resize(static_cast<std::size_t>(s.layers));
    for (std::int64_t l = 0; l < s.layers; ++l) {
      layer_data& L = layers[static_cast<std::size_t>(l)];
      L.attn_norm = vec(h, 1.0f, 0.1f);
      if (s.mla) {
        build_mla(L, dense, vec);
        L.mlp_norm = vec(h, 1.0f, 0.1f);
        build_mlp(L, l, dense, vec, id);
        continue;
      }
      L.qkv = dense(qkv_width(), h);
      if (s.qkv_bias) L.qkv_bias = vec(qkv_width(), 0.0f, 0.1f);
      if (s.qk_norm) {
        L.q_norm = vec(s.head_dim, 1.0f, 0.1f);
        L.k_norm = vec(s.head_dim, 1.0f, 0.1f);
      }
      L.o = dense(h, s.heads * s.v_head_dim);
      L.mlp_norm = vec(h, 1.0f, 0.1f);
      build_mlp(L, l, dense, vec, id);
      const kv_layout layout{o.batch, s.kv_heads, s.head_dim, s.v_head_dim, o.max_tokens};
      L.cache = std::make_unique<profiled_kv_cache>(make_kv_cache(o.kv, layout), static_cast<int>(l));
    }
    final_norm = vec(h, 1.0f, 0.1f);
    if (!s.tied_embeddings) untied_head = dense(s.vocab, h);

    // RoPE tables (Llama's rotate-half convention over the first rotary_dim dims).
    const std::int64_t half = s.rotary_dim / 2;
    rope_cos.resize(static_cast<std::size_t>(o.max_tokens * half));
    rope_sin.resize(rope_cos.size());
    for (std::int64_t p = 0; p < o.max_tokens; ++p)
      for (std::int64_t i = 0; i < half; ++i) {
        const double freq = std::pow(static_cast<double>(s.rope_theta),
                                     -2.0 * static_cast<double>(i) / static_cast<double>(s.rotary_dim));
        const double angle = static_cast<double>(p) * freq;
        rope_cos[static_cast<std::size_t>(p * half + i)] = static_cast<float>(std::cos(angle));
        rope_sin[static_cast<std::size_t>(p * half + i)] = static_cast<float>(std::sin(angle));
      }

    const auto buf = [&](std::int64_t width) {
      return make_aligned<float>(static_cast<std::size_t>(max_rows * width));
    };
    x = buf(h);
    xn = buf(h);
    qkv = buf(qkv_width());
    att = buf(s.heads * s.v_head_dim);
    const std::int64_t widest = std::max({s.intermediate, s.expert_intermediate, s.shared_intermediate});
    gu = buf(2 * widest);
    act = buf(widest);
    if (s.mla) {
      mla_q = buf(s.heads * s.head_dim);
      mla_qa = buf(std::max<std::int64_t>(s.q_lora, 1));
      mla_ckv = buf(s.kv_lora + s.qk_rope);
      const auto cached = static_cast<std::size_t>(o.batch * o.max_tokens);
      mla_lat = make_aligned<float>(cached * static_cast<std::size_t>(s.kv_lora));
      mla_kv = make_aligned<float>(cached * static_cast<std::size_t>(s.heads * (s.qk_nope + s.v_head_dim)));
    }
    if (s.experts > 0) {
      moe_logits = buf(s.experts);
      moe_in = buf(h);
      moe_out = buf(h);
    }
  }

  template <class Dense, class Vec>
  void build_mla(layer_data& L, Dense& dense, Vec& vec) {
    const std::int64_t h = s.hidden, nh = s.heads;
    if (s.q_lora > 0) {
      L.q_a = dense(s.q_lora, h);
      L.q_a_norm = vec(s.q_lora, 1.0f, 0.1f);
      L.q_b = dense(nh * s.head_dim, s.q_lora);
    } else {
      L.q_b = dense(nh * s.head_dim, h);
    }
    L.kv_a = dense(s.kv_lora + s.qk_rope, h);
    L.kv_a_norm = vec(s.kv_lora, 1.0f, 0.1f);
    L.kv_b = dense(nh * (s.qk_nope + s.v_head_dim), s.kv_lora);
    L.kv_b_rows = L.kv_b.unpack();
    L.o = dense(h, nh * s.v_head_dim);
    const auto cached = static_cast<std::size_t>(o.batch * o.max_tokens);
    L.latent.assign(cached * static_cast<std::size_t>(s.kv_lora), 0.0f);
    L.krope.assign(cached * static_cast<std::size_t>(s.qk_rope), 0.0f);
  }

  template <class Dense, class Vec>
  void build_mlp(layer_data& L, std::int64_t l, Dense& dense, Vec& vec, std::uint64_t& id) {
    const std::int64_t h = s.hidden;
    if (!s.moe[static_cast<std::size_t>(l)]) {
      L.gate_up = dense(2 * s.intermediate, h);
      L.down = dense(h, s.intermediate);
      return;
    }
    L.router = dense(s.experts, h);
    if (s.router_bias) L.router_bias = vec(s.experts, 0.0f, 0.01f);
    L.experts.resize(static_cast<std::size_t>(s.experts));
    L.expert_id = id;
    id += 2 * static_cast<std::uint64_t>(s.experts);
    if (s.shared_intermediate > 0) {
      L.shared_gate_up = dense(2 * s.shared_intermediate, h);
      L.shared_down = dense(h, s.shared_intermediate);
      if (s.shared_expert_gate) L.shared_gate = dense(1, h);
    }
  }

  packed_matrix random_matrix(std::uint64_t mid, std::int64_t n, std::int64_t k) const {
    const float a = std::sqrt(3.0f / static_cast<float>(k));
    const std::uint64_t seed = o.seed;
    return packed_matrix::build(n, k, o.weights, *pool, [&](std::int64_t row, float* out) {
      random_row(seed, mid, static_cast<std::uint64_t>(row), a, out, k);
    });
  }

  expert_data& expert(layer_data& L, std::int64_t e) {
    auto& slot = L.experts[static_cast<std::size_t>(e)];
    if (!slot) {
      slot = std::make_unique<expert_data>();
      const std::uint64_t mid = L.expert_id + 2 * static_cast<std::uint64_t>(e);
      slot->gate_up = random_matrix(mid, 2 * s.expert_intermediate, s.hidden);
      slot->down = random_matrix(mid + 1, s.hidden, s.expert_intermediate);
      ++built_experts;
    }
    return *slot;
  }

  // act[i] = silu(gate[i]) * up[i] for n rows of width w (gu: gate | up); 2 FLOPs per element.
  void swiglu(std::int64_t n, std::int64_t w) {
    rows(n, 4 * w, [&](std::int64_t i) {
      const float* g = gu.get() + i * 2 * w;
      const float* u = g + w;
      float* a = act.get() + i * w;
      for (std::int64_t j = 0; j < w; ++j) a[j] = g[j] / (1.0f + std::exp(-g[j])) * u[j];
    });
    counts.mlp += 2.0 * static_cast<double>(n) * static_cast<double>(w);
  }

  // Routed MLP on xn (M rows), added to x (the residual). Counts as the estimator does:
  // router 2 h E + softmax/top-k 5 E per token, each routed expert's SwiGLU, 2 h per
  // (token, expert) for the weighted sum; shared experts; their gate 2 h + 1 + h per token.
  void moe_mlp(layer_data& L, std::int64_t M) {
    const std::int64_t h = s.hidden, E = s.experts, k = s.experts_per_token, Ie = s.expert_intermediate;
    matmul(M, xn.get(), h, L.router, moe_logits.get(), E, false, counts.mlp);
    if (s.router_bias) counts.weight_bytes += 4.0 * static_cast<double>(E);
    std::vector<std::vector<std::pair<std::int64_t, float>>> routed(static_cast<std::size_t>(E));
    std::vector<std::int64_t> order(static_cast<std::size_t>(E));
    std::vector<float> prob(static_cast<std::size_t>(E));
    for (std::int64_t i = 0; i < M; ++i) {
      const float* z = moe_logits.get() + i * E;
      const float top = *std::max_element(z, z + E);
      double sum = 0;
      for (std::int64_t e = 0; e < E; ++e) sum += prob[static_cast<std::size_t>(e)] = std::exp(z[e] - top);
      for (auto& p : prob) p = static_cast<float>(p / sum);
      for (std::int64_t e = 0; e < E; ++e) order[static_cast<std::size_t>(e)] = e;
      // Selection score: the probability (+ DeepSeek-V3's correction bias, which only selects).
      const auto score = [&](std::int64_t e) {
        return prob[static_cast<std::size_t>(e)] + (s.router_bias ? L.router_bias[static_cast<std::size_t>(e)] : 0.0f);
      };
      std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](std::int64_t a, std::int64_t b) {
        return score(a) > score(b) || (score(a) == score(b) && a < b);
      });
      for (std::int64_t j = 0; j < k; ++j) {
        const std::int64_t e = order[static_cast<std::size_t>(j)];
        routed[static_cast<std::size_t>(e)].emplace_back(i, prob[static_cast<std::size_t>(e)]);
      }
    }
    counts.mlp += 5.0 * static_cast<double>(M) * static_cast<double>(E);
    for (std::int64_t e = 0; e < E; ++e) {
      const auto& list = routed[static_cast<std::size_t>(e)];
      if (list.empty()) continue;
      expert_data& X = expert(L, e);
      const auto n = static_cast<std::int64_t>(list.size());
      for (std::int64_t r = 0; r < n; ++r)
        std::copy(xn.get() + list[static_cast<std::size_t>(r)].first * h,
                  xn.get() + (list[static_cast<std::size_t>(r)].first + 1) * h, moe_in.get() + r * h);
      matmul(n, moe_in.get(), h, X.gate_up, gu.get(), 2 * Ie, false, counts.mlp);
      swiglu(n, Ie);
      matmul(n, act.get(), Ie, X.down, moe_out.get(), h, false, counts.mlp);
      for (std::int64_t r = 0; r < n; ++r) {
        const auto [row, w] = list[static_cast<std::size_t>(r)];
        float* dst = x.get() + row * h;
        const float* src = moe_out.get() + r * h;
        for (std::int64_t j = 0; j < h; ++j) dst[j] += w * src[j];
      }
      counts.mlp += 2.0 * static_cast<double>(n) * static_cast<double>(h);
    }
    const std::int64_t Is = s.shared_intermediate;
    if (Is <= 0) return;
    matmul(M, xn.get(), h, L.shared_gate_up, gu.get(), 2 * Is, false, counts.mlp);
    swiglu(M, Is);
    if (!s.shared_expert_gate) {
      matmul(M, act.get(), Is, L.shared_down, x.get(), h, true, counts.mlp);  // + residual
      return;
    }
    matmul(M, act.get(), Is, L.shared_down, moe_out.get(), h, false, counts.mlp);
    matmul(M, xn.get(), h, L.shared_gate, moe_logits.get(), E, false, counts.mlp);  // column 0 of each row
    for (std::int64_t i = 0; i < M; ++i) {
      const float g = 1.0f / (1.0f + std::exp(-moe_logits[static_cast<std::size_t>(i * E)]));
      float* dst = x.get() + i * h;
      const float* src = moe_out.get() + i * h;
      for (std::int64_t j = 0; j < h; ++j) dst[j] += g * src[j];
    }
    counts.mlp += static_cast<double>(M) * (1.0 + static_cast<double>(h));  // sigmoid, scale
  }

  // Multi-head latent attention of layer l on xn (M = batch x T rows), output added to x.
  // absorbed (decode): W_UK folded into q, scores against the cached latent + rope key,
  // W_UV applied to the attended latent. Otherwise (prefill): K/V expanded from the latent of
  // every cached position by kv_b_proj, then ordinary attention over (nope + rope) keys.
  void mla_attention(layer_data& L, std::int64_t l, std::int64_t T, std::int64_t pos0, bool absorbed) {
    const std::int64_t B = o.batch, M = B * T, h = s.hidden, nh = s.heads, qk = s.head_dim, nope = s.qk_nope,
                       rope_d = s.qk_rope, kvr = s.kv_lora, v = s.v_head_dim, cw = kvr + rope_d, kvw = nh * (nope + v),
                       cap = o.max_tokens;
    if (s.q_lora > 0) {
      matmul(M, xn.get(), h, L.q_a, mla_qa.get(), s.q_lora, false, counts.qkv_projection);
      rmsnorm(mla_qa.get(), s.q_lora, mla_qa.get(), s.q_lora, M, s.q_lora, L.q_a_norm);
      matmul(M, mla_qa.get(), s.q_lora, L.q_b, mla_q.get(), nh * qk, false, counts.qkv_projection);
    } else {
      matmul(M, xn.get(), h, L.q_b, mla_q.get(), nh * qk, false, counts.qkv_projection);
    }
    matmul(M, xn.get(), h, L.kv_a, mla_ckv.get(), cw, false, counts.qkv_projection);
    rmsnorm(mla_ckv.get(), cw, mla_ckv.get(), cw, M, kvr, L.kv_a_norm);  // the latent part, in place
    for (std::int64_t i = 0; i < M; ++i) {
      const std::int64_t pos = pos0 + i % T;
      for (std::int64_t hh = 0; hh < nh; ++hh) rope(mla_q.get() + i * nh * qk + hh * qk + nope, pos);
      rope(mla_ckv.get() + i * cw + kvr, pos);
    }
    counts.rotary += 3.0 * static_cast<double>(M) * static_cast<double>(nh + 1) * static_cast<double>(rope_d);
    // Cache the latent and the rope key of the new positions.
    for (std::int64_t i = 0; i < M; ++i) {
      const std::int64_t b = i / T, pos = pos0 + i % T;
      const float* c = mla_ckv.get() + i * cw;
      std::copy(c, c + kvr, L.latent.data() + (b * cap + pos) * kvr);
      std::copy(c + kvr, c + cw, L.krope.data() + (b * cap + pos) * rope_d);
    }
    counts.kv_write_bytes += 4.0 * static_cast<double>(M) * static_cast<double>(cw);
    const std::int64_t N = pos0 + T;  // keys per sequence after the append
    counts.kv_read_bytes += 4.0 * static_cast<double>(B) * static_cast<double>(N) * static_cast<double>(cw);
    const std::int64_t window = s.window[static_cast<std::size_t>(l)];
    const float scale = 1.0f / std::sqrt(static_cast<float>(qk));
    std::vector<float> p(static_cast<std::size_t>(N)), qlat(static_cast<std::size_t>(kvr)),
        ctx(static_cast<std::size_t>(kvr));
    double pairs = 0;
    if (!absorbed) {
      // kv_b_proj over every cached position of every sequence (one pass over the weights).
      for (std::int64_t b = 0; b < B; ++b)
        std::copy(L.latent.data() + b * cap * kvr, L.latent.data() + (b * cap + N) * kvr, mla_lat.get() + b * N * kvr);
      matmul(B * N, mla_lat.get(), kvr, L.kv_b, mla_kv.get(), kvw, false, counts.qkv_projection);
    } else {
      counts.weight_bytes += L.kv_b.storage_bytes();  // W_UK and W_UV, read once
    }
    const float* W = L.kv_b_rows.data();
    for (std::int64_t i = 0; i < M; ++i) {
      const std::int64_t b = i / T, pos = pos0 + i % T;
      const std::int64_t lo = window > 0 ? std::max<std::int64_t>(0, pos - window + 1) : 0;
      for (std::int64_t hh = 0; hh < nh; ++hh) {
        const float* q = mla_q.get() + i * nh * qk + hh * qk;
        float* out = att.get() + i * nh * v + hh * v;
        if (absorbed)  // q_lat = W_UK_h^T q_nope
          for (std::int64_t c = 0; c < kvr; ++c) {
            float acc = 0;
            for (std::int64_t r = 0; r < nope; ++r) acc += q[r] * W[(hh * (nope + v) + r) * kvr + c];
            qlat[static_cast<std::size_t>(c)] = acc;
          }
        float top = -INFINITY;
        for (std::int64_t j = lo; j <= pos; ++j) {
          const float* kr = L.krope.data() + (b * cap + j) * rope_d;
          float acc = 0;
          for (std::int64_t r = 0; r < rope_d; ++r) acc += q[nope + r] * kr[r];
          if (absorbed) {
            const float* lat = L.latent.data() + (b * cap + j) * kvr;
            for (std::int64_t c = 0; c < kvr; ++c) acc += qlat[static_cast<std::size_t>(c)] * lat[c];
          } else {
            const float* kn = mla_kv.get() + (b * N + j) * kvw + hh * (nope + v);
            for (std::int64_t r = 0; r < nope; ++r) acc += q[r] * kn[r];
          }
          p[static_cast<std::size_t>(j)] = acc * scale;
          top = std::max(top, acc * scale);
        }
        double sum = 0;
        for (std::int64_t j = lo; j <= pos; ++j)
          sum += p[static_cast<std::size_t>(j)] = std::exp(p[static_cast<std::size_t>(j)] - top);
        for (std::int64_t j = lo; j <= pos; ++j)
          p[static_cast<std::size_t>(j)] = static_cast<float>(p[static_cast<std::size_t>(j)] / sum);
        pairs += static_cast<double>(pos - lo + 1);
        if (absorbed) {
          std::fill(ctx.begin(), ctx.end(), 0.0f);
          for (std::int64_t j = lo; j <= pos; ++j) {
            const float* lat = L.latent.data() + (b * cap + j) * kvr;
            for (std::int64_t c = 0; c < kvr; ++c)
              ctx[static_cast<std::size_t>(c)] += p[static_cast<std::size_t>(j)] * lat[c];
          }
          for (std::int64_t r = 0; r < v; ++r) {  // out = W_UV_h ctx
            const float* w = W + (hh * (nope + v) + nope + r) * kvr;
            float acc = 0;
            for (std::int64_t c = 0; c < kvr; ++c) acc += w[c] * ctx[static_cast<std::size_t>(c)];
            out[r] = acc;
          }
        } else {
          std::fill(out, out + v, 0.0f);
          for (std::int64_t j = lo; j <= pos; ++j) {
            const float* vv = mla_kv.get() + (b * N + j) * kvw + hh * (nope + v) + nope;
            for (std::int64_t r = 0; r < v; ++r) out[r] += p[static_cast<std::size_t>(j)] * vv[r];
          }
        }
      }
    }
    const double Md = static_cast<double>(M), nhd = static_cast<double>(nh);
    counts.attention_pairs += static_cast<std::int64_t>(pairs / nhd);
    counts.softmax += 5.0 * pairs;
    if (absorbed) {
      counts.qkv_projection += 2.0 * Md * nhd * static_cast<double>(nope) * static_cast<double>(kvr);
      counts.attention_scores += 2.0 * pairs * static_cast<double>(kvr + rope_d);
      counts.attention_values += 2.0 * pairs * static_cast<double>(kvr);
      counts.output_projection += 2.0 * Md * nhd * static_cast<double>(kvr) * static_cast<double>(v);
    } else {
      counts.attention_scores += 2.0 * pairs * static_cast<double>(qk);
      counts.attention_values += 2.0 * pairs * static_cast<double>(v);
    }
    matmul(M, att.get(), nh * v, L.o, x.get(), h, true, counts.output_projection);  // + residual
  }

  // MLP block: x += mlp(rmsnorm(x)).
  void mlp_block(layer_data& L, std::int64_t l, std::int64_t M) {
    const std::int64_t h = s.hidden, I = s.intermediate;
    rmsnorm(x.get(), h, xn.get(), h, M, h, L.mlp_norm);
    if (s.moe[static_cast<std::size_t>(l)]) {
      moe_mlp(L, M);
      return;
    }
    matmul(M, xn.get(), h, L.gate_up, gu.get(), 2 * I, false, counts.mlp);
    swiglu(M, I);
    matmul(M, act.get(), I, L.down, x.get(), h, true, counts.mlp);  // + residual
  }

  void rope(float* v, std::int64_t pos) const {
    const std::int64_t half = s.rotary_dim / 2;
    const float* c = rope_cos.data() + pos * half;
    const float* sn = rope_sin.data() + pos * half;
    for (std::int64_t i = 0; i < half; ++i) {
      const float a = v[i], b = v[i + half];
      v[i] = a * c[i] - b * sn[i];
      v[i + half] = b * c[i] + a * sn[i];
    }
  }

  // T new tokens per sequence (tokens: batch x T); logits of the last position of each.
  void forward(const std::int32_t* tokens, std::int64_t T, float* logits, bool decode_step = false) {
    const std::int64_t B = o.batch, M = B * T, h = s.hidden;
    if (T < 1)
      throw error(error_code::invalid_argument, "/prompt_tokens",
                  "expected at least 1 token, but got " + std::to_string(T));
    if (M > max_rows)
      throw error(error_code::invalid_argument, "/prompt_tokens",
                  "the decoder was sized for " + std::to_string(max_rows / B) +
                      " tokens per sequence in one pass, but got " + std::to_string(T));
    if (position + T > o.max_tokens)
      throw error(error_code::invalid_argument, "/max_tokens",
                  "the KV cache holds " + std::to_string(o.max_tokens) + " positions per sequence, but " +
                      std::to_string(position + T) + " are needed");
    for (std::int64_t i = 0; i < M; ++i)
      if (tokens[i] < 0 || tokens[i] >= s.vocab)
        throw error(
            error_code::invalid_argument, "/tokens",
            "token id " + std::to_string(tokens[i]) + " is outside the vocabulary of " + std::to_string(s.vocab));

    // Embedding: gather rows (0 FLOPs).
    rows(M, h, [&](std::int64_t i) { embedding.row(tokens[i], x.get() + i * h); });
    counts.embedding_bytes += static_cast<double>(M) * static_cast<double>(h) * bytes_per_element(o.weights);

    const std::int64_t qw = q_width(), kw = k_width(), ldq = qkv_width(), ao = s.heads * s.v_head_dim;
    const std::int64_t pos0 = position;
    for (std::int64_t l = 0; l < s.layers; ++l) {
      layer_data& L = layers[static_cast<std::size_t>(l)];
      // Attention block.
      rmsnorm(x.get(), h, xn.get(), h, M, h, L.attn_norm);
      if (s.mla) {
        mla_attention(L, l, T, pos0, decode_step);
        mlp_block(L, l, M);
        continue;
      }
      matmul(M, xn.get(), h, L.qkv, qkv.get(), ldq, false, counts.qkv_projection);
      if (s.qkv_bias) {
        rows(M, ldq, [&](std::int64_t i) {
          float* r = qkv.get() + i * ldq;
          for (std::int64_t j = 0; j < ldq; ++j) r[j] += L.qkv_bias[static_cast<std::size_t>(j)];
        });
        counts.qkv_projection += static_cast<double>(M) * static_cast<double>(ldq);
        counts.weight_bytes += 4.0 * static_cast<double>(ldq);
      }
      if (s.qk_norm) {
        // Per head, on q and k (in place).
        rows(M, ldq, [&](std::int64_t i) {
          float* r = qkv.get() + i * ldq;
          for (std::int64_t hh = 0; hh < s.heads + s.kv_heads; ++hh) {
            float* v = r + hh * s.head_dim;
            const auto& w = hh < s.heads ? L.q_norm : L.k_norm;
            double ss = 0;
            for (std::int64_t j = 0; j < s.head_dim; ++j) ss += static_cast<double>(v[j]) * v[j];
            const float inv = 1.0f / std::sqrt(static_cast<float>(ss / static_cast<double>(s.head_dim)) + s.norm_eps);
            for (std::int64_t j = 0; j < s.head_dim; ++j) v[j] = v[j] * inv * w[static_cast<std::size_t>(j)];
          }
        });
        counts.norm += 4.0 * static_cast<double>(M) * static_cast<double>((s.heads + s.kv_heads) * s.head_dim);
        counts.weight_bytes += 4.0 * 2.0 * static_cast<double>(s.head_dim);
      }
      rows(M, ldq, [&](std::int64_t i) {
        const std::int64_t pos = pos0 + i % T;
        float* r = qkv.get() + i * ldq;
        for (std::int64_t hh = 0; hh < s.heads + s.kv_heads; ++hh) rope(r + hh * s.head_dim, pos);
      });
      counts.rotary += 3.0 * static_cast<double>(M) * static_cast<double>((s.heads + s.kv_heads) * s.rotary_dim);

      attention_tally tally;
      for (std::int64_t b = 0; b < B; ++b) {
        const float* rows_b = qkv.get() + b * T * ldq;
        L.cache->append(b, rows_b + qw, ldq, rows_b + qw + kw, ldq, T, &tally);
        attend_request r;
        r.seq = b;
        r.q = rows_b;
        r.q_stride = ldq;
        r.q_tokens = T;
        r.num_heads = s.heads;
        r.window = s.window[static_cast<std::size_t>(l)];
        r.scale = 1.0f / std::sqrt(static_cast<float>(s.head_dim));
        r.out = att.get() + b * T * ao;
        r.out_stride = ao;
        r.pool = pool;
        r.tally = &tally;
        L.cache->attend(r);
      }
      counts.attention_scores += tally.score_flops;
      counts.softmax += tally.softmax_flops;
      counts.attention_values += tally.value_flops;
      counts.kv_read_bytes += tally.read_bytes;
      counts.kv_write_bytes += tally.write_bytes;
      counts.attention_pairs += tally.pairs;
      matmul(M, att.get(), ao, L.o, x.get(), h, true, counts.output_projection);  // + residual

      mlp_block(L, l, M);
    }
    position += T;

    // Final norm on every position (as the estimator counts it), head on the last ones.
    rmsnorm(x.get(), h, xn.get(), h, M, h, final_norm);
    if (T > 1)
      for (std::int64_t b = 0; b < B; ++b)
        std::copy(xn.get() + (b * T + T - 1) * h, xn.get() + (b * T + T) * h, xn.get() + b * h);
    matmul(B, xn.get(), h, head(), logits, s.vocab, false, counts.output_head);
  }
};

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
