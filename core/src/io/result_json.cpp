// Writes the estimate document (to_json). The other result documents: rows (fields.cpp), serving
// and simulation (serving_json.cpp), catalogs and calibration (catalog_json.cpp). Requests are read
// by request_reader.cpp.
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
#include "io/result_parts.hpp"

namespace flopcast {
namespace {

// The weight formats as words: "mxfp4 experts, bf16 rest", or "bf16" when one format holds all.
std::string formats_text(precision all, const std::array<std::optional<precision>, weight_component_count>& parts) {
  std::string out;
  for (std::size_t i = 0; i < weight_component_count; ++i)
    if (parts[i] && *parts[i] != all)
      out += (out.empty() ? "" : ", ") + std::string(to_string(*parts[i])) + " " +
             std::string(to_string(static_cast<weight_component>(i)));
  return out.empty() ? std::string(to_string(all)) : out + ", " + std::string(to_string(all)) + " rest";
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

using detail::arch_name;
using detail::json_out;
using detail::origin_name;
using detail::write_range;

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
    case mixer_kind::short_conv:
      return "short_conv";
    case mixer_kind::rwkv:
      return "rwkv";
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
          .field("conv_kernel", m.linear.conv_kernel)
          .field("decay_rank", m.linear.decay_rank)
          .field("gate_rank", m.linear.gate_rank);
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
    w.object("quantization", [&] {
      w.field("method", m.quantization.method)
          .field("note", m.quantization.note)
          .field("formats", formats_text(m.quantization.weights, m.quantization.parts));
    });
  // The checkpoint's own weight formats, the default of `precision` (bf16 without a quantization_config).
  w.field("checkpoint_formats", m.quantization.method.empty()
                                    ? std::string("bf16 (no quantization_config)")
                                    : formats_text(m.quantization.weights, m.quantization.parts));
  w.text_or_null("vision_model_type", m.vision_model_type);
}

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
      .field("speed_of_light_prefill_s", p.speed_of_light_prefill_s)
      .field_if("speed_of_light_per_token_s", decodes, p.speed_of_light_per_token_s)
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
      .field("attention_data_parallel", l.attention_data_parallel)
      .field("expert_imbalance", l.expert_imbalance)
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
          .field("fine_tuning", s.lora.rank == 0                                                  ? "full"
                                : s.lora.base_precision && is_weight_only(*s.lora.base_precision) ? "qlora"
                                                                                                  : "lora")
          .field("lora_rank", s.lora.rank)
          .field("total", mem.train_total);
    });
  else
    w.field("training", nullptr);
}

void write_settings(json_out& w, const model_spec& m, const hardware_spec* gpu, const settings& s,
                    const estimate_result& r, bool perf) {
  const bool checkpoint = !m.quantization.method.empty() && s.weight_precision == m.quantization.weights &&
                          s.component_precision == m.quantization.parts;
  w.field("batch_size", s.batch_size)
      .field("sequence_length", s.sequence_length)
      .field("num_generated_tokens", s.num_generated_tokens)
      .field("precision", to_string(s.weight_precision))
      .field("weight_formats", formats_text(s.weight_precision, s.component_precision))
      .field("weight_formats_source", checkpoint ? "checkpoint" : "request")
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
      .text_or_null("engine_basis", s.engine.empty() ? std::string() : find_engine(s.engine).basis(gpu))
      .text_or_null("engine_rule", s.engine_rule)
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
  const fit_advice fit = advise_fit(c);

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
      // Not fitting: the speeds are what it would run at if it fitted, and what it would need.
      .field_if("performance_hypothetical", perf, fit.hypothetical)
      .field_if("min_gpus_to_fit", fit.min_gpus > 0, fit.min_gpus)
      .text_or_null("fit_advice", fit.text)
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
  w.object("settings", [&] { write_settings(w, m, c.gpu, s, r, perf); });
  w.key("operators");
  if (s.operator_table)
    detail::write_operators(w, m, s, r, c.gpu, [](std::string_view name) -> const hardware_spec* {
      // The kernel curves' devices are bundled records (data/efficiency names them by name).
      for (const hardware_spec& g : gpu_records())
        if (g.name == name) return &g;
      return nullptr;
    });
  else
    w.value(nullptr);
  w.end_object();
  w.end_object();
  return w.take();
}

// ---- Pieces several documents write (io/result_parts.hpp) ----

std::string_view detail::arch_name(architecture a) {
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

const char* detail::origin_name(efficiency_origin o) {
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

void detail::write_range(json_out& w, std::string_view key, const figure_range& x) { w.pair(key, x.low, x.high); }

}  // namespace flopcast
