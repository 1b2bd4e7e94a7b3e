// Config readers for GPT-J (gptj), GPTBigCode (gpt_bigcode: StarCoder, SantaCoder), StableLM
// (stablelm, stablelm_epoch), ChatGLM (chatglm: ChatGLM-6B, ChatGLM2/3-6B, GLM-4-9B remote code)
// and GLM (glm, glm4: the in-library GLM-4 checkpoints), registered in families() in
// hf_config.cpp.
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// gptj (GPT-J-6B, modeling_gptj.py): one ln_1 feeds attention and MLP in parallel; q, k, v and
// out_proj without bias; rotary on the first rotary_dim dims of each head (all of it when
// null); fc_in -> gelu_new -> fc_out with biases; an untied lm_head with a bias.
void read_gptj(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "n_embd", "n_layer", "n_head");
  attention_spec& a = m.attention;
  m.position = position_kind::rotary;
  a.rotary_dim = r.has("rotary_dim") ? r.positive("rotary_dim") : a.head_dim;
  if (a.rotary_dim > a.head_dim)
    range_error(
        r, "rotary_dim",
        "expected at most the head size " + std::to_string(a.head_dim) + ", but got " + std::to_string(a.rotary_dim));
  a.qkv_bias = a.o_bias = false;
  m.mlp.intermediate_size = r.positive_or("n_inner", mul(4, m.hidden_size));
  m.mlp.bias = true;
  m.mlp.activation = r.string_or("activation_function", "gelu_new");
  m.parallel_attention = true;
  m.norms_per_layer = 1;
  m.max_position_embeddings = r.positive_or("n_positions", 2048);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.lm_head_bias = true;
  uniform_layers(m);
}

// gpt_bigcode (StarCoder, SantaCoder, StarCoderBase): GPT-2's layout (learned positions, biases
// everywhere, tied head) with multi-query attention: c_attn emits the query and one shared key
// and value head when multi_query is set.
void read_gpt_bigcode(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "n_embd", "n_layer", "n_head");
  if (r.boolean_or("multi_query", true)) m.attention.num_kv_heads = 1;
  m.attention.qkv_bias = m.attention.o_bias = true;
  m.mlp.intermediate_size = r.positive_or("n_inner", mul(4, m.hidden_size));
  m.mlp.bias = true;
  m.mlp.activation = r.string_or("activation_function", "gelu_pytorch_tanh");
  m.position = position_kind::learned;
  m.learned_positions = r.positive_or("n_positions", 1024);
  m.max_position_embeddings = m.learned_positions;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  uniform_layers(m);
}

// stablelm (StableLmForCausalLM) and stablelm_epoch (the remote-code StableLMEpochForCausalLM of
// the first StableLM-3B-4E1T / Zephyr-3B uploads, with rope_pct and norm_eps): Llama's gated MLP
// and GQA behind LayerNorms with bias, partial rotary, optional q/k/v biases (use_qkv_bias); with
// use_parallel_residual one LayerNorm feeds attention and MLP; qk_layernorm adds a weight-only
// LayerNorm per head on q and k (heads x head_dim and kv_heads x head_dim weights).
void read_stablelm(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  attention_spec& a = m.attention;
  const double partial = r.number_or(r.pick({"partial_rotary_factor", "rope_pct"}), 0.25, 0.0, 1.0);
  a.rotary_dim = static_cast<std::int64_t>(static_cast<double>(a.head_dim) * partial);
  a.qkv_bias = r.boolean_or("use_qkv_bias", false);
  a.o_bias = false;
  a.qk_norm = r.boolean_or("qk_layernorm", false);
  a.qk_norm_full_width = a.qk_norm;
  m.norm = norm_kind::layernorm;
  m.parallel_attention = r.boolean_or("use_parallel_residual", false);
  m.norms_per_layer = m.parallel_attention ? 1 : 2;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

namespace {

// ChatGLM-6B (the first generation, also model_type chatglm): inner_hidden_size and no
// ffn_hidden_size. LayerNorms with bias, query_key_value and dense with bias, a plain
// dense_h_to_4h -> gelu -> dense_4h_to_h MLP with biases, 2D rotary over half of each head per
// position kind (all of head_dim rotated), the head tied to the embedding.
void read_chatglm_v1(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "hidden_size", "num_layers", "num_attention_heads");
  m.position = position_kind::rotary;
  m.attention.rotary_dim = m.attention.head_dim;
  m.attention.qkv_bias = m.attention.o_bias = true;
  m.mlp.intermediate_size = r.positive_or("inner_hidden_size", mul(4, m.hidden_size));
  m.mlp.bias = true;
  m.mlp.activation = "gelu";
  m.max_position_embeddings = r.non_negative_or("max_sequence_length", 0);
  m.tie_word_embeddings = true;  // ChatGLMForConditionalGeneration ties lm_head to word_embeddings
  uniform_layers(m);
}

}  // namespace

// chatglm (ChatGLM2-6B, ChatGLM3-6B, GLM-4-9B remote code; ChatGLMModel in vLLM): RMSNorm
// (rmsnorm), query_key_value of heads x kv_channels for q plus multi_query_group_num key and
// value heads, with a bias when add_qkv_bias; dense and the SwiGLU MLP (dense_h_to_4h emits gate
// and up, ffn_hidden_size each) with biases only when add_bias_linear; rotary on half of each
// head; a final norm when post_layer_norm; an untied output_layer of padded_vocab_size rows.
void read_chatglm(const reader& r, model_spec& m) {
  if (!r.has("ffn_hidden_size") && r.has("inner_hidden_size")) {
    read_chatglm_v1(r, m);
    return;
  }
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  m.num_layers = r.layers("num_layers");
  m.vocab_size = r.positive(r.pick({"padded_vocab_size", "vocab_size"}));
  attention_spec& a = m.attention;
  a.num_heads = r.positive("num_attention_heads");
  if (r.has("kv_channels")) {
    a.head_dim = r.positive("kv_channels");
  } else {
    if (m.hidden_size % a.num_heads != 0)
      range_error(r, "num_attention_heads",
                  "expected a divisor of the hidden size " + std::to_string(m.hidden_size) +
                      " (no kv_channels given), but got " + std::to_string(a.num_heads));
    a.head_dim = m.hidden_size / a.num_heads;
  }
  a.v_head_dim = a.head_dim;
  a.num_kv_heads = a.num_heads;
  if (r.boolean_or("multi_query_attention", false)) {
    a.num_kv_heads = r.positive_or("multi_query_group_num", 1);
    if (a.num_kv_heads > a.num_heads || a.num_heads % a.num_kv_heads != 0)
      range_error(r, "multi_query_group_num",
                  "expected a divisor of num_attention_heads (" + std::to_string(a.num_heads) + "), but got " +
                      std::to_string(a.num_kv_heads));
  }
  a.rotary_dim = a.head_dim / 2;  // RotaryEmbedding(kv_channels // 2): the first half of each head
  const bool linear_bias = r.boolean_or("add_bias_linear", false);
  a.qkv_bias = linear_bias || r.boolean_or("add_qkv_bias", false);
  a.o_bias = linear_bias;
  m.mlp.gated = true;
  m.mlp.activation = "silu";
  m.mlp.intermediate_size = r.positive("ffn_hidden_size");
  m.mlp.bias = linear_bias;
  m.norm = r.boolean_or("rmsnorm", true) ? norm_kind::rmsnorm : norm_kind::layernorm;
  m.final_norm = r.boolean_or("post_layer_norm", true);
  m.position = position_kind::rotary;
  m.max_position_embeddings = r.non_negative_or("seq_length", 0);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  uniform_layers(m);
}

// glm (GlmForCausalLM: glm-4-9b-chat-hf and the other in-library GLM-4 uploads): Llama's layout
// with q/k/v biases when attention_bias (o_proj never has one), a fused gate_up_proj (the same
// count as gate and up) and partial rotary (partial_rotary_factor, 0.5).
void read_glm(const reader& r, model_spec& m) {
  read_llama_family(r, m);
  m.attention.qkv_bias = r.boolean_or("attention_bias", true);
  m.attention.o_bias = false;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
}

// glm4 (Glm4ForCausalLM: GLM-4-9B-0414, GLM-4-32B-0414, GLM-Z1): GLM's layer plus
// post_self_attn_layernorm and post_mlp_layernorm (four RMSNorms per layer).
void read_glm4(const reader& r, model_spec& m) {
  read_glm(r, m);
  m.norms_per_layer = 4;
}

}  // namespace flopcast::detail
