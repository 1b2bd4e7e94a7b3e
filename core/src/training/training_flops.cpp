// The FLOPs of one training step: forward, backward (by gradient kind and by component),
// activation recompute, optimizer, gradient clipping and mixed-precision casts.
//
// Conventions (those of flops.cpp, plus the backward and the optimizer):
// - a multiply-add is 2 FLOPs; elementwise ops 1 per element; softmax 5 per score; RoPE 3 per
//   rotated element; RMSNorm 4 and LayerNorm 7 per element (flops.cpp).
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
//   project_in is linear. The embedding lookup itself is 0 (flops.cpp).
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
#include <algorithm>

#include "training/training_parts.hpp"

namespace flopcast::detail {
namespace {

constexpr double clip_flops_per_param = 3.0;
constexpr double cast_flops_per_param = 2.0;          // grad -> fp32, master -> 16-bit
constexpr double fp16_scaling_flops_per_param = 2.0;  // unscale, inf/NaN check
constexpr double dequant_flops_per_weight = 2.0;

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
  const double h = d(m.hidden_size);
  for (const layer_group& g : m.groups) {
    const attention_spec& a = attention_of(m, g);
    const double c = d(g.count), T = tokens;
    if (!has_attention(g)) {
      // linear-attention and state-space mixers: not LoRA targets here
    } else if (a.mla) {
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
    if (!g.mlp) {
      // a mixer-only block
    } else if (g.moe) {
      const double E = d(m.moe.num_experts), k = d(m.moe.experts_per_token);
      const bool gated = m.moe.gated_experts;
      mlp(c * E, T * k / E, d(m.moe.expert_intermediate_size), gated);  // each expert sees T·k/E tokens on average
      if (m.moe.shared_intermediate_size > 0) mlp(c, T, d(m.moe.shared_intermediate_size), gated);
    } else {
      mlp(c, T, d(mlp_width_of(m, g)), m.mlp.gated);
    }
  }
}

// Parameters of a layer's MLP that are biases (not matmul weights).
std::int64_t mlp_bias_params(const model_spec& m, const layer_group& g) {
  if (g.moe) return m.moe.router_bias ? detail::router_outputs(m.moe) : 0;
  if (!m.mlp.bias) return 0;
  return (m.mlp.gated ? 2 : 1) * mlp_width_of(m, g) + m.hidden_size;
}

}  // namespace

// Per trainable parameter and step. Traffic in fp32 elements (4 bytes): the master weight
// (or fp32 weight), the fp32 gradient and the state. Unfused = PyTorch's foreach kernels:
// adam m.lerp_(g) (R2 W1), v.mul_ (R1 W1), v.addcmul_(g, g) (R2 W1), sqrt, / bias
// correction, + eps (R1 W1 each), p.addcdiv_(m, denom) (R3 W1): R11 W7; adamw adds
// p.mul_(1 - lr·wd) (R1 W1). sgd: buf.mul_ (R1 W1), buf.add_(g) (R2 W1), p.add_(buf) (R2 W1).
// Fused: each tensor read once and written once (adam: p, g, m, v in; p, m, v out).
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

forward_split split_forward(const model_spec& m, double T) {
  forward_split s;
  const double h = d(m.hidden_size);
  for (const layer_group& g : m.groups) {
    const detail::layer_weights w = detail::weights_of(m, g);
    const double c = d(g.count);
    const double o_bias = attention_of(m, g).o_bias ? h : 0.0;
    s.qkv_bias += c * T * (d(w.attn_bias) - o_bias);
    s.o_bias += c * T * o_bias;
    const double bias = d(mlp_bias_params(m, g));
    s.mlp_linear += c * 2 * T * (d(w.mlp_active) - bias);
    if (!g.moe) s.mlp_bias += c * T * bias;  // the router bias only selects experts: no FLOPs
    s.quantizable += c * (d(w.attn_matmul) + d(w.attn_kv_matmul) + d(w.mlp_total) + d(w.mixer) - bias);
  }
  return s;
}

lora_totals lora_adapters(const model_spec& m, const training_settings& t, double tokens) {
  lora_totals l;
  if (t.lora.rank <= 0) return l;
  const double rank = d(t.lora.rank);
  const double act_bytes = activation_bytes(t.base.weight_precision);
  for_each_adaptable(m, tokens, [&](const linear_shape& s) {
    if ((s.module & t.lora.targets) == 0) return;
    // Checked: a config with 2^30 experts and a large rank must fail, not wrap.
    const auto matrices = static_cast<std::int64_t>(s.matrices);
    l.params = add(l.params, mul(matrices, t.lora.rank, static_cast<std::int64_t>(s.in + s.out)));
    l.matrices = add(l.matrices, matrices);
    l.matmul += s.matrices * 2 * s.tokens * rank * (s.in + s.out);
    l.scale += s.matrices * s.tokens * s.out;
    l.wgrad_read += s.matrices * s.tokens * (s.in + s.out + 2 * rank) * act_bytes;
  });
  if (l.params == 0)
    throw error(
        error_code::invalid_argument, "/training_analysis/lora_targets",
        "no linear layer of " + m.name + " matches the LoRA targets \"" + lora_targets_name(t.lora.targets) + "\"");
  return l;
}

elementwise_cost mixed_precision_cost(const training_core& c) {
  const training_settings& t = c.config;
  const precision wp = t.base.weight_precision;
  const double Pt = d(c.trainable_parameters), wbytes = storage_bytes(wp);
  elementwise_cost mp;
  if (wbytes < fp32_bytes) {
    mp.flops += cast_flops_per_param * Pt;
    mp.read += Pt * (wbytes + fp32_bytes);  // read the 16-bit gradient and the fp32 master
    mp.write += Pt * (fp32_bytes + wbytes);
    if (wp == precision::fp16) {
      mp.flops += fp16_scaling_flops_per_param * Pt;
      mp.read += Pt * 2 * fp32_bytes;
      mp.write += Pt * fp32_bytes;
    }
  }
  // Quantised LoRA base: dequantised to 16 bits before each matmul pass.
  if (c.quantized) {
    const double passes = 2.0 + (*t.recompute == recompute_policy::full ? 1.0 : 0.0);
    const double q = c.split.quantizable;
    mp.flops += dequant_flops_per_weight * q * passes;
    mp.read += q * quantized_bits(c.base_precision) / 8.0 * passes;
    mp.write += q * wbytes * passes;
  }
  return mp;
}

step_flops training_flops(const model_spec& m, const training_core& c, const pass_flops& fwd) {
  const training_settings& t = c.config;
  const settings& s = t.base;
  const recompute_policy policy = *t.recompute;
  const bool lora = t.lora.rank > 0;
  const forward_split& split = c.split;
  const double T = d(s.batch_size) * d(s.sequence_length), h = d(m.hidden_size);
  const double Pt = d(c.trainable_parameters);
  const double lora_fwd = c.lora.forward(), lora_matmul = c.lora.matmul, lora_scale = c.lora.scale;

  step_flops f;
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
    const double elements = fp.norm / norm_flops_per_element(m.norm);
    const double w = lora ? 0.0 : elements * (m.norm == norm_kind::rmsnorm ? 2.0 : 3.0);
    const double x = 2 * fp.norm - elements * (m.norm == norm_kind::rmsnorm ? 2.0 : 3.0);
    weight += w;
    input += x;
    b.norm = w + x;
  }
  // Embedding: scatter-add into the tables; nothing for a frozen embedding.
  if (!lora) {
    const double emb_tokens = T * (m.arch == architecture::encoder_decoder ? 2.0 : 1.0);
    const double ed = d(embed_dim(m));
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
  // Linear-attention and state-space mixers: their matmuls dominate, each needs a weight and an
  // input gradient (2 x forward; the frozen weights of LoRA need only the input's).
  {
    const double w = lora ? 0.0 : fp.mixer;
    weight += w;
    input += fp.mixer;
    b.mixer = w + fp.mixer;
  }
  if (lora) {
    b.lora_adapters = 2 * lora_matmul + lora_scale;
    weight += lora_matmul;
    input += lora_matmul + lora_scale;
  }
  b.total = ab.total + b.mlp + b.norm + b.embedding + b.output_head + b.mixer + b.lora_adapters;
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
  f.mixed_precision = mixed_precision_cost(c).flops;
  f.total_step = f.forward + b.total + rc.total + f.optimizer + f.gradient_clipping + f.mixed_precision;
  f.model_flops = f.forward + b.total;
  return f;
}

}  // namespace flopcast::detail
