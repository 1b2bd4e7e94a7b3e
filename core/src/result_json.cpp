// Writes results as JSON (and CSV). With config_reader.cpp, the only user of nlohmann_json.
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "flopcast/config.hpp"
#include "flopcast/error.hpp"
#include "flopcast/registry.hpp"
#include "flopcast/result_json.hpp"

namespace flopcast {
namespace {

using json = nlohmann::ordered_json;

std::string_view arch_name(architecture a) {
  switch (a) {
    case architecture::decoder: return "decoder";
    case architecture::encoder: return "encoder";
    case architecture::encoder_decoder: return "encoder-decoder";
  }
  return "decoder";
}
std::string_view position_name(position_kind p) {
  switch (p) {
    case position_kind::rotary: return "rope";
    case position_kind::learned: return "learned";
    case position_kind::alibi: return "alibi";
    case position_kind::relative_bias: return "relative_bias";
  }
  return "rope";
}

json parts_json(const flops_breakdown& f) {
  return {{"embedding", f.embedding}, {"attention", f.attention}, {"mlp", f.mlp},
          {"layernorm", f.norm},      {"output_head", f.output_head}, {"total", f.total}};
}
json attention_json(const attention_detail& a) {
  return {{"qkv_projection", a.qkv_projection},     {"rotary", a.rotary},
          {"attention_scores", a.attention_scores}, {"softmax", a.softmax},
          {"attention_values", a.attention_values}, {"output_projection", a.output_projection},
          {"cross_kv_projection", a.cross_kv_projection}};
}

json config_json(const model_spec& m) {
  const attention_spec& a = m.attention;
  json c = {{"model_type", m.model_type},
            {"architecture", arch_name(m.arch)},
            {"hidden_size", m.hidden_size},
            {"num_layers", m.num_layers},
            {"num_encoder_layers", m.num_encoder_layers},
            {"vocab_size", m.vocab_size},
            {"num_attention_heads", a.num_heads},
            {"num_key_value_heads", a.num_kv_heads},
            {"head_dim", a.head_dim},
            {"v_head_dim", a.v_head_dim},
            {"intermediate_size", m.mlp.intermediate_size},
            {"mlp", m.mlp.gated ? "gated" : "standard"},
            {"activation", m.mlp.activation},
            {"norm", m.norm == norm_kind::rmsnorm ? "rmsnorm" : "layernorm"},
            {"position", position_name(m.position)},
            {"parallel_attention", m.parallel_attention},
            {"tie_word_embeddings", m.tie_word_embeddings},
            {"max_position_embeddings", m.max_position_embeddings}};
  if (a.mla)
    c["mla"] = {{"q_lora_rank", a.q_lora_rank},
                {"kv_lora_rank", a.kv_lora_rank},
                {"qk_nope_head_dim", a.qk_nope_head_dim},
                {"qk_rope_head_dim", a.qk_rope_head_dim},
                {"v_head_dim", a.v_head_dim}};
  else
    c["mla"] = nullptr;
  if (m.moe.num_experts > 0)
    c["moe"] = {{"num_experts", m.moe.num_experts},
                {"experts_per_token", m.moe.experts_per_token},
                {"expert_intermediate_size", m.moe.expert_intermediate_size},
                {"shared_intermediate_size", m.moe.shared_intermediate_size}};
  else
    c["moe"] = nullptr;
  json groups = json::array();
  for (const auto& g : m.groups)
    groups.push_back({{"count", g.count},
                      {"stack", g.encoder ? "encoder" : "decoder"},
                      {"cross_attention", g.cross_attention},
                      {"moe", g.moe},
                      {"sliding_window", g.window > 0 ? json(g.window) : json(nullptr)}});
  c["layer_groups"] = groups;
  return c;
}

json or_null(bool has, double v) { return has ? json(v) : json(nullptr); }

}  // namespace

std::string to_json(const estimate_context& c, int indent) {
  const model_spec& m = c.model;
  const settings& s = c.config;
  const estimate_result& r = c.result;
  const performance& p = r.perf;
  const bool perf = r.has_performance;
  const bool decodes = perf && m.arch != architecture::encoder;
  const flops_breakdown& f = r.forward.parts;

  json notes = json::array();
  for (std::uint32_t bit = 1; bit != 0 && bit <= r.notes; bit <<= 1)
    if (r.notes & bit) notes.push_back(note_text(static_cast<note>(bit)));

  json out;
  out["parameters"] = r.parameters.total;
  out["active_parameters"] = r.parameters.active;
  out["forward_flops"] = f.total;
  out["backward_flops"] = r.backward_flops;
  out["attention_flops"] = f.attention;
  out["mlp_flops"] = f.mlp;
  out["embedding_flops"] = f.embedding;
  out["layernorm_flops"] = f.norm;
  out["output_head_flops"] = f.output_head;
  out["memory"] = s.training ? r.memory.train_total : r.memory.total;
  out["kv_cache"] = r.memory.kv_cache;
  out["latency"] = or_null(perf, s.training ? p.training_step_s : p.prefill_latency_s);
  out["energy"] = or_null(perf, s.training ? p.energy_total_joules : p.energy_prefill_joules);
  out["model"] = m.name;
  out["precision"] = to_string(s.weight_precision);
  out["gpu"] = c.gpu ? json(c.gpu->name) : json(nullptr);
  out["batch_size"] = s.batch_size;
  out["sequence_length"] = s.sequence_length;
  out["note"] = notes;

  json details;
  details["config"] = config_json(m);
  details["parameters"] = {{"total", r.parameters.total},         {"active", r.parameters.active},
                           {"embedding", r.parameters.embedding}, {"attention", r.parameters.attention},
                           {"mlp", r.parameters.mlp},             {"norm", r.parameters.norm},
                           {"output_head", r.parameters.output_head}};

  json layers = json::array();
  for (std::size_t i = 0; i < m.layer_group_of.size(); ++i) {
    const std::size_t g = m.layer_group_of[i];
    const layer_flops& lf = r.forward.per_layer[g];
    layers.push_back({{"layer", i},
                      {"stack", m.groups[g].encoder ? "encoder" : "decoder"},
                      {"parameters", r.parameters.per_layer[g]},
                      {"attention", lf.attention},
                      {"mlp", lf.mlp},
                      {"layernorm", lf.norm},
                      {"total", lf.total()}});
  }
  json decode = nullptr;
  if (m.arch != architecture::encoder) {
    decode = parts_json(r.decode_step.parts);
    decode["context_tokens"] = m.arch == architecture::encoder_decoder ? 1 : s.sequence_length;
  }
  details["flops"] = {{"forward", parts_json(f)},
                      {"forward_attention_detail", attention_json(r.forward.attention)},
                      {"backward_total", r.backward_flops},
                      {"prefill", parts_json(r.prefill.parts)},
                      {"prefill_attention_detail", attention_json(r.prefill.attention)},
                      {"decode_step", decode},
                      {"layers", layers}};

  const memory_breakdown& mem = r.memory;
  json memory = {{"weights", mem.weights},
                 {"kv_cache", mem.kv_cache},
                 {"kv_cache_prompt", mem.kv_cache_prompt},
                 {"kv_cache_per_token", mem.kv_cache_per_token},
                 {"kv_cache_precision", to_string(r.kv_precision)},
                 {"activations", mem.activations},
                 {"activations_is_estimate", true},
                 {"total", s.training ? mem.train_total : mem.total},
                 {"inference_total", mem.total},
                 {"gpu_memory", or_null(perf, mem.gpu_memory)},
                 {"fits_on_gpu", perf ? json(mem.fits_on_gpu) : json(nullptr)}};
  if (s.training)
    memory["training"] = {{"weights", mem.train_weights},
                          {"gradients", mem.train_gradients},
                          {"optimizer_state", mem.train_optimizer_state},
                          {"activations", mem.train_activations},
                          {"activations_is_estimate", true},
                          {"gradient_checkpointing", s.gradient_checkpointing},
                          {"total", mem.train_total}};
  else
    memory["training"] = nullptr;
  details["memory"] = memory;

  if (perf) {
    json pj = {{"compute_precision", to_string(p.compute_precision)},
               {"peak_flops_per_s", p.peak_flops_per_s},
               {"memory_bandwidth_bytes_per_s", p.memory_bandwidth_bytes_per_s},
               {"prefill_flops", p.prefill_flops},
               {"prefill_bytes", p.prefill_bytes},
               {"prefill_compute_s", p.prefill_compute_s},
               {"prefill_memory_s", p.prefill_memory_s},
               {"prefill_latency_s", p.prefill_latency_s},
               {"prefill_bound", to_string(p.prefill_bound)},
               {"decode_steps", decodes ? json(p.decode_steps) : json(nullptr)},
               {"decode_first_step_s", or_null(decodes, p.decode_first_step_s)},
               {"decode_first_step_flops", or_null(decodes, p.decode_first_step_flops)},
               {"decode_first_step_bytes", or_null(decodes, p.decode_first_step_bytes)},
               {"decode_bound", decodes ? json(to_string(p.decode_bound)) : json(nullptr)},
               {"decode_total_s", or_null(decodes, p.decode_total_s)},
               {"decode_latency_per_token_s", or_null(decodes, p.decode_latency_per_token_s)},
               {"decode_tokens_per_second", or_null(decodes, p.decode_tokens_per_second)},
               {"decode_ceiling_tokens_per_second", or_null(decodes, p.decode_ceiling_tokens_per_second)},
               {"total_request_latency_s", p.total_request_latency_s},
               {"training_step_s", or_null(s.training, p.training_step_s)},
               {"energy_prefill_joules", p.energy_prefill_joules},
               {"energy_total_joules", p.energy_total_joules},
               {"energy_total_wh", p.energy_total_joules / 3600.0},
               {"energy_total_kwh", p.energy_total_joules / 3.6e6},
               {"co2_grams", p.co2_grams},
               {"cost_per_hour_usd", p.cost_per_hour_usd},
               {"cost_usd", p.cost_usd},
               {"latency_is_estimate", true}};
    details["performance"] = pj;
  } else {
    details["performance"] = nullptr;
  }

  details["settings"] = {
      {"batch_size", s.batch_size},
      {"sequence_length", s.sequence_length},
      {"num_generated_tokens", s.num_generated_tokens},
      {"precision", to_string(s.weight_precision)},
      {"kv_cache_precision", to_string(r.kv_precision)},
      {"training", s.training},
      {"optimizer", to_string(s.optim)},
      {"gradient_checkpointing", s.gradient_checkpointing},
      {"causal", s.causal},
      {"flash_attention", s.flash_attention},
      {"compute_efficiency", s.compute_efficiency},
      {"mem_efficiency", s.mem_efficiency},
      {"power_utilization", s.power_utilization},
      {"carbon_intensity", s.carbon_intensity_g_per_kwh},
      {"cost_per_hour", perf ? json(p.cost_per_hour_usd) : (s.cost_per_hour_usd ? json(*s.cost_per_hour_usd) : json(nullptr))}};
  out["details"] = details;
  return out.dump(indent);
}

namespace {
json value_json(const field_value& v) {
  if (!v.has_value) return nullptr;
  switch (v.kind) {
    case field_kind::text: return v.text;
    case field_kind::boolean: return v.number != 0;
    case field_kind::count: return static_cast<std::int64_t>(v.number);
    default: return v.number;
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
  json out = json::array();
  for (const auto& row : rows) {
    json o = json::object();
    for (std::size_t c : columns) o[std::string(row_fields()[c].key)] = value_json(row[c]);
    out.push_back(o);
  }
  return out.dump(indent);
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
      if (v.kind == field_kind::text) out += csv_escape(v.text);
      else out += value_json(v).dump();
    }
    out += "\n";
  }
  return out;
}

std::string estimate_json(std::string_view request_json, int indent) {
  const compare_request q = read_compare_request(request_json, false);
  const compare_plan::point p = q.plan.at(0);
  const estimate_result r = estimate(*p.model, p.config, p.gpu);
  return to_json({*p.model, p.config, p.gpu, r}, indent);
}

std::string compare_json(std::string_view request_json, int indent) {
  const compare_request q = read_compare_request(request_json, true);
  const auto rows = compare_rows(q.plan, max_compare_rows);
  std::vector<std::size_t> columns(row_fields().size());
  for (std::size_t i = 0; i < columns.size(); ++i) columns[i] = i;
  return rows_to_json(rows, columns, indent);
}

std::string defaults_json(int indent) {
  const settings s;
  json out;
  out["version"] = FLOPCAST_VERSION;
  out["settings"] = {{"batch_size", s.batch_size},
                     {"sequence_length", s.sequence_length},
                     {"num_generated_tokens", s.num_generated_tokens},
                     {"precision", to_string(s.weight_precision)},
                     {"kv_cache_precision", nullptr},
                     {"gpu", find_gpu("A100").name},
                     {"training", s.training},
                     {"optimizer", to_string(s.optim)},
                     {"gradient_checkpointing", s.gradient_checkpointing},
                     {"causal", s.causal},
                     {"flash_attention", s.flash_attention},
                     {"compute_efficiency", s.compute_efficiency},
                     {"mem_efficiency", s.mem_efficiency},
                     {"power_utilization", s.power_utilization},
                     {"carbon_intensity", s.carbon_intensity_g_per_kwh},
                     {"cost_per_hour", nullptr}};
  json precisions = json::array(), optimizers = json::array(), fields = json::array(), sweep = json::array();
  for (precision p : all_precisions)
    precisions.push_back({{"name", to_string(p)}, {"bits", storage_bits(p)}, {"weight_only", is_weight_only(p)}});
  for (optimizer o : all_optimizers) optimizers.push_back(to_string(o));
  static const char* const kinds[] = {"text", "count", "flops", "bytes", "seconds", "rate", "joules", "boolean", "number"};
  for (const auto& f : row_fields()) {
    fields.push_back({{"key", f.key}, {"header", f.header}, {"kind", kinds[static_cast<int>(f.kind)]}});
    if (f.kind != field_kind::text) sweep.push_back(f.key);
  }
  out["precisions"] = precisions;
  out["optimizers"] = optimizers;
  out["row_fields"] = fields;
  out["sweep_fields"] = sweep;
  out["model_types"] = supported_model_types();
  out["max_compare_rows"] = max_compare_rows;
  return out.dump(indent);
}

std::string models_to_json(int indent) {
  json out = json::array();
  for (const auto& r : model_records()) {
    const parameter_breakdown p = count_parameters(r.spec);
    out.push_back({{"id", r.id},
                   {"aliases", r.aliases},
                   {"family", r.family},
                   {"model_type", r.spec.model_type},
                   {"architecture", arch_name(r.spec.arch)},
                   {"parameters", p.total},
                   {"active_parameters", p.active},
                   {"published_parameters", r.published_parameters > 0 ? json(r.published_parameters) : json(nullptr)},
                   {"published_significant_digits", r.published_significant_digits},
                   {"source", r.source}});
  }
  return out.dump(indent);
}

std::string gpus_to_json(int indent) {
  json out = json::array();
  for (const auto& g : gpu_records()) {
    json peaks = json::object();
    for (precision p : all_precisions)
      if (g.peak(p)) peaks[std::string(to_string(p))] = *g.peak(p);
    out.push_back({{"name", g.name},
                   {"aliases", g.aliases},
                   {"vendor", g.vendor},
                   {"memory_bytes", g.memory_bytes},
                   {"memory_bandwidth_bytes_per_s", g.memory_bandwidth_bytes_per_s},
                   {"peak_flops", peaks},
                   {"tdp_watts", g.tdp_watts},
                   {"interconnect", {{"name", g.interconnect_name}, {"bandwidth_bytes_per_s", g.interconnect_bandwidth_bytes_per_s}}},
                   {"cost_per_hour_usd", g.cost_per_hour_usd}});
  }
  return out.dump(indent);
}

}  // namespace flopcast
