#include "flopcast/precision.hpp"

#include <cctype>
#include <string>

#include "detail.hpp"
#include "flopcast/error.hpp"

namespace flopcast {

std::string_view to_string(precision p) noexcept {
  switch (p) {
    case precision::fp32:
      return "fp32";
    case precision::tf32:
      return "tf32";
    case precision::fp16:
      return "fp16";
    case precision::bf16:
      return "bf16";
    case precision::fp8:
      return "fp8";
    case precision::int8:
      return "int8";
    case precision::int4:
      return "int4";
  }
  return "fp32";
}

namespace {
using detail::lower;

struct alias {
  std::string_view name;
  precision value;
};
constexpr alias k_precision_aliases[] = {
    {"fp32", precision::fp32},  {"float32", precision::fp32}, {"f32", precision::fp32},
    {"float", precision::fp32}, {"tf32", precision::tf32},    {"tensorfloat32", precision::tf32},
    {"fp16", precision::fp16},  {"float16", precision::fp16}, {"f16", precision::fp16},
    {"half", precision::fp16},  {"bf16", precision::bf16},    {"bfloat16", precision::bf16},
    {"fp8", precision::fp8},    {"float8", precision::fp8},   {"fp8_e4m3", precision::fp8},
    {"e4m3", precision::fp8},   {"int8", precision::int8},    {"i8", precision::int8},
    {"w8", precision::int8},    {"int4", precision::int4},    {"i4", precision::int4},
    {"w4", precision::int4},
};
}  // namespace

precision parse_precision(std::string_view name, std::string_view field) {
  const std::string key = lower(name);
  for (const auto& a : k_precision_aliases)
    if (a.name == key) return a.value;
  throw error(error_code::unknown_precision, std::string(field),
              "unknown precision \"" + std::string(name) +
                  "\": expected one of fp32, tf32, fp16, bf16, fp8, int8, int4 (or an alias such as "
                  "float16, half, bfloat16, float32)");
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
