// Disaggregated serving (disaggregated.hpp): a free transfer with idle workers reduces to the
// prefill and decode steps counted by hand, the transfer time is bytes / bandwidth + latency with
// the K/V bytes from the config, tokens are conserved, Little's law holds per worker, the
// bottleneck names the slow pool, closed loops converge, and bad layouts name their field.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "flopcast/io/request.hpp"
#include "flopcast/serving/disaggregated.hpp"
#include "flopcast/serving/simulator.hpp"
#include "helpers.hpp"

using flopcast::arrival_kind;
using flopcast::disaggregation_settings;
using flopcast::simulate_disaggregated;
using flopcast::simulation_settings;
using flopcast::step_model;
using flopcast::trace_request;

namespace {

using test::pointer_of;

bool close_disaggregated(double a, double b, double rel) { return test::close_to(a, b, rel); }

// llama-3-8b's K/V per token at bf16, from its config.json: 2 (K and V) x 32 layers x 8 KV heads x
// 128 head_dim x 2 bytes = 131,072 bytes.
constexpr double llama3_8b_kv_bytes_per_token = 2.0 * 32 * 8 * 128 * 2;

// Requests far apart (1000 s): each runs alone in both pools.
simulation_settings lone_requests(const std::vector<std::pair<std::int64_t, std::int64_t>>& lengths) {
  simulation_settings s;
  s.arrivals = arrival_kind::trace;
  s.keep_requests = true;
  for (std::size_t i = 0; i < lengths.size(); ++i)
    s.trace.push_back({1000.0 * static_cast<double>(i), lengths[i].first, lengths[i].second});
  return s;
}

}  // namespace

TEST_CASE("disaggregated: free transfer and idle workers give the prefill and decode steps by hand", "[disagg]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  const simulation_settings s = lone_requests({{512, 4}, {1000, 9}, {2048, 16}, {77, 1}});
  disaggregation_settings dz;
  dz.prefill_workers = 3;
  dz.decode_workers = 2;
  dz.prefill_tensor_parallel = 1;
  dz.decode_tensor_parallel = 2;
  dz.transfer_bandwidth_bytes_per_s = 1e300;  // bytes / 1e300 vanishes next to the step times
  dz.transfer_latency_s = 0;
  const auto r = simulate_disaggregated(m, s, dz, gpu);

  flopcast::settings pb = s.base, db = s.base;
  db.parallel.tensor_parallel = 2;
  const step_model sp(m, pb, gpu), sd(m, db, gpu);
  REQUIRE(r.total.requests_detail.size() == s.trace.size());
  for (std::size_t i = 0; i < s.trace.size(); ++i) {
    const trace_request& q = s.trace[i];
    const std::int64_t P = q.input_tokens, O = q.output_tokens;
    // Prefill worker: one whole prefill of the prompt (it samples the first token).
    double t = q.arrival_s + sp.prefill(P).total_s;
    // Decode worker: the K/V arrives; it recomputes the last prompt token (a one-token chunk at
    // context P - 1) to sample the first token, then decodes token k + 1 at context P + k - 1.
    step_model::batch first;
    sd.add_prefill(first, P - 1, 1, true);
    t += sd.time(first).total_s;
    const double ttft = t - q.arrival_s;
    for (std::int64_t k = 1; k < O; ++k) t += sd.decode_step(1, P + k - 1).total_s;
    const auto& x = r.total.requests_detail[i];
    CHECK(x.first_token_s - x.arrival_s == ttft);
    CHECK(x.finish_s == t);
    CHECK(x.emitted_tokens == O);
  }
  // The prefill of 1000 tokens measured alone (a plain simulation that stops at the first token).
  simulation_settings alone;
  alone.arrivals = arrival_kind::trace;
  alone.trace = {{0.0, 1000, 1}};
  CHECK(flopcast::simulate(m, alone, gpu).ttft.mean == sp.prefill(1000).total_s);
  CHECK(r.gpus == 3 * 1 + 2 * 2);
  CHECK(r.converged);
}

TEST_CASE("disaggregated: the transfer is the prompt's K/V bytes over the link plus its latency", "[disagg]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  const simulation_settings s = lone_requests({{1000, 8}});
  disaggregation_settings dz;
  dz.transfer_bandwidth_bytes_per_s = 100e9;
  dz.transfer_latency_s = 5e-6;
  const auto r = simulate_disaggregated(m, s, dz, gpu);
  // 1000 tokens x 131,072 bytes = 131,072,000 bytes; / 100 GB/s = 1.31072 ms; + 5 us = 1.31572 ms.
  CHECK(r.mean_transfer_bytes == 1000 * llama3_8b_kv_bytes_per_token);
  CHECK(close_disaggregated(r.transfer_s.mean, 1.31572e-3, 1e-12));
  // The transfer adds to TTFT and to nothing else (the request is alone).
  disaggregation_settings free = dz;
  free.transfer_bandwidth_bytes_per_s = 1e300;
  free.transfer_latency_s = 0;
  const auto f = simulate_disaggregated(m, s, free, gpu);
  CHECK(close_disaggregated(r.total.ttft.mean - f.total.ttft.mean, 1.31572e-3, 1e-9));
  CHECK(close_disaggregated(r.total.tpot.mean, f.total.tpot.mean, 1e-9));

  // Default link (data/gpus.json's H100-SXM: NVLink 4, 900 GB/s both ways, domain 8): 450 GB/s per
  // GPU within the domain, times min(TP); beyond it 50 GB/s per GPU (the scale-out NIC).
  CHECK(flopcast::transfer_link_default(gpu, 2, 1, 1) == 450e9);
  CHECK(flopcast::transfer_link_default(gpu, 8, 4, 2) == 900e9);
  CHECK(flopcast::transfer_link_default(gpu, 16, 8, 4) == 200e9);
  CHECK(simulate_disaggregated(m, s, disaggregation_settings{}, gpu).transfer_bandwidth_bytes_per_s == 450e9);
}

TEST_CASE("disaggregated: tokens conserved, every request once per pool, Little's law per worker", "[disagg]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.arrivals = arrival_kind::poisson;
  s.rate_per_s = 6;
  s.num_requests = 600;
  s.input_tokens = {100, 1500};
  s.output_tokens = {20, 200};
  s.seed = 5;
  s.keep_requests = true;
  disaggregation_settings dz;
  dz.prefill_workers = 2;
  dz.decode_workers = 3;
  const auto r = simulate_disaggregated(m, s, dz, gpu);
  // The same requests as the plain simulator draws from the seed.
  simulation_settings plain = s;
  const auto p = flopcast::simulate(m, plain, gpu);
  double inputs = 0, outputs = 0;
  for (std::size_t i = 0; i < p.requests_detail.size(); ++i) {
    CHECK(r.total.requests_detail[i].arrival_s == p.requests_detail[i].arrival_s);
    CHECK(r.total.requests_detail[i].input_tokens == p.requests_detail[i].input_tokens);
    CHECK(r.total.requests_detail[i].output_tokens == p.requests_detail[i].output_tokens);
    inputs += static_cast<double>(p.requests_detail[i].input_tokens);
    outputs += static_cast<double>(p.requests_detail[i].output_tokens);
  }
  std::int64_t prefilled = 0, emitted = 0, decode_prefilled = 0, n_pre = 0, n_dec = 0;
  for (const auto& w : r.prefill.worker_results) {
    n_pre += w.requests;
    CHECK(w.preemptions == 0);
    for (const auto& x : w.requests_detail) prefilled += x.prefill_tokens;
    CHECK(close_disaggregated(w.mean_in_system, w.arrival_rate_all * w.mean_latency_all_s, 1e-9));
  }
  for (const auto& w : r.decode.worker_results) {
    n_dec += w.requests;
    CHECK(w.preemptions == 0);
    for (const auto& x : w.requests_detail) {
      emitted += x.emitted_tokens;
      decode_prefilled += x.prefill_tokens;
    }
    CHECK(close_disaggregated(w.mean_in_system, w.arrival_rate_all * w.mean_latency_all_s, 1e-9));
  }
  CHECK(n_pre == 600);
  CHECK(n_dec == 600);
  CHECK(static_cast<double>(prefilled) == inputs);  // every prompt token prefilled once, at a prefill worker
  CHECK(decode_prefilled == 600);                   // the decode side recomputes one token per request
  CHECK(static_cast<double>(emitted) == outputs);   // every output token from a decode worker
  CHECK(r.total.ttft.count == 600);
  // Seeds: the same settings, the same result.
  const auto again = simulate_disaggregated(m, s, dz, gpu);
  CHECK(again.total.e2e.mean == r.total.e2e.mean);
  CHECK(again.total.itl.p99 == r.total.itl.p99);
}

TEST_CASE("disaggregated: the bottleneck is the pool that queues", "[disagg]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.arrivals = arrival_kind::poisson;
  s.rate_per_s = 20;
  s.num_requests = 300;
  s.input_tokens = {4096, 4096};
  s.output_tokens = {64, 64};
  // A slow prefill pool: one worker that prefills 256 tokens a step, four decode workers.
  disaggregation_settings slow_prefill;
  slow_prefill.prefill_max_num_batched_tokens = 256;
  slow_prefill.decode_workers = 4;
  const auto a = simulate_disaggregated(m, s, slow_prefill, gpu);
  CHECK(a.bottleneck == "prefill");
  CHECK(a.prefill.mean_queue_s > a.decode.mean_queue_s);
  // A slow decode pool: one sequence at a time on one decode worker, four prefill workers.
  disaggregation_settings slow_decode;
  slow_decode.prefill_workers = 4;
  slow_decode.decode_max_num_seqs = 1;
  s.output_tokens = {512, 512};
  s.rate_per_s = 2;
  s.num_requests = 60;
  const auto b = simulate_disaggregated(m, s, slow_decode, gpu);
  CHECK(b.bottleneck == "decode");
  CHECK(b.decode.utilization > 0.9);
}

TEST_CASE("disaggregated: a closed loop converges to its coupled run", "[disagg]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.arrivals = arrival_kind::closed_loop;
  s.num_requests = 40;
  s.input_tokens = {512, 512};
  s.output_tokens = {32, 32};
  s.keep_requests = true;
  disaggregation_settings dz;
  // One client: every request alone, one after another.
  s.clients = 1;
  const auto one = simulate_disaggregated(m, s, dz, gpu);
  CHECK(one.converged);
  CHECK(close_disaggregated(one.total.e2e.min, one.total.e2e.max, 1e-9));
  for (std::size_t i = 1; i < one.total.requests_detail.size(); ++i)
    CHECK(close_disaggregated(one.total.requests_detail[i].arrival_s, one.total.requests_detail[i - 1].finish_s, 1e-9));
  // Eight clients: each client's next request arrives at its previous finish.
  s.clients = 8;
  const auto r = simulate_disaggregated(m, s, dz, gpu);
  CHECK(r.converged);
  for (std::size_t i = 8; i < r.total.requests_detail.size(); ++i)
    CHECK(std::abs(r.total.requests_detail[i].arrival_s - r.total.requests_detail[i - 8].finish_s) <= 1e-9);
  CHECK(r.total.requests_per_s > one.total.requests_per_s);
}

TEST_CASE("disaggregated: a request names its layout; bad values name the field", "[disagg]") {
  const std::string base = R"({"model": "llama-3-8b", "gpu": "H100", "simulation": {"concurrency": 4,
    "num_requests": 16, "input_tokens": 256, "output_tokens": 16}, "parallelism": {"tensor_parallel": 2})";
  const auto q = flopcast::read_simulation_request(base + R"(, "disaggregation": {"prefill_workers": 2,
    "decode_tensor_parallel": 4, "transfer_latency_s": 1e-5}})");
  REQUIRE(q.disaggregation.has_value());
  CHECK(q.disaggregation->prefill_workers == 2);
  CHECK(q.disaggregation->decode_tensor_parallel == 4);
  const auto r = q.run_disaggregated(0);
  CHECK(r.prefill.tensor_parallel == 2);  // the layout's
  CHECK(r.decode.tensor_parallel == 4);
  CHECK(r.gpus == 2 * 2 + 1 * 4);
  CHECK(r.transfer_latency_s == 1e-5);
  CHECK_FALSE(flopcast::read_simulation_request(base + "}").disaggregation.has_value());
  CHECK_FALSE(flopcast::read_simulation_request(base + R"(, "disaggregation": {"enabled": false}})")
                  .disaggregation.has_value());
  CHECK(pointer_of([&] {
          (void)flopcast::read_simulation_request(base + R"(, "disaggregation": {"prefill_workers": 0}})");
        }) == "/disaggregation/prefill_workers");
  CHECK(pointer_of([&] {
          (void)flopcast::read_simulation_request(base +
                                                  R"(, "disaggregation": {"transfer_bandwidth_bytes_per_s": -1}})");
        }) == "/disaggregation/transfer_bandwidth_bytes_per_s");
  CHECK(pointer_of([&] { (void)flopcast::read_simulation_request(base + R"(, "disaggregation": {"nope": 1}})"); }) ==
        "/disaggregation/nope");
  // A decode TP that does not divide llama-3-8b's 8 KV heads... 3 does not divide 32 heads.
  const auto bad_tp = flopcast::read_simulation_request(base + R"(, "disaggregation": {"decode_tensor_parallel": 3}})");
  CHECK(pointer_of([&] { (void)bad_tp.run_disaggregated(0); }) == "/disaggregation/decode_tensor_parallel");
}
