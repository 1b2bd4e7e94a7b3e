#pragma once
// The parts of the training-step model, shared by training.cpp (the analysis),
// training_flops.cpp (step FLOPs), training_memory.cpp (capacity), training_phases.cpp
// (traffic and roofline per phase), training_recommend.cpp, and estimate() (whose
// training memory and step time are this model's). Private to the core.
#include <cstdint>
#include <vector>

#include "base/detail.hpp"
#include "flopcast/estimate/estimate.hpp"
#include "flopcast/training/training.hpp"
#include "model/model_parts.hpp"

namespace flopcast::detail {

// Per trainable parameter and step (training_flops.cpp has the traffic conventions).
struct optimizer_cost {
  double flops, read_unfused, write_unfused, read_fused, write_fused;
};
[[nodiscard]] optimizer_cost cost_of(optimizer o);
inline constexpr double fp32_bytes = 4.0;

// QLoRA NF4 with double quantisation: 4 bits + 8-bit constants per 64 weights + fp32
// second-level constants per 256 blocks = 4 + 8/64 + 32/(64·256) = 4.127 bits (Dettmers et
// al. 2023, sec. 3). int8 (LLM.int8()): 8 bits, row constants negligible.
[[nodiscard]] inline double quantized_bits(precision p) {
  return p == precision::int4 ? 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0) : 8.0;
}

// The forward's FLOPs that are not plain matmuls, and what QLoRA quantises.
struct forward_split {
  double qkv_bias = 0, o_bias = 0;      // bias adds inside qkv_projection / output_projection
  double mlp_linear = 0, mlp_bias = 0;  // the MLP's matmuls and bias adds (rest: elementwise)
  double quantizable = 0;               // the layers' matmul weights (what QLoRA quantises)
};
[[nodiscard]] forward_split split_forward(const model_spec& m, double tokens);

// The LoRA adapters of a step over `tokens` tokens (all 0 without LoRA).
struct lora_totals {
  std::int64_t params = 0, matrices = 0;
  double matmul = 0, scale = 0;  // forward: matmul + scale
  double wgrad_read = 0;         // bytes the adapters' weight gradients read
  [[nodiscard]] double forward() const { return matmul + scale; }
};
[[nodiscard]] lora_totals lora_adapters(const model_spec& m, const training_settings& t, double tokens);

// The activation estimate under each recompute policy.
struct activation_set {
  double none = 0, selective = 0, full = 0;
  double stored = 0;               // the tensors a pass writes for backward (no recompute)
  double score_bytes = 0;          // score matrices among them (0 with FlashAttention)
  double replicated_fraction = 0;  // the part TP leaves unsharded without SP
  [[nodiscard]] double under(recompute_policy p) const {
    return p == recompute_policy::none ? none : p == recompute_policy::selective ? selective : full;
  }
};
[[nodiscard]] activation_set training_activations(const model_spec& m, const settings& s);

struct elementwise_cost {
  double flops = 0, read = 0, write = 0;
};
struct training_core;
// Mixed-precision casts, fp16 loss scaling and the dequantisation of a quantised LoRA base.
[[nodiscard]] elementwise_cost mixed_precision_cost(const training_core& c);

// One training step, everything but the timing (a GPU's peaks) and the analysis on top.
struct training_core {
  training_settings config;  // resolved: recompute set, base = the estimate's settings
  std::int64_t trainable_parameters = 0;
  forward_split split;
  lora_totals lora;
  precision base_precision = precision::bf16;  // of the frozen LoRA base
  bool quantized = false;                      // int8/int4 LoRA base (QLoRA)
  double base_weight_bytes = 0;                // LoRA: the frozen base
  activation_set acts;
  step_flops flops;
  training_memory memory;          // capacity; gpu_memory and fits_on_gpu not set
  std::vector<phase_cost> phases;  // training_phase order; flops and bytes, not timed
};

// `t` with recompute resolved (from gradient_checkpointing) and base = s (training on,
// gradient_checkpointing = recompute full); the defaults of training_settings when t is null.
[[nodiscard]] training_settings resolve_training(const settings& s, const training_settings* t);

// The step FLOPs (forward, backward by gradient kind and by component, recompute,
// optimizer, clipping, casts) from the forward pass `fwd`.
[[nodiscard]] step_flops training_flops(const model_spec& m, const training_core& c, const pass_flops& fwd);
// Weights, gradients, optimizer state and activations (one GPU, no sharding).
[[nodiscard]] training_memory training_memory_of(const training_core& c, double parameters);
// The phases with their FLOPs and memory traffic (not timed).
[[nodiscard]] std::vector<phase_cost> training_phases(const model_spec& m, const training_core& c, double parameters);

// The whole step model from the estimate's parameters and forward pass.
[[nodiscard]] training_core training_step(const model_spec& m, const training_settings& resolved,
                                          const estimate_result& r);

// Roofline of each phase at pc FLOP/s and pm bytes/s (pc <= 0: no GPU, times 0), its attention
// FLOPs at pa FLOP/s (pa <= 0: pc).
void time_phase(phase_cost& c, double pc, double pm, double pa = 0);
[[nodiscard]] phase_cost sum_phases(const std::vector<phase_cost>& phases, std::size_t first, std::size_t last);
// The step time: the sum of the phases' max(compute, memory) (= sum_phases(...).time_s).
[[nodiscard]] double training_step_time(const std::vector<phase_cost>& phases, double pc, double pm, double pa = 0);
// The attention core's peak over the matmuls' (training_schedule.cpp): under an 8-bit precision the
// device's 16-bit peak / its 8-bit peak (FP8 recipes keep attention in BF16), else 1.
[[nodiscard]] double attention_peak_ratio(const settings& s, const hardware_spec& gpu);

// The training compute efficiency (training_schedule.cpp): with no efficiency given
// (settings.compute_efficiency_origin default_value), the fitted training efficiency for the
// precision's matmul unit over the default compute_efficiency (settings{}), lowered for a mixture of experts by the
// share of its matmul FLOPs in routed experts (which run at a fitted fraction of the dense efficiency); 1 when an
// efficiency was given or calibrated. The phase roofline's compute peak is peak x compute_efficiency x this scale, in
// estimate() and in analyze_training() alike.
[[nodiscard]] double training_efficiency_scale(const model_spec& m, const settings& s);

// The step on a layout (training_schedule.cpp): one replica's phase roofline (its share of the
// batch on one GPU) shared by its tensor x pipeline x expert x context ranks, the pipeline
// bubble of the (interleaved) 1F1B schedule, and the communication: tensor-, pipeline- and
// expert-parallel traffic overlapped with compute, the data-parallel gradient reduction
// overlapped with the last microbatch's backward only.
struct layout_traffic {
  double replica_step_s = 0;  // one replica's step on one GPU (the phase roofline)
  // One forward pass's TP all-reduces, PP sends and EP all-to-alls over the replica's whole batch
  // (parallel.cpp); its expert- and context-parallel ranks each move their share of the tokens.
  double tp_s = 0, pp_s = 0, ep_s = 0;
  double dp_s = 0;  // the gradient all-reduce across data-parallel replicas
};
struct layout_step {
  double step_s = 0;
  double bubble_fraction = 0;  // of the step: (pp-1) / (v x m + pp-1)
  double exposed_communication_s = 0;
};
[[nodiscard]] layout_step training_layout_step(const settings& s, const training_settings* t, const layout_traffic& x);

// Fused optimizer, ZeRO, recompute policy, FlashAttention (training_recommend.cpp).
void recommend(training_analysis& r, const model_spec& m, const hardware_spec* gpu);

}  // namespace flopcast::detail
