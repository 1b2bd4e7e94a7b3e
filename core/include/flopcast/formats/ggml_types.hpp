#pragma once
// llama.cpp's GGML types: the block layouts of its quantized formats (weights per block, bytes per
// block), by enum ggml_type id. The precision table's GGML formats take their bits from here; the
// GGUF reader (checkpoint.hpp) checks each tensor's type against it.
#include <cstdint>
#include <string_view>
#include <vector>

namespace flopcast {

struct ggml_type_info {
  std::uint32_t id = 0;  // enum ggml_type
  std::string_view name;
  std::int64_t block_elements = 1;  // weights per block
  std::int64_t block_bytes = 0;     // bytes per block
  [[nodiscard]] double bits_per_weight() const {
    return 8.0 * static_cast<double>(block_bytes) / static_cast<double>(block_elements);
  }
};
// Every GGML type read_gguf accepts, by id.
[[nodiscard]] const std::vector<ggml_type_info>& ggml_types();
[[nodiscard]] const ggml_type_info* find_ggml_type(std::uint32_t id) noexcept;

}  // namespace flopcast
