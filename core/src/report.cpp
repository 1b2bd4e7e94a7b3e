// report_json: the estimate, its table row, the series the charts draw and, when asked, the
// serving curve, for one request (report.hpp).
#include "flopcast/report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "flopcast/compare.hpp"
#include "flopcast/error.hpp"
#include "flopcast/request.hpp"
#include "flopcast/request_json.hpp"
#include "flopcast/result_json.hpp"
#include "json_reader.hpp"
#include "request_state.hpp"

namespace flopcast {
namespace {

using ojson = nlohmann::ordered_json;
using detail::json;

const std::vector<std::int64_t> k_batches{1, 2, 4, 8, 16, 32, 64, 128, 256};
const std::vector<std::int64_t> k_sequences{128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
const std::vector<std::int64_t> k_concurrencies{1, 2, 4, 8, 16, 32, 64, 128};

// The "report" part, read by the request table's rows for it (unknown keys and bad types are
// errors at /report/...).
detail::request_state read_report_part(const json& j) {
  detail::request_state state;
  const auto it = j.find("report");
  if (it == j.end() || it->is_null()) return state;
  if (!it->is_object())
    throw error(error_code::config_type, "/report", "expected an object {serving}, but got " + detail::describe(*it));
  std::vector<std::string_view> known;
  for (const request_field& f : request_fields())
    if (f.part == "report") known.push_back(f.key);
  const detail::reader r(*it, "/report");
  r.only(known, "field");
  for (const request_field& f : request_fields()) {
    if (f.part != "report" || !r.has(f.key)) continue;
    detail::check_value(f, r.at(f.key), std::string(f.pointer));
    detail::access(f.pointer)->set(state, r.at(f.key));
  }
  return state;
}

// The compare rows (row_fields() keys) of `request` with `key` taking each of `values`. Points
// the core rejects are left out: a list element it names (/key/i) is dropped and the rest
// compared again; a refusal of the list as a whole (/key) falls back to one point at a time.
template <class List>
ojson series(const json& request, const char* key, const List& list) {
  std::vector<std::size_t> columns(row_fields().size());
  for (std::size_t i = 0; i < columns.size(); ++i) columns[i] = i;
  const std::string pointer = std::string("/") + key;
  const auto rows_of = [&](const json& values) {
    json one = request;
    one[key] = values;
    const compare_request q = read_compare_request(one, true);
    return ojson::parse(rows_to_json(compare_rows(q.plan, max_compare_rows), columns, -1));
  };
  ojson out = {{"key", key}, {"values", ojson::array()}, {"rows", ojson::array()}};
  json values(list);
  while (!values.empty()) {
    try {
      out["values"] = ojson::parse(values.dump());
      out["rows"] = rows_of(values);
      return out;
    } catch (const error& e) {
      const std::string& at = e.pointer();
      if (at.size() > pointer.size() + 1 && at.compare(0, pointer.size() + 1, pointer + "/") == 0 &&
          at.find_first_not_of("0123456789", pointer.size() + 1) == std::string::npos) {
        values.erase(std::stoul(at.substr(pointer.size() + 1)));
        continue;
      }
      out["values"] = ojson::array();
      out["rows"] = ojson::array();
      if (at != pointer) return out;
      for (const json& v : values) {
        try {
          ojson row = rows_of(json::array({v})).at(0);
          out["values"].push_back(ojson::parse(v.dump()));
          out["rows"].push_back(std::move(row));
        } catch (const error&) {
        }
      }
      return out;
    }
  }
  out["values"] = ojson::array();
  out["rows"] = ojson::array();
  return out;
}

// Prefill and the first decode step against the GPU's roof (null without a GPU).
ojson roofline(const ojson& estimate) {
  const ojson& f = estimate.at("details").at("performance");
  if (f.is_null()) return nullptr;
  const double peak = f.at("peak_flops_per_s").get<double>();
  const double bw = f.at("memory_bandwidth_bytes_per_s").get<double>();
  ojson points = ojson::array();
  const auto add = [&](const char* phase, const char* flops, const char* bytes, const char* seconds) {
    if (f.at(flops).is_null() || f.at(bytes).is_null() || f.at(seconds).is_null()) return;
    const double q = f.at(flops).get<double>(), b = f.at(bytes).get<double>(), s = f.at(seconds).get<double>();
    if (!(b > 0 && s > 0)) return;
    points.push_back({{"phase", phase}, {"intensity", q / b}, {"flops_per_s", q / s}});
  };
  add("prefill", "prefill_flops", "prefill_bytes", "prefill_latency_s");
  add("decode_first_step", "decode_first_step_flops", "decode_first_step_bytes", "decode_first_step_s");
  return {{"peak_flops_per_s", peak},
          {"memory_bandwidth_bytes_per_s", bw},
          {"compute_precision", f.at("compute_precision")},
          {"ridge_intensity", peak / bw},
          {"points", points}};
}

// The closed-loop simulation over report_concurrencies() of the same model, GPU and layout,
// with the request's prompt and generated lengths.
ojson serving_curve(const json& request, const ojson& row) {
  json sim = json::object();
  for (auto it = request.begin(); it != request.end(); ++it) {
    const request_field* f = find_request_field("/" + it.key());
    if (f == nullptr || !(f->commands & command_simulate)) continue;
    if (f->type != field_type::part) {
      sim[it.key()] = it.value();
      continue;
    }
    json part = json::object();
    for (auto p = it.value().begin(); it.value().is_object() && p != it.value().end(); ++p) {
      const request_field* g = find_request_field("/" + it.key() + "/" + p.key());
      if (g != nullptr && (g->commands & command_simulate)) part[p.key()] = p.value();
    }
    sim[it.key()] = part;
  }
  json& s = sim["simulation"];
  s["concurrency"] = k_concurrencies;
  s["input_tokens"] = row.at("sequence_length");
  s["output_tokens"] = std::max<std::int64_t>(1, row.at("num_generated_tokens").get<std::int64_t>());
  return ojson::parse(simulate_json(sim.dump(), -1));
}

}  // namespace

const std::vector<std::int64_t>& report_batch_sizes() { return k_batches; }
const std::vector<std::int64_t>& report_sequence_lengths() { return k_sequences; }
const std::vector<std::int64_t>& report_concurrencies() { return k_concurrencies; }

std::string report_json(std::string_view request_json, int indent) {
  json request = detail::parse_object(request_json, "the request");
  const detail::request_state asked = read_report_part(request);
  request.erase("report");
  request["layer_table"] = true;  // the layer chart draws a bar per layer

  const compare_request q = read_compare_request(request, false);
  const compare_plan::point p = q.plan.at(0);
  const estimate_result r = estimate(*p.model, p.config, p.gpu);
  const estimate_context ctx{*p.model, p.config, p.gpu, r};
  ojson out;
  out["version"] = FLOPCAST_VERSION;
  out["estimate"] = ojson::parse(to_json(ctx, -1));
  out["fields"] = ojson::parse(defaults_json(-1)).at("row_fields");
  const std::vector<std::size_t> all = [] {
    std::vector<std::size_t> c(row_fields().size());
    for (std::size_t i = 0; i < c.size(); ++i) c[i] = i;
    return c;
  }();
  out["row"] = ojson::parse(rows_to_json({row_values(ctx)}, all, -1)).at(0);

  json list_request = request;
  list_request.erase("layer_table");
  std::vector<std::string> names;
  for (const format_info& f : formats()) names.emplace_back(f.name);
  out["series"] = {{"batch_size", series(list_request, "batch_size", k_batches)},
                   {"sequence_length", series(list_request, "sequence_length", k_sequences)},
                   {"precision", series(list_request, "precision", names)}};
  out["roofline"] = roofline(out["estimate"]);
  out["serving"] = asked.report_serving ? serving_curve(list_request, out["row"]) : ojson(nullptr);
  return out.dump(indent);
}

}  // namespace flopcast
