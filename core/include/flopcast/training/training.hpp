#pragma once
// Training-step analysis: one optimizer step decomposed into forward, backward (by
// gradient kind and by component), activation recompute, gradient clipping,
// mixed-precision casts and the optimizer; the memory traffic, arithmetic intensity and
// roofline bound of each phase; recommendations; the cost of a token budget; LoRA and
// QLoRA. Pure functions over plain values, SI units throughout: FLOPs are counts (a
// multiply-add is 2), memory is bytes, time is seconds. No I/O happens here.
//
// The counting conventions are those of estimate.hpp (and README, "What is exact and what
// is estimated"); the backward and optimizer conventions are written at the top of
// core/src/training/training_flops.cpp, the traffic model at the top of core/src/training/training_phases.cpp.
// estimate() with settings.training reports this model's memory and step time.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/estimate/estimate.hpp"
#include "flopcast/formats/precision.hpp"
#include "flopcast/hardware/hardware.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast {

// What the backward pass gets back by recomputing instead of storing.
//   none:      every layer keeps its activations.
//   selective: the attention core (scores, softmax, scores x V) is recomputed, its
//              activations (the score matrices) are not stored (Korthikanti et al. 2022).
//   full:      each layer keeps only its input; the layers' forward runs again in the
//              backward (not the LM head).
enum class recompute_policy : std::uint8_t { none, selective, full };
[[nodiscard]] std::string_view to_string(recompute_policy p) noexcept;
// "none", "selective", "full" (case-insensitive). Throws flopcast::error(invalid_argument).
[[nodiscard]] recompute_policy parse_recompute_policy(std::string_view name,
                                                      std::string_view field = "/training_analysis/recompute");

// LoRA target modules (lora_module) and lora_settings: estimate.hpp (settings.lora).
// "all", "attention", "mlp", or a comma list of q, k, v, o, gate, up, down (a "_proj"
// suffix is accepted: "q_proj,v_proj"). Throws flopcast::error(invalid_argument).
[[nodiscard]] std::uint32_t parse_lora_targets(std::string_view text,
                                               std::string_view field = "/training_analysis/lora_targets");
// "all", "attention", "mlp" or the comma list, canonical order.
[[nodiscard]] std::string lora_targets_name(std::uint32_t targets);

struct training_settings {
  settings base;  // batch, sequence, precision, optimizer, efficiencies; training is forced on
  // Default: full when base.gradient_checkpointing, none otherwise.
  std::optional<recompute_policy> recompute;
  bool gradient_clipping = true;
  bool fused_optimizer = false;  // one kernel per step instead of PyTorch's foreach ops
  std::optional<double> tokens;  // token budget D; default 20 per parameter (Chinchilla)
  std::optional<double> mfu;     // model FLOPs utilisation for the budget; default compute_efficiency
  std::int64_t gpus = 1;         // data-parallel GPUs for the budget's time and ZeRO sizing
                                 // (with base.parallel: 1 or the layout's GPU count, which is used)
  // With a pipeline (base.parallel.pipeline_parallel > 1): model chunks per GPU, the interleaved
  // 1F1B schedule of Megatron-Core (--num-layers-per-virtual-pipeline-stage). The bubble is
  // (pp - 1) / (virtual_pipeline x microbatches) of the ideal step (Narayanan et al. 2021, sec. 2.2).
  std::int64_t virtual_pipeline = 1;
  // Context parallelism (Megatron-Core --context-parallel-size): ranks that split every sequence of a
  // replica (ring attention, its K/V exchange overlapped with the attention compute); they share the
  // replica's compute and multiply the layout's GPUs (tensor x pipeline x data x expert x context).
  std::int64_t context_parallel = 1;
  // The adapters of this analysis (base.lora is not read here; the request readers set both).
  lora_settings lora;
};

// Throws flopcast::error(invalid_argument) naming the field ("/tokens", "/mfu", "/gpus",
// "/lora_rank", "/lora_targets", "/base_precision"), after validate(base).
void validate(const training_settings& t);

// ---- Result ---------------------------------------------------------------------------

struct attention_backward {
  double qkv_projection = 0;  // input + weight gradients of q/k/v (incl. biases, MLA paths)
  double output_projection = 0;
  double cross_kv_projection = 0;
  double dq_dk = 0;    // dQ = dS K, dK = dS^T Q: 2 x the scores FLOPs
  double dv_dp = 0;    // dV = P^T dO, dP = dO V^T: 2 x the attention_values FLOPs
  double softmax = 0;  // 5 per score
  double rotary = 0;   // the inverse rotation: = forward
  double total = 0;
};

struct backward_flops_detail {
  double total = 0;
  // Partition by what the gradient is taken of.
  double weight_gradient = 0;  // parameters: linear dW, bias and norm-weight grads, embedding scatter-add
  double input_gradient = 0;   // activations: linear dX, attention core, norms' dx, elementwise ops
  // Partition by component.
  attention_backward attention;
  double mlp = 0;
  double norm = 0;
  double embedding = 0;
  double output_head = 0;
  double mixer = 0;             // linear-attention and state-space mixers: 2 x forward (weights and inputs)
  double lora_adapters = 0;     // LoRA A and B matrices (0 without LoRA)
  double ratio_to_forward = 0;  // total / forward (close to 2)
};

struct recompute_flops {
  recompute_policy policy = recompute_policy::full;
  double layers = 0;                  // full: the layers' forward again (not the head)
  double attention_core = 0;          // selective without FlashAttention: scores, softmax, x V
  double flash_attention_kernel = 0;  // FlashAttention's backward recomputes scores and softmax
  double total = 0;
};

struct step_flops {
  double forward = 0;       // one forward pass incl. LoRA adapters
  double forward_base = 0;  // the model's forward (estimate().forward)
  double lora_forward = 0;  // the adapters' extra forward (0 without LoRA)
  backward_flops_detail backward;
  double optimizer = 0;
  double gradient_clipping = 0;
  double mixed_precision = 0;  // casts (and QLoRA/int8 dequantisation of the frozen base)
  recompute_flops recompute;
  double total_step = 0;          // by component: forward + backward + recompute + clip + casts + optimizer
  double sum_of_parts = 0;        // by phase (the gradient-kind partition): sum of phases[].flops
  double sum_of_parts_ratio = 0;  // total_step / sum_of_parts
  double model_flops = 0;         // forward + backward: what MFU counts
};

// The phases of one step, in execution order; they partition the step's FLOPs.
enum class training_phase : std::uint8_t {
  forward,
  backward_input_gradients,   // linear dX, norms' dx, activation functions (not the attention core)
  backward_attention_core,    // dQ/dK, dV/dP, softmax, RoPE
  backward_weight_gradients,  // dW of every trainable parameter
  recompute,
  gradient_clipping,
  mixed_precision,
  optimizer,
};
inline constexpr std::size_t training_phase_count = 8;
[[nodiscard]] std::string_view to_string(training_phase p) noexcept;

struct phase_cost {
  training_phase phase = training_phase::forward;
  double flops = 0;
  double read_bytes = 0;  // ESTIMATE (first-order traffic model, training.cpp)
  double write_bytes = 0;
  double arithmetic_intensity = 0;  // flops / (read + write); 0 when no bytes move
  // Of flops: the attention core's (scores, x V, their gradients, softmax in the backward), timed at
  // the 16-bit peak under 8-bit precisions: FP8 recipes (Transformer Engine's, torchao's float8)
  // convert the linear layers and keep attention in BF16 FlashAttention.
  double attention_flops = 0;
  double compute_s = 0;  // flops / (peak x compute_efficiency); 0 without a GPU
  double memory_s = 0;   // bytes / (bandwidth x mem_efficiency)
  double time_s = 0;     // max of the two
  bound limit = bound::compute;
};

struct training_memory {
  double weights = 0;  // full: all parameters; LoRA: frozen base + adapters
  double gradients = 0;
  double optimizer_state = 0;  // incl. fp32 master weights under mixed precision
  double master_weights = 0;   // the fp32 master copy within optimizer_state (trainable parameters)
  double activations = 0;      // ESTIMATE, under the chosen recompute policy
  double total = 0;
  double gpu_memory = 0;
  double usable_gpu_memory = 0;              // what one GPU may hold (detail::usable_memory)
  bool fits_on_gpu = false;                  // one GPU, no sharding; only meaningful with a GPU
  double bytes_per_trainable_parameter = 0;  // (weights + gradients + optimizer) / trainable, full FT
  double activations_none = 0;               // the activation estimate under each policy
  double activations_selective = 0;
  double activations_full = 0;
};

struct recommendation {
  std::string action;
  std::string reason;
};

struct token_budget {
  double tokens = 0;
  bool default_tokens = false;  // true: 20 tokens per parameter (Hoffmann et al. 2022)
  double tokens_per_step = 0;   // batch x sequence
  double steps = 0;             // ceil(tokens / tokens_per_step)
  double total_flops = 0;       // tokens / tokens_per_step x total_step
  double model_flops = 0;       // tokens / tokens_per_step x (forward + backward)
  double mfu = 0;
  std::int64_t gpus = 1;
  bool has_time = false;  // false without a GPU
  double time_s = 0;      // model_flops / (gpus x peak x mfu)
  double gpu_hours = 0;
  double cost_usd = 0;
  double roofline_time_s = 0;  // steps x the phase roofline's step time / gpus (ideal scaling);
                               // with a layout: steps x step_time_s
  double flops_6nd = 0;        // 6 x N x tokens (N as in cross_check_6nd)
  double ratio_total_to_6nd = 0;
  double ratio_model_to_6nd = 0;
};

struct cross_check_6nd {
  double parameters = 0;                // N: the parameters a token passes through, embeddings
                                        // included (all for dense models, active for MoE)
  double non_embedding_parameters = 0;  // N without the embedding tables (Kaplan et al. 2020)
  double tokens = 0;                    // T: tokens per step
  double forward_plus_backward = 0;
  double flops_6nt = 0;
  double ratio = 0;  // (forward + backward) / 6NT
  double flops_6nt_non_embedding = 0;
  double ratio_non_embedding = 0;
};

struct lora_analysis {
  std::int64_t rank = 0;
  std::uint32_t targets = lora_all_modules;
  precision base_precision = precision::bf16;
  bool quantized = false;                     // int8/int4 base (QLoRA)
  double base_bits_per_quantized_weight = 0;  // incl. block constants
  std::int64_t trainable_parameters = 0;      // r x (in + out) per adapted matrix
  std::int64_t base_parameters = 0;
  std::int64_t all_parameters = 0;        // base + adapters (what PEFT prints as "all params")
  double trainable_percent = 0;           // trainable / all x 100
  std::int64_t adapted_matrices = 0;      // over all layers (an MoE expert's matrices count each)
  std::int64_t quantized_parameters = 0;  // base parameters stored at base_precision (QLoRA)
  double base_weight_bytes = 0;
  double adapter_bytes = 0;  // adapters' weights + gradients + optimizer state
};

struct training_analysis {
  training_settings config;  // resolved: recompute, tokens and mfu set
  estimate_result estimate;  // estimate() at config.base with training on
  std::int64_t parameters = 0;
  std::int64_t trainable_parameters = 0;
  step_flops flops;
  training_memory memory;          // = estimate.memory.train_* (per GPU: estimate.parallel)
  std::vector<phase_cost> phases;  // training_phase order
  phase_cost backward_phase;       // the three backward phases together
  phase_cost step;                 // all phases: flops, bytes and time summed (one GPU, whole batch)
  // The step on config.base.parallel: step.time_s on one GPU; with a layout,
  // estimate.parallel.training_step_s (TP/PP shards, bubble, communication, DP all-reduce).
  // = estimate().perf.training_step_s / parallel.training_step_s at the same settings.
  double step_time_s = 0;
  bool has_performance = false;  // false without a GPU
  double peak_flops_per_s = 0;   // estimate().perf's
  double memory_bandwidth_bytes_per_s = 0;
  double tokens_per_second = 0;        // batch x sequence / step_time_s
  double model_flops_utilization = 0;  // model_flops / (step_time_s x peak x GPUs of the layout)
  std::vector<recommendation> recommendations;
  token_budget budget;
  cross_check_6nd cross_check;
  std::optional<lora_analysis> lora;
  std::vector<std::string> notes;
};

[[nodiscard]] training_analysis analyze_training(const model_spec& model, const training_settings& t,
                                                 const hardware_spec* gpu);

// The analysis as one JSON object (text), SI base units; stable keys (training_json.cpp).
[[nodiscard]] std::string training_to_json(const model_spec& model, const hardware_spec* gpu,
                                           const training_analysis& a, int indent = 2);

}  // namespace flopcast
