// Training-step analysis. The forward pass, the training memory and the roofline peaks
// come from estimate.cpp (forward_flops via estimate(), result.memory.train_*,
// result.perf); this file adds what a training step does beyond them.
//
// Conventions (those of estimate.cpp, plus the backward and the optimizer):
// - a multiply-add is 2 FLOPs; elementwise ops 1 per element; softmax 5 per score; RoPE 3 per
//   rotated element; RMSNorm 4 and LayerNorm 7 per element (estimate.cpp).
// - linear layer y = x W (+ b), T tokens, W in x out: forward 2·T·in·out. Its backward is an
//   input gradient dX = dY Wᵀ (2·T·in·out) and a weight gradient dW = Xᵀ dY (2·T·in·out); a
//   bias gradient sums dY over tokens (1 per element, = the bias add of the forward). Which
//   forward FLOPs are linear comes from the weights a token passes through (2·T·weights):
//   attention projections are linear but for their bias adds; the MLP's linear part is its
//   active matmul weights, the rest (activation, gate product, router softmax, expert
//   combination) is elementwise.
// - elementwise ops (activation functions, gate products, MoE combination): backward 2 per
//   forward FLOP (the derivative and its product with the upstream gradient; a product's two
//   operand gradients).
// - attention core: dQ and dK from dS (2 x the scores FLOPs), dV and dP from the values
//   matmul (2 x the attention_values FLOPs); softmax backward 5 per score (dP·P, row sum,
//   subtract, ·P, the 1/sqrt(d) scale); RoPE backward = its forward (the inverse rotation).
//   Position-bias additions inside the scores are carried at 2x with them (negligible).
// - norms: backward = 2 x forward (RMSNorm 8 per element of which the weight gradient is 2:
//   product and sum over tokens; LayerNorm 14, weight and bias gradients 3).
// - embedding: the token table's gradient is a scatter-add of the output gradient (1 per
//   element, T x embedding width); learned position / token-type tables likewise (their
//   forward additions, 1 per element); Gemma's embedding scale 1 per element; OPT's
//   project_in is linear. The embedding lookup itself is 0 (estimate.cpp).
// - LM head (and pooler, projections): linear, input and weight gradients. The loss
//   (log-softmax over the vocabulary) is not counted, as in the forward.
// - the backward total is the sum of these; it lands just under 2 x forward (the softmax,
//   RoPE and embedding terms are 1x). estimate()'s backward_flops stays 2 x forward.
// - optimizer FLOPs per trainable parameter: adam 14 (m: 3, v: 4, two bias corrections: 2,
//   sqrt, + eps, divide, x lr, subtract: 5), adamw 16 (+ decoupled weight decay: 2),
//   sgd with momentum 4 (buf = mu·buf + g: 2, p -= lr·buf: 2), none 0.
// - gradient clipping: 3 per trainable parameter (square-accumulate for the global norm: 2,
//   scale: 1). Mixed precision (16-bit weights with fp32 master copy): 1 per element and
//   cast, two casts per parameter and step (gradient to fp32, master to 16-bit); fp16 adds
//   loss-scale unscaling and the inf/NaN check (2). A quantised LoRA base (int8, int4) is
//   dequantised to 16 bits before each of its matmul passes (forward, input gradients and a
//   full recompute): 2 per weight and pass (decode and scale).
// - activation recompute: full = the layers' forward again (not the embedding, final norm
//   or head); selective = the attention core (scores, softmax, x V; Korthikanti et al.
//   2022). With FlashAttention the backward kernel recomputes the scores and the softmax
//   from Q and K whatever the policy (counted as flash_attention_kernel), which makes
//   selective recompute free of extra FLOPs and of score-matrix memory.
// - LoRA: adapter x A B on each adapted matrix (in x out): r·(in + out) parameters; forward
//   2·T·r·(in + out) plus T·out for adding the scaled update; backward: dA, dB (2·T·r·(in +
//   out), weight) and the two input gradients (2·T·r·(in + out)) plus T·out for the scale.
//   The frozen base still back-propagates input gradients; it has no weight gradients, and
//   the frozen embedding no backward at all.
// - memory traffic (ESTIMATE, first order): a pass reads the weights once; each stored
//   activation A is written once and read once in the forward; the input-gradient phase
//   reads the weights and the incoming gradients and writes the outgoing ones (as large as
//   the activations); the weight-gradient phase reads the saved inputs and the output
//   gradients and writes the gradients; the attention core reads Q, K, V, O, dO and writes dQ,
//   dK, dV (plus the score matrices without FlashAttention); the optimizer, clipping and
//   casts stream fp32 state per trainable parameter (tables below).
// - each phase's time is max(FLOPs / (peak x compute_efficiency), bytes / (bandwidth x
//   mem_efficiency)) with the peak and bandwidth of estimate()'s roofline.
#include "flopcast/training.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "detail.hpp"
#include "flopcast/error.hpp"

namespace flopcast {

std::string_view to_string(recompute_policy p) noexcept {
  switch (p) {
    case recompute_policy::none:
      return "none";
    case recompute_policy::selective:
      return "selective";
    case recompute_policy::full:
      return "full";
  }
  return "full";
}

std::string_view to_string(training_phase p) noexcept {
  switch (p) {
    case training_phase::forward:
      return "forward";
    case training_phase::backward_input_gradients:
      return "backward_input_gradients";
    case training_phase::backward_attention_core:
      return "backward_attention_core";
    case training_phase::backward_weight_gradients:
      return "backward_weight_gradients";
    case training_phase::recompute:
      return "recompute";
    case training_phase::gradient_clipping:
      return "gradient_clipping";
    case training_phase::mixed_precision:
      return "mixed_precision";
    case training_phase::optimizer:
      return "optimizer";
  }
  return "forward";
}

namespace {

using detail::format_number;

double d(std::int64_t v) { return static_cast<double>(v); }

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string trim(std::string s) {
  const auto not_space = [](unsigned char c) { return !std::isspace(c); };
  s.erase(s.begin(), std::find_if(s.begin(), s.end(), not_space));
  s.erase(std::find_if(s.rbegin(), s.rend(), not_space).base(), s.end());
  return s;
}

struct module_name {
  std::string_view name;
  std::uint32_t bit;
};
constexpr module_name k_modules[] = {{"q", lora_q},       {"k", lora_k},   {"v", lora_v},      {"o", lora_o},
                                     {"gate", lora_gate}, {"up", lora_up}, {"down", lora_down}};

// Per trainable parameter and step. Traffic in fp32 elements (4 bytes): the master weight
// (or fp32 weight), the fp32 gradient and the state. Unfused = PyTorch's foreach kernels:
// adam m.lerp_(g) (R2 W1), v.mul_ (R1 W1), v.addcmul_(g, g) (R2 W1), sqrt, / bias
// correction, + eps (R1 W1 each), p.addcdiv_(m, denom) (R3 W1): R11 W7; adamw adds
// p.mul_(1 - lr·wd) (R1 W1). sgd: buf.mul_ (R1 W1), buf.add_(g) (R2 W1), p.add_(buf) (R2 W1).
// Fused: each tensor read once and written once (adam: p, g, m, v in; p, m, v out).
struct optimizer_cost {
  double flops, read_unfused, write_unfused, read_fused, write_fused;
};
optimizer_cost cost_of(optimizer o) {
  switch (o) {
    case optimizer::adam:
      return {14, 11, 7, 4, 3};
    case optimizer::adamw:
      return {16, 12, 8, 4, 3};
    case optimizer::sgd:
      return {4, 5, 3, 3, 2};
    case optimizer::none:
      return {0, 0, 0, 0, 0};
  }
  return {0, 0, 0, 0, 0};
}
constexpr double fp32_bytes = 4.0;
constexpr double clip_flops_per_param = 3.0;
constexpr double clip_read_elements = 2.0, clip_write_elements = 1.0;  // norm pass, scale pass
constexpr double cast_flops_per_param = 2.0;                           // grad -> fp32, master -> 16-bit
constexpr double fp16_scaling_flops_per_param = 2.0;                   // unscale, inf/NaN check
constexpr double dequant_flops_per_weight = 2.0;
constexpr double default_tokens_per_parameter = 20.0;  // Hoffmann et al. 2022 (Chinchilla)
constexpr double fused_optimizer_min_share = 0.03;     // recommend fusing above 3% of the step
// QLoRA NF4 with double quantisation: 4 bits + 8-bit constants per 64 weights + fp32
// second-level constants per 256 blocks = 4 + 8/64 + 32/(64·256) = 4.127 bits (Dettmers et
// al. 2023, sec. 3). int8 (LLM.int8()): 8 bits, row constants negligible.
double quantized_bits(precision p) { return p == precision::int4 ? 4.0 + 8.0 / 64.0 + 32.0 / (64.0 * 256.0) : 8.0; }

// One kind of linear layer: `matrices` identical in x out matrices, each seeing `tokens`.
struct linear_shape {
  std::uint32_t module;
  double matrices;
  double tokens;
  double in;
  double out;
};

// Every linear layer LoRA can adapt (see lora_module), for a forward over B x S tokens.
template <class F>
void for_each_adaptable(const model_spec& m, double tokens, F&& f) {
  const attention_spec& a = m.attention;
  const double h = d(m.hidden_size);
  for (const layer_group& g : m.groups) {
    const double c = d(g.count), T = tokens;
    if (a.mla) {
      const double nh = d(a.num_heads), qk = d(a.qk_nope_head_dim + a.qk_rope_head_dim);
      if (a.q_lora_rank > 0) {
        f(linear_shape{lora_q, c, T, h, d(a.q_lora_rank)});
        f(linear_shape{lora_q, c, T, d(a.q_lora_rank), nh * qk});
      } else {
        f(linear_shape{lora_q, c, T, h, nh * qk});
      }
      const double kvr = d(a.kv_lora_rank);
      f(linear_shape{lora_k | lora_v, c, T, h, kvr + d(a.qk_rope_head_dim)});
      f(linear_shape{lora_k | lora_v, c, T, kvr, nh * d(a.qk_nope_head_dim + a.v_head_dim)});
      f(linear_shape{lora_o, c, T, nh * d(a.v_head_dim), h});
    } else {
      f(linear_shape{lora_q, c, T, h, d(a.num_heads) * d(a.head_dim)});
      f(linear_shape{lora_k, c, T, h, d(a.num_kv_heads) * d(a.head_dim)});
      f(linear_shape{lora_v, c, T, h, d(a.num_kv_heads) * d(a.v_head_dim)});
      f(linear_shape{lora_o, c, T, d(a.num_heads) * d(a.v_head_dim), h});
    }
    if (g.cross_attention) {  // K/V over the encoder's tokens (as many as the decoder's here)
      const double inner = d(a.num_heads) * d(a.head_dim);
      f(linear_shape{lora_q, c, T, h, inner});
      f(linear_shape{lora_k, c, T, h, inner});
      f(linear_shape{lora_v, c, T, h, inner});
      f(linear_shape{lora_o, c, T, inner, h});
    }
    const auto mlp = [&](double matrices, double tok, double width, bool gated) {
      if (gated) f(linear_shape{lora_gate, matrices, tok, h, width});
      f(linear_shape{lora_up, matrices, tok, h, width});
      f(linear_shape{lora_down, matrices, tok, width, h});
    };
    if (g.moe) {
      const double E = d(m.moe.num_experts), k = d(m.moe.experts_per_token);
      mlp(c * E, T * k / E, d(m.moe.expert_intermediate_size), true);  // each expert sees T·k/E tokens on average
      if (m.moe.shared_intermediate_size > 0) mlp(c, T, d(m.moe.shared_intermediate_size), true);
    } else {
      mlp(c, T, d(m.mlp.intermediate_size), m.mlp.gated);
    }
  }
}

// Parameters of a layer's MLP that are biases (not matmul weights).
std::int64_t mlp_bias_params(const model_spec& m, const layer_group& g) {
  if (g.moe) return m.moe.router_bias ? m.moe.num_experts : 0;
  if (!m.mlp.bias) return 0;
  return (m.mlp.gated ? 2 : 1) * m.mlp.intermediate_size + m.hidden_size;
}

struct forward_split {
  double qkv_bias = 0, o_bias = 0;      // bias adds inside qkv_projection / output_projection
  double mlp_linear = 0, mlp_bias = 0;  // the MLP's matmuls and bias adds (rest: elementwise)
  double quantizable = 0;               // the layers' matmul weights (what QLoRA quantises)
};

forward_split split_forward(const model_spec& m, double T) {
  forward_split s;
  const double h = d(m.hidden_size);
  for (const layer_group& g : m.groups) {
    const detail::layer_weights w = detail::weights_of(m, g);
    const double c = d(g.count);
    const double o_bias = m.attention.o_bias ? h : 0.0;
    s.qkv_bias += c * T * (d(w.attn_bias) - o_bias);
    s.o_bias += c * T * o_bias;
    const double bias = d(mlp_bias_params(m, g));
    s.mlp_linear += c * 2 * T * (d(w.mlp_active) - bias);
    if (!g.moe) s.mlp_bias += c * T * bias;  // the router bias only selects experts: no FLOPs
    s.quantizable += c * (d(w.attn_matmul) + d(w.attn_kv_matmul) + d(w.mlp_total) - bias);
  }
  return s;
}

// What the step needs from the activation estimate, by policy.
struct activation_set {
  double none = 0, selective = 0, full = 0;
  double stored = 0;       // the tensors a pass writes for backward (no recompute, as configured)
  double score_bytes = 0;  // score matrices among them (0 with FlashAttention)
};

void check_range(double v, double lo, double hi, const char* field, const std::string& what) {
  if (!(v > lo && v <= hi))
    throw error(error_code::invalid_argument, field, "expected " + what + ", but got " + format_number(v));
}

void add_phase(training_analysis& r, training_phase p, double flops, double read, double write) {
  phase_cost c;
  c.phase = p;
  c.flops = flops;
  c.read_bytes = read;
  c.write_bytes = write;
  r.phases.push_back(c);
}

void time_phase(phase_cost& c, double pc, double pm) {
  const double bytes = c.read_bytes + c.write_bytes;
  c.arithmetic_intensity = bytes > 0 ? c.flops / bytes : 0.0;
  if (pc <= 0) return;
  c.compute_s = c.flops / pc;
  c.memory_s = bytes / pm;
  c.time_s = std::max(c.compute_s, c.memory_s);
  c.limit = c.compute_s >= c.memory_s ? bound::compute : bound::memory;
}

phase_cost sum_phases(const std::vector<phase_cost>& phases, std::size_t first, std::size_t last) {
  phase_cost s;
  for (std::size_t i = first; i < last; ++i) {
    s.flops += phases[i].flops;
    s.read_bytes += phases[i].read_bytes;
    s.write_bytes += phases[i].write_bytes;
    s.compute_s += phases[i].compute_s;
    s.memory_s += phases[i].memory_s;
    s.time_s += phases[i].time_s;
  }
  const double bytes = s.read_bytes + s.write_bytes;
  s.arithmetic_intensity = bytes > 0 ? s.flops / bytes : 0.0;
  s.limit = s.compute_s >= s.memory_s ? bound::compute : bound::memory;
  return s;
}

std::string gb(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f GB", bytes / 1e9);
  return buf;
}
std::string ms(double s) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f ms", s * 1e3);
  return buf;
}
std::string pct(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f%%", x * 100);
  return buf;
}

// The lowest ZeRO stage that fits on `n` GPUs (0: none needed, -1: none fits).
struct zero_state {
  double weights, gradients, optimizer, activations, capacity;
  [[nodiscard]] double per_gpu(int stage, double n) const {
    switch (stage) {
      case 0:
        return weights + gradients + optimizer + activations;
      case 1:
        return weights + gradients + optimizer / n + activations;
      case 2:
        return weights + (gradients + optimizer) / n + activations;
      default:
        return (weights + gradients + optimizer) / n + activations;
    }
  }
  // Fewest GPUs on which `stage` fits (0: never).
  [[nodiscard]] double min_gpus(int stage) const {
    const double unsharded = stage == 1 ? weights + gradients : stage == 2 ? weights : 0.0;
    const double sharded = weights + gradients + optimizer - unsharded;
    const double room = capacity - activations - unsharded;
    if (stage == 0) return per_gpu(0, 1) <= capacity ? 1 : 0;
    if (room <= 0) return 0;
    return std::max(1.0, std::ceil(sharded / room));
  }
};

void recommend(training_analysis& r, const model_spec& m, const hardware_spec* gpu) {
  const training_settings& t = r.config;
  const settings& s = t.base;
  const recompute_policy policy = *t.recompute;
  auto& out = r.recommendations;
  const phase_cost& opt = r.phases[static_cast<std::size_t>(training_phase::optimizer)];

  // Fused optimizer.
  if (r.has_performance && !t.fused_optimizer && s.optim != optimizer::none && opt.limit == bound::memory &&
      opt.time_s > fused_optimizer_min_share * r.step.time_s) {
    const optimizer_cost c = cost_of(s.optim);
    const double fused_s =
        std::max(opt.compute_s, opt.memory_s * (c.read_fused + c.write_fused) / (c.read_unfused + c.write_unfused));
    out.push_back({"use a fused optimizer (e.g. torch.optim.AdamW(fused=True), apex FusedAdam)",
                   "the " + std::string(to_string(s.optim)) + " step is memory-bound and takes " + ms(opt.time_s) +
                       " (" + pct(opt.time_s / r.step.time_s) + " of the step): one fused kernel moves " +
                       format_number((c.read_fused + c.write_fused) * fp32_bytes) + " instead of " +
                       format_number((c.read_unfused + c.write_unfused) * fp32_bytes) + " bytes per parameter, about " +
                       ms(fused_s)});
  }

  if (gpu == nullptr) return;
  const training_memory& mem = r.memory;
  const double capacity = gpu->memory_bytes, n = d(t.gpus);
  zero_state z{mem.weights, mem.gradients, mem.optimizer_state, mem.activations, capacity};
  // ZeRO: the lowest stage that fits on the given GPUs, or the fewest GPUs that make one fit.
  int stage_used = 0;
  double gpus_used = n;
  if (z.per_gpu(0, n) > capacity) {
    int fits = -1;
    for (int k = 1; k <= 3 && n > 1; ++k)
      if (z.per_gpu(k, n) <= capacity) {
        fits = k;
        break;
      }
    const std::string need = "weights " + gb(mem.weights) + ", gradients " + gb(mem.gradients) + ", optimizer state " +
                             gb(mem.optimizer_state) + " and activations " + gb(mem.activations) + " need " +
                             gb(z.per_gpu(0, 1)) + " against " + gb(capacity) + " on " + gpu->name;
    if (fits > 0) {
      stage_used = fits;
      out.push_back(
          {"shard with ZeRO stage " + std::to_string(fits) + " over the " + std::to_string(t.gpus) + " GPUs",
           need + "; stage " + std::to_string(fits) + " brings it to " + gb(z.per_gpu(fits, n)) + " per GPU"});
    } else {
      double best = 0;
      int best_stage = 0;
      std::string options;
      for (int k = 1; k <= 3; ++k) {
        const double g = z.min_gpus(k);
        if (g <= 0) continue;
        options += (options.empty() ? "" : ", ") + std::string("stage ") + std::to_string(k) + " from " +
                   format_number(g) + " GPUs";
        if (best == 0 || g < best) {
          best = g;
          best_stage = k;
        }
      }
      if (best_stage > 0) {
        stage_used = best_stage;
        gpus_used = best;
        out.push_back(
            {"shard with ZeRO stage " + std::to_string(best_stage) + " over at least " + format_number(best) + " GPUs",
             need + (t.gpus > 1 ? " (more than " + std::to_string(t.gpus) + " GPUs can hold)" : "") +
                 "; ZeRO fits with " + options});
      } else {
        out.push_back({"reduce the activations (smaller micro-batch or sequence, tensor or sequence parallelism)",
                       need + "; activations are not sharded by ZeRO and leave no room for the training state"});
      }
    }
  }

  // Recompute policy: the least recomputation whose activations fit beside the state.
  zero_state rest = z;
  rest.activations = 0;
  const double state = rest.per_gpu(stage_used, gpus_used);
  const double room = capacity - state;
  recompute_policy best = recompute_policy::full;
  if (mem.activations_none <= room)
    best = recompute_policy::none;
  else if (mem.activations_selective <= room)
    best = recompute_policy::selective;
  const double acts = best == recompute_policy::none        ? mem.activations_none
                      : best == recompute_policy::selective ? mem.activations_selective
                                                            : mem.activations_full;
  const char* with = best == recompute_policy::none        ? "without recompute"
                     : best == recompute_policy::selective ? "with selective recompute"
                                                           : "with full recompute";
  std::string reason = "activations take " + gb(acts) + " " + with + " beside " + gb(state) +
                       " of weights, gradients and optimizer state per GPU (" + gb(capacity) + ")";
  if (best == recompute_policy::full && mem.activations_full > room)
    reason += "; even full recompute leaves " + gb(mem.activations_full - room) + " over: lower the micro-batch";
  if (best == policy) {
    out.push_back({"keep recompute policy " + std::string(to_string(policy)), reason});
  } else {
    const bool less = static_cast<int>(best) < static_cast<int>(policy);
    if (less && r.has_performance) {
      // What the current policy recomputes beyond the recommended one.
      const recompute_flops& rc = r.flops.recompute;
      double saved = rc.layers;
      if (best == recompute_policy::none) saved += rc.attention_core;
      if (best == recompute_policy::selective && !s.flash_attention && policy == recompute_policy::full)
        saved -= r.estimate.forward.attention.attention_scores + r.estimate.forward.attention.softmax +
                 r.estimate.forward.attention.attention_values;
      reason += "; saves about " + ms(std::max(0.0, saved) / (r.peak_flops_per_s * s.compute_efficiency)) +
                " of recompute per step";
    }
    out.push_back({"use recompute policy " + std::string(to_string(best)), reason});
  }

  if (!s.flash_attention && m.arch != architecture::encoder_decoder && mem.activations_none > mem.activations_selective)
    out.push_back(
        {"use FlashAttention", "the score matrices take " + gb(mem.activations_none - mem.activations_selective) +
                                   " of activations without recompute and make the attention core memory-bound"});
}

}  // namespace

recompute_policy parse_recompute_policy(std::string_view name, std::string_view field) {
  const std::string key = lower(trim(std::string(name)));
  for (recompute_policy p : {recompute_policy::none, recompute_policy::selective, recompute_policy::full})
    if (to_string(p) == key) return p;
  throw error(error_code::invalid_argument, std::string(field),
              "unknown recompute policy \"" + std::string(name) + "\": expected one of none, selective, full");
}

std::uint32_t parse_lora_targets(std::string_view text, std::string_view field) {
  const std::string all = lower(trim(std::string(text)));
  if (all == "all" || all == "all-linear") return lora_all_modules;
  if (all == "attention" || all == "attn") return lora_attention_modules;
  if (all == "mlp") return lora_mlp_modules;
  std::uint32_t bits = 0;
  std::size_t start = 0;
  while (start <= all.size()) {
    const std::size_t comma = all.find(',', start);
    std::string item = trim(all.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (item.size() > 5 && item.compare(item.size() - 5, 5, "_proj") == 0) item.resize(item.size() - 5);
    std::uint32_t bit = 0;
    for (const auto& mod : k_modules)
      if (mod.name == item) bit = mod.bit;
    if (bit == 0)
      throw error(error_code::invalid_argument, std::string(field),
                  "unknown LoRA target \"" + item + "\" in \"" + std::string(text) +
                      "\": expected all, attention, mlp or a comma list of q, k, v, o, gate, up, down");
    bits |= bit;
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return bits;
}

std::string lora_targets_name(std::uint32_t targets) {
  if (targets == lora_all_modules) return "all";
  if (targets == lora_attention_modules) return "attention";
  if (targets == lora_mlp_modules) return "mlp";
  std::string out;
  for (const auto& mod : k_modules)
    if (targets & mod.bit) out += (out.empty() ? "" : ",") + std::string(mod.name);
  return out;
}

void validate(const training_settings& t) {
  settings s = t.base;
  s.training = true;
  validate(s);
  if (t.tokens) check_range(*t.tokens, 0.0, 1e18, "/tokens", "a positive number of tokens, at most 1e18");
  if (t.mfu) check_range(*t.mfu, 0.0, 1.0, "/mfu", "a number in (0, 1]");
  if (t.gpus < 1 || t.gpus > (std::int64_t{1} << 24))
    throw error(error_code::invalid_argument, "/gpus",
                "expected an integer in [1, 16777216], but got " + std::to_string(t.gpus));
  if (t.lora.rank < 0 || t.lora.rank > (std::int64_t{1} << 20))
    throw error(error_code::invalid_argument, "/lora_rank",
                "expected an integer in [0, 1048576] (0: full fine-tuning), but got " + std::to_string(t.lora.rank));
  if ((t.lora.targets & lora_all_modules) == 0 || (t.lora.targets & ~lora_all_modules) != 0)
    throw error(error_code::invalid_argument, "/lora_targets",
                "expected a non-empty set of q, k, v, o, gate, up, down");
  if (t.lora.base_precision) {
    const precision p = *t.lora.base_precision;
    if (t.lora.rank == 0)
      throw error(error_code::invalid_argument, "/base_precision",
                  "a frozen base precision applies to LoRA only: expected a LoRA rank > 0 with it");
    if (p == precision::fp8 || p == precision::tf32)
      throw error(
          error_code::invalid_argument, "/base_precision",
          "expected int8, int4 (QLoRA), fp16, bf16 or fp32 for the frozen base, but got " + std::string(to_string(p)));
  }
}

training_analysis analyze_training(const model_spec& m, const training_settings& in, const hardware_spec* gpu) {
  validate(in);
  training_analysis r;
  r.config = in;
  training_settings& t = r.config;
  settings& s = t.base;
  s.training = true;
  if (!t.recompute) t.recompute = s.gradient_checkpointing ? recompute_policy::full : recompute_policy::none;
  const recompute_policy policy = *t.recompute;
  s.gradient_checkpointing = policy == recompute_policy::full;
  if (!t.mfu) t.mfu = s.compute_efficiency;
  const bool lora = t.lora.rank > 0;

  // The estimate at these settings, and the activation estimate under each policy.
  r.estimate = estimate(m, s, gpu);
  const estimate_result& e = r.estimate;
  const auto acts = [&](bool checkpointing, bool flash) {
    settings v = s;
    v.gradient_checkpointing = checkpointing;
    v.flash_attention = flash;
    return estimate(m, v, nullptr).memory.train_activations;
  };
  activation_set A;
  A.full = acts(true, s.flash_attention);
  A.none = acts(false, s.flash_attention);
  A.selective = acts(false, true);  // what selective recompute stores: no score matrices
  A.stored = A.none;
  A.score_bytes = A.none - A.selective;

  const double B = d(s.batch_size), S = d(s.sequence_length), T = B * S;
  const double h = d(m.hidden_size);
  const double P = d(e.parameters.total);
  r.parameters = e.parameters.total;

  // ---- LoRA adapters ----
  double lora_fwd = 0, lora_matmul = 0, lora_scale = 0, lora_wgrad_read = 0;
  std::int64_t lora_params = 0, lora_matrices = 0;
  const precision wp = s.weight_precision;
  const double act_bytes = storage_bytes(wp == precision::fp32 || wp == precision::tf32 ? wp : precision::fp16);
  const forward_split split = split_forward(m, T);
  if (lora) {
    const double rank = d(t.lora.rank);
    for_each_adaptable(m, T, [&](const linear_shape& l) {
      if ((l.module & t.lora.targets) == 0) return;
      lora_params += static_cast<std::int64_t>(l.matrices) * t.lora.rank * static_cast<std::int64_t>(l.in + l.out);
      lora_matrices += static_cast<std::int64_t>(l.matrices);
      lora_matmul += l.matrices * 2 * l.tokens * rank * (l.in + l.out);
      lora_scale += l.matrices * l.tokens * l.out;
      lora_wgrad_read += l.matrices * l.tokens * (l.in + l.out + 2 * rank) * act_bytes;
    });
    if (lora_params == 0)
      throw error(
          error_code::invalid_argument, "/lora_targets",
          "no linear layer of " + m.name + " matches the LoRA targets \"" + lora_targets_name(t.lora.targets) + "\"");
    lora_fwd = lora_matmul + lora_scale;
  }
  r.trainable_parameters = lora ? lora_params : e.parameters.total;
  const double Pt = d(r.trainable_parameters);

  // ---- FLOPs ----
  step_flops& f = r.flops;
  const pass_flops& fwd = e.forward;
  const attention_detail& ad = fwd.attention;
  const flops_breakdown& fp = fwd.parts;
  f.forward_base = fp.total;
  f.lora_forward = lora_fwd;
  f.forward = fp.total + lora_fwd;

  backward_flops_detail& b = f.backward;
  double weight = 0, input = 0;
  // Attention projections: linear except for their bias adds.
  const auto projection = [&](double fwd_flops, double bias) {
    const double linear = fwd_flops - bias;
    const double w = lora ? 0.0 : linear + bias, x = linear;
    weight += w;
    input += x;
    return w + x;
  };
  attention_backward& ab = b.attention;
  ab.qkv_projection = projection(ad.qkv_projection, split.qkv_bias);
  ab.output_projection = projection(ad.output_projection, split.o_bias);
  ab.cross_kv_projection = projection(ad.cross_kv_projection, 0.0);
  ab.dq_dk = 2 * ad.attention_scores;
  ab.dv_dp = 2 * ad.attention_values;
  ab.softmax = ad.softmax;
  ab.rotary = ad.rotary;
  const double core = ab.dq_dk + ab.dv_dp + ab.softmax + ab.rotary;
  input += core;
  ab.total = ab.qkv_projection + ab.output_projection + ab.cross_kv_projection + core;

  // MLP: matmuls, bias adds, the elementwise rest.
  {
    const double elementwise = std::max(0.0, fp.mlp - split.mlp_linear - split.mlp_bias);
    const double w = lora ? 0.0 : split.mlp_linear + split.mlp_bias;
    const double x = split.mlp_linear + 2 * elementwise;
    weight += w;
    input += x;
    b.mlp = w + x;
  }
  // Norms: 2 x forward; the weight (and bias) gradients 2 (3) per element.
  {
    const double elements = fp.norm / detail::norm_flops_per_element(m.norm);
    const double w = lora ? 0.0 : elements * (m.norm == norm_kind::rmsnorm ? 2.0 : 3.0);
    const double x = 2 * fp.norm - elements * (m.norm == norm_kind::rmsnorm ? 2.0 : 3.0);
    weight += w;
    input += x;
    b.norm = w + x;
  }
  // Embedding: scatter-add into the tables; nothing for a frozen embedding.
  if (!lora) {
    const double emb_tokens = T * (m.arch == architecture::encoder_decoder ? 2.0 : 1.0);
    const double ed = d(detail::embed_dim(m));
    const double project_in = m.embed_proj_dim > 0 ? 2 * emb_tokens * ed * h : 0.0;
    const double scale = m.scale_embeddings ? emb_tokens * h : 0.0;
    const double tables = std::max(0.0, fp.embedding - project_in - scale);  // position / token-type additions
    const double w = emb_tokens * ed + tables + project_in;
    const double x = project_in + scale;
    weight += w;
    input += x;
    b.embedding = w + x;
  }
  // Head: linear.
  {
    const double w = lora ? 0.0 : fp.output_head;
    weight += w;
    input += fp.output_head;
    b.output_head = w + fp.output_head;
  }
  if (lora) {
    b.lora_adapters = 2 * lora_matmul + lora_scale;
    weight += lora_matmul;
    input += lora_matmul + lora_scale;
  }
  b.total = ab.total + b.mlp + b.norm + b.embedding + b.output_head + b.lora_adapters;
  b.weight_gradient = weight;
  b.input_gradient = input;
  b.ratio_to_forward = f.forward > 0 ? b.total / f.forward : 0.0;

  // Recompute.
  recompute_flops& rc = f.recompute;
  rc.policy = policy;
  if (policy == recompute_policy::full) {
    for (std::size_t i = 0; i < m.groups.size(); ++i) rc.layers += d(m.groups[i].count) * fwd.per_layer[i].total();
    rc.layers += lora_fwd;
  }
  if (policy == recompute_policy::selective && !s.flash_attention)
    rc.attention_core = ad.attention_scores + ad.softmax + ad.attention_values;
  if (s.flash_attention) rc.flash_attention_kernel = ad.attention_scores + ad.softmax;
  rc.total = rc.layers + rc.attention_core + rc.flash_attention_kernel;

  // Optimizer, clipping, casts.
  const optimizer_cost oc = cost_of(s.optim);
  f.optimizer = oc.flops * Pt;
  f.gradient_clipping = t.gradient_clipping ? clip_flops_per_param * Pt : 0.0;
  const double wbytes = storage_bytes(wp);
  const bool mixed = wbytes < fp32_bytes;
  double mp_flops = 0, mp_read = 0, mp_write = 0;
  if (mixed) {
    mp_flops += cast_flops_per_param * Pt;
    mp_read += Pt * (wbytes + fp32_bytes);  // read the 16-bit gradient and the fp32 master
    mp_write += Pt * (fp32_bytes + wbytes);
    if (wp == precision::fp16) {
      mp_flops += fp16_scaling_flops_per_param * Pt;
      mp_read += Pt * 2 * fp32_bytes;
      mp_write += Pt * fp32_bytes;
    }
  }
  // Quantised LoRA base: dequantised to 16 bits before each matmul pass.
  const precision base_p = t.lora.base_precision.value_or(wp);
  const bool quantized = lora && is_weight_only(base_p);
  const double passes = 2.0 + (policy == recompute_policy::full ? 1.0 : 0.0);
  if (quantized) {
    mp_flops += dequant_flops_per_weight * split.quantizable * passes;
    mp_read += split.quantizable * quantized_bits(base_p) / 8.0 * passes;
    mp_write += split.quantizable * wbytes * passes;
  }
  f.mixed_precision = mp_flops;
  f.total_step = f.forward + b.total + rc.total + f.optimizer + f.gradient_clipping + f.mixed_precision;
  f.model_flops = f.forward + b.total;

  // ---- Memory (capacity) ----
  training_memory& mem = r.memory;
  mem.activations_none = A.none;
  mem.activations_selective = A.selective;
  mem.activations_full = A.full;
  mem.activations = policy == recompute_policy::none        ? A.none
                    : policy == recompute_policy::selective ? A.selective
                                                            : A.full;
  const double w_pp = e.memory.train_weights / P, g_pp = e.memory.train_gradients / P,
               o_pp = e.memory.train_optimizer_state / P;
  double base_weight_bytes = 0;
  if (lora) {
    base_weight_bytes = quantized ? split.quantizable * quantized_bits(base_p) / 8.0 + (P - split.quantizable) * wbytes
                                  : P * storage_bytes(base_p);
    mem.weights = base_weight_bytes + Pt * w_pp;
    mem.gradients = Pt * g_pp;
    mem.optimizer_state = Pt * o_pp;
  } else {
    mem.weights = e.memory.train_weights;
    mem.gradients = e.memory.train_gradients;
    mem.optimizer_state = e.memory.train_optimizer_state;
  }
  mem.total = mem.weights + mem.gradients + mem.optimizer_state + mem.activations;
  mem.bytes_per_trainable_parameter = w_pp + g_pp + o_pp;
  if (gpu != nullptr) {
    mem.gpu_memory = gpu->memory_bytes;
    mem.fits_on_gpu = mem.total <= gpu->memory_bytes;
  }

  // ---- Memory traffic by phase ----
  const attention_spec& at = m.attention;
  const double nh = d(at.num_heads);
  const double qkv_width = at.mla ? 2 * nh * d(at.head_dim) + nh * d(at.v_head_dim)
                                  : nh * d(at.head_dim) + d(at.num_kv_heads) * d(at.head_dim + at.v_head_dim);
  const double out_width = nh * d(at.v_head_dim);
  const double layer_tokens = T * d(m.num_layers + m.num_encoder_layers);
  const double core_saved = layer_tokens * (qkv_width + out_width) * act_bytes;
  const double rest_acts = std::max(0.0, A.stored - core_saved - A.score_bytes);
  const double weights_read = (P + (lora ? Pt : 0.0)) * wbytes;  // the 16-bit copy of a quantised base
  const double grads_written = Pt * wbytes;

  add_phase(r, training_phase::forward, f.forward, weights_read + A.stored, A.stored);
  add_phase(r, training_phase::backward_input_gradients, b.input_gradient - core, weights_read + rest_acts, rest_acts);
  add_phase(r, training_phase::backward_attention_core, core,
            layer_tokens * (qkv_width + 2 * out_width) * act_bytes + A.score_bytes,
            layer_tokens * qkv_width * act_bytes + A.score_bytes);
  add_phase(r, training_phase::backward_weight_gradients, b.weight_gradient,
            lora ? lora_wgrad_read : 2 * (A.stored - A.score_bytes), grads_written);
  {
    double read = 0, write = 0;
    if (policy == recompute_policy::full) {
      read += weights_read + A.stored;
      write += A.stored;
    }
    if (rc.attention_core > 0) {
      read += layer_tokens * qkv_width * act_bytes;
      write += layer_tokens * out_width * act_bytes + A.score_bytes;
    }
    add_phase(r, training_phase::recompute, rc.total, read, write);
  }
  add_phase(r, training_phase::gradient_clipping, f.gradient_clipping,
            t.gradient_clipping ? Pt * clip_read_elements * fp32_bytes : 0.0,
            t.gradient_clipping ? Pt * clip_write_elements * fp32_bytes : 0.0);
  add_phase(r, training_phase::mixed_precision, f.mixed_precision, mp_read, mp_write);
  add_phase(r, training_phase::optimizer, f.optimizer,
            Pt * fp32_bytes * (t.fused_optimizer ? oc.read_fused : oc.read_unfused),
            Pt * fp32_bytes * (t.fused_optimizer ? oc.write_fused : oc.write_unfused));

  // ---- Roofline ----
  r.has_performance = e.has_performance;
  double pc = 0, pm = 0;
  if (e.has_performance) {
    r.peak_flops_per_s = e.perf.peak_flops_per_s;
    r.memory_bandwidth_bytes_per_s = e.perf.memory_bandwidth_bytes_per_s;
    pc = r.peak_flops_per_s * s.compute_efficiency;
    pm = r.memory_bandwidth_bytes_per_s * s.mem_efficiency;
  }
  for (phase_cost& c : r.phases) time_phase(c, pc, pm);
  r.backward_phase = sum_phases(r.phases, 1, 4);
  r.step = sum_phases(r.phases, 0, r.phases.size());
  f.sum_of_parts = r.step.flops;
  f.sum_of_parts_ratio = f.sum_of_parts > 0 ? f.total_step / f.sum_of_parts : 0.0;
  if (r.has_performance && r.step.time_s > 0) {
    r.tokens_per_second = T / r.step.time_s;
    r.model_flops_utilization = f.model_flops / (r.step.time_s * r.peak_flops_per_s);
  }

  // ---- 6ND cross-check (per step) ----
  cross_check_6nd& x = r.cross_check;
  x.parameters = d(e.parameters.active);  // all for dense models, the active path for MoE
  x.non_embedding_parameters = x.parameters - d(e.parameters.embedding);
  x.tokens = T;
  x.forward_plus_backward = f.model_flops;
  x.flops_6nt = 6 * x.parameters * T;
  x.ratio = f.model_flops / x.flops_6nt;
  x.flops_6nt_non_embedding = 6 * x.non_embedding_parameters * T;
  x.ratio_non_embedding = x.flops_6nt_non_embedding > 0 ? f.model_flops / x.flops_6nt_non_embedding : 0.0;

  // ---- Token budget ----
  token_budget& tb = r.budget;
  tb.default_tokens = !t.tokens;
  tb.tokens = t.tokens.value_or(default_tokens_per_parameter * P);
  t.tokens = tb.tokens;
  tb.tokens_per_step = T;
  const double steps = tb.tokens / T;
  tb.steps = std::ceil(steps);
  tb.total_flops = steps * f.total_step;
  tb.model_flops = steps * f.model_flops;
  tb.mfu = *t.mfu;
  tb.gpus = t.gpus;
  tb.flops_6nd = 6 * x.parameters * tb.tokens;
  tb.ratio_total_to_6nd = tb.total_flops / tb.flops_6nd;
  tb.ratio_model_to_6nd = tb.model_flops / tb.flops_6nd;
  if (r.has_performance) {
    tb.has_time = true;
    tb.time_s = tb.model_flops / (d(t.gpus) * r.peak_flops_per_s * tb.mfu);
    tb.gpu_hours = tb.time_s * d(t.gpus) / 3600.0;
    tb.cost_usd = tb.gpu_hours * e.perf.cost_per_hour_usd;
    tb.roofline_time_s = steps * r.step.time_s / d(t.gpus);
  }

  // ---- LoRA ----
  if (lora) {
    lora_analysis l;
    l.rank = t.lora.rank;
    l.targets = t.lora.targets;
    l.base_precision = base_p;
    l.quantized = quantized;
    l.base_bits_per_quantized_weight = quantized ? quantized_bits(base_p) : 8.0 * storage_bytes(base_p);
    l.trainable_parameters = lora_params;
    l.base_parameters = e.parameters.total;
    l.all_parameters = e.parameters.total + lora_params;
    l.trainable_percent = 100.0 * d(lora_params) / d(l.all_parameters);
    l.adapted_matrices = lora_matrices;
    l.quantized_parameters = quantized ? static_cast<std::int64_t>(split.quantizable) : 0;
    l.base_weight_bytes = base_weight_bytes;
    l.adapter_bytes = Pt * (w_pp + g_pp + o_pp);
    r.lora = l;
  }

  // ---- Notes and recommendations ----
  r.notes.push_back(
      "activation memory, memory traffic and times are ESTIMATES (first-order roofline); FLOP counts are exact under "
      "the stated conventions");
  if (s.flash_attention)
    r.notes.push_back(
        "FlashAttention: the backward kernel recomputes scores and softmax (recompute.flash_attention_kernel); "
        "selective recompute adds nothing to it");
  r.notes.push_back(
      "token budget time: model FLOPs (forward + backward) at the given MFU; recompute, optimizer, clipping and casts "
      "are not model FLOPs");
  if (lora)
    r.notes.push_back("LoRA: no weight gradients for the frozen base, so forward + backward is near 4·N·T, not 6·N·T");
  for (std::uint32_t bit = 1; bit != 0; bit <<= 1)  // the estimate's notes that concern training
    if ((e.notes & bit) && bit != note_encoder_no_decode && bit != note_mla_absorbed_decode &&
        *note_text(static_cast<note>(bit)) != '\0')
      r.notes.emplace_back(note_text(static_cast<note>(bit)));
  recommend(r, m, gpu);
  return r;
}

}  // namespace flopcast
