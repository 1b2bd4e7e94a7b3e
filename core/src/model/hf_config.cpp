// Reads Hugging Face config.json files into model_spec: one reader per model family,
// registered by model_type in families().
#include <algorithm>
#include <map>
#include <tuple>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "flopcast/model/config.hpp"
#include "model/hf_common.hpp"
#include "model/hf_reader.hpp"

namespace flopcast {
namespace detail {

void set_layers(model_spec& m, const std::vector<layer_desc>& layers) {
  m.groups.clear();
  m.layer_group_of.clear();
  std::map<layer_desc, std::size_t> index;
  for (const layer_desc& d : layers) {
    auto it = index.find(d);
    if (it == index.end()) {
      if (m.groups.size() == max_layer_groups)
        throw error(error_code::config_range, "",
                    "too many distinct layer shapes (more than " + std::to_string(max_layer_groups) + ")");
      layer_group g;
      g.encoder = d.encoder;
      g.cross_attention = d.cross;
      g.moe = d.moe;
      g.window = d.window;
      g.mixer = d.mixer;
      g.parallel_ssm = d.parallel_ssm;
      g.mlp = d.mlp;
      g.nope = d.nope;
      g.chunk = d.chunk;
      g.norms = d.norms;
      g.attention = d.attention;
      g.intermediate_size = d.intermediate_size;
      g.rwkv_first = d.rwkv_first;
      m.groups.push_back(g);
      it = index.emplace(d, m.groups.size() - 1).first;
    }
    ++m.groups[it->second].count;
    m.layer_group_of.push_back(static_cast<std::uint8_t>(it->second));
  }
}

// Heads and head size of standard (non-MLA) attention.
// MoE top-k within the expert count (hf_common.hpp).
void check_top_k(const reader& r, std::string_view key, const moe_spec& e) {
  if (e.experts_per_token > e.num_experts)
    range_error(r, key,
                "expected at most the number of experts (" + std::to_string(e.num_experts) + "), but got " +
                    std::to_string(e.experts_per_token));
}

// A per-layer list must name every layer.
void check_list_length(const reader& r, std::string_view key, std::size_t size, std::int64_t layers) {
  if (static_cast<std::int64_t>(size) < layers)
    range_error(
        r, key,
        "expected at least " + std::to_string(layers) + " entries (one per layer), but got " + std::to_string(size));
}

void read_heads(const reader& r, model_spec& m, std::string_view heads_key, std::string_view kv_key,
                std::int64_t kv_default) {
  attention_spec& a = m.attention;
  a.num_heads = r.positive(heads_key);
  a.num_kv_heads = r.has(kv_key) ? r.positive(kv_key) : kv_default == 0 ? a.num_heads : kv_default;
  if (a.num_kv_heads > a.num_heads || a.num_heads % a.num_kv_heads != 0)
    range_error(r, kv_key,
                "expected a divisor of " + std::string(heads_key) + " (" + std::to_string(a.num_heads) + "), but got " +
                    std::to_string(a.num_kv_heads));
  if (r.has("head_dim")) {
    a.head_dim = r.positive("head_dim");
  } else {
    if (m.hidden_size % a.num_heads != 0)
      range_error(r, heads_key,
                  "expected a divisor of the hidden size " + std::to_string(m.hidden_size) +
                      " (no head_dim given), but got " + std::to_string(a.num_heads));
    a.head_dim = m.hidden_size / a.num_heads;
  }
  a.v_head_dim = a.head_dim;
  a.rotary_dim = a.head_dim;
}

std::vector<std::string> window_layer_kinds(const reader& r, std::int64_t layers) {
  std::vector<std::string> kinds = r.string_list_or_empty("layer_types");
  if (!kinds.empty() && static_cast<std::int64_t>(kinds.size()) != layers)
    range_error(
        r, "layer_types",
        "expected " + std::to_string(layers) + " entries (one per layer), but got " + std::to_string(kinds.size()));
  for (std::size_t i = 0; i < kinds.size(); ++i)
    if (kinds[i] != "sliding_attention" && kinds[i] != "full_attention")
      throw error(error_code::config_range, r.ptr("layer_types") + "/" + std::to_string(i),
                  "expected \"sliding_attention\" or \"full_attention\", but got \"" + kinds[i] + "\"");
  return kinds;
}

// llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, phi3,
// deepseek_v2, deepseek_v3: pre-norm RMSNorm decoders with rotary positions and gated MLPs.
void read_decoder_basics(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive("hidden_size");
  m.num_layers = r.layers("num_hidden_layers");
  m.vocab_size = r.positive("vocab_size");
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  m.norm = norm_kind::rmsnorm;
}

void read_llama_family(const reader& r, model_spec& m) {
  const std::string& t = m.model_type;
  const bool deepseek = t == "deepseek_v2" || t == "deepseek_v3";
  const bool gemma = t == "gemma" || t == "gemma2";
  const bool qwen_moe = t == "qwen2_moe" || t == "qwen3_moe";
  read_decoder_basics(r, m);
  m.norms_per_layer = t == "gemma2" ? 4 : 2;
  m.position = position_kind::rotary;
  m.scale_embeddings = gemma;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", gemma);
  m.mlp.gated = true;
  m.mlp.activation = gemma ? r.string_or(r.pick({"hidden_activation", "hidden_act"}), "gelu_pytorch_tanh")
                           : r.string_or("hidden_act", "silu");
  const bool dense_layers_exist = true;
  (void)dense_layers_exist;

  attention_spec& a = m.attention;
  if (deepseek) {
    a.mla = true;
    a.num_heads = r.positive("num_attention_heads");
    a.num_kv_heads = a.num_heads;
    a.q_lora_rank = r.non_negative_or("q_lora_rank", 0);
    a.kv_lora_rank = r.positive("kv_lora_rank");
    a.qk_nope_head_dim = r.positive("qk_nope_head_dim");
    a.qk_rope_head_dim = r.positive("qk_rope_head_dim");
    a.v_head_dim = r.positive("v_head_dim");
    a.head_dim = a.qk_nope_head_dim + a.qk_rope_head_dim;
    a.rotary_dim = a.qk_rope_head_dim;
    a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
  } else {
    read_heads(r, m, "num_attention_heads", "num_key_value_heads", 0);
    const double partial = r.number_or("partial_rotary_factor", 1.0, 0.0, 1.0);
    a.rotary_dim = static_cast<std::int64_t>(static_cast<double>(a.head_dim) * partial);
    if (t == "qwen2" || t == "qwen2_moe") {
      a.qkv_bias = true;  // Qwen2 always has q/k/v biases and no o bias
    } else if (t == "llama" || t == "qwen3" || t == "qwen3_moe" || gemma) {
      a.qkv_bias = a.o_bias = r.boolean_or("attention_bias", false);
    }
    a.qk_norm = t == "qwen3" || t == "qwen3_moe";
  }
  if (t == "llama") m.mlp.bias = r.boolean_or("mlp_bias", false);

  // MoE layout.
  moe_spec& e = m.moe;
  std::vector<bool> is_moe(static_cast<std::size_t>(m.num_layers), false);
  if (t == "mixtral") {
    e.num_experts = r.positive("num_local_experts");
    e.experts_per_token = r.positive("num_experts_per_tok");
    e.expert_intermediate_size = r.positive("intermediate_size");
    std::fill(is_moe.begin(), is_moe.end(), true);
  } else if (qwen_moe) {
    e.num_experts = r.non_negative_or("num_experts", 0);
    if (e.num_experts > 0) {
      e.experts_per_token = r.positive("num_experts_per_tok");
      e.expert_intermediate_size = r.positive("moe_intermediate_size");
      if (t == "qwen2_moe") {
        e.shared_intermediate_size = r.non_negative_or("shared_expert_intermediate_size", 0);
        e.shared_expert_gate = e.shared_intermediate_size > 0;
      }
      const std::int64_t step = r.positive_or("decoder_sparse_step", 1);
      // Marked once (a search of the list per layer is quadratic in a hostile config).
      std::vector<bool> dense(static_cast<std::size_t>(m.num_layers), false);
      for (std::int64_t d : r.int_list_or_empty("mlp_only_layers"))
        if (d >= 0 && d < m.num_layers) dense[static_cast<std::size_t>(d)] = true;
      for (std::int64_t i = 0; i < m.num_layers; ++i)
        is_moe[static_cast<std::size_t>(i)] = (i + 1) % step == 0 && !dense[static_cast<std::size_t>(i)];
    }
  } else if (deepseek) {
    e.num_experts = r.non_negative_or("n_routed_experts", 0);
    if (e.num_experts > 0) {
      e.experts_per_token = r.positive("num_experts_per_tok");
      e.expert_intermediate_size = r.positive("moe_intermediate_size");
      e.shared_intermediate_size = detail::mul(r.non_negative_or("n_shared_experts", 0), e.expert_intermediate_size);
      e.router_bias = t == "deepseek_v3";
      const std::int64_t first_dense = r.non_negative_or("first_k_dense_replace", 0);
      const std::int64_t freq = r.positive_or("moe_layer_freq", 1);
      for (std::int64_t i = 0; i < m.num_layers; ++i)
        is_moe[static_cast<std::size_t>(i)] = i >= first_dense && i % freq == 0;
    }
  }
  if (e.num_experts > 0 && e.experts_per_token > e.num_experts)
    range_error(r, "num_experts_per_tok",
                "expected at most the number of experts (" + std::to_string(e.num_experts) + "), but got " +
                    std::to_string(e.experts_per_token));
  const bool any_dense = std::find(is_moe.begin(), is_moe.end(), false) != is_moe.end();
  if (any_dense) m.mlp.intermediate_size = r.positive("intermediate_size");

  // Sliding-window layout.
  std::vector<std::int64_t> window(static_cast<std::size_t>(m.num_layers), 0);
  std::int64_t w = 0;
  if (t == "qwen2" || t == "qwen2_moe" || t == "qwen3" || t == "qwen3_moe") {
    if (r.boolean_or("use_sliding_window", false)) w = r.non_negative_or("sliding_window", 0);
  } else if (t == "mistral" || t == "mixtral" || t == "phi3" || t == "gemma2") {
    w = r.non_negative_or("sliding_window", 0);
  }
  if (w > 0) {
    const std::vector<std::string> kinds = window_layer_kinds(r, m.num_layers);
    const std::int64_t max_window_layers = r.non_negative_or("max_window_layers", 0);
    for (std::int64_t i = 0; i < m.num_layers; ++i) {
      bool sliding = true;
      if (!kinds.empty())
        sliding = kinds[static_cast<std::size_t>(i)] == "sliding_attention";
      else if (t == "gemma2")
        sliding = i % 2 == 0;
      else if (t.rfind("qwen", 0) == 0)
        sliding = i >= max_window_layers;
      window[static_cast<std::size_t>(i)] = sliding ? w : 0;
    }
  }

  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    layers[i].moe = is_moe[i];
    layers[i].window = window[i];
  }
  set_layers(m, layers);
}

// Sizes shared by the single-stack families with plain multi-head attention (GPT-2, NeoX,
// OPT, BLOOM, BERT): no rotary unless the family sets it, LayerNorm.
void read_mha_stack(const reader& r, model_spec& m, architecture arch, std::string_view hidden, std::string_view layers,
                    std::string_view heads) {
  m.arch = arch;
  m.hidden_size = r.positive(hidden);
  m.num_layers = r.layers(layers);
  m.vocab_size = r.positive("vocab_size");
  read_heads(r, m, heads, "__none__", 0);
  m.attention.rotary_dim = 0;
  m.norm = norm_kind::layernorm;
}

// Every layer alike (encoder layers for encoder-only models).
void uniform_layers(model_spec& m) {
  layer_desc d;
  d.encoder = m.arch == architecture::encoder;
  set_layers(m, std::vector<layer_desc>(static_cast<std::size_t>(m.num_layers), d));
}

void read_falcon(const reader& r, model_spec& m) {
  m.arch = architecture::decoder;
  m.hidden_size = r.positive(r.pick({"hidden_size", "n_embed"}));
  m.num_layers = r.layers(r.pick({"num_hidden_layers", "n_layer"}));
  m.vocab_size = r.positive("vocab_size");
  const bool new_arch = m.model_type == "RefinedWeb" || r.boolean_or("new_decoder_architecture", false);
  const bool multi_query = r.boolean_or("multi_query", true);
  const std::string_view heads = r.pick({"num_attention_heads", "n_head"});
  const std::string_view kv = r.pick({"num_kv_heads", "n_head_kv"});
  std::int64_t kv_default = 0;
  if (!new_arch) kv_default = multi_query ? 1 : 0;
  if (new_arch || !multi_query)
    read_heads(r, m, heads, kv, kv_default);
  else {
    // Falcon-7B style multi-query: one shared K/V head whatever num_kv_heads says.
    read_heads(r, m, heads, "__none__", 1);
  }
  const bool alibi = r.boolean_or("alibi", false);
  m.position = alibi ? position_kind::alibi : position_kind::rotary;
  if (alibi) m.attention.rotary_dim = 0;
  const bool bias = r.boolean_or("bias", false);
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.mlp.bias = bias;
  m.mlp.gated = false;
  m.mlp.activation = r.string_or("activation", "gelu");
  m.mlp.intermediate_size = r.positive_or("ffn_hidden_size", 4 * m.hidden_size);
  m.parallel_attention = r.boolean_or("parallel_attn", true);
  m.norm = norm_kind::layernorm;
  if (new_arch)
    m.norms_per_layer = r.positive_or("num_ln_in_parallel_attn", 2) == 1 ? 1 : 2;
  else
    m.norms_per_layer = m.parallel_attention ? 1 : 2;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  uniform_layers(m);
}

void read_gpt2(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "n_embd", "n_layer", "n_head");
  m.attention.qkv_bias = m.attention.o_bias = true;
  m.mlp.intermediate_size = r.positive_or("n_inner", 4 * m.hidden_size);
  m.mlp.bias = true;
  m.mlp.activation = r.string_or("activation_function", "gelu_new");
  m.position = position_kind::learned;
  m.learned_positions = r.positive_or("n_positions", 1024);
  m.max_position_embeddings = m.learned_positions;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  uniform_layers(m);
}

void read_gpt_neox(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "hidden_size", "num_hidden_layers", "num_attention_heads");
  const double pct = r.number_or("rotary_pct", 0.25, 0.0, 1.0);
  m.attention.rotary_dim = static_cast<std::int64_t>(static_cast<double>(m.attention.head_dim) * pct);
  m.attention.qkv_bias = m.attention.o_bias = r.boolean_or("attention_bias", true);
  m.mlp.intermediate_size = r.positive("intermediate_size");
  m.mlp.bias = true;
  m.mlp.activation = r.string_or("hidden_act", "gelu");
  m.parallel_attention = r.boolean_or("use_parallel_residual", true);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", false);
  m.max_position_embeddings = r.non_negative_or("max_position_embeddings", 0);
  uniform_layers(m);
}

void read_opt(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, "hidden_size", "num_hidden_layers", "num_attention_heads");
  const bool bias = r.boolean_or("enable_bias", true);
  m.attention.qkv_bias = m.attention.o_bias = bias;
  m.mlp.bias = bias;
  m.mlp.intermediate_size = r.positive("ffn_dim");
  m.mlp.activation = r.string_or("activation_function", "relu");
  if (!r.boolean_or("layer_norm_elementwise_affine", true))
    range_error(r, "layer_norm_elementwise_affine",
                "expected true (LayerNorm without weights is not supported), but got false");
  m.final_norm = r.boolean_or("do_layer_norm_before", true) && !r.boolean_or("_remove_final_layer_norm", false);
  m.position = position_kind::learned;
  m.max_position_embeddings = r.positive("max_position_embeddings");
  m.learned_positions = m.max_position_embeddings + 2;  // OPT offsets positions by 2
  const std::int64_t proj = r.positive_or("word_embed_proj_dim", m.hidden_size);
  m.embed_proj_dim = proj == m.hidden_size ? 0 : proj;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  uniform_layers(m);
}

void read_bloom(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::decoder, r.pick({"hidden_size", "n_embed"}),
                 r.pick({"n_layer", "num_hidden_layers"}), r.pick({"n_head", "num_attention_heads"}));
  m.attention.qkv_bias = m.attention.o_bias = true;
  m.mlp.intermediate_size = 4 * m.hidden_size;
  m.mlp.bias = true;
  m.mlp.activation = "bloom_gelu";
  m.embedding_norm = true;
  m.position = position_kind::alibi;
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  uniform_layers(m);
}

void read_bert(const reader& r, model_spec& m) {
  read_mha_stack(r, m, architecture::encoder, "hidden_size", "num_hidden_layers", "num_attention_heads");
  m.attention.qkv_bias = m.attention.o_bias = true;
  const std::string pos = r.string_or("position_embedding_type", "absolute");
  if (pos != "absolute")
    range_error(r, "position_embedding_type",
                "expected \"absolute\" (relative_key variants are not supported), but got \"" + pos + "\"");
  m.mlp.intermediate_size = r.positive("intermediate_size");
  m.mlp.bias = true;
  m.mlp.activation = r.string_or("hidden_act", "gelu");
  m.embedding_norm = true;
  m.final_norm = false;  // post-norm: every layer ends with its own LayerNorm
  m.position = position_kind::learned;
  m.max_position_embeddings = r.positive("max_position_embeddings");
  m.learned_positions = m.max_position_embeddings;
  m.token_type_vocab = r.non_negative_or("type_vocab_size", 2);
  m.lm_head = false;
  m.pooler = true;
  uniform_layers(m);
}

void read_t5(const reader& r, model_spec& m) {
  m.arch = architecture::encoder_decoder;
  m.hidden_size = r.positive("d_model");
  m.vocab_size = r.positive("vocab_size");
  m.num_encoder_layers = r.layers("num_layers");
  m.num_layers = r.has("num_decoder_layers") ? r.layers("num_decoder_layers") : m.num_encoder_layers;
  attention_spec& a = m.attention;
  a.num_heads = a.num_kv_heads = r.positive("num_heads");
  a.head_dim = a.v_head_dim = r.positive("d_kv");
  a.rotary_dim = 0;
  const std::string ff = r.string_or("feed_forward_proj", "relu");
  m.mlp.gated = ff.rfind("gated-", 0) == 0;
  m.mlp.activation = m.mlp.gated ? ff.substr(6) : ff;
  if (m.mlp.activation.empty())
    range_error(r, "feed_forward_proj", "expected \"relu\", \"gelu\" or \"gated-<act>\", but got \"" + ff + "\"");
  m.mlp.intermediate_size = r.positive("d_ff");
  m.norm = norm_kind::rmsnorm;  // T5LayerNorm: scale only, no mean subtraction
  m.position = position_kind::relative_bias;
  m.relative_buckets = r.positive_or("relative_attention_num_buckets", 32);
  m.tie_word_embeddings = r.boolean_or("tie_word_embeddings", true);
  std::vector<layer_desc> layers(static_cast<std::size_t>(m.num_encoder_layers + m.num_layers));
  for (std::size_t i = 0; i < layers.size(); ++i) {
    if (static_cast<std::int64_t>(i) < m.num_encoder_layers)
      layers[i].encoder = true;
    else
      layers[i].cross = true;
  }
  set_layers(m, layers);
}

// hf_olmo2_starcoder2_phi_gemma3.cpp
void read_olmo2(const reader& r, model_spec& m);
void read_starcoder2(const reader& r, model_spec& m);
void read_phi(const reader& r, model_spec& m);
void read_gemma3_text(const reader& r, model_spec& m);

void read_context_length(const reader& r, model_spec& m) {
  m.context_length = m.max_position_embeddings;
  if (!r.has("rope_scaling") || !r.at("rope_scaling").is_object()) return;
  const reader rs(r.at("rope_scaling"), r.ptr("rope_scaling"));
  const std::string type = rs.string_or(rs.pick({"rope_type", "type"}), "");
  if (type != "yarn" && type != "dynamic" && type != "longrope") return;
  const double factor = rs.number_or("factor", 1.0, 1.0, 1e6);
  const std::int64_t original = rs.non_negative_or("original_max_position_embeddings", m.max_position_embeddings);
  const auto extended = static_cast<std::int64_t>(static_cast<double>(original) * factor);
  m.context_length = std::max(m.max_position_embeddings, extended);
}

namespace {

const std::vector<std::pair<std::string, family_reader>>& families() {
  static const std::vector<std::pair<std::string, family_reader>> k = {
      {"llama", read_llama_family},
      {"mistral", read_llama_family},
      {"mixtral", read_llama_family},
      {"qwen2", read_llama_family},
      {"qwen2_moe", read_llama_family},
      {"qwen3", read_llama_family},
      {"qwen3_moe", read_llama_family},
      {"gemma", read_llama_family},
      {"gemma2", read_llama_family},
      {"phi3", read_llama_family},
      {"deepseek_v2", read_llama_family},
      {"deepseek_v3", read_llama_family},
      {"falcon", read_falcon},
      {"RefinedWeb", read_falcon},
      {"RefinedWebModel", read_falcon},
      {"gpt2", read_gpt2},
      {"gpt_neox", read_gpt_neox},
      {"opt", read_opt},
      {"bloom", read_bloom},
      {"bert", read_bert},
      {"roberta", read_bert},
      {"t5", read_t5},
      // hf_gptj_gptbigcode_stablelm_chatglm_glm_glm4.cpp
      {"gptj", read_gptj},
      {"gpt_bigcode", read_gpt_bigcode},
      {"stablelm", read_stablelm},
      {"stablelm_epoch", read_stablelm},
      {"chatglm", read_chatglm},
      {"glm", read_glm},
      {"glm4", read_glm4},
      // hf_baichuan_qwen_olmo_internlm3_minicpm_nemotron.cpp
      {"baichuan", read_baichuan},
      {"qwen", read_qwen},
      {"olmo", read_olmo},
      {"internlm3", read_internlm3},
      {"minicpm", read_minicpm},
      {"nemotron", read_nemotron},
      // hf_orion_xverse_jais2_codeshell.cpp
      {"orion", read_orion},
      {"xverse", read_xverse},
      {"jais2", read_jais2},
      {"codeshell", read_codeshell},
      // hf_telechat.cpp
      {"telechat", read_telechat},
      // hf_granite_olmoe_cohere_mpt.cpp
      {"granite", read_granite},
      {"granitemoe", read_granitemoe},
      {"olmoe", read_olmoe},
      {"cohere", read_cohere},
      {"mpt", read_mpt},
      // hf_olmo2_starcoder2_phi_gemma3.cpp
      {"olmo2", read_olmo2},
      {"starcoder2", read_starcoder2},
      // hf_seed_oss_smollm3_olmo3_exaone4.cpp
      {"seed_oss", read_seed_oss},
      {"smollm3", read_smollm3},
      {"olmo3", read_olmo3},
      {"exaone4", read_exaone4},
      // hf_vaultgemma_cwm.cpp
      {"vaultgemma", read_vaultgemma},
      {"cwm", read_cwm},
      // hf_mellum.cpp
      {"mellum", read_mellum},
      // hf_apertus.cpp
      {"apertus", read_apertus},
      // hf_mimo.cpp
      {"mimo", read_mimo},
      // hf_mimov2flash_hyv3.cpp
      {"mimo_v2_flash", read_mimo_v2_flash},
      {"hy_v3", read_hy_v3},
      // hf_pangu_embedded.cpp
      {"PanguEmbedded", read_pangu_embedded},
      // hf_telechat3.cpp
      {"telechat3", read_telechat3},
      {"phi", read_phi},
      {"gemma3_text", read_gemma3_text},
      // hf_gptoss_llama4_glm4moe_minimax.cpp
      {"gpt_oss", read_gpt_oss},
      {"llama4_text", read_llama4_text},
      {"glm4_moe", read_glm4_moe},
      {"minimax_m2", read_minimax_m2},
      // hf_glmmoedsa_glm4moelite_deepseek_minicpm3.cpp
      {"glm_moe_dsa", read_glm_moe_dsa},
      {"glm4_moe_lite", read_glm4_moe_lite},
      {"deepseek", read_deepseek},
      {"minicpm3", read_minicpm3},
      // hf_phimoe_dbrx_hunyuanv1moe_bailingmoe.cpp
      {"phimoe", read_phimoe},
      {"dbrx", read_dbrx},
      {"hunyuan_v1_moe", read_hunyuan_v1_moe},
      {"bailing_moe", read_bailing_moe},
      {"bailing_moe_v2", read_bailing_moe},
      // hf_dots1_arctic_flexolmo_granitemoeshared.cpp
      {"dots1", read_dots1},
      {"arctic", read_arctic},
      {"flex_olmo", read_flex_olmo},
      {"granitemoeshared", read_granitemoeshared},
      // hf_smallthinker_afmoe.cpp
      {"smallthinker", read_smallthinker},
      {"afmoe", read_afmoe},
      // hf_cohere2moe.cpp
      {"cohere2_moe", read_cohere2_moe},
      // hf_longcatflash.cpp
      {"longcat_flash", read_longcat_flash},
      // hf_ernie_deepseekv32_kimi_cohere2_exaone_internlm2.cpp
      {"ernie4_5", read_ernie4_5},
      {"ernie4_5_moe", read_ernie4_5_moe},
      {"deepseek_v32", read_deepseek_v32},
      {"kimi_k2", read_kimi_k2},
      {"cohere2", read_cohere2},
      {"exaone", read_exaone},
      {"internlm2", read_internlm2},
      // hf_qwen3next_mamba_jamba_falconh1_nemotronh.cpp
      {"qwen3_next", read_qwen3_next},
      {"qwen3_5_text", read_qwen3_next},
      {"qwen3_5_moe_text", read_qwen3_next},
      {"mamba", read_mamba},
      {"falcon_mamba", read_mamba},
      {"mamba2", read_mamba2},
      {"jamba", read_jamba},
      {"falcon_h1", read_falcon_h1},
      {"nemotron_h", read_nemotron_h},
      // hf_lfm2_granitemoehybrid.cpp
      {"lfm2", read_lfm2},
      {"lfm2_moe", read_lfm2},
      {"granitemoehybrid", read_granitemoehybrid},
      // hf_dream_llada_rnd1.cpp
      {"Dream", read_dream},
      {"llada", read_llada},
      {"rnd1", read_rnd1},
      // hf_qwen3vl.cpp: the text models of the Qwen3-VL wrappers
      {"qwen3_vl_text", read_qwen3_vl_text},
      {"qwen3_vl_moe_text", read_qwen3_vl_text},
      // hf_bitnet.cpp
      {"bitnet", read_bitnet},
      // hf_hunyuandense_arcee.cpp
      {"hunyuan_v1_dense", read_hunyuan_v1_dense},
      {"arcee", read_arcee},
      // hf_solar_step1_jais_iquestcoder_maincoder_refact_teleflm.cpp
      {"solar", read_solar},
      {"step1", read_step1},
      {"jais", read_jais},
      {"iquestcoder", read_iquestcoder},
      {"maincoder", read_maincoder},
      {"gpt_refact", read_gpt_refact},
      {"TeleFLM", read_teleflm},
      // vision.cpp
      {"qwen2_vl", read_qwen2_vl},
      {"qwen2_5_vl", read_qwen2_vl},
      // hf_grok1_exaonemoe_panguultramoe_mistral4_axk1_sarvammla.cpp
      {"grok-1", read_grok1},
      {"exaone_moe", read_exaone_moe},
      {"pangu_ultra_moe", read_pangu_ultra_moe},
      {"mistral4", read_mistral4},
      {"axk1", read_axk1},
      {"sarvam_mla", read_sarvam_mla},
      // hf_dotsocr_paddleocrvl_plamo.cpp
      {"dots_ocr", read_dots_ocr},
      {"paddleocr_vl", read_paddleocr_vl},
      {"plamo", read_plamo},
      // hf_olmohybrid.cpp
      {"olmo_hybrid", read_olmo_hybrid},
      // hf_hunyuanvl.cpp
      {"hunyuan_vl", read_hunyuan_vl},
      // hf_plamo2.cpp
      {"plamo2", read_plamo2},
      // hf_kimilinear.cpp
      {"kimi_linear", read_kimi_linear},
      // hf_openelm_nemotronnas.cpp
      {"openelm", read_openelm},
      {"nemotron-nas", read_nemotron_nas},
      // hf_rwkv.cpp
      {"rwkv6", read_rwkv6},
      {"rwkv7", read_rwkv7},
  };
  return k;
}

}  // namespace

model_spec read_hf_config(const json& j, std::string name) {
  if (!j.is_object())
    throw error(error_code::config_type, "", "expected config.json to be a JSON object, but got " + describe(j));
  const reader r(j);
  model_spec m;
  if (!r.has("model_type")) {
    std::string list;
    for (const auto& t : supported_model_types()) list += (list.empty() ? "" : ", ") + t;
    throw error(error_code::config_missing, "/model_type", "required field is missing: expected one of " + list);
  }
  m.model_type = r.string_or("model_type", "");
  auto it = std::find_if(families().begin(), families().end(), [&](const auto& f) { return f.first == m.model_type; });
  if (it == families().end()) {
    // A multimodal wrapper (LLaVA, Mistral 3, Gemma 3, Llama 4, InternVL, ...) names its
    // language model under one of these keys: read that, then count the vision tower of a
    // known vision_config (vision.cpp; an unknown one is recorded in vision_model_type).
    for (const char* key : {"text_config", "llm_config", "language_config"}) {
      if (!r.has(key) || !r.at(key).is_object()) continue;
      if (name.empty()) name = r.string_or("_name_or_path", "");
      const json text = wrapper_text_config(r, key);
      model_spec t = nested(std::string("/") + key, [&] { return read_hf_config(text, name); });
      read_vision_tower(r, t);
      read_quantization_config(r, t);  // a wrapper's own quantization_config covers the whole checkpoint
      return t;
    }
    std::string list;
    for (const auto& t : supported_model_types()) list += (list.empty() ? "" : ", ") + t;
    throw error(error_code::unsupported_model, "/model_type",
                "unsupported model_type \"" + m.model_type + "\": supported are " + list);
  }
  if (name.empty()) name = r.string_or("_name_or_path", "");
  m.name = name.empty() ? m.model_type : name;
  it->second(r, m);
  read_quantization_config(r, m);
  read_context_length(r, m);
  return m;
}

}  // namespace detail

const std::vector<std::string>& supported_model_types() {
  static const std::vector<std::string> k = [] {
    std::vector<std::string> out;
    for (const auto& f : detail::families()) out.push_back(f.first);
    return out;
  }();
  return k;
}

model_spec read_hf_config(std::string_view json_text, std::string name) {
  return detail::read_hf_config(detail::parse_object(json_text, "config.json"), std::move(name));
}

}  // namespace flopcast
