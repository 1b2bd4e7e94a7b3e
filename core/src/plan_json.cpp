// The plan's JSON (plan.hpp): the request's configuration, then one object per listed layout.
#include <nlohmann/json.hpp>

#include "flopcast/plan.hpp"

namespace flopcast {
namespace {

using json = nlohmann::ordered_json;

json layout_json(const plan_layout& x) {
  return {{"tp", x.tp},
          {"pp", x.pp},
          {"ep", x.ep},
          {"dp", x.dp},
          {"gpus", x.gpus},
          {"per_gpu_memory_bytes", x.per_gpu_memory_bytes},
          {"weights_per_gpu_bytes", x.weights_per_gpu_bytes},
          {"kv_cache_per_gpu_bytes", x.kv_cache_per_gpu_bytes},
          {"activations_per_gpu_bytes", x.activations_per_gpu_bytes},
          {"usable_bytes", x.usable_bytes},
          {"fits", x.fits},
          {"spans_nodes", x.spans_nodes},
          {"ttft_s", x.fits ? json(x.ttft_s) : json(nullptr)},
          {"tpot_s", x.fits ? json(x.tpot_s) : json(nullptr)},
          {"request_latency_s", x.fits ? json(x.request_latency_s) : json(nullptr)},
          {"tokens_per_s", x.fits ? json(x.tokens_per_s) : json(nullptr)},
          {"cost_per_hour_usd", x.cost_per_hour_usd},
          {"usd_per_million_output_tokens", x.fits ? json(x.usd_per_million_output_tokens) : json(nullptr)},
          {"cheapest", x.cheapest},
          {"fastest", x.fastest}};
}

json index_or_null(const std::optional<std::size_t>& i) { return i ? json(*i) : json(nullptr); }

}  // namespace

std::string plan_to_json(const plan_request& q, const plan_result& r, int indent) {
  const settings& s = q.plan.base;
  json parts = json::object();
  for (std::size_t i = 0; i < weight_component_count; ++i)
    if (const auto& p = s.component_precision[i])
      parts[std::string(to_string(static_cast<weight_component>(i)))] = to_string(*p);
  json out;
  out["model"] = q.model->name;
  out["gpu"] = q.gpu->name;
  out["precision"] = to_string(s.weight_precision);
  out["component_precision"] = parts;
  out["kv_cache_precision"] = to_string(s.kv_cache_precision.value_or(default_kv_precision(s.weight_precision)));
  out["batch_size"] = s.batch_size;
  out["sequence_length"] = s.sequence_length;
  out["num_generated_tokens"] = s.num_generated_tokens;
  out["concurrency"] = q.plan.concurrency ? json(*q.plan.concurrency) : json(nullptr);
  out["load"] = r.load;
  out["engine"] = s.engine.empty() ? json(nullptr) : json(s.engine);
  out["max_gpus"] = r.max_gpus;
  out["interconnect_domain_size"] = r.domain_size;
  out["fits"] = r.min_gpus > 0;
  out["min_gpus"] = r.min_gpus > 0 ? json(r.min_gpus) : json(nullptr);
  json layouts = json::array();
  for (const plan_layout& x : r.layouts) layouts.push_back(layout_json(x));
  out["layouts"] = layouts;
  out["cheapest"] = index_or_null(r.cheapest);
  out["fastest"] = index_or_null(r.fastest);
  out["closest"] = r.closest ? layout_json(*r.closest) : json(nullptr);
  out["candidates"] = r.candidates;
  out["notes"] = r.notes;
  return out.dump(indent);
}

}  // namespace flopcast
