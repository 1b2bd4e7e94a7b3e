#pragma once
// The normalised architecture that every estimate starts from. A Hugging Face
// config.json is read into a model_spec by config.hpp; everything else works on this.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace flopcast {

enum class architecture : std::uint8_t { decoder, encoder, encoder_decoder };
enum class norm_kind : std::uint8_t { rmsnorm, layernorm };
enum class position_kind : std::uint8_t { rotary, learned, alibi, relative_bias };

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
};

struct mlp_spec {
  std::int64_t intermediate_size = 0;  // dense MLP width
  bool gated = false;                  // SwiGLU/GeGLU: gate, up, down projections
  bool bias = false;
  std::string activation;  // as named in the config (silu, gelu_new, relu, ...)
};

struct moe_spec {
  std::int64_t num_experts = 0;  // routed experts
  std::int64_t experts_per_token = 0;
  std::int64_t expert_intermediate_size = 0;
  std::int64_t shared_intermediate_size = 0;  // total width of always-on shared experts
  bool shared_expert_gate = false;            // Qwen2-MoE: sigmoid gate Linear(h, 1)
  bool router_bias = false;                   // DeepSeek-V3 e_score_correction_bias
};

// Layers that share a shape are counted once and multiplied.
struct layer_group {
  std::int64_t count = 0;
  bool encoder = false;          // part of the encoder stack (bidirectional, over the input)
  bool cross_attention = false;  // encoder-decoder decoder layer
  bool moe = false;              // MLP is a mixture of experts
  std::int64_t window = 0;       // sliding-window size, 0 = full attention
};

inline constexpr std::size_t max_layer_groups = 8;

struct model_spec {
  std::string name;        // e.g. "meta-llama/Meta-Llama-3-8B"
  std::string model_type;  // config.json model_type
  architecture arch = architecture::decoder;

  std::int64_t hidden_size = 0;
  std::int64_t vocab_size = 0;
  std::int64_t num_layers = 0;          // decoder (or encoder-only) layers
  std::int64_t num_encoder_layers = 0;  // encoder-decoder only
  std::int64_t max_position_embeddings = 0;

  attention_spec attention;
  mlp_spec mlp;
  moe_spec moe;

  norm_kind norm = norm_kind::rmsnorm;
  bool norm_bias = true;             // LayerNorm carries a bias (false: Cohere, MPT's no_bias)
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
  std::int64_t total = 0;
  std::int64_t active = 0;                                 // per token: MoE counts only the experts a token uses
  std::array<std::int64_t, max_layer_groups> per_layer{};  // one layer of each group
  std::array<std::int64_t, max_layer_groups> per_layer_active{};
};

[[nodiscard]] parameter_breakdown count_parameters(const model_spec& m);

}  // namespace flopcast
