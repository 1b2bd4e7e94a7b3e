#pragma once
// Disaggregated serving (Dynamo, SGLang PD, vLLM's disaggregated prefill, TensorRT-LLM disagg):
// prefill workers and decode workers, each a replica of the simulator (simulator.hpp) with its
// own tensor parallelism and scheduler limits, and a KV transfer per request between them.
//
// A request goes to a prefill worker (round robin in arrival order), which prefills its prompt
// (output_tokens = 1: the prefill ends with the first sampled token); its prompt's K/V then
// crosses the link (bytes / bandwidth + latency, overlapping nothing of that request) to a decode
// worker (round robin in order of arrival there), which receives it with the K/V present
// (trace_request::kv_present_tokens). The client's tokens all come from the decode worker: it
// recomputes the last prompt token to sample the first one (vLLM's scheduler after a remote KV
// load), so TTFT = prefill queue + prefill + transfer + decode queue + that first decode step.
// Closed loops couple the pools (a client's next request follows its previous one's finish at the
// decode worker): the pools are simulated in turn, each pass feeding the next arrivals from the
// last finishes, until the arrivals repeat exactly (a fixed point: the coupled run).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "flopcast/serving/simulator.hpp"

namespace flopcast {

// The most passes a closed loop runs both pools for (until the arrivals repeat).
inline constexpr std::int64_t max_disaggregated_passes = 200;

// The layout; unset values take the simulation's own (its tensor parallelism and scheduler).
struct disaggregation_settings {
  std::int64_t prefill_workers = 1, decode_workers = 1;
  std::optional<std::int64_t> prefill_tensor_parallel, decode_tensor_parallel;
  // Each pool's expert and attention-data parallelism (default: the layout's), as the request
  // table's layout fields mean them: a worker is tensor_parallel x expert_parallel GPUs.
  std::optional<std::int64_t> prefill_expert_parallel, decode_expert_parallel;
  std::optional<std::int64_t> prefill_attention_data_parallel, decode_attention_data_parallel;
  std::optional<std::int64_t> prefill_max_num_seqs, prefill_max_num_batched_tokens;
  std::optional<std::int64_t> decode_max_num_seqs, decode_max_num_batched_tokens;
  // The link between a prefill worker and a decode worker, bytes/s in all (default:
  // transfer_link_default) and the latency of one transfer (default: the layout's link_latency_s).
  std::optional<double> transfer_bandwidth_bytes_per_s, transfer_latency_s;
};

// The default link: per GPU, the GPU's interconnect (half its listed bidirectional total) when
// every GPU of the deployment fits in one NVLink domain (or the domain is unknown), else the
// scale-out network, 50 GB/s per GPU (estimate/parallel.cpp's beyond-domain rate: one 400 Gb/s
// NIC per GPU); times min(prefill TP, decode TP), the GPU pairs that send their shards at once.
[[nodiscard]] double transfer_link_default(const hardware_spec& gpu, std::int64_t total_gpus, std::int64_t prefill_tp,
                                           std::int64_t decode_tp) noexcept;

struct disaggregated_pool {
  std::int64_t workers = 0, tensor_parallel = 0, max_num_seqs = 0, max_num_batched_tokens = 0, kv_blocks = 0;
  std::int64_t expert_parallel = 1, attention_data_parallel = 1;
  std::int64_t gpus_per_worker = 0;  // tensor_parallel x expert_parallel
  // Busy time (steps) over each worker's span from its first arrival to its last finish, mean
  // over the workers.
  double utilization = 0;
  // Mean wait in the pool's queue per request: the time-averaged waiting requests (in system
  // minus running) over the arrival rate, by Little's law, pooled over the workers.
  double mean_queue_s = 0;
  double mean_waiting = 0, mean_running = 0;  // summed over the workers
  std::vector<simulation_result> worker_results;
};

struct disaggregated_result {
  // End to end, as the client sees it (ttft, tpot, itl, e2e, throughput, goodput); the KV
  // figures, running batch and timeline are the decode pool's (the timeline: decode worker 0's);
  // steps and preemptions summed over both pools. ITL percentiles with several decode workers:
  // the count-weighted mean of the workers' (mean, min and max exact).
  simulation_result total;
  disaggregated_pool prefill, decode;
  distribution transfer_s;  // per measured request
  double transfer_bandwidth_bytes_per_s = 0, transfer_latency_s = 0;
  double mean_transfer_bytes = 0;  // K/V bytes sent per measured request (step_model::sequence_kv_bytes)
  // The same requests at the same arrival times (a closed loop's replayed open loop) with one
  // more prefill worker, and with one more decode worker: their mean end-to-end latency. The bottleneck is the pool
  // whose extra worker shortens it more per GPU added: "prefill" or "decode"; "none" when neither shortens it by 1%
  // (more workers do not help at this load).
  double e2e_mean_plus_prefill_worker_s = 0, e2e_mean_plus_decode_worker_s = 0;
  std::string bottleneck;
  std::int64_t gpus = 0;  // prefill workers x their GPUs + decode workers x theirs (a worker: TP x EP)
  double output_tokens_per_s_per_gpu = 0;
  std::int64_t passes = 1;  // closed loop: simulations of both pools until the arrivals repeat
  bool converged = true;    // false: the closed loop stopped at the pass limit (figures approximate)
};

// Errors: as simulate(), and "/disaggregation/..." for the layout.
[[nodiscard]] disaggregated_result simulate_disaggregated(const model_spec& m, const simulation_settings& s,
                                                          const disaggregation_settings& d, const hardware_spec& gpu);

}  // namespace flopcast
