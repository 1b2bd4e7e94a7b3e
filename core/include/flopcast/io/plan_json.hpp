#pragma once
// The planner's request and result as JSON (plan.hpp has the planner itself): request text in,
// result text out, for the CLI's `plan` and the WASM module.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/io/request.hpp"
#include "flopcast/plan/plan.hpp"

namespace flopcast {

// A plan request: an estimate request (model, gpu, precision, batch_size, sequence_length,
// num_generated_tokens, engine, efficiencies, cost, fit rule, "parallelism" link figures) plus
// "plan": {max_gpus, concurrency}. A request without a GPU is invalid_argument at "/gpu".
struct plan_request {
  compare_request request;
  const model_spec* model = nullptr;
  const hardware_spec* gpu = nullptr;
  // Every GPU the request names ("gpu": a list): the SLO search compares them; a layout plan
  // takes one. gpus.front() == gpu.
  std::vector<const hardware_spec*> gpus;
  plan_settings plan;
  std::vector<std::string> engines;  // the engine the request names (the SLO search tries only it); empty: all
};
[[nodiscard]] plan_request read_plan_request(std::string_view json_text);

// The plan as JSON text: {model, gpu, precision, ..., layouts: [...], cheapest, fastest,
// closest, notes} in SI units (request text in, result text out: the WASM module's entry).
// With `search` (the SLO search, q.plan.searches()): its answer as "search".
[[nodiscard]] std::string plan_to_json(const plan_request& q, const plan_result& r, int indent = 2,
                                       const search_result* search = nullptr);
// The `flopcast serve` arguments (after the program name) that run a search point's replica: the
// same settings, so the same figures.
[[nodiscard]] std::vector<std::string> serve_args(const plan_request& q, const search_point& p);
// The SLO search of a plan request (search_question, search_configurations). `progress` (optional)
// is called with the share done (0..1); returning false cancels: flopcast::error(limit, "/plan").
[[nodiscard]] search_result plan_search(const plan_request& q, const std::function<bool(double)>& progress = {});
[[nodiscard]] std::string plan_json(std::string_view request_json, int indent = -1);
// The same, reporting the SLO search's progress (the page's worker posts it; a plan without a
// search never calls it).
[[nodiscard]] std::string plan_json(std::string_view request_json, const std::function<bool(double)>& progress,
                                    int indent = -1);

}  // namespace flopcast
