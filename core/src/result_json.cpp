// Writes results as JSON (and CSV). Requests are read by request_reader.cpp.
#include "flopcast/result_json.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "estimate_parts.hpp"
#include "flopcast/config.hpp"
#include "flopcast/engine.hpp"
#include "flopcast/error.hpp"
#include "flopcast/registry.hpp"
#include "flopcast/request.hpp"
#include "flopcast/serving.hpp"
#include "flopcast/training.hpp"
#include "json_writer.hpp"
#include "operators_parts.hpp"

namespace flopcast {
namespace {

using json = nlohmann::ordered_json;

std::string_view arch_name(architecture a) {
  switch (a) {
    case architecture::decoder:
      return "decoder";
    case architecture::encoder:
      return "encoder";
    case architecture::encoder_decoder:
      return "encoder-decoder";
  }
  return "decoder";
}
std::string_view position_name(position_kind p) {
  switch (p) {
    case position_kind::rotary:
      return "rope";
    case position_kind::learned:
      return "learned";
    case position_kind::alibi:
      return "alibi";
    case position_kind::relative_bias:
      return "relative_bias";
    case position_kind::none:
      return "none";
  }
  return "rope";
}

json parts_json(const flops_breakdown& f) {
  return {{"embedding", f.embedding}, {"attention", f.attention},     {"mlp", f.mlp},    {"layernorm", f.norm},
          {"mixer", f.mixer},         {"output_head", f.output_head}, {"total", f.total}};
}
json attention_json(const attention_detail& a) {
  return {{"qkv_projection", a.qkv_projection},          {"rotary", a.rotary},
          {"attention_scores", a.attention_scores},      {"softmax", a.softmax},
          {"attention_values", a.attention_values},      {"output_projection", a.output_projection},
          {"cross_kv_projection", a.cross_kv_projection}};
}

const char* mixer_name(mixer_kind k) {
  switch (k) {
    case mixer_kind::attention:
      return "attention";
    case mixer_kind::linear_attention:
      return "linear_attention";
    case mixer_kind::mamba:
      return "mamba";
    case mixer_kind::mamba2:
      return "mamba2";
    case mixer_kind::none:
      return "none";
  }
  return "none";
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
  bool linear = false, ssm = false;
  json groups = json::array();
  for (const auto& g : m.groups) {
    linear = linear || g.mixer == mixer_kind::linear_attention;
    ssm = ssm || g.mixer == mixer_kind::mamba || g.mixer == mixer_kind::mamba2 || g.parallel_ssm;
    groups.push_back({{"count", g.count},
                      {"stack", g.encoder ? "encoder" : "decoder"},
                      {"mixer", mixer_name(g.mixer)},
                      {"parallel_ssm", g.parallel_ssm},
                      {"mlp", g.mlp},
                      {"cross_attention", g.cross_attention},
                      {"moe", g.moe},
                      {"sliding_window", g.window > 0 ? json(g.window) : json(nullptr)},
                      {"attention_chunk", g.chunk > 0 ? json(g.chunk) : json(nullptr)},
                      {"nope", g.nope}});
  }
  c["layer_groups"] = groups;
  c["linear_attention"] = linear ? json{{"num_key_heads", m.linear.num_key_heads},
                                        {"num_value_heads", m.linear.num_value_heads},
                                        {"key_head_dim", m.linear.key_head_dim},
                                        {"value_head_dim", m.linear.value_head_dim},
                                        {"conv_kernel", m.linear.conv_kernel}}
                                 : json(nullptr);
  c["ssm"] =
      ssm ? json{{"inner", m.ssm.inner},     {"state_size", m.ssm.state_size}, {"conv_kernel", m.ssm.conv_kernel},
                 {"dt_rank", m.ssm.dt_rank}, {"num_heads", m.ssm.num_heads},   {"n_groups", m.ssm.n_groups}}
          : json(nullptr);
  c["sparse_attention"] =
      a.index_heads > 0
          ? json{{"index_heads", a.index_heads}, {"index_head_dim", a.index_head_dim}, {"index_topk", a.index_topk}}
          : json(nullptr);
  c["attention_sinks"] = a.sinks;
  c["context_length"] = m.context_length;
  c["quantization"] = m.quantization.method.empty()
                          ? json(nullptr)
                          : json{{"method", m.quantization.method}, {"note", m.quantization.note}};
  c["vision_model_type"] = m.vision_model_type.empty() ? json(nullptr) : json(m.vision_model_type);
  return c;
}

json or_null(bool has, double v) { return has ? json(v) : json(nullptr); }

// The settings every result and the defaults share, by request field name.
json settings_json(const settings& s) {
  return {{"batch_size", s.batch_size},
          {"sequence_length", s.sequence_length},
          {"num_generated_tokens", s.num_generated_tokens},
          {"precision", to_string(s.weight_precision)},
          {"training", s.training},
          {"optimizer", to_string(s.optim)},
          {"gradient_checkpointing", s.gradient_checkpointing},
          {"causal", s.causal},
          {"flash_attention", s.flash_attention},
          {"compute_efficiency", s.compute_efficiency},
          {"mem_efficiency", s.mem_efficiency},
          {"power_utilization", s.power_utilization},
          {"carbon_intensity", s.carbon_intensity_g_per_kwh}};
}

const char* origin_name(efficiency_origin o) {
  switch (o) {
    case efficiency_origin::default_value:
      return "default";
    case efficiency_origin::explicit_value:
      return "explicit";
    case efficiency_origin::calibrated:
      return "calibrated";
    case efficiency_origin::fitted:
      return "fitted";
  }
  return "default";
}

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
  // The configuration asked for: with a layout, memory per GPU, the fit, latency, energy and
  // cost are the layout's (memory is the whole model's, all GPUs together).
  out["memory"] = s.training ? r.memory.train_total : r.memory.total;
  out["memory_per_gpu"] = or_null(perf, r.parallel.memory_per_gpu);
  out["gpus"] = perf ? json(r.parallel.total_gpus) : json(nullptr);
  out["fits"] = perf ? json(r.memory.fits_on_gpu) : json(nullptr);
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
  details["parameters"] = {{"total", r.parameters.total},
                           {"active", r.parameters.active},
                           {"embedding", r.parameters.embedding},
                           {"attention", r.parameters.attention},
                           {"mlp", r.parameters.mlp},
                           {"norm", r.parameters.norm},
                           {"mixer", r.parameters.mixer},
                           {"vision", r.parameters.vision},
                           {"output_head", r.parameters.output_head}};

  json layers = s.layer_table ? json::array() : json(nullptr);
  for (std::size_t i = 0; s.layer_table && i < m.layer_group_of.size(); ++i) {
    const std::size_t g = m.layer_group_of[i];
    const layer_flops& lf = r.forward.per_layer[g];
    layers.push_back({{"layer", i},
                      {"stack", m.groups[g].encoder ? "encoder" : "decoder"},
                      {"parameters", r.parameters.per_layer[g]},
                      {"attention", lf.attention},
                      {"mlp", lf.mlp},
                      {"layernorm", lf.norm},
                      {"mixer", lf.mixer},
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
  json by_part = json::object(), part_precision = json::object();
  for (std::size_t i = 0; i < weight_component_count; ++i) {
    const auto c = static_cast<weight_component>(i);
    by_part[std::string(to_string(c))] = mem.weights_by_component[i];
    part_precision[std::string(to_string(c))] = to_string(detail::component_precision(s, c));
  }
  json memory = {{"weights", mem.weights},
                 {"weights_by_part", by_part},
                 {"weights_precision_by_part", part_precision},
                 {"weights_bits_per_weight", mem.weights_bits_per_weight},
                 {"weights_source", mem.weights_source},
                 {"kv_cache", mem.kv_cache},
                 {"kv_cache_prompt", mem.kv_cache_prompt},
                 {"kv_cache_per_token", mem.kv_cache_per_token},
                 {"recurrent_state", mem.recurrent_state},
                 {"kv_cache_precision", to_string(r.kv_precision)},
                 {"activations", mem.activations},
                 {"activations_is_estimate", true},
                 {"total", s.training ? mem.train_total : mem.total},
                 {"inference_total", mem.total},
                 {"gpu_memory", or_null(perf, mem.gpu_memory)},
                 {"usable_gpu_memory", or_null(perf, mem.usable_gpu_memory)},
                 {"fits_on_gpu", perf ? json(mem.fits_on_gpu) : json(nullptr)}};
  if (s.training)
    memory["training"] = {{"weights", mem.train_weights},
                          {"gradients", mem.train_gradients},
                          {"optimizer_state", mem.train_optimizer_state},
                          {"master_weights", mem.train_master_weights},
                          {"optimizer_moments", mem.train_optimizer_state - mem.train_master_weights},
                          {"activations", mem.train_activations},
                          {"activations_is_estimate", true},
                          {"gradient_checkpointing", s.gradient_checkpointing},
                          {"total", mem.train_total}};
  else
    memory["training"] = nullptr;
  details["memory"] = memory;

  if (perf) {
    json pj = {{"compute_precision", to_string(p.compute_precision)},
               {"weight_only_path", p.weight_only_path},
               {"dequant_flops_prefill", p.dequant_flops_prefill},
               {"dequant_flops_step", p.dequant_flops_step},
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
               {"gpus", p.gpus},
               {"cost_usd", p.cost_usd},
               {"latency_is_estimate", true}};
    const auto range = [](const figure_range& x) { return json::array({x.low, x.high}); };
    json ranges = {{"prefill_latency_s", range(p.prefill_latency_range)},
                   {"decode_latency_per_token_s", decodes ? range(p.decode_latency_range) : json(nullptr)},
                   {"decode_tokens_per_second", decodes ? range(p.decode_tokens_per_second_range) : json(nullptr)},
                   {"total_request_latency_s", range(p.total_request_latency_range)},
                   {"training_step_s", s.training ? range(p.training_step_range) : json(nullptr)},
                   {"energy_total_joules", range(p.energy_total_range)},
                   {"cost_usd", range(p.cost_range)},
                   {"compute_efficiency", json::array({p.compute_efficiency_low, p.compute_efficiency_high})},
                   {"mem_efficiency", json::array({p.mem_efficiency_low, p.mem_efficiency_high})},
                   {"source", p.range_source}};
    pj["ranges"] = ranges;
    details["performance"] = pj;
  } else {
    details["performance"] = nullptr;
  }

  if (perf) {
    const parallel_result& q = r.parallel;
    const parallel_layout& l = q.layout;
    details["parallelism"] = {
        {"tensor_parallel", l.tensor_parallel},
        {"pipeline_parallel", l.pipeline_parallel},
        {"data_parallel", l.data_parallel},
        {"expert_parallel", l.expert_parallel},
        {"sequence_parallel", l.sequence_parallel},
        {"num_microbatches", l.num_microbatches},
        {"total_gpus", q.total_gpus},
        {"interconnect_bandwidth_bytes_per_s", q.interconnect_bandwidth_bytes_per_s},
        {"link_latency_s", l.link_latency_s},
        {"batch_per_replica", q.batch_per_replica},
        {"layers_per_stage", q.layers_per_stage},
        {"per_gpu_weights", q.weights_per_gpu},
        {"per_gpu_kv_cache", q.kv_cache_per_gpu},
        {"per_gpu_activations", q.activations_per_gpu},
        {"per_gpu_training_state", s.training ? json(q.training_state_per_gpu) : json(nullptr)},
        {"per_gpu_memory_bytes", q.memory_per_gpu},
        {"fits_per_gpu", q.fits_per_gpu},
        {"tp_allreduce_bytes", q.tp_allreduce_bytes},
        {"tp_comm_s", q.tp_allreduce_s},
        {"tp_comm_decode_step_s", decodes ? json(q.tp_allreduce_decode_step_s) : json(nullptr)},
        {"pp_send_s", q.pp_send_s},
        {"pp_send_decode_step_s", decodes ? json(q.pp_send_decode_step_s) : json(nullptr)},
        {"pp_bubble_fraction", s.training ? json(q.pp_bubble_fraction) : json(nullptr)},
        {"ep_alltoall_s", q.ep_alltoall_s},
        {"ep_alltoall_decode_step_s", decodes ? json(q.ep_alltoall_decode_step_s) : json(nullptr)},
        {"dp_allreduce_s", s.training ? json(q.dp_allreduce_s) : json(nullptr)},
        {"prefill_latency_s", q.prefill_latency_s},
        {"decode_latency_per_token_s", decodes ? json(q.decode_latency_per_token_s) : json(nullptr)},
        {"decode_tokens_per_second", decodes ? json(q.decode_tokens_per_second) : json(nullptr)},
        {"total_request_latency_s", q.total_request_latency_s},
        {"training_step_s", s.training ? json(q.training_step_s) : json(nullptr)}};
  } else {
    details["parallelism"] = nullptr;
  }

  json settings_out = settings_json(s);
  settings_out["kv_cache_precision"] = to_string(r.kv_precision);
  settings_out["engine"] = s.engine.empty() ? json(nullptr) : json(s.engine);  // whose fit the figures use
  settings_out["compute_efficiency_origin"] = origin_name(s.compute_efficiency_origin);
  settings_out["mem_efficiency_origin"] = origin_name(s.mem_efficiency_origin);
  settings_out["calibration_source"] = s.calibration_source.empty() ? json(nullptr) : json(s.calibration_source);
  settings_out["calibration_store"] = s.calibration_store.empty() ? json(nullptr) : json(s.calibration_store);
  settings_out["cost_per_hour"] =
      perf ? json(p.cost_per_hour_usd) : (s.cost_per_hour_usd ? json(*s.cost_per_hour_usd) : json(nullptr));
  settings_out["weight_bytes"] = s.weight_bytes ? json(*s.weight_bytes) : json(nullptr);
  settings_out["weight_bytes_source"] =
      s.weight_bytes && !s.weight_bytes_source.empty() ? json(s.weight_bytes_source) : json(nullptr);
  details["settings"] = settings_out;
  details["operators"] = s.operator_table ? detail::operators_json(m, s, r) : json(nullptr);
  out["details"] = details;
  return detail::dump_result(out, indent);
}

namespace {
json value_json(const field_value& v) {
  if (!v.has_value) return nullptr;
  switch (v.kind) {
    case field_kind::text:
      return v.text;
    case field_kind::boolean:
      return v.number != 0;
    case field_kind::bound:
      return v.number != 0 ? "compute" : "memory";
    case field_kind::count:
      return static_cast<std::int64_t>(v.number);
    default:
      return v.number;
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
  return detail::dump_result(out, indent);
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
      else
        out += value_json(v).dump();
    }
    out += "\n";
  }
  return out;
}

std::string serving_to_json(const model_spec& m, const serving_settings& s, const hardware_spec& gpu,
                            const serving_result& r, int indent) {
  const auto range = [](const figure_range& x) { return json::array({x.low, x.high}); };
  const bool ok = r.concurrency > 0;  // figures exist (at max_concurrent_batch when capped)
  json out = {{"model", m.name},
              {"gpu", gpu.name},
              {"precision", to_string(s.base.weight_precision)},
              {"gpus", r.gpus},
              {"prompt_tokens", s.prompt_tokens},
              {"output_tokens", s.output_tokens},
              {"fits", r.fits},
              {"kv_budget_bytes", r.kv_budget_bytes},
              {"kv_bytes_per_sequence", r.kv_bytes_per_sequence},
              {"activation_bytes_per_sequence", r.activation_bytes_per_sequence},
              {"max_concurrent_batch", r.max_concurrency},
              {"concurrency", r.concurrency},
              {"concurrency_capped", r.concurrency_capped},
              {"prefill_s", or_null(ok, r.prefill_s)},
              {"decode_step_s", or_null(ok, r.decode_step_s)},
              {"decode_bound", ok ? json(to_string(r.decode_bound)) : json(nullptr)},
              {"cycle_s", or_null(ok, r.cycle_s)},
              {"tokens_per_second", or_null(ok, r.output_tokens_per_second)},
              {"total_tokens_per_second", or_null(ok, r.total_tokens_per_second)},
              {"requests_per_second", or_null(ok, r.requests_per_second)},
              {"ttft_s", or_null(ok, r.ttft_s)},
              {"tpot_s", or_null(ok, r.tpot_s)},
              {"cost_per_1m_tokens_usd", or_null(ok, r.cost_per_1m_output_tokens_usd)},
              {"ranges", ok ? json{{"tokens_per_second", range(r.output_tokens_per_second_range)},
                                   {"ttft_s", range(r.ttft_range)},
                                   {"tpot_s", range(r.tpot_range)},
                                   {"source", r.range_source}}
                            : json(nullptr)}};
  if (r.speculative)
    out["speculative"] = {{"draft_model", s.draft ? json(s.draft->name) : json(nullptr)},
                          {"speculative_tokens", s.speculative_tokens},
                          {"acceptance_rate", s.acceptance_rate},
                          {"expected_tokens_per_step", r.expected_tokens_per_step},
                          {"draft_step_s", r.draft_step_s},
                          {"verify_step_s", r.verify_step_s},
                          {"tpot_s", r.speculative_tpot_s},
                          {"tokens_per_second", r.speculative_output_tokens_per_second},
                          {"speedup", r.speedup}};
  else
    out["speculative"] = nullptr;
  out["settings"] = {
      {"gpu_memory_utilization", s.base.gpu_memory_utilization.value_or(0.9)},
      {"paged", s.paged},
      {"block_size", s.block_size},
      {"chunked_prefill_tokens", s.chunked_prefill_tokens},
      {"compute_efficiency", s.base.compute_efficiency},
      {"mem_efficiency", s.base.mem_efficiency},
      {"compute_efficiency_origin", origin_name(s.base.compute_efficiency_origin)},
      {"mem_efficiency_origin", origin_name(s.base.mem_efficiency_origin)},
      {"tensor_parallel", s.base.parallel.tensor_parallel},
      {"pipeline_parallel", s.base.parallel.pipeline_parallel},
      {"data_parallel", s.base.parallel.data_parallel},
      {"expert_parallel", s.base.parallel.expert_parallel},
      {"kv_cache_precision", s.base.kv_cache_precision ? json(to_string(*s.base.kv_cache_precision)) : json(nullptr)}};
  return detail::dump_result(out, indent);
}

std::string simulation_to_json(const simulation_request& q, const std::vector<simulation_result>& points, int indent) {
  const simulation_settings& s = q.simulation;
  const settings& b = s.base;
  const engine_profile* e = b.engine.empty() ? nullptr : &find_engine(b.engine);
  const engine_family_fit* fit = e != nullptr && e->efficiency_fitted ? e->fit_for(*q.gpu) : nullptr;
  const engine_bands& eb = b.bands;
  // Ranges: the fitted engine's residual bands (measured / predicted, p10-p90), where it has rows.
  const bool fitted = fit != nullptr && b.compute_efficiency_origin == efficiency_origin::fitted;
  const auto has = [&](const residual_band& band) { return fitted && band.rows > 0; };
  std::string method = "simulated: iteration-level continuous batching, ";
  if (e == nullptr)
    method += "plain roofline, no engine";
  else if (fit != nullptr)
    method += "engine " + e->id + " fitted to " + std::to_string(fit->rows) + " rows (" + fit->family + ")";
  else
    method += "engine " + e->id + "'s scheduler on the plain roofline (its efficiencies are not fitted)";
  const bool any_band = has(eb.ttft_load) || has(eb.decode) || has(eb.throughput);
  const std::string ranges_source =
      any_band ? "engine " + e->id + " residuals on its validation rows (measured / predicted, p10-p90): TTFT " +
                     std::to_string(eb.ttft_load.rows) + " rows, decode " + std::to_string(eb.decode.rows) +
                     " rows, throughput " + std::to_string(eb.throughput.rows) + " rows"
               : "none: ranges come from a fitted engine's residuals (--engine with a fitted profile)";

  const auto dist = [](const distribution& x) {
    return json{{"mean", x.mean}, {"p50", x.p50}, {"p90", x.p90}, {"p99", x.p99}};
  };
  const auto time_range = [&](double v, const residual_band& band) {
    return has(band) ? json::array({v * band.low, v * band.high}) : json(nullptr);
  };
  // A rate's band is a time ratio: the rate's range is [rate / high, rate / low].
  const auto rate_range = [&](double v) {
    return has(eb.throughput) ? json::array({v / eb.throughput.high, v / eb.throughput.low}) : json(nullptr);
  };
  json list = json::array();
  for (std::size_t i = 0; i < points.size() && i < q.points.size(); ++i) {
    const simulation_result& r = points[i];
    const simulation_point& p = q.points[i];
    json timeline = json::array();
    for (const time_point& t : r.timeline)
      timeline.push_back(
          {{"t_s", t.t_s}, {"running", t.running}, {"waiting", t.waiting}, {"kv_utilization", t.kv_utilization}});
    list.push_back({{"concurrency", p.concurrency ? json(*p.concurrency) : json(nullptr)},
                    {"request_rate", p.request_rate ? json(*p.request_rate) : json(nullptr)},
                    {"requests", r.requests},
                    {"measured_requests", r.measured_requests},
                    {"ttft_s", dist(r.ttft)},
                    {"ttft_s_range", time_range(r.ttft.mean, eb.ttft_load)},
                    {"tpot_s", dist(r.tpot)},
                    {"tpot_s_range", time_range(r.tpot.mean, eb.decode)},
                    {"itl_s", dist(r.itl)},
                    {"itl_s_range", time_range(r.itl.mean, eb.decode)},
                    {"e2e_s", dist(r.e2e)},
                    {"output_tokens_per_s", r.output_tokens_per_s},
                    {"output_tokens_per_s_range", rate_range(r.output_tokens_per_s)},
                    {"total_tokens_per_s", r.total_tokens_per_s},
                    {"total_tokens_per_s_range", rate_range(r.total_tokens_per_s)},
                    {"requests_per_s", r.requests_per_s},
                    {"requests_per_s_range", rate_range(r.requests_per_s)},
                    {"goodput_requests_per_s", r.goodput_requests_per_s},
                    {"goodput_requests", r.goodput_requests},
                    {"goodput_share", r.measured_requests > 0 ? static_cast<double>(r.goodput_requests) /
                                                                    static_cast<double>(r.measured_requests)
                                                              : 0.0},
                    {"mean_kv_utilization", r.mean_kv_utilization},
                    {"peak_kv_utilization", r.peak_kv_utilization},
                    {"mean_running", r.mean_running},
                    {"mean_in_system", r.mean_in_system},
                    {"preemptions", r.preemptions},
                    {"steps", r.steps},
                    {"makespan_s", r.makespan_s},
                    {"window_s", r.window_s},
                    {"timeline", timeline}});
  }
  const auto lengths = [](const length_range& l) { return json::array({l.min, l.max}); };
  const bool trace = s.arrivals == arrival_kind::trace;
  json out = {{"label", "ESTIMATED"},
              {"method", method},
              {"model", q.model->name},
              {"gpu", q.gpu->name},
              {"precision", to_string(b.weight_precision)},
              {"gpus", b.parallel.tensor_parallel},
              {"engine", e != nullptr ? json(e->id) : json(nullptr)},
              {"engine_fitted", fit != nullptr},
              {"engine_fit_rows", fit != nullptr ? fit->rows : 0},
              {"workload",
               {{"arrivals", arrival_name(s.arrivals)},
                {"num_requests", trace ? static_cast<std::int64_t>(s.trace.size()) : s.num_requests},
                {"input_tokens", trace ? json(nullptr) : lengths(s.input_tokens)},
                {"output_tokens", trace ? json(nullptr) : lengths(s.output_tokens)},
                {"seed", s.seed},
                {"warmup_requests", s.warmup_requests},
                {"slo_ttft_s", s.slo_ttft_s ? json(*s.slo_ttft_s) : json(nullptr)},
                {"slo_tpot_s", s.slo_tpot_s ? json(*s.slo_tpot_s) : json(nullptr)}}},
              {"scheduler",
               {{"max_num_seqs", s.max_num_seqs},
                {"max_num_batched_tokens", s.max_num_batched_tokens},
                {"chunked_prefill", s.chunked_prefill},
                {"policy", policy_name(s.policy)},
                {"block_size", s.block_size},
                {"kv_blocks", points.empty() ? json(s.kv_blocks.value_or(0)) : json(points.front().kv_blocks)},
                {"kv_blocks_given", s.kv_blocks.has_value()},
                {"gpu_memory_utilization", b.gpu_memory_utilization.value_or(0.9)},
                {"source", q.scheduler_source}}},
              {"settings",
               {{"compute_efficiency", b.compute_efficiency},
                {"mem_efficiency", b.mem_efficiency},
                {"compute_efficiency_origin", origin_name(b.compute_efficiency_origin)},
                {"mem_efficiency_origin", origin_name(b.mem_efficiency_origin)},
                {"tensor_parallel", b.parallel.tensor_parallel},
                {"kv_cache_precision", b.kv_cache_precision ? json(to_string(*b.kv_cache_precision)) : json(nullptr)}}},
              {"ranges_source", ranges_source},
              {"points", list}};
  return detail::dump_result(out, indent);
}

std::string calibration_to_json(const std::vector<calibration_entry>& entries, int indent) {
  json list = json::array();
  for (const auto& e : entries)
    list.push_back({{"model", e.model},
                    {"gpu", e.gpu},
                    {"precision", e.precision},
                    {"compute_efficiency", e.compute_efficiency ? json(*e.compute_efficiency) : json(nullptr)},
                    {"mem_efficiency", e.mem_efficiency ? json(*e.mem_efficiency) : json(nullptr)},
                    {"source", e.source}});
  return json{{"version", 1}, {"entries", list}}.dump(indent);
}

std::string models_to_json(int indent) { return models_to_json(model_filter{}, indent); }

std::string models_to_json(const model_filter& filter, int indent) {
  json out = json::array();
  for (const auto& r : model_records()) {
    if (!filter.matches(r)) continue;
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
  return detail::dump_result(out, indent);
}

namespace {
json hardware_json(const hardware_spec& g) {
  json peaks = json::object();
  for (precision p : all_precisions)
    if (g.peak(p)) peaks[std::string(to_string(p))] = *g.peak(p);
  if (g.peak_fp6) peaks["fp6"] = *g.peak_fp6;
  if (g.peak_fp4) peaks["fp4"] = *g.peak_fp4;
  if (g.peak_fp16_acc16) peaks["fp16_acc16"] = *g.peak_fp16_acc16;
  json ic = {{"name", g.interconnect_name}, {"bandwidth_bytes_per_s", g.interconnect_bandwidth_bytes_per_s}};
  if (!g.interconnect_generation.empty()) ic["generation"] = g.interconnect_generation;
  if (g.interconnect_domain_size > 0) ic["domain_size"] = g.interconnect_domain_size;
  return {{"name", g.name},
          {"aliases", g.aliases},
          {"vendor", g.vendor},
          {"kind", to_string(g.kind)},
          {"memory_bytes", g.memory_bytes},
          {"usable_memory_fraction", g.usable_memory_fraction},
          {"memory_bandwidth_bytes_per_s", g.memory_bandwidth_bytes_per_s},
          {"peak_flops", peaks},
          {"tdp_watts", g.tdp_watts},
          {"interconnect", ic},
          {"cost_per_hour_usd", g.cost_per_hour_usd}};
}
}  // namespace

std::string hardware_to_json(const hardware_spec& g, int indent) { return hardware_json(g).dump(indent); }

static json band_json(const engine_bands& b) {
  const auto one = [](const residual_band& r) { return json{{"low", r.low}, {"high", r.high}, {"rows", r.rows}}; };
  return {{"prefill", one(b.prefill)},
          {"decode", one(b.decode)},
          {"throughput", one(b.throughput)},
          {"ttft_load", one(b.ttft_load)}};
}

std::string engines_to_json(int indent) {
  json out = json::array();
  for (const engine_profile& e : engine_records()) {
    json families = json::object();
    std::int64_t rows = 0;
    for (const engine_family_fit& f : e.families) {
      families[f.family] = {
          {"compute_efficiency", f.compute_efficiency}, {"mem_efficiency", f.mem_efficiency}, {"rows", f.rows}};
      if (f.family == "all") rows = f.rows;
    }
    out.push_back({{"id", e.id},
                   {"name", e.name},
                   {"aliases", e.aliases},
                   {"version", e.version},
                   {"batching", to_string(e.batching)},
                   {"simulated", e.batching == engine_batching::continuous},
                   {"fitted", e.efficiency_fitted},
                   {"fit_rows", rows},
                   {"fitted_to", e.fitted_to},
                   {"held_out", e.held_out},
                   {"costs",
                    {{"per_step_s", e.costs.per_step_s},
                     {"per_layer_s", e.costs.per_layer_s},
                     {"gemm_half_tokens", e.costs.gemm_half_tokens},
                     {"kv_read_efficiency", e.costs.kv_read_efficiency}}},
                   {"families", families},
                   {"bands", band_json(e.bands)}});
  }
  return detail::dump_result(out, indent);
}

std::string gpus_to_json(int indent) {
  json out = json::array();
  for (const auto& g : gpu_records()) out.push_back(hardware_json(g));
  return detail::dump_result(out, indent);
}

}  // namespace flopcast
