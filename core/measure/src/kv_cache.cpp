#include "flopcast/measure/kv_cache.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>

#include "flopcast/base/error.hpp"

namespace flopcast::measure {

std::string_view to_string(kv_format f) noexcept { return f == kv_format::i8 ? "int8" : "fp32"; }

double kv_bytes_per_token(kv_format format, const kv_layout& l) noexcept {
  const double elements = static_cast<double>(l.kv_heads) * static_cast<double>(l.head_dim + l.v_head_dim);
  if (format == kv_format::f32) return 4.0 * elements;
  return elements + 2.0 * 4.0 * static_cast<double>(l.kv_heads);  // int8 values + a K and a V scale per head
}

namespace {

// 8 partial sums: vectorisable without reassociating a single chain.
template <class T>
inline float dot(const float* a, const T* b, std::int64_t n) noexcept {
  float s[8] = {};
  std::int64_t i = 0;
  for (; i + 8 <= n; i += 8)
    for (int j = 0; j < 8; ++j) s[j] += a[i + j] * static_cast<float>(b[i + j]);
  for (; i < n; ++i) s[0] += a[i] * static_cast<float>(b[i]);
  return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

template <class T>
inline void axpy(float w, const T* x, float* y, std::int64_t n) noexcept {
  for (std::int64_t i = 0; i < n; ++i) y[i] += w * static_cast<float>(x[i]);
}

// Symmetric int8 of n values; returns the scale.
inline float quantize(const float* x, std::int8_t* q, std::int64_t n) noexcept {
  float absmax = 0;
  for (std::int64_t i = 0; i < n; ++i) absmax = std::max(absmax, std::fabs(x[i]));
  const float scale = absmax > 0 ? absmax / 127.0f : 1.0f;
  const float inv = 1.0f / scale;
  for (std::int64_t i = 0; i < n; ++i)
    q[i] = static_cast<std::int8_t>(std::min(127.0f, std::max(-127.0f, std::nearbyint(x[i] * inv))));
  return scale;
}

// Storage [batch][kv_heads][capacity][dim] of T, with per-position scales for int8.
template <class T>
class cache_impl final : public kv_cache {
 public:
  explicit cache_impl(const kv_layout& l) : layout_(l), length_(static_cast<std::size_t>(l.batch), 0) {
    if (l.batch < 1 || l.kv_heads < 1 || l.head_dim < 1 || l.v_head_dim < 1 || l.capacity < 1)
      throw error(error_code::invalid_argument, "/kv_cache",
                  "expected a positive batch, head count, head size and capacity");
    const std::size_t slots = static_cast<std::size_t>(l.batch * l.kv_heads * l.capacity);
    k_ = make_aligned<T>(slots * static_cast<std::size_t>(l.head_dim));
    v_ = make_aligned<T>(slots * static_cast<std::size_t>(l.v_head_dim));
    if constexpr (quantised) {
      ks_.assign(slots, 0.0f);
      vs_.assign(slots, 0.0f);
    }
  }

  std::string_view format_name() const override { return quantised ? "int8" : "fp32"; }
  const kv_layout& layout() const override { return layout_; }
  std::int64_t length(std::int64_t seq) const override { return length_.at(static_cast<std::size_t>(seq)); }
  std::int64_t total_tokens() const override {
    std::int64_t n = 0;
    for (auto v : length_) n += v;
    return n;
  }
  double bytes_per_token() const override {
    return kv_bytes_per_token(quantised ? kv_format::i8 : kv_format::f32, layout_);
  }
  double memory_bytes() const override { return static_cast<double>(total_tokens()) * bytes_per_token(); }
  void clear() override { std::fill(length_.begin(), length_.end(), 0); }

  void append(std::int64_t seq, const float* k, std::int64_t k_stride, const float* v, std::int64_t v_stride,
              std::int64_t tokens, attention_tally* tally) override {
    check_seq(seq);
    std::int64_t& len = length_[static_cast<std::size_t>(seq)];
    if (tokens < 0 || len + tokens > layout_.capacity)
      throw error(error_code::invalid_argument, "/kv_cache",
                  "the KV cache holds " + std::to_string(layout_.capacity) + " positions per sequence, but " +
                      std::to_string(len + tokens) + " were appended");
    const std::int64_t hd = layout_.head_dim, vd = layout_.v_head_dim;
    for (std::int64_t t = 0; t < tokens; ++t) {
      const std::int64_t pos = len + t;
      for (std::int64_t h = 0; h < layout_.kv_heads; ++h) {
        const std::size_t s = slot(seq, h, pos);
        const float* kr = k + t * k_stride + h * hd;
        const float* vr = v + t * v_stride + h * vd;
        if constexpr (quantised) {
          ks_[s] = quantize(kr, k_.get() + s * static_cast<std::size_t>(hd), hd);
          vs_[s] = quantize(vr, v_.get() + s * static_cast<std::size_t>(vd), vd);
        } else {
          std::copy(kr, kr + hd, k_.get() + s * static_cast<std::size_t>(hd));
          std::copy(vr, vr + vd, v_.get() + s * static_cast<std::size_t>(vd));
        }
      }
    }
    len += tokens;
    if (tally) tally->write_bytes += static_cast<double>(tokens) * bytes_per_token();
  }

  void attend(const attend_request& r) override {
    check_seq(r.seq);
    const std::int64_t len = length_[static_cast<std::size_t>(r.seq)];
    if (r.q_tokens < 1 || r.q_tokens > len)
      throw error(error_code::invalid_argument, "/kv_cache",
                  "attend: expected 1 to " + std::to_string(len) + " queries (the cached positions), but got " +
                      std::to_string(r.q_tokens));
    if (r.num_heads < layout_.kv_heads || r.num_heads % layout_.kv_heads != 0)
      throw error(error_code::invalid_argument, "/kv_cache", "attend: query heads must be a multiple of the KV heads");
    const std::int64_t first = len - r.q_tokens;
    const auto keys_lo = [&](std::int64_t pos) {
      return r.window > 0 ? std::max<std::int64_t>(0, pos - r.window + 1) : 0;
    };

    // Work this call executes: every (query, key) pair in the causal (windowed) band.
    std::int64_t pairs = 0;
    for (std::int64_t i = 0; i < r.q_tokens; ++i) pairs += first + i - keys_lo(first + i) + 1;
    if (r.tally) {
      const double p = static_cast<double>(pairs), nh = static_cast<double>(r.num_heads);
      r.tally->score_flops += 2.0 * p * nh * static_cast<double>(layout_.head_dim);
      r.tally->softmax_flops += 5.0 * p * nh;
      r.tally->value_flops += 2.0 * p * nh * static_cast<double>(layout_.v_head_dim);
      r.tally->read_bytes += static_cast<double>(len - keys_lo(first)) * bytes_per_token();
      r.tally->pairs += pairs;
    }

    // Tasks: (query head, block of queries).
    constexpr std::int64_t q_block = 32;
    const std::int64_t blocks = (r.q_tokens + q_block - 1) / q_block;
    const std::int64_t tasks = r.num_heads * blocks;
    const auto run = [&](std::int64_t task) {
      const std::int64_t h = task / blocks, b = task % blocks;
      const std::int64_t kvh = h / (r.num_heads / layout_.kv_heads);
      const std::int64_t hd = layout_.head_dim, vd = layout_.v_head_dim;
      thread_local std::vector<float> scores;
      if (scores.size() < static_cast<std::size_t>(len)) scores.resize(static_cast<std::size_t>(len));
      const std::size_t base = slot(r.seq, kvh, 0);
      for (std::int64_t i = b * q_block; i < std::min(r.q_tokens, (b + 1) * q_block); ++i) {
        const std::int64_t pos = first + i, lo = keys_lo(pos);
        const float* q = r.q + i * r.q_stride + h * hd;
        float mx = -INFINITY;
        for (std::int64_t t = lo; t <= pos; ++t) {
          const std::size_t s = base + static_cast<std::size_t>(t);
          float sc = dot(q, k_.get() + s * static_cast<std::size_t>(hd), hd) * r.scale;
          if constexpr (quantised) sc *= ks_[s];
          scores[static_cast<std::size_t>(t)] = sc;
          mx = std::max(mx, sc);
        }
        float sum = 0;
        for (std::int64_t t = lo; t <= pos; ++t) {
          const float e = std::exp(scores[static_cast<std::size_t>(t)] - mx);
          scores[static_cast<std::size_t>(t)] = e;
          sum += e;
        }
        const float inv = 1.0f / sum;
        float* out = r.out + i * r.out_stride + h * vd;
        std::fill(out, out + vd, 0.0f);
        for (std::int64_t t = lo; t <= pos; ++t) {
          const std::size_t s = base + static_cast<std::size_t>(t);
          float w = scores[static_cast<std::size_t>(t)] * inv;
          if constexpr (quantised) w *= vs_[s];
          axpy(w, v_.get() + s * static_cast<std::size_t>(vd), out, vd);
        }
      }
    };
    const double work = static_cast<double>(pairs) * static_cast<double>(r.num_heads) *
                        static_cast<double>(layout_.head_dim + layout_.v_head_dim);
    if (r.pool && work >= 1 << 16)
      r.pool->parallel_for(tasks, run);
    else
      for (std::int64_t t = 0; t < tasks; ++t) run(t);
  }

 private:
  static constexpr bool quantised = std::is_same_v<T, std::int8_t>;
  void check_seq(std::int64_t seq) const {
    if (seq < 0 || seq >= layout_.batch)
      throw error(error_code::invalid_argument, "/kv_cache",
                  "sequence " + std::to_string(seq) + " is outside the batch of " + std::to_string(layout_.batch));
  }
  std::size_t slot(std::int64_t seq, std::int64_t head, std::int64_t pos) const noexcept {
    return static_cast<std::size_t>((seq * layout_.kv_heads + head) * layout_.capacity + pos);
  }

  kv_layout layout_;
  std::vector<std::int64_t> length_;
  aligned_array<T> k_, v_;
  std::vector<float> ks_, vs_;
};

}  // namespace

std::unique_ptr<kv_cache> make_kv_cache(kv_format format, const kv_layout& layout) {
  if (format == kv_format::i8) return std::make_unique<cache_impl<std::int8_t>>(layout);
  return std::make_unique<cache_impl<float>>(layout);
}

}  // namespace flopcast::measure
