// The reference decoder's setup: random weights from a counter-based generator keyed by
// (seed, matrix, row), so the values do not depend on the thread count, scaled to keep
// activations O(1) (1/sqrt(fan-in)); matrix ids follow one fixed build order, routed experts
// keep theirs and are built when first routed to. Also the RoPE tables and the scratch, sized
// for the largest prefill.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "decoder_impl.hpp"
#include "flopcast/base/error.hpp"

namespace flopcast::measure {

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

}  // namespace

struct decoder::impl::weight_source {
  impl& d;
  std::uint64_t id = 1;  // the next matrix id
  packed_matrix dense(std::int64_t n, std::int64_t k) { return d.random_matrix(id++, n, k); }
  std::vector<float> vec(std::int64_t n, float center, float a) { return random_vector(d.o.seed, id++, n, center, a); }
};

void decoder::impl::build(const model_spec& m, const decoder_options& opt, thread_pool& tp) {
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

  weight_source w{*this};
  const std::int64_t h = s.hidden;
  {
    const std::uint64_t mid = w.id++, seed = o.seed;
    embedding = packed_matrix::build(s.vocab, h, o.weights, *pool, [&](std::int64_t row, float* out) {
      random_row(seed, mid, static_cast<std::uint64_t>(row), 1.0f, out, h);
    });
  }
  layers.resize(static_cast<std::size_t>(s.layers));
  for (std::int64_t l = 0; l < s.layers; ++l) {
    layer_data& L = layers[static_cast<std::size_t>(l)];
    L.attn_norm = w.vec(h, 1.0f, 0.1f);
    if (s.mla) {
      build_mla(L, w);
      L.mlp_norm = w.vec(h, 1.0f, 0.1f);
      build_mlp(L, l, w);
      continue;
    }
    L.qkv = w.dense(qkv_width(), h);
    if (s.qkv_bias) L.qkv_bias = w.vec(qkv_width(), 0.0f, 0.1f);
    if (s.qk_norm) {
      L.q_norm = w.vec(s.head_dim, 1.0f, 0.1f);
      L.k_norm = w.vec(s.head_dim, 1.0f, 0.1f);
    }
    L.o = w.dense(h, s.heads * s.v_head_dim);
    L.mlp_norm = w.vec(h, 1.0f, 0.1f);
    build_mlp(L, l, w);
    const kv_layout layout{o.batch, s.kv_heads, s.head_dim, s.v_head_dim, o.max_tokens};
    L.cache = std::make_unique<profiled_kv_cache>(make_kv_cache(o.kv, layout), static_cast<int>(l));
  }
  final_norm = w.vec(h, 1.0f, 0.1f);
  if (!s.tied_embeddings) untied_head = w.dense(s.vocab, h);

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

  const auto buf = [&](std::int64_t width) { return make_aligned<float>(static_cast<std::size_t>(max_rows * width)); };
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

void decoder::impl::build_mla(layer_data& L, weight_source& w) {
  const std::int64_t h = s.hidden, nh = s.heads;
  if (s.q_lora > 0) {
    L.q_a = w.dense(s.q_lora, h);
    L.q_a_norm = w.vec(s.q_lora, 1.0f, 0.1f);
    L.q_b = w.dense(nh * s.head_dim, s.q_lora);
  } else {
    L.q_b = w.dense(nh * s.head_dim, h);
  }
  L.kv_a = w.dense(s.kv_lora + s.qk_rope, h);
  L.kv_a_norm = w.vec(s.kv_lora, 1.0f, 0.1f);
  L.kv_b = w.dense(nh * (s.qk_nope + s.v_head_dim), s.kv_lora);
  L.kv_b_rows = L.kv_b.unpack();
  L.o = w.dense(h, nh * s.v_head_dim);
  const auto cached = static_cast<std::size_t>(o.batch * o.max_tokens);
  L.latent.assign(cached * static_cast<std::size_t>(s.kv_lora), 0.0f);
  L.krope.assign(cached * static_cast<std::size_t>(s.qk_rope), 0.0f);
}

void decoder::impl::build_mlp(layer_data& L, std::int64_t l, weight_source& w) {
  const std::int64_t h = s.hidden;
  if (!s.moe[static_cast<std::size_t>(l)]) {
    L.gate_up = w.dense(2 * s.intermediate, h);
    L.down = w.dense(h, s.intermediate);
    return;
  }
  L.router = w.dense(s.experts, h);
  if (s.router_bias) L.router_bias = w.vec(s.experts, 0.0f, 0.01f);
  L.experts.resize(static_cast<std::size_t>(s.experts));
  L.expert_id = w.id;
  w.id += 2 * static_cast<std::uint64_t>(s.experts);
  if (s.shared_intermediate > 0) {
    L.shared_gate_up = w.dense(2 * s.shared_intermediate, h);
    L.shared_down = w.dense(h, s.shared_intermediate);
    if (s.shared_expert_gate) L.shared_gate = w.dense(1, h);
  }
}

packed_matrix decoder::impl::random_matrix(std::uint64_t mid, std::int64_t n, std::int64_t k) const {
  const float a = std::sqrt(3.0f / static_cast<float>(k));  // uniform: std 1/sqrt(fan-in)
  const std::uint64_t seed = o.seed;
  return packed_matrix::build(n, k, o.weights, *pool, [&](std::int64_t row, float* out) {
    random_row(seed, mid, static_cast<std::uint64_t>(row), a, out, k);
  });
}

decoder::impl::expert_data& decoder::impl::expert(layer_data& L, std::int64_t e) {
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

}  // namespace flopcast::measure
