// config.json's quantization_config: the format a checkpoint ships in, as the estimate's default
// precision (a request's own precision wins). The keys are those each tool writes:
//   fp8 (DeepSeek-V3, Qwen3-FP8, vLLM/llm-compressor fp8): fmt, weight_block_size, activation_scheme
//   mxfp4 (gpt-oss): modules_to_not_convert (attention, router, embeddings, lm_head stay bf16)
//   awq (AutoAWQ) and gptq (AutoGPTQ / GPTQModel): bits, group_size
//   bitsandbytes: load_in_4bit / load_in_8bit, bnb_4bit_quant_type
//   compressed-tensors (llm-compressor): format, config_groups.*.weights {num_bits, type, strategy}
//   modelopt (TensorRT Model Optimizer, hf_quant_config): quant_algo FP8 / NVFP4 / W4A16_AWQ
// Anything else is refused with the methods that are read.
#include <string>

#include "base/detail.hpp"
#include "model/hf_common.hpp"

namespace flopcast::detail {
namespace {

void set_part(model_spec::quantization_default& q, weight_component c, precision p) {
  q.parts[static_cast<std::size_t>(c)] = p;
}

// modules_to_not_convert / ignore: the parts left in 16 bits.
void keep_16bit(const reader& r, std::string_view key, model_spec::quantization_default& q) {
  for (const std::string& m : r.string_list_or_empty(key)) {
    const std::string n = lower(m);
    if (n.find("lm_head") != std::string::npos) set_part(q, weight_component::lm_head, precision::bf16);
    if (n.find("embed") != std::string::npos) set_part(q, weight_component::embedding, precision::bf16);
    if (n.find("self_attn") != std::string::npos || n.find("attention") != std::string::npos)
      set_part(q, weight_component::attention, precision::bf16);
    if (n.find("vision") != std::string::npos || n.find("visual") != std::string::npos)
      set_part(q, weight_component::vision, precision::bf16);
  }
}

precision integer_bits(const reader& r, std::string_view method) {
  const std::int64_t bits = r.positive_or("bits", 4);
  if (bits == 4) return precision::int4;
  if (bits == 8) return precision::int8;
  range_error(r, "bits", "expected 4 or 8 for " + std::string(method) + ", but got " + std::to_string(bits));
  return precision::int4;
}

}  // namespace

void read_quantization_config(const reader& top, model_spec& m) {
  if (!top.has("quantization_config")) return;
  const json& qc = top.at("quantization_config");
  if (!qc.is_object())
    throw error(error_code::config_type, top.ptr("quantization_config"), "expected an object, but got " + describe(qc));
  const reader r(qc, top.ptr("quantization_config"));
  model_spec::quantization_default q;
  q.method = lower(r.string_or("quant_method", ""));
  if (q.method == "fp8") {
    const bool blocks = r.has("weight_block_size");
    q.weights = blocks ? precision::fp8_block : precision::fp8;
    q.note = blocks ? "fp8 e4m3 with 128 x 128 block scales" : "fp8 e4m3";
    keep_16bit(r, "modules_to_not_convert", q);
  } else if (q.method == "mxfp4") {
    // gpt-oss: the experts in MXFP4, everything in modules_to_not_convert (attention, router,
    // embeddings, head) in bf16.
    q.weights = precision::bf16;
    set_part(q, weight_component::experts, precision::mxfp4);
    q.note = "mxfp4 experts, the rest bf16";
    keep_16bit(r, "modules_to_not_convert", q);
  } else if (q.method == "awq" || q.method == "gptq") {
    q.weights = integer_bits(r, q.method);
    const std::int64_t group =
        r.has("group_size") && r.at("group_size").is_number_integer() ? r.at("group_size").get<std::int64_t>() : 128;
    q.note = q.method + " int" + (q.weights == precision::int4 ? "4" : "8") + ", group " + std::to_string(group) +
             (group == 128 ? "" : " (costed at group 128's scales)");
    keep_16bit(r, "modules_to_not_convert", q);
  } else if (q.method == "bitsandbytes") {
    if (r.boolean_or("load_in_4bit", false)) {
      q.weights = precision::nf4;
      q.note = "bitsandbytes 4-bit (" + r.string_or("bnb_4bit_quant_type", "nf4") + ")";
    } else if (r.boolean_or("load_in_8bit", false)) {
      q.weights = precision::int8;
      q.note = "bitsandbytes LLM.int8()";
    } else {
      range_error(r, "load_in_4bit", "expected load_in_4bit or load_in_8bit true for bitsandbytes");
    }
    keep_16bit(r, "llm_int8_skip_modules", q);
  } else if (q.method == "compressed-tensors") {
    const std::string format = lower(r.string_or("format", ""));
    if (format.find("nvfp4") != std::string::npos) {
      q.weights = precision::nvfp4;
    } else {
      std::int64_t bits = 0;
      std::string type, strategy;
      if (r.has("config_groups") && r.at("config_groups").is_object())
        for (const auto& [name, group] : r.at("config_groups").items()) {
          if (!group.is_object() || !group.contains("weights") || !group.at("weights").is_object()) continue;
          const reader w(group.at("weights"), r.ptr("config_groups") + "/" + name + "/weights");
          bits = w.positive_or("num_bits", 8);
          type = lower(w.string_or("type", "int"));
          strategy = lower(w.string_or("strategy", ""));
          break;
        }
      if (bits == 8 && type == "float")
        q.weights = strategy == "block" ? precision::fp8_block : precision::fp8;
      else if (bits == 8)
        q.weights = precision::int8;
      else if (bits == 4 && type == "float")
        q.weights = precision::nvfp4;
      else if (bits == 4)
        q.weights = precision::int4;
      else
        throw error(
            error_code::config_range, r.ptr("config_groups"),
            "expected weights of 4 or 8 bits (int or float), but got " + std::to_string(bits) + " bits " + type);
    }
    q.note = "compressed-tensors " + std::string(to_string(q.weights));
    keep_16bit(r, "ignore", q);
  } else if (q.method == "modelopt") {
    const std::string algo = lower(r.string_or("quant_algo", ""));
    if (algo == "fp8")
      q.weights = precision::fp8;
    else if (algo == "nvfp4")
      q.weights = precision::nvfp4;
    else if (algo.find("w4a16") != std::string::npos || algo.find("int4") != std::string::npos)
      q.weights = precision::int4;
    else
      range_error(r, "quant_algo", "expected FP8, NVFP4 or W4A16_AWQ, but got \"" + algo + "\"");
    q.note = "modelopt " + algo;
    keep_16bit(r, "exclude_modules", q);
  } else {
    // A method flopcast does not read (hqq, quanto, torchao, ...): said in the output, costed at
    // the request's precision (bf16 by default).
    q.weights = precision::bf16;
    q.note = "quant_method \"" + q.method +
             "\" is not read (fp8, mxfp4, awq, gptq, bitsandbytes, compressed-tensors and modelopt are): bf16 assumed";
  }
  m.quantization = q;
}

}  // namespace flopcast::detail
