#pragma once
// Serving throughput under continuous batching: how many sequences the KV-cache budget
// holds, aggregate tokens/s and requests/s, TTFT and TPOT at a concurrency, $ per 1M tokens,
// chunked prefill and speculative decoding. First-order: every step is a roofline step
// from estimate(), so it inherits the same conventions.
#include <cstdint>
#include <optional>

#include "flopcast/estimate/estimate.hpp"

namespace flopcast {

struct serving_settings {
  settings base;  // precision, kv precision, efficiencies, layout, cost
  std::int64_t prompt_tokens = 512;
  std::int64_t output_tokens = 256;
  std::optional<std::int64_t> concurrency;  // default: the most the KV budget holds
  bool paged = true;                        // paged KV cache: whole blocks per sequence
  std::int64_t block_size = 16;
  std::int64_t chunked_prefill_tokens = 0;  // prefill tokens per step; 0 = prefill runs alone
  // Unchunked prefills share a step up to this many tokens (TensorRT-LLM's max_num_tokens); 0 =
  // one prefill per step. With base.engine set and neither this nor chunked_prefill_tokens, the
  // engine's scheduler (engine.hpp scheduler_of) sets one of them.
  std::int64_t prefill_batch_tokens = 0;
  // The most sequences the engine runs at once (max_num_seqs); unset: the engine's, or none.
  std::optional<std::int64_t> max_running;
  const model_spec* draft = nullptr;    // speculative decoding: the draft model
  std::int64_t speculative_tokens = 4;  // draft tokens per verification step
  double acceptance_rate = 0.7;         // chance each draft token is accepted (i.i.d.)
};

struct serving_result {
  std::int64_t gpus = 1;
  double kv_budget_bytes = 0;        // per GPU, after the weights: for the sequences' caches and activations
  double kv_bytes_per_sequence = 0;  // per GPU, prompt + output (whole blocks if paged)
  std::int64_t max_concurrency = 0;  // sequences all replicas hold at once
  std::int64_t concurrency = 0;      // the one evaluated
  bool fits = false;                 // the requested concurrency fits (without a request: at least one sequence)
  double activation_bytes_per_sequence = 0;  // per GPU: its share of a batch's prefill activations
  bool concurrency_capped = false;           // more concurrency asked than fits: figures at max_concurrency
  double prefill_s = 0;                      // one request's prefill
  double decode_step_s = 0;                  // one step of the batch at the mean context
  bound decode_bound = bound::memory;
  double cycle_s = 0;  // time in which `concurrency` requests complete
  double output_tokens_per_second = 0;
  double total_tokens_per_second = 0;  // prompt + output
  double requests_per_second = 0;
  double ttft_s = 0;
  double tpot_s = 0;
  double cost_per_1m_output_tokens_usd = 0;
  figure_range output_tokens_per_second_range, ttft_range, tpot_range;
  // Speculative decoding (when a draft model is given).
  bool speculative = false;
  double expected_tokens_per_step = 0;  // (1 - a^(k+1)) / (1 - a), Leviathan et al. 2023
  double draft_step_s = 0;
  double verify_step_s = 0;
  double speculative_tpot_s = 0;
  double speculative_output_tokens_per_second = 0;
  double speedup = 0;
  std::string range_source;  // what the ranges come from
  // Empty, or which figures are the model's x a fitted band's median (estimate.hpp band_biased).
  std::string point_correction;
};

// Errors name the field ("/concurrency", "/acceptance_rate", ...).
[[nodiscard]] serving_result serve(const model_spec& m, const serving_settings& s, const hardware_spec& gpu);

}  // namespace flopcast
