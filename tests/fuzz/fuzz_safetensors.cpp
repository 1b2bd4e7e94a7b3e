// Fuzz target: the safetensors header and index readers (flopcast/checkpoint.hpp). Any input is
// either refused with flopcast::error or read into tensors whose totals add up; the header size
// asked for never exceeds 8 + 16 MiB; an accepted header compares with a small Llama.
#include "flopcast/checkpoint/checkpoint.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = fuzz::text_of(data, size);
  try {
    if (flopcast::checkpoint_header_bytes(bytes) > 8 + flopcast::max_safetensors_header) std::abort();
  } catch (const flopcast::error&) {
  }
  flopcast::checkpoint_info c;
  try {
    c = flopcast::read_safetensors(bytes, size % 2 ? static_cast<std::int64_t>(size) : -1);
  } catch (const flopcast::error&) {
    try {
      (void)flopcast::combine_safetensors(flopcast::read_safetensors_index(bytes), {});
    } catch (const flopcast::error&) {
    }
    return 0;
  }
  std::int64_t bytes_sum = 0;
  for (const auto& t : c.tensors) {
    if (t.elements < 0 || t.bytes < 0 || t.offset < 0) std::abort();
    bytes_sum += t.bytes;
  }
  if (bytes_sum != c.total_bytes) std::abort();
  fuzz::finite(c.bits_per_weight(), "bits_per_weight");
  try {
    static const flopcast::model_spec m = flopcast::read_hf_config(
        R"({"model_type":"llama","hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,)"
        R"("num_key_value_heads":2,"intermediate_size":128,"vocab_size":256})");
    (void)flopcast::compare_checkpoint(c, m);
  } catch (const flopcast::error&) {
  }
  return 0;
}
