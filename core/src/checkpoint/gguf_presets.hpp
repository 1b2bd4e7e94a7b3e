#pragma once
// llama.cpp's quantization presets (the `llama-quantize` file types Q4_K_M, Q8_0, IQ4_XS, ...)
// as per-tensor type rules, so the bytes of a model at a preset follow from its model_spec
// without the file.
//
// The rules are those of ggml-org/llama.cpp src/llama-quant.cpp (llama_tensor_get_type and
// llama_tensor_get_type_impl, tensor_allows_quantization, tensor_type_fallback,
// llama_ftype_get_default_type), applied to the tensors that convert_hf_to_gguf.py writes for
// the model, in the order llama-quantize visits them (the loader's weights_map: tensors outside
// the blocks first, then block by block, by name within a block), because the attn_v and
// ffn_down rules count the tensors seen so far. Block sizes and bytes come from ggml_types().
//
//   const auto* p = detail::find_gguf_preset("q4_k_m");
//   detail::gguf_plan_options o;
//   o.rope_freqs = true;  // Llama 3.1's rope_scaling "llama3"
//   detail::gguf_plan plan = detail::plan_gguf(spec, *p, o);
//   plan.bytes;              // the tensor data of the .gguf file (without its header)
//   plan.bits_per_weight();  // 8 x bytes / elements
//
// What is modelled: no --imatrix unless asked (or the preset needs one), no --pure, no
// --tensor-type / --output-tensor-type / --token-embedding-type overrides, the output tensor
// quantized (no --leave-output-tensor).
//
// Version notes: the rules are llama-quant.cpp's current ones. Since its tensor_category rework
// a fused attn_qkv (Falcon, Phi-3) takes the attn_v branch (category_is_attn_v), so older files
// of those architectures may differ there. Files converted before mid-2024 hold MoE routers
// (ffn_gate_inp) in F16, not F32. Phi-3 longrope rope_factors_long/short (a few hundred bytes)
// are not planned.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/checkpoint/checkpoint.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast::detail {

struct gguf_preset_info {
  std::string_view name;       // lower case, as llama-quantize spells it in lower case: "q4_k_m"
  std::uint32_t ftype = 0;     // enum llama_ftype (general.file_type)
  std::string_view base_type;  // GGML type of the tensors no rule promotes ("Q4_K")
  // llama-quantize refuses the preset without an importance matrix (IQ2_XXS, IQ2_XS, IQ3_XXS,
  // IQ1_S, IQ1_M, IQ2_S, Q2_K_S write types that need one).
  bool requires_imatrix = false;
};

// Every preset, in llama-quantize's order of its QUANT_OPTIONS list (F32/F16/BF16 last).
[[nodiscard]] const std::vector<gguf_preset_info>& gguf_presets();
// By name, case-insensitive ("Q4_K_M", "q4_k_m"); nullptr when unknown.
[[nodiscard]] const gguf_preset_info* find_gguf_preset(std::string_view name) noexcept;

struct gguf_plan_options {
  // Quantized with an importance matrix (--imatrix). nullopt: only when the preset requires one.
  // Changes IQ3_XXS attn_v/ffn_down, IQ4_NL/IQ4_XS ffn_down and Q4_0/Q5_0 ffn_down.
  std::optional<bool> imatrix;
  // The converter writes rope_freqs.weight (head_dim / 2, F32) for Llama 3.1+ configs whose
  // rope_scaling.rope_type is "llama3"; model_spec does not carry rope_scaling, so say so here.
  bool rope_freqs = false;
  // Type the converter gave to 2-D weights that llama-quantize leaves alone (Qwen2-MoE's
  // ffn_gate_inp_shexp, [hidden, 1]): "BF16" or "F16" (--outtype).
  std::string_view source_type = "BF16";
};

struct gguf_tensor_plan {
  std::string name;                 // GGUF name: "blk.0.attn_v.weight"
  std::string type;                 // GGML type name: "Q6_K"
  std::vector<std::int64_t> shape;  // ne[0] first (the row length), as the file stores it
  std::int64_t elements = 0;
  std::int64_t bytes = 0;  // rows x (ne[0] / block) x block bytes
  tensor_component component = tensor_component::other;
  bool fallback = false;  // the preset's type did not fit ne[0] and tensor_type_fallback chose this one
};

struct gguf_plan {
  std::string architecture;               // GGUF general.architecture ("llama", "qwen2", ...)
  std::vector<gguf_tensor_plan> tensors;  // in llama-quantize's order
  std::int64_t bytes = 0;
  std::int64_t elements = 0;
  std::int64_t fallbacks = 0;  // tensors that needed a fallback type
  [[nodiscard]] double bits_per_weight() const {
    return elements > 0 ? 8.0 * static_cast<double>(bytes) / static_cast<double>(elements) : 0.0;
  }
  [[nodiscard]] const gguf_tensor_plan* find(std::string_view name) const;
  // Bytes of the tensors of one GGML type (0 when none has it).
  [[nodiscard]] std::int64_t bytes_of_type(std::string_view type) const;
};

// The GGUF architecture convert_hf_to_gguf.py writes for the spec's model_type: llama, mistral,
// mixtral, Yi and deepseek-llm (llama), qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2,
// gemma3(_text), olmo2, phi3, falcon (RefinedWeb, RefinedWebModel). Throws unsupported_model
// (pointer /model_type) for the others.
[[nodiscard]] std::string gguf_architecture(const model_spec& m);

// The tensors the converter writes for the model, each with the type llama-quantize gives it
// under preset p, and the exact bytes. A vision tower is left out (the converter writes it to a
// separate mmproj file). Throws unsupported_model for architectures outside gguf_architecture,
// for layers without softmax attention and for MLA; config_range when a tensor's row fits
// neither the type nor its fallback (llama-quantize refuses it too).
[[nodiscard]] gguf_plan plan_gguf(const model_spec& m, const gguf_preset_info& p, const gguf_plan_options& o = {});

}  // namespace flopcast::detail
