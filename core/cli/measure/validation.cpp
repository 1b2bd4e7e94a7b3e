#include "measure/validation.hpp"

#include <algorithm>
#include <cmath>

#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/serving/engine.hpp"
#include "flopcast/serving/serving.hpp"
#include "flopcast/serving/simulator.hpp"
#include "flopcast/serving/speculative.hpp"

namespace flopcast::validation {
namespace {

using json = nlohmann::json;

bool is_rate(const std::string& metric) { return metric.size() > 6 && metric.substr(metric.size() - 6) == "_per_s"; }

// A distribution's statistic as the row states it.
std::optional<double> statistic_of(const json& figures, const std::string& name, const std::string& statistic) {
  if (!figures.contains(name)) return std::nullopt;
  const json& d = figures.at(name);
  if (statistic == "mean") return d.at("mean").get<double>();
  if (statistic == "median" || statistic == "p50") return d.at("p50").get<double>();
  if (statistic == "p90") return d.at("p90").get<double>();
  if (statistic == "p99") return d.at("p99").get<double>();
  return std::nullopt;
}

json figures_of(const simulation_result& r) {
  const auto dist = [](const distribution& d) {
    return json{{"mean", d.mean}, {"p50", d.p50}, {"p90", d.p90}, {"p99", d.p99}};
  };
  return json{{"ttft_s", dist(r.ttft)},
              {"tpot_s", dist(r.tpot)},
              {"itl_s", dist(r.itl)},
              {"e2e_latency_s", dist(r.e2e)},
              {"output_tokens_per_s", r.output_tokens_per_s},
              {"total_tokens_per_s", r.total_tokens_per_s},
              {"requests_per_s", r.requests_per_s}};
}

// The acceptance rate a whose expected tokens per verification of k drafts equal the stated
// acceptance length (tokens per step, a workload's property the source states), by bisection:
// expected_tokens_per_step is increasing in a.
double acceptance_for_length(std::int64_t k, double length) {
  double lo = 0, hi = 1;
  for (int i = 0; i < 60; ++i) {
    const double mid = (lo + hi) / 2;
    (expected_tokens_per_step(k, {mid}) < length ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

bool stated(const json& row, const char* key) { return row.contains(key) && !row.at(key).is_null(); }

}  // namespace

std::string bundled_target(const nlohmann::json& row, const model_spec*& model, const hardware_spec*& gpu) {
  try {
    model = &find_model(row.at("model").get<std::string>()).spec;
  } catch (const error&) {
    return "model not bundled";
  }
  try {
    gpu = &find_gpu(row.at("gpu").get<std::string>());
  } catch (const error&) {
    return "device not bundled";
  }
  return {};
}

bool uses_features(const json& row) {
  return (stated(row, "prefix_caching") && (stated(row, "prompt_pool") || stated(row, "shared_prefix_tokens"))) ||
         (stated(row, "attention_data_parallel") && row.at("attention_data_parallel").get<std::int64_t>() > 1) ||
         stated(row, "speculative") || stated(row, "disaggregation") ||
         (stated(row, "data_parallel") && row.at("data_parallel").get<std::int64_t>() > 1);
}

std::vector<row> rows_of(const std::vector<std::string_view>& files) {
  std::vector<row> out;
  for (const std::string_view text : files) {
    const json file = json::parse(text);
    if (file.value("kind", std::string()) == "training") continue;  // training_validation.cpp's rows
    const json& src = file.at("source");
    const std::string id = src.at("id").get<std::string>();
    const bool held = src.value("split", std::string("held_out")) == "held_out";
    for (const json& r : file.at("rows")) out.push_back({r, id, held});
  }
  return out;
}

std::string category_of(const json& row) {
  const std::string metric = row.at("metric").get<std::string>();
  const std::string load = row.at("load").at("kind").get<std::string>();
  if (metric == "prefill_tokens_per_s" || (metric == "ttft_s" && load == "single_stream")) return "prefill";
  if (metric == "ttft_s") return "ttft_load";
  if (metric == "tpot_s" || metric == "itl_s" || metric == "decode_tokens_per_s") return "decode";
  return "throughput";  // output / total tokens per second, requests per second, end-to-end latency
}

double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const double at = q * static_cast<double>(v.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(at));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (at - static_cast<double>(lo));
}

double time_ratio(const json& row, double predicted) {
  const double measured = row.at("value").get<double>();
  return is_rate(row.at("metric").get<std::string>()) ? predicted / measured : measured / predicted;
}

prediction predictor::operator()(const json& row, const model_choice& how) {
  prediction out;
  const auto skip = [&](std::string why) {
    out.why = std::move(why);
    return out;
  };
  const std::string metric = row.at("metric").get<std::string>();
  const std::string statistic = row.value("statistic", std::string("mean"));
  const json& load = row.at("load");
  const std::string kind = load.at("kind").get<std::string>();
  if (row.at("input_tokens").is_null() || row.at("output_tokens").is_null()) return skip("a length not stated");
  const model_spec* model = nullptr;
  const hardware_spec* gpu = nullptr;
  if (std::string why = bundled_target(row, model, gpu); !why.empty()) return skip(std::move(why));
  out.family = gpu->family();
  settings s;
  try {
    s.weight_precision = parse_precision(row.at("precision").get<std::string>());
    if (row.contains("kv_cache_precision") && row.at("kv_cache_precision").is_string())
      s.kv_cache_precision = parse_precision(row.at("kv_cache_precision").get<std::string>());
  } catch (const error&) {
    return skip("a precision flopcast does not read");
  }
  if (row.contains("expert_parallel") && row.at("expert_parallel").is_null())
    return skip("expert parallelism not stated");
  if (how.features && stated(row, "disaggregation")) return skip("a disaggregated pool's figure not simulated");
  if (row.contains("tensor_parallel") && row.at("tensor_parallel").is_null()) return skip("the layout not stated");
  s.parallel.tensor_parallel = row.value("tensor_parallel", 1);
  s.parallel.pipeline_parallel = row.value("pipeline_parallel", 1);
  s.parallel.expert_parallel = row.value("expert_parallel", 1);
  // Rows that state attention_data_parallel give the engine's own layout on num_gpus GPUs
  // (TensorRT-LLM "tp 8, ep 8, attention DP" and SGLang "--tp 8 --dp 8 --ep 8" are 8 GPUs); the
  // request table's convention is GPUs = tensor_parallel x expert_parallel, attention ranks a
  // divisor of expert_parallel (README, "Expert and attention-data parallelism"). Without
  // attention DP, attention is tensor-parallel over all the GPUs: "tp 8, ep 2" on 8 GPUs runs as
  // --tp 8.
  const std::int64_t gpus_stated = row.value("num_gpus", std::int64_t{1});
  const std::int64_t replicas = how.features ? std::max<std::int64_t>(1, row.value("data_parallel", 1)) : 1;
  if (how.features && stated(row, "attention_data_parallel")) {
    const auto adp = row.at("attention_data_parallel").get<std::int64_t>();
    const std::int64_t ep = s.parallel.expert_parallel, per_replica = gpus_stated / replicas;
    if (adp > 1) {
      s.parallel.tensor_parallel = std::max<std::int64_t>(1, per_replica / std::max<std::int64_t>(ep, 1));
      s.parallel.attention_data_parallel = adp;
    } else if (ep > 1 && s.parallel.tensor_parallel * ep > per_replica) {
      s.parallel.tensor_parallel = per_replica;
      s.parallel.expert_parallel = 1;
    }
  }
  // The lengths the harness drew (README, "lengths"): each request's prompt and output uniform
  // over a stated [min, max] (SGLang's bench_serving random dataset at its default range ratio 0
  // draws [1, ISL]; InferenceX's harness at 0.8 draws [int(0.8 ISL), ISL]); else exactly the stated
  // lengths. The simulator draws the same ranges; a closed form takes their means.
  const auto stated_isl = std::max<std::int64_t>(row.at("input_tokens").get<std::int64_t>(), 1);
  const auto stated_osl = std::max<std::int64_t>(row.at("output_tokens").get<std::int64_t>(), 1);
  length_range isl_range{stated_isl, stated_isl}, osl_range{stated_osl, stated_osl};
  if (stated(row, "lengths")) {
    const json& l = row.at("lengths");
    const auto range_of = [&](const char* key, length_range& r) {
      if (!stated(l, key)) return true;
      const json& v = l.at(key);
      if (!v.is_array() || v.size() != 2 || !v[0].is_number_integer() || !v[1].is_number_integer()) return false;
      r = {v[0].get<std::int64_t>(), v[1].get<std::int64_t>()};
      return r.min >= 1 && r.min <= r.max;
    };
    if (!range_of("input_tokens", isl_range) || !range_of("output_tokens", osl_range))
      return skip("a length range that is not [min, max] with 1 <= min <= max");
  }
  const auto mean_of = [](const length_range& r) { return (r.min + r.max + 1) / 2; };
  const std::int64_t isl = mean_of(isl_range), osl = mean_of(osl_range);
  const double gpus = std::max(1.0, row.value("num_gpus", 1.0));
  const double share = row.value("per", std::string("system")) == "gpu" ? 1.0 / gpus : 1.0;

  const engine_profile* engine = nullptr;
  try {
    engine = &find_engine(row.at("engine").get<std::string>());
  } catch (const error&) {
    return skip("engine not profiled");
  }
  switch (how.how) {
    case model_choice::kind::plain:
      s.engine = engine->id;  // its scheduler, none of its fitted constants
      break;
    case model_choice::kind::bundled:
      apply_engine(*engine, *gpu, s);
      // The model's own figures: no point is corrected by a band's median (the bands are these
      // rows' residuals, held-out rows included, so a corrected point would be scored in-sample).
      s.bands = engine_bands{};
      break;
    case model_choice::kind::given:
      s.engine = engine->id;
      s.costs = how.costs;
      s.compute_efficiency = how.compute_efficiency;
      s.mem_efficiency = how.mem_efficiency;
      s.compute_efficiency_origin = s.mem_efficiency_origin = efficiency_origin::fitted;
      break;
  }
  std::optional<engine_scheduler> sched;
  try {
    sched = scheduler_of(*engine, *gpu);
  } catch (const error&) {
    sched.reset();  // a static-batching engine: no scheduler
  }
  if (sched && !s.gpu_memory_utilization) s.gpu_memory_utilization = sched->gpu_memory_utilization;

  try {
    // A fixed batch's per-phase rates (llama-batched-bench's S_PP and S_TG: B prompts prefilled
    // together, then B sequences decoded together) are one pass at batch B, as single_stream is
    // at batch 1; the steady state of serve() would count one prompt's TTFT among running decodes.
    const bool batch_phase = kind == "batch" && load.at("value").is_number() &&
                             (metric == "prefill_tokens_per_s" || metric == "decode_tokens_per_s");
    if (batch_phase) {
      const auto b = static_cast<std::int64_t>(load.at("value").get<double>());
      if (b < 1) return skip("a batch of no sequences");
      s.batch_size = b;
      s.sequence_length = isl;
      s.num_generated_tokens = std::max<std::int64_t>(osl, 2);
      const performance& p = estimate(*model, s, gpu).perf;
      if (metric == "decode_tokens_per_s") out.value = p.decode_tokens_per_second;
      if (metric == "prefill_tokens_per_s") out.value = static_cast<double>(b * isl) / p.prefill_latency_s;
      *out.value *= share;
      return out;
    }
    if (kind == "single_stream") {
      s.batch_size = 1;
      s.sequence_length = isl;
      s.num_generated_tokens = std::max<std::int64_t>(osl, 2);
      const performance& p = estimate(*model, s, gpu).perf;
      if (metric == "decode_tokens_per_s") out.value = p.decode_tokens_per_second;
      if (metric == "prefill_tokens_per_s") out.value = static_cast<double>(isl) / p.prefill_latency_s;
      if (metric == "ttft_s") out.value = p.prefill_latency_s;
      if (metric == "tpot_s" || metric == "itl_s") out.value = p.decode_latency_per_token_s;
      if (metric == "e2e_latency_s") out.value = p.total_request_latency_s;
      if (!out.value) return skip("a single-stream metric not predicted");
      return out;
    }
    const bool steady =
        (kind == "max_throughput" || kind == "batch") &&
        (metric == "output_tokens_per_s" || metric == "total_tokens_per_s" || metric == "requests_per_s" ||
         metric == "decode_tokens_per_s" || metric == "prefill_tokens_per_s");
    if (steady || !sched) {
      serving_settings v;
      v.base = s;
      v.prompt_tokens = isl;
      v.output_tokens = osl;
      if (kind == "batch" && load.at("value").is_number())
        v.concurrency = static_cast<std::int64_t>(load.at("value").get<double>());
      else if (kind == "concurrency" && load.at("value").is_number())
        v.concurrency = static_cast<std::int64_t>(load.at("value").get<double>());
      const serving_result r = serve(*model, v, *gpu);
      if (r.concurrency == 0) return skip("does not fit by flopcast's rule");
      if (metric == "output_tokens_per_s" || metric == "decode_tokens_per_s") out.value = r.output_tokens_per_second;
      if (metric == "total_tokens_per_s") out.value = r.total_tokens_per_second;
      if (metric == "requests_per_s") out.value = r.requests_per_second;
      if (metric == "prefill_tokens_per_s") out.value = r.concurrency * static_cast<double>(isl) / r.ttft_s;
      if (metric == "ttft_s") out.value = r.ttft_s;
      if (metric == "tpot_s" || metric == "itl_s") out.value = r.tpot_s;
      if (!out.value) return skip("a serving metric not predicted");
      *out.value *= share;
      return out;
    }
    // The queue: simulate the run the row measured (once for all its metrics).
    simulation_settings sim;
    sim.base = s;
    apply_scheduler(*sched, sim);
    // Without chunking a prompt runs in one step: the budget holds at least the row's longest prompt and,
    // under a closed loop, one token for each other client's running decode, as deployment scripts
    // size it (InferenceX's TensorRT-LLM scripts: max_num_tokens = CONC + ISL + 64 rounded up to 64,
    // benchmarks/dsr1_fp8_h200_trt.sh at 1fc5d73c); a budget of the prompt alone would hold every
    // prompt back until no decode runs, which no published run configures.
    const std::int64_t others = kind == "concurrency" && load.at("value").is_number()
                                    ? static_cast<std::int64_t>(load.at("value").get<double>())
                                    : 0;
    sim.max_num_batched_tokens =
        std::max(sim.max_num_batched_tokens, sched->chunked_prefill ? 1 : isl_range.max + others);
    if (how.features) {
      // Prefix caching as the row states it (on: the engine's own kind), with the harness's prompt
      // pool and shared system prompt (one prefix group; several groups run as a pool only).
      if (stated(row, "prefix_caching") && !row.at("prefix_caching").get<bool>())
        sim.prefix_cache = prefix_cache_mode::off;
      if (stated(row, "prompt_pool")) sim.workload.prompt_pool = row.at("prompt_pool").get<std::int64_t>();
      if (stated(row, "shared_prefix_tokens") && row.value("shared_prefix_groups", 1) <= 1)
        sim.workload.prefix_tokens = row.at("shared_prefix_tokens").get<std::int64_t>();
      if (stated(row, "speculative")) {
        const json& sp = row.at("speculative");
        const std::string method = sp.value("method", std::string());
        speculative_settings spec;
        if (method == "mtp")
          spec.method = speculative_method::mtp;
        else if (method == "eagle3")
          spec.method = speculative_method::eagle3;
        else
          return skip("a speculative method not simulated without its draft model");
        spec.tokens = sp.value("num_speculative_tokens", std::int64_t{0});
        if (stated(sp, "acceptance_rate"))
          spec.acceptance = {sp.at("acceptance_rate").get<double>()};
        else if (stated(sp, "acceptance_length") && spec.tokens > 0)
          spec.acceptance = {acceptance_for_length(spec.tokens, sp.at("acceptance_length").get<double>())};
        sim.speculative = resolve_speculative(spec);
      }
    }
    sim.input_tokens = isl_range;
    sim.output_tokens = osl_range;
    const double value = load.at("value").is_number() ? load.at("value").get<double>() : 0.0;
    const std::int64_t stated = row.value("num_requests", std::int64_t{0});
    if (kind == "batch" || kind == "max_throughput") {
      sim.arrivals = arrival_kind::batch;
      sim.num_requests = stated > 0 ? stated : (value > 0 ? static_cast<std::int64_t>(value) : 1000);
    } else if (kind == "concurrency") {
      sim.arrivals = arrival_kind::closed_loop;
      sim.clients = static_cast<std::int64_t>(value);
      sim.num_requests = stated > 0 ? stated : std::max<std::int64_t>(10 * sim.clients, 100);
    } else if (kind == "request_rate") {
      sim.arrivals = arrival_kind::poisson;
      sim.rate_per_s = value / static_cast<double>(replicas);  // one replica's share of the rate
      sim.num_requests = stated > 0 ? stated : 500;
    } else {
      return skip("a load not simulated");
    }
    sim.num_requests = std::min<std::int64_t>(sim.num_requests, 5000);
    sim.max_samples = 2;
    const std::string key = json{
        {"m", row.at("model")},
        {"g", row.at("gpu")},
        {"p", row.at("precision")},
        {"kv", row.value("kv_cache_precision", json())},
        {"tp", row.value("tensor_parallel", 1)},
        {"i", {isl_range.min, isl_range.max}},
        {"o", {osl_range.min, osl_range.max}},
        {"l", load},
        {"n", sim.num_requests},
        {"e", row.at("engine")},
        {"h", static_cast<int>(how.how)},
        {"f", how.features ? json{row.value("prefix_caching", json()), row.value("prompt_pool", json()),
                                  row.value("shared_prefix_tokens", json()), row.value("speculative", json()),
                                  row.value("attention_data_parallel", json()), replicas}
                           : json()},
        {"c",
         {how.costs.per_step_s, how.costs.per_sequence_s, how.costs.per_layer_s, how.costs.gemm_half_tokens,
          how.compute_efficiency,
          how.mem_efficiency}}}.dump();
    auto it = runs_.find(key);
    if (it == runs_.end()) it = runs_.emplace(key, figures_of(simulate(*model, sim, *gpu))).first;
    const json& f = it->second;
    if (is_rate(metric)) {
      if (!f.contains(metric)) return skip("a serving metric not simulated");
      // Every data-parallel replica serves its share of the load: system and per-GPU rates count
      // them all (share divides by every GPU); a per-user rate is one stream's.
      const double system = row.value("per", std::string("system")) == "user" ? 1.0 : static_cast<double>(replicas);
      out.value = f.at(metric).get<double>() * share * system;
    } else {
      out.value = statistic_of(f, metric, statistic);
      if (!out.value) return skip("a statistic not simulated");
    }
    return out;
  } catch (const error& e) {
    return skip(std::string("refused by the core: ") + std::string(to_string(e.code())));
  }
}

}  // namespace flopcast::validation
