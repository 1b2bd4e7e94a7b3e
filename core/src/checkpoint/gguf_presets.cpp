// llama.cpp's quantization presets as per-tensor type rules (see gguf_presets.hpp). The
// decisions follow ggml-org/llama.cpp src/llama-quant.cpp branch by branch; the comments name
// the function each part mirrors.
#include "checkpoint/gguf_presets.hpp"

#include <algorithm>

#include "base/detail.hpp"
#include "checkpoint/gguf_tensors.hpp"
#include "flopcast/base/error.hpp"
#include "model/model_parts.hpp"

namespace flopcast::detail {

namespace {

// enum llama_ftype (include/llama.h).
enum ftype : std::uint32_t {
  ft_all_f32 = 0,
  ft_f16 = 1,
  ft_q4_0 = 2,
  ft_q4_1 = 3,
  ft_q8_0 = 7,
  ft_q5_0 = 8,
  ft_q5_1 = 9,
  ft_q2_k = 10,
  ft_q3_k_s = 11,
  ft_q3_k_m = 12,
  ft_q3_k_l = 13,
  ft_q4_k_s = 14,
  ft_q4_k_m = 15,
  ft_q5_k_s = 16,
  ft_q5_k_m = 17,
  ft_q6_k = 18,
  ft_iq2_xxs = 19,
  ft_iq2_xs = 20,
  ft_q2_k_s = 21,
  ft_iq3_xs = 22,
  ft_iq3_xxs = 23,
  ft_iq1_s = 24,
  ft_iq4_nl = 25,
  ft_iq3_s = 26,
  ft_iq3_m = 27,
  ft_iq2_s = 28,
  ft_iq2_m = 29,
  ft_iq4_xs = 30,
  ft_iq1_m = 31,
  ft_bf16 = 32,
  ft_mxfp4_moe = 38,
};

const ggml_type_info& type_info(std::uint32_t id) {
  const ggml_type_info* t = find_ggml_type(id);
  if (t == nullptr) throw error(error_code::unsupported_model, "", "GGML type " + std::to_string(id) + " is unknown");
  return *t;
}
std::int64_t block_of(std::uint32_t id) { return type_info(id).block_elements; }
bool is_quantized(std::uint32_t id) { return id != g_f32 && id != g_f16 && id != g_bf16; }

// llama_ftype_get_default_type.
std::uint32_t default_type(std::uint32_t f) {
  switch (f) {
    case ft_q4_0:
      return g_q4_0;
    case ft_q4_1:
      return g_q4_1;
    case ft_q5_0:
      return g_q5_0;
    case ft_q5_1:
      return g_q5_1;
    case ft_q8_0:
      return g_q8_0;
    case ft_f16:
      return g_f16;
    case ft_bf16:
      return g_bf16;
    case ft_all_f32:
      return g_f32;
    case ft_mxfp4_moe:
      return g_mxfp4;
    case ft_q2_k_s:
    case ft_q2_k:
      return g_q2_k;
    case ft_iq3_xs:
      return g_iq3_s;
    case ft_q3_k_s:
    case ft_q3_k_m:
    case ft_q3_k_l:
      return g_q3_k;
    case ft_q4_k_s:
    case ft_q4_k_m:
      return g_q4_k;
    case ft_q5_k_s:
    case ft_q5_k_m:
      return g_q5_k;
    case ft_q6_k:
      return g_q6_k;
    case ft_iq2_xxs:
      return g_iq2_xxs;
    case ft_iq2_xs:
      return g_iq2_xs;
    case ft_iq2_s:
      return g_iq2_xs;
    case ft_iq2_m:
      return g_iq2_s;
    case ft_iq3_xxs:
      return g_iq3_xxs;
    case ft_iq1_s:
      return g_iq1_s;
    case ft_iq1_m:
      return g_iq1_m;
    case ft_iq4_nl:
      return g_iq4_nl;
    case ft_iq4_xs:
      return g_iq4_xs;
    case ft_iq3_s:
    case ft_iq3_m:
      return g_iq3_s;
    default:
      throw error(error_code::unknown_precision, "", "invalid llama file type " + std::to_string(f));
  }
}

bool has(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// tensor_category and tensor_get_category.
enum class category {
  token_embd,
  attn_q,
  attn_v,
  attn_k,
  attn_qkv,
  attn_kv_b,
  attn_output,
  ffn_up,
  ffn_gate,
  ffn_down,
  output,
  other
};

category category_of(std::string_view n) {
  if (n == "output.weight") return category::output;
  if (n == "token_embd.weight" || n == "per_layer_token_embd.weight") return category::token_embd;
  if (has(n, "attn_qkv.weight")) return category::attn_qkv;
  if (has(n, "attn_kv_b.weight")) return category::attn_kv_b;
  if (has(n, "attn_v.weight")) return category::attn_v;
  if (has(n, "attn_k.weight")) return category::attn_k;
  if (has(n, "attn_q.weight")) return category::attn_q;
  if (has(n, "attn_output.weight")) return category::attn_output;
  if (has(n, "ffn_up")) return category::ffn_up;
  if (has(n, "ffn_gate")) return category::ffn_gate;
  if (has(n, "ffn_down")) return category::ffn_down;
  return category::other;
}
bool is_attn_v(category c) { return c == category::attn_v || c == category::attn_qkv || c == category::attn_kv_b; }

// tensor_allows_quantization, for the tensors the architectures here have.
bool allows_quantization(std::string_view n, std::size_t dims) {
  if (dims < 2) return false;  // ggml_n_dims: trailing dimensions of 1 do not count
  const std::string_view suffix = "weight";
  if (n.size() < suffix.size() || n.substr(n.size() - suffix.size()) != suffix) return false;
  return !has(n, "_norm.weight") && !has(n, "ffn_gate_inp.weight") && !has(n, "ssm_conv1d") &&
         !has(n, "attn_rel_b.weight") && n != "position_embd.weight" && n != "token_types.weight";
}

// quantize_state_impl and the model facts llama_tensor_get_type_impl reads.
struct quant_state {
  std::string arch;
  bool type_70b = false;      // qs.model.type == LLM_TYPE_70B
  std::int64_t n_gqa = 1;     // hparams.n_gqa(): n_head / n_head_kv
  std::int64_t n_expert = 0;  // hparams.n_expert
  int n_attention_wv = 0, i_attention_wv = 0;
  int n_ffn_down = 0, n_ffn_gate = 0, n_ffn_up = 0;
  int i_ffn_down = 0, i_ffn_gate = 0, i_ffn_up = 0;
  bool has_imatrix = false;
  bool has_tied_embeddings = true;
};

bool use_more_bits(int i_layer, int n_layers) {
  return i_layer < n_layers / 8 || i_layer >= 7 * n_layers / 8 || (i_layer - n_layers / 8) % 3 == 2;
}

// llama_tensor_get_type_impl.
std::uint32_t type_impl(quant_state& qs, std::uint32_t new_type, const tensor_desc& t, std::uint32_t f, category cat) {
  const bool falcon = qs.arch == "falcon";
  const int n_expert = static_cast<int>(std::max<std::int64_t>(1, qs.n_expert));
  const auto layer_info = [&](int i_layer, int n_layer) {
    if (n_expert > 1) i_layer = layer_of(t.name);  // MoE: from the name (experts are not in layer order)
    return std::make_pair(i_layer, n_layer);
  };
  const std::int64_t ne2 = t.shape.size() > 2 ? t.shape[2] : 1;
  const bool iq2_family =
      f == ft_iq2_xxs || f == ft_iq2_xs || f == ft_iq1_s || f == ft_iq2_s || f == ft_iq2_m || f == ft_iq1_m;

  if (cat == category::output || (qs.has_tied_embeddings && cat == category::token_embd)) {
    const std::int64_t nx = t.shape[0];
    if (f == ft_mxfp4_moe)
      new_type = g_q8_0;
    else if (falcon || nx % block_of(new_type) != 0)
      new_type = g_q8_0;
    else if (f == ft_iq2_xxs || f == ft_iq2_xs || f == ft_iq3_xxs || f == ft_iq1_s || f == ft_iq2_s || f == ft_iq2_m ||
             f == ft_iq1_m)
      new_type = g_q5_k;
    else if (new_type != g_q8_0)
      new_type = g_q6_k;
  } else if (f == ft_mxfp4_moe) {
    new_type = ne2 > 1 ? g_mxfp4 : g_q8_0;  // expert tensors MXFP4, the rest Q8_0
  } else if (cat == category::token_embd) {
    if (f == ft_iq2_xxs || f == ft_iq2_xs || f == ft_iq1_s || f == ft_iq1_m)
      new_type = g_q2_k;
    else if (f == ft_iq2_s || f == ft_iq2_m || f == ft_iq3_xxs)
      new_type = g_iq3_s;
  } else if (iq2_family) {
    const bool iq2_sm = f == ft_iq2_s || f == ft_iq2_m;
    if (is_attn_v(cat)) {
      if (qs.n_gqa >= 4 || qs.n_expert >= 4)
        new_type = g_q4_k;
      else
        new_type = iq2_sm ? g_iq3_s : g_q2_k;
      ++qs.i_attention_wv;
    } else if (qs.n_expert == 8 && cat == category::attn_k) {
      new_type = g_q4_k;
    } else if (cat == category::ffn_down) {
      if (qs.i_ffn_down < qs.n_ffn_down / 8) new_type = iq2_sm ? g_iq3_s : g_q2_k;
      ++qs.i_ffn_down;
    } else if (cat == category::attn_output) {
      if (qs.n_expert == 8)
        new_type = g_q5_k;
      else if (f == ft_iq1_s || f == ft_iq1_m)
        new_type = g_iq2_xxs;
      else if (iq2_sm)
        new_type = g_iq3_s;
    }
  } else if (is_attn_v(cat)) {
    if (f == ft_q2_k)
      new_type = qs.n_gqa >= 4 ? g_q4_k : g_q3_k;
    else if (f == ft_q2_k_s && qs.n_gqa >= 4)
      new_type = g_q4_k;
    else if (f == ft_iq3_xxs)
      new_type = qs.n_gqa >= 4 ? g_q4_k : !qs.has_imatrix ? g_iq3_s : g_iq3_xxs;
    else if ((f == ft_iq3_xs || f == ft_iq3_s) && qs.n_gqa >= 4)
      new_type = g_q4_k;
    else if (f == ft_iq3_m)
      new_type = g_q4_k;
    else if (f == ft_q3_k_m)
      new_type = qs.i_attention_wv < 2 ? g_q5_k : g_q4_k;
    else if (f == ft_q3_k_l)
      new_type = g_q5_k;
    else if ((f == ft_iq4_nl || f == ft_iq4_xs) && qs.n_gqa >= 4)
      new_type = g_q5_k;
    else if ((f == ft_q4_k_m || f == ft_q5_k_m) && use_more_bits(qs.i_attention_wv, qs.n_attention_wv))
      new_type = g_q6_k;
    else if (f == ft_q4_k_s && qs.i_attention_wv < 4)
      new_type = g_q5_k;
    // 70B (8 heads share each attn_v): more bits for a tensor 8x smaller than attn_q.
    if (qs.type_70b && (new_type == g_q3_k || new_type == g_q4_k)) new_type = g_q5_k;
    if (qs.n_expert == 8) new_type = g_q8_0;
    ++qs.i_attention_wv;
  } else if (cat == category::attn_k) {
    if (qs.n_expert == 8)
      new_type = g_q8_0;
    else if (f == ft_iq3_xs)
      new_type = g_iq3_xxs;
    else if (f == ft_iq3_xxs)
      new_type = g_iq2_s;
  } else if (cat == category::attn_q) {
    if (f == ft_iq3_xs)
      new_type = g_iq3_xxs;
    else if (f == ft_iq3_xxs)
      new_type = g_iq2_s;
  } else if (cat == category::ffn_down) {
    const auto [i_layer, n_layer] = layer_info(qs.i_ffn_down, qs.n_ffn_down);
    if (f == ft_q2_k) {
      new_type = g_q3_k;
    } else if (f == ft_q2_k_s) {
      if (i_layer < n_layer / 8) new_type = g_q4_k;
    } else if (f == ft_iq3_xxs && !qs.has_imatrix) {
      new_type = i_layer < n_layer / 8 ? g_q4_k : g_q3_k;
    } else if (f == ft_q3_k_m) {
      new_type = i_layer < n_layer / 16 ? g_q5_k : !falcon || use_more_bits(i_layer, n_layer) ? g_q4_k : g_q3_k;
    } else if (f == ft_iq3_m && (i_layer < n_layer / 8 || (qs.n_expert == 8 && use_more_bits(i_layer, n_layer)))) {
      new_type = g_q4_k;
    } else if (f == ft_q3_k_l) {
      new_type = falcon ? g_q4_k : g_q5_k;
    } else if (f == ft_q4_k_m) {
      if (falcon)
        new_type = i_layer < n_layer / 16 ? g_q6_k : use_more_bits(i_layer, n_layer) ? g_q5_k : g_q4_k;
      else if (use_more_bits(i_layer, n_layer))
        new_type = g_q6_k;
    } else if (i_layer < n_layer / 8 && (f == ft_iq4_nl || f == ft_iq4_xs) && !qs.has_imatrix) {
      new_type = g_q5_k;
    } else if (f == ft_q5_k_m && use_more_bits(i_layer, n_layer)) {
      new_type = g_q6_k;
    } else if (f == ft_q4_k_s && !falcon && i_layer < n_layer / 8) {
      new_type = g_q5_k;
    } else if ((f == ft_q4_0 || f == ft_q5_0) && qs.has_imatrix && i_layer < n_layer / 8) {
      new_type = f == ft_q4_0 ? g_q4_1 : g_q5_1;
    }
    ++qs.i_ffn_down;
  } else if (cat == category::attn_output) {
    if (!falcon) {
      if (qs.n_expert == 8) {
        if (f == ft_q2_k || f == ft_iq3_xs || f == ft_iq3_xxs || f == ft_q3_k_s || f == ft_q3_k_m || f == ft_iq4_nl ||
            f == ft_q4_k_s || f == ft_q4_k_m || f == ft_iq3_s || f == ft_iq3_m || f == ft_iq4_xs)
          new_type = g_q5_k;
      } else {
        if (f == ft_q2_k)
          new_type = g_q3_k;
        else if (f == ft_iq3_xxs)
          new_type = g_iq3_s;
        else if (f == ft_q3_k_m)
          new_type = g_q4_k;
        else if (f == ft_q3_k_l)
          new_type = g_q5_k;
        else if (f == ft_iq3_m)
          new_type = g_q4_k;
      }
    } else if (f == ft_q3_k_l) {
      new_type = g_q4_k;
    }
  } else if (cat == category::ffn_gate || cat == category::ffn_up) {
    // (attn_qkv never gets here: category_is_attn_v takes it to the attn_v branch above.)
    int& i = cat == category::ffn_gate ? qs.i_ffn_gate : qs.i_ffn_up;
    const auto [i_layer, n_layer] = layer_info(i, cat == category::ffn_gate ? qs.n_ffn_gate : qs.n_ffn_up);
    if (f == ft_iq3_xs && i_layer >= n_layer / 8 && i_layer < 7 * n_layer / 8) new_type = g_iq3_xxs;
    ++i;
  }
  return new_type;
}

// tensor_type_fallback: a row that is not a whole number of the type's blocks.
std::uint32_t fallback_type(const tensor_desc& t, std::uint32_t target, bool& fell_back) {
  const std::int64_t ncols = t.shape[0];
  if (ncols % block_of(target) == 0) return target;
  fell_back = true;
  std::uint32_t r = 0;
  switch (target) {
    case g_iq1_s:
    case g_iq1_m:
    case g_iq2_xxs:
    case g_iq2_xs:
    case g_iq2_s:
    case g_iq3_xxs:
    case g_iq3_s:
    case g_iq4_xs:
      r = g_iq4_nl;
      break;
    case g_q2_k:
    case g_q3_k:
      r = g_q4_0;
      break;
    case g_q4_k:
      r = g_q5_0;
      break;
    case g_q5_k:
      r = g_q5_1;
      break;
    case g_q6_k:
      r = g_q8_0;
      break;
    default:
      throw error(error_code::config_range, "/tensors/" + t.name + "/shape",
                  "the row length " + std::to_string(ncols) + " is not a multiple of " +
                      std::string(type_info(target).name) + "'s block of " + std::to_string(block_of(target)) +
                      " and llama-quantize defines no fallback for " + std::string(type_info(target).name));
  }
  if (ncols % block_of(r) != 0) r = g_f16;  // "must use F16 due to unusual shape"
  return r;
}

}  // namespace

const std::vector<gguf_preset_info>& gguf_presets() {
  static const std::vector<gguf_preset_info> k = {
      {"q4_0", ft_q4_0, "Q4_0", false},
      {"q4_1", ft_q4_1, "Q4_1", false},
      {"mxfp4_moe", ft_mxfp4_moe, "MXFP4", false},
      {"q5_0", ft_q5_0, "Q5_0", false},
      {"q5_1", ft_q5_1, "Q5_1", false},
      {"iq2_xxs", ft_iq2_xxs, "IQ2_XXS", true},
      {"iq2_xs", ft_iq2_xs, "IQ2_XS", true},
      {"iq2_s", ft_iq2_s, "IQ2_XS", true},
      {"iq2_m", ft_iq2_m, "IQ2_S", true},
      {"iq1_s", ft_iq1_s, "IQ1_S", true},
      {"iq1_m", ft_iq1_m, "IQ1_M", true},
      {"q2_k", ft_q2_k, "Q2_K", false},
      {"q2_k_s", ft_q2_k_s, "Q2_K", true},
      {"iq3_xxs", ft_iq3_xxs, "IQ3_XXS", true},
      {"iq3_s", ft_iq3_s, "IQ3_S", false},
      {"iq3_m", ft_iq3_m, "IQ3_S", false},
      {"iq3_xs", ft_iq3_xs, "IQ3_S", true},
      {"q3_k_s", ft_q3_k_s, "Q3_K", false},
      {"q3_k_m", ft_q3_k_m, "Q3_K", false},
      {"q3_k_l", ft_q3_k_l, "Q3_K", false},
      {"iq4_nl", ft_iq4_nl, "IQ4_NL", false},
      {"iq4_xs", ft_iq4_xs, "IQ4_XS", false},
      {"q4_k_s", ft_q4_k_s, "Q4_K", false},
      {"q4_k_m", ft_q4_k_m, "Q4_K", false},
      {"q5_k_s", ft_q5_k_s, "Q5_K", false},
      {"q5_k_m", ft_q5_k_m, "Q5_K", false},
      {"q6_k", ft_q6_k, "Q6_K", false},
      {"q8_0", ft_q8_0, "Q8_0", false},
      {"f16", ft_f16, "F16", false},
      {"bf16", ft_bf16, "BF16", false},
      {"f32", ft_all_f32, "F32", false},
  };
  return k;
}

const gguf_preset_info* find_gguf_preset(std::string_view name) noexcept {
  std::string n(name);
  for (char& c : n) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  // llama-quantize's aliases: Q3_K is Q3_K_M, Q4_K is Q4_K_M, Q5_K is Q5_K_M.
  if (n == "q3_k") n = "q3_k_m";
  if (n == "q4_k") n = "q4_k_m";
  if (n == "q5_k") n = "q5_k_m";
  for (const gguf_preset_info& p : gguf_presets())
    if (p.name == n) return &p;
  return nullptr;
}

const gguf_tensor_plan* gguf_plan::find(std::string_view name) const {
  for (const gguf_tensor_plan& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

std::int64_t gguf_plan::bytes_of_type(std::string_view type) const {
  std::int64_t b = 0;
  for (const gguf_tensor_plan& t : tensors)
    if (t.type == type) b = add(b, t.bytes);
  return b;
}

gguf_plan plan_gguf(const model_spec& m, const gguf_preset_info& p, const gguf_plan_options& o) {
  gguf_plan plan;
  plan.architecture = gguf_architecture(m);
  if (m.arch != architecture::decoder)
    throw error(error_code::unsupported_model, "/model_type", "GGUF preset plans cover decoder-only models");
  if (m.attention.mla)
    throw error(error_code::unsupported_model, "/model_type",
                "GGUF preset plans do not cover multi-head latent attention");
  for (const layer_group& g : m.groups)
    if (g.mixer != mixer_kind::attention || g.parallel_ssm || g.cross_attention)
      throw error(error_code::unsupported_model, "/model_type",
                  "GGUF preset plans cover softmax-attention layers only (no Mamba or linear-attention mixers)");
  if (m.layer_group_of.empty() || m.hidden_size <= 0 || m.vocab_size <= 0 || m.attention.num_kv_heads <= 0)
    throw error(error_code::config_range, "/num_hidden_layers", "the model has no layers to plan");
  std::uint32_t source_2d = g_bf16;
  if (o.source_type == "F16")
    source_2d = g_f16;
  else if (o.source_type != "BF16")
    throw error(error_code::invalid_argument, "source_type",
                "expected \"BF16\" or \"F16\", but got \"" + std::string(o.source_type) + "\"");

  const std::uint32_t def = default_type(p.ftype);
  quant_state qs;
  qs.arch = plan.architecture;
  qs.n_gqa = m.attention.num_heads / m.attention.num_kv_heads;
  qs.n_expert = m.moe.num_experts;
  qs.has_imatrix = o.imatrix.value_or(p.requires_imatrix);
  const auto n_layer = static_cast<std::int64_t>(m.layer_group_of.size());
  // llm_type: LLM_TYPE_70B is an 80-layer Llama with grouped KV heads, or an 80-layer Qwen2.
  qs.type_70b = n_layer == 80 &&
                ((qs.arch == "llama" && m.attention.num_heads != m.attention.num_kv_heads) || qs.arch == "qwen2");

  const std::vector<tensor_desc> tensors = converter_tensors(m, plan.architecture, o, source_2d);
  // init_quantize_state_counters.
  for (const tensor_desc& t : tensors) {
    const category c = category_of(t.name);
    if (is_attn_v(c)) ++qs.n_attention_wv;
    if (c == category::output) qs.has_tied_embeddings = false;
  }
  qs.n_ffn_down = qs.n_ffn_gate = qs.n_ffn_up = static_cast<int>(n_layer);

  for (const tensor_desc& t : tensors) {
    gguf_tensor_plan r;
    r.name = t.name;
    r.shape = t.shape;
    r.component = classify_tensor(t.name);
    std::uint32_t type = t.source;
    // llama_tensor_get_type.
    if (allows_quantization(t.name, ggml_dims(t.shape))) {
      type = def;
      if (is_quantized(def)) {
        type = type_impl(qs, def, t, p.ftype, category_of(t.name));
        type = fallback_type(t, type, r.fallback);
      }
    }
    const ggml_type_info& info = type_info(type);
    r.type = std::string(info.name);
    r.elements = 1;
    for (std::int64_t d : t.shape) r.elements = mul(r.elements, d);
    const std::int64_t ne0 = t.shape[0];
    r.bytes = ne0 == 0 ? 0 : mul(r.elements / ne0, ne0 / info.block_elements, info.block_bytes);
    plan.bytes = add(plan.bytes, r.bytes);
    plan.elements = add(plan.elements, r.elements);
    if (r.fallback) ++plan.fallbacks;
    plan.tensors.push_back(std::move(r));
  }
  return plan;
}

}  // namespace flopcast::detail
