#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace flopcast {

// Numeric formats. int8 and int4 are weight-only formats: the matmuls run in fp16
// (activations stay 16-bit) and, unless set, the KV cache is fp16.
enum class precision : std::uint8_t { fp32, tf32, fp16, bf16, fp8, int8, int4 };

inline constexpr std::array<precision, 7> all_precisions{precision::fp32, precision::tf32, precision::fp16,
                                                         precision::bf16, precision::fp8,  precision::int8,
                                                         precision::int4};

[[nodiscard]] std::string_view to_string(precision p) noexcept;
// Accepts canonical names and aliases (float16, half, bfloat16, float32, fp8_e4m3, ...),
// case-insensitively. Throws flopcast::error(unknown_precision) naming `field`.
[[nodiscard]] precision parse_precision(std::string_view name, std::string_view field = "/precision");
// Bits used to store one element (tf32 is stored as fp32).
[[nodiscard]] constexpr int storage_bits(precision p) noexcept {
  switch (p) {
    case precision::fp32:
    case precision::tf32:
      return 32;
    case precision::fp16:
    case precision::bf16:
      return 16;
    case precision::fp8:
    case precision::int8:
      return 8;
    case precision::int4:
      return 4;
  }
  return 32;
}
[[nodiscard]] constexpr double storage_bytes(precision p) noexcept { return storage_bits(p) / 8.0; }
// True for formats that hold weights only (matmuls run in a 16-bit format).
[[nodiscard]] constexpr bool is_weight_only(precision p) noexcept {
  return p == precision::int8 || p == precision::int4;
}

enum class optimizer : std::uint8_t { adam, adamw, sgd, none };
inline constexpr std::array<optimizer, 4> all_optimizers{optimizer::adam, optimizer::adamw, optimizer::sgd,
                                                         optimizer::none};
[[nodiscard]] std::string_view to_string(optimizer o) noexcept;
[[nodiscard]] optimizer parse_optimizer(std::string_view name, std::string_view field = "/optimizer");

}  // namespace flopcast
