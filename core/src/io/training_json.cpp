// Training-step analysis as JSON: SI base units (FLOPs are counts, bytes, seconds), stable keys.
#include <cmath>

#include "base/json_out.hpp"
#include "flopcast/training/training.hpp"

namespace flopcast {
namespace {

using detail::json_out;

void write_traffic(json_out& w, std::string_view key, const phase_cost& c) {
  w.object(key, [&] {
    w.field("read_bytes", c.read_bytes)
        .field("write_bytes", c.write_bytes)
        .field("bytes", c.read_bytes + c.write_bytes)
        .field("arithmetic_intensity", c.arithmetic_intensity);
  });
}

}  // namespace

std::string training_to_json(const model_spec& model, const hardware_spec* gpu, const training_analysis& a,
                             int indent) {
  const training_settings& t = a.config;
  const settings& s = t.base;
  const step_flops& f = a.flops;
  const backward_flops_detail& b = f.backward;
  const bool perf = a.has_performance;

  json_out w(indent);
  w.begin_object().field("model", model.name);
  w.object("settings", [&] {
    w.field("batch_size", s.batch_size)
        .field("sequence_length", s.sequence_length)
        .field("precision", to_string(s.weight_precision))
        .text_or_null("gpu", gpu ? std::string_view(gpu->name) : "")
        .field("optimizer", to_string(s.optim))
        .field("fused_optimizer", t.fused_optimizer)
        .field("recompute", to_string(*t.recompute))
        .field("gradient_clipping", t.gradient_clipping)
        .field("causal", s.causal)
        .field("flash_attention", s.flash_attention)
        .field("compute_efficiency", s.compute_efficiency)
        .field("mem_efficiency", s.mem_efficiency)
        .field("mfu", *t.mfu)
        .field("gpus", t.gpus)
        .field("virtual_pipeline", t.virtual_pipeline)
        .field("context_parallel", t.context_parallel)
        .field("tokens", *t.tokens)
        .field("lora_rank", t.lora.rank)
        .text_or_null("lora_targets", t.lora.rank > 0 ? lora_targets_name(t.lora.targets) : "")
        .text_or_null("base_precision", a.lora ? to_string(a.lora->base_precision) : "");
  });
  w.object("parameters", [&] {
    w.field("total", a.parameters)
        .field("trainable", a.trainable_parameters)
        .field("frozen", a.lora ? a.parameters : 0);
  });

  const attention_backward& ab = b.attention;
  w.object("flops", [&] {
    w.field("forward", f.forward).field("forward_base", f.forward_base).field("lora_forward", f.lora_forward);
    w.object("backward", [&] {
      w.field("total", b.total).field("weight_gradient", b.weight_gradient).field("input_gradient", b.input_gradient);
      w.object("attention", [&] {
        w.field("qkv_projection", ab.qkv_projection)
            .field("output_projection", ab.output_projection)
            .field("cross_kv_projection", ab.cross_kv_projection)
            .field("dq_dk", ab.dq_dk)
            .field("dv_dp", ab.dv_dp)
            .field("softmax", ab.softmax)
            .field("rotary", ab.rotary)
            .field("total", ab.total);
      });
      w.field("mlp", b.mlp)
          .field("norm", b.norm)
          .field("embedding", b.embedding)
          .field("output_head", b.output_head)
          .field("mixer", b.mixer)
          .field("lora_adapters", b.lora_adapters)
          .field("ratio_to_forward", b.ratio_to_forward);
    });
    w.field("optimizer", f.optimizer)
        .field("gradient_clipping", f.gradient_clipping)
        .field("mixed_precision", f.mixed_precision);
    w.object("recompute", [&] {
      w.field("policy", to_string(f.recompute.policy))
          .field("layers", f.recompute.layers)
          .field("attention_core", f.recompute.attention_core)
          .field("flash_attention_kernel", f.recompute.flash_attention_kernel)
          .field("total", f.recompute.total);
    });
    w.field("total_step", f.total_step)
        .field("sum_of_parts", f.sum_of_parts)
        .field("sum_of_parts_ratio", f.sum_of_parts_ratio)
        .field("within_5_percent", std::abs(f.sum_of_parts_ratio - 1.0) <= 0.05)
        .field("model_flops", f.model_flops);
  });

  const training_memory& m = a.memory;
  w.object("memory", [&] {
    w.field("weights", m.weights)
        .field("gradients", m.gradients)
        .field("optimizer_state", m.optimizer_state)
        .field("master_weights", m.master_weights)
        .field("optimizer_moments", m.optimizer_state - m.master_weights)
        .field("activations", m.activations)
        .field("total", m.total)
        .field_if("gpu_memory", gpu != nullptr, m.gpu_memory)
        .field_if("usable_gpu_memory", gpu != nullptr, m.usable_gpu_memory)
        .field_if("fits_on_gpu", gpu != nullptr, m.fits_on_gpu)
        .field("bytes_per_trainable_parameter", m.bytes_per_trainable_parameter);
    w.object("activations_by_recompute", [&] {
      w.field("none", m.activations_none).field("selective", m.activations_selective).field("full", m.activations_full);
    });
  });

  w.object("memory_traffic", [&] {
    for (const phase_cost& c : a.phases) write_traffic(w, to_string(c.phase), c);
    write_traffic(w, "backward", a.backward_phase);
    write_traffic(w, "total", a.step);
  });

  w.array("bottleneck", [&] {
    for (const phase_cost& c : a.phases)
      w.begin_object()
          .field("phase", to_string(c.phase))
          .field_if("bound", perf, to_string(c.limit))
          .field_if("time_s", perf, c.time_s)
          .field_if("compute_s", perf, c.compute_s)
          .field_if("memory_s", perf, c.memory_s)
          .field("flops", c.flops)
          .field("bytes", c.read_bytes + c.write_bytes)
          .field("arithmetic_intensity", c.arithmetic_intensity)
          .end_object();
  });

  if (perf)
    w.object("performance", [&] {
      w.field("compute_precision", to_string(a.estimate.perf.compute_precision))
          .field("peak_flops_per_s", a.peak_flops_per_s)
          .field("memory_bandwidth_bytes_per_s", a.memory_bandwidth_bytes_per_s)
          .field("step_time_s", a.step.time_s)
          .field("step_compute_s", a.step.compute_s)
          .field("step_memory_s", a.step.memory_s)
          .field("tokens_per_second", a.tokens_per_second)
          .field("model_flops_utilization", a.model_flops_utilization)
          .field("estimate_training_step_s", a.estimate.perf.training_step_s);
    });
  else
    w.field("performance", nullptr);
  // A multi-GPU layout (config.base.parallel): the step and memory per GPU, as estimate
  // --training reports them (absent on one GPU, so the one-GPU output is unchanged).
  if (perf && !a.config.base.parallel.trivial()) {
    const parallel_result& p = a.estimate.parallel;
    w.object("parallelism", [&] {
      w.field("tensor_parallel", p.layout.tensor_parallel)
          .field("pipeline_parallel", p.layout.pipeline_parallel)
          .field("data_parallel", p.layout.data_parallel)
          .field("expert_parallel", p.layout.expert_parallel)
          .field("total_gpus", p.total_gpus)
          .field("step_time_s", a.step_time_s)
          .field("per_gpu_memory_bytes", p.memory_per_gpu)
          .field("fits_per_gpu", p.fits_per_gpu)
          .field("pp_bubble_fraction", p.pp_bubble_fraction)
          .field("dp_allreduce_s", p.dp_allreduce_s);
    });
  }

  w.array("recommendations", [&] {
    for (const recommendation& r : a.recommendations)
      w.begin_object().field("action", r.action).field("reason", r.reason).end_object();
  });

  const token_budget& tb = a.budget;
  w.object("token_budget", [&] {
    w.field("tokens", tb.tokens)
        .field("source", tb.default_tokens ? "default: 20 tokens per parameter (Chinchilla)" : "user")
        .field("tokens_per_step", tb.tokens_per_step)
        .field("steps", tb.steps)
        .field("total_flops", tb.total_flops)
        .field("model_flops", tb.model_flops)
        .field("mfu", tb.mfu)
        .field("gpus", tb.gpus)
        .field_if("time_s", tb.has_time, tb.time_s)
        .field_if("time_days", tb.has_time, tb.time_s / 86400.0)
        .field_if("gpu_hours", tb.has_time, tb.gpu_hours)
        .field_if("cost_usd", tb.has_time, tb.cost_usd)
        .field_if("roofline_time_s", tb.has_time, tb.roofline_time_s)
        .field("flops_6nd", tb.flops_6nd)
        .field("ratio_total_to_6nd", tb.ratio_total_to_6nd)
        .field("ratio_model_to_6nd", tb.ratio_model_to_6nd);
  });

  const cross_check_6nd& x = a.cross_check;
  w.object("cross_check_6nd", [&] {
    w.field("n", "parameters a token passes through, embeddings included (all for dense models, active for MoE)")
        .field("parameters", x.parameters)
        .field("tokens_per_step", x.tokens)
        .field("forward_plus_backward", x.forward_plus_backward)
        .field("flops_6nt", x.flops_6nt)
        .field("ratio", x.ratio)
        .field("within_5_percent", std::abs(x.ratio - 1.0) <= 0.05)
        .field("non_embedding_parameters", x.non_embedding_parameters)
        .field("flops_6nt_non_embedding", x.flops_6nt_non_embedding)
        .field("ratio_non_embedding", x.ratio_non_embedding);
  });

  if (a.lora) {
    const lora_analysis& l = *a.lora;
    w.object("lora", [&] {
      w.field("rank", l.rank)
          .field("targets", lora_targets_name(l.targets))
          .field("base_precision", to_string(l.base_precision))
          .field("quantized_base", l.quantized)
          .field_if("base_bits_per_quantized_weight", l.quantized, l.base_bits_per_quantized_weight)
          .field("trainable_parameters", l.trainable_parameters)
          .field("base_parameters", l.base_parameters)
          .field("all_parameters", l.all_parameters)
          .field("trainable_percent", l.trainable_percent)
          .field("adapted_matrices", l.adapted_matrices)
          .field("quantized_parameters", l.quantized_parameters)
          .field("base_weight_bytes", l.base_weight_bytes)
          .field("adapter_bytes", l.adapter_bytes)
          .field("forward_flops", f.lora_forward)
          .field("backward_flops", b.lora_adapters);
    });
  } else {
    w.field("lora", nullptr);
  }

  std::string note;
  for (const std::string& n : a.notes) note += (note.empty() ? "" : "; ") + n;
  w.field("note", note).end_object();
  return w.take();
}

}  // namespace flopcast
