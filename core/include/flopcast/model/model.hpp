#pragma once
// The normalised architecture that every estimate starts from. A Hugging Face
// config.json is read into a model_spec by config.hpp; everything else works on this.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "flopcast/formats/precision.hpp"

namespace flopcast {

enum class architecture : std::uint8_t { decoder, encoder, encoder_decoder };
enum class norm_kind : std::uint8_t { rmsnorm, layernorm };
enum class position_kind : std::uint8_t { rotary, learned, alibi, relative_bias, none };
// What mixes tokens in a layer: softmax attention, Gated DeltaNet linear attention (Qwen3-Next,
// Qwen3.5; Kimi Delta Attention), a Mamba-1 or Mamba-2 selective state-space block, nothing (an
// MLP-only block), LFM2's gated short convolution, or an RWKV-6 / RWKV-7 time mix.
enum class mixer_kind : std::uint8_t { attention, linear_attention, mamba, mamba2, none, short_conv, rwkv };

struct attention_spec {
  std::int64_t num_heads = 0;
  std::int64_t num_kv_heads = 0;  // == num_heads for MHA, 1 for MQA
  std::int64_t head_dim = 0;      // query/key head size (q/k of one head)
  std::int64_t v_head_dim = 0;    // value head size (== head_dim except MLA)
  bool qkv_bias = false;
  bool o_bias = false;
  bool qk_norm = false;  // per-head RMSNorm on q and k (Qwen3)
  // The q and k norms span every head (weights of heads x head_dim and kv_heads x head_dim:
  // OLMo 2's and OLMoE's whole-projection RMSNorm, Cohere's) instead of one head_dim. Only read
  // when qk_norm is set.
  bool qk_norm_full_width = false;
  std::int64_t rotary_dim = 0;  // dims per head that RoPE rotates (partial rotary: NeoX)
  // Multi-head latent attention (DeepSeek-V2/V3). When mla is true, head_dim is
  // qk_nope_head_dim + qk_rope_head_dim and num_kv_heads is ignored.
  bool mla = false;
  std::int64_t q_lora_rank = 0;  // 0: q is a plain projection
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  // gpt-oss attention sinks: one learned logit per head joins every softmax (num_heads
  // parameters per layer, 5 FLOPs per head and query).
  bool sinks = false;
  // Qwen3-Next / Qwen3.5 gated attention: q_proj also emits a sigmoid gate per output element
  // (the q projection is twice as wide; 2 FLOPs per gated element).
  bool output_gate = false;
  // DeepSeek-V3.2 sparse attention: a lightning indexer (index_heads heads of index_head_dim,
  // one shared key per token, cached) scores every earlier token and the attention proper reads
  // only the index_topk best keys. 0: dense attention.
  std::int64_t index_heads = 0;
  std::int64_t index_head_dim = 0;
  std::int64_t index_topk = 0;
  // BitNet's attn_sub_norm: an RMSNorm over the attention output (heads x v_head_dim) before o_proj.
  bool sub_norm = false;
  // Compared so layer shapes that differ only in their attention group apart (layer_group::attention).
  [[nodiscard]] auto fields() const {
    return std::tie(num_heads, num_kv_heads, head_dim, v_head_dim, qkv_bias, o_bias, qk_norm, qk_norm_full_width,
                    rotary_dim, mla, q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, sinks, output_gate,
                    index_heads, index_head_dim, index_topk, sub_norm);
  }
  bool operator==(const attention_spec& o) const { return fields() == o.fields(); }
  bool operator!=(const attention_spec& o) const { return fields() != o.fields(); }
  bool operator<(const attention_spec& o) const { return fields() < o.fields(); }
};

// Gated DeltaNet (linear_attention layers of Qwen3-Next and Qwen3.5): in_proj_qkvz and
// in_proj_ba from the hidden state, a depthwise causal conv over q, k and v, a gated RMSNorm of
// value_head_dim and out_proj. Per sequence it keeps a constant state of value heads x
// key_head_dim x value_head_dim plus the conv's last conv_kernel - 1 inputs, instead of a KV cache.
// Kimi Delta Attention (kimi_linear) is the same delta rule with finer gates, expressed by the two
// ranks: its decay is per key channel, from a low-rank f_a (h -> decay_rank) and f_b (rank -> key
// width) with a dt_bias per key channel, and its output gate comes from a low-rank g_a/g_b pair
// instead of the full-width z of in_proj_qkvz. 0 (Gated DeltaNet): a per-head decay a and the z
// gate come from the hidden state directly, dt_bias per value head.
struct linear_attention_spec {
  std::int64_t num_key_heads = 0;
  std::int64_t num_value_heads = 0;
  std::int64_t key_head_dim = 0;
  std::int64_t value_head_dim = 0;
  std::int64_t conv_kernel = 0;
  std::int64_t decay_rank = 0;  // KDA f_a/f_b rank; 0: per-head decay
  std::int64_t gate_rank = 0;   // KDA g_a/g_b rank; 0: full-width output gate
};

// Selective state-space mixers. Mamba-1 (mamba, jamba): in_proj h -> 2 inner, depthwise conv,
// x_proj inner -> dt_rank + 2 state, dt_proj dt_rank -> inner, A (inner x state) and D, out_proj.
// Mamba-2 (mamba2, nemotron_h, falcon_h1): in_proj h -> 2 inner + 2 groups x state + heads,
// conv over inner + 2 groups x state, dt_bias/A/D per head, gated RMSNorm of inner, out_proj.
// The per-sequence state is inner x state (plus the conv's last conv_kernel - 1 inputs).
struct ssm_spec {
  std::int64_t inner = 0;  // d_inner / mamba_d_ssm
  std::int64_t state_size = 0;
  std::int64_t conv_kernel = 0;
  std::int64_t dt_rank = 0;  // Mamba-1
  // Mamba-2 (head_dim = inner / num_heads); on a Mamba-1 mixer, PLaMo 2's heads: dt_proj goes
  // dt_rank -> heads and dt_bias, A_log and D are per head (0: Mamba-1's per-channel layout).
  std::int64_t num_heads = 0;
  std::int64_t n_groups = 1;  // Mamba-2 B and C groups
  bool conv_bias = true;
  bool proj_bias = false;    // in_proj and out_proj biases
  bool gated_norm = true;    // Mamba-2 gated RMSNorm before out_proj
  bool dt_bc_norms = false;  // Jamba: RMSNorms on dt (dt_rank), B and C (state each)
};

// LFM2's gated short convolution (Lfm2ShortConv), as wide as the hidden state: in_proj h -> 3h
// (gates B and C and the input x), a depthwise causal conv of conv_kernel taps over B * x, C times
// the result, out_proj h -> h; bias (conv_bias) on all three or none. Its per-sequence state is the
// conv's last conv_kernel - 1 inputs.
struct short_conv_spec {
  std::int64_t conv_kernel = 0;
  bool bias = false;
};

// RWKV time mix (mixer_kind::rwkv). Both versions shift each token against the previous one
// (token shift), project receptance, key and value (and a gate) from per-projection mixes of the
// two, run a per-head matrix-valued recurrence of head_size x head_size, a per-head GroupNorm
// (weight and bias) and the output projection; no positions, no KV cache. Per sequence a layer keeps
// heads x head_size x head_size state plus the last token's hidden vector for the time mix and one
// for the channel mix.
// RWKV-6 (Finch): time_maa_x/w/k/v/r/g vectors, the token-shift LoRA time_maa_w1 (h x 5 mix_rank,
// tanh) and time_maa_w2 (5 x mix_rank x h), time_decay and time_faaaa (attention_size each), the
// decay LoRA time_decay_w1 (h x decay_rank, tanh) and time_decay_w2 (decay_rank x attention_size),
// receptance/key/value/gate (h x attention_size), output (attention_size x h), ln_x.
// RWKV-7 (Goose, fla's RWKV7Attention): x_r/w/k/v/a(/g) vectors, k_k, k_a and r_k (h each), r/k/v/o
// projections (h x h), LoRAs h -> rank -> h for the decay w (tanh, bias), the in-context rate a
// (bias), the value residual v (bias; not in the first layer, whose value the others mix toward)
// and the gate g (sigmoid, no bias; absent without a gate), g_norm.
struct rwkv_spec {
  int version = 0;                  // 6 or 7
  std::int64_t head_size = 0;       // per-head key/value size (the state is head_size^2 per head)
  std::int64_t attention_size = 0;  // receptance/key/value width (heads x head_size)
  std::int64_t mix_rank = 0;        // RWKV-6 token-shift LoRA rank (TIME_MIX_EXTRA_DIM)
  std::int64_t decay_rank = 0;      // decay LoRA rank (RWKV-6 TIME_DECAY_EXTRA_DIM, RWKV-7 w)
  std::int64_t a_rank = 0;          // RWKV-7 in-context learning rate LoRA
  std::int64_t value_rank = 0;      // RWKV-7 value residual LoRA
  std::int64_t gate_rank = 0;       // RWKV-7 gate LoRA; 0: no gate (and no x_g)
};

struct mlp_spec {
  std::int64_t intermediate_size = 0;  // dense MLP width
  bool gated = false;                  // SwiGLU/GeGLU: gate, up, down projections
  bool bias = false;
  bool down_bias = false;  // only the down projection has a bias (TeleChat); ignored when bias is set
  std::string activation;  // as named in the config (silu, gelu_new, relu, ...)
  bool sub_norm = false;   // BitNet's ffn_sub_norm: an RMSNorm of the intermediate width before down_proj
  // Scalars a learnable activation keeps in each dense MLP, stored in the checkpoint beside the
  // projections (Apertus's xIELU: alpha_p, alpha_n and the beta, eps buffers = 4).
  std::int64_t activation_params = 0;
  // The RWKV channel mix as an MLP (key = up h -> width, relu^2, value = down): token_shift vectors
  // of hidden size mix each token with the previous one before the projections (RWKV-6: time_maa_k
  // and time_maa_r = 2, RWKV-7: x_k = 1), and RWKV-6's receptance (h x h, sigmoid) gates the output.
  std::int64_t token_shift = 0;
  bool receptance = false;
};

struct moe_spec {
  std::int64_t num_experts = 0;  // routed experts
  std::int64_t experts_per_token = 0;
  std::int64_t expert_intermediate_size = 0;
  std::int64_t shared_intermediate_size = 0;  // total width of always-on shared experts
  bool shared_expert_gate = false;            // Qwen2-MoE: sigmoid gate Linear(h, 1)
  bool router_bias = false;                   // DeepSeek-V3 e_score_correction_bias, gpt-oss router bias
  bool expert_bias = false;                   // gpt-oss: every expert projection has a bias
  bool gated_experts = true;                  // false: up/down experts (Nemotron-H relu^2)
  // LongCat-Flash zero-computation experts: identity experts without weights that the router
  // scores beside the routed ones (its logits and score-correction bias span both). A token's
  // top-k may pick them, so experts_per_token routed experts is the most a token uses.
  std::int64_t zero_experts = 0;
};

// Layers that share a shape are counted once and multiplied.
struct layer_group {
  std::int64_t count = 0;
  bool encoder = false;          // part of the encoder stack (bidirectional, over the input)
  bool cross_attention = false;  // encoder-decoder decoder layer
  bool moe = false;              // MLP is a mixture of experts
  std::int64_t window = 0;       // sliding-window size, 0 = full attention
  mixer_kind mixer = mixer_kind::attention;
  bool parallel_ssm = false;  // a Mamba-2 mixer beside the attention, on the same input (Falcon-H1)
  bool mlp = true;            // the layer has an MLP part (false: Mamba, Nemotron-H mixer blocks)
  bool nope = false;          // attention without positions in this layer (Llama 4 global layers)
  std::int64_t chunk = 0;     // chunked local attention: queries see their own chunk only (Llama 4)
  std::int64_t norms = -1;    // hidden-size norms of the layer; -1: the model's norms_per_layer
  // The layer's own attention when its layout differs from the model's (MiMo-V2-Flash's
  // sliding-window layers have twice the KV heads of its full layers, and sinks): every count
  // and the KV cache of the group read it; empty: model_spec::attention.
  std::optional<attention_spec> attention;
  // The layer's own dense MLP width when it differs from the model's (OpenELM's and DeciLM's
  // per-layer FFN widths): every count of the group's dense MLP reads it; 0:
  // model_spec::mlp.intermediate_size. Layers without attention (mixer none) or without an MLP
  // (mlp false) are expressed by those fields.
  std::int64_t intermediate_size = 0;
  // The first layer of an RWKV-7 stack: its value is the v_first the later layers mix toward, so
  // its time mix has no value-residual LoRA.
  bool rwkv_first = false;
};

// Distinct layer shapes a model may have. OpenELM-3B has 36 distinct layers and DeciLM
// (Nemotron-NAS) models give many layers their own FFN width and head count. layer_group_of
// indexes groups with a std::uint8_t (at most 256); every estimate result carries per-group
// arrays of this size, and 64 keeps them small (the wasm build runs on a 64 KiB stack).
inline constexpr std::size_t max_layer_groups = 64;

struct model_spec {
  std::string name;        // e.g. "meta-llama/Meta-Llama-3-8B"
  std::string model_type;  // config.json model_type
  architecture arch = architecture::decoder;

  std::int64_t hidden_size = 0;
  std::int64_t vocab_size = 0;
  std::int64_t num_layers = 0;          // decoder (or encoder-only) layers
  std::int64_t num_encoder_layers = 0;  // encoder-decoder only
  std::int64_t max_position_embeddings = 0;
  // The longest context the config supports: max_position_embeddings, or a rope_scaling's
  // extension of it (YaRN / dynamic: original_max_position_embeddings x factor). 0: unknown.
  std::int64_t context_length = 0;

  attention_spec attention;
  mlp_spec mlp;
  moe_spec moe;
  linear_attention_spec linear;
  ssm_spec ssm;
  short_conv_spec short_conv;
  rwkv_spec rwkv;

  norm_kind norm = norm_kind::rmsnorm;
  bool norm_bias = true;             // LayerNorm carries a bias (false: Cohere, MPT's no_bias)
  bool norm_affine = true;           // false: hidden-size norms without weight or bias (OLMo 1)
  std::int64_t norms_per_layer = 2;  // hidden-size norms in one (self-attention) layer
  bool final_norm = true;            // norm before the head (per stack for enc-dec)
  bool embedding_norm = false;       // LayerNorm right after the embedding (BLOOM, BERT)
  bool parallel_attention = false;   // attention and MLP read the same input (Falcon, NeoX)

  position_kind position = position_kind::rotary;
  std::int64_t learned_positions = 0;  // rows of the learned position table (incl. OPT's +2)
  std::int64_t token_type_vocab = 0;   // BERT token-type table rows
  std::int64_t relative_buckets = 0;   // T5 relative-attention buckets
  bool scale_embeddings = false;       // Gemma multiplies embeddings by sqrt(hidden)

  bool tie_word_embeddings = false;
  bool lm_head = true;              // a vocabulary head exists (false for BERT-like encoders)
  bool lm_head_bias = false;        // the untied vocabulary head has a bias (Phi: vocab_size more)
  bool pooler = false;              // BERT/RoBERTa pooler (dense h x h + tanh on [CLS])
  std::int64_t embed_proj_dim = 0;  // OPT-350m word_embed_proj_dim when != hidden_size
  // Multi-token-prediction modules shipped beside the main stack and counted in its published
  // total (MiMo): each is one dense decoder layer of the stack's shape plus two input RMSNorms,
  // a 2h -> h input projection and an output RMSNorm. Part of the weights (total), not of the
  // per-token parameters (active).
  std::int64_t mtp_layers = 0;

  // The vision tower of a multimodal wrapper (vision_config), with its projector: counted from
  // the config by vision_parameters() when its model_type is known, 0 otherwise. Part of the
  // weights (total), not of the per-token text FLOPs.
  std::int64_t vision_parameters = 0;
  std::string vision_model_type;

  // The checkpoint's own format, from config.json's quantization_config (fp8, mxfp4, awq, gptq,
  // bitsandbytes, compressed-tensors, modelopt): the precision an estimate uses when the request
  // names none. method empty: a plain (bf16/fp16) checkpoint.
  struct quantization_default {
    std::string method;
    precision weights = precision::bf16;
    std::array<std::optional<precision>, weight_component_count> parts{};
    std::string note;  // what was read, for output ("fp8 128x128 blocks; lm_head not converted")
  } quantization;

  std::vector<layer_group> groups;           // at most max_layer_groups
  std::vector<std::uint8_t> layer_group_of;  // per layer in execution order: index into groups
};

// Parameter counts by component. Exact integers.
struct parameter_breakdown {
  std::int64_t embedding = 0;    // token (+ position, token-type) tables; tied head counted here
  std::int64_t attention = 0;    // projections, biases, relative-position tables
  std::int64_t mlp = 0;          // dense MLPs, routed and shared experts, routers
  std::int64_t norm = 0;         // every norm's weights (and biases)
  std::int64_t output_head = 0;  // untied LM head, OPT projections, BERT pooler
  std::int64_t mixer = 0;        // linear-attention, state-space, short-conv and RWKV time-mix mixers
  std::int64_t vision = 0;       // vision tower and projector (multimodal wrappers)
  std::int64_t total = 0;
  std::int64_t active = 0;                                 // per token: MoE counts only the experts a token uses
  std::array<std::int64_t, max_layer_groups> per_layer{};  // one layer of each group
  std::array<std::int64_t, max_layer_groups> per_layer_active{};
};

// The attention a layer of group g runs: the group's own, or the model's.
[[nodiscard]] inline const attention_spec& attention_of(const model_spec& m, const layer_group& g) {
  return g.attention ? *g.attention : m.attention;
}

// The dense MLP width of a layer of group g: the group's own, or the model's.
[[nodiscard]] inline std::int64_t mlp_width_of(const model_spec& m, const layer_group& g) {
  return g.intermediate_size > 0 ? g.intermediate_size : m.mlp.intermediate_size;
}

[[nodiscard]] parameter_breakdown count_parameters(const model_spec& m);

}  // namespace flopcast
