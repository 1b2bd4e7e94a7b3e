// report_json: the estimate, its table row, the series the charts draw and, when asked, the
// serving curve, for one request (report.hpp).
#include "flopcast/report/report.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "base/json_reader.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/io/compare.hpp"
#include "flopcast/io/request.hpp"
#include "flopcast/io/request_json.hpp"
#include "flopcast/io/result_json.hpp"
#include "io/request_state.hpp"
#include "io/result_parts.hpp"

namespace flopcast {
namespace {

using detail::json;
using detail::json_out;

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

// The compare rows (row_fields() keys) of `request` with `key` taking each of `values`, as
// {key, values, rows}. Points the core rejects are left out: a list element it names (/key/i) is
// dropped and the rest compared again; a refusal of the list as a whole (/key) falls back to one
// point at a time.
template <class List>
void write_series(json_out& w, const json& request, const char* key, const List& list) {
  std::vector<std::size_t> columns(row_fields().size());
  for (std::size_t i = 0; i < columns.size(); ++i) columns[i] = i;
  const std::string pointer = std::string("/") + key;
  const auto rows_of = [&](const json& values) {
    json one = request;
    one[key] = values;
    const compare_request q = read_compare_request(one, true);
    return rows_to_json(compare_rows(q.plan, max_compare_rows), columns, -1);
  };
  // values and rows as JSON arrays' text, written once the list is settled
  std::string values_text = "[]", rows_text = "[]";
  json values(list);
  while (!values.empty()) {
    try {
      rows_text = rows_of(values);
      values_text = values.dump();
      break;
    } catch (const error& e) {
      const std::string& at = e.pointer();
      if (at.size() > pointer.size() + 1 && at.compare(0, pointer.size() + 1, pointer + "/") == 0 &&
          at.find_first_not_of("0123456789", pointer.size() + 1) == std::string::npos) {
        values.erase(std::stoul(at.substr(pointer.size() + 1)));
        continue;
      }
      if (at != pointer) break;
      json kept = json::array();
      std::string rows;
      for (const json& v : values) {
        try {
          const std::string one = rows_of(json::array({v}));  // "[{...}]"
          rows += (rows.empty() ? "" : ",") + one.substr(1, one.size() - 2);
          kept.push_back(v);
        } catch (const error&) {
        }
      }
      values_text = kept.dump();
      rows_text = "[" + rows + "]";
      break;
    }
  }
  w.object(key, [&] { w.field("key", key).key("values").raw(values_text).key("rows").raw(rows_text); });
}

// Prefill and the first decode step against the GPU's roof (null without a GPU).
void write_roofline(json_out& w, const model_spec& m, const estimate_result& r) {
  if (!r.has_performance) {
    w.field("roofline", nullptr);
    return;
  }
  const performance& f = r.perf;
  const double peak = f.peak_flops_per_s, bw = f.memory_bandwidth_bytes_per_s;
  w.object("roofline", [&] {
    w.field("peak_flops_per_s", peak)
        .field("memory_bandwidth_bytes_per_s", bw)
        .field("compute_precision", to_string(f.compute_precision))
        .field("ridge_intensity", peak / bw);
    w.array("points", [&] {
      const auto add = [&](const char* phase, double q, double b, double s) {
        if (!(b > 0 && s > 0)) return;
        w.begin_object().field("phase", phase).field("intensity", q / b).field("flops_per_s", q / s).end_object();
      };
      add("prefill", f.prefill_flops, f.prefill_bytes, f.prefill_latency_s);
      if (m.arch != architecture::encoder)
        add("decode_first_step", f.decode_first_step_flops, f.decode_first_step_bytes, f.decode_first_step_s);
    });
  });
}

// The closed-loop simulation over report_concurrencies() of the same model, GPU and layout,
// with the request's prompt and generated lengths.
std::string serving_curve(const json& request, const settings& config) {
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
  s["input_tokens"] = config.sequence_length;
  s["output_tokens"] = std::max<std::int64_t>(1, config.num_generated_tokens);
  return simulate_json(sim.dump(), -1);
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
  json_out w(indent);
  w.begin_object().field("version", FLOPCAST_VERSION);
  w.key("estimate").raw(to_json(ctx, -1));
  w.key("fields");
  detail::write_row_fields(w);
  std::vector<std::size_t> all(row_fields().size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const std::string row = rows_to_json({row_values(ctx)}, all, -1);  // "[{...}]"
  w.key("row").raw(std::string_view(row).substr(1, row.size() - 2));

  json list_request = request;
  list_request.erase("layer_table");
  std::vector<std::string> names;
  for (const format_info& f : formats()) names.emplace_back(f.name);
  w.object("series", [&] {
    write_series(w, list_request, "batch_size", k_batches);
    write_series(w, list_request, "sequence_length", k_sequences);
    write_series(w, list_request, "precision", names);
  });
  write_roofline(w, *p.model, r);
  w.key("serving");
  if (asked.report_serving)
    w.raw(serving_curve(list_request, p.config));
  else
    w.value(nullptr);
  w.end_object();
  return w.take();
}

}  // namespace flopcast
