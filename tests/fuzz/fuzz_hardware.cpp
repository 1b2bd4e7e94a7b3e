// Fuzz target: the accelerator reader, flopcast::read_hardware(text). A GPU it accepts must
// write back (hardware_to_json) to a record it reads again, and run an estimate and a serving
// analysis of a small registry model with finite figures (flopcast::error aside).
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  flopcast::hardware_spec gpu;
  try {
    gpu = flopcast::read_hardware(fuzz::text_of(data, size));
  } catch (const flopcast::error&) {
    return 0;
  }
  // A flopcast::error here escapes: the writer's own output must read back.
  (void)flopcast::read_hardware(flopcast::hardware_to_json(gpu));
  static const flopcast::model_spec& model = flopcast::find_model("qwen2.5-0.5b").spec;
  try {
    flopcast::settings s;
    s.sequence_length = 512;
    s.num_generated_tokens = 16;
    fuzz::check_estimate(flopcast::estimate(model, s, &gpu));
  } catch (const flopcast::error&) {
  }
  try {
    flopcast::serving_settings s;
    const flopcast::serving_result r = flopcast::serve(model, s, gpu);
    if (r.fits) {
      fuzz::finite(r.output_tokens_per_second, "serve.output_tokens_per_second");
      fuzz::finite(r.ttft_s, "serve.ttft_s");
      fuzz::finite(r.tpot_s, "serve.tpot_s");
    }
  } catch (const flopcast::error&) {
  }
  return 0;
}
