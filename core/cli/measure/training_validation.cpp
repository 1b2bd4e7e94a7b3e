#include "measure/training_validation.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/estimate/estimate.hpp"
#include "flopcast/training/training.hpp"
#include "measure/validation.hpp"

namespace flopcast::validation {
namespace training_validation {

using json = nlohmann::json;

std::int64_t int_of(const json& o, const char* key, std::int64_t fallback) {
  return o.contains(key) && o.at(key).is_number_integer() ? o.at(key).get<std::int64_t>() : fallback;
}

}  // namespace training_validation

std::vector<training_row> training_rows_of(const std::vector<std::string_view>& files) {
  std::vector<training_row> out;
  for (const std::string_view text : files) {
    const nlohmann::json file = nlohmann::json::parse(text);
    if (file.value("kind", std::string()) != "training") continue;
    const nlohmann::json& src = file.at("source");
    const std::string id = src.at("id").get<std::string>();
    const bool held = src.value("split", std::string("held_out")) == "held_out";
    for (const nlohmann::json& r : file.at("rows")) out.push_back({r, id, held});
  }
  return out;
}

training_prediction predict_training(const nlohmann::json& row) {
  using training_validation::int_of;
  training_prediction out;
  const auto skip = [&](std::string why) {
    out.why = std::move(why);
    return out;
  };
  if (row.at("metric") != "tokens_per_s") return skip("metric other than tokens_per_s");
  const model_spec* model = nullptr;
  const hardware_spec* gpu = nullptr;
  if (std::string why = bundled_target(row, model, gpu); !why.empty()) return skip(std::move(why));
  const nlohmann::json& l = row.at("layout");
  const std::int64_t gpus = row.at("num_gpus").get<std::int64_t>();
  const std::int64_t tp = int_of(l, "tensor_parallel", 1), pp = int_of(l, "pipeline_parallel", 1);
  const std::int64_t cp = int_of(l, "context_parallel", 1), ep = int_of(l, "expert_parallel", 1);
  const std::int64_t vp = int_of(l, "virtual_pipeline", 1);
  const std::int64_t dp = int_of(l, "data_parallel", gpus / (tp * pp * cp));  // Megatron's: EP is carved out of it
  const std::int64_t micro = row.at("micro_batch").get<std::int64_t>(),
                     global = row.at("global_batch").get<std::int64_t>();
  if (tp * pp * cp * dp != gpus) return skip("layout does not multiply to num_gpus");
  if (global % (micro * dp) != 0) return skip("global batch not a multiple of micro batch x data parallel");

  training_settings t;
  settings& s = t.base;
  try {
    s.weight_precision = parse_precision(row.at("precision").get<std::string>());
  } catch (const error&) {
    return skip("precision not known");
  }
  s.training = true;
  s.batch_size = global;
  s.sequence_length = row.at("sequence_length").get<std::int64_t>();
  s.causal = true;  // decoder pre-training and SFT: causal attention (FlashAttention skips the masked half)
  s.flash_attention = true;
  parallel_layout& p = s.parallel;
  p.tensor_parallel = tp;
  p.pipeline_parallel = pp;
  p.sequence_parallel = tp > 1;  // Megatron-Core recipes pair TP with sequence parallelism
  p.num_microbatches = global / (micro * dp);
  // flopcast's layout counts expert-parallel GPUs beside the data-parallel ones: EP ranks taken out of
  // Megatron's data-parallel group (when EP divides it; else EP spans TP ranks and stays unmodelled).
  const bool ep_in_layout = ep > 1 && dp % ep == 0 && model->moe.num_experts % ep == 0;
  const std::int64_t data = ep_in_layout ? dp / ep : dp;
  p.expert_parallel = ep_in_layout ? ep : 1;
  p.data_parallel = data;
  t.context_parallel = cp;
  t.virtual_pipeline = pp > 1 ? std::max<std::int64_t>(vp, 1) : 1;
  const std::string recompute =
      row.contains("recompute") && row.at("recompute").is_string() ? row.at("recompute").get<std::string>() : "";
  t.recompute = recompute.empty() ? recompute_policy::selective : parse_recompute_policy(recompute);
  try {
    const training_analysis a = analyze_training(*model, t, gpu);
    if (!a.has_performance || !(a.tokens_per_second > 0)) return skip("no step time");
    const bool per_gpu = row.value("per", std::string("gpu")) == "gpu";
    out.value = per_gpu ? a.tokens_per_second / static_cast<double>(gpus) : a.tokens_per_second;
  } catch (const error& e) {
    return skip(std::string("not modelled: ") + e.what());
  }
  return out;
}

training_summary validate_training(const std::vector<std::string_view>& files) {
  training_summary out;
  std::map<std::tuple<std::string, std::string, bool>, std::vector<double>> errors;
  for (const training_row& r : training_rows_of(files)) {
    ++out.considered;
    const training_prediction p = predict_training(r.data);
    if (!p.value || !std::isfinite(*p.value) || *p.value <= 0) {
      ++out.skipped[p.why.empty() ? "no finite prediction" : p.why];
      continue;
    }
    ++out.predicted;
    const double measured = r.data.at("value").get<double>();
    const double e = *p.value / measured - 1.0;
    errors[{r.data.at("engine"), r.data.at("metric"), r.held_out}].push_back(e);
    out.rows.push_back({{"id", r.data.at("id")},
                        {"source", r.source},
                        {"split", r.held_out ? "held_out" : "fit"},
                        {"engine", r.data.at("engine")},
                        {"metric", r.data.at("metric")},
                        {"gpu", r.data.at("gpu")},
                        {"model", r.data.at("model")},
                        {"precision", r.data.at("precision")},
                        {"measured", measured},
                        {"predicted", *p.value},
                        {"error", e}});
  }
  for (const auto& [key, e] : errors) {
    std::vector<double> abs_e(e.size());
    std::transform(e.begin(), e.end(), abs_e.begin(), [](double x) { return std::fabs(x); });
    out.summary.push_back({{"engine", std::get<0>(key)},
                           {"metric", std::get<1>(key)},
                           {"split", std::get<2>(key) ? "held_out" : "fit"},
                           {"rows", e.size()},
                           {"median_error", quantile(e, 0.5)},
                           {"median_abs_error", quantile(abs_e, 0.5)},
                           {"p90_abs_error", quantile(abs_e, 0.9)}});
  }
  return out;
}

}  // namespace flopcast::validation
