// The flat result row: each field declared once with its getter; printed as table, CSV
// and JSON rows (rows_to_json, rows_to_csv below), and read numerically by sweeps.
#include <cmath>
#include <limits>

#include "base/detail.hpp"
#include "base/json_out.hpp"
#include "flopcast/io/result_json.hpp"

namespace flopcast {
namespace {

struct field_def {
  row_field field;
  // Numeric fields: the value, or std::nullopt where it does not apply.
  std::optional<double> (*number)(const estimate_context&);
  // Text fields.
  std::optional<std::string> (*text)(const estimate_context&);
};

bool perf(const estimate_context& c) { return c.result.has_performance; }
bool decodes(const estimate_context& c) { return perf(c) && c.model.arch != architecture::encoder; }
std::optional<double> when(bool ok, double v) { return ok ? std::optional<double>(v) : std::nullopt; }
using detail::d;

using ctx = const estimate_context&;
// clang-format off
const field_def k_fields[] = {
    {{"model", "model", field_kind::text}, nullptr, [](ctx c) { return std::optional<std::string>(c.model.name); }},
    {{"precision", "precision", field_kind::text}, nullptr, [](ctx c) { return std::optional<std::string>(to_string(c.config.weight_precision)); }},
    {{"gpu", "gpu", field_kind::text}, nullptr, [](ctx c) { return c.gpu ? std::optional<std::string>(c.gpu->name) : std::nullopt; }},
    {{"batch_size", "batch", field_kind::count}, [](ctx c) { return when(true, d(c.config.batch_size)); }, nullptr},
    {{"sequence_length", "seq", field_kind::count}, [](ctx c) { return when(true, d(c.config.sequence_length)); }, nullptr},
    {{"num_generated_tokens", "gen", field_kind::count}, [](ctx c) { return when(true, d(c.config.num_generated_tokens)); }, nullptr},
    {{"parameters", "params", field_kind::count}, [](ctx c) { return when(true, d(c.result.parameters.total)); }, nullptr},
    {{"active_parameters", "active", field_kind::count}, [](ctx c) { return when(true, d(c.result.parameters.active)); }, nullptr},
    {{"forward_flops", "fwd FLOPs", field_kind::flops}, [](ctx c) { return when(true, c.result.forward.parts.total); }, nullptr},
    {{"memory", "memory", field_kind::bytes}, [](ctx c) { return when(true, c.config.training ? c.result.memory.train_total : c.result.memory.total); }, nullptr},
    {{"weights", "weights", field_kind::bytes}, [](ctx c) { return when(true, c.config.training ? c.result.memory.train_weights : c.result.memory.weights); }, nullptr},
    {{"kv_cache", "kv cache", field_kind::bytes}, [](ctx c) { return when(true, c.result.memory.kv_cache); }, nullptr},
    {{"activations", "activations", field_kind::bytes}, [](ctx c) { return when(true, c.config.training ? c.result.memory.train_activations : c.result.memory.activations); }, nullptr},
    {{"fits_on_gpu", "fits", field_kind::boolean}, [](ctx c) { return when(perf(c), c.result.memory.fits_on_gpu ? 1.0 : 0.0); }, nullptr},
    {{"prefill_latency_s", "prefill", field_kind::seconds}, [](ctx c) { return when(perf(c), c.result.perf.prefill_latency_s); }, nullptr},
    {{"prefill_bound", "bound", field_kind::bound}, [](ctx c) { return when(perf(c), c.result.perf.prefill_bound == bound::compute ? 1.0 : 0.0); }, nullptr},
    {{"decode_latency_per_token_s", "decode/tok", field_kind::seconds}, [](ctx c) { return when(decodes(c), c.result.perf.decode_latency_per_token_s); }, nullptr},
    {{"decode_tokens_per_second", "tok/s", field_kind::rate}, [](ctx c) { return when(decodes(c), c.result.perf.decode_tokens_per_second); }, nullptr},
    {{"total_request_latency_s", "request", field_kind::seconds}, [](ctx c) { return when(perf(c), c.result.perf.total_request_latency_s); }, nullptr},
    {{"energy_total_joules", "energy", field_kind::joules}, [](ctx c) { return when(perf(c), c.result.perf.energy_total_joules); }, nullptr},
    {{"cost_usd", "cost $", field_kind::number}, [](ctx c) { return when(perf(c), c.result.perf.cost_usd); }, nullptr},
};
// clang-format on

}  // namespace

const std::vector<row_field>& row_fields() {
  static const std::vector<row_field> k = [] {
    std::vector<row_field> out;
    for (const auto& f : k_fields) out.push_back(f.field);
    return out;
  }();
  return k;
}

std::vector<field_value> row_values(const estimate_context& c) {
  std::vector<field_value> out;
  out.reserve(std::size(k_fields));
  for (const auto& f : k_fields) {
    field_value v;
    v.kind = f.field.kind;
    if (f.text) {
      auto t = f.text(c);
      v.has_value = t.has_value();
      if (t) v.text = std::move(*t);
    } else {
      const auto n = f.number(c);
      v.has_value = n.has_value();
      v.number = n.value_or(0.0);
    }
    out.push_back(std::move(v));
  }
  return out;
}

std::size_t row_numbers(const estimate_context& c, double* out) {
  std::size_t n = 0;
  for (const auto& f : k_fields)
    if (f.number) out[n++] = f.number(c).value_or(std::numeric_limits<double>::quiet_NaN());
  return n;
}

using detail::json_out;

namespace {
void write_value(json_out& w, const field_value& v) {
  if (!v.has_value) {
    w.value(nullptr);
    return;
  }
  switch (v.kind) {
    case field_kind::text:
      w.value(v.text);
      return;
    case field_kind::boolean:
      w.value(v.number != 0);
      return;
    case field_kind::bound:
      w.value(v.number != 0 ? "compute" : "memory");
      return;
    case field_kind::count:
      w.value(static_cast<std::int64_t>(v.number));
      return;
    default:
      w.value(v.number);
  }
}
std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}
}  // namespace

std::string rows_to_json(const std::vector<std::vector<field_value>>& rows, const std::vector<std::size_t>& columns,
                         int indent) {
  json_out w(indent);
  w.begin_array();
  for (const auto& row : rows) {
    w.begin_object();
    for (std::size_t c : columns) {
      w.key(row_fields()[c].key);
      write_value(w, row[c]);
    }
    w.end_object();
  }
  w.end_array();
  return w.take();
}

std::string rows_to_csv(const std::vector<std::vector<field_value>>& rows, const std::vector<std::size_t>& columns) {
  std::string out;
  for (std::size_t i = 0; i < columns.size(); ++i) out += (i ? "," : "") + std::string(row_fields()[columns[i]].key);
  out += "\n";
  for (const auto& row : rows) {
    for (std::size_t i = 0; i < columns.size(); ++i) {
      if (i) out += ",";
      const field_value& v = row[columns[i]];
      if (!v.has_value) continue;
      if (v.kind == field_kind::text)
        out += csv_escape(v.text);
      else if (v.kind == field_kind::bound)
        out += v.number != 0 ? "compute" : "memory";
      else {
        json_out one;
        write_value(one, v);
        out += one.take();
      }
    }
    out += "\n";
  }
  return out;
}

}  // namespace flopcast
