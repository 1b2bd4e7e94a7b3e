// API price vs self-hosted cost per 1M tokens (plan/price_comparison.hpp): the hosted-provider
// catalog (catalog/providers.cpp) beside the serving model's throughput on a GPU layout.
#include "flopcast/plan/price_comparison.hpp"

#include <cmath>

#include "base/detail.hpp"
#include "base/json_out.hpp"
#include "base/json_reader.hpp"
#include "catalog/providers_parts.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/formats/precision.hpp"
#include "flopcast/hardware/hardware.hpp"
#include "flopcast/serving/serving.hpp"

namespace flopcast {

using detail::json;
using detail::json_out;

namespace {

// The comparison for a self-hosted serving result `r` (one formula for both request forms).
std::string comparison_json(const price_comparison_request& q, const std::string& model_id, const std::string& gpu_name,
                            const std::string& precision_text, std::int64_t tp, double gpu_hour,
                            const serving_result& r, int indent) {
  // Paid for every hour; busy (at the serving throughput) for `utilization` of them.
  const double usd_per_s = gpu_hour * static_cast<double>(r.gpus) / 3600.0;
  const double busy_output_tps = r.output_tokens_per_second * q.utilization;
  const double busy_rps = r.requests_per_second * q.utilization;
  const double out_per_m = r.fits && busy_output_tps > 0 ? usd_per_s / busy_output_tps * 1e6 : 0;
  // Prefill only: one request's prefill time over its prompt tokens.
  const double in_per_m = r.fits && r.prefill_s > 0
                              ? usd_per_s * r.prefill_s / static_cast<double>(q.prompt_tokens) / q.utilization * 1e6
                              : 0;
  const double per_request = r.fits && busy_rps > 0 ? usd_per_s / busy_rps : 0;

  json_out w(indent);
  w.begin_object()
      .field("model", model_id)
      .field("gpu", gpu_name)
      .field("gpus", r.gpus)
      .field("tensor_parallel", tp)
      .field("precision", precision_text)
      .field("utilization", q.utilization)
      .field("prompt_tokens", q.prompt_tokens)
      .field("output_tokens", q.output_tokens)
      .field("concurrency", r.concurrency)
      .field("fits", r.fits)
      .field("gpu_cost_per_hour_usd", gpu_hour)
      .field("output_tokens_per_second", r.output_tokens_per_second)
      .field("requests_per_second", r.requests_per_second);
  w.key("self_hosted").begin_object();
  w.field_if("usd_per_million_output_tokens", r.fits, out_per_m)
      .field_if("usd_per_million_input_tokens", r.fits, in_per_m)
      .field_if("usd_per_request", r.fits, per_request)
      .field("label", "ESTIMATED");
  w.end_object();
  w.array("providers", [&] {
    for (const provider_entry* e : provider_entries(q.model)) {
      w.begin_object();
      detail::write_provider_entry(w, *e);
      const bool priced = e->input_usd_per_million && e->output_usd_per_million;
      const double api_request = priced ? (static_cast<double>(q.prompt_tokens) * *e->input_usd_per_million +
                                           static_cast<double>(q.output_tokens) * *e->output_usd_per_million) /
                                              1e6
                                        : 0;
      w.field_if("usd_per_request", priced, api_request);
      w.field_if("self_hosted_to_api_cost", priced && r.fits && api_request > 0, per_request / api_request);
      w.end_object();
    }
  });
  w.field("meaning",
          "self-hosted: the serving model (continuous batching at the concurrency the KV cache holds) on gpus x gpu, "
          "paid every hour and busy at its serving throughput for `utilization` of them; usd_per_million_output_tokens "
          "charges the whole cycle (prefill included) to output tokens, as `flopcast throughput` does; "
          "usd_per_million_input_tokens is the prefill time alone per prompt token; usd_per_request compares with an "
          "API's prompt_tokens x input price + output_tokens x output price. Provider figures are PUBLISHED (dated), "
          "flopcast's ESTIMATED.");
  w.end_object();
  return w.take();
}

}  // namespace

std::string price_comparison_json(const price_comparison_request& q, int indent) {
  if (!(q.utilization > 0 && q.utilization <= 1))
    throw error(error_code::invalid_argument, "/utilization", "expected a utilization in (0, 1]");
  if (q.tensor_parallel < 0 || q.tensor_parallel > 1024)
    throw error(error_code::invalid_argument, "/tensor_parallel",
                "expected a tensor-parallel degree in [1, 1024] (0: the smallest that fits)");
  for (const auto& [n, key] :
       {std::pair{q.prompt_tokens, "/prompt_tokens"}, std::pair{q.output_tokens, "/output_tokens"}})
    if (n < 1 || n > (std::int64_t{1} << 24))
      throw error(error_code::invalid_argument, key, "expected a positive token count (at most 2^24)");
  if (q.cost_per_hour_usd && !(*q.cost_per_hour_usd > 0 && std::isfinite(*q.cost_per_hour_usd)))
    throw error(error_code::invalid_argument, "/cost_per_hour_usd", "expected a positive price per GPU-hour");
  const model_record& m = find_model(q.model);
  const hardware_spec& gpu = find_gpu(q.gpu);
  const double gpu_hour = q.cost_per_hour_usd.value_or(gpu.cost_per_hour_usd);
  if (!(gpu_hour > 0))
    throw error(error_code::invalid_argument, "/cost_per_hour_usd",
                "GPU \"" + gpu.name + "\" has no price per hour in data/gpus.json: give one (--cost-per-hour)");
  serving_settings s;
  s.base.weight_precision = parse_precision(q.precision);
  s.base.cost_per_hour_usd = gpu_hour;
  s.prompt_tokens = q.prompt_tokens;
  s.output_tokens = q.output_tokens;
  serving_result r;
  std::int64_t tp = q.tensor_parallel;
  if (tp == 0) {
    for (tp = 1; tp <= 8; tp *= 2) {
      s.base.parallel.tensor_parallel = tp;
      r = serve(m.spec, s, gpu);
      if (r.fits) break;
    }
    if (!r.fits)
      throw error(error_code::invalid_argument, "/tensor_parallel",
                  "\"" + m.id + "\" does not fit on up to 8 x " + gpu.name + " at " + q.precision +
                      ": choose a larger GPU, a lower precision or --tp");
  } else {
    s.base.parallel.tensor_parallel = tp;
    r = serve(m.spec, s, gpu);
  }
  return comparison_json(q, m.id, gpu.name, q.precision, tp, gpu_hour, r, indent);
}

std::string price_comparison_json(price_comparison_request q, const model_spec& model, const serving_settings& s,
                                  const hardware_spec& gpu, int indent) {
  if (!(q.utilization > 0 && q.utilization <= 1))
    throw error(error_code::invalid_argument, "/utilization", "expected a utilization in (0, 1]");
  const model_record& m = find_model(q.model);
  if (model.name != m.spec.name)
    throw error(error_code::invalid_argument, "/self_hosted/model",
                "expected the model of /model (\"" + q.model + "\"), but got \"" + model.name + "\"");
  const double gpu_hour = s.base.cost_per_hour_usd.value_or(gpu.cost_per_hour_usd);
  if (!(gpu_hour > 0))
    throw error(error_code::invalid_argument, "/self_hosted/cost_per_hour_usd",
                "GPU \"" + gpu.name + "\" has no price per hour in data/gpus.json: give one (cost_per_hour_usd)");
  q.gpu = gpu.name;
  q.prompt_tokens = s.prompt_tokens;
  q.output_tokens = s.output_tokens;
  const serving_result r = serve(model, s, gpu);
  return comparison_json(q, m.id, gpu.name, std::string(to_string(s.base.weight_precision)),
                         s.base.parallel.tensor_parallel, gpu_hour, r, indent);
}

}  // namespace flopcast
