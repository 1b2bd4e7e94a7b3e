// Hostile serving requests (issue 26): the simulator's work bound (work_bound.hpp) refuses
// requests of days before they run, lets a request just under the cap run, and is an upper
// bound of the steps the simulator takes on varied requests.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "flopcast/base/error.hpp"
#include "flopcast/io/request.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/serving/work_bound.hpp"

namespace {

// Seconds f takes; f must throw flopcast::error with `code`.
double refused_in(const std::string& request, flopcast::error_code code, std::string& pointer) {
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)flopcast::read_simulation_request(request);
    FAIL("accepted: " << request);
  } catch (const flopcast::error& e) {
    CHECK(e.code() == code);
    pointer = e.pointer();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

TEST_CASE("hostile serving: the reproducers are refused with flopcast.limit before running", "[hostile]") {
  std::string pointer;
  // 10^6 x (ceil(9999999 / 1) + 1) = 1e13 units (days of simulation).
  const double a = refused_in(
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":1000000,"input_tokens":9999999,)"
      R"("output_tokens":1,"max_num_batched_tokens":1,"kv_blocks":1000000000,"concurrency":1}})",
      flopcast::error_code::limit, pointer);
  CHECK(pointer == "/simulation/num_requests");
  // 1000 x (1 + 10^6) = 1.000001e9 units (78 s before).
  const double b = refused_in(
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":1000,"input_tokens":1,)"
      R"("output_tokens":1000000,"concurrency":1}})",
      flopcast::error_code::limit, pointer);
  CHECK(pointer == "/simulation/num_requests");
  std::printf("hostile serving: refused in %.4f s and %.4f s\n", a, b);
  CHECK(a < 15);  // generous: the bad behaviour was days and 78 s
  CHECK(b < 15);
  // warmup_requests >= num_requests: nothing measured.
  refused_in(
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":10,"warmup_requests":10}})",
      flopcast::error_code::invalid_argument, pointer);
  CHECK(pointer == "/simulation/warmup_requests");
}

TEST_CASE("hostile serving: a request just under the cap is accepted and its bound is the formula", "[hostile]") {
  // Disaggregated, open loop: 3 runs x (ceil(1/8192) + 1 + ceil(1/8192) + o) per request.
  // 1000 requests, o = 49,997: 3 x 1000 x 50,000 = 1.5e8 units exactly (the cap: accepted).
  const std::string req =
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":1000,"input_tokens":1,)"
      R"("output_tokens":49997},"disaggregation":{"prefill_workers":1,"decode_workers":1}})";
  const flopcast::simulation_request q = flopcast::read_simulation_request(req);
  const auto w = flopcast::simulation_work_bound(q.at(0), q.points.size(), &*q.disaggregation);
  CHECK(w.units == 1.5e8);
  CHECK(w.units <= flopcast::max_simulation_work);
  // One more output token: 3 x 1000 x 50,001 > the cap.
  std::string pointer;
  refused_in(
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":1000,"input_tokens":1,)"
      R"("output_tokens":49998},"disaggregation":{"prefill_workers":1,"decode_workers":1}})",
      flopcast::error_code::limit, pointer);
  // A plain request near the cap runs (and is timed): 100 x (1 + 10^6) = 1.00000100e8 units.
  const std::string run =
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":100,"input_tokens":1,)"
      R"("output_tokens":1000000,"concurrency":100}})";
  const auto start = std::chrono::steady_clock::now();
  const flopcast::simulation_request r = flopcast::read_simulation_request(run);
  const flopcast::simulation_result out = r.run(0);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("hostile serving: 1.000001e8 units (%lld steps) ran in %.2f s\n", static_cast<long long>(out.steps), s);
  CHECK(out.requests == 100);
}

TEST_CASE("hostile serving: the step bound is at least the steps the simulator takes", "[hostile]") {
  const char* requests[] = {
      // Chunked prefill: prompts of 1000 in budgets of 64 (16 chunks each), batched.
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":40,"input_tokens_range":[100,1000],)"
      R"("output_tokens":20,"max_num_batched_tokens":64}})",
      // Without chunking, prefill_first, a closed loop.
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":30,"input_tokens":300,"output_tokens":30,)"
      R"("concurrency":4,"chunked_prefill":false,"policy":"prefill_first","max_num_batched_tokens":512}})",
      // Sessions of 3 turns with the prefix cache, Poisson arrivals.
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":30,"turns":3,"input_tokens":50,)"
      R"("output_tokens":10,"request_rate":20,"prefix_caching":true,"max_num_batched_tokens":32}})",
      // Speculative decoding (a verification emits >= 1 token).
      R"({"model":"llama-3-8b","gpu":"H100","simulation":{"num_requests":20,"input_tokens":64,"output_tokens":40,)"
      R"("speculative":"eagle3","speculative_tokens":3}})",
      // A trace, one request alone at a time.
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"max_num_batched_tokens":7,"trace":[)"
      R"({"arrival_s":0,"input_tokens":20,"output_tokens":3},{"arrival_s":5,"input_tokens":1,"output_tokens":9}]}})",
  };
  for (const char* text : requests) {
    const flopcast::simulation_request q = flopcast::read_simulation_request(text);
    for (std::size_t i = 0; i < q.points.size(); ++i) {
      const flopcast::simulation_result r = q.run(i);
      const auto w = flopcast::simulation_work_bound(q.at(i));
      INFO(text << " steps " << r.steps << " bound " << w.steps);
      CHECK(r.preemptions == 0);  // the bound is for runs without preemption
      CHECK(static_cast<double>(r.steps) <= w.steps);
      CHECK(w.units >= w.steps);
    }
  }
  // A sweep's bound is its points x one point's; disaggregated: both pools' steps.
  const flopcast::simulation_request sweep = flopcast::read_simulation_request(
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":20,"input_tokens":100,)"
      R"("output_tokens":10,"concurrency":[1,4,8]}})");
  CHECK(flopcast::simulation_work_bound(sweep.at(0), 3, nullptr).units ==
        3 * flopcast::simulation_work_bound(sweep.at(0)).units);
  const flopcast::simulation_request dz = flopcast::read_simulation_request(
      R"({"model":"llama-3.2-1b","gpu":"H100","engine":"none","simulation":{"num_requests":20,"input_tokens":100,)"
      R"("output_tokens":10,"request_rate":10},"disaggregation":{"prefill_workers":1,"decode_workers":2}})");
  const flopcast::disaggregated_result d = dz.run_disaggregated(0);
  // Both pools of the main run (the probes are extra): steps <= 20 x (1 + 1 + 1 + 10) per run.
  std::int64_t steps = 0;
  for (const auto* pool : {&d.prefill, &d.decode})
    for (const auto& w : pool->worker_results) steps += w.steps;
  CHECK(static_cast<double>(steps) <= flopcast::simulation_work_bound(dz.at(0), 1, &*dz.disaggregation).steps);
}
