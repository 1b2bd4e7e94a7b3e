// The benchmark harnesses' measurement conventions (data/harnesses.json holds the same records
// with their sources; tests/cpp/test_speculative_serving.cpp keeps the two equal).
#include "flopcast/serving/harness.hpp"

#include <algorithm>
#include <string>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/serving/simulator.hpp"

namespace flopcast {
namespace {

using detail::d;

// ESTIMATED client term (request send, tokenisation, streaming, detokenisation at the client):
// the middle of the 15-30 ms flopcast issue 23 reports from one published harness comparison; no
// harness publishes its own figure. A request or --client-overhead replaces it.
constexpr double client_term_s = 0.02;

}  // namespace

const std::vector<harness_profile>& harness_profiles() {
  static const std::vector<harness_profile> table = {
      // calculate_metrics: tpot = (latency - ttft) / (output_len - 1) per request, itls += every
      // chunk gap; one initial test prompt before the run, --num-prompts 1000.
      {"vllm", "vLLM vllm bench serve (benchmarks/benchmark_serving.py)", itl_convention::chunk_gaps, 1, 1000,
       client_term_s,
       "https://github.com/vllm-project/vllm/blob/8668d7c05027b98ac66bd5540955dd2ce3a0f318/benchmarks/"
       "benchmark_serving.py"},
      // Adapted from vLLM's script: the same calculate_metrics; one warm-up request.
      {"sglang", "SGLang bench_serving (python/sglang/bench_serving.py)", itl_convention::chunk_gaps, 1, 1000,
       client_term_s,
       "https://github.com/sgl-project/sglang/blob/50a613687fe1ffc6f1bb630c684a24c428a54a74/python/sglang/"
       "bench_serving.py"},
      // inter_token_latency = (request_latency - ttft) / (output_sequence_length - 1) per request;
      // inter_chunk_latency is the pooled gaps; --warmup-request-count 0, --request-count 10.
      {"aiperf", "NVIDIA AIPerf / GenAI-Perf (aiperf profile)", itl_convention::request_mean, 0, 10, client_term_s,
       "https://github.com/ai-dynamo/aiperf/blob/25f8117560e512db86cc635ce7c8387d7c50ab81/docs/metrics_reference.md"},
      // intertoken_latency = (end - first_token) / (num_output_tokens - 1) per request.
      {"trtllm-bench", "TensorRT-LLM trtllm-bench (tensorrt_llm/bench)", itl_convention::request_mean, 0, 0,
       client_term_s,
       "https://github.com/NVIDIA/TensorRT-LLM/blob/77d7fe1eb2d89753ae33a0745d1083c133064f92/tensorrt_llm/bench/"
       "dataclasses/statistics.py"},
      // TPOT (e2e - ttft) / (output tokens - 1); ITL the time between output tokens; no warm-up.
      {"inference-perf", "Kubernetes inference-perf", itl_convention::chunk_gaps, 0, 0, client_term_s,
       "https://github.com/kubernetes-sigs/inference-perf/blob/010d12fb62cc3157b6bd228ef93dd865c7a05194/docs/"
       "metrics.md"},
  };
  return table;
}

const harness_profile& find_harness(std::string_view id) {
  for (const harness_profile& h : harness_profiles())
    if (detail::squash_name(h.id) == detail::squash_name(std::string(id))) return h;
  std::string names;
  for (const harness_profile& h : harness_profiles()) names += (names.empty() ? "" : ", ") + h.id;
  throw error(error_code::invalid_argument, "/simulation/harness",
              "expected none or a harness (" + names + "), but got \"" + std::string(id) + "\"");
}

harness_metrics apply_harness(const harness_profile& h, const std::vector<client_record>& records,
                              double client_overhead_s) {
  harness_metrics out;
  out.client_overhead_s = client_overhead_s;
  double ttft = 0, e2e = 0, tpot = 0, gaps = 0;
  std::int64_t tpot_n = 0, gap_n = 0;
  for (const client_record& r : records) {
    if (r.chunk_s.empty()) continue;
    ++out.requests;
    const double first = r.chunk_s.front() - r.start_s, last = r.chunk_s.back() - r.start_s;
    std::int64_t tokens = 0;
    for (const std::int64_t t : r.chunk_tokens) tokens += t;
    ttft += first;
    e2e += last;
    if (tokens > 1) {
      tpot += (last - first) / d(tokens - 1);
      ++tpot_n;
    }
    for (std::size_t i = 1; i < r.chunk_s.size(); ++i) {
      gaps += r.chunk_s[i] - r.chunk_s[i - 1];
      ++gap_n;
    }
  }
  if (out.requests == 0) return out;
  out.ttft_mean_s = ttft / d(out.requests) + client_overhead_s;
  out.e2e_mean_s = e2e / d(out.requests) + client_overhead_s;
  out.tpot_mean_s = tpot_n > 0 ? tpot / d(tpot_n) : 0.0;
  out.itl_mean_s = h.itl == itl_convention::request_mean ? out.tpot_mean_s : (gap_n > 0 ? gaps / d(gap_n) : 0.0);
  return out;
}

harness_metrics apply_harness(const harness_profile& h, const simulation_result& r, double client_overhead_s) {
  harness_metrics out;
  out.client_overhead_s = client_overhead_s;
  out.requests = r.measured_requests;
  out.ttft_mean_s = r.ttft.mean + client_overhead_s;
  out.e2e_mean_s = r.e2e.mean + client_overhead_s;
  out.tpot_mean_s = r.tpot.mean;
  out.itl_mean_s = h.itl == itl_convention::request_mean ? r.tpot.mean : r.itl.mean;
  return out;
}

}  // namespace flopcast
