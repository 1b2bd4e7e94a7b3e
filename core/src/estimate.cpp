// The analytical estimator. Every formula lives here, once.
//
// Conventions (see README "How flopcast counts"):
// - a multiply-add is 2 FLOPs; a bias add, an activation, a gate multiply or a
//   residual-free elementwise op is 1 FLOP per element; softmax is 5 per score (scale, max,
//   exp, sum, normalise); RoPE is 3 per rotated element; RMSNorm 4 and LayerNorm 7 per element.
// - the embedding lookup is 0 FLOPs; residual additions are not counted.
// - counts are carried in double: exact for every integer below 2^53, never overflowing.
#include "flopcast/estimate.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "detail.hpp"
#include "flopcast/error.hpp"

namespace flopcast {

const char* to_string(bound b) noexcept { return b == bound::compute ? "compute" : "memory"; }

efficiency_spread compute_spread(efficiency_origin o) noexcept {
  return o == efficiency_origin::calibrated ? efficiency_spread{0.9, 1.1} : efficiency_spread{0.7, 1.2};
}
efficiency_spread memory_spread(efficiency_origin o) noexcept {
  return o == efficiency_origin::calibrated ? efficiency_spread{0.9, 1.1} : efficiency_spread{0.6875, 1.125};
}
const char* range_source() noexcept {
  return "efficiency spread seen in public measurements: compute (MFU) 0.7x-1.2x of the point (0.35-0.6 at the "
         "default 0.5: PaLM 46%, Megatron-LM 52%, Llama 3 405B 38-43%), memory bandwidth 0.69x-1.13x (0.55-0.9 at the "
         "default 0.8: Databricks MBU ~60% at batch 1, vLLM/TensorRT-LLM 80-90% at large batch); +-10% when calibrated";
}

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
    case note_none:
      break;
  }
  return "";
}

namespace {

using detail::embed_dim;

double d(std::int64_t v) { return static_cast<double>(v); }

// Keys a query at position `c` (0-based, c tokens before it) attends to.
double keys_at(double c, std::int64_t window) { return window > 0 ? std::min(c + 1.0, d(window)) : c + 1.0; }
// (query, key) pairs for a causal prefill of s tokens under a window.
double causal_pairs(double s, std::int64_t window) {
  if (window <= 0 || s <= d(window)) return s * (s + 1.0) / 2.0;
  const double w = d(window);
  return w * (w + 1.0) / 2.0 + (s - w) * w;
}

void validate_positive_int(std::int64_t v, const char* field, std::int64_t max) {
  if (v < 1 || v > max)
    throw error(error_code::invalid_argument, field,
                "expected an integer in [1, " + std::to_string(max) + "], but got " + std::to_string(v));
}
void validate_fraction(double v, const char* field) {
  if (!(v > 0.0 && v <= 1.0))
    throw error(error_code::invalid_argument, field,
                "expected a number in (0, 1], but got " + detail::format_number(v));
}

// What one pass computes: per sequence, `q_tokens` queries per decoder layer and
// `enc_tokens` encoder tokens; attention pairs come from `pairs_for`.
enum class pass_kind { forward, prefill, decode };

struct pass_shape {
  double batch = 1;
  double q_tokens = 0;       // decoder (or encoder-only) query tokens per sequence
  double enc_tokens = 0;     // encoder tokens per sequence (encoder-decoder)
  double head_tokens = 0;    // positions that go through the LM head, per sequence
  double kv_new_tokens = 0;  // tokens whose K/V are produced (MLA kv_b, cross K/V)
  bool absorbed_mla = false;
  bool cross_kv = false;  // compute the cross-attention K/V of the encoder output
};

// Self-attention pairs per sequence for one group.
double self_pairs(const layer_group& g, pass_kind kind, double tokens, double context, bool causal) {
  if (kind == pass_kind::decode) return keys_at(context, g.window);
  if (g.encoder || !causal) return tokens * tokens;
  return causal_pairs(tokens, g.window);
}

// Adds one layer's attention terms: `count` layers to the pass, one to the layer row.
void accumulate(attention_detail& pass, layer_flops& layer, double count, const attention_detail& one) {
  pass.qkv_projection += count * one.qkv_projection;
  pass.rotary += count * one.rotary;
  pass.attention_scores += count * one.attention_scores;
  pass.softmax += count * one.softmax;
  pass.attention_values += count * one.attention_values;
  pass.output_projection += count * one.output_projection;
  pass.cross_kv_projection += count * one.cross_kv_projection;
  layer.attention += one.qkv_projection + one.rotary + one.attention_scores + one.softmax + one.attention_values +
                     one.output_projection + one.cross_kv_projection;
}

void add_attention(const model_spec& m, double T, double P, double kv_tokens, bool absorbed, pass_flops& out,
                   layer_flops& lf, double count) {
  const attention_spec& a = m.attention;
  const double h = d(m.hidden_size), nh = d(a.num_heads);
  double qkv = 0, rot = 0, scores = 0, soft = 0, values = 0, oproj = 0, norm = 0;
  if (a.mla) {
    const double qk = d(a.qk_nope_head_dim + a.qk_rope_head_dim), rope = d(a.qk_rope_head_dim);
    const double kvr = d(a.kv_lora_rank), v = d(a.v_head_dim);
    qkv = a.q_lora_rank > 0 ? 2 * T * (h * d(a.q_lora_rank) + d(a.q_lora_rank) * nh * qk) : 2 * T * h * nh * qk;
    qkv += 2 * T * h * (kvr + rope);  // kv_a_proj_with_mqa
    norm += detail::norm_flops_per_element(norm_kind::rmsnorm) * T * (kvr + d(a.q_lora_rank));
    rot = 3 * T * (nh + 1) * rope;
    oproj = 2 * T * nh * v * h;
    if (absorbed) {
      qkv += 2 * T * nh * d(a.qk_nope_head_dim) * kvr;  // q_nope x W_UK
      scores = 2 * P * nh * (kvr + rope);
      values = 2 * P * nh * kvr;
      oproj += 2 * T * nh * kvr * v;  // latent x W_UV
    } else {
      qkv += 2 * kv_tokens * kvr * nh * (d(a.qk_nope_head_dim) + v);  // kv_b_proj
      scores = 2 * P * nh * qk;
      values = 2 * P * nh * v;
    }
    soft = 5 * P * nh;
  } else {
    const double q = nh * d(a.head_dim), kv = d(a.num_kv_heads) * d(a.head_dim + a.v_head_dim);
    qkv = 2 * T * h * (q + kv);
    if (a.qkv_bias) qkv += T * (q + kv);
    oproj = 2 * T * nh * d(a.v_head_dim) * h;
    if (a.o_bias) oproj += T * h;
    if (a.qk_norm) norm += 4 * T * d(a.num_heads + a.num_kv_heads) * d(a.head_dim);
    rot = 3 * T * d(a.num_heads + a.num_kv_heads) * d(a.rotary_dim);
    scores = 2 * P * nh * d(a.head_dim);
    if (m.position == position_kind::alibi || m.position == position_kind::relative_bias) scores += P * nh;
    soft = 5 * P * nh;
    values = 2 * P * nh * d(a.v_head_dim);
  }
  accumulate(out.attention, lf, count, {qkv, rot, scores, soft, values, oproj, 0});
  lf.norm += norm;
}

void add_cross_attention(const model_spec& m, double T, double P, double enc_kv_tokens, pass_flops& out,
                         layer_flops& lf, double count) {
  const attention_spec& a = m.attention;
  const double h = d(m.hidden_size), inner = d(a.num_heads) * d(a.head_dim), nh = d(a.num_heads);
  const double q = 2 * T * h * inner, o = 2 * T * inner * h, kv = 2 * enc_kv_tokens * h * 2 * inner;
  const double scores = 2 * P * nh * d(a.head_dim), soft = 5 * P * nh, values = 2 * P * nh * d(a.head_dim);
  accumulate(out.attention, lf, count, {q, 0, scores, soft, values, o, kv});
}

double mlp_flops(const model_spec& m, double T, std::int64_t width, bool gated, bool bias) {
  const double h = d(m.hidden_size), I = d(width);
  double f = gated ? 6 * T * h * I + 2 * T * I : 4 * T * h * I + T * I;  // matmuls + activation (+ gate product)
  if (bias) f += T * ((gated ? 2 : 1) * I + h);
  return f;
}

double layer_mlp_flops(const model_spec& m, const layer_group& g, double T) {
  if (!g.moe) return mlp_flops(m, T, m.mlp.intermediate_size, m.mlp.gated, m.mlp.bias);
  const moe_spec& e = m.moe;
  const double h = d(m.hidden_size), E = d(e.num_experts), k = d(e.experts_per_token);
  double f = 2 * T * h * E + 5 * T * E;                               // router logits + softmax/top-k
  f += k * mlp_flops(m, T, e.expert_intermediate_size, true, false);  // routed experts on the active path
  f += 2 * T * k * h;                                                 // weighted combination of expert outputs
  if (e.shared_intermediate_size > 0) f += mlp_flops(m, T, e.shared_intermediate_size, true, false);
  if (e.shared_expert_gate) f += 2 * T * h + T + T * h;  // gate logit, sigmoid, scale
  return f;
}

// One pass over the whole batch. `context` is the decode position (tokens already cached).
pass_flops run_pass(const model_spec& m, pass_kind kind, double batch, double seq, double context, bool causal) {
  pass_flops out;
  const double h = d(m.hidden_size), B = batch;
  const bool encdec = m.arch == architecture::encoder_decoder;
  const double norm_e = detail::norm_flops_per_element(m.norm);

  // Token counts per sequence.
  double dec_tokens = seq, enc_tokens = 0, head_tokens = seq;
  if (encdec) {
    enc_tokens = kind == pass_kind::decode ? 0 : seq;
    dec_tokens = kind == pass_kind::forward ? seq : 1;
    head_tokens = dec_tokens;
  } else if (kind == pass_kind::decode) {
    dec_tokens = 1;
    head_tokens = 1;
  } else if (kind == pass_kind::prefill && m.arch == architecture::decoder) {
    head_tokens = 1;  // serving engines compute logits for the last position only
  }
  if (m.arch == architecture::encoder) head_tokens = 1;  // pooler on [CLS]

  for (std::size_t i = 0; i < m.groups.size(); ++i) {
    const layer_group& g = m.groups[i];
    const double T = (g.encoder && encdec ? enc_tokens : dec_tokens) * B;
    if (T == 0) continue;
    const double tokens_per_seq = g.encoder && encdec ? enc_tokens : dec_tokens;
    const double pairs = self_pairs(g, kind, tokens_per_seq, context, causal) * B;
    layer_flops lf;
    const double count = d(g.count);
    add_attention(m, T, pairs, T, kind == pass_kind::decode, out, lf, count);
    if (g.cross_attention) {
      const double cross_pairs = dec_tokens * seq * B;
      add_cross_attention(m, T, cross_pairs, kind == pass_kind::decode ? 0 : enc_tokens * B, out, lf, count);
    }
    const double norms = d(m.norms_per_layer + (g.cross_attention ? 1 : 0));
    lf.norm += norms * norm_e * T * h;
    lf.mlp += layer_mlp_flops(m, g, T);
    out.per_layer[i] = lf;
    out.parts.attention += count * lf.attention;
    out.parts.mlp += count * lf.mlp;
    out.parts.norm += count * lf.norm;
  }

  // Embedding side (the lookup itself is free).
  const double emb_tokens = (encdec ? enc_tokens + dec_tokens : dec_tokens) * B;
  if (m.learned_positions > 0) out.parts.embedding += emb_tokens * h;
  if (m.token_type_vocab > 0) out.parts.embedding += emb_tokens * h;
  if (m.scale_embeddings) out.parts.embedding += emb_tokens * h;
  if (m.embed_proj_dim > 0) out.parts.embedding += 2 * emb_tokens * d(m.embed_proj_dim) * h;  // project_in
  if (m.embedding_norm) out.parts.norm += norm_e * emb_tokens * h;

  // Final norms: every position of each stack.
  if (m.final_norm) out.parts.norm += norm_e * h * (encdec ? (enc_tokens + dec_tokens) * B : dec_tokens * B);

  // Head.
  const double HT = head_tokens * B;
  if (m.lm_head) {
    const double ed = d(embed_dim(m));
    out.parts.output_head += 2 * HT * ed * d(m.vocab_size);
    if (m.embed_proj_dim > 0) out.parts.output_head += 2 * HT * h * ed;  // project_out
  }
  if (m.pooler) out.parts.output_head += 2 * HT * h * h + 2 * HT * h;  // dense + bias + tanh

  out.parts.total = out.parts.embedding + out.parts.attention + out.parts.mlp + out.parts.norm + out.parts.output_head;
  return out;
}

// KV-cache bytes per cached token per layer of a group (self-attention only).
double kv_elements_per_token(const model_spec& m) {
  const attention_spec& a = m.attention;
  if (a.mla) return d(a.kv_lora_rank + a.qk_rope_head_dim);  // the compressed latent and the shared rope key
  return d(a.num_kv_heads) * d(a.head_dim + a.v_head_dim);
}

struct activation_estimate {
  double inference;
  double training;
  double training_replicated_fraction;  // norm inputs/outputs: not sharded by TP without SP
};

// ESTIMATES of activation memory; see README for what they include.
activation_estimate estimate_activations(const model_spec& m, const settings& s, double act_bytes) {
  const attention_spec& a = m.attention;
  const double B = d(s.batch_size), S = d(s.sequence_length), h = d(m.hidden_size), nh = d(a.num_heads);
  const double qkv = a.mla ? nh * d(a.head_dim) + nh * d(a.head_dim) + nh * d(a.v_head_dim)
                           : nh * d(a.head_dim) + d(a.num_kv_heads) * d(a.head_dim + a.v_head_dim);
  const double attn_out = nh * d(a.v_head_dim);
  double mlp_live = 0, mlp_stored = 0;
  bool any_moe = false;
  for (const auto& g : m.groups) any_moe = any_moe || g.moe;
  if (m.mlp.intermediate_size > 0) {
    const double I = d(m.mlp.intermediate_size);
    mlp_live = m.mlp.gated ? 2 * I : I;
    mlp_stored = m.mlp.gated ? 3 * I : 2 * I;
  }
  if (any_moe) {
    const double k = d(m.moe.experts_per_token), Ie = d(m.moe.expert_intermediate_size),
                 Is = d(m.moe.shared_intermediate_size);
    mlp_live = std::max(mlp_live, k * 2 * Ie + 2 * Is + d(m.moe.num_experts));
    mlp_stored = std::max(mlp_stored, k * 3 * Ie + 3 * Is + d(m.moe.num_experts));
  }
  // Eager attention materialises the full S x S scores (even under a sliding window).
  const double scores = s.flash_attention ? 0.0 : nh * S;

  // Inference: the largest set of tensors live at once inside one layer during prefill,
  // plus the fp32 logits of the last position.
  const double per_token_live = 2 * h + std::max(qkv + attn_out, mlp_live) + scores;
  const double logits = m.lm_head ? B * d(m.vocab_size) * 4.0 : 0.0;
  const double inference = B * S * per_token_live * act_bytes + logits;

  // Training: tensors saved for backward per layer and token (norm inputs, q/k/v,
  // attention output, MLP input and intermediates; softmax probabilities without FlashAttention),
  // plus fp32 logits of every position for the loss.
  const double per_token_layer = 4 * h + qkv + attn_out + mlp_stored + scores;
  const double layers = d(m.num_layers + m.num_encoder_layers);
  const double stored = s.gradient_checkpointing
                            ? B * S * (layers * h + per_token_layer) * act_bytes  // layer inputs + one layer recomputed
                            : B * S * layers * per_token_layer * act_bytes;
  const double train_logits = m.lm_head ? B * S * d(m.vocab_size) * 4.0 : 0.0;
  return {inference, stored + train_logits, 4 * h / per_token_layer};
}

// Cost of a decode step as a function of the context c: base + sum over groups of
// slope * keys_at(c, window). Linear between window breakpoints, so sums are exact.
struct step_cost {
  double base = 0;
  std::array<double, max_layer_groups> per_key{};
  [[nodiscard]] double at(const model_spec& m, double c) const {
    double v = base;
    for (std::size_t i = 0; i < m.groups.size(); ++i) v += per_key[i] * keys_at(c, m.groups[i].window);
    return v;
  }
};

// Sum over c in [lo, hi] of max(f(c)/pf, g(c)/pg), exact: f and g are linear between
// breakpoints, the max of two lines changes side at most once.
double sum_step_times(const model_spec& m, const step_cost& f, double pf, const step_cost& g, double pg, double lo,
                      double hi) {
  if (hi < lo) return 0;
  std::array<double, max_layer_groups + 1> cuts{};
  std::size_t n_cuts = 0;
  for (const auto& grp : m.groups)
    if (grp.window > 0) {
      const double c = d(grp.window) - 1.0;  // keys saturate from c = window - 1 on
      if (c > lo && c <= hi) cuts[n_cuts++] = c;
    }
  std::sort(cuts.begin(), cuts.begin() + static_cast<std::ptrdiff_t>(n_cuts));
  cuts[n_cuts++] = hi + 1;
  const auto series = [](double a, double slope, double x0, double x1) {  // sum_{x0..x1} (a + slope x)
    const double n = x1 - x0 + 1;
    return n <= 0 ? 0.0 : n * a + slope * (x0 + x1) * n / 2.0;
  };
  double total = 0, start = lo;
  for (std::size_t k = 0; k < n_cuts; ++k) {
    const double end = cuts[k] - 1;
    if (end < start) continue;
    // Lines through start and start+1 (exact within the segment).
    const double f0 = f.at(m, start) / pf, f1 = f.at(m, start + 1) / pf;
    const double g0 = g.at(m, start) / pg, g1 = g.at(m, start + 1) / pg;
    const double fs = f1 - f0, gs = g1 - g0, fa = f0 - fs * start, ga = g0 - gs * start;
    // Where does f - g change sign?
    double cross = end + 1;
    if (fs != gs) {
      const double x = (ga - fa) / (fs - gs);
      if (x > start && x < end + 1) cross = std::ceil(x);
    }
    const bool f_first = f0 >= g0;
    const double split = std::min(std::max(cross, start), end + 1);
    total += f_first ? series(fa, fs, start, split - 1) : series(ga, gs, start, split - 1);
    total += f_first ? series(ga, gs, split, end) : series(fa, fs, split, end);
    start = end + 1;
  }
  return total;
}

precision compute_precision_for(precision p, const hardware_spec& gpu, bool& fell_back) {
  // The chain of formats a matmul in precision p can run in, best first.
  static const std::array<std::vector<precision>, all_precisions.size()> chains = {{
      {precision::fp32},                                                    // fp32
      {precision::tf32, precision::fp32},                                   // tf32
      {precision::fp16, precision::fp32},                                   // fp16
      {precision::bf16, precision::fp32},                                   // bf16
      {precision::fp8, precision::bf16, precision::fp16, precision::fp32},  // fp8
      {precision::fp16, precision::bf16, precision::fp32},                  // int8: weight-only
      {precision::fp16, precision::bf16, precision::fp32},                  // int4: weight-only
  }};
  const auto& chain = chains[static_cast<std::size_t>(p)];
  for (std::size_t i = 0; i < chain.size(); ++i)
    if (gpu.peak(chain[i])) {
      fell_back = i > 0;
      return chain[i];
    }
  throw error(error_code::invalid_argument, "/gpu/peak_flops",
              "GPU " + gpu.name + " lists no peak FLOP/s usable for " + std::string(to_string(p)) +
                  " (expected one of its fallbacks, at least fp32)");
}

}  // namespace

void validate(const settings& s) {
  constexpr std::int64_t max_size = std::int64_t{1} << 40;
  validate_positive_int(s.batch_size, "/batch_size", max_size);
  validate_positive_int(s.sequence_length, "/sequence_length", max_size);
  if (s.num_generated_tokens < 0 || s.num_generated_tokens > max_size)
    throw error(error_code::invalid_argument, "/num_generated_tokens",
                "expected an integer in [0, " + std::to_string(max_size) + "], but got " +
                    std::to_string(s.num_generated_tokens));
  validate_fraction(s.compute_efficiency, "/compute_efficiency");
  validate_fraction(s.mem_efficiency, "/mem_efficiency");
  validate_fraction(s.power_utilization, "/power_utilization");
  if (!(s.carbon_intensity_g_per_kwh >= 0 && s.carbon_intensity_g_per_kwh < 1e6))
    throw error(
        error_code::invalid_argument, "/carbon_intensity",
        "expected a number of g/kWh in [0, 1e6), but got " + detail::format_number(s.carbon_intensity_g_per_kwh));
  if (s.cost_per_hour_usd && !(*s.cost_per_hour_usd >= 0 && *s.cost_per_hour_usd < 1e9))
    throw error(
        error_code::invalid_argument, "/cost_per_hour",
        "expected a non-negative number of USD per hour, but got " + detail::format_number(*s.cost_per_hour_usd));
  if (s.training && (s.weight_precision == precision::fp8 || is_weight_only(s.weight_precision)))
    throw error(error_code::invalid_argument, "/precision",
                "training in " + std::string(to_string(s.weight_precision)) +
                    " is not modelled: expected fp32, tf32, fp16 or bf16 for training");
}

pass_flops forward_flops(const model_spec& m, std::int64_t batch, std::int64_t tokens, bool causal) {
  return run_pass(m, pass_kind::forward, d(batch), d(tokens), 0, causal);
}

double kv_cache_bytes(const model_spec& m, std::int64_t batch, double tokens, precision kv,
                      std::int64_t encoder_tokens) {
  if (m.arch == architecture::encoder) return 0;
  const double per = kv_elements_per_token(m) * storage_bytes(kv);
  double total = 0;
  for (const auto& g : m.groups) {
    if (g.encoder) continue;
    const double cached = g.window > 0 ? std::min(tokens, d(g.window)) : tokens;
    total += d(g.count) * cached * per;
    if (g.cross_attention)  // cross-attention K/V of the encoder output
      total +=
          d(g.count) * d(encoder_tokens) * 2 * d(m.attention.num_heads) * d(m.attention.head_dim) * storage_bytes(kv);
  }
  return total * d(batch);
}

estimate_result estimate(const model_spec& m, const settings& s, const hardware_spec* gpu) {
  validate(s);
  if (!s.parallel.trivial()) detail::validate_layout(m, s);
  estimate_result r;
  const bool encdec = m.arch == architecture::encoder_decoder;
  const bool encoder_only = m.arch == architecture::encoder;
  const double B = d(s.batch_size), S = d(s.sequence_length), N = d(s.num_generated_tokens);

  r.parameters = count_parameters(m);
  r.forward = run_pass(m, pass_kind::forward, B, S, 0, s.causal);
  r.backward_flops = 2 * r.forward.parts.total;
  r.prefill = encoder_only ? r.forward : run_pass(m, pass_kind::prefill, B, S, 0, s.causal);
  // Decode context: tokens already cached when the step runs.
  const double c0 = encdec ? 1.0 : S;
  if (!encoder_only) r.decode_step = run_pass(m, pass_kind::decode, B, S, c0, s.causal);

  for (const auto& g : m.groups)
    if (g.window > 0) r.notes |= note_sliding_window;
  if (encoder_only) {
    r.notes |= note_encoder_no_decode;
    if (s.causal) r.notes |= note_causal_ignored_encoder;
  }
  if (m.attention.mla && !encoder_only) r.notes |= note_mla_absorbed_decode;

  // Memory.
  const precision wp = s.weight_precision;
  r.kv_precision = s.kv_cache_precision.value_or(is_weight_only(wp) ? precision::fp16 : wp);
  const double wbytes = storage_bytes(wp);
  const double act_bytes = detail::activation_bytes(wp);
  memory_breakdown& mem = r.memory;
  mem.weights = d(r.parameters.total) * wbytes;
  const double dec_tokens_end = encdec ? N : S + N;
  const double dec_tokens_prompt = encdec ? 1.0 : S;
  mem.kv_cache = kv_cache_bytes(m, s.batch_size, dec_tokens_end, r.kv_precision, s.sequence_length);
  mem.kv_cache_prompt = kv_cache_bytes(m, s.batch_size, dec_tokens_prompt, r.kv_precision, s.sequence_length);
  if (!encoder_only) {
    double layers = 0;
    for (const auto& g : m.groups) layers += g.encoder ? 0 : d(g.count);
    mem.kv_cache_per_token = layers * kv_elements_per_token(m) * storage_bytes(r.kv_precision);
  }
  const activation_estimate acts = estimate_activations(m, s, act_bytes);
  mem.activations = acts.inference;
  mem.total = mem.weights + mem.kv_cache + mem.activations;
  if (s.training) {
    const double P = d(r.parameters.total);
    mem.train_weights = P * wbytes;
    mem.train_gradients = P * wbytes;
    const double master = wbytes < 4 ? 4.0 : 0.0;  // fp32 master copy under mixed precision
    const double state = s.optim == optimizer::adam || s.optim == optimizer::adamw ? 8.0
                         : s.optim == optimizer::sgd                               ? 4.0
                                                                                   : 0.0;
    mem.train_optimizer_state = P * (master + state);
    mem.train_activations = acts.training;
    mem.train_activations_replicated_fraction = acts.training_replicated_fraction;
    mem.train_total = mem.train_weights + mem.train_gradients + mem.train_optimizer_state + mem.train_activations;
  }

  if (gpu == nullptr) return r;

  // Roofline.
  r.has_performance = true;
  performance& p = r.perf;
  mem.gpu_memory = gpu->memory_bytes;
  mem.fits_on_gpu = (s.training ? mem.train_total : mem.total) <= gpu->memory_bytes;
  bool fell_back = false;
  p.compute_precision = compute_precision_for(wp, *gpu, fell_back);
  if (fell_back) r.notes |= note_compute_fallback;
  if (s.compute_efficiency_origin == efficiency_origin::calibrated ||
      s.mem_efficiency_origin == efficiency_origin::calibrated)
    r.notes |= note_calibrated;
  p.peak_flops_per_s = *gpu->peak(p.compute_precision);
  p.memory_bandwidth_bytes_per_s = gpu->memory_bandwidth_bytes_per_s;

  // Weight bytes a pass reads: the token-embedding table only where rows are gathered
  // (an untied table is not streamed), MoE experts only as far as tokens reach them.
  const double ed = d(embed_dim(m)), h = d(m.hidden_size);
  const auto weight_bytes_read = [&](double tokens) {
    double params = d(r.parameters.total) - d(m.vocab_size) * ed - d(m.learned_positions + m.token_type_vocab) * h;
    params += (m.lm_head && m.tie_word_embeddings ? d(m.vocab_size) : std::min(tokens, d(m.vocab_size))) * ed;
    params += (std::min(tokens, d(m.learned_positions)) + std::min(tokens, d(m.token_type_vocab))) * h;
    for (const auto& g : m.groups) {
      if (!g.moe) continue;
      const double E = d(m.moe.num_experts), k = d(m.moe.experts_per_token);
      const double touched = E * (1.0 - std::pow(1.0 - k / E, tokens));
      params -= d(g.count) * (E - touched) * d(detail::weights_of(m, g).expert);
      r.notes |= note_moe_expected_experts;
    }
    return params * wbytes;
  };

  p.prefill_flops = r.prefill.parts.total;
  p.prefill_bytes = weight_bytes_read(B * S) + mem.kv_cache_prompt;
  p.cost_per_hour_usd = s.cost_per_hour_usd.value_or(gpu->cost_per_hour_usd);
  const double watts = gpu->tdp_watts * s.power_utilization;

  // Decode step cost as a function of context: FLOPs and bytes are affine in the keys
  // each group attends to. Slopes come from the attention terms that scale with keys.
  step_cost fl, by;
  if (!encoder_only) {
    const attention_spec& a = m.attention;
    const double nh = d(a.num_heads);
    const double flops_per_key =
        a.mla ? nh * (2 * d(a.kv_lora_rank + a.qk_rope_head_dim) + 5 + 2 * d(a.kv_lora_rank))
              : nh * (2 * d(a.head_dim) + 5 + 2 * d(a.v_head_dim)) +
                    ((m.position == position_kind::alibi || m.position == position_kind::relative_bias) ? nh : 0);
    const double kv_bytes_per_key = kv_elements_per_token(m) * storage_bytes(r.kv_precision);
    fl.base = r.decode_step.parts.total;
    by.base = weight_bytes_read(B) + B * mem.kv_cache_per_token;  // weights + the new token's K/V write
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
      const layer_group& g = m.groups[i];
      if (g.encoder) continue;
      const double per = d(g.count) * B;
      fl.per_key[i] = per * flops_per_key;
      by.per_key[i] = per * kv_bytes_per_key;
      fl.base -= fl.per_key[i] * keys_at(c0, g.window);  // run_pass already counted c0's keys
    }
    // Each step reads keys_at(c) cached K/V tokens per layer (the new one included, as
    // attention kernels do) and writes the new token's K/V once (in by.base).
    p.decode_first_step_flops = fl.at(m, c0);
    p.decode_first_step_bytes = by.at(m, c0);
    p.decode_steps = std::max<std::int64_t>(s.num_generated_tokens - 1, 0);
    p.decode_ceiling_tokens_per_second = B * gpu->memory_bandwidth_bytes_per_s / p.decode_first_step_bytes;
  }
  const double train_flops =
      r.forward.parts.total + r.backward_flops + (s.gradient_checkpointing ? r.forward.parts.total : 0);

  // Every time-derived figure at one pair of efficiencies.
  struct timing {
    double prefill_compute, prefill_memory, prefill, step_compute, step_memory, step, decode_total, per_token, tps,
        total, training, energy, cost;
  };
  const auto time_at = [&](double ce, double me) {
    timing t{};
    const double pc = p.peak_flops_per_s * ce, pm = gpu->memory_bandwidth_bytes_per_s * me;
    t.prefill_compute = p.prefill_flops / pc;
    t.prefill_memory = p.prefill_bytes / pm;
    t.prefill = std::max(t.prefill_compute, t.prefill_memory);
    t.total = t.prefill;
    if (!encoder_only) {
      t.step_compute = p.decode_first_step_flops / pc;
      t.step_memory = p.decode_first_step_bytes / pm;
      t.step = std::max(t.step_compute, t.step_memory);
      t.decode_total = sum_step_times(m, fl, pc, by, pm, c0, c0 + d(p.decode_steps) - 1);
      t.per_token = p.decode_steps > 0 ? t.decode_total / d(p.decode_steps) : t.step;
      t.tps = B / t.per_token;
      if (s.num_generated_tokens > 0) t.total += t.decode_total;
    }
    t.training = s.training ? train_flops / pc : 0.0;
    const double busy = s.training ? t.training : t.total;
    t.energy = busy * watts;
    t.cost = busy / 3600.0 * p.cost_per_hour_usd;
    return t;
  };

  const timing t = time_at(s.compute_efficiency, s.mem_efficiency);
  p.prefill_compute_s = t.prefill_compute;
  p.prefill_memory_s = t.prefill_memory;
  p.prefill_latency_s = t.prefill;
  p.prefill_bound = t.prefill_compute >= t.prefill_memory ? bound::compute : bound::memory;
  p.energy_prefill_joules = t.prefill * watts;
  if (!encoder_only) {
    p.decode_first_step_s = t.step;
    p.decode_bound = t.step_compute > t.step_memory ? bound::compute : bound::memory;
    p.decode_total_s = t.decode_total;
    p.decode_latency_per_token_s = t.per_token;
    p.decode_tokens_per_second = t.tps;
  }
  p.total_request_latency_s = t.total;
  p.training_step_s = t.training;
  p.energy_total_joules = t.energy;
  p.co2_grams = p.energy_total_joules / 3.6e6 * s.carbon_intensity_g_per_kwh;
  p.cost_usd = t.cost;

  // Ranges: the fast end at the high efficiencies, the slow end at the low ones.
  const efficiency_spread cs = compute_spread(s.compute_efficiency_origin), ms = memory_spread(s.mem_efficiency_origin);
  p.compute_efficiency_low = s.compute_efficiency * cs.low;
  p.compute_efficiency_high = std::min(1.0, s.compute_efficiency * cs.high);
  p.mem_efficiency_low = s.mem_efficiency * ms.low;
  p.mem_efficiency_high = std::min(1.0, s.mem_efficiency * ms.high);
  const timing fast = time_at(p.compute_efficiency_high, p.mem_efficiency_high);
  const timing slow = time_at(p.compute_efficiency_low, p.mem_efficiency_low);
  p.prefill_latency_range = {fast.prefill, slow.prefill};
  p.decode_latency_range = {fast.per_token, slow.per_token};
  p.decode_tokens_per_second_range = {slow.tps, fast.tps};
  p.total_request_latency_range = {fast.total, slow.total};
  p.training_step_range = {fast.training, slow.training};
  p.energy_total_range = {fast.energy, slow.energy};
  p.cost_range = {fast.cost, slow.cost};

  r.parallel = detail::parallel_view(m, s, *gpu, r);
  return r;
}

}  // namespace flopcast
