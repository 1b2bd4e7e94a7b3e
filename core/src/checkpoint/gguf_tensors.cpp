// The tensors llama.cpp's converter writes for a model (gguf_tensors.hpp): the GGUF architecture
// name, the tensor names, shapes and source types of convert_hf_to_gguf.py.
#include "checkpoint/gguf_tensors.hpp"

#include <algorithm>
#include <cstdio>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"
#include "model/model_parts.hpp"

namespace flopcast::detail {

namespace {

struct arch_entry {
  std::string_view model_type;
  std::string_view gguf;
};
const arch_entry arch_table[] = {
    {"llama", "llama"},        {"mistral", "llama"}, {"mixtral", "llama"},      {"qwen2", "qwen2"},
    {"qwen2_moe", "qwen2moe"}, {"qwen3", "qwen3"},   {"qwen3_moe", "qwen3moe"}, {"gemma", "gemma"},
    {"gemma2", "gemma2"},      {"gemma3", "gemma3"}, {"gemma3_text", "gemma3"}, {"olmo2", "olmo2"},
    {"phi3", "phi3"},          {"falcon", "falcon"}, {"RefinedWeb", "falcon"},  {"RefinedWebModel", "falcon"},
};

std::string block(std::int64_t i, std::string_view rest) {
  return "blk." + std::to_string(i) + "." + std::string(rest);
}

// Names of a layer's hidden-size norms, as the converter writes them.
std::vector<std::string> norm_names(std::string_view arch, std::int64_t count) {
  if (arch == "olmo2" && count == 2) return {"post_attention_norm", "post_ffw_norm"};
  if (arch == "falcon")
    return count == 1 ? std::vector<std::string>{"attn_norm"} : std::vector<std::string>{"attn_norm", "attn_norm_2"};
  if (count == 1) return {"attn_norm"};
  if (count == 2) return {"attn_norm", "ffn_norm"};
  if (count == 4) return {"attn_norm", "post_attention_norm", "ffn_norm", "post_ffw_norm"};
  std::vector<std::string> out;
  for (std::int64_t i = 0; i < count; ++i) out.push_back("norm_" + std::to_string(i));
  return out;
}

}  // namespace

std::string gguf_architecture(const model_spec& m) {
  for (const arch_entry& e : arch_table)
    if (e.model_type == m.model_type) return std::string(e.gguf);
  std::string list;
  for (const arch_entry& e : arch_table) list += (list.empty() ? "" : ", ") + std::string(e.model_type);
  throw error(error_code::unsupported_model, "/model_type",
              "no GGUF preset plan for model_type \"" + m.model_type + "\": supported are " + list);
}

std::vector<tensor_desc> converter_tensors(const model_spec& m, std::string_view arch, const gguf_plan_options& o,
                                           std::uint32_t source_2d) {
  const attention_spec& a = m.attention;
  const std::int64_t h = m.hidden_size;
  const bool bias_norm = m.norm == norm_kind::layernorm && m.norm_bias;
  std::vector<tensor_desc> out;
  const auto add_tensor = [&](std::string name, std::vector<std::int64_t> ne, bool weight_2d) {
    out.push_back({std::move(name), std::move(ne), weight_2d ? source_2d : g_f32});
  };
  const auto add_norm = [&](const std::string& base, std::int64_t width) {
    add_tensor(base + ".weight", {width}, false);
    if (bias_norm) add_tensor(base + ".bias", {width}, false);
  };

  add_tensor("token_embd.weight", {h, m.vocab_size}, true);
  if (m.final_norm) add_norm("output_norm", h);
  if (m.lm_head && !m.tie_word_embeddings) add_tensor("output.weight", {h, m.vocab_size}, true);
  if (o.rope_freqs) add_tensor("rope_freqs.weight", {(a.rotary_dim > 0 ? a.rotary_dim : a.head_dim) / 2}, false);

  const std::int64_t q = mul(a.num_heads, a.head_dim);
  const std::int64_t k = mul(a.num_kv_heads, a.head_dim);
  const std::int64_t v = mul(a.num_kv_heads, a.v_head_dim);
  const std::int64_t o_in = mul(a.num_heads, a.v_head_dim);
  const bool fused_qkv = arch == "falcon" || arch == "phi3";
  for (std::size_t i = 0; i < m.layer_group_of.size(); ++i) {
    const layer_group& g = m.groups[m.layer_group_of[i]];
    const auto L = static_cast<std::int64_t>(i);
    for (const std::string& n : norm_names(arch, norms_of(m, g))) add_norm(block(L, n), h);
    if (fused_qkv) {
      add_tensor(block(L, "attn_qkv.weight"), {h, add(q, add(k, v))}, true);
      if (a.qkv_bias) add_tensor(block(L, "attn_qkv.bias"), {add(q, add(k, v))}, false);
    } else {
      add_tensor(block(L, "attn_q.weight"), {h, a.output_gate ? 2 * q : q}, true);
      add_tensor(block(L, "attn_k.weight"), {h, k}, true);
      add_tensor(block(L, "attn_v.weight"), {h, v}, true);
      if (a.qkv_bias) {
        add_tensor(block(L, "attn_q.bias"), {q}, false);
        add_tensor(block(L, "attn_k.bias"), {k}, false);
        add_tensor(block(L, "attn_v.bias"), {v}, false);
      }
    }
    add_tensor(block(L, "attn_output.weight"), {o_in, h}, true);
    if (a.o_bias) add_tensor(block(L, "attn_output.bias"), {h}, false);
    if (a.qk_norm) {
      add_tensor(block(L, "attn_q_norm.weight"), {a.qk_norm_full_width ? q : a.head_dim}, false);
      add_tensor(block(L, "attn_k_norm.weight"), {a.qk_norm_full_width ? k : a.head_dim}, false);
    }
    if (!g.mlp) continue;
    if (g.moe) {
      const moe_spec& e = m.moe;
      const std::int64_t ff = e.expert_intermediate_size;
      add_tensor(block(L, "ffn_gate_inp.weight"), {h, e.num_experts}, false);  // the converter keeps routers F32
      if (e.gated_experts) add_tensor(block(L, "ffn_gate_exps.weight"), {h, ff, e.num_experts}, true);
      add_tensor(block(L, "ffn_up_exps.weight"), {h, ff, e.num_experts}, true);
      add_tensor(block(L, "ffn_down_exps.weight"), {ff, h, e.num_experts}, true);
      if (e.shared_intermediate_size > 0) {
        const std::int64_t sff = e.shared_intermediate_size;
        // Linear(hidden, 1): stored [hidden, 1], so 1-D to ggml and never quantized, but 2-D to
        // the converter, which writes it in its --outtype.
        if (e.shared_expert_gate) add_tensor(block(L, "ffn_gate_inp_shexp.weight"), {h, 1}, true);
        add_tensor(block(L, "ffn_gate_shexp.weight"), {h, sff}, true);
        add_tensor(block(L, "ffn_up_shexp.weight"), {h, sff}, true);
        add_tensor(block(L, "ffn_down_shexp.weight"), {sff, h}, true);
      }
    } else {
      const std::int64_t ff = mlp_width_of(m, g);
      if (arch == "phi3") {
        add_tensor(block(L, "ffn_up.weight"), {h, 2 * ff}, true);  // gate_up_proj, fused
      } else {
        if (m.mlp.gated) add_tensor(block(L, "ffn_gate.weight"), {h, ff}, true);
        add_tensor(block(L, "ffn_up.weight"), {h, ff}, true);
      }
      add_tensor(block(L, "ffn_down.weight"), {ff, h}, true);
      if (m.mlp.bias) {
        if (m.mlp.gated && arch != "phi3") add_tensor(block(L, "ffn_gate.bias"), {ff}, false);
        add_tensor(block(L, "ffn_up.bias"), {arch == "phi3" ? 2 * ff : ff}, false);
        add_tensor(block(L, "ffn_down.bias"), {h}, false);
      }
    }
  }
  // llama_model_loader's weights_map order: by block (-1, the tensors outside blocks, first),
  // then by name.
  std::stable_sort(out.begin(), out.end(), [](const tensor_desc& x, const tensor_desc& y) {
    const int lx = layer_of(x.name), ly = layer_of(y.name);
    return lx != ly ? lx < ly : x.name < y.name;
  });
  return out;
}

std::size_t ggml_dims(const std::vector<std::int64_t>& ne) {
  std::size_t n = ne.size();
  while (n > 1 && ne[n - 1] == 1) --n;
  return n;
}

// The block index of "blk.N." names (-1 for the others): the loader's weight_name_comparer.
int layer_of(std::string_view n) {
  int layer = -1;
  if (n.rfind("blk.", 0) == 0) std::sscanf(std::string(n).c_str(), "blk.%d.", &layer);
  return layer;
}

}  // namespace flopcast::detail
