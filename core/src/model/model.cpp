#include "flopcast/model/model.hpp"

#include "base/detail.hpp"
#include "model/model_parts.hpp"

namespace flopcast {
namespace detail {

std::int64_t mixer_params(const model_spec& m, mixer_kind k, bool rwkv_first) {
  const std::int64_t h = m.hidden_size;
  if (k == mixer_kind::rwkv) {
    const rwkv_spec& r = m.rwkv;
    const std::int64_t A = r.attention_size;
    if (r.version == 6) {
      // Rwkv6SelfAttention: time_maa_x/w/k/v/r/g, time_maa_w1 (h x 5R) and w2 (5 x R x h),
      // time_decay, time_decay_w1 (h x D) and w2 (D x A), time_faaaa, key/value/receptance/gate,
      // output, ln_x (GroupNorm weight and bias).
      std::int64_t p = mul(6, h);
      p = add(p, mul(2, mul(5, r.mix_rank), h));
      p = add(p, add(A, add(mul(h, r.decay_rank), mul(r.decay_rank, A))));
      p = add(p, A);             // time_faaaa (heads x head_size)
      p = add(p, mul(4, h, A));  // key, value, receptance, gate
      p = add(p, mul(A, h));     // output
      return add(p, mul(2, A));  // ln_x
    }
    // RWKV7Attention: x_r/w/k/v/a(/g), k_k, k_a, r_k, r/k/v/o_proj, the w, a, v (not in the first
    // layer) and g LoRAs, g_norm.
    const bool gate = r.gate_rank > 0;
    std::int64_t p = mul(gate ? 6 : 5, h);
    p = add(p, mul(3, A));                                                                 // k_k, k_a, r_k
    p = add(p, add(mul(3, h, A), mul(A, h)));                                              // r, k, v, o
    p = add(p, add(add(mul(h, r.decay_rank), mul(r.decay_rank, A)), A));                   // w_lora (+ bias)
    p = add(p, add(add(mul(h, r.a_rank), mul(r.a_rank, A)), A));                           // a_lora (+ bias)
    if (!rwkv_first) p = add(p, add(add(mul(h, r.value_rank), mul(r.value_rank, A)), A));  // v_lora
    if (gate) p = add(p, add(mul(h, r.gate_rank), mul(r.gate_rank, A)));                   // g_lora, no bias
    return add(p, mul(2, A));                                                              // g_norm
  }
  if (k == mixer_kind::linear_attention) {
    // Qwen3-Next GatedDeltaNet: in_proj_qkvz, in_proj_ba, conv1d (no bias) over q, k, v,
    // dt_bias and A_log per value head, RMSNormGated(value_head_dim), out_proj. Kimi Delta
    // Attention (KimiDeltaAttention): q/k/v_proj, b_proj, f_a_proj and g_a_proj from the hidden
    // state, f_b_proj (rank -> key width), dt_bias per key channel and A_log per head, g_b_proj
    // (rank -> value width), q/k/v_conv1d (no bias), o_norm(head_dim), o_proj.
    const linear_attention_spec& l = m.linear;
    const std::int64_t kd = linear_key_dim(l), vd = linear_value_dim(l);
    std::int64_t p = mul(h, linear_in_width(l));  // in_proj_qkvz + in_proj_ba (KDA: q, k, v, b, f_a, g_a)
    if (l.decay_rank > 0)
      p = add(p, add(mul(l.decay_rank, kd), add(kd, l.num_value_heads)));  // f_b, dt_bias, A_log
    else
      p = add(p, mul(2, l.num_value_heads));                // dt_bias, A_log
    if (l.gate_rank > 0) p = add(p, mul(l.gate_rank, vd));  // g_b
    p = add(p, mul(add(mul(2, kd), vd), l.conv_kernel));    // depthwise conv1d
    p = add(p, l.value_head_dim);                           // gated RMSNorm
    return add(p, mul(vd, h));                              // out_proj
  }
  if (k == mixer_kind::short_conv) {
    // Lfm2ShortConv: in_proj h -> 3h, depthwise conv1d (h x kernel), out_proj h -> h.
    const short_conv_spec& c = m.short_conv;
    std::int64_t p = add(add(mul(h, 3 * h), mul(h, c.conv_kernel)), mul(h, h));
    if (c.bias) p = add(p, 5 * h);  // 3h + h + h
    return p;
  }
  const ssm_spec& s = m.ssm;
  const std::int64_t I = s.inner, N = s.state_size, K = s.conv_kernel;
  if (k == mixer_kind::mamba) {
    std::int64_t p = mul(h, 2 * I);                   // in_proj (x and z)
    p = add(p, add(mul(I, K), s.conv_bias ? I : 0));  // depthwise conv1d
    p = add(p, mul(I, add(s.dt_rank, 2 * N)));        // x_proj -> dt, B, C
    if (s.num_heads > 0) {
      // A Mamba-1 mixer with heads (PLaMo 2): dt_proj dt_rank -> heads without bias, and dt_bias,
      // A_log and D per head (a Mamba-2 scan with one decay per head). Mamba, Falcon-Mamba and
      // Jamba have no heads (num_heads 0).
      p = add(p, add(mul(s.dt_rank, s.num_heads), mul(3, s.num_heads)));  // dt_proj, dt_bias, A_log, D per head
    } else {
      p = add(p, add(mul(s.dt_rank, I), I));  // dt_proj with bias
      p = add(p, add(mul(I, N), I));          // A_log, D
    }
    p = add(p, mul(I, h));                                 // out_proj
    if (s.proj_bias) p = add(p, add(2 * I, h));            // in_proj, out_proj biases
    if (s.dt_bc_norms) p = add(p, add(s.dt_rank, 2 * N));  // Jamba's, PLaMo 2's dt/B/C RMSNorms
    return p;
  }
  if (k == mixer_kind::mamba2) {
    const std::int64_t conv = mamba2_conv_dim(s), H = s.num_heads;
    const std::int64_t in = add(add(I, conv), H);  // z, x B C, dt
    std::int64_t p = mul(h, in);
    p = add(p, add(mul(conv, K), s.conv_bias ? conv : 0));
    p = add(p, mul(3, H));  // dt_bias, A_log, D
    if (s.gated_norm) p = add(p, I);
    p = add(p, mul(I, h));
    if (s.proj_bias) p = add(p, add(in, h));
    return p;
  }
  return 0;
}

layer_weights weights_of(const model_spec& m, const layer_group& g) {
  const attention_spec& a = attention_of(m, g);
  const std::int64_t h = m.hidden_size;
  layer_weights w;

  if (!has_attention(g)) {
    w.mixer = mixer_params(m, g.mixer, g.rwkv_first);
  } else if (a.mla) {
    const std::int64_t qk = a.qk_nope_head_dim + a.qk_rope_head_dim;
    if (a.q_lora_rank > 0) {
      w.attn_matmul = add(mul(h, a.q_lora_rank), mul(a.q_lora_rank, a.num_heads, qk));
      w.norm = add(w.norm, norm_params(norm_kind::rmsnorm, a.q_lora_rank));  // q_a_layernorm
    } else {
      w.attn_matmul = mul(h, a.num_heads, qk);
    }
    w.attn_matmul = add(w.attn_matmul, mul(h, a.kv_lora_rank + a.qk_rope_head_dim));         // kv_a_proj_with_mqa
    w.norm = add(w.norm, norm_params(norm_kind::rmsnorm, a.kv_lora_rank));                   // kv_a_layernorm
    w.attn_kv_matmul = mul(a.kv_lora_rank, a.num_heads, a.qk_nope_head_dim + a.v_head_dim);  // kv_b_proj
    w.attn_matmul = add(w.attn_matmul, mul(a.num_heads, a.v_head_dim, h));                   // o_proj
    if (a.index_heads > 0) {
      // DeepSeek-V3.2 lightning indexer: wq_b (q latent -> heads x dim), wk, k_norm
      // (LayerNorm with bias), weights_proj (one weight per head).
      const std::int64_t q_in = a.q_lora_rank > 0 ? a.q_lora_rank : h;
      w.attn_matmul = add(w.attn_matmul, add(mul(q_in, a.index_heads, a.index_head_dim), mul(h, a.index_head_dim)));
      w.attn_matmul = add(w.attn_matmul, mul(h, a.index_heads));
      w.norm = add(w.norm, 2 * a.index_head_dim);
    }
  } else {
    const std::int64_t q = mul(a.num_heads, a.head_dim);
    const std::int64_t kv = add(mul(a.num_kv_heads, a.head_dim), mul(a.num_kv_heads, a.v_head_dim));
    const std::int64_t o_in = mul(a.num_heads, a.v_head_dim);
    w.attn_matmul = add(mul(h, add(q, kv)), mul(o_in, h));
    if (a.output_gate) w.attn_matmul = add(w.attn_matmul, mul(h, q));  // the gate half of q_proj
    if (a.qkv_bias) w.attn_bias = add(q, kv);
    if (a.o_bias) w.attn_bias = add(w.attn_bias, h);
    if (a.qk_norm && a.qk_norm_full_width)
      w.norm = add(w.norm, add(mul(a.num_heads, a.head_dim), mul(a.num_kv_heads, a.head_dim)));
    else if (a.qk_norm)
      w.norm = add(w.norm, 2 * norm_params(norm_kind::rmsnorm, a.head_dim));
    if (a.sinks) w.attn_bias = add(w.attn_bias, a.num_heads);
    if (a.sub_norm) w.norm = add(w.norm, mul(a.num_heads, a.v_head_dim));  // BitNet attn_sub_norm
  }
  if (has_attention(g) && g.parallel_ssm) w.mixer = mixer_params(m, mixer_kind::mamba2);
  if (g.cross_attention) {
    // Cross-attention: q and o per decoder token, k and v per encoder token.
    const std::int64_t inner = mul(a.num_heads, a.head_dim);
    w.attn_matmul = add(w.attn_matmul, mul(2, h, inner));
    w.attn_kv_matmul = add(w.attn_kv_matmul, mul(2, h, inner));
  }

  w.norm = add(w.norm, mul(norms_of(m, g), norm_params(m, h)));

  const auto gated_mlp = [&](std::int64_t width) { return mul(3, h, width); };
  if (!g.mlp) {
    // a mixer-only block
  } else if (g.moe) {
    const moe_spec& e = m.moe;
    const auto expert_of = [&](std::int64_t width) {
      std::int64_t p = e.gated_experts ? gated_mlp(width) : mul(2, h, width);
      if (e.expert_bias) p = add(p, add(e.gated_experts ? 2 * width : width, h));
      return p;
    };
    std::int64_t router = mul(h, router_outputs(e));
    if (e.router_bias) router = add(router, router_outputs(e));
    w.expert = expert_of(e.expert_intermediate_size);
    std::int64_t shared = e.shared_intermediate_size > 0 ? expert_of(e.shared_intermediate_size) : 0;
    if (e.shared_expert_gate) shared = add(shared, h);
    w.mlp_total = add(add(router, mul(e.num_experts, w.expert)), shared);
    w.mlp_active = add(add(router, mul(e.experts_per_token, w.expert)), shared);
  } else {
    const std::int64_t width = mlp_width_of(m, g);
    std::int64_t mlp = m.mlp.gated ? gated_mlp(width) : mul(2, h, width);
    if (m.mlp.bias)
      mlp = add(mlp, add(m.mlp.gated ? 2 * width : width, h));
    else if (m.mlp.down_bias)
      mlp = add(mlp, h);
    mlp = add(mlp, m.mlp.activation_params);          // stored activation scalars (xIELU)
    mlp = add(mlp, mul(m.mlp.token_shift, h));        // RWKV channel mix's token-shift vectors
    if (m.mlp.receptance) mlp = add(mlp, mul(h, h));  // RWKV-6 channel mix's receptance
    w.mlp_total = w.mlp_active = mlp;
    if (m.mlp.sub_norm) w.norm = add(w.norm, width);  // BitNet ffn_sub_norm
  }
  return w;
}

}  // namespace detail

parameter_breakdown count_parameters(const model_spec& m) {
  using detail::add;
  using detail::mul;
  parameter_breakdown p;
  const std::int64_t h = m.hidden_size;
  const std::int64_t ed = detail::embed_dim(m);

  p.embedding = add(add(mul(m.vocab_size, ed), mul(m.learned_positions, h)), mul(m.token_type_vocab, h));
  if (m.embed_proj_dim > 0) p.embedding = add(p.embedding, mul(ed, h));  // OPT project_in
  if (m.embedding_norm) p.norm = add(p.norm, detail::norm_params(m, h));
  if (m.final_norm) p.norm = add(p.norm, mul(detail::stacks(m), detail::norm_params(m, h)));
  if (m.relative_buckets > 0)  // one relative-position table per stack (T5)
    p.attention = add(p.attention, mul(detail::stacks(m), m.relative_buckets, m.attention.num_heads));

  std::int64_t active_mlp_delta = 0;
  for (std::size_t i = 0; i < m.groups.size(); ++i) {
    const layer_group& g = m.groups[i];
    const detail::layer_weights w = detail::weights_of(m, g);
    p.per_layer[i] = w.total();
    p.per_layer_active[i] = w.active();
    p.attention = add(p.attention, mul(g.count, add(add(w.attn_matmul, w.attn_bias), w.attn_kv_matmul)));
    p.norm = add(p.norm, mul(g.count, w.norm));
    p.mlp = add(p.mlp, mul(g.count, w.mlp_total));
    p.mixer = add(p.mixer, mul(g.count, w.mixer));
    active_mlp_delta = add(active_mlp_delta, mul(g.count, w.mlp_total - w.mlp_active));
  }

  std::int64_t mtp = 0;
  if (m.mtp_layers > 0) {
    // One dense full-attention layer each, plus token_layernorm and hidden_layernorm, input_proj
    // (2h -> h, counted with attention) and final_layernorm.
    const detail::layer_weights w = detail::weights_of(m, layer_group{});
    const std::int64_t attn = add(add(add(w.attn_matmul, w.attn_bias), w.attn_kv_matmul), mul(2, h, h));
    const std::int64_t norm = add(w.norm, mul(3, detail::norm_params(m, h)));
    p.attention = add(p.attention, mul(m.mtp_layers, attn));
    p.norm = add(p.norm, mul(m.mtp_layers, norm));
    p.mlp = add(p.mlp, mul(m.mtp_layers, w.mlp_total));
    mtp = mul(m.mtp_layers, add(add(attn, norm), w.mlp_total));
  }

  if (m.lm_head && !m.tie_word_embeddings) p.output_head = add(p.output_head, mul(m.vocab_size, ed));
  if (m.lm_head && !m.tie_word_embeddings && m.lm_head_bias) p.output_head = add(p.output_head, m.vocab_size);
  if (m.embed_proj_dim > 0) p.output_head = add(p.output_head, mul(h, ed));  // OPT project_out
  if (m.pooler) p.output_head = add(p.output_head, add(mul(h, h), h));

  p.vision = m.vision_parameters;
  p.total = add(add(add(add(p.embedding, p.attention), add(p.mlp, p.norm)), add(p.output_head, p.mixer)), p.vision);
  p.active = p.total - active_mlp_delta - p.vision - mtp;
  return p;
}

}  // namespace flopcast
