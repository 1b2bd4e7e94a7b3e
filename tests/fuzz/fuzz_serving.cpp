// Fuzz target: the serving entry points. The first byte picks one, (byte + 2) % 4:
// '0' simulate_json, '1' plan_json, '2' report_json, '3' providers_json (the rest: a model
// name); the rest is the request text. A result must be valid JSON.
//
// The simulator's own cap (max_simulation_work, about 10 s natively) is far beyond libFuzzer's
// -timeout=10 under ASan and UBSan: a simulation request runs only when its work bound
// (simulation_work_bound, the same figure the cap compares) is at most k_fuzz_work, and is
// read and validated otherwise. A report runs without its serving curve (that simulation is
// the simulate entry's, and its size follows the report's own lengths).
#include <nlohmann/json.hpp>

#include "flopcast/serving/work_bound.hpp"
#include "fuzz_check.hpp"

namespace {

// Work units a fuzzed simulation may ask for: 1e5 units take about 0.1 s with the sanitizers.
constexpr double k_fuzz_work = 1e5;

std::string simulate(std::string_view request) {
  const flopcast::simulation_request q = flopcast::read_simulation_request(request);
  const flopcast::simulation_work w =
      flopcast::simulation_work_bound(q.at(0), q.points.size(), q.disaggregation ? &*q.disaggregation : nullptr);
  fuzz::finite(w.units, "simulation_work.units");
  if (w.units > k_fuzz_work) return "{}";
  return flopcast::simulate_json(request);
}

std::string report(std::string_view request) {
  nlohmann::json j = nlohmann::json::parse(request, nullptr, false);
  if (j.is_object() && j.contains("report") && j["report"].is_object()) {
    j["report"]["serving"] = false;
    return flopcast::report_json(j.dump());
  }
  return flopcast::report_json(request);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string_view request = fuzz::text_of(data + 1, size - 1);
  std::string out;
  try {
    switch ((data[0] + 2) % 4) {
      case 0:
        out = simulate(request);
        break;
      case 1:
        out = flopcast::plan_json(request);
        break;
      case 2:
        out = report(request);
        break;
      default:
        out = flopcast::providers_json(request);
        break;
    }
  } catch (const flopcast::error&) {
    return 0;
  }
  // Throws nlohmann::json::parse_error (escapes: a bug) if the result is not JSON.
  (void)nlohmann::json::parse(out);
  return 0;
}
