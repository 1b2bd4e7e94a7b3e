// Config readers for masked-diffusion language models: Dream (Dream-org/Dream-v0-*-7B, a Qwen2
// decoder run bidirectionally), LLaDA (GSAI-ML/LLaDA-8B-*, an OLMo-style config of a Llama
// decoder) and RND1 (radicalnumerics/RND1-Base-0910, Qwen3-30B-A3B's MoE decoder). Registered in families() in
// hf_config.cpp. Their weights are those of the autoregressive decoders they copy; only the attention mask differs,
// which changes no count (the estimate still costs attention as causal).
#include <string>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

std::string dream_llada_str(std::int64_t v) { return std::to_string(v); }

}  // namespace

// Dream (model_type "Dream"; modeling_dream.py in the checkpoint): Qwen2's modules under Qwen2's
// config keys (q/k/v biases, no o bias, SwiGLU, RMSNorm, untied head), read as qwen2.
void read_dream(const reader& r, model_spec& m) {
  const std::string own = m.model_type;
  m.model_type = "qwen2";
  read_llama_family(r, m);
  m.model_type = own;
}

// rnd1 (RND1Config extends Qwen3MoeConfig; modeling_rnd.py is Qwen3-MoE's decoder with
// bidirectional attention): read as qwen3_moe.
void read_rnd1(const reader& r, model_spec& m) {
  const std::string own = m.model_type;
  m.model_type = "qwen3_moe";
  read_llama_family(r, m);
  m.model_type = own;
}

// llada (modeling_llada.py in the checkpoint, from OLMo): block_type "llama" only: per layer
// attn_norm, q/k/v_proj (n_heads / n_kv_heads of d_model / n_heads; bias with include_bias or
// include_qkv_bias), attn_out, ff_norm, ff_proj and up_proj (d_model -> mlp_hidden_size, else
// mlp_ratio x d_model) and ff_out back (bias with include_bias); RMSNorms with weights; wte of
// embedding_size rows (else vocab_size), ln_f and, without weight_tying, an ff_out head of the same
// rows. Rotary positions (rope) or none.
void read_llada(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("d_model");
  m.num_layers = r.layers("n_layers");
  m.vocab_size = r.has("embedding_size") ? r.positive("embedding_size") : r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_sequence_length", 0);
  m.norm = norm_kind::rmsnorm;
  m.norms_per_layer = 2;  // attn_norm, ff_norm
  m.tie_word_embeddings = r.boolean_or("weight_tying", false);

  const std::string block = r.string_or("block_type", "llama");
  if (block != "llama")
    range_error(r, "block_type", "expected \"llama\" (the LLaDA checkpoints' block), but got \"" + block + "\"");
  const std::string norm = r.string_or("layer_norm_type", "rms");
  if (norm != "rms") range_error(r, "layer_norm_type", "expected \"rms\", but got \"" + norm + "\"");
  if (!r.boolean_or("layer_norm_with_affine", true))
    range_error(r, "layer_norm_with_affine", "expected true (norms without weights are not supported), but got false");
  const bool bias = r.boolean_or("include_bias", false);
  if (r.boolean_or("bias_for_layer_norm", bias))
    range_error(r, "bias_for_layer_norm", "expected false (RMSNorm biases are not supported), but got true");
  if (r.boolean_or("attention_layer_norm", false))
    range_error(r, "attention_layer_norm", "expected false (q/k norms are not supported), but got true");
  if (r.boolean_or("alibi", false)) range_error(r, "alibi", "expected false (ALiBi is not supported), but got true");
  if (r.boolean_or("input_emb_norm", false))
    range_error(r, "input_emb_norm", "expected false (an embedding norm is not supported), but got true");
  const std::string act = r.string_or("activation_type", "silu");
  if (act != "silu")
    range_error(r, "activation_type", "expected \"silu\" (the llama block's gated MLP), but got \"" + act + "\"");

  attention_spec& a = m.attention;
  a.num_heads = r.positive("n_heads");
  a.num_kv_heads = r.has("n_kv_heads") ? r.positive("n_kv_heads") : a.num_heads;
  if (a.num_kv_heads > a.num_heads || a.num_heads % a.num_kv_heads != 0)
    range_error(r, "n_kv_heads",
                "expected a divisor of n_heads (" + dream_llada_str(a.num_heads) + "), but got " +
                    dream_llada_str(a.num_kv_heads));
  if (m.hidden_size % a.num_heads != 0)
    range_error(r, "n_heads",
                "expected a divisor of d_model " + dream_llada_str(m.hidden_size) + ", but got " +
                    dream_llada_str(a.num_heads));
  a.head_dim = a.v_head_dim = m.hidden_size / a.num_heads;
  a.qkv_bias = bias || r.boolean_or("include_qkv_bias", false);
  a.o_bias = bias;
  if (r.boolean_or("rope", true)) {
    m.position = position_kind::rotary;
    a.rotary_dim = a.head_dim;
  } else {
    // Neither rope nor alibi: OLMo's learned position table wpe.
    m.position = position_kind::learned;
    m.learned_positions = r.positive("max_sequence_length");
    a.rotary_dim = 0;
  }

  m.mlp.gated = true;
  m.mlp.bias = bias;
  m.mlp.activation = "silu";
  m.mlp.intermediate_size =
      r.has("mlp_hidden_size") ? r.positive("mlp_hidden_size") : mul(r.positive_or("mlp_ratio", 4), m.hidden_size);
  m.lm_head_bias = bias;
  uniform_layers(m);
}

}  // namespace flopcast::detail
