#pragma once
// Benchmark harnesses: how the client that measures a serving campaign defines TTFT, TPOT and
// ITL, what it leaves out (warm-up) and what it adds (its own costs: request send, tokenisation,
// streaming, detokenisation). The simulator reports what the engine does; a harness turns that
// into what the harness would print. The records (with their sources) are data/harnesses.json;
// harness.cpp holds the same table and a test keeps the two equal.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flopcast {

struct simulation_result;

// ITL: every gap between streamed chunks pooled over all requests (vLLM, SGLang,
// inference-perf), or each request's mean gap (latency - TTFT) / (output tokens - 1) averaged
// over requests (genai-perf, aiperf, trtllm-bench).
enum class itl_convention : std::uint8_t { chunk_gaps, request_mean };

struct harness_profile {
  std::string id, name;
  // Every harness read defines TTFT as the first non-empty streamed chunk minus the request's
  // send time, and TPOT per request as (latency - TTFT) / (output tokens - 1), averaged over
  // requests.
  itl_convention itl = itl_convention::chunk_gaps;
  std::int64_t warmup_requests = 0;   // requests the harness sends first and does not count
  std::int64_t default_requests = 0;  // requests per run by default (0: a duration instead)
  double client_overhead_s = 0;       // ESTIMATED: added to TTFT and end-to-end latency
  std::string source;                 // where the definitions were read
};

// The harnesses flopcast knows, and one by id ("none" is not one: no harness, the engine's view).
[[nodiscard]] const std::vector<harness_profile>& harness_profiles();
// Throws flopcast::error(invalid_argument, "/simulation/harness") for an unknown id.
[[nodiscard]] const harness_profile& find_harness(std::string_view id);

// One request as the client records it: its send time and each streamed chunk's arrival with the
// tokens it carried.
struct client_record {
  double start_s = 0;
  std::vector<double> chunk_s;
  std::vector<std::int64_t> chunk_tokens;
};

struct harness_metrics {
  std::int64_t requests = 0;
  double ttft_mean_s = 0, tpot_mean_s = 0, itl_mean_s = 0, e2e_mean_s = 0;
  double client_overhead_s = 0;  // added to every TTFT and end-to-end latency
};

// The harness's definitions over client records (the reference; tests check them by hand).
[[nodiscard]] harness_metrics apply_harness(const harness_profile& h, const std::vector<client_record>& records,
                                            double client_overhead_s);
// The same definitions over a simulation's statistics: TTFT and end-to-end means plus the client
// term; TPOT the mean of per-request means; ITL the pooled chunk gaps or the per-request mean.
[[nodiscard]] harness_metrics apply_harness(const harness_profile& h, const simulation_result& r,
                                            double client_overhead_s);

}  // namespace flopcast
