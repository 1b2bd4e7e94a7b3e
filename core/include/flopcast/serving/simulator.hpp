#pragma once
// Iteration-level serving simulation: a step-time model (one engine iteration's time from the
// tokens it schedules) and a discrete-event simulator of continuous batching on one replica
// (vLLM-style scheduler: max_num_seqs, a token budget per step, chunked prefill, paged KV
// blocks, preemption by recompute). Same roofline conventions as estimate(): a step of B decode
// sequences at context c takes exactly estimate()'s decode step at batch B, context c; a step
// that is one whole prefill takes estimate()'s prefill time.
#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "flopcast/estimate/estimate.hpp"
#include "flopcast/hardware/hardware.hpp"
#include "flopcast/model/model.hpp"
#include "flopcast/serving/speculative.hpp"
#include "flopcast/serving/workload.hpp"

namespace flopcast {

// The most requests (and running sequences) the simulator takes (simulator.cpp's bound).
inline constexpr std::int64_t max_simulation_requests = 1000000;

// What one step costs, split.
struct step_time {
  double flops = 0;
  double bytes = 0;      // per GPU with tensor parallelism (bytes / tp)
  double compute_s = 0;  // incl. weight dequantisation at the fp32 rate
  double memory_s = 0;
  double communication_s = 0;  // tensor-parallel all-reduces and expert-parallel all-to-alls (not overlapped)
  double alltoall_bytes = 0;   // expert parallelism: one rank's dispatch + combine bytes (all MoE layers)
  double alltoall_s = 0;       // their time (in communication_s)
  double fixed_s = 0;          // step_costs
  double total_s = 0;          // max(compute, memory) + communication + fixed
};

// The step-time model of one (model, settings, GPU): coefficients computed once from the core's
// functions (run_pass, decode_flops_per_key, kv_elements_per_token, ...), then a step costs
// O(sequences in the step) with no allocation. Layouts: tensor and expert parallelism and
// attention data parallelism (a step is one attention rank's; the MoE layers see the tokens of
// all attention ranks, in lock-step: step_model_ep.cpp); pipeline and data parallelism are
// rejected ("/parallelism/...").
class step_model {
 public:
  // Fixed costs and the GEMM curve: s.costs (estimate.hpp).
  step_model(const model_spec& m, const settings& s, const hardware_spec& gpu);

  // Accumulates one step: add the sequences, then time().
  struct batch {
    double flops = 0, bytes = 0;
    double kv_read_bytes = 0;  // decode attention's cached K/V (timed at the KV-read efficiency)
    std::int64_t tokens = 0, sequences = 0;
  };
  // One decode token of a sequence with `context` tokens cached (attends context + 1 keys).
  void add_decode(batch& b, std::int64_t context) const noexcept;
  // A prefill chunk of `tokens` tokens after `context` already computed; `last`: the chunk that
  // ends the prompt (the LM head runs on its last position).
  void add_prefill(batch& b, std::int64_t context, std::int64_t tokens, bool last) const noexcept;
  // Speculative decoding's verification: `tokens` (k + 1) query tokens of one sequence with
  // `context` cached, logits at every position, the cache read once (speculative.cpp); one token
  // is add_decode.
  void add_verify(batch& b, std::int64_t context, std::int64_t tokens) const noexcept;
  [[nodiscard]] step_time time(const batch& b) const noexcept;

  // Conveniences: B sequences decoding at context c; one whole prefill of P tokens.
  [[nodiscard]] step_time decode_step(std::int64_t batch_size, std::int64_t context) const noexcept;
  [[nodiscard]] step_time prefill(std::int64_t tokens) const noexcept;

  // The K/V bytes of a sequence of `tokens` tokens, all layers and all GPUs (sliding-window
  // layers hold at most their window), plus its recurrent state: what a KV transfer moves.
  [[nodiscard]] double sequence_kv_bytes(std::int64_t tokens) const noexcept;
  // KV cache bytes per token per GPU (full-attention growth, all layers) and recurrent state
  // per sequence per GPU.
  [[nodiscard]] double kv_bytes_per_token() const noexcept { return kv_token_gpu_; }
  [[nodiscard]] double state_bytes_per_sequence() const noexcept { return state_seq_gpu_; }
  [[nodiscard]] double weights_per_gpu() const noexcept { return weights_gpu_; }
  [[nodiscard]] std::int64_t layers() const noexcept { return layers_; }
  // Expert parallelism: the routed experts one rank holds, and its dispatch + combine bytes for a
  // step of `tokens` tokens of one attention rank (tokens x top_k x hidden x activation bytes x
  // (ep - 1) / ep each way, every MoE layer; 0 without EP).
  [[nodiscard]] double experts_per_rank() const noexcept { return ep_experts_; }
  [[nodiscard]] double alltoall_bytes(double tokens) const noexcept;

 private:
  struct group_coef {
    std::int64_t window = 0;  // attention_window (0: all keys)
    bool chunked = false;     // local chunks (window == 0, chunk > 0)
    std::int64_t chunk = 0;
    std::int64_t cache_window = 0;  // cached_tokens' window (window or chunk)
    double count = 0;
    double decode_flops_per_key = 0, decode_bytes_per_key = 0;
    double prefill_flops_per_pair = 0;
    double kv_bytes_per_token = 0;  // cached K/V of one layer of the group for one token
  };
  [[nodiscard]] double weight_bytes_read(double tokens, double& params) const noexcept;
  void init_expert_parallel(const model_spec& m, const settings& s, double bandwidth);  // step_model_ep.cpp
  [[nodiscard]] step_time time_expert_parallel(const batch& b) const noexcept;

  std::array<group_coef, max_layer_groups> groups_{};
  std::size_t n_groups_ = 0;
  bool causal_ = false;
  double decode_linear_flops_ = 0;   // per decode token, incl. the LM head
  double prefill_linear_flops_ = 0;  // per prefill token, without the head
  double head_flops_ = 0;            // the LM head (and pooler) for one position
  double index_flops_per_key_ = 0, index_bytes_per_key_ = 0;
  double kv_write_decode_ = 0;  // bytes of one decode token's new K/V (all attention layers)
  double state_bytes_ = 0;      // recurrent state per sequence (all layers)
  weight_traffic traffic_;      // weights read by a step of T tokens (the estimator's)
  double hidden_ = 0;
  bool weight_only_ = false;
  double peak_c_ = 0, peak_dequant_ = 0, bw_m_ = 0;  // with efficiencies applied
  double tp_ = 1, allreduce_msg_per_token_ = 0, allreduces_ = 0, tp_bw_ = 0, tp_lat_ = 0;
  double weights_gpu_ = 0, kv_token_gpu_ = 0, state_seq_gpu_ = 0;
  std::int64_t layers_ = 0;
  // Expert parallelism and attention data parallelism (step_model_ep.cpp); ep_path_ false: the
  // plain path above, unchanged.
  bool ep_path_ = false;
  double ep_ = 1, adp_ = 1, imbalance_ = 1, ep_experts_ = 0, moe_layers_ = 0, a2a_per_token_ = 0, ep_bw_ = 0,
         ep_lat_ = 0;
  step_costs costs_;
};

enum class arrival_kind : std::uint8_t {
  batch,        // num_requests at t = 0
  closed_loop,  // `clients` clients, each sends its next request when its previous finishes
  poisson,      // open loop, exponential inter-arrival times at rate_per_s
  trace,        // the given requests
};

enum class batching_policy : std::uint8_t {
  mixed,          // decodes first, then prefill (chunks) fill the token budget (vLLM V1)
  prefill_first,  // a step admitting prefills runs only prefills; decodes wait (vLLM V0 default)
};

struct trace_request {
  double arrival_s = 0;
  std::int64_t input_tokens = 0;
  std::int64_t output_tokens = 0;
  // Optional (-1: none): requests of one prefix id start with the same workload.prefix_tokens
  // tokens; a request of a session id starts with the session's previous request (its prompt
  // and output), the rest of its prompt being new.
  std::int64_t prefix_id = -1, session_id = -1;
  // Disaggregated serving (disaggregated.hpp): prompt tokens whose K/V is already in this
  // replica's cache on arrival (sent by a prefill worker). Admission allocates their blocks and
  // prefills only the rest; a whole prompt present still recomputes its last token to sample
  // the next one (vLLM's scheduler does so after a remote KV load). A preempted request loses
  // them and recomputes locally.
  std::int64_t kv_present_tokens = 0;
  bool warmup = false;  // simulated but left out of the statistics (as the warm-up requests are)
};

// Prefix caching (prefix_cache.cpp): off; block: hashed full blocks, LRU eviction of free cached
// blocks (vLLM's automatic prefix caching, TensorRT-LLM's KV block reuse); radix: a radix tree
// matched token by token (whole blocks when block_size > 1), LRU eviction of leaves (SGLang).
enum class prefix_cache_mode : std::uint8_t { off, block, radix };

// Lengths: fixed (min == max) or uniform on the integers of [min, max].
struct length_range {
  std::int64_t min = 1024;
  std::int64_t max = 1024;
};

// One engine iteration, as the simulator ran it.
struct step_record {
  double start_s = 0, duration_s = 0;
  std::int64_t decode_tokens = 0, prefill_tokens = 0, sequences = 0;
  std::int64_t running = 0, waiting = 0;  // after scheduling
  std::int64_t blocks_used = 0, blocks_total = 0;
  std::int64_t preempted = 0;  // preemptions while scheduling this step
};

struct simulation_settings {
  settings base;  // precision, kv precision, efficiencies, step costs, tensor parallelism, memory utilisation
  arrival_kind arrivals = arrival_kind::batch;
  std::int64_t num_requests = 1000;  // at most 10^6 (trace: its length)
  std::int64_t clients = 1;          // closed loop
  double rate_per_s = 1;             // poisson
  std::vector<trace_request> trace;  // arrival order (non-decreasing arrival_s)
  length_range input_tokens{1024, 1024}, output_tokens{1024, 1024};
  std::uint64_t seed = 0;
  // Scheduler (vLLM's engine arguments of the same names).
  std::int64_t max_num_seqs = 256;
  std::int64_t max_num_batched_tokens = 8192;  // tokens per step (chunked prefill: the chunk budget)
  bool chunked_prefill = true;
  batching_policy policy = batching_policy::mixed;
  std::int64_t block_size = 16;
  std::optional<std::int64_t> kv_blocks;  // default: (usable memory - weights - activations) / block bytes
  prefix_cache_mode prefix_cache = prefix_cache_mode::off;  // models with recurrent state: always off
  workload_settings workload;  // shared prefix, prompt pool, sessions, length preset (workload.hpp)
  // Recurrent state (hybrid models) when the engine sizes its running cap from memory
  // (state_memory_ratio > 0, SGLang's mamba_full_memory_ratio): the memory left after the weights
  // and activations is split so that state pool / KV cache = this ratio, and at most
  // pool slots / state_slots_per_sequence sequences run. 0: every one of max_num_seqs sequences'
  // state is reserved (vLLM).
  double state_memory_ratio = 0;
  std::int64_t state_slots_per_sequence = 1;
  // Speculative decoding (off by default): the proposer, k and the acceptance rates.
  speculative_settings speculative;
  // Warm-up: the first warmup_requests requests and those arriving before warmup_s are
  // simulated but excluded from the statistics.
  std::int64_t warmup_requests = 0;
  double warmup_s = 0;
  // Goodput SLOs (unset: no limit).
  std::optional<double> slo_ttft_s, slo_tpot_s;
  // Every step's time multiplied by this (the saturation check runs the step model a little
  // faster and slower: saturation_of); 1 otherwise. In (0.1, 10].
  double step_time_scale = 1;
  std::int64_t max_samples = 512;  // timeline points kept (2..100000)
  bool keep_requests = false;      // fill simulation_result::requests
  // Called after every step (instrumentation, tests); may be empty.
  std::function<void(const step_record&)> on_step;
};

struct distribution {
  std::int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, min = 0, max = 0;
};

struct time_point {
  double t_s = 0;
  std::int64_t running = 0, waiting = 0;
  double kv_utilization = 0;
  double cache_hit_rate = 0;  // prompt tokens from the prefix cache / prompt tokens, so far
};

struct request_record {
  double arrival_s = 0, first_token_s = 0, finish_s = 0;
  std::int64_t input_tokens = 0, output_tokens = 0;
  std::int64_t emitted_tokens = 0;  // = output_tokens when done
  std::int64_t prefill_tokens = 0;  // tokens prefilled, recomputation included
  std::int64_t preemptions = 0;
  bool measured = false;           // not warm-up
  std::int64_t cached_tokens = 0;  // prompt tokens the prefix cache served, every admission
};

struct simulation_result {
  std::int64_t requests = 0, measured_requests = 0;
  std::int64_t steps = 0, preemptions = 0;
  std::int64_t kv_blocks = 0, block_size = 0;
  double weights_per_gpu = 0, kv_bytes_per_token_per_gpu = 0;  // the step model's (one attention rank's GPU)
  double makespan_s = 0;                                       // last finish
  double window_s = 0;                // measured window: first measured arrival to last measured finish
  distribution ttft, tpot, itl, e2e;  // seconds; itl percentiles from a 0.1%-wide log histogram
  double output_tokens_per_s = 0, total_tokens_per_s = 0, requests_per_s = 0;
  double goodput_requests_per_s = 0;
  std::int64_t goodput_requests = 0;
  // Time averages over the whole run: requests in the system (waiting + running), running
  // batch, KV block utilisation; and the peak utilisation.
  double mean_in_system = 0, mean_running = 0, mean_kv_utilization = 0, peak_kv_utilization = 0;
  double mean_latency_all_s = 0, arrival_rate_all = 0;  // over every request: Little's law check
  // Prefix cache, over every admission (a preempted request's readmission too): prompt tokens
  // (input and the output tokens recomputed; cached + computed), those the cache served, those
  // prefilled.
  prefix_cache_mode prefix_cache = prefix_cache_mode::off;
  std::int64_t prompt_tokens = 0, cached_prompt_tokens = 0, computed_prompt_tokens = 0, evicted_blocks = 0;
  double cache_hit_rate = 0;  // cached_prompt_tokens / prompt_tokens
  // Communication over the run's steps (one attention rank's): TP all-reduces + EP all-to-alls,
  // and the all-to-all bytes (dispatch + combine).
  double communication_s = 0, alltoall_bytes = 0;
  // Attention data parallelism: the attention ranks the replica's requests were dealt to (the
  // figures are one rank's, counts and rates scaled to the replica).
  std::int64_t attention_ranks = 1;
  // Speculative decoding (the settings as resolved: the method's defaults filled in).
  speculative_settings speculative;
  double expected_tokens_per_step = 1;          // per verification of k drafts
  double tokens_per_decode_step = 0;            // emitted per decode (verification) step, measured requests
  std::vector<time_point> timeline;             // at most max_samples points, evenly thinned
  std::vector<request_record> requests_detail;  // when keep_requests
};

// Saturation is a range, not a cliff (issue 24): an open-loop run (Poisson arrivals) whose queue
// flips between bounded and unbounded when every step is a little faster or slower. The run is
// repeated with the step times scaled by `scales` (the engine's residual band: the step-time
// ratios its validation rows show; 0.8 and 1.25 without one); a run keeps up when it completes
// requests at no less than 95% of the arrival rate. near_capacity: the fast and slow runs fall in
// different regimes, so the load is within that change of step time of capacity.
struct saturation_check {
  bool checked = false;  // an open-loop run
  double fast_scale = 1, slow_scale = 1;
  bool fast_keeps_up = true, base_keeps_up = true, slow_keeps_up = true;
  bool near_capacity = false;
  simulation_result fast, slow;  // the runs at fast_scale and slow_scale
};
[[nodiscard]] saturation_check saturation_of(const model_spec& m, const simulation_settings& s,
                                             const hardware_spec& gpu, const simulation_result& base, double fast_scale,
                                             double slow_scale);

// The figures a simulation shows (`serve`, the SLO search): where a fitted engine's residual band
// (settings::bands, measured / predicted) excludes the simulator's figure (band_biased), the figure
// is the simulator's x the band's median; a corrected TTFT stays at or above the idle prefill of the
// shortest prompt (or the simulator's own figure where that is lower). The ranges are the bands
// around the simulator's figure (has_*: a fitted engine with rows in that band).
struct band_corrections {
  bool fitted = false;  // a fitted engine at its fitted efficiencies
  bool has_ttft = false, has_decode = false, has_rate = false;
  double ttft = 1, decode = 1, rate = 1;  // factors on TTFT, TPOT and ITL, and on rates as a time
  double idle_prefill_s = 0;              // 0: no floor (no TTFT correction)
};
[[nodiscard]] band_corrections corrections_for(const model_spec& m, const simulation_settings& s,
                                               const hardware_spec& gpu);
[[nodiscard]] simulation_result corrected(const simulation_result& r, const band_corrections& k);

// Errors: flopcast::error(invalid_argument) naming the field ("/simulation/max_num_seqs", ...).
void validate(const model_spec& m, const simulation_settings& s);
[[nodiscard]] simulation_result simulate(const model_spec& m, const simulation_settings& s, const hardware_spec& gpu);

}  // namespace flopcast
