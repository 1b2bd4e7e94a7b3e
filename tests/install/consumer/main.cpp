// Uses the installed flopcast package: one model's parameter count and one estimate.
// Prints {"version", "parameters", "published", "estimate"} as JSON on stdout.
#include <cstdio>
#include <exception>
#include <flopcast/flopcast.hpp>
#include <string>

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: consumer MODEL REQUEST_JSON\n");
    return 2;
  }
  try {
    const flopcast::model_record& record = flopcast::find_model(argv[1]);
    const flopcast::parameter_breakdown counts = flopcast::count_parameters(record.spec);
    const std::string estimate = flopcast::estimate_json(argv[2]);
    std::printf("{\"version\": \"%s\", \"id\": \"%s\", \"parameters\": %lld, \"published\": %lld, \"estimate\": %s}\n",
                FLOPCAST_VERSION, record.id.c_str(), static_cast<long long>(counts.total),
                static_cast<long long>(record.published_parameters), estimate.c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
