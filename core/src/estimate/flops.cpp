// FLOPs of one pass (forward, prefill, decode step) by component and by layer.
//
// Conventions (README, "What is exact and what is estimated"):
// - a multiply-add is 2 FLOPs; a bias add, an activation, a gate multiply or a
//   residual-free elementwise op is 1 FLOP per element; softmax is 5 per score (scale, max,
//   exp, sum, normalise); RoPE is 3 per rotated element; RMSNorm 4 and LayerNorm 7 per element.
// - the embedding lookup is 0 FLOPs; residual additions are not counted.
// - counts are carried in double: exact for every integer below 2^53, never overflowing.
#include <algorithm>

#include "estimate/estimate_parts.hpp"

namespace flopcast::detail {

// (query, key) pairs for a causal prefill of s tokens under a window.
double causal_pairs(double s, std::int64_t window) {
  if (window <= 0 || s <= d(window)) return s * (s + 1.0) / 2.0;
  const double w = d(window);
  return w * (w + 1.0) / 2.0 + (s - w) * w;
}

// (query, key) pairs of a causal prefill of s tokens in chunks of c (each query sees its chunk).
double chunked_pairs(double s, std::int64_t chunk) {
  const double c = d(chunk), full = std::floor(s / c), rest = s - full * c;
  return full * c * (c + 1.0) / 2.0 + rest * (rest + 1.0) / 2.0;
}

namespace {

// Self-attention pairs per sequence for one group (the keys attention proper reads).
double self_pairs(const model_spec& m, const layer_group& g, pass_kind kind, double tokens, double context,
                  bool causal) {
  const std::int64_t window = attention_window(m, g);
  if (kind == pass_kind::decode) return keys_at(context, window);
  if (g.encoder || !causal) return tokens * tokens;
  if (g.window == 0 && g.chunk > 0) return chunked_pairs(tokens, g.chunk);
  return causal_pairs(tokens, window);
}

// Every earlier key (the DeepSeek-V3.2 indexer scores them all).
double full_pairs(pass_kind kind, double tokens, double context, bool causal) {
  if (kind == pass_kind::decode) return keys_at(context, 0);
  return causal ? causal_pairs(tokens, 0) : tokens * tokens;
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

void add_attention(const model_spec& m, const layer_group& g, double T, double P, double P_full, double kv_tokens,
                   bool absorbed, pass_flops& out, layer_flops& lf, double count) {
  const attention_spec& a = attention_of(m, g);
  const double h = d(m.hidden_size), nh = d(a.num_heads);
  const bool rotary = m.position == position_kind::rotary && !g.nope;
  double qkv = 0, rot = 0, scores = 0, soft = 0, values = 0, oproj = 0, norm = 0;
  if (a.mla) {
    const double qk = d(a.qk_nope_head_dim + a.qk_rope_head_dim), rope = d(a.qk_rope_head_dim);
    const double kvr = d(a.kv_lora_rank), v = d(a.v_head_dim);
    qkv = a.q_lora_rank > 0 ? 2 * T * (h * d(a.q_lora_rank) + d(a.q_lora_rank) * nh * qk) : 2 * T * h * nh * qk;
    qkv += 2 * T * h * (kvr + rope);  // kv_a_proj_with_mqa
    norm += norm_flops_per_element(norm_kind::rmsnorm) * T * (kvr + d(a.q_lora_rank));
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
    if (a.index_heads > 0) {
      // DeepSeek-V3.2 lightning indexer: its q from the q latent, one key and a weight per head
      // from the hidden state, a LayerNorm on the key; then per (query, key) a dot product per
      // head, ReLU, the weighted sum over heads; the top-k pick is not counted.
      const double ih = d(a.index_heads), id = d(a.index_head_dim);
      const double q_in = a.q_lora_rank > 0 ? d(a.q_lora_rank) : h;
      qkv += 2 * T * q_in * ih * id + 2 * T * h * id + 2 * T * h * ih;
      norm += 7 * T * id;
      rot += 3 * T * (ih + 1) * rope;
      scores += P_full * ih * (2 * id + 3);
    }
  } else {
    const double width = qkv_width(a);  // q + k + v outputs
    const double gate = a.output_gate ? nh * d(a.head_dim) : 0.0;
    qkv = 2 * T * h * (width + gate);
    if (a.qkv_bias) qkv += T * width;
    oproj = 2 * T * nh * d(a.v_head_dim) * h + 2 * T * gate;  // sigmoid and product of the gate
    if (a.o_bias) oproj += T * h;
    if (a.qk_norm) norm += 4 * T * d(a.num_heads + a.num_kv_heads) * d(a.head_dim);
    if (rotary) rot = 3 * T * d(a.num_heads + a.num_kv_heads) * d(a.rotary_dim);
    scores = 2 * P * nh * d(a.head_dim);
    if (m.position == position_kind::alibi || m.position == position_kind::relative_bias) scores += P * nh;
    soft = 5 * P * nh;
    if (a.sinks) soft += 5 * T * nh;  // the sink logit joins each query's softmax
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

// A linear-attention or state-space mixer over T tokens, in its recurrent form (what decode
// runs; chunked prefill kernels do the same work up to their intra-chunk terms).
double mixer_flops(const model_spec& m, mixer_kind k, double T, bool rwkv_first = false) {
  const double h = d(m.hidden_size);
  if (k == mixer_kind::rwkv) {
    const rwkv_spec& r = m.rwkv;
    const double A = d(r.attention_size), S = d(r.head_size);
    double f = T * h;  // token shift: the difference to the previous token
    if (r.version == 6) {
      const double R = d(r.mix_rank), D = d(r.decay_rank);
      f += 2 * T * h;                                          // x + xx * time_maa_x
      f += 2 * T * h * 5 * R + 5 * T * R + 2 * T * 5 * R * h;  // token-shift LoRA (tanh)
      f += 5 * 3 * T * h;                                      // five data-dependent mixes
      f += 2 * T * h * 4 * A + T * A;                          // r, k, v, g projections, SiLU(g)
      f += 2 * T * h * D + T * D + 2 * T * D * A + 3 * T * A;  // decay LoRA, + time_decay, exp(-exp)
      // WKV per head: k v^T, the bonus u * kv, the state added, the read with r (2) and the decay
      // and add of the update: 7 FLOPs per state element.
      f += 7 * T * A * S;
    } else {
      const bool gate = r.gate_rank > 0;
      const double rank = d(r.decay_rank + r.a_rank + (rwkv_first ? 0 : r.value_rank) + r.gate_rank);
      f += (gate ? 6 : 5) * 2 * T * h;                     // addcmul mixes
      f += 2 * T * h * 3 * A;                              // r, k, v
      f += 2 * T * h * rank + 2 * T * rank * A;            // the w, a, v, g LoRAs
      f += T * d(r.decay_rank + r.gate_rank) + 6 * T * A;  // tanh, sigmoid; biases, decay, a's sigmoid
      if (!rwkv_first) f += 5 * T * A;                     // v's bias, sigmoid and mix toward v_first
      f += 8 * T * A;                                      // k * k_k, per-head L2 norm, k * (1 + (a - 1) k_a)
      // Generalised delta rule per head: the decay, the read with -kk and the rank-1 update with
      // kk * a (2 each), v k^T (2) and the read with r (2): 9 FLOPs per state element.
      f += 9 * T * A * S;
      f += 4 * T * A;  // the r * k * r_k bonus
    }
    f += 7 * T * A + T * A;    // GroupNorm, times the gate
    return f + 2 * T * A * h;  // output projection
  }
  if (k == mixer_kind::linear_attention) {
    const linear_attention_spec& l = m.linear;
    const double kd = d(linear_key_dim(l)), vd = d(linear_value_dim(l)), nv = d(l.num_value_heads);
    const double conv = 2 * kd + vd;
    double f = 2 * T * h * d(linear_in_width(l));             // in_proj_qkvz, in_proj_ba (KDA: q, k, v, b, f_a, g_a)
    if (l.decay_rank > 0) f += 2 * T * d(l.decay_rank) * kd;  // KDA f_b
    if (l.gate_rank > 0) f += 2 * T * d(l.gate_rank) * vd;    // KDA g_b
    f += 2 * T * conv * d(l.conv_kernel) + T * conv;          // depthwise conv, SiLU
    f += 8 * T * kd;                                          // L2 norms of q and k
    // Decay and beta gates: per value head, or (KDA) the decay per key channel.
    f += l.decay_rank > 0 ? 5 * T * kd + 5 * T * nv : 10 * T * nv;
    // Gated delta rule per value head: decay the state, read it with k, the delta, the rank-1
    // update and the read with q: 7 FLOPs per state element.
    f += 7 * T * nv * d(l.key_head_dim) * d(l.value_head_dim);
    f += 6 * T * vd;            // gated RMSNorm
    return f + 2 * T * vd * h;  // out_proj
  }
  if (k == mixer_kind::short_conv) {
    // LFM2: in_proj to B, C, x; B * x; the depthwise conv; C * conv; out_proj.
    const double K = d(m.short_conv.conv_kernel);
    return 2 * T * h * 3 * h + T * h + 2 * T * h * K + T * h + 2 * T * h * h;
  }
  const ssm_spec& s = m.ssm;
  const double I = d(s.inner), N = d(s.state_size), K = d(s.conv_kernel);
  if (k == mixer_kind::mamba) {
    double f = 2 * T * h * 2 * I + 2 * T * I * K + T * I;  // in_proj, conv, SiLU
    f += 2 * T * I * d(s.dt_rank + 2 * s.state_size);      // x_proj
    if (s.num_heads > 0) {
      // A Mamba-1 mixer with heads (PLaMo 2): dt per head, then the Mamba-2 recurrence with one
      // decay per head.
      const double H = d(s.num_heads);
      f += 2 * T * d(s.dt_rank) * H + 2 * T * H;  // dt_proj, bias and softplus
      f += 5 * T * I * N + 4 * T * H;             // SSD recurrence, dt/A per head
    } else {
      f += 2 * T * d(s.dt_rank) * I + 2 * T * I;  // dt_proj, softplus
      f += 8 * T * I * N;                         // discretise, update, read the state
    }
    f += 4 * T * I;                                                   // D skip, SiLU(z) gate
    if (s.dt_bc_norms) f += 4 * T * d(s.dt_rank + 2 * s.state_size);  // Jamba's, PLaMo 2's dt/B/C norms
    return f + 2 * T * I * h;
  }
  if (k == mixer_kind::mamba2) {
    const double conv = d(mamba2_conv_dim(s)), H = d(s.num_heads);
    double f = 2 * T * h * (I + conv + H) + 2 * T * conv * K + T * conv;  // in_proj, conv, SiLU
    f += 5 * T * I * N + 4 * T * H;                                       // SSD recurrence, dt/A per head
    f += 2 * T * I;                                                       // D skip
    if (s.gated_norm) f += 6 * T * I;
    return f + 2 * T * I * h;
  }
  return 0;
}

double mlp_flops(const model_spec& m, double T, std::int64_t width, bool gated, bool bias) {
  const double h = d(m.hidden_size), I = d(width);
  double f = gated ? 6 * T * h * I + 2 * T * I : 4 * T * h * I + T * I;  // matmuls + activation (+ gate product)
  if (bias) f += T * ((gated ? 2 : 1) * I + h);
  return f;
}

double layer_mlp_flops(const model_spec& m, const layer_group& g, double T) {
  if (!g.moe) return mlp_flops(m, T, mlp_width_of(m, g), m.mlp.gated, m.mlp.bias) + detail::mlp_token_mix_flops(m, T);
  const moe_spec& e = m.moe;
  const double h = d(m.hidden_size), R = d(detail::router_outputs(e)), k = d(e.experts_per_token);
  double f = 2 * T * h * R + 5 * T * R;  // router logits (routed and zero-computation experts) + softmax/top-k
  f += k * mlp_flops(m, T, e.expert_intermediate_size, e.gated_experts, e.expert_bias);  // on the active path
  f += 2 * T * k * h;  // weighted combination of expert outputs
  if (e.shared_intermediate_size > 0) f += mlp_flops(m, T, e.shared_intermediate_size, e.gated_experts, e.expert_bias);
  if (e.shared_expert_gate) f += 2 * T * h + T + T * h;  // gate logit, sigmoid, scale
  return f;
}

}  // namespace

pass_flops run_pass(const model_spec& m, pass_kind kind, double batch, double seq, double context, bool causal) {
  pass_flops out;
  run_pass(m, kind, batch, seq, context, causal, out);
  return out;
}

void run_pass(const model_spec& m, pass_kind kind, double batch, double seq, double context, bool causal,
              pass_flops& out) {
  const double h = d(m.hidden_size), B = batch;
  const bool encdec = m.arch == architecture::encoder_decoder;
  const double norm_e = norm_flops_per_element(m.norm);

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
    layer_flops lf;
    const double count = d(g.count);
    if (has_attention(g)) {
      const double pairs = self_pairs(m, g, kind, tokens_per_seq, context, causal) * B;
      const double all_pairs = full_pairs(kind, tokens_per_seq, context, causal) * B;
      add_attention(m, g, T, pairs, all_pairs, T, kind == pass_kind::decode, out, lf, count);
      if (g.parallel_ssm) lf.mixer += mixer_flops(m, mixer_kind::mamba2, T);
    } else {
      lf.mixer += mixer_flops(m, g.mixer, T, g.rwkv_first);
    }
    if (g.cross_attention) {
      const double cross_pairs = dec_tokens * seq * B;
      add_cross_attention(m, T, cross_pairs, kind == pass_kind::decode ? 0 : enc_tokens * B, out, lf, count);
    }
    lf.norm += d(norms_of(m, g)) * norm_e * T * h;
    // BitNet's sub-norms: over the attention output and over the MLP's intermediate activations.
    if (has_attention(g) && attention_of(m, g).sub_norm)
      lf.norm += norm_e * T * d(attention_of(m, g).num_heads) * d(attention_of(m, g).v_head_dim);
    if (g.mlp && !g.moe && m.mlp.sub_norm) lf.norm += norm_e * T * d(mlp_width_of(m, g));
    if (g.mlp) lf.mlp += layer_mlp_flops(m, g, T);
    out.per_layer[i] = lf;
    out.parts.attention += count * lf.attention;
    out.parts.mlp += count * lf.mlp;
    out.parts.norm += count * lf.norm;
    out.parts.mixer += count * lf.mixer;
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

  out.parts.total = out.parts.embedding + out.parts.attention + out.parts.mlp + out.parts.norm + out.parts.output_head +
                    out.parts.mixer;
}

double decode_flops_per_key(const model_spec& m, const layer_group& g) {
  const attention_spec& a = attention_of(m, g);
  const double nh = d(a.num_heads);
  if (a.mla) return nh * (2 * d(a.kv_lora_rank + a.qk_rope_head_dim) + 5 + 2 * d(a.kv_lora_rank));
  return nh * (2 * d(a.head_dim) + 5 + 2 * d(a.v_head_dim)) +
         ((m.position == position_kind::alibi || m.position == position_kind::relative_bias) ? nh : 0);
}

double decode_indexer_flops_per_key(const model_spec& m) {
  const attention_spec& a = m.attention;
  return d(a.index_heads) * (2 * d(a.index_head_dim) + 3);
}

}  // namespace flopcast::detail

namespace flopcast {

pass_flops forward_flops(const model_spec& m, std::int64_t batch, std::int64_t tokens, bool causal) {
  return detail::run_pass(m, detail::pass_kind::forward, detail::d(batch), detail::d(tokens), 0, causal);
}

}  // namespace flopcast
