#pragma once
// "What should I run to meet my latency targets at the lowest cost?" (issue 28): a search over
// serving configurations of one model on one device, within a GPU count (and a price cap), for a
// traffic (a system-wide concurrency or request rate, or none: each configuration at the most load
// it serves), judged against SLOs on TTFT, TPOT and end-to-end latency at a percentile.
//
// The space: every engine that runs on the device and that the simulator models; the model's
// weight format and the narrower native formats the device computes in (FP8, FP4), with their
// default KV format; tensor parallelism (a divisor of the heads) within the interconnect domain,
// and for MoE models expert parallelism with or without attention data parallelism over the same
// GPUs, across domains too (wide EP over the scale-out network); no pipeline parallelism (the
// serving simulator models one pipeline stage); max_num_seqs and max_num_batched_tokens (the engine's and a
// latency-leaning choice); MTP speculative decoding where the model has MTP heads; replicas up to the GPU count; and on
// engines that run them, disaggregated prefill and decode workers (each pool's layout and worker count).
//
// How it is searched, so that an SLO only ever filters (tightening one never finds more):
//  1. every configuration's memory fit and, at a ladder of loads, its closed-form figures
//     (serve(): TTFT, TPOT, throughput); nothing here depends on the SLOs;
//  2. the points on the closed form's Pareto front of output tokens/s per GPU against tokens/s per
//     user (1 / TPOT) are simulated (simulate(), the settings `flopcast serve` runs for them, the
//     figures `serve` shows: band corrections included), at most max_simulations of them;
//  3. the SLOs filter the simulated points; the objective ranks those that meet every one.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/serving/disaggregated.hpp"
#include "flopcast/serving/engine.hpp"
#include "flopcast/serving/simulator.hpp"

namespace flopcast {

enum class search_objective : std::uint8_t {
  goodput,  // output tokens/s per GPU within the SLOs
  cost,     // USD per million output tokens
  gpus      // fewest GPUs (then goodput)
};
[[nodiscard]] std::string_view to_string(search_objective o) noexcept;
// "goodput", "cost", "gpus". Throws flopcast::error(invalid_argument) naming `field`.
[[nodiscard]] search_objective parse_search_objective(std::string_view name, std::string_view field = "/plan/optimize");

struct slo_targets {
  std::optional<double> ttft_s, tpot_s, e2e_s;  // limits; unset: none
  std::int64_t percentile = 90;                 // 50, 90 or 99: of TTFT, TPOT and end-to-end latency
  [[nodiscard]] bool any() const noexcept { return ttft_s || tpot_s || e2e_s; }
};

struct search_settings {
  // The base of every simulation: base settings (format, efficiencies, price, fit rule), the
  // workload (lengths, dataset, shared prefix, turns), the seed, and the traffic: arrivals
  // closed_loop with `clients` the system's concurrency, poisson with `rate_per_s` the system's
  // rate, or batch: no traffic given (each configuration at the most load it serves).
  simulation_settings sim;
  std::int64_t gpus = 8;                      // the most GPUs a configuration may use
  std::optional<double> budget_usd_per_hour;  // the most a configuration may cost per hour (all GPUs)
  slo_targets slo;
  search_objective objective = search_objective::goodput;
  std::vector<std::string> engines;  // ids; empty: every engine that runs on the device and is simulated
  std::vector<precision> formats;    // weight formats; empty: the model's and the device's narrower native ones
  // Narrowing the space (a publisher's sweep, a team's constraints): the tensor-parallel sizes
  // tried (empty: every power of two within the domain that divides the heads); whether expert
  // parallelism (with and without attention data parallelism) and MTP speculative decoding are tried.
  std::vector<std::int64_t> tensor_parallel;
  bool expert_parallel = true, speculative = true;
  bool disaggregated = true;         // try separate prefill and decode workers on engines that run them
  std::size_t top = 10;              // ranked configurations kept
  std::size_t max_simulations = 40;  // closed-form front points simulated
  // Called with the share done (0..1); returning false cancels (flopcast::error(limit, "/plan")).
  std::function<bool(double)> progress;
};

// One configuration: where every GPU goes and how the engine is set.
struct search_config {
  std::string engine;
  precision weight = precision::bf16, kv = precision::bf16;
  std::int64_t tp = 1, ep = 1, attention_dp = 1;  // one replica (tp x ep GPUs)
  std::int64_t replicas = 1;
  std::int64_t max_num_seqs = 256, max_num_batched_tokens = 8192;
  bool chunked_prefill = true;
  std::int64_t speculative_tokens = 0;  // MTP draft tokens; 0: off
  // Disaggregated serving (serving/disaggregated.hpp): prefill_workers of prefill_tp x prefill_ep
  // GPUs and decode_workers of tp x ep GPUs (the fields above are the decode pool's; replicas 1).
  bool disaggregated = false;
  std::int64_t prefill_workers = 0, decode_workers = 0;
  std::int64_t prefill_tp = 1, prefill_ep = 1, prefill_attention_dp = 1;
  [[nodiscard]] std::int64_t gpus() const noexcept {
    return disaggregated ? prefill_workers * prefill_tp * prefill_ep + decode_workers * tp * ep : tp * ep * replicas;
  }
};

struct search_point {
  std::string gpu;  // the device's name (several are compared by the multi-device search)
  search_config config;
  // One replica's simulation: exactly what `flopcast serve` runs for it (its concurrency or rate is
  // the replica's share of the traffic).
  simulation_settings sim;
  // A disaggregated configuration's pools (sim is then their base: simulate_disaggregated).
  std::optional<disaggregation_settings> disaggregation;
  std::int64_t concurrency = 0;  // the system's clients (closed loop), 0 otherwise
  double rate_per_s = 0;         // the system's requests/s (Poisson), 0 otherwise
  bool simulated = false;
  // Figures as `serve` shows them (at the SLO percentile for TTFT, TPOT and end-to-end).
  double ttft_s = 0, tpot_s = 0, e2e_s = 0;
  figure_range ttft_range, tpot_range;  // the engine's residual bands around the simulator's figure
  bool has_ranges = false;
  double output_tokens_per_s = 0;  // all replicas
  double output_tokens_per_s_per_gpu = 0, tokens_per_s_per_user = 0;
  double total_tokens_per_s_per_gpu = 0;  // prompt and output tokens per second, per GPU
  double goodput_requests_per_s = 0;      // all replicas: requests meeting the TTFT and TPOT limits
  double cost_per_hour_usd = 0, usd_per_million_output_tokens = 0;
  bool keeps_up = true;  // an open loop completes >= 95% of its arrival rate
  bool meets = false;    // every SLO given (and keeps_up)
  // limit / figure - 1 per SLO given (negative: missed); the least of them binds.
  std::optional<double> ttft_margin, tpot_margin, e2e_margin;
  std::string binding;  // "ttft", "tpot", "e2e" or "throughput" (an open loop that cannot keep up)
  // The engine's own command for one replica (ranked points; engine.hpp launch_for).
  std::optional<launch_command> launch;
  std::optional<launch_command>
      prefill_launch;  // disaggregated: a prefill worker's command (launch: a decode worker's)
};

struct search_result {
  std::vector<search_point> ranked;    // meeting every SLO, best first, one per configuration
  std::vector<search_point> pareto;    // simulated, non-dominated (per GPU, per user), by per-user speed
  std::vector<search_point> rejected;  // simulated points that miss an SLO, best by the objective first
  std::string why;                     // why the best beats the next, and what binds it
  std::int64_t configurations = 0;     // enumerated
  std::int64_t fitting = 0;            // whose memory holds at least one request
  std::int64_t closed_form_points = 0, simulations = 0;
  std::vector<std::string> notes;
};

// Errors: bad settings name their field ("/plan/gpus", "/plan/slo_ttft_s", ...); an unknown
// engine "/plan/engines".
[[nodiscard]] search_result search_configurations(const model_spec& m, const search_settings& s,
                                                  const hardware_spec& gpu);
// Several devices compared: each searched as above, their ranked points merged by the objective
// (top s.top), one Pareto front over all, every point naming its device; a device where no
// simulated engine runs is a note. One device: the search above.
[[nodiscard]] search_result search_configurations(const model_spec& m, const search_settings& s,
                                                  const std::vector<const hardware_spec*>& gpus);

}  // namespace flopcast
