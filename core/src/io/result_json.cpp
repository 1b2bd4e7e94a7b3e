// Writes results as JSON (and CSV). Requests are read by request_reader.cpp.
#include "flopcast/io/result_json.hpp"

#include <cmath>

#include "base/json_out.hpp"
#include "catalog/providers_parts.hpp"
#include "estimate/estimate_parts.hpp"
#include "estimate/operators_parts.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/io/request.hpp"
#include "flopcast/model/config.hpp"
#include "flopcast/serving/engine.hpp"
#include "flopcast/serving/serving.hpp"
#include "flopcast/training/training.hpp"

namespace flopcast {
namespace {

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

using detail::json_out;

void write_parts(json_out& w, const flops_breakdown& f) {
  w.field("embedding", f.embedding)
      .field("attention", f.attention)
      .field("mlp", f.mlp)
      .field("layernorm", f.norm)
      .field("mixer", f.mixer)
      .field("output_head", f.output_head)
      .field("total", f.total);
}
void write_attention(json_out& w, const attention_detail& a) {
  w.field("qkv_projection", a.qkv_projection)
      .field("rotary", a.rotary)
      .field("attention_scores", a.attention_scores)
      .field("softmax", a.softmax)
      .field("attention_values", a.attention_values)
      .field("output_projection", a.output_projection)
      .field("cross_kv_projection", a.cross_kv_projection);
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

void write_config(json_out& w, const model_spec& m) {
  const attention_spec& a = m.attention;
  w.field("model_type", m.model_type)
      .field("architecture", arch_name(m.arch))
      .field("hidden_size", m.hidden_size)
      .field("num_layers", m.num_layers)
      .field("num_encoder_layers", m.num_encoder_layers)
      .field("vocab_size", m.vocab_size)
      .field("num_attention_heads", a.num_heads)
      .field("num_key_value_heads", a.num_kv_heads)
      .field("head_dim", a.head_dim)
      .field("v_head_dim", a.v_head_dim)
      .field("intermediate_size", m.mlp.intermediate_size)
      .field("mlp", m.mlp.gated ? "gated" : "standard")
      .field("activation", m.mlp.activation)
      .field("norm", m.norm == norm_kind::rmsnorm ? "rmsnorm" : "layernorm")
      .field("position", position_name(m.position))
      .field("parallel_attention", m.parallel_attention)
      .field("tie_word_embeddings", m.tie_word_embeddings)
      .field("max_position_embeddings", m.max_position_embeddings);
  if (a.mla)
    w.object("mla", [&] {
      w.field("q_lora_rank", a.q_lora_rank)
          .field("kv_lora_rank", a.kv_lora_rank)
          .field("qk_nope_head_dim", a.qk_nope_head_dim)
          .field("qk_rope_head_dim", a.qk_rope_head_dim)
          .field("v_head_dim", a.v_head_dim);
    });
  else
    w.field("mla", nullptr);
  if (m.moe.num_experts > 0)
    w.object("moe", [&] {
      w.field("num_experts", m.moe.num_experts)
          .field("experts_per_token", m.moe.experts_per_token)
          .field("expert_intermediate_size", m.moe.expert_intermediate_size)
          .field("shared_intermediate_size", m.moe.shared_intermediate_size);
    });
  else
    w.field("moe", nullptr);
  bool linear = false, ssm = false;
  w.array("layer_groups", [&] {
    for (const auto& g : m.groups) {
      linear = linear || g.mixer == mixer_kind::linear_attention;
      ssm = ssm || g.mixer == mixer_kind::mamba || g.mixer == mixer_kind::mamba2 || g.parallel_ssm;
      w.begin_object()
          .field("count", g.count)
          .field("stack", g.encoder ? "encoder" : "decoder")
          .field("mixer", mixer_name(g.mixer))
          .field("parallel_ssm", g.parallel_ssm)
          .field("mlp", g.mlp)
          .field("cross_attention", g.cross_attention)
          .field("moe", g.moe)
          .field_if("sliding_window", g.window > 0, g.window)
          .field_if("attention_chunk", g.chunk > 0, g.chunk)
          .field("nope", g.nope)
          .end_object();
    }
  });
  if (linear)
    w.object("linear_attention", [&] {
      w.field("num_key_heads", m.linear.num_key_heads)
          .field("num_value_heads", m.linear.num_value_heads)
          .field("key_head_dim", m.linear.key_head_dim)
          .field("value_head_dim", m.linear.value_head_dim)
          .field("conv_kernel", m.linear.conv_kernel);
    });
  else
    w.field("linear_attention", nullptr);
  if (ssm)
    w.object("ssm", [&] {
      w.field("inner", m.ssm.inner)
          .field("state_size", m.ssm.state_size)
          .field("conv_kernel", m.ssm.conv_kernel)
          .field("dt_rank", m.ssm.dt_rank)
          .field("num_heads", m.ssm.num_heads)
          .field("n_groups", m.ssm.n_groups);
    });
  else
    w.field("ssm", nullptr);
  if (a.index_heads > 0)
    w.object("sparse_attention", [&] {
      w.field("index_heads", a.index_heads).field("index_head_dim", a.index_head_dim).field("index_topk", a.index_topk);
    });
  else
    w.field("sparse_attention", nullptr);
  w.field("attention_sinks", a.sinks).field("context_length", m.context_length);
  if (m.quantization.method.empty())
    w.field("quantization", nullptr);
  else
    w.object("quantization", [&] { w.field("method", m.quantization.method).field("note", m.quantization.note); });
  w.text_or_null("vision_model_type", m.vision_model_type);
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

void write_range(json_out& w, std::string_view key, const figure_range& x) { w.pair(key, x.low, x.high); }

void write_performance(json_out& w, const settings& s, const performance& p, bool decodes) {
  w.field("compute_precision", to_string(p.compute_precision))
      .field("weight_only_path", p.weight_only_path)
      .field("dequant_flops_prefill", p.dequant_flops_prefill)
      .field("dequant_flops_step", p.dequant_flops_step)
      .field("peak_flops_per_s", p.peak_flops_per_s)
      .field("memory_bandwidth_bytes_per_s", p.memory_bandwidth_bytes_per_s)
      .field("prefill_flops", p.prefill_flops)
      .field("prefill_bytes", p.prefill_bytes)
      .field("prefill_compute_s", p.prefill_compute_s)
      .field("prefill_memory_s", p.prefill_memory_s)
      .field("prefill_latency_s", p.prefill_latency_s)
      .field("prefill_bound", to_string(p.prefill_bound))
      .field_if("decode_steps", decodes, p.decode_steps)
      .field_if("decode_first_step_s", decodes, p.decode_first_step_s)
      .field_if("decode_first_step_flops", decodes, p.decode_first_step_flops)
      .field_if("decode_first_step_bytes", decodes, p.decode_first_step_bytes)
      .field_if("decode_bound", decodes, to_string(p.decode_bound))
      .field_if("decode_total_s", decodes, p.decode_total_s)
      .field_if("decode_latency_per_token_s", decodes, p.decode_latency_per_token_s)
      .field_if("decode_tokens_per_second", decodes, p.decode_tokens_per_second)
      .field_if("decode_ceiling_tokens_per_second", decodes, p.decode_ceiling_tokens_per_second)
      .field("total_request_latency_s", p.total_request_latency_s)
      .field_if("training_step_s", s.training, p.training_step_s)
      .field("energy_prefill_joules", p.energy_prefill_joules)
      .field("energy_total_joules", p.energy_total_joules)
      .field("energy_total_wh", p.energy_total_joules / 3600.0)
      .field("energy_total_kwh", p.energy_total_joules / 3.6e6)
      .field("co2_grams", p.co2_grams)
      .field("cost_per_hour_usd", p.cost_per_hour_usd)
      .field("gpus", p.gpus)
      .field("cost_usd", p.cost_usd)
      .field("latency_is_estimate", true);
  w.object("ranges", [&] {
    write_range(w, "prefill_latency_s", p.prefill_latency_range);
    if (decodes) {
      write_range(w, "decode_latency_per_token_s", p.decode_latency_range);
      write_range(w, "decode_tokens_per_second", p.decode_tokens_per_second_range);
    } else {
      w.field("decode_latency_per_token_s", nullptr).field("decode_tokens_per_second", nullptr);
    }
    write_range(w, "total_request_latency_s", p.total_request_latency_range);
    if (s.training)
      write_range(w, "training_step_s", p.training_step_range);
    else
      w.field("training_step_s", nullptr);
    write_range(w, "energy_total_joules", p.energy_total_range);
    write_range(w, "cost_usd", p.cost_range);
    w.pair("compute_efficiency", p.compute_efficiency_low, p.compute_efficiency_high);
    w.pair("mem_efficiency", p.mem_efficiency_low, p.mem_efficiency_high);
    w.field("source", p.range_source);
  });
}

void write_parallelism(json_out& w, const settings& s, const parallel_result& q, bool decodes) {
  const parallel_layout& l = q.layout;
  w.field("tensor_parallel", l.tensor_parallel)
      .field("pipeline_parallel", l.pipeline_parallel)
      .field("data_parallel", l.data_parallel)
      .field("expert_parallel", l.expert_parallel)
      .field("sequence_parallel", l.sequence_parallel)
      .field("num_microbatches", l.num_microbatches)
      .field("total_gpus", q.total_gpus)
      .field("interconnect_bandwidth_bytes_per_s", q.interconnect_bandwidth_bytes_per_s)
      .field("link_latency_s", l.link_latency_s)
      .field("batch_per_replica", q.batch_per_replica)
      .field("layers_per_stage", q.layers_per_stage)
      .field("per_gpu_weights", q.weights_per_gpu)
      .field("per_gpu_kv_cache", q.kv_cache_per_gpu)
      .field("per_gpu_activations", q.activations_per_gpu)
      .field_if("per_gpu_training_state", s.training, q.training_state_per_gpu)
      .field("per_gpu_memory_bytes", q.memory_per_gpu)
      .field("fits_per_gpu", q.fits_per_gpu)
      .field("tp_allreduce_bytes", q.tp_allreduce_bytes)
      .field("tp_comm_s", q.tp_allreduce_s)
      .field_if("tp_comm_decode_step_s", decodes, q.tp_allreduce_decode_step_s)
      .field("pp_send_s", q.pp_send_s)
      .field_if("pp_send_decode_step_s", decodes, q.pp_send_decode_step_s)
      .field_if("pp_bubble_fraction", s.training, q.pp_bubble_fraction)
      .field("ep_alltoall_s", q.ep_alltoall_s)
      .field_if("ep_alltoall_decode_step_s", decodes, q.ep_alltoall_decode_step_s)
      .field_if("dp_allreduce_s", s.training, q.dp_allreduce_s)
      .field("prefill_latency_s", q.prefill_latency_s)
      .field_if("decode_latency_per_token_s", decodes, q.decode_latency_per_token_s)
      .field_if("decode_tokens_per_second", decodes, q.decode_tokens_per_second)
      .field("total_request_latency_s", q.total_request_latency_s)
      .field_if("training_step_s", s.training, q.training_step_s);
}

void write_memory(json_out& w, const settings& s, const estimate_result& r, bool perf) {
  const memory_breakdown& mem = r.memory;
  w.field("weights", mem.weights);
  w.object("weights_by_part", [&] {
    for (std::size_t i = 0; i < weight_component_count; ++i)
      w.field(to_string(static_cast<weight_component>(i)), mem.weights_by_component[i]);
  });
  w.object("weights_precision_by_part", [&] {
    for (std::size_t i = 0; i < weight_component_count; ++i) {
      const auto c = static_cast<weight_component>(i);
      w.field(to_string(c), to_string(detail::component_precision(s, c)));
    }
  });
  w.field("weights_bits_per_weight", mem.weights_bits_per_weight)
      .field("weights_source", mem.weights_source)
      .field("kv_cache", mem.kv_cache)
      .field("kv_cache_prompt", mem.kv_cache_prompt)
      .field("kv_cache_per_token", mem.kv_cache_per_token)
      .field("recurrent_state", mem.recurrent_state)
      .field("kv_cache_precision", to_string(r.kv_precision))
      .field("activations", mem.activations)
      .field("activations_is_estimate", true)
      .field("total", s.training ? mem.train_total : mem.total)
      .field("inference_total", mem.total)
      .field_if("gpu_memory", perf, mem.gpu_memory)
      .field_if("usable_gpu_memory", perf, mem.usable_gpu_memory)
      .field_if("fits_on_gpu", perf, mem.fits_on_gpu);
  if (s.training)
    w.object("training", [&] {
      w.field("weights", mem.train_weights)
          .field("gradients", mem.train_gradients)
          .field("optimizer_state", mem.train_optimizer_state)
          .field("master_weights", mem.train_master_weights)
          .field("optimizer_moments", mem.train_optimizer_state - mem.train_master_weights)
          .field("activations", mem.train_activations)
          .field("activations_is_estimate", true)
          .field("gradient_checkpointing", s.gradient_checkpointing)
          .field("total", mem.train_total);
    });
  else
    w.field("training", nullptr);
}

void write_settings(json_out& w, const settings& s, const estimate_result& r, bool perf) {
  w.field("batch_size", s.batch_size)
      .field("sequence_length", s.sequence_length)
      .field("num_generated_tokens", s.num_generated_tokens)
      .field("precision", to_string(s.weight_precision))
      .field("training", s.training)
      .field("optimizer", to_string(s.optim))
      .field("gradient_checkpointing", s.gradient_checkpointing)
      .field("causal", s.causal)
      .field("flash_attention", s.flash_attention)
      .field("compute_efficiency", s.compute_efficiency)
      .field("mem_efficiency", s.mem_efficiency)
      .field("power_utilization", s.power_utilization)
      .field("carbon_intensity", s.carbon_intensity_g_per_kwh)
      .field("kv_cache_precision", to_string(r.kv_precision))
      .text_or_null("engine", s.engine)  // whose fit the figures use
      .field("compute_efficiency_origin", origin_name(s.compute_efficiency_origin))
      .field("mem_efficiency_origin", origin_name(s.mem_efficiency_origin))
      .text_or_null("calibration_source", s.calibration_source)
      .text_or_null("calibration_store", s.calibration_store);
  if (perf)
    w.field("cost_per_hour", r.perf.cost_per_hour_usd);
  else
    w.field("cost_per_hour", s.cost_per_hour_usd);
  w.field("weight_bytes", s.weight_bytes)
      .text_or_null("weight_bytes_source", s.weight_bytes ? std::string_view(s.weight_bytes_source) : "");
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

  json_out w(indent);
  w.begin_object()
      .field("parameters", r.parameters.total)
      .field("active_parameters", r.parameters.active)
      .field("forward_flops", f.total)
      .field("backward_flops", r.backward_flops)
      .field("attention_flops", f.attention)
      .field("mlp_flops", f.mlp)
      .field("embedding_flops", f.embedding)
      .field("layernorm_flops", f.norm)
      .field("output_head_flops", f.output_head)
      // The configuration asked for: with a layout, memory per GPU, the fit, latency, energy and
      // cost are the layout's (memory is the whole model's, all GPUs together).
      .field("memory", s.training ? r.memory.train_total : r.memory.total)
      .field_if("memory_per_gpu", perf, r.parallel.memory_per_gpu)
      .field_if("gpus", perf, r.parallel.total_gpus)
      .field_if("fits", perf, r.memory.fits_on_gpu)
      .field("kv_cache", r.memory.kv_cache)
      .field_if("latency", perf, s.training ? p.training_step_s : p.prefill_latency_s)
      .field_if("energy", perf, s.training ? p.energy_total_joules : p.energy_prefill_joules)
      .field("model", m.name)
      .field("precision", to_string(s.weight_precision))
      .text_or_null("gpu", c.gpu ? std::string_view(c.gpu->name) : "")
      .field("batch_size", s.batch_size)
      .field("sequence_length", s.sequence_length);
  w.array("note", [&] {
    for (std::uint32_t bit = 1; bit != 0 && bit <= r.notes; bit <<= 1)
      if (r.notes & bit) w.value(note_text(static_cast<note>(bit)));
  });

  // Before "details", the last key (the WASM wrapper parses the head apart from the details).
  if (c.provider) w.object("provider", [&] { detail::write_provider_entry(w, *c.provider); });
  w.key("details").begin_object();
  w.object("config", [&] { write_config(w, m); });
  w.object("parameters", [&] {
    w.field("total", r.parameters.total)
        .field("active", r.parameters.active)
        .field("embedding", r.parameters.embedding)
        .field("attention", r.parameters.attention)
        .field("mlp", r.parameters.mlp)
        .field("norm", r.parameters.norm)
        .field("mixer", r.parameters.mixer)
        .field("vision", r.parameters.vision)
        .field("output_head", r.parameters.output_head);
  });
  w.object("flops", [&] {
    w.object("forward", [&] { write_parts(w, f); });
    w.object("forward_attention_detail", [&] { write_attention(w, r.forward.attention); });
    w.field("backward_total", r.backward_flops);
    w.object("prefill", [&] { write_parts(w, r.prefill.parts); });
    w.object("prefill_attention_detail", [&] { write_attention(w, r.prefill.attention); });
    if (m.arch != architecture::encoder)
      w.object("decode_step", [&] {
        write_parts(w, r.decode_step.parts);
        w.field("context_tokens", m.arch == architecture::encoder_decoder ? 1 : s.sequence_length);
      });
    else
      w.field("decode_step", nullptr);
    if (s.layer_table)
      w.array("layers", [&] {
        for (std::size_t i = 0; i < m.layer_group_of.size(); ++i) {
          const std::size_t g = m.layer_group_of[i];
          const layer_flops& lf = r.forward.per_layer[g];
          w.begin_object()
              .field("layer", i)
              .field("stack", m.groups[g].encoder ? "encoder" : "decoder")
              .field("parameters", r.parameters.per_layer[g])
              .field("attention", lf.attention)
              .field("mlp", lf.mlp)
              .field("layernorm", lf.norm)
              .field("mixer", lf.mixer)
              .field("total", lf.total())
              .end_object();
        }
      });
    else
      w.field("layers", nullptr);
  });
  w.object("memory", [&] { write_memory(w, s, r, perf); });
  if (perf) {
    w.object("performance", [&] { write_performance(w, s, p, decodes); });
    w.object("parallelism", [&] { write_parallelism(w, s, r.parallel, decodes); });
  } else {
    w.field("performance", nullptr).field("parallelism", nullptr);
  }
  w.object("settings", [&] { write_settings(w, s, r, perf); });
  w.key("operators");
  if (s.operator_table)
    detail::write_operators(w, m, s, r);
  else
    w.value(nullptr);
  w.end_object();
  w.end_object();
  return w.take();
}

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

std::string serving_to_json(const model_spec& m, const serving_settings& s, const hardware_spec& gpu,
                            const serving_result& r, int indent) {
  const bool ok = r.concurrency > 0;  // figures exist (at max_concurrent_batch when capped)
  const auto kv_precision = [&] {
    return s.base.kv_cache_precision ? std::string_view(to_string(*s.base.kv_cache_precision)) : std::string_view();
  };
  json_out w(indent);
  w.begin_object()
      .field("model", m.name)
      .field("gpu", gpu.name)
      .field("precision", to_string(s.base.weight_precision))
      .field("gpus", r.gpus)
      .field("prompt_tokens", s.prompt_tokens)
      .field("output_tokens", s.output_tokens)
      .field("fits", r.fits)
      .field("kv_budget_bytes", r.kv_budget_bytes)
      .field("kv_bytes_per_sequence", r.kv_bytes_per_sequence)
      .field("activation_bytes_per_sequence", r.activation_bytes_per_sequence)
      .field("max_concurrent_batch", r.max_concurrency)
      .field("concurrency", r.concurrency)
      .field("concurrency_capped", r.concurrency_capped)
      .field_if("prefill_s", ok, r.prefill_s)
      .field_if("decode_step_s", ok, r.decode_step_s)
      .field_if("decode_bound", ok, to_string(r.decode_bound))
      .field_if("cycle_s", ok, r.cycle_s)
      .field_if("tokens_per_second", ok, r.output_tokens_per_second)
      .field_if("total_tokens_per_second", ok, r.total_tokens_per_second)
      .field_if("requests_per_second", ok, r.requests_per_second)
      .field_if("ttft_s", ok, r.ttft_s)
      .field_if("tpot_s", ok, r.tpot_s)
      .field_if("cost_per_1m_tokens_usd", ok, r.cost_per_1m_output_tokens_usd);
  if (ok)
    w.object("ranges", [&] {
      write_range(w, "tokens_per_second", r.output_tokens_per_second_range);
      write_range(w, "ttft_s", r.ttft_range);
      write_range(w, "tpot_s", r.tpot_range);
      w.field("source", r.range_source);
    });
  else
    w.field("ranges", nullptr);
  if (r.speculative)
    w.object("speculative", [&] {
      w.text_or_null("draft_model", s.draft ? std::string_view(s.draft->name) : "")
          .field("speculative_tokens", s.speculative_tokens)
          .field("acceptance_rate", s.acceptance_rate)
          .field("expected_tokens_per_step", r.expected_tokens_per_step)
          .field("draft_step_s", r.draft_step_s)
          .field("verify_step_s", r.verify_step_s)
          .field("tpot_s", r.speculative_tpot_s)
          .field("tokens_per_second", r.speculative_output_tokens_per_second)
          .field("speedup", r.speedup);
    });
  else
    w.field("speculative", nullptr);
  w.object("settings", [&] {
    w.field("gpu_memory_utilization", s.base.gpu_memory_utilization.value_or(0.9))
        .field("paged", s.paged)
        .field("block_size", s.block_size)
        .field("chunked_prefill_tokens", s.chunked_prefill_tokens)
        .field("compute_efficiency", s.base.compute_efficiency)
        .field("mem_efficiency", s.base.mem_efficiency)
        .field("compute_efficiency_origin", origin_name(s.base.compute_efficiency_origin))
        .field("mem_efficiency_origin", origin_name(s.base.mem_efficiency_origin))
        .field("tensor_parallel", s.base.parallel.tensor_parallel)
        .field("pipeline_parallel", s.base.parallel.pipeline_parallel)
        .field("data_parallel", s.base.parallel.data_parallel)
        .field("expert_parallel", s.base.parallel.expert_parallel)
        .text_or_null("kv_cache_precision", kv_precision());
  });
  w.end_object();
  return w.take();
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

  json_out w(indent);
  const auto dist = [&](std::string_view key, const distribution& x) {
    w.object(key, [&] { w.field("mean", x.mean).field("p50", x.p50).field("p90", x.p90).field("p99", x.p99); });
  };
  const auto time_range = [&](std::string_view key, double v, const residual_band& band) {
    if (has(band))
      w.pair(key, v * band.low, v * band.high);
    else
      w.field(key, nullptr);
  };
  // A rate's band is a time ratio: the rate's range is [rate / high, rate / low].
  const auto rate_range = [&](std::string_view key, double v) {
    if (has(eb.throughput))
      w.pair(key, v / eb.throughput.high, v / eb.throughput.low);
    else
      w.field(key, nullptr);
  };
  const auto lengths = [&](std::string_view key, const length_range& l) {
    w.key(key).begin_array().value(l.min).value(l.max).end_array();
  };
  const bool trace = s.arrivals == arrival_kind::trace;
  w.begin_object()
      .field("label", "ESTIMATED")
      .field("method", method)
      .field("model", q.model->name)
      .field("gpu", q.gpu->name)
      .field("precision", to_string(b.weight_precision))
      .field("gpus", b.parallel.tensor_parallel)
      .text_or_null("engine", e != nullptr ? std::string_view(e->id) : "")
      .field("engine_fitted", fit != nullptr)
      .field("engine_fit_rows", fit != nullptr ? fit->rows : 0);
  w.object("workload", [&] {
    w.field("arrivals", arrival_name(s.arrivals))
        .field("num_requests", trace ? static_cast<std::int64_t>(s.trace.size()) : s.num_requests);
    if (trace)
      w.field("input_tokens", nullptr).field("output_tokens", nullptr);
    else {
      lengths("input_tokens", s.input_tokens);
      lengths("output_tokens", s.output_tokens);
    }
    w.field("seed", s.seed)
        .field("warmup_requests", s.warmup_requests)
        .field("slo_ttft_s", s.slo_ttft_s)
        .field("slo_tpot_s", s.slo_tpot_s);
  });
  w.object("scheduler", [&] {
    w.field("max_num_seqs", s.max_num_seqs)
        .field("max_num_batched_tokens", s.max_num_batched_tokens)
        .field("chunked_prefill", s.chunked_prefill)
        .field("policy", policy_name(s.policy))
        .field("block_size", s.block_size);
    if (points.empty())
      w.field("kv_blocks", s.kv_blocks.value_or(0));
    else
      w.field("kv_blocks", points.front().kv_blocks);
    w.field("kv_blocks_given", s.kv_blocks.has_value())
        .field("gpu_memory_utilization", b.gpu_memory_utilization.value_or(0.9))
        .field("source", q.scheduler_source);
  });
  w.object("settings", [&] {
    w.field("compute_efficiency", b.compute_efficiency)
        .field("mem_efficiency", b.mem_efficiency)
        .field("compute_efficiency_origin", origin_name(b.compute_efficiency_origin))
        .field("mem_efficiency_origin", origin_name(b.mem_efficiency_origin))
        .field("tensor_parallel", b.parallel.tensor_parallel)
        .text_or_null("kv_cache_precision",
                      b.kv_cache_precision ? std::string_view(to_string(*b.kv_cache_precision)) : "");
  });
  w.field("ranges_source", ranges_source);
  w.array("points", [&] {
    for (std::size_t i = 0; i < points.size() && i < q.points.size(); ++i) {
      const simulation_result& r = points[i];
      const simulation_point& p = q.points[i];
      w.begin_object().field("concurrency", p.concurrency).field("request_rate", p.request_rate);
      w.field("requests", r.requests).field("measured_requests", r.measured_requests);
      dist("ttft_s", r.ttft);
      time_range("ttft_s_range", r.ttft.mean, eb.ttft_load);
      dist("tpot_s", r.tpot);
      time_range("tpot_s_range", r.tpot.mean, eb.decode);
      dist("itl_s", r.itl);
      time_range("itl_s_range", r.itl.mean, eb.decode);
      dist("e2e_s", r.e2e);
      w.field("output_tokens_per_s", r.output_tokens_per_s);
      rate_range("output_tokens_per_s_range", r.output_tokens_per_s);
      w.field("total_tokens_per_s", r.total_tokens_per_s);
      rate_range("total_tokens_per_s_range", r.total_tokens_per_s);
      w.field("requests_per_s", r.requests_per_s);
      rate_range("requests_per_s_range", r.requests_per_s);
      w.field("goodput_requests_per_s", r.goodput_requests_per_s)
          .field("goodput_requests", r.goodput_requests)
          .field("goodput_share", r.measured_requests > 0 ? static_cast<double>(r.goodput_requests) /
                                                                static_cast<double>(r.measured_requests)
                                                          : 0.0)
          .field("mean_kv_utilization", r.mean_kv_utilization)
          .field("peak_kv_utilization", r.peak_kv_utilization)
          .field("mean_running", r.mean_running)
          .field("mean_in_system", r.mean_in_system)
          .field("preemptions", r.preemptions)
          .field("steps", r.steps)
          .field("makespan_s", r.makespan_s)
          .field("window_s", r.window_s);
      w.array("timeline", [&] {
        for (const time_point& t : r.timeline)
          w.begin_object()
              .field("t_s", t.t_s)
              .field("running", t.running)
              .field("waiting", t.waiting)
              .field("kv_utilization", t.kv_utilization)
              .end_object();
      });
      w.end_object();
    }
  });
  w.end_object();
  return w.take();
}

std::string calibration_to_json(const std::vector<calibration_entry>& entries, int indent) {
  json_out w(indent);
  w.begin_object().field("version", 1);
  w.array("entries", [&] {
    for (const auto& e : entries)
      w.begin_object()
          .field("model", e.model)
          .field("gpu", e.gpu)
          .field("precision", e.precision)
          .field("compute_efficiency", e.compute_efficiency)
          .field("mem_efficiency", e.mem_efficiency)
          .field("source", e.source)
          .end_object();
  });
  w.end_object();
  return w.take();
}

std::string models_to_json(int indent) { return models_to_json(model_filter{}, indent); }

std::string models_to_json(const model_filter& filter, int indent) {
  json_out w(indent);
  w.begin_array();
  for (const auto& r : model_records()) {
    if (!filter.matches(r)) continue;
    const parameter_breakdown p = count_parameters(r.spec);
    w.begin_object().field("id", r.id);
    w.strings("aliases", r.aliases);
    w.field("family", r.family)
        .field("model_type", r.spec.model_type)
        .field("architecture", arch_name(r.spec.arch))
        .field("parameters", p.total)
        .field("active_parameters", p.active)
        .field_if("published_parameters", r.published_parameters > 0, r.published_parameters)
        .field("published_significant_digits", r.published_significant_digits)
        .field("source", r.source)
        .end_object();
  }
  w.end_array();
  return w.take();
}

namespace {
void write_hardware(json_out& w, const hardware_spec& g) {
  w.begin_object().field("name", g.name);
  w.strings("aliases", g.aliases);
  w.field("vendor", g.vendor)
      .field("kind", to_string(g.kind))
      .field("memory_bytes", g.memory_bytes)
      .field("usable_memory_fraction", g.usable_memory_fraction)
      .field("memory_bandwidth_bytes_per_s", g.memory_bandwidth_bytes_per_s);
  w.object("peak_flops", [&] {
    for (precision p : all_precisions)
      if (g.peak(p)) w.field(to_string(p), *g.peak(p));
    if (g.peak_fp6) w.field("fp6", *g.peak_fp6);
    if (g.peak_fp4) w.field("fp4", *g.peak_fp4);
    if (g.peak_fp16_acc16) w.field("fp16_acc16", *g.peak_fp16_acc16);
  });
  w.field("tdp_watts", g.tdp_watts);
  w.object("interconnect", [&] {
    w.field("name", g.interconnect_name).field("bandwidth_bytes_per_s", g.interconnect_bandwidth_bytes_per_s);
    if (!g.interconnect_generation.empty()) w.field("generation", g.interconnect_generation);
    if (g.interconnect_domain_size > 0) w.field("domain_size", g.interconnect_domain_size);
  });
  w.field("cost_per_hour_usd", g.cost_per_hour_usd).end_object();
}

void write_bands(json_out& w, const engine_bands& b) {
  const auto one = [&](std::string_view key, const residual_band& r) {
    w.object(key, [&] { w.field("low", r.low).field("high", r.high).field("rows", r.rows); });
  };
  one("prefill", b.prefill);
  one("decode", b.decode);
  one("throughput", b.throughput);
  one("ttft_load", b.ttft_load);
}
}  // namespace

std::string hardware_to_json(const hardware_spec& g, int indent) {
  json_out w(indent);
  write_hardware(w, g);
  return w.take();
}

std::string engines_to_json(int indent) {
  json_out w(indent);
  w.begin_array();
  for (const engine_profile& e : engine_records()) {
    std::int64_t rows = 0;
    for (const engine_family_fit& f : e.families)
      if (f.family == "all") rows = f.rows;
    w.begin_object().field("id", e.id).field("name", e.name);
    w.strings("aliases", e.aliases);
    w.field("version", e.version)
        .field("batching", to_string(e.batching))
        .field("simulated", e.batching == engine_batching::continuous)
        .field("fitted", e.efficiency_fitted)
        .field("fit_rows", rows);
    w.strings("fitted_to", e.fitted_to).strings("held_out", e.held_out);
    w.object("costs", [&] {
      w.field("per_step_s", e.costs.per_step_s)
          .field("per_layer_s", e.costs.per_layer_s)
          .field("gemm_half_tokens", e.costs.gemm_half_tokens)
          .field("kv_read_efficiency", e.costs.kv_read_efficiency);
    });
    w.object("families", [&] {
      for (const engine_family_fit& f : e.families)
        w.object(f.family, [&] {
          w.field("compute_efficiency", f.compute_efficiency)
              .field("mem_efficiency", f.mem_efficiency)
              .field("rows", f.rows);
        });
    });
    w.object("bands", [&] { write_bands(w, e.bands); });
    w.end_object();
  }
  w.end_array();
  return w.take();
}

std::string gpus_to_json(int indent) {
  json_out w(indent);
  w.begin_array();
  for (const auto& g : gpu_records()) write_hardware(w, g);
  w.end_array();
  return w.take();
}

}  // namespace flopcast
