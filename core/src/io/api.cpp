// The JSON entry points (request text in, result text out) of the WASM module, the shared
// fixtures and library users: each parses its request once and runs the core.
#include <cmath>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/catalog/providers.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/io/plan_json.hpp"
#include "flopcast/io/request.hpp"
#include "flopcast/io/request_json.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/model/config.hpp"
#include "flopcast/plan/plan.hpp"
#include "flopcast/plan/price_comparison.hpp"
#include "flopcast/training/training.hpp"
#include "io/result_parts.hpp"

namespace flopcast {
namespace {

using detail::json;
using detail::json_out;

const char* type_name(field_type t) {
  switch (t) {
    case field_type::integer:
      return "integer";
    case field_type::number:
      return "number";
    case field_type::boolean:
      return "boolean";
    case field_type::precision:
      return "precision";
    case field_type::optimizer:
      return "optimizer";
    case field_type::recompute:
      return "recompute";
    case field_type::lora_targets:
      return "lora_targets";
    case field_type::tokens:
      return "tokens";
    case field_type::model:
      return "model";
    case field_type::gpu:
      return "gpu";
    case field_type::engine:
      return "engine";
    case field_type::calibration:
      return "calibration";
    case field_type::part:
      return "part";
    case field_type::choice:
      return "choice";
    case field_type::token_range:
      return "token_range";
    case field_type::trace:
      return "trace";
  }
  return "number";
}

void write_commands(json_out& w, std::uint32_t c) {
  static const std::pair<request_command, const char*> names[] = {
      {command_estimate, "estimate"},     {command_compare, "compare"},
      {command_throughput, "throughput"}, {command_train, "train"},
      {command_calibrate, "calibrate"},   {command_simulate, "simulate"},
      {command_report, "report"},         {command_plan, "plan"}};
  w.begin_array();
  for (const auto& [bit, name] : names)
    if (c & bit) w.value(name);
  w.end_array();
}

void write_choices(json_out& w, const request_field& f) {
  w.begin_array();
  std::string_view rest = f.choices;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    w.value(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  w.end_array();
}

// Every entry point fails with a flopcast::error: running out of memory (a huge comparison, say)
// becomes a `limit` error rather than an exception of another type.
template <class F>
std::string guarded(F&& f) {
  try {
    return f();
  } catch (const std::bad_alloc&) {
    throw error(error_code::limit, "", "the request needs more memory than is available");
  } catch (const std::length_error&) {
    throw error(error_code::limit, "", "the request needs more memory than is available");
  }
}

}  // namespace

void detail::write_row_fields(json_out& w) {
  static const char* const kinds[] = {"text", "count",  "flops",   "bytes",  "seconds",
                                      "rate", "joules", "boolean", "number", "bound"};
  w.begin_array();
  for (const auto& f : row_fields())
    w.begin_object()
        .field("key", f.key)
        .field("header", f.header)
        .field("kind", kinds[static_cast<int>(f.kind)])
        .end_object();
  w.end_array();
}

std::string estimate_json(std::string_view request_json, int indent) {
  return guarded([&] {
    const compare_request q = read_compare_request(request_json, false);
    const compare_plan::point p = q.plan.at(0);
    const estimate_result r = estimate(*p.model, p.config, p.gpu);
    return to_json({*p.model, p.config, p.gpu, r, provider_of_request(request_json)}, indent);
  });
}

std::string compare_json(std::string_view request_json, int indent) {
  return guarded([&] {
    const compare_request q = read_compare_request(request_json, true);
    const auto rows = compare_rows(q.plan, max_compare_rows);
    std::vector<std::size_t> columns(row_fields().size());
    for (std::size_t i = 0; i < columns.size(); ++i) columns[i] = i;
    return rows_to_json(rows, columns, indent);
  });
}

std::string defaults_json(int indent) {
  json_out w(indent);
  w.begin_object().field("version", FLOPCAST_VERSION);
  // The request table: the page and the widget build their forms and attributes from it.
  w.object("settings", [&] {
    for (const request_field& f : request_fields())
      if (f.part.empty() && (f.commands & command_estimate) && f.type != field_type::part &&
          f.type != field_type::model && f.type != field_type::calibration) {
        if (f.type == field_type::gpu)
          w.field(f.key, find_gpu(default_gpu_name).name);
        else
          w.key(f.key).raw(default_json(f));
      }
  });
  w.array("request_fields", [&] {
    for (const request_field& f : request_fields()) {
      w.begin_object()
          .field("key", f.key)
          .field("pointer", f.pointer)
          .field("part", f.part)
          .field("flag", f.flag)
          .field("short_flag", f.short_flag)
          .field("attribute", f.attribute)
          .field("type", type_name(f.type))
          .field("unit", f.unit)
          .field_if("min", std::isfinite(f.min), f.min)
          .field_if("max", std::isfinite(f.max), f.max)
          .field("min_open", f.min_open)
          .field("listable", f.listable);
      w.key("default").raw(default_json(f));
      w.text_or_null("derived", f.derived).field("expected", expected_text(f)).key("commands");
      write_commands(w, f.commands);
      w.key("choices");
      write_choices(w, f);
      w.field("help", f.help).end_object();
    }
  });
  w.array("precisions", [&] {
    for (const format_info& f : formats()) {
      w.begin_object()
          .field("name", f.name)
          .field("bits", f.bits_per_weight)
          .field("weight_only", f.weight_only)
          .field("family", to_string(f.family))
          .field("kv_cache", f.kv);
      w.array("compute_path", [&] {
        for (compute_unit u : f.path) w.value(to_string(u));
      });
      w.field("layout", f.layout).field("source", f.source).end_object();
    }
  });
  w.array("optimizers", [&] {
    for (optimizer o : all_optimizers) w.value(to_string(o));
  });
  w.key("row_fields");
  detail::write_row_fields(w);
  w.array("sweep_fields", [&] {
    for (const auto& f : row_fields())
      if (f.kind != field_kind::text) w.value(f.key);
  });
  w.strings("model_types", supported_model_types());
  // The parts a precision object may name ({"default": ..., "experts": ...}), in weight_component order.
  w.array("weight_components", [&] {
    for (std::size_t i = 0; i < weight_component_count; ++i) w.value(to_string(static_cast<weight_component>(i)));
  });
  w.field("max_compare_rows", max_compare_rows).end_object();
  return w.take();
}

std::string throughput_json(std::string_view request_json, int indent) {
  return guarded([&] {
    const serving_request q = read_serving_request(request_json);
    const compare_plan::point p = q.request.plan.at(0);
    if (p.gpu == nullptr)
      throw error(error_code::invalid_argument, "/gpu", "expected a GPU: serving throughput needs one");
    const serving_result r = serve(*p.model, q.serving, *p.gpu);
    return serving_to_json(*p.model, q.serving, *p.gpu, r, indent);
  });
}

std::string simulate_json(std::string_view request_json, int indent) {
  return guarded([&] {
    const simulation_request q = read_simulation_request(request_json);
    std::vector<simulation_result> results;
    results.reserve(q.points.size());
    if (q.disaggregation) {
      std::vector<disaggregated_result> split;
      for (std::size_t i = 0; i < q.points.size(); ++i) {
        split.push_back(q.run_disaggregated(i));
        results.push_back(split.back().total);
      }
      return simulation_to_json(q, results, indent, &split);
    }
    for (std::size_t i = 0; i < q.points.size(); ++i) results.push_back(q.run(i));
    return simulation_to_json(q, results, indent);
  });
}

std::string plan_json(std::string_view request_json, int indent) { return plan_json(request_json, {}, indent); }

std::string plan_json(std::string_view request_json, const std::function<bool(double)>& progress, int indent) {
  return guarded([&] {
    const plan_request q = read_plan_request(request_json);
    if (q.plan.searches()) {
      const search_result search = plan_search(q, progress);
      return plan_to_json(q, plan(*q.model, q.plan, *q.gpu), indent, &search);
    }
    return plan_to_json(q, plan(*q.model, q.plan, *q.gpu), indent);
  });
}

std::string train_json(std::string_view request_json, int indent) {
  return guarded([&] {
    const training_request q = read_training_request(request_json);
    const compare_plan::point p = q.request.plan.at(0);
    const training_analysis a = analyze_training(*p.model, q.training, p.gpu);
    return training_to_json(*p.model, p.gpu, a, indent);
  });
}

std::string calibrate_json(std::string_view request_json, int indent) {
  return guarded([&] {
    const calibration_request q = read_calibration_request(request_json);
    const compare_plan::point p = q.request.plan.at(0);
    if (p.gpu == nullptr) throw error(error_code::invalid_argument, "/gpu", "expected the GPU the measurement ran on");
    return calibration_to_json({calibrate(*p.model, p.config, *p.gpu, q.measured, q.all_models)}, indent);
  });
}

// API price against self-hosting (plan/price_comparison.hpp): the narrow request {model, gpu,
// tensor_parallel, precision, utilization, prompt_tokens, output_tokens, cost_per_hour_usd}, or
// {model, utilization, self_hosted: a throughput request} whose self-hosted figures are the
// throughput command's for that request.
std::string price_comparison_json(std::string_view request_json, int indent) {
  const json j = detail::parse_object(request_json, "the request");
  const detail::reader rd(j);
  if (rd.has("self_hosted")) {
    rd.only({"model", "utilization", "self_hosted"}, "a price comparison request with \"self_hosted\"");
  } else {
    rd.only({"model", "gpu", "tensor_parallel", "precision", "utilization", "prompt_tokens", "output_tokens",
             "cost_per_hour_usd", "self_hosted"},
            "a price comparison request");
  }
  price_comparison_request q;
  if (!rd.has("model") || !j["model"].is_string())
    throw error(error_code::config_missing, "/model", "expected \"model\" (a registry name or provider id)");
  q.model = j["model"].get<std::string>();
  if (rd.has("self_hosted")) {
    q.utilization = rd.number_or("utilization", q.utilization, 1e-6, 1);
    const json& request = j["self_hosted"];
    if (!request.is_object())
      throw error(error_code::invalid_argument, "/self_hosted",
                  "expected a throughput request object ({model, gpu, precision, serving: {...}, ...})");
    json sub = request;
    if (!sub.contains("model")) sub["model"] = q.model;
    serving_request t;
    try {
      t = read_serving_request(sub);
    } catch (const error& e) {
      throw error(e.code(), "/self_hosted" + e.pointer(), e.message());
    }
    const compare_plan::point p = t.request.plan.at(0);
    if (p.gpu == nullptr)
      throw error(error_code::invalid_argument, "/self_hosted/gpu", "expected a GPU to self-host on");
    return price_comparison_json(q, *p.model, t.serving, *p.gpu, indent);
  }
  q.gpu = rd.string_or("gpu", q.gpu);
  q.precision = rd.string_or("precision", q.precision);
  q.tensor_parallel = rd.non_negative_or("tensor_parallel", 0);
  q.utilization = rd.number_or("utilization", q.utilization, 1e-6, 1);
  q.prompt_tokens = rd.positive_or("prompt_tokens", q.prompt_tokens);
  q.output_tokens = rd.positive_or("output_tokens", q.output_tokens);
  if (rd.has("cost_per_hour_usd") && !j["cost_per_hour_usd"].is_null())
    q.cost_per_hour_usd = rd.number_or("cost_per_hour_usd", 0, 1e-9, 1e9);
  return price_comparison_json(q, indent);
}

}  // namespace flopcast
