#pragma once
// Exact bytes from a checkpoint's own header: safetensors (.safetensors, and the shard index
// model.safetensors.index.json) and GGUF (v2/v3). Only headers are read, never tensor data:
// every function takes the bytes at the start of the file (std::string_view), so a caller can
// read just the header (checkpoint_header_bytes says how much) and a browser can pass
// File.slice() bytes.
//
//   std::string head = first_bytes(path, 1 << 20);
//   while (checkpoint_header_bytes(head) > head.size()) head = first_bytes(path, ...);
//   checkpoint_info c = read_checkpoint(head, file_size);
//
// Every error is a flopcast::error: config_parse (bad magic, truncated header, malformed
// layout), config_type / config_range (a field of the wrong type or value), limit (a header,
// count, string or array beyond the bounds below), unsupported_model (a GGUF architecture or
// GGML type flopcast does not map). Pointers name the field: "/tensors/<name>/shape",
// "/metadata/llama.block_count", "/header_length".
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/formats/ggml_types.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast {

enum class checkpoint_format : std::uint8_t { safetensors, safetensors_index, gguf };
[[nodiscard]] std::string_view to_string(checkpoint_format f) noexcept;

// What a tensor is, from its name (HF Llama/Mistral/Qwen/Mixtral/DeepSeek/GPT-2 names and
// llama.cpp's GGUF names). experts: routed and shared experts and the router.
enum class tensor_component : std::uint8_t {
  embedding,
  attention_q,
  attention_k,
  attention_v,
  attention_o,
  attention_other,  // fused qkv (GPT-2 c_attn), MLA kv_a/kv_b projections
  mlp,
  experts,
  norm,
  lm_head,
  other,   // buffers and tables no architecture count has (rope_freqs, inv_freq, attn.bias)
  mixer,   // Mamba / Gated DeltaNet mixers (in_proj, conv1d, x_proj, dt_proj, A_log, D, ssm_*)
  vision,  // vision tower and multimodal projector
};
inline constexpr std::size_t tensor_component_count = 13;
[[nodiscard]] std::string_view to_string(tensor_component c) noexcept;
[[nodiscard]] tensor_component classify_tensor(std::string_view name) noexcept;

struct checkpoint_tensor {
  std::string name;
  std::string dtype;                // safetensors dtype ("BF16") or GGML type name ("Q4_K")
  std::vector<std::int64_t> shape;  // as the file stores it (GGUF: ne[0] first, innermost)
  std::int64_t elements = 0;
  std::int64_t bytes = 0;   // exact, from the dtype's size or the GGML block layout
  std::int64_t offset = 0;  // into the data section (safetensors data_offsets[0]; GGUF offset)
  std::string file;         // shard file name (index), else empty
  tensor_component component = tensor_component::other;
};

struct checkpoint_metadata {
  std::string key;
  std::string type;  // "string" (safetensors), GGUF "u32", "f32", "string", "array<string>", ...
  std::string text;  // the value as text (arrays summarised: "[128256 x string]")
  bool is_integer = false;
  std::int64_t integer = 0;        // when is_integer
  std::uint64_t array_length = 0;  // arrays
};

struct checkpoint_total {
  std::string name;  // dtype, or component name
  std::int64_t tensors = 0;
  std::int64_t elements = 0;
  std::int64_t bytes = 0;
};

struct checkpoint_info {
  checkpoint_format format = checkpoint_format::safetensors;
  std::uint32_t gguf_version = 0;
  std::int64_t header_bytes = 0;              // prefix of the file the header takes (safetensors 8 + N)
  std::int64_t data_start = 0;                // where tensor data begins in the file
  std::int64_t alignment = 0;                 // GGUF general.alignment (default 32)
  std::vector<checkpoint_tensor> tensors;     // in data order (by offset)
  std::vector<checkpoint_metadata> metadata;  // safetensors __metadata__, GGUF key-values
  std::int64_t total_elements = 0;
  std::int64_t total_bytes = 0;
  std::int64_t declared_total_size = -1;       // index metadata.total_size, when given
  std::vector<checkpoint_total> by_dtype;      // sorted by bytes, largest first
  std::vector<checkpoint_total> by_component;  // in tensor_component order, non-empty only
  std::string architecture;                    // GGUF general.architecture
  std::vector<std::string> notes;              // e.g. shards missing from a combined index
  [[nodiscard]] double bits_per_weight() const {
    return total_elements > 0 ? 8.0 * static_cast<double>(total_bytes) / static_cast<double>(total_elements) : 0.0;
  }
  [[nodiscard]] const checkpoint_metadata* find(std::string_view key) const;
};

// ---- Bounds ---------------------------------------------------------------------------
inline constexpr std::uint64_t max_safetensors_header = std::uint64_t{16} << 20;  // the JSON limit
inline constexpr std::uint64_t max_gguf_header = std::uint64_t{64} << 20;
// Real GGUF files hold at most a few thousand tensors: llama.cpp merges a layer's experts into
// one 3-D tensor per projection, so the 94-layer, 128-expert Qwen3-235B-A22B (qwen3moe) has
// 94 x 12 (attn_q/k/v/output, attn_q_norm, attn_k_norm, attn_norm, ffn_norm, ffn_gate_inp,
// ffn_gate/up/down_exps) + 3 (token_embd, output_norm, output) = 1,131. 2^16 = 65,536 is 58x
// that, and a header of hundreds of thousands of tiny tensors is refused before any is read.
inline constexpr std::uint64_t max_gguf_tensors = std::uint64_t{1} << 16;
inline constexpr std::uint64_t max_gguf_metadata = std::uint64_t{1} << 20;
inline constexpr std::uint64_t max_gguf_string = std::uint64_t{1} << 20;
inline constexpr std::uint64_t max_gguf_array = std::uint64_t{1} << 24;

// The format from the first bytes (at least 9): GGUF magic, safetensors (8-byte length then
// '{'), or a JSON index ('{' first). nullopt when none fits.
[[nodiscard]] std::optional<checkpoint_format> detect_checkpoint_format(std::string_view prefix) noexcept;

// How many bytes of the file's prefix the header needs, given its first bytes: safetensors
// 8 + N (N read from the first 8 bytes); GGUF parses as far as `prefix` goes and returns the
// end of the first read past it (at least prefix.size() + 1), or the header's end when
// complete. Read that many bytes (or more, or the whole file) and call again until the result is
// at most prefix.size(). Throws on bad magic or bounds.
[[nodiscard]] std::size_t checkpoint_header_bytes(std::string_view prefix);

// The header of a .safetensors file: `bytes` holds at least the first 8 + N bytes. When
// file_size >= 0 the data section must end exactly at the file's end.
[[nodiscard]] checkpoint_info read_safetensors(std::string_view bytes, std::int64_t file_size = -1);
// The header of a GGUF v2/v3 file (`bytes`: its prefix up to the end of the tensor infos).
[[nodiscard]] checkpoint_info read_gguf(std::string_view bytes, std::int64_t file_size = -1);
// Dispatches on detect_checkpoint_format (an index is read by read_safetensors_index).
[[nodiscard]] checkpoint_info read_checkpoint(std::string_view bytes, std::int64_t file_size = -1);

// model.safetensors.index.json: weight_map (tensor name -> shard file) and metadata.total_size.
struct safetensors_index {
  std::int64_t total_size = -1;
  std::vector<std::pair<std::string, std::string>> weight_map;  // sorted by tensor name
  std::vector<std::string> shards;                              // sorted, unique
};
[[nodiscard]] safetensors_index read_safetensors_index(std::string_view json_text);
// The index's tensors as one checkpoint: each shard's header (shard file name, info); shards the
// caller could not read are absent and noted. Tensors listed by the index but missing from their
// shard, tensors of a shard the index does not list, and a total_size that differs from the sum
// of the tensors' bytes are noted. Without shard headers: names and components only.
[[nodiscard]] checkpoint_info combine_safetensors(const safetensors_index& index,
                                                  const std::vector<std::pair<std::string, checkpoint_info>>& shards);

// ---- Architecture ---------------------------------------------------------------------------
// GGUF architectures mapped to a config: llama (Mixtral when llama.expert_count > 0), mistral,
// qwen2, qwen3, qwen2moe, qwen3moe (dense layers: those without a router tensor), gemma2, gemma3
// (gemma3_text), phi3, deepseek2 (deepseek_v3 when the router has a bias or a sigmoid gate).
[[nodiscard]] const std::vector<std::string>& supported_gguf_architectures();
// A Hugging Face-style config.json (JSON text) built from a GGUF header's keys, read by the
// same config reader as a config.json. Throws unsupported_model for other architectures.
[[nodiscard]] std::string gguf_config_json(const checkpoint_info& gguf);
[[nodiscard]] model_spec gguf_model_spec(const checkpoint_info& gguf);

// The checkpoint's tensors against flopcast's architecture count (count_parameters).
struct checkpoint_comparison_row {
  std::string component;  // embedding, attention, mlp, norm, output_head, mixer, vision
  std::int64_t checkpoint = 0;
  std::int64_t architecture = 0;
};
struct checkpoint_comparison {
  std::int64_t checkpoint_elements = 0;
  std::int64_t architecture_parameters = 0;
  std::vector<checkpoint_comparison_row> rows;
  std::vector<std::string> unaccounted;  // tensors no architecture component holds (other)
  [[nodiscard]] bool matches() const { return checkpoint_elements == architecture_parameters; }
};
[[nodiscard]] checkpoint_comparison compare_checkpoint(const checkpoint_info& c, const model_spec& m);

// ---- Summary and exact weight bytes ------------------------------------------------------------
// The quantization mix: GGUF's general.file_type by llama.cpp's name ("Q4_K_M"), else the dtypes
// by bytes, largest first ("BF16 + F32"). Empty without tensors.
[[nodiscard]] std::string checkpoint_mix(const checkpoint_info& c);
// The exact bytes of the stored weights, for the request field weight_bytes: the tensors' total,
// or an index's metadata.total_size when some shard was not read (nullopt when neither is known).
[[nodiscard]] std::optional<std::int64_t> checkpoint_weight_bytes(const checkpoint_info& c);
// Where those bytes came from, for output: "exact bytes from model.gguf (Q4_K_M mix: 4.85 bits/weight)".
[[nodiscard]] std::string checkpoint_weight_source(const checkpoint_info& c, const std::string& file);
// One .gguf or .safetensors file's header (`bytes`: its prefix, checkpoint_header_bytes long; an
// index, which only lists shards, is refused: use read_checkpoint_file's CLI path) as JSON: format,
// totals, by_dtype, by_component, bits_per_weight, mix, weight_bytes, notes, and the architecture
// (GGUF: the config its keys imply, returned as "config"; safetensors: `config_json` when given,
// not echoed) with the check of compare_checkpoint; architecture_error says why there is none. A
// bad header throws.
[[nodiscard]] std::string inspect_checkpoint_json(std::string_view bytes, std::int64_t file_size = -1,
                                                  std::string_view config_json = {}, int indent = -1);

}  // namespace flopcast
