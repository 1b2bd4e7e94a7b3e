#pragma once
// "How many GPUs do I need?": for a model at a format, a context and a load (a batch, or a
// number of concurrent sequences), the layouts of one device (tensor x pipeline x expert x
// data parallel) that hold it, each costed by the estimate at that layout (estimate()'s
// details.parallelism: memory per GPU, prefill, decode) or, for a concurrency target, by the
// serving closed form (serve()), with the cheapest and the fastest marked.
//
// What is tried: TP (a divisor of the attention heads) and TP x EP (EP a divisor of the
// routed experts, MoE models only) within the device's interconnect domain (NVLink / ICI /
// xGMI; an unknown domain counts as one device); PP (at most the layers) and DP (at most the
// batch or concurrency) beyond it; at most max_gpus GPUs in all. Every layout is tried at each
// GPU count from 1 up to the fewest that fit, then at each power of two above that count.
// Listed: every fitting layout at the fewest GPUs, the fastest at each larger power-of-two
// count when it is faster than all listed before it, and the cheapest and the fastest of all
// tried. Marks:
//   cheapest: the lowest USD per million output tokens (ties: fewer GPUs, then faster);
//   fastest: the lowest request latency, time to first token + (output tokens - 1) x time per
//     output token (ties: more tokens/s, then fewer GPUs).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/estimate/estimate.hpp"
#include "flopcast/plan/slo_search.hpp"

namespace flopcast {

struct plan_settings {
  // The model's format, context (sequence_length prompt tokens + num_generated_tokens), batch,
  // efficiencies, price and fit rule; base.parallel's link figures (interconnect bandwidth,
  // link latency) are kept, its ranks are what the plan chooses.
  settings base;
  std::int64_t max_gpus = 64;               // the most GPUs a layout may use
  std::optional<std::int64_t> concurrency;  // concurrent sequences (serve()); unset: the batch at once
  // The SLO search (slo_search.hpp), run when an SLO or an objective is given: the traffic is the
  // concurrency above (closed loop), a request rate, or neither; base's sequence_length and
  // num_generated_tokens are each request's lengths.
  slo_targets slo;
  std::optional<double> request_rate;         // requests/s, the whole system's (Poisson)
  std::optional<search_objective> optimize;   // default goodput
  std::int64_t search_gpus = 8;               // the most GPUs a configuration may use
  std::optional<double> budget_usd_per_hour;  // the most all its GPUs may cost per hour
  // The search's workload beyond base's fixed lengths (the request's "simulation" part, as `serve`
  // reads it): uniform length ranges, a dataset's lengths, a shared prefix, a prompt pool,
  // sessions of turns, and the seed of its arrivals and lengths.
  std::optional<length_range> input_tokens_range, output_tokens_range;
  workload_settings workload;
  std::uint64_t seed = 0;
  [[nodiscard]] bool searches() const noexcept { return slo.any() || optimize.has_value() || request_rate.has_value(); }
};

struct plan_layout {
  std::int64_t tp = 1, pp = 1, ep = 1, dp = 1, gpus = 1;
  double per_gpu_memory_bytes = 0;  // = estimate() at this layout: details.parallelism.memory_per_gpu
  double weights_per_gpu_bytes = 0, kv_cache_per_gpu_bytes = 0, activations_per_gpu_bytes = 0;
  double usable_bytes = 0;  // per GPU, after the fit reserve (the estimate's fit rule)
  bool fits = false;
  bool spans_nodes = false;  // more GPUs than one interconnect domain holds
  std::int64_t nodes = 1;    // interconnect domains (nodes) the layout's GPUs fill: ceil(gpus / domain)
  // Between nodes (nodes > 1): the GPU-to-GPU rate per direction the estimate charges the traffic
  // that crosses nodes at, and in words which traffic that is and whether a scale-out link is modelled.
  std::optional<double> inter_node_bandwidth_bytes_per_s;
  std::string inter_node;
  double ttft_s = 0;             // time to first token (prefill; with concurrency, under load)
  double tpot_s = 0;             // time per output token
  double request_latency_s = 0;  // ttft + (output tokens - 1) x tpot; training: the step
  double training_step_s = 0;    // training (base.training, with base.lora's method): one optimizer step
  double tokens_per_s = 0;       // output tokens/s of the whole load, all replicas (training: trained tokens/s)
  double cost_per_hour_usd = 0;  // all GPUs
  double usd_per_million_output_tokens = 0;  // training: per million trained tokens
  bool cheapest = false, fastest = false;
};

struct plan_result {
  std::vector<plan_layout> layouts;              // listed, by GPU count (then request latency)
  std::optional<std::size_t> cheapest, fastest;  // indices into layouts
  std::int64_t min_gpus = 0;                     // the fewest GPUs that fit; 0: none within max_gpus
  std::optional<plan_layout> closest;            // nothing fits: the tried layout with the least memory per GPU
  std::int64_t domain_size = 1;                  // the interconnect domain used (1 when unknown)
  std::int64_t max_gpus = 0;                     // the cap searched (1 without an interconnect)
  std::int64_t load = 1;                         // sequences: the batch or the concurrency
  std::int64_t candidates = 0;                   // layouts evaluated
  std::vector<std::string> notes;
};

// Training (base.training): each layout is the training estimate at it (with base.lora, the
// LoRA/QLoRA step): the fit is the training memory per GPU, the speed the step (request_latency_s
// = training_step_s, tokens_per_s = batch x sequence_length / step), the cost per million trained
// tokens; no concurrency.
// Errors: a bad setting names its field ("/plan/max_gpus", "/batch_size", ...); an encoder-only
// model or no generated tokens are invalid_argument at "/model" and "/num_generated_tokens".
[[nodiscard]] plan_result plan(const model_spec& m, const plan_settings& s, const hardware_spec& gpu);

// The SLO search's question from a plan's settings (plan_settings::searches()): base's lengths as
// each request's, the concurrency (closed loop, 4 requests per client and at least 256) or the
// request rate (Poisson, 500 requests) as the traffic, else none; `engines` to try (empty: all).
[[nodiscard]] search_settings search_question(const plan_settings& s, std::vector<std::string> engines);

}  // namespace flopcast
