#include "flopcast/model.hpp"

#include "detail.hpp"

namespace flopcast {
namespace detail {

layer_weights weights_of(const model_spec& m, const layer_group& g) {
  const attention_spec& a = m.attention;
  const std::int64_t h = m.hidden_size;
  layer_weights w;

  if (a.mla) {
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
  } else {
    const std::int64_t q = mul(a.num_heads, a.head_dim);
    const std::int64_t kv = add(mul(a.num_kv_heads, a.head_dim), mul(a.num_kv_heads, a.v_head_dim));
    const std::int64_t o_in = mul(a.num_heads, a.v_head_dim);
    w.attn_matmul = add(mul(h, add(q, kv)), mul(o_in, h));
    if (a.qkv_bias) w.attn_bias = add(q, kv);
    if (a.o_bias) w.attn_bias = add(w.attn_bias, h);
    if (a.qk_norm && a.qk_norm_full_width)
      w.norm = add(w.norm, add(mul(a.num_heads, a.head_dim), mul(a.num_kv_heads, a.head_dim)));
    else if (a.qk_norm)
      w.norm = add(w.norm, 2 * norm_params(norm_kind::rmsnorm, a.head_dim));
  }
  if (g.cross_attention) {
    // Cross-attention: q and o per decoder token, k and v per encoder token.
    const std::int64_t inner = mul(a.num_heads, a.head_dim);
    w.attn_matmul = add(w.attn_matmul, mul(2, h, inner));
    w.attn_kv_matmul = add(w.attn_kv_matmul, mul(2, h, inner));
  }

  std::int64_t norms = m.norms_per_layer + (g.cross_attention ? 1 : 0);
  w.norm = add(w.norm, mul(norms, norm_params(m, h)));

  const auto gated_mlp = [&](std::int64_t width) { return mul(3, h, width); };
  if (g.moe) {
    const moe_spec& e = m.moe;
    std::int64_t router = mul(h, e.num_experts);
    if (e.router_bias) router = add(router, e.num_experts);
    w.expert = gated_mlp(e.expert_intermediate_size);
    std::int64_t shared = e.shared_intermediate_size > 0 ? gated_mlp(e.shared_intermediate_size) : 0;
    if (e.shared_expert_gate) shared = add(shared, h);
    w.mlp_total = add(add(router, mul(e.num_experts, w.expert)), shared);
    w.mlp_active = add(add(router, mul(e.experts_per_token, w.expert)), shared);
  } else {
    const std::int64_t width = m.mlp.intermediate_size;
    std::int64_t mlp = m.mlp.gated ? gated_mlp(width) : mul(2, h, width);
    if (m.mlp.bias) mlp = add(mlp, add(m.mlp.gated ? 2 * width : width, h));
    w.mlp_total = w.mlp_active = mlp;
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
    active_mlp_delta = add(active_mlp_delta, mul(g.count, w.mlp_total - w.mlp_active));
  }

  if (m.lm_head && !m.tie_word_embeddings) p.output_head = add(p.output_head, mul(m.vocab_size, ed));
  if (m.lm_head && !m.tie_word_embeddings && m.lm_head_bias) p.output_head = add(p.output_head, m.vocab_size);
  if (m.embed_proj_dim > 0) p.output_head = add(p.output_head, mul(h, ed));  // OPT project_out
  if (m.pooler) p.output_head = add(p.output_head, add(mul(h, h), h));

  p.total = add(add(add(p.embedding, p.attention), add(p.mlp, p.norm)), p.output_head);
  p.active = p.total - active_mlp_delta;
  return p;
}

}  // namespace flopcast
