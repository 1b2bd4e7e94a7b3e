// Fuzz target: the calibration-store reader, flopcast::read_calibration(text). A store it
// accepts must write back (calibration_to_json) to text it reads again, to the same entries.
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<flopcast::calibration_entry> entries;
  try {
    entries = flopcast::read_calibration(fuzz::text_of(data, size), "fuzz");
  } catch (const flopcast::error&) {
    return 0;
  }
  // A flopcast::error here escapes: the writer's own output must read back.
  const auto again = flopcast::read_calibration(flopcast::calibration_to_json(entries), "round trip");
  if (again.size() != entries.size()) {
    std::fprintf(stderr, "fuzz: calibration round trip: %zu entries, then %zu\n", entries.size(), again.size());
    std::abort();
  }
  return 0;
}
