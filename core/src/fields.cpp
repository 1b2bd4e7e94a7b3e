// The flat result row: declared once, printed as table, CSV and JSON rows.
#include <cmath>

#include "flopcast/result_json.hpp"

namespace flopcast {

const std::vector<row_field>& row_fields() {
  static const std::vector<row_field> k = {
      {"model", "model", field_kind::text},
      {"precision", "precision", field_kind::text},
      {"gpu", "gpu", field_kind::text},
      {"batch_size", "batch", field_kind::count},
      {"sequence_length", "seq", field_kind::count},
      {"num_generated_tokens", "gen", field_kind::count},
      {"parameters", "params", field_kind::count},
      {"active_parameters", "active", field_kind::count},
      {"forward_flops", "fwd FLOPs", field_kind::flops},
      {"memory", "memory", field_kind::bytes},
      {"weights", "weights", field_kind::bytes},
      {"kv_cache", "kv cache", field_kind::bytes},
      {"activations", "activations", field_kind::bytes},
      {"fits_on_gpu", "fits", field_kind::boolean},
      {"prefill_latency_s", "prefill", field_kind::seconds},
      {"prefill_bound", "bound", field_kind::text},
      {"decode_latency_per_token_s", "decode/tok", field_kind::seconds},
      {"decode_tokens_per_second", "tok/s", field_kind::rate},
      {"total_request_latency_s", "request", field_kind::seconds},
      {"energy_total_joules", "energy", field_kind::joules},
      {"cost_usd", "cost $", field_kind::number},
  };
  return k;
}

std::vector<field_value> row_values(const estimate_context& c) {
  const estimate_result& r = c.result;
  const settings& s = c.config;
  const performance& p = r.perf;
  const bool perf = r.has_performance;
  const bool decodes = perf && c.model.arch != architecture::encoder;
  const auto text = [](std::string t) { return field_value{field_kind::text, 0, true, std::move(t)}; };
  const auto num = [](field_kind k, double v, bool has = true) { return field_value{k, has ? v : 0, has, {}}; };
  const double memory = s.training ? r.memory.train_total : r.memory.total;
  return {
      text(c.model.name),
      text(std::string(to_string(s.weight_precision))),
      c.gpu ? text(c.gpu->name) : field_value{field_kind::text, 0, false, {}},
      num(field_kind::count, static_cast<double>(s.batch_size)),
      num(field_kind::count, static_cast<double>(s.sequence_length)),
      num(field_kind::count, static_cast<double>(s.num_generated_tokens)),
      num(field_kind::count, static_cast<double>(r.parameters.total)),
      num(field_kind::count, static_cast<double>(r.parameters.active)),
      num(field_kind::flops, r.forward.parts.total),
      num(field_kind::bytes, memory),
      num(field_kind::bytes, s.training ? r.memory.train_weights : r.memory.weights),
      num(field_kind::bytes, r.memory.kv_cache),
      num(field_kind::bytes, s.training ? r.memory.train_activations : r.memory.activations),
      num(field_kind::boolean, r.memory.fits_on_gpu ? 1 : 0, perf),
      num(field_kind::seconds, p.prefill_latency_s, perf),
      perf ? text(to_string(p.prefill_bound)) : field_value{field_kind::text, 0, false, {}},
      num(field_kind::seconds, p.decode_latency_per_token_s, decodes),
      num(field_kind::rate, p.decode_tokens_per_second, decodes),
      num(field_kind::seconds, p.total_request_latency_s, perf),
      num(field_kind::joules, p.energy_total_joules, perf),
      num(field_kind::number, p.cost_usd, perf),
  };
}

}  // namespace flopcast
