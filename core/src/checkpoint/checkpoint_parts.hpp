#pragma once
// Shared by checkpoint_safetensors.cpp and checkpoint_gguf.cpp.
#include <cstddef>
#include <string>
#include <string_view>

#include "flopcast/checkpoint/checkpoint.hpp"

namespace flopcast::detail {

// Sorts the tensors by offset and fills the totals (by dtype, by component).
void finish_checkpoint(checkpoint_info& c);
// The GGUF part of checkpoint_header_bytes (prefix starts with the GGUF magic).
[[nodiscard]] std::size_t gguf_header_bytes(std::string_view prefix);

// A key as one JSON-pointer segment ("~" -> "~0", "/" -> "~1"), for error pointers.
inline std::string pointer_segment(std::string_view key) {
  std::string out;
  for (char ch : key) {
    if (ch == '~')
      out += "~0";
    else if (ch == '/')
      out += "~1";
    else
      out += ch;
  }
  return out;
}

}  // namespace flopcast::detail
