// The GGML block layouts (formats/ggml_types.hpp): llama.cpp's quantized number formats, read by the
// precision table (precision.cpp) and the GGUF header reader (checkpoint/checkpoint_gguf.cpp).
#include "flopcast/formats/ggml_types.hpp"

namespace flopcast {

// Bytes per block, from the block structs of ggml/src/ggml-common.h (QK4_0 = QK4_1 = QK5_0 =
// QK5_1 = QK8_0 = QK8_1 = QK4_NL = QK_MXFP4 = 32, QK_K = 256; ggml_half is 2 bytes):
//   block_q4_0  { ggml_half d; uint8_t qs[QK4_0/2]; }                          2 + 16        = 18
//   block_q4_1  { ggml_half d, m; uint8_t qs[QK4_1/2]; }                       4 + 16        = 20
//   block_q5_0  { ggml_half d; uint8_t qh[4]; uint8_t qs[QK5_0/2]; }           2 + 4 + 16    = 22
//   block_q5_1  { ggml_half d, m; uint8_t qh[4]; uint8_t qs[QK5_1/2]; }        4 + 4 + 16    = 24
//   block_q8_0  { ggml_half d; int8_t qs[QK8_0]; }                             2 + 32        = 34
//   block_q8_1  { ggml_half d, s; int8_t qs[QK8_1]; }                          4 + 32        = 36
//   block_q2_K  { uint8_t scales[QK_K/16]; uint8_t qs[QK_K/4]; ggml_half d, dmin; }  16+64+4 = 84
//   block_q3_K  { uint8_t hmask[QK_K/8]; qs[QK_K/4]; scales[12]; ggml_half d; } 32+64+12+2 = 110
//   block_q4_K  { ggml_half d, dmin; uint8_t scales[12]; qs[QK_K/2]; }         4+12+128      = 144
//   block_q5_K  { ggml_half d, dmin; scales[12]; qh[QK_K/8]; qs[QK_K/2]; }     4+12+32+128   = 176
//   block_q6_K  { uint8_t ql[QK_K/2]; qh[QK_K/4]; int8_t scales[QK_K/16]; ggml_half d; } 128+64+16+2 = 210
//   block_q8_K  { float d; int8_t qs[QK_K]; int16_t bsums[QK_K/16]; }          4+256+32      = 292
//   block_iq2_xxs { ggml_half d; uint16_t qs[QK_K/8]; }                        2+64          = 66
//   block_iq2_xs  { ggml_half d; uint16_t qs[QK_K/8]; uint8_t scales[QK_K/32]; } 2+64+8      = 74
//   block_iq2_s   { ggml_half d; qs[QK_K/4]; qh[QK_K/32]; scales[QK_K/32]; }   2+64+8+8      = 82
//   block_iq3_xxs { ggml_half d; uint8_t qs[3*QK_K/8]; }                       2+96          = 98
//   block_iq3_s   { ggml_half d; qs[QK_K/4]; qh[QK_K/32]; signs[QK_K/8]; scales[QK_K/64]; } 2+64+8+32+4 = 110
//   block_iq1_s   { ggml_half d; uint8_t qs[QK_K/8]; uint16_t qh[QK_K/32]; }   2+32+16       = 50
//   block_iq1_m   { uint8_t qs[QK_K/8]; qh[QK_K/16]; scales[QK_K/32]; }        32+16+8       = 56
//   block_iq4_nl  { ggml_half d; uint8_t qs[QK4_NL/2]; }                       2+16          = 18
//   block_iq4_xs  { ggml_half d; uint16_t scales_h; uint8_t scales_l[QK_K/64]; qs[QK_K/2]; } 2+2+4+128 = 136
//   block_tq1_0   { uint8_t qs[(QK_K - 4*QK_K/64)/5]; qh[QK_K/64]; ggml_half d; } 48+4+2     = 54
//   block_tq2_0   { uint8_t qs[QK_K/4]; ggml_half d; }                         64+2          = 66
//   block_mxfp4   { uint8_t e; uint8_t qs[QK_MXFP4/2]; }                       1+16          = 17
// Plain types: F32 4, F16 2, BF16 2, F64 8, I8 1, I16 2, I32 4, I64 8 bytes per element.
// The ids are enum ggml_type's (ggml/include/ggml.h); removed ids (4, 5, 31-33, 36-38) are refused.
const std::vector<ggml_type_info>& ggml_types() {
  static const std::vector<ggml_type_info> k = {
      {0, "F32", 1, 4},         {1, "F16", 1, 2},         {2, "Q4_0", 32, 18},      {3, "Q4_1", 32, 20},
      {6, "Q5_0", 32, 22},      {7, "Q5_1", 32, 24},      {8, "Q8_0", 32, 34},      {9, "Q8_1", 32, 36},
      {10, "Q2_K", 256, 84},    {11, "Q3_K", 256, 110},   {12, "Q4_K", 256, 144},   {13, "Q5_K", 256, 176},
      {14, "Q6_K", 256, 210},   {15, "Q8_K", 256, 292},   {16, "IQ2_XXS", 256, 66}, {17, "IQ2_XS", 256, 74},
      {18, "IQ3_XXS", 256, 98}, {19, "IQ1_S", 256, 50},   {20, "IQ4_NL", 32, 18},   {21, "IQ3_S", 256, 110},
      {22, "IQ2_S", 256, 82},   {23, "IQ4_XS", 256, 136}, {24, "I8", 1, 1},         {25, "I16", 1, 2},
      {26, "I32", 1, 4},        {27, "I64", 1, 8},        {28, "F64", 1, 8},        {29, "IQ1_M", 256, 56},
      {30, "BF16", 1, 2},       {34, "TQ1_0", 256, 54},   {35, "TQ2_0", 256, 66},   {39, "MXFP4", 32, 17},
  };
  return k;
}

const ggml_type_info* find_ggml_type(std::uint32_t id) noexcept {
  for (const ggml_type_info& t : ggml_types())
    if (t.id == id) return &t;
  return nullptr;
}

}  // namespace flopcast
