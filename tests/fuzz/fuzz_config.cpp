// Fuzz target: the config.json reader, flopcast::read_hf_config(text). A config it accepts
// must also count and estimate (defaults, on an A100) without anything but flopcast::error,
// and give finite figures.
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  flopcast::model_spec m;
  try {
    m = flopcast::read_hf_config(fuzz::text_of(data, size));
  } catch (const flopcast::error&) {
    return 0;
  }
  try {
    (void)flopcast::count_parameters(m);
    flopcast::settings s;
    s.sequence_length = 256;
    s.num_generated_tokens = 8;
    fuzz::check_estimate(flopcast::estimate(m, s, &flopcast::find_gpu(flopcast::default_gpu_name)));
  } catch (const flopcast::error&) {
  }
  return 0;
}
