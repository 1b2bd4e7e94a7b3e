#pragma once
// KV caches for the reference decoder, behind a small interface: append the K/V of new
// positions, attend with queries over what is cached. Two formats: fp32, and int8 with one
// fp32 scale per (position, KV head) for K and for V (symmetric, absmax / 127), dequantised
// on the fly inside attention. Both count the work they execute (attention_tally).
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "flopcast/measure/kernels.hpp"

namespace flopcast::measure {

enum class kv_format : std::uint8_t { f32, i8 };
[[nodiscard]] std::string_view to_string(kv_format f) noexcept;

// Work done by attention, in flopcast's conventions: Q.K^T 2 per multiply-add, softmax 5
// per score, P.V 2 per multiply-add; bytes of cached K/V read (each position once per
// call) and written.
struct attention_tally {
  double score_flops = 0;
  double softmax_flops = 0;
  double value_flops = 0;
  double read_bytes = 0;
  double write_bytes = 0;
  std::int64_t pairs = 0;  // (query, key) pairs, summed over calls (per head group, not per head)
};

struct kv_layout {
  std::int64_t batch = 1;  // sequences
  std::int64_t kv_heads = 1;
  std::int64_t head_dim = 1;  // of K
  std::int64_t v_head_dim = 1;
  std::int64_t capacity = 1;  // positions per sequence
};

struct attend_request {
  std::int64_t seq = 0;
  const float* q = nullptr;  // [q_tokens][num_heads * head_dim], rows q_stride floats apart
  std::int64_t q_stride = 0;
  std::int64_t q_tokens = 0;   // the queries are the last q_tokens cached positions of seq
  std::int64_t num_heads = 0;  // query heads, a multiple of kv_heads (GQA)
  std::int64_t window = 0;     // 0: every earlier position; else the last `window` positions
  float scale = 1;             // applied to Q.K^T (1 / sqrt(head_dim))
  float* out = nullptr;        // [q_tokens][num_heads * v_head_dim], rows out_stride floats apart
  std::int64_t out_stride = 0;
  thread_pool* pool = nullptr;  // nullptr: the calling thread
  attention_tally* tally = nullptr;
};

class kv_cache {
 public:
  virtual ~kv_cache() = default;
  [[nodiscard]] virtual std::string_view format_name() const = 0;
  [[nodiscard]] virtual const kv_layout& layout() const = 0;
  // Appends `tokens` positions to sequence `seq`: k rows of kv_heads * head_dim floats
  // (k_stride apart), v rows of kv_heads * v_head_dim. Throws when the capacity is exceeded.
  virtual void append(std::int64_t seq, const float* k, std::int64_t k_stride, const float* v, std::int64_t v_stride,
                      std::int64_t tokens, attention_tally* tally = nullptr) = 0;
  // Causal attention of the request's queries over the cached positions.
  virtual void attend(const attend_request& r) = 0;
  [[nodiscard]] virtual std::int64_t length(std::int64_t seq) const = 0;
  [[nodiscard]] virtual std::int64_t total_tokens() const = 0;  // positions held, all sequences
  // Bytes holding the cached positions now (data and scales), and per position of one sequence.
  [[nodiscard]] virtual double memory_bytes() const = 0;
  [[nodiscard]] virtual double bytes_per_token() const = 0;
  virtual void clear() = 0;
};

[[nodiscard]] std::unique_ptr<kv_cache> make_kv_cache(kv_format format, const kv_layout& layout);

// Bytes one position of one sequence takes in a cache of this format (scales included).
[[nodiscard]] double kv_bytes_per_token(kv_format format, const kv_layout& layout) noexcept;

}  // namespace flopcast::measure
