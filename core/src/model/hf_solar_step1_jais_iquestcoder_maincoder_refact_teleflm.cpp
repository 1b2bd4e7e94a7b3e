// Config readers for Solar Pro (solar), Step-1 (step1), Jais (jais), IQuest-Coder (iquestcoder),
// Maincoder (maincoder), Refact (gpt_refact) and Tele-FLM (TeleFLM), registered in families() in
// hf_config.cpp. Most start from read_llama_family, Jais from the GPT-2-like read_mha_stack.
#include <string>
#include <string_view>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

namespace {

// Reads `r` as Llama (read_llama_family dispatches on the model type), then restores the family's own.
void hf_solar_read_as_llama(const reader& r, model_spec& m) {
  const std::string type = m.model_type;
  m.model_type = "llama";
  read_llama_family(r, m);
  m.model_type = type;
}

}  // namespace

// solar (Solar Pro, SolarForCausalLM, remote code; vLLM's solar.py): Llama's decoder layer (q/k/v/o
// with biases when attention_bias or bias is set, gated SiLU MLP with mlp_bias, two RMSNorms) and an
// untied head. Its block skip connections (bskcn_1..4) keep the hidden state before some layers and
// blend it into later ones with the scalar weight bskcn_tv from the config: no weights, and an
// elementwise blend at a handful of layers, which is left out of the FLOPs.
void read_solar(const reader& r, model_spec& m) {
  hf_solar_read_as_llama(r, m);
  const bool bias = r.boolean_or("attention_bias", false) || r.boolean_or("bias", false);
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// step1 (Step-1: Step-Audio-Chat, Step-Audio-TTS-3B; Step1ForCausalLM, remote code; vLLM's
// step1.py): Llama's pre-norm layer (q/k/v/o with biases only when attention_bias, a gated SiLU
// MLP with mlp_bias, two RMSNorms) with ALiBi where Llama has rotary positions, num_attention_groups
// key/value heads (num_key_value_heads, else 1) and heads of hidden_size / num_attention_heads
// (vLLM reads no head_dim). Positions run to max_seq_len. The head is separate unless
// tie_word_embeddings says otherwise: Step-Audio-TTS-3B's checkpoint holds both tables.
void read_step1(const reader& r, model_spec& m) {
  hf_solar_read_as_llama(r, m);
  attention_spec& a = m.attention;
  if (m.hidden_size % a.num_heads != 0)
    range_error(r, "num_attention_heads",
                "expected a divisor of the hidden size " + std::to_string(m.hidden_size) + ", but got " +
                    std::to_string(a.num_heads));
  a.head_dim = a.v_head_dim = m.hidden_size / a.num_heads;
  const std::string_view kv_key = r.has("num_attention_groups") ? "num_attention_groups" : "num_key_value_heads";
  a.num_kv_heads = r.has(kv_key) ? r.positive(kv_key) : 1;
  if (a.num_kv_heads > a.num_heads || a.num_heads % a.num_kv_heads != 0)
    range_error(r, kv_key,
                "expected a divisor of num_attention_heads (" + std::to_string(a.num_heads) + "), but got " +
                    std::to_string(a.num_kv_heads));
  a.rotary_dim = 0;
  m.position = position_kind::alibi;
  if (m.max_position_embeddings == 0) m.max_position_embeddings = r.non_negative_or("max_seq_len", 0);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// jais (Jais-13B, Jais-30B, the Jais family; JAISLMHeadModel, remote code; vLLM's jais.py): GPT-2's
// block (ln_1 and ln_2 LayerNorms with bias, c_attn and c_proj with biases, multi-head attention)
// with ALiBi (no wpe table) unless position_embedding_type asks for learned positions (then
// n_positions rows), and a SwiGLU MLP (c_fc and c_fc2 from the hidden state, c_proj back, all with
// biases) of n_inner (4 x n_embd when absent) when activation_function is "swiglu", a plain
// c_fc -> act -> c_proj MLP otherwise. The head is tied to wte unless tie_word_embeddings is false.
// The muP scales (embeddings_scale, width_scale, mup_*) are scalars of the config; the ALiBi slopes
// some checkpoints store (relative_pe.slopes, n_head fixed values) are recomputed by vLLM and left
// out here.
void read_jais(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, r.pick({"n_embd", "hidden_size"}),
                 r.pick({"n_layer", "num_hidden_layers"}), r.pick({"n_head", "num_attention_heads"}));
  m.attention.qkv_bias = m.attention.o_bias = true;
  m.mlp.intermediate_size = r.positive_or("n_inner", 4 * m.hidden_size);
  m.mlp.bias = true;
  const std::string act = r.string_or("activation_function", "gelu_new");
  m.mlp.gated = act == "swiglu";
  m.mlp.activation = m.mlp.gated ? "silu" : act;
  const std::string pos = r.string_or("position_embedding_type", "learned");
  m.max_position_embeddings = r.non_negative_or(r.pick({"n_positions", "max_position_embeddings"}), 0);
  if (pos == "alibi") {
    m.position = position_kind::alibi;
  } else if (pos == "learned") {
    m.position = position_kind::learned;
    m.learned_positions = r.positive(r.pick({"n_positions", "max_position_embeddings"}));
  } else {
    range_error(r, "position_embedding_type", "expected \"alibi\" or \"learned\", but got \"" + pos + "\"");
  }
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  uniform_layers(m);
}

// iquestcoder (IQuest-Coder-V1, IQuestCoderForCausalLM, remote code; vLLM runs it as
// LlamaForCausalLM): Llama's layout with an explicit head_dim, no biases and an untied head.
void read_iquestcoder(const reader& r, model_spec& m) {
  hf_solar_read_as_llama(r, m);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// maincoder (Maincoder-1B, MaincoderForCausalLM, remote code; llama.cpp's maincoder.cpp): Llama's
// layer with an explicit head_dim, no biases and, when use_qk_norm (the default), an RMSNorm of
// head_dim on every query and key head (llama.cpp applies it after RoPE); the head tied as
// tie_word_embeddings says.
void read_maincoder(const reader& r, model_spec& m) {
  hf_solar_read_as_llama(r, m);
  m.attention.qkv_bias = m.attention.o_bias = false;
  m.attention.qk_norm = r.boolean_or("use_qk_norm", true);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// gpt_refact (Refact-1.6B, GPTRefactForCausalLM, remote code; llama.cpp's refact.cpp and its
// converter): Llama's pre-norm layer without biases (q, a fused k/v projection, a gated SiLU MLP,
// two RMSNorms) with ALiBi where Llama has rotary positions, one key/value head when multi_query
// (every head otherwise) and an untied head. The MLP width is not in the config (n_inner is null):
// 256 x ceil(int(8 x n_embd / 3) / 256), as the modeling code and llama.cpp's converter derive it.
void read_gpt_refact(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive(r.pick({"n_embd", "hidden_size"}));
  m.num_layers = r.layers(r.pick({"n_layer", "num_hidden_layers"}));
  m.vocab_size = r.positive("vocab_size");
  read_heads(r, m, r.pick({"n_head", "num_attention_heads"}), "__none__", r.boolean_or("multi_query", true) ? 1 : 0);
  m.attention.rotary_dim = 0;
  m.position = position_kind::alibi;
  m.norm = norm_kind::rmsnorm;
  m.mlp.gated = true;
  m.mlp.activation = "silu";
  const std::int64_t width = detail::mul(8, m.hidden_size) / 3;
  m.mlp.intermediate_size = detail::mul(256, (width + 255) / 256);
  m.max_position_embeddings = r.non_negative_or(r.pick({"n_positions", "max_position_embeddings"}), 0);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  uniform_layers(m);
}

// TeleFLM (Tele-FLM 52B, FLM-2, Tele-FLM-1T; TeleFLMForCausalLM, remote code; vLLM's teleflm.py is
// LlamaForCausalLM with muP input and output multipliers): Llama's layout, no biases, an untied head.
// input_mult, output_mult and mup_scale_factor scale activations and logits, not weights.
void read_teleflm(const reader& r, model_spec& m) {
  hf_solar_read_as_llama(r, m);
  m.attention.qkv_bias = m.attention.o_bias = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

}  // namespace flopcast::detail
