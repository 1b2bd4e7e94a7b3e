// Memory: weights, the KV cache, the activation ESTIMATES and the training state.
#include <algorithm>

#include "checkpoint/gguf_presets.hpp"
#include "estimate/estimate_parts.hpp"

namespace flopcast::detail {

double kv_elements_per_token(const model_spec& m, const layer_group& g) {
  const attention_spec& a = attention_of(m, g);
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
  if (g.mixer == mixer_kind::short_conv)  // LFM2: the conv's last kernel - 1 inputs of the hidden width
    return d(m.hidden_size) * d(std::max<std::int64_t>(m.short_conv.conv_kernel - 1, 0));
  if (g.mixer == mixer_kind::rwkv)  // heads x head_size^2, and the last token for time and channel mix
    return d(m.rwkv.attention_size) * d(m.rwkv.head_size) + 2 * d(m.hidden_size);
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
      w = std::max(w, d(2 * linear_key_dim(m.linear) + 2 * linear_value_dim(m.linear)) +
                          (m.linear.decay_rank > 0 ? d(linear_key_dim(m.linear)) : 0.0));  // KDA per-channel decay
    else if (k == mixer_kind::mamba)
      w = std::max(w, d(2 * m.ssm.inner));
    else if (k == mixer_kind::mamba2)
      w = std::max(w, d(m.ssm.inner + mamba2_conv_dim(m.ssm) + m.ssm.num_heads));
    else if (k == mixer_kind::short_conv)
      w = std::max(w, d(3 * m.hidden_size));
    else if (k == mixer_kind::rwkv)
      w = std::max(w, d(rwkv_in_width(m.rwkv)));
  }
  return w;
}
}  // namespace

activation_estimate estimate_activations(const model_spec& m, const settings& s) {
  const double act_bytes = activation_bytes(s.weight_precision);
  const double B = d(s.batch_size), S = d(s.sequence_length), h = d(m.hidden_size);
  // The widest attention of any group (groups may have their own layout).
  double nh = d(m.attention.num_heads), qkv = qkv_width(m.attention), attn_out = nh * d(m.attention.v_head_dim);
  for (const auto& g : m.groups) {
    const attention_spec& a = attention_of(m, g);
    nh = std::max(nh, d(a.num_heads));
    qkv = std::max(qkv, qkv_width(a));
    attn_out = std::max(attn_out, d(a.num_heads) * d(a.v_head_dim));
  }
  qkv += mixer_width(m);
  double mlp_live = 0, mlp_stored = 0;
  bool any_moe = false;
  for (const auto& g : m.groups) any_moe = any_moe || g.moe;
  // The widest dense MLP of any group (groups may have their own width).
  std::int64_t dense_width = m.mlp.intermediate_size;
  for (const auto& g : m.groups) dense_width = std::max(dense_width, g.intermediate_size);
  if (dense_width > 0) {
    const double I = d(dense_width);
    mlp_live = m.mlp.gated ? 2 * I : I;
    mlp_stored = m.mlp.gated ? 3 * I : 2 * I;
  }
  if (any_moe) {
    const double k = d(m.moe.experts_per_token), Ie = d(m.moe.expert_intermediate_size),
                 Is = d(m.moe.shared_intermediate_size);
    mlp_live = std::max(mlp_live, k * 2 * Ie + 2 * Is + d(detail::router_outputs(m.moe)));
    mlp_stored = std::max(mlp_stored, k * 3 * Ie + 3 * Is + d(detail::router_outputs(m.moe)));
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
  const double adam = s.optim == optimizer::adam || s.optim == optimizer::adamw ? 8.0
                      : s.optim == optimizer::sgd                               ? 4.0
                                                                                : 0.0;
  switch (s.weight_precision) {
    case precision::fp8:
    case precision::mxfp8:
      // Transformer Engine FP8 (delayed scaling; MXFP8 on Blackwell): bf16 weights and
      // gradients with an fp32 master and fp32 Adam moments as in bf16 mixed precision, plus
      // the FP8 copy of each weight cached for the step (NVIDIA Transformer Engine docs, "FP8
      // primer" and fp8_model_init; Megatron-LM --fp8-format): 2 + 1, 2, 4 + 8.
      return {3.0, 2.0, 4.0 + adam, 4.0};
    case precision::fp8_block:
      // DeepSeek-V3's recipe (arXiv:2412.19437 sec. 3.3.3): FP8 GEMMs with 128 x 128 weight
      // blocks, master weights and gradients kept in FP32, AdamW moments in BF16: a bf16 working
      // copy + the FP8 cast 2 + 1, gradients 4, master 4 + moments half of fp32's.
      return {3.0, 4.0, 4.0 + adam / 2, 4.0};
    case precision::nvfp4:
      // NVIDIA, "Pretraining Large Language Models with NVFP4" (arXiv:2509.25149): NVFP4 GEMMs,
      // bf16 weights and gradients, fp32 master and optimizer: 2 + the NVFP4 copy 0.5625, 2, 4 + 8.
      return {2.0 + 4.5 / 8, 2.0, 4.0 + adam, 4.0};
    default:
      break;
  }
  const double wbytes = storage_bytes(s.weight_precision);
  const double master = wbytes < 4 ? 4.0 : 0.0;  // fp32 master copy under mixed precision
  return {wbytes, wbytes, master + adam, master};
}

// Formats with a published training recipe (training_state_per_parameter's sources).
bool trainable_in(precision p) {
  switch (p) {
    case precision::fp32:
    case precision::tf32:
    case precision::fp16:
    case precision::bf16:
    case precision::fp8:
    case precision::mxfp8:
    case precision::fp8_block:
    case precision::nvfp4:
      return true;
    default:
      return false;
  }
}

std::array<double, weight_component_count> component_parameters(const model_spec& m, const parameter_breakdown& p,
                                                                double& norms) {
  std::array<double, weight_component_count> c{};
  double experts = 0;
  for (const layer_group& g : m.groups)
    if (g.moe && g.mlp) experts += d(g.count) * d(weights_of(m, g).mlp_total);
  c[static_cast<std::size_t>(weight_component::embedding)] = d(p.embedding);
  c[static_cast<std::size_t>(weight_component::attention)] = d(p.attention);
  c[static_cast<std::size_t>(weight_component::mlp)] = d(p.mlp) - experts;
  c[static_cast<std::size_t>(weight_component::experts)] = experts;
  c[static_cast<std::size_t>(weight_component::lm_head)] = d(p.output_head);
  c[static_cast<std::size_t>(weight_component::mixer)] = d(p.mixer);
  c[static_cast<std::size_t>(weight_component::vision)] = d(p.vision);
  norms = d(p.norm);
  return c;
}

precision component_precision(const settings& s, weight_component c) {
  if (const auto& p = s.component_precision[static_cast<std::size_t>(c)]) return *p;
  // A quantized format applies to the linear layers: the embedding table, the LM head and a
  // vision tower stay 16-bit, as AWQ, GPTQ, bitsandbytes, vLLM's fp8 and ModelOpt leave them.
  // (llama.cpp's GGML types quantize the embedding and the head too.)
  if (c != weight_component::embedding && c != weight_component::lm_head && c != weight_component::vision)
    return s.weight_precision;
  const format_info& f = format_of(s.weight_precision);
  const bool narrow =
      f.bits_per_weight < 16 && f.family != format_family::gguf && f.family != format_family::gguf_preset;
  return narrow ? precision::bf16 : s.weight_precision;
}

void fill_weights(const model_spec& m, const settings& s, estimate_result& r) {
  memory_breakdown& mem = r.memory;
  double norms = 0;
  const auto params = component_parameters(m, r.parameters, norms);
  bool mixed = false;
  for (const auto& c : s.component_precision) mixed = mixed || c.has_value();
  const format_info& f = format_of(s.weight_precision);
  mem.weights_by_component = {};
  if (s.weight_bytes) {
    // A checkpoint's exact bytes, shared out by parameters.
    mem.weights = *s.weight_bytes;
    mem.weights_source = "checkpoint";
    const double per = r.parameters.total > 0 ? mem.weights / d(r.parameters.total) : 0.0;
    for (std::size_t i = 0; i < params.size(); ++i) mem.weights_by_component[i] = params[i] * per;
    mem.weights_by_component[static_cast<std::size_t>(weight_component::attention)] += norms * per;
  } else if (!mixed && (f.family == format_family::gguf || f.family == format_family::gguf_preset) &&
             find_gguf_preset(f.name) != nullptr && find_gguf_preset(f.name)->name == f.name) {
    // llama.cpp's per-tensor rules where the architecture is planned; else the base type.
    try {
      const gguf_plan plan = plan_gguf(m, *find_gguf_preset(f.name));
      for (const gguf_tensor_plan& t : plan.tensors) {
        weight_component c = weight_component::attention;
        switch (t.component) {
          case tensor_component::embedding:
            c = weight_component::embedding;
            break;
          case tensor_component::mlp:
            c = weight_component::mlp;
            break;
          case tensor_component::experts:
            c = weight_component::experts;
            break;
          case tensor_component::lm_head:
            c = weight_component::lm_head;
            break;
          case tensor_component::mixer:
            c = weight_component::mixer;
            break;
          default:
            break;
        }
        mem.weights_by_component[static_cast<std::size_t>(c)] += d(t.bytes);
      }
      // The vision tower goes to llama.cpp's separate mmproj file, usually f16.
      mem.weights_by_component[static_cast<std::size_t>(weight_component::vision)] =
          params[static_cast<std::size_t>(weight_component::vision)] * 2;
      mem.weights_source = "gguf_plan";
      r.notes |= note_preset_planned;
    } catch (const error&) {
      mem.weights_by_component = {};
      if (f.family == format_family::gguf_preset) r.notes |= note_preset_approximated;
    }
  }
  // Each part's own format's bytes per weight, looked up once.
  std::array<double, weight_component_count> own_bytes{};
  for (std::size_t i = 0; i < own_bytes.size(); ++i)
    own_bytes[i] = storage_bytes(component_precision(s, static_cast<weight_component>(i)));
  if (mem.weights_source == std::string_view("format")) {
    for (std::size_t i = 0; i < params.size(); ++i) mem.weights_by_component[i] = params[i] * own_bytes[i];
    // Norm weights stay in 16 bits (fp32 when the model is fp32).
    const double norm_bytes = s.weight_precision == precision::fp32 || s.weight_precision == precision::tf32 ? 4 : 2;
    mem.weights_by_component[static_cast<std::size_t>(weight_component::attention)] += norms * norm_bytes;
  }
  if (!s.weight_bytes) {
    mem.weights = 0;
    for (double b : mem.weights_by_component) mem.weights += b;
  }
  // Norms are in the attention part: 16 bits (fp32 models: 32), F32 in a GGUF plan, the mean
  // bytes of a checkpoint's exact total.
  const std::string_view source = mem.weights_source;
  mem.norm_bytes_per_parameter = source == "checkpoint"
                                     ? (r.parameters.total > 0 ? mem.weights / d(r.parameters.total) : 0.0)
                                 : source == "gguf_plan"                                                          ? 4.0
                                 : s.weight_precision == precision::fp32 || s.weight_precision == precision::tf32 ? 4.0
                                                                                                                  : 2.0;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const bool attention = i == static_cast<std::size_t>(weight_component::attention);
    const double own = mem.weights_by_component[i] - (attention ? norms * mem.norm_bytes_per_parameter : 0.0);
    mem.bytes_per_parameter[i] = params[i] > 0 ? own / params[i] : own_bytes[i];
  }
  mem.weights_bits_per_weight = r.parameters.total > 0 ? 8 * mem.weights / d(r.parameters.total) : 0.0;
}

void fill_inference_memory(const model_spec& m, const settings& s, estimate_result& r) {
  const bool encdec = m.arch == architecture::encoder_decoder;
  const double S = d(s.sequence_length), N = d(s.num_generated_tokens);
  memory_breakdown& mem = r.memory;
  // Encoder-decoder: the decoder start token is cached by the prefill, so the end of the request
  // holds at least that one (with no generated tokens, the end equals the prompt's state).
  const double dec_tokens_end = encdec ? std::max(N, 1.0) : S + N;
  const double dec_tokens_prompt = encdec ? 1.0 : S;
  mem.kv_cache = kv_cache_bytes(m, s.batch_size, dec_tokens_end, r.kv_precision, s.sequence_length);
  mem.kv_cache_prompt = kv_cache_bytes(m, s.batch_size, dec_tokens_prompt, r.kv_precision, s.sequence_length);
  if (m.arch != architecture::encoder) {
    double kv_elements = 0, state = 0;  // per token over every attention layer
    for (const auto& g : m.groups) {
      kv_elements += g.encoder || !has_attention(g) ? 0 : d(g.count) * kv_elements_per_token(m, g);
      state += d(g.count) * state_elements_per_sequence(m, g);
    }
    mem.kv_cache_per_token = kv_elements * storage_bytes(r.kv_precision);
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
  double total = 0;
  for (const auto& g : m.groups) {
    if (g.encoder) continue;
    total += detail::d(g.count) * detail::state_elements_per_sequence(m, g) * storage_bytes(kv);
    if (!detail::has_attention(g)) continue;
    const double per = detail::kv_elements_per_token(m, g) * storage_bytes(kv);
    total += detail::d(g.count) * detail::cached_tokens(g, tokens) * per;
    if (g.cross_attention)  // cross-attention K/V of the encoder output
      total += detail::d(g.count) * detail::d(encoder_tokens) * 2 * detail::d(m.attention.num_heads) *
               detail::d(m.attention.head_dim) * storage_bytes(kv);
  }
  return total * detail::d(batch);
}

namespace detail {
double usable_memory(const settings& s, const hardware_spec& gpu) {
  return gpu.usable_memory_bytes() * s.gpu_memory_utilization.value_or(s.training ? 1.0 : 0.9) -
         s.gpu_memory_reserve_bytes;
}
}  // namespace detail

}  // namespace flopcast

namespace flopcast {
precision precision_of(const settings& s, weight_component c) { return detail::component_precision(s, c); }
}  // namespace flopcast
