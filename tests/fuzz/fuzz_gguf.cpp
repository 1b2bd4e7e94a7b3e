// Fuzz target: the GGUF header reader (flopcast/checkpoint.hpp). Any input is either refused
// with flopcast::error or read into tensors whose totals add up; the header size asked for
// never exceeds 64 MiB; an accepted header that maps to a config counts and estimates.
#include "flopcast/checkpoint/checkpoint.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes = fuzz::text_of(data, size);
  try {
    const std::size_t need = flopcast::checkpoint_header_bytes(bytes);
    if (need > flopcast::max_gguf_header + 8) std::abort();
  } catch (const flopcast::error&) {
  }
  flopcast::checkpoint_info c;
  try {
    c = flopcast::read_gguf(bytes, size % 2 ? static_cast<std::int64_t>(size) : -1);
  } catch (const flopcast::error&) {
    return 0;
  }
  if (c.header_bytes > static_cast<std::int64_t>(size)) std::abort();
  std::int64_t bytes_sum = 0;
  for (const auto& t : c.tensors) {
    if (t.elements < 0 || t.bytes < 0 || t.offset < 0) std::abort();
    bytes_sum += t.bytes;
  }
  if (bytes_sum != c.total_bytes) std::abort();
  fuzz::finite(c.bits_per_weight(), "bits_per_weight");
  try {
    const flopcast::model_spec m = flopcast::gguf_model_spec(c);
    (void)flopcast::compare_checkpoint(c, m);
    flopcast::settings s;
    s.sequence_length = 256;
    s.num_generated_tokens = 8;
    fuzz::check_estimate(flopcast::estimate(m, s, &flopcast::find_gpu(flopcast::default_gpu_name)));
  } catch (const flopcast::error&) {
  }
  return 0;
}
