#include "flopcast/formats/precision.hpp"

#include <cctype>
#include <string>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/formats/ggml_types.hpp"

namespace flopcast {

namespace {
using detail::lower;
using cu = compute_unit;

// The weight-only path: dequantised to 16-bit, fp16 first (the kernels of AWQ/GPTQ/Marlin).
const std::vector<cu> k_dequant_fp16 = {cu::fp16, cu::bf16, cu::fp32};
const std::vector<cu> k_dequant_bf16 = {cu::bf16, cu::fp16, cu::fp32};
// llama.cpp: cuBLAS fp16 with fp16 accumulation where the device lists that rate (GeForce).
const std::vector<cu> k_llama_cpp = {cu::fp16_acc16, cu::fp16, cu::bf16, cu::fp32};

// A GGML block type: bits from the one block-layout table (ggml_types.cpp, ggml_types()).
format_info gguf(precision id, std::string_view name, std::string_view aliases, std::uint32_t type, bool kv = false) {
  const ggml_type_info* t = find_ggml_type(type);
  const double bits = t != nullptr ? t->bits_per_weight() : 0.0;
  return {id,
          name,
          aliases,
          format_family::gguf,
          bits,
          "GGML block type (llama.cpp): see ggml_types() for the block's weights and bytes",
          "ggml-org/llama.cpp ggml/src/ggml-common.h block structs (sizes as static_assert'ed there)",
          k_llama_cpp,
          true,
          kv,
          type};
}

const std::vector<format_info>& table() {
  static const std::vector<format_info> k = [] {
    std::vector<format_info> v = {
        {precision::fp32,
         "fp32",
         "float32,f32,float",
         format_family::plain,
         32,
         "IEEE binary32",
         "IEEE 754",
         {cu::fp32},
         false,
         true,
         0},
        {precision::tf32,
         "tf32",
         "tensorfloat32",
         format_family::plain,
         32,
         "stored as fp32; matmuls in TF32 (10-bit mantissa)",
         "NVIDIA A100 whitepaper",
         {cu::tf32, cu::fp32},
         false,
         false,
         0},
        {precision::fp16,
         "fp16",
         "float16,f16,half",
         format_family::plain,
         16,
         "IEEE binary16",
         "IEEE 754",
         {cu::fp16, cu::fp32},
         false,
         true,
         0},
        {precision::bf16,
         "bf16",
         "bfloat16",
         format_family::plain,
         16,
         "bfloat16 (8-bit exponent)",
         "Google bfloat16",
         {cu::bf16, cu::fp32},
         false,
         true,
         0},
        {precision::fp8,
         "fp8",
         "float8,fp8_e4m3,e4m3,w8a8_fp8,fp8_per_tensor",
         format_family::scaled_float,
         8,
         "e4m3 with one fp32 scale per tensor (negligible)",
         "Micikevicius et al., FP8 Formats for Deep Learning (arXiv:2209.05433); NVIDIA Transformer Engine",
         {cu::fp8, cu::bf16, cu::fp16, cu::fp32},
         false,
         true,
         0},
        {precision::int8, "int8", "i8,w8,w8a16,gptq_int8,int8_g128", format_family::integer,
         8.0 + 16.0 / 128 + 8.0 / 128,
         "int8 weights, an fp16 scale and an 8-bit zero per group of 128 (GPTQ qweight/scales/qzeros)",
         "AutoGPTQ / GPTQModel storage (qweight int32-packed, scales fp16, qzeros packed), group_size 128 default",
         k_dequant_fp16, true, true, 0},
        {precision::int4, "int4", "i4,w4,w4a16,awq,gptq,int4_g128,awq_int4,gptq_int4", format_family::integer,
         4.0 + 16.0 / 128 + 4.0 / 128,
         "int4 weights, an fp16 scale and a 4-bit zero per group of 128 (AWQ and GPTQ qweight/scales/qzeros)",
         "Lin et al., AWQ (arXiv:2306.00978) and AutoAWQ's GEMM layout; Frantar et al., GPTQ (arXiv:2210.17323); "
         "group_size 128 is both tools' default",
         k_dequant_fp16, true, true, 0},
        {precision::fp8_block,
         "fp8_block",
         "fp8_128x128,fp8_blockwise,block_fp8",
         format_family::scaled_float,
         8.0 + 32.0 / (128 * 128),
         "e4m3 with an fp32 scale per 128 x 128 block (weight_scale_inv)",
         "DeepSeek-V3 Technical Report (arXiv:2412.19437) sec. 3.3.2; its config's quantization_config "
         "weight_block_size [128, 128]",
         {cu::fp8, cu::bf16, cu::fp16, cu::fp32},
         false,
         false,
         0},
        {precision::mxfp8,
         "mxfp8",
         "mx_fp8,mxfp8_e4m3",
         format_family::scaled_float,
         8.0 + 8.0 / 32,
         "e4m3 elements with one e8m0 scale per block of 32",
         "OCP Microscaling Formats (MX) Specification v1.0 (2023), sec. 5",
         {cu::fp8, cu::bf16, cu::fp16, cu::fp32},
         false,
         false,
         0},
        {precision::mxfp6,
         "mxfp6",
         "mx_fp6,mxfp6_e3m2,mxfp6_e2m3",
         format_family::scaled_float,
         6.0 + 8.0 / 32,
         "e3m2 or e2m3 elements with one e8m0 scale per block of 32",
         "OCP Microscaling Formats (MX) Specification v1.0 (2023), sec. 5",
         {cu::fp6, cu::bf16, cu::fp16, cu::fp32},
         false,
         false,
         0},
        {precision::mxfp4,
         "mxfp4",
         "mx_fp4,mxfp4_e2m1",
         format_family::scaled_float,
         4.0 + 8.0 / 32,
         "e2m1 elements with one e8m0 scale per block of 32 (gpt-oss experts: blocks and scales tensors)",
         "OCP Microscaling Formats (MX) Specification v1.0 (2023), sec. 5; OpenAI gpt-oss model card (2025)",
         {cu::fp4, cu::bf16, cu::fp16, cu::fp32},
         false,
         true,
         0},
        {precision::nvfp4,
         "nvfp4",
         "nv_fp4,fp4,w4a4_nvfp4",
         format_family::scaled_float,
         4.0 + 8.0 / 16,
         "e2m1 elements with an fp8 e4m3 scale per block of 16 and one fp32 scale per tensor",
         "NVIDIA, Introducing NVFP4 for Efficient and Accurate Low-Precision Inference (technical blog, 2025); "
         "NVIDIA Blackwell architecture technical brief",
         {cu::fp4, cu::bf16, cu::fp16, cu::fp32},
         false,
         true,
         0},
        {precision::nf4, "nf4", "bnb_nf4,bitsandbytes_4bit,qlora", format_family::integer,
         4.0 + 8.0 / 64 + 32.0 / (64 * 256),
         "4-bit NormalFloat, blocks of 64 with 8-bit absmax constants double-quantised per 256 blocks (fp32)",
         "Dettmers et al., QLoRA (arXiv:2305.14314) sec. 3: 4 + 8/64 + 32/(64 x 256) bits", k_dequant_bf16, true, false,
         0},
    };
    v.push_back(gguf(precision::q8_0, "q8_0", "gguf_q8_0", 8, true));
    v.push_back(gguf(precision::q6_k, "q6_k", "gguf_q6_k", 14));
    v.push_back(gguf(precision::q5_k, "q5_k", "gguf_q5_k", 13));
    v.push_back(gguf(precision::q5_1, "q5_1", "gguf_q5_1", 7, true));
    v.push_back(gguf(precision::q5_0, "q5_0", "gguf_q5_0", 6, true));
    v.push_back(gguf(precision::q4_k, "q4_k", "gguf_q4_k", 12));
    v.push_back(gguf(precision::q4_1, "q4_1", "gguf_q4_1", 3, true));
    v.push_back(gguf(precision::q4_0, "q4_0", "gguf_q4_0", 2, true));
    v.push_back(gguf(precision::iq4_nl, "iq4_nl", "gguf_iq4_nl", 20, true));
    v.push_back(gguf(precision::iq4_xs, "iq4_xs", "gguf_iq4_xs", 23));
    v.push_back(gguf(precision::q3_k, "q3_k", "gguf_q3_k", 11));
    v.push_back(gguf(precision::iq3_s, "iq3_s", "gguf_iq3_s", 21));
    v.push_back(gguf(precision::iq3_xxs, "iq3_xxs", "gguf_iq3_xxs", 18));
    v.push_back(gguf(precision::q2_k, "q2_k", "gguf_q2_k", 10));
    v.push_back(gguf(precision::iq2_s, "iq2_s", "gguf_iq2_s", 22));
    v.push_back(gguf(precision::iq2_xs, "iq2_xs", "gguf_iq2_xs", 17));
    v.push_back(gguf(precision::iq2_xxs, "iq2_xxs", "gguf_iq2_xxs", 16));
    v.push_back(gguf(precision::iq1_m, "iq1_m", "gguf_iq1_m", 29));
    v.push_back(gguf(precision::iq1_s, "iq1_s", "gguf_iq1_s", 19));
    v.push_back(gguf(precision::tq2_0, "tq2_0", "gguf_tq2_0", 35));
    v.push_back(gguf(precision::tq1_0, "tq1_0", "gguf_tq1_0", 34));
    const auto preset = [&](precision id, std::string_view name, std::uint32_t base) {
      format_info f = gguf(id, name, "", base);
      f.family = format_family::gguf_preset;
      f.layout = "llama.cpp preset: a GGML type per tensor by llama-quant.cpp's rules (bits: the base type's, a floor)";
      f.source = "ggml-org/llama.cpp src/llama-quant.cpp (llama_tensor_get_type_impl); tools/quantize/README.md";
      return f;
    };
    v.push_back(preset(precision::q2_k_s, "q2_k_s", 10));
    v.push_back(preset(precision::q3_k_s, "q3_k_s", 11));
    v.push_back(preset(precision::q3_k_m, "q3_k_m", 11));
    v.push_back(preset(precision::q3_k_l, "q3_k_l", 11));
    v.push_back(preset(precision::q4_k_s, "q4_k_s", 12));
    v.push_back(preset(precision::q4_k_m, "q4_k_m", 12));
    v.push_back(preset(precision::q5_k_s, "q5_k_s", 13));
    v.push_back(preset(precision::q5_k_m, "q5_k_m", 13));
    v.push_back(preset(precision::iq2_m, "iq2_m", 22));
    v.push_back(preset(precision::iq3_xs, "iq3_xs", 21));
    v.push_back(preset(precision::iq3_m, "iq3_m", 21));
    v.push_back(preset(precision::mxfp4_moe, "mxfp4_moe", 39));
    return v;
  }();
  return k;
}

}  // namespace

const std::vector<format_info>& formats() { return table(); }

const format_info& format_of(precision p) noexcept { return table()[static_cast<std::size_t>(p)]; }

std::string_view to_string(precision p) noexcept { return format_of(p).name; }

std::string_view to_string(compute_unit u) noexcept {
  switch (u) {
    case cu::fp32:
      return "fp32";
    case cu::tf32:
      return "tf32";
    case cu::fp16:
      return "fp16";
    case cu::fp16_acc16:
      return "fp16_acc16";
    case cu::bf16:
      return "bf16";
    case cu::fp8:
      return "fp8";
    case cu::fp6:
      return "fp6";
    case cu::fp4:
      return "fp4";
    case cu::int8:
      return "int8";
    case cu::int4:
      return "int4";
  }
  return "fp32";
}

std::string_view to_string(format_family f) noexcept {
  switch (f) {
    case format_family::plain:
      return "plain";
    case format_family::integer:
      return "integer";
    case format_family::scaled_float:
      return "scaled_float";
    case format_family::gguf:
      return "gguf";
    case format_family::gguf_preset:
      return "gguf_preset";
  }
  return "plain";
}

double bits_per_weight(precision p) noexcept { return format_of(p).bits_per_weight; }

std::string_view to_string(weight_component c) noexcept {
  static constexpr std::array<std::string_view, weight_component_count> k = {
      "embedding", "attention", "mlp", "experts", "lm_head", "mixer", "vision"};
  return k[static_cast<std::size_t>(c)];
}
bool is_weight_only(precision p) noexcept { return format_of(p).weight_only; }

precision default_kv_precision(precision weights) noexcept {
  const format_info& f = format_of(weights);
  if (weights == precision::nvfp4) return precision::fp8;
  if (f.weight_only || !f.kv || bits_per_weight(weights) < 8) return precision::fp16;
  return weights;
}

precision parse_precision(std::string_view name, std::string_view field) {
  const std::string key = lower(name);
  for (const format_info& f : table()) {
    if (f.name == key) return f.id;
    std::string_view rest = f.aliases;
    while (!rest.empty()) {
      const std::size_t comma = rest.find(',');
      if (rest.substr(0, comma) == key) return f.id;
      rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
    }
  }
  std::string names;
  for (const format_info& f : table()) names += (names.empty() ? "" : ", ") + std::string(f.name);
  throw error(error_code::unknown_precision, std::string(field),
              "unknown precision \"" + std::string(name) + "\": expected one of " + names +
                  " (or an alias: float16, half, bfloat16, awq, gptq, fp4, ...)");
}

std::string_view to_string(optimizer o) noexcept {
  switch (o) {
    case optimizer::adam:
      return "adam";
    case optimizer::adamw:
      return "adamw";
    case optimizer::sgd:
      return "sgd";
    case optimizer::none:
      return "none";
  }
  return "adam";
}

optimizer parse_optimizer(std::string_view name, std::string_view field) {
  const std::string key = lower(name);
  for (optimizer o : all_optimizers)
    if (to_string(o) == key) return o;
  throw error(error_code::unknown_optimizer, std::string(field),
              "unknown optimizer \"" + std::string(name) + "\": expected one of adam, adamw, sgd, none");
}

}  // namespace flopcast
