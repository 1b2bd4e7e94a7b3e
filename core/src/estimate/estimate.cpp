// The estimator's orchestration: validation, then FLOPs (flops.cpp), memory (memory.cpp),
// the training step (training_*.cpp, with settings.training) and the roofline
// (roofline.cpp), then the multi-GPU view (parallel.cpp). Every formula lives in one of
// those files, once.
#include "flopcast/estimate/estimate.hpp"

#include <memory>
#include <string>

#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "training/training_parts.hpp"

namespace flopcast {

const char* note_text(note n) noexcept {
  switch (n) {
    case note_compute_fallback:
      return "the GPU has no native unit for this precision: the peak of the nearest slower format it has is used";
    case note_mla_absorbed_decode:
      return "MLA: prefill uses the expanded K/V form, decode the weight-absorbed form over the cached latent";
    case note_encoder_no_decode:
      return "encoder-only model: no generation; latency is one forward pass";
    case note_causal_ignored_encoder:
      return "encoder attention is bidirectional: --causal applies to decoder layers only";
    case note_sliding_window:
      return "sliding-window layers cap their KV cache at the window";
    case note_moe_expected_experts:
      return "MoE weight traffic assumes uniform routing: expected distinct experts touched per layer";
    case note_calibrated:
      return "efficiencies calibrated to a measurement (flopcast calibrate): ranges are +-10%";
    case note_kv_replicated:
      return "more tensor-parallel ranks than KV heads: each rank keeps a replicated KV head";
    case note_recurrent_state:
      return "linear-attention and state-space layers keep a constant per-sequence state (in the KV cache figure, "
             "at the cache precision) instead of a growing cache; their FLOPs are the recurrent form's";
    case note_chunked_attention:
      return "chunked local attention: prefill pairs are exact per chunk, decode is costed as a window of the chunk "
             "size (an upper bound) and caches at most one chunk";
    case note_sparse_attention:
      return "DeepSeek sparse attention: the indexer scores every cached token, attention reads the top-k; the "
             "top-k selection itself is not counted";
    case note_vision_not_counted:
      return "the vision tower's type is not one flopcast counts: parameters and memory are the language model's";
    case note_exact_weight_bytes:
      return "weights: the checkpoint's exact bytes (weight_bytes), not parameters x bytes per weight; weight traffic "
             "uses their mean bytes per parameter";
    case note_weight_only_path:
      return "weight-only format: weights are dequantised to 16-bit and the matmuls run at the 16-bit peak "
             "(dequantisation: 2 FLOPs per weight read, at the fp32 rate)";
    case note_native_low_precision:
      return "matmuls run in the format's own units (the device's FP8/FP6/FP4 peak)";
    case note_fp16_accumulate:
      return "llama.cpp path: fp16 matmuls with fp16 accumulation, at the device's fp16-accumulate rate";
    case note_preset_planned:
      return "llama.cpp preset: every tensor's GGML type by llama-quant.cpp's rules (norms and routers F32), bytes "
             "exact for the file's tensor data; a vision tower as its f16 mmproj file";
    case note_preset_approximated:
      return "llama.cpp preset not planned for this architecture: costed at its base type's bits (the preset's "
             "promotions to larger types are missing: an underestimate)";
    case note_context_exceeded:
      return "WARNING: the request (prompt + generated tokens) is longer than the model's context "
             "(max_position_embeddings, or its rope_scaling extension): quality is not expected to hold";
    case note_beyond_domain:
      return "the tensor/expert-parallel group is larger than the device's NVLink/ICI domain: its collectives run "
             "at the scale-out rate (a 400 Gb/s NIC per GPU, 50 GB/s per direction)";
    case note_speed_of_light:
      return "a figure was held at the speed of light (every FLOP at the peak, every byte at the bandwidth): the "
             "engine's correction would have been faster than the device can run";
    case note_none:
      break;
  }
  return "";
}

namespace {}  // namespace

void validate(const settings& s) {
  detail::check_settings(s);  // every field's bounds and message, from the request table
  if (s.kv_cache_precision && !format_of(*s.kv_cache_precision).kv) {
    std::string kv;
    for (const format_info& f : formats())
      if (f.kv) kv += (kv.empty() ? "" : ", ") + std::string(f.name);
    throw error(
        error_code::invalid_argument, "/kv_cache_precision",
        "a KV cache cannot be stored in " + std::string(to_string(*s.kv_cache_precision)) + ": expected one of " + kv);
  }
  const auto check_cost = [](double v, const char* name, double most) {
    if (!std::isfinite(v) || v < 0 || v > most)
      throw error(
          error_code::invalid_argument, std::string("/costs/") + name,
          "expected a step cost in [0, " + detail::format_number(most) + "], but got " + detail::format_number(v));
  };
  check_cost(s.costs.per_step_s, "per_step_s", 3600);
  check_cost(s.costs.per_sequence_s, "per_sequence_s", 3600);
  check_cost(s.costs.per_layer_s, "per_layer_s", 3600);
  check_cost(s.costs.per_kernel_launch_s, "per_kernel_launch_s", 3600);
  check_cost(s.costs.launches_per_layer, "launches_per_layer", 1e6);
  check_cost(s.costs.gemm_half_tokens, "gemm_half_tokens", 1e9);
  if (!(s.costs.kv_read_efficiency >= 0.01 && s.costs.kv_read_efficiency <= 1))
    throw error(error_code::invalid_argument, "/costs/kv_read_efficiency",
                "expected a fraction in [0.01, 1], but got " + detail::format_number(s.costs.kv_read_efficiency));
  if (s.training && !detail::trainable_in(s.weight_precision))
    throw error(error_code::invalid_argument, "/precision",
                "training in " + std::string(to_string(s.weight_precision)) +
                    " is not modelled: expected fp32, tf32, fp16, bf16, fp8, mxfp8, fp8_block or nvfp4 for training "
                    "(weight-only formats train as QLoRA: --lora-rank with --base-precision)");
}

namespace detail {

estimate_result estimate_with(const model_spec& m, const settings& s, const hardware_spec* gpu,
                              const training_settings* t, training_core* core) {
  return estimate_with(m, s, gpu, t, core, nullptr);
}

estimate_result estimate_with(const model_spec& m, const settings& s, const hardware_spec* gpu,
                              const training_settings* t, training_core* core, estimate_reuse* reuse) {
  if (reuse == nullptr || !reuse->validated) validate(s);
  // Attention DP and routing imbalance need expert parallelism: checked on one GPU too.
  if (!s.parallel.trivial() || s.parallel.attention_data_parallel != 1 || s.parallel.expert_imbalance != 1.0)
    validate_layout(m, s);
  estimate_result r;
  const bool encdec = m.arch == architecture::encoder_decoder;
  const bool encoder_only = m.arch == architecture::encoder;
  const double B = d(s.batch_size), S = d(s.sequence_length);

  // FLOPs.
  if (reuse != nullptr && reuse->model != &m) {
    reuse->model = &m;
    reuse->parameters = count_parameters(m);
    reuse->has_weights = false;
  }
  r.parameters = reuse != nullptr ? reuse->parameters : count_parameters(m);
  run_pass(m, pass_kind::forward, B, S, 0, s.causal, r.forward);  // into the result's zero passes
  r.backward_flops = 2 * r.forward.parts.total;
  if (encoder_only)
    r.prefill = r.forward;
  else
    run_pass(m, pass_kind::prefill, B, S, 0, s.causal, r.prefill);
  const double c0 = encdec ? 1.0 : S;  // decode context: tokens already cached when the step runs
  if (!encoder_only) run_pass(m, pass_kind::decode, B, S, c0, s.causal, r.decode_step);

  for (const auto& g : m.groups) {
    if (g.window > 0) r.notes |= note_sliding_window;
    if (g.chunk > 0) r.notes |= note_chunked_attention;
    if (!has_attention(g) && g.mixer != mixer_kind::none) r.notes |= note_recurrent_state;
    if (g.parallel_ssm) r.notes |= note_recurrent_state;
  }
  if (m.attention.index_heads > 0) r.notes |= note_sparse_attention;
  if (m.context_length > 0 && m.arch == architecture::decoder &&
      s.sequence_length + s.num_generated_tokens > m.context_length)
    r.notes |= note_context_exceeded;
  if (!m.vision_model_type.empty() && m.vision_parameters == 0) r.notes |= note_vision_not_counted;
  if (encoder_only) {
    r.notes |= note_encoder_no_decode;
    if (s.causal) r.notes |= note_causal_ignored_encoder;
  }
  if (m.attention.mla && !encoder_only) r.notes |= note_mla_absorbed_decode;
  if (s.weight_bytes) r.notes |= note_exact_weight_bytes;

  // Memory.
  const precision wp = s.weight_precision;
  r.kv_precision = s.kv_cache_precision.value_or(default_kv_precision(wp));
  if (reuse == nullptr) {
    fill_weights(m, s, r);
  } else {
    if (!reuse->has_weights || reuse->weight_precision != wp || reuse->component_precision != s.component_precision ||
        reuse->weight_bytes != s.weight_bytes) {
      estimate_result w;  // fill_weights() alone: the memory and the notes it sets
      w.parameters = r.parameters;
      fill_weights(m, s, w);
      reuse->has_weights = true;
      reuse->weight_precision = wp;
      reuse->component_precision = s.component_precision;
      reuse->weight_bytes = s.weight_bytes;
      reuse->weights = w.memory;
      reuse->weights_notes = w.notes;
      reuse->traffic = weight_traffic_of(m, w);
    }
    r.memory = reuse->weights;
    r.notes |= reuse->weights_notes;
  }
  fill_inference_memory(m, s, r);

  // The training step: memory and phases of the one step model analyze_training() reports.
  // (Built only when training, on the heap: each holds a copy of the settings, and an empty
  // std::optional of them is cleared whole by GCC.)
  std::unique_ptr<training_settings> resolved;
  std::unique_ptr<training_core> trained;
  if (s.training) {
    resolved = std::make_unique<training_settings>(resolve_training(s, t));
    if (t == nullptr && (s.lora.rank > 0 || s.lora.base_precision)) validate(*resolved);  // the adapters
    trained = std::make_unique<training_core>(training_step(m, *resolved, r));
    const training_core& step = *trained;
    memory_breakdown& mem = r.memory;
    mem.train_weights = step.memory.weights;
    mem.train_gradients = step.memory.gradients;
    mem.train_optimizer_state = step.memory.optimizer_state;
    mem.train_master_weights = step.memory.master_weights;
    mem.train_activations = step.memory.activations;
    mem.train_activations_replicated_fraction = step.acts.replicated_fraction;
    mem.train_total = mem.train_weights + mem.train_gradients + mem.train_optimizer_state + mem.train_activations;
  }

  if (gpu != nullptr) {
    const bool row_only = reuse != nullptr && reuse->row_only;
    fill_roofline(m, s, *gpu, trained.get(), r, !row_only, reuse != nullptr ? &reuse->traffic : nullptr);
    if (!row_only || !s.parallel.trivial()) r.parallel = parallel_view(m, s, *gpu, r, resolved.get());
    if (!s.parallel.trivial()) apply_layout(s, *gpu, r);  // the headline is the configuration asked for
  }
  if (core != nullptr && trained) *core = std::move(*trained);
  return r;
}

}  // namespace detail

estimate_result estimate(const model_spec& m, const settings& s, const hardware_spec* gpu) {
  return detail::estimate_with(m, s, gpu, nullptr, nullptr);
}

}  // namespace flopcast
