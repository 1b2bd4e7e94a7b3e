#pragma once
// Number formats: how weights (and the KV cache) are stored, with the bits each weight really
// takes including its scales, and the path their matmuls take on a device. One table
// (precision.cpp, formats()) holds every figure; the names below are its index.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace flopcast {

enum class precision : std::uint8_t {
  // Formats a device lists peaks for (data/gpus.json peak_flops keys), and the plain formats.
  fp32,
  tf32,
  fp16,
  bf16,
  fp8,   // FP8 e4m3 with a per-tensor scale (W8A8 where the device has FP8)
  int8,  // INT8 weight-only, GPTQ layout: fp16 scale and 8-bit zero per group of 128
  int4,  // INT4 weight-only, AWQ/GPTQ layout: fp16 scale and 4-bit zero per group of 128
  // Scaled low-precision formats.
  fp8_block,  // FP8 e4m3 with an fp32 scale per 128 x 128 block (DeepSeek-V3, Qwen3-FP8)
  mxfp8,      // OCP MX: e4m3 + an e8m0 scale per 32
  mxfp6,      // OCP MX: e3m2/e2m3 + an e8m0 scale per 32
  mxfp4,      // OCP MX: e2m1 + an e8m0 scale per 32 (gpt-oss experts)
  nvfp4,      // NVIDIA: e2m1 + an fp8 e4m3 scale per 16 (+ a per-tensor fp32 scale)
  nf4,        // bitsandbytes NF4, blocks of 64 with double-quantised absmax (QLoRA)
  // GGML block types (llama.cpp), exact block layouts from ggml_types().
  q8_0,
  q6_k,
  q5_k,
  q5_1,
  q5_0,
  q4_k,
  q4_1,
  q4_0,
  iq4_nl,
  iq4_xs,
  q3_k,
  iq3_s,
  iq3_xxs,
  q2_k,
  iq2_s,
  iq2_xs,
  iq2_xxs,
  iq1_m,
  iq1_s,
  tq2_0,
  tq1_0,
  // llama.cpp presets (llama-quantize file types): a type per tensor by llama-quant.cpp's rules,
  // planned exactly for the architectures gguf_presets.cpp knows (else costed at the base type).
  q2_k_s,
  q3_k_s,
  q3_k_m,
  q3_k_l,
  q4_k_s,
  q4_k_m,
  q5_k_s,
  q5_k_m,
  iq2_m,
  iq3_xs,
  iq3_m,
  mxfp4_moe,
};

inline constexpr std::size_t precision_count = static_cast<std::size_t>(precision::mxfp4_moe) + 1;
// The formats a device's peak table is indexed by (data/gpus.json "peak_flops" keys).
inline constexpr std::array<precision, 7> device_precisions{precision::fp32, precision::tf32, precision::fp16,
                                                            precision::bf16, precision::fp8,  precision::int8,
                                                            precision::int4};
// Kept for the device peak array's size.
inline constexpr std::array<precision, 7> all_precisions = device_precisions;

enum class format_family : std::uint8_t { plain, integer, scaled_float, gguf, gguf_preset };

// Which device peak a format's matmuls run at, in order of preference: native (the format's own
// units: FP8 on Hopper/Ada/Blackwell/MI300, FP4 and FP6 on Blackwell/MI355X), else the weights
// are dequantised to a 16-bit format and the matmuls run there (weight-only).
enum class compute_unit : std::uint8_t { fp32, tf32, fp16, fp16_acc16, bf16, fp8, fp6, fp4, int8, int4 };

struct format_info {
  precision id;
  std::string_view name;
  std::string_view aliases;  // comma-separated, lower case
  format_family family;
  double bits_per_weight;  // including scales and zeros
  std::string_view layout;
  std::string_view source;
  std::vector<compute_unit> path;  // units tried in order (first one the device has)
  bool weight_only;                // the matmuls never run in this format (dequantised first)
  bool kv;                         // usable for the KV cache
  std::uint32_t ggml_type;         // GGML type id (family gguf; a preset's base type), else 0
};

// The parts of a model a precision can be given for (--precision experts=mxfp4,attention=bf16).
enum class weight_component : std::uint8_t { embedding, attention, mlp, experts, lm_head, mixer, vision };
inline constexpr std::size_t weight_component_count = 7;
[[nodiscard]] std::string_view to_string(weight_component c) noexcept;

[[nodiscard]] const std::vector<format_info>& formats();
[[nodiscard]] const format_info& format_of(precision p) noexcept;
[[nodiscard]] std::string_view to_string(precision p) noexcept;
[[nodiscard]] std::string_view to_string(compute_unit u) noexcept;
[[nodiscard]] std::string_view to_string(format_family f) noexcept;
// Accepts canonical names and aliases (float16, half, bfloat16, float32, fp8_e4m3, q4_k, awq,
// gptq, mxfp4, ...), case-insensitively. Throws flopcast::error(unknown_precision) naming `field`.
[[nodiscard]] precision parse_precision(std::string_view name, std::string_view field = "/precision");
// Bits one stored weight takes, scales included (tf32 is stored as fp32).
[[nodiscard]] double bits_per_weight(precision p) noexcept;
[[nodiscard]] inline double storage_bytes(precision p) noexcept { return bits_per_weight(p) / 8.0; }
// True for formats whose matmuls run in a 16-bit format after dequantisation.
[[nodiscard]] bool is_weight_only(precision p) noexcept;
// The KV cache's format when a request names none: the weights' for 8-bit and wider formats that
// hold a KV cache; fp8 for NVFP4 (NVIDIA ModelOpt's NVFP4 checkpoints state
// "kv_cache_quant_algo": "FP8" in hf_quant_config.json, and TensorRT-LLM and vLLM follow it);
// fp16 for every other narrower or weight-only format (AWQ, GPTQ, GGUF, MXFP4 checkpoints such as
// gpt-oss keep a 16-bit cache).
[[nodiscard]] precision default_kv_precision(precision weights) noexcept;

enum class optimizer : std::uint8_t { adam, adamw, sgd, none };
inline constexpr std::array<optimizer, 4> all_optimizers{optimizer::adam, optimizer::adamw, optimizer::sgd,
                                                         optimizer::none};
[[nodiscard]] std::string_view to_string(optimizer o) noexcept;
[[nodiscard]] optimizer parse_optimizer(std::string_view name, std::string_view field = "/optimizer");

}  // namespace flopcast
