// Config reader for TeleChat (telechat: TeleChat and TeleChat2, remote code; TeleChat2ForCausalLM
// in vLLM), registered in families() in hf_config.cpp.
#include <string>

#include "base/json_reader.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {

// telechat: a Llama-style decoder under BLOOM-style names (n_layer, n_head, ffn_hidden_size,
// layer_norm_epsilon). RMSNorm before attention and the MLP and at the end; rotary attention whose
// query and key_value projections have no bias but whose output projection (dense) has one; a gated
// SiLU MLP whose gate_proj and up_proj have no bias but whose down_proj has one (vLLM's telechat2.py
// builds Llama with biases and removes them from qkv_proj and gate_up_proj); num_key_value_heads
// groups when given (TeleChat2-115B: 8), every head otherwise; an untied head unless
// tie_word_embeddings says so.
void read_telechat(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  m.num_layers = r.layers("n_layer");
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("seq_length", 0);
  m.norm = norm_kind::rmsnorm;
  m.norms_per_layer = 2;
  m.position = position_kind::rotary;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  read_heads(r, m, "n_head", "num_key_value_heads", 0);
  m.attention.qkv_bias = false;
  m.attention.o_bias = true;
  m.mlp.gated = true;
  m.mlp.intermediate_size = r.positive("ffn_hidden_size");
  m.mlp.bias = false;
  m.mlp.down_bias = true;
  m.mlp.activation = "silu";
  uniform_layers(m);
}

}  // namespace flopcast::detail
