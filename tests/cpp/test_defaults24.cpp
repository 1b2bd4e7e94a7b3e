// Issue 24 items 4 and 5: defaults that predict (no engine named: the device class's engine,
// labelled, the speed of light beside it; "none": the plain roofline) and saturation as a range.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>

#include "flopcast/flopcast.hpp"

namespace {
using defaults24_json = nlohmann::json;
defaults24_json defaults24_estimate(const std::string& request) {
  return defaults24_json::parse(flopcast::estimate_json(request));
}
defaults24_json defaults24_simulate(const std::string& request) {
  return defaults24_json::parse(flopcast::simulate_json(request));
}
}  // namespace

TEST_CASE("defaults: no engine named runs the device class's engine, labelled; none is the roofline", "[defaults24]") {
  struct device_case {
    const char* gpu;
    const char* engine;
  };
  // Data-centre accelerators (HBM, NVIDIA's data-centre GDDR cards): vLLM; Apple silicon and
  // consumer cards: llama.cpp.
  for (const device_case c : {device_case{"H100", "vllm"}, device_case{"MI300X", "vllm"}, device_case{"L40S", "vllm"},
                              device_case{"RTX-4090", "llama.cpp"}, device_case{"M2-Ultra-192GB", "llama.cpp"},
                              device_case{"RX-7900-XTX", "llama.cpp"}}) {
    INFO(c.gpu);
    const auto d = defaults24_estimate(std::string(R"({"model": "llama-3-8b", "gpu": ")") + c.gpu + "\"}");
    const auto& s = d.at("details").at("settings");
    CHECK(s.at("engine") == c.engine);
    CHECK(s.at("engine_rule").get<std::string>().rfind("no engine named", 0) == 0);
    // The same figures as naming the engine, except the label.
    const auto named = defaults24_estimate(std::string(R"({"model": "llama-3-8b", "gpu": ")") + c.gpu +
                                           R"(", "engine": ")" + c.engine + "\"}");
    CHECK(named.at("details").at("settings").at("engine_rule").is_null());
    CHECK(d.at("details").at("performance").at("decode_latency_per_token_s") ==
          named.at("details").at("performance").at("decode_latency_per_token_s"));
  }
  // "none": the plain roofline, as before issue 24 (compute 0.5, memory 0.8, no fixed cost).
  const auto plain = defaults24_estimate(R"({"model": "llama-3-8b", "gpu": "H100", "engine": "none"})");
  const auto& ps = plain.at("details").at("settings");
  CHECK(ps.at("engine").is_null());
  CHECK(ps.at("engine_rule").get<std::string>().rfind("--engine none", 0) == 0);
  const auto& pp = plain.at("details").at("performance");
  const auto dflt = defaults24_estimate(R"({"model": "llama-3-8b", "gpu": "H100"})");
  const auto& dp = dflt.at("details").at("performance");
  // The engine's figure is slower than the plain roofline (its fixed costs), and neither is
  // faster than the speed of light, which both carry.
  CHECK(dp.at("decode_latency_per_token_s").get<double>() > pp.at("decode_latency_per_token_s").get<double>());
  CHECK(pp.at("speed_of_light_per_token_s") == dp.at("speed_of_light_per_token_s"));
  CHECK(pp.at("decode_latency_per_token_s").get<double>() >= pp.at("speed_of_light_per_token_s").get<double>());
  // The speed of light is the bandwidth bound of the step: weights + KV over the bandwidth.
  const double sol = dp.at("speed_of_light_per_token_s").get<double>();
  CHECK(sol < dp.at("decode_latency_per_token_s").get<double>());
  CHECK(sol == Approx(pp.at("decode_latency_per_token_s").get<double>() * 0.8).epsilon(0.02));
  // No device (the default one is A100-80GB-SXM, so vLLM; "gpu": "none" asks for no device): no engine.
  const auto none = defaults24_estimate(R"({"model": "llama-3-8b", "gpu": "none"})");
  CHECK(none.at("details").at("settings").at("engine").is_null());
}

TEST_CASE("saturation: an open-loop point near capacity says so and its TTFT range spans both regimes",
          "[defaults24]") {
  const auto at_rate = [](double rate) {
    const std::string r = std::to_string(rate);
    return defaults24_simulate(
               R"({"model": "llama-3-8b", "gpu": "H100", "engine": "vllm", "simulation": {"request_rate": )" + r +
               R"(, "num_requests": 300, "input_tokens": 1024, "output_tokens": 128, "seed": 1}})")
        .at("points")
        .at(0);
  };
  // Far below capacity: every rerun keeps up; far above it: none does; neither is near capacity.
  const auto low = at_rate(0.5);
  REQUIRE(low.at("saturation").is_object());
  CHECK(low.at("saturation").at("near_capacity") == false);
  CHECK(low.at("saturation").at("slow") == "keeps up");
  const auto high = at_rate(2000);
  CHECK(high.at("saturation").at("near_capacity") == false);
  CHECK(high.at("saturation").at("fast") == "queue grows");
  // Between them, bisect to a rate where the fast rerun keeps up and the slow one does not.
  double lo = 0.5, hi = 2000;
  defaults24_json near;
  for (int i = 0; i < 24 && near.is_null(); ++i) {
    const double mid = std::sqrt(lo * hi);
    const auto p = at_rate(mid);
    const auto& sat = p.at("saturation");
    if (sat.at("near_capacity").get<bool>())
      near = p;
    else if (sat.at("slow") == "keeps up")
      lo = mid;
    else
      hi = mid;
  }
  REQUIRE(near.is_object());
  const auto& sat = near.at("saturation");
  CHECK(sat.at("fast") == "keeps up");
  CHECK(sat.at("slow") == "queue grows");
  const double fast_ttft = sat.at("ttft_mean_s").at(0).get<double>(),
               slow_ttft = sat.at("ttft_mean_s").at(1).get<double>();
  CHECK(slow_ttft > fast_ttft);
  const auto& range = near.at("ttft_s_range");
  CHECK(range.at(0).get<double>() <= fast_ttft);
  CHECK(range.at(1).get<double>() >= slow_ttft);
  CHECK(sat.at("note").get<std::string>().find("spans both regimes") != std::string::npos);
  // A closed loop has no saturation check.
  const auto closed = defaults24_simulate(
      R"({"model": "llama-3-8b", "gpu": "H100", "simulation": {"concurrency": 4, "num_requests": 16, "input_tokens": 64, "output_tokens": 8}})");
  CHECK(closed.at("points").at(0).at("saturation").is_null());
}
