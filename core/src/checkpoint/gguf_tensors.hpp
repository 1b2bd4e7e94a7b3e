#pragma once
// The tensors llama.cpp's converter (convert_hf_to_gguf.py) writes for a model, as the GGUF preset
// planner (gguf_presets.cpp) sees them: names, shapes and source types (gguf_tensors.cpp).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "checkpoint/gguf_presets.hpp"

namespace flopcast::detail {

// enum ggml_type ids (the ids of ggml_types(); sizes come from there).
enum gtype : std::uint32_t {
  g_f32 = 0,
  g_f16 = 1,
  g_q4_0 = 2,
  g_q4_1 = 3,
  g_q5_0 = 6,
  g_q5_1 = 7,
  g_q8_0 = 8,
  g_q2_k = 10,
  g_q3_k = 11,
  g_q4_k = 12,
  g_q5_k = 13,
  g_q6_k = 14,
  g_iq2_xxs = 16,
  g_iq2_xs = 17,
  g_iq3_xxs = 18,
  g_iq1_s = 19,
  g_iq4_nl = 20,
  g_iq3_s = 21,
  g_iq2_s = 22,
  g_iq4_xs = 23,
  g_iq1_m = 29,
  g_bf16 = 30,
  g_mxfp4 = 39,
};

struct tensor_desc {
  std::string name;
  std::vector<std::int64_t> shape;  // ne
  std::uint32_t source = g_f32;     // what the converter wrote
};

// The converter's tensors of `m` for GGUF architecture `arch`; 2-D weights in `source_2d`.
[[nodiscard]] std::vector<tensor_desc> converter_tensors(const model_spec& m, std::string_view arch,
                                                         const gguf_plan_options& o, std::uint32_t source_2d);
// The block index of "blk.N." names (-1 for the others): the loader's weight_name_comparer.
[[nodiscard]] int layer_of(std::string_view n);
// ggml_n_dims: the dimensions up to the last one above 1.
[[nodiscard]] std::size_t ggml_dims(const std::vector<std::int64_t>& ne);

}  // namespace flopcast::detail
