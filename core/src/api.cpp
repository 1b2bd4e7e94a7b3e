// The JSON entry points (request text in, result text out) of the WASM module, the shared
// fixtures and library users: each parses its request once and runs the core.
#include <cmath>
#include <nlohmann/json.hpp>

#include "flopcast/config.hpp"
#include "flopcast/error.hpp"
#include "flopcast/plan.hpp"
#include "flopcast/registry.hpp"
#include "flopcast/request.hpp"
#include "flopcast/result_json.hpp"
#include "flopcast/training.hpp"

namespace flopcast {
namespace {

using json = nlohmann::ordered_json;

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

json commands_json(std::uint32_t c) {
  json out = json::array();
  static const std::pair<request_command, const char*> names[] = {
      {command_estimate, "estimate"},     {command_compare, "compare"},
      {command_throughput, "throughput"}, {command_train, "train"},
      {command_calibrate, "calibrate"},   {command_simulate, "simulate"},
      {command_report, "report"},         {command_plan, "plan"}};
  for (const auto& [bit, name] : names)
    if (c & bit) out.push_back(name);
  return out;
}

json choice_names(const request_field& f) {
  json out = json::array();
  std::string_view rest = f.choices;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    out.push_back(std::string(rest.substr(0, comma)));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return out;
}

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

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

std::string estimate_json(std::string_view request_json, int indent) {
  return guarded([&] {
    const compare_request q = read_compare_request(request_json, false);
    const compare_plan::point p = q.plan.at(0);
    const estimate_result r = estimate(*p.model, p.config, p.gpu);
    return to_json({*p.model, p.config, p.gpu, r}, indent);
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
  json out;
  out["version"] = FLOPCAST_VERSION;
  // The request table: the page and the widget build their forms and attributes from it.
  json settings = json::object(), fields = json::array();
  for (const request_field& f : request_fields()) {
    const json value = json::parse(default_json(f));
    if (f.part.empty() && (f.commands & command_estimate) && f.type != field_type::part &&
        f.type != field_type::model && f.type != field_type::calibration)
      settings[std::string(f.key)] = f.type == field_type::gpu ? json(find_gpu(default_gpu_name).name) : value;
    fields.push_back({{"key", f.key},
                      {"pointer", f.pointer},
                      {"part", f.part},
                      {"flag", f.flag},
                      {"short_flag", f.short_flag},
                      {"attribute", f.attribute},
                      {"type", type_name(f.type)},
                      {"unit", f.unit},
                      {"min", finite_or_null(f.min)},
                      {"max", finite_or_null(f.max)},
                      {"min_open", f.min_open},
                      {"listable", f.listable},
                      {"default", value},
                      {"derived", f.derived.empty() ? json(nullptr) : json(f.derived)},
                      {"expected", expected_text(f)},
                      {"commands", commands_json(f.commands)},
                      {"choices", choice_names(f)},
                      {"help", f.help}});
  }
  out["settings"] = settings;
  out["request_fields"] = fields;
  json precisions = json::array(), optimizers = json::array(), row_fields_json = json::array(), sweep = json::array();
  for (const format_info& f : formats()) {
    json path = json::array();
    for (compute_unit u : f.path) path.push_back(to_string(u));
    precisions.push_back({{"name", f.name},
                          {"bits", f.bits_per_weight},
                          {"weight_only", f.weight_only},
                          {"family", to_string(f.family)},
                          {"kv_cache", f.kv},
                          {"compute_path", path},
                          {"layout", f.layout},
                          {"source", f.source}});
  }
  for (optimizer o : all_optimizers) optimizers.push_back(to_string(o));
  static const char* const kinds[] = {"text", "count",  "flops",   "bytes",  "seconds",
                                      "rate", "joules", "boolean", "number", "bound"};
  for (const auto& f : row_fields()) {
    row_fields_json.push_back({{"key", f.key}, {"header", f.header}, {"kind", kinds[static_cast<int>(f.kind)]}});
    if (f.kind != field_kind::text) sweep.push_back(f.key);
  }
  out["precisions"] = precisions;
  out["optimizers"] = optimizers;
  out["row_fields"] = row_fields_json;
  out["sweep_fields"] = sweep;
  out["model_types"] = supported_model_types();
  // The parts a precision object may name ({"default": ..., "experts": ...}), in weight_component order.
  json components = json::array();
  for (std::size_t i = 0; i < weight_component_count; ++i)
    components.push_back(to_string(static_cast<weight_component>(i)));
  out["weight_components"] = components;
  out["max_compare_rows"] = max_compare_rows;
  return out.dump(indent);
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
    for (std::size_t i = 0; i < q.points.size(); ++i) results.push_back(q.run(i));
    return simulation_to_json(q, results, indent);
  });
}

std::string plan_json(std::string_view request_json, int indent) {
  return guarded([&] {
    const plan_request q = read_plan_request(request_json);
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

}  // namespace flopcast
