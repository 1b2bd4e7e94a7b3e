// Fuzz target: the request entry points. The first byte picks one, (byte + 2) % 5:
// '0' estimate_json, '1' compare_json, '2' throughput_json, '3' train_json, '4' calibrate_json;
// the rest is the request text. A result must be valid JSON.
#include <nlohmann/json.hpp>

#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view request = fuzz::text_of(data + 1, size - 1);
  std::string out;
  try {
    switch ((data[0] + 2) % 5) {
      case 0:
        out = flopcast::estimate_json(request);
        break;
      case 1:
        out = flopcast::compare_json(request);
        break;
      case 2:
        out = flopcast::throughput_json(request);
        break;
      case 3:
        out = flopcast::train_json(request);
        break;
      default:
        out = flopcast::calibrate_json(request);
        break;
    }
  } catch (const flopcast::error&) {
    return 0;
  }
  // Throws nlohmann::json::parse_error (escapes: a bug) if the result is not JSON.
  (void)nlohmann::json::parse(out);
  return 0;
}
