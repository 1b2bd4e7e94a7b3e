// Memory: weights, the KV cache, the activation ESTIMATES and the training state.
#include <algorithm>

#include "estimate_parts.hpp"

namespace flopcast::detail {

double kv_elements_per_token(const model_spec& m) {
  const attention_spec& a = m.attention;
  // the compressed latent and the shared rope key (+ DeepSeek-V3.2's indexer key)
  if (a.mla) return d(a.kv_lora_rank + a.qk_rope_head_dim) + d(a.index_head_dim);
  return d(a.num_kv_heads) * d(a.head_dim + a.v_head_dim);
}

double state_elements_per_sequence(const model_spec& m, const layer_group& g) {
  const auto ssm = [&](mixer_kind k) {
    const ssm_spec& s = m.ssm;
    const double conv = k == mixer_kind::mamba2 ? d(mamba2_conv_dim(s)) : d(s.inner);
    return d(s.inner) * d(s.state_size) + conv * d(std::max<std::int64_t>(s.conv_kernel - 1, 0));
  };
  if (g.mixer == mixer_kind::linear_attention) {
    const linear_attention_spec& l = m.linear;
    const double conv = d(2 * linear_key_dim(l) + linear_value_dim(l));
    return d(l.num_value_heads) * d(l.key_head_dim) * d(l.value_head_dim) +
           conv * d(std::max<std::int64_t>(l.conv_kernel - 1, 0));
  }
  if (g.mixer == mixer_kind::mamba || g.mixer == mixer_kind::mamba2) return ssm(g.mixer);
  if (has_attention(g) && g.parallel_ssm) return ssm(mixer_kind::mamba2);
  return 0;
}

namespace {
// Per-token activation width of a group's mixer (its in_proj output), for the estimates.
double mixer_width(const model_spec& m) {
  double w = 0;
  for (const auto& g : m.groups) {
    const mixer_kind k = has_attention(g) && g.parallel_ssm ? mixer_kind::mamba2 : g.mixer;
    if (k == mixer_kind::linear_attention)
      w = std::max(w, d(2 * linear_key_dim(m.linear) + 2 * linear_value_dim(m.linear)));
    else if (k == mixer_kind::mamba)
      w = std::max(w, d(2 * m.ssm.inner));
    else if (k == mixer_kind::mamba2)
      w = std::max(w, d(m.ssm.inner + mamba2_conv_dim(m.ssm) + m.ssm.num_heads));
  }
  return w;
}
}  // namespace

activation_estimate estimate_activations(const model_spec& m, const settings& s) {
  const double act_bytes = activation_bytes(s.weight_precision);
  const attention_spec& a = m.attention;
  const double B = d(s.batch_size), S = d(s.sequence_length), h = d(m.hidden_size), nh = d(a.num_heads);
  const double qkv = qkv_width(a) + mixer_width(m);
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

training_state_bytes training_state_per_parameter(const settings& s) {
  const double wbytes = storage_bytes(s.weight_precision);
  const double master = wbytes < 4 ? 4.0 : 0.0;  // fp32 master copy under mixed precision
  const double state = s.optim == optimizer::adam || s.optim == optimizer::adamw ? 8.0
                       : s.optim == optimizer::sgd                               ? 4.0
                                                                                 : 0.0;
  return {wbytes, wbytes, master + state};
}

void fill_inference_memory(const model_spec& m, const settings& s, estimate_result& r) {
  const bool encdec = m.arch == architecture::encoder_decoder;
  const double S = d(s.sequence_length), N = d(s.num_generated_tokens);
  memory_breakdown& mem = r.memory;
  // weight_bytes (helper-W): a checkpoint's exact bytes replace parameters x bytes per weight.
  mem.weights = s.weight_bytes ? *s.weight_bytes : d(r.parameters.total) * storage_bytes(s.weight_precision);
  // Encoder-decoder: the decoder start token is cached by the prefill, so the end of the request
  // holds at least that one (with no generated tokens, the end equals the prompt's state).
  const double dec_tokens_end = encdec ? std::max(N, 1.0) : S + N;
  const double dec_tokens_prompt = encdec ? 1.0 : S;
  mem.kv_cache = kv_cache_bytes(m, s.batch_size, dec_tokens_end, r.kv_precision, s.sequence_length);
  mem.kv_cache_prompt = kv_cache_bytes(m, s.batch_size, dec_tokens_prompt, r.kv_precision, s.sequence_length);
  if (m.arch != architecture::encoder) {
    double layers = 0, state = 0;
    for (const auto& g : m.groups) {
      layers += g.encoder || !has_attention(g) ? 0 : d(g.count);
      state += d(g.count) * state_elements_per_sequence(m, g);
    }
    mem.kv_cache_per_token = layers * kv_elements_per_token(m) * storage_bytes(r.kv_precision);
    mem.recurrent_state = d(s.batch_size) * state * storage_bytes(r.kv_precision);
  }
  const activation_estimate acts = estimate_activations(m, s);
  mem.activations = acts.inference;
  mem.total = mem.weights + mem.kv_cache + mem.activations;
}

}  // namespace flopcast::detail

namespace flopcast {

double kv_cache_bytes(const model_spec& m, std::int64_t batch, double tokens, precision kv,
                      std::int64_t encoder_tokens) {
  if (m.arch == architecture::encoder) return 0;
  const double per = detail::kv_elements_per_token(m) * storage_bytes(kv);
  double total = 0;
  for (const auto& g : m.groups) {
    if (g.encoder) continue;
    total += detail::d(g.count) * detail::state_elements_per_sequence(m, g) * storage_bytes(kv);
    if (!detail::has_attention(g)) continue;
    total += detail::d(g.count) * detail::cached_tokens(g, tokens) * per;
    if (g.cross_attention)  // cross-attention K/V of the encoder output
      total += detail::d(g.count) * detail::d(encoder_tokens) * 2 * detail::d(m.attention.num_heads) *
               detail::d(m.attention.head_dim) * storage_bytes(kv);
  }
  return total * detail::d(batch);
}

namespace detail {
double usable_memory(const settings& s, const hardware_spec& gpu) {
  return gpu.memory_bytes - s.gpu_memory_reserve_bytes;
}
}  // namespace detail

}  // namespace flopcast
