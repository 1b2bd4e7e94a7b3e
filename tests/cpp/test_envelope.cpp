// The physical envelope (issue 24, item 6): no engine profile predicts faster than the speed of
// light (every FLOP at the device's peak, every byte at its bandwidth, no fixed cost) or slower
// than a stated multiple of it plus the engine's own fixed step costs. Swept over every bundled
// model, a device of every class, every engine that runs there (and none), batch 1 to 256 and
// three weight formats. A fit (npm run fit) that leaves the envelope fails here.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "flopcast/flopcast.hpp"

namespace {

struct envelope_case {
  const char* device;
};

// The engine's fixed time of one step of `sequences` sequences (detail::fixed_step_s, restated
// from the profile's public fields: the envelope allows the fitted overheads on top of K x SOL).
double envelope_fixed_step(const flopcast::step_costs& c, double layers, double sequences) {
  return c.per_step_s + c.per_sequence_s * sequences +
         layers * (c.per_layer_s + c.launches_per_layer * c.per_kernel_launch_s);
}

}  // namespace

TEST_CASE("envelope: every engine stays between the speed of light and a stated multiple of it", "[envelope]") {
  using flopcast::engine_envelope_slowdown;
  // A device of each class: NVIDIA HBM (Hopper), AMD HBM, NVIDIA data-centre GDDR, a consumer
  // NVIDIA card, a consumer AMD card, Apple silicon, an NVIDIA SoC.
  const std::vector<const char*> devices = {"H100",        "MI300X",         "L40S", "RTX-4090",
                                            "RX-7900-XTX", "M2-Ultra-192GB", "GB10"};
  const std::vector<const char*> formats = {"bf16", "fp8", "int4"};
  const std::vector<std::int64_t> batches = {1, 4, 16, 64, 256};
  std::int64_t checked = 0, skipped = 0;
  double worst_slow = 0;
  std::string worst_what;
  for (const char* dev : devices) {
    const flopcast::hardware_spec& gpu = flopcast::find_gpu(dev);
    std::vector<const flopcast::engine_profile*> engines = flopcast::engines_for(gpu);
    engines.push_back(nullptr);  // the plain roofline
    for (const flopcast::model_record& rec : flopcast::model_records()) {
      const flopcast::model_spec& m = rec.spec;
      for (const flopcast::engine_profile* e : engines) {
        for (const char* fmt : formats) {
          for (const std::int64_t b : batches) {
            flopcast::settings s;
            s.batch_size = b;
            s.sequence_length = 512;
            s.num_generated_tokens = 64;
            s.weight_precision = flopcast::parse_precision(fmt);
            if (e != nullptr) flopcast::apply_engine(*e, gpu, s);
            flopcast::estimate_result r;
            try {
              r = flopcast::estimate(m, s, &gpu);
            } catch (const flopcast::error&) {
              ++skipped;  // a format the model or device cannot take: refused, not estimated
              continue;
            }
            if (!r.has_performance) continue;
            const flopcast::performance& p = r.perf;
            // Every layer the engine steps through (an encoder-decoder's both stacks): the most
            // the fixed per-layer cost can count.
            double layers = static_cast<double>(m.num_layers);
            double grouped = 0;
            for (const flopcast::layer_group& g : m.groups) grouped += static_cast<double>(g.count);
            layers = std::max(layers, grouped);
            const double fixed = envelope_fixed_step(s.costs, layers, static_cast<double>(b));
            const std::string what = std::string(dev) + " " + rec.id + " " + (e ? e->id : "none") + " " + fmt +
                                     " batch " + std::to_string(b);
            INFO(what);
            // Never faster than the speed of light.
            REQUIRE(p.speed_of_light_prefill_s > 0);
            CHECK(p.prefill_latency_s >= p.speed_of_light_prefill_s * (1 - 1e-9));
            CHECK(p.prefill_latency_range.low >= p.speed_of_light_prefill_s * (1 - 1e-9));
            // Never slower than K x the speed of light plus the engine's fixed costs.
            CHECK(p.prefill_latency_s <= engine_envelope_slowdown * p.speed_of_light_prefill_s + fixed);
            const double slow_pre = (p.prefill_latency_s - fixed) / p.speed_of_light_prefill_s;
            if (slow_pre > worst_slow) worst_slow = slow_pre, worst_what = what + " prefill";
            if (p.decode_steps > 0) {
              REQUIRE(p.speed_of_light_per_token_s > 0);
              CHECK(p.decode_latency_per_token_s >= p.speed_of_light_per_token_s * (1 - 1e-9));
              CHECK(p.decode_latency_range.low >= p.speed_of_light_per_token_s * (1 - 1e-9));
              CHECK(p.decode_latency_per_token_s <= engine_envelope_slowdown * p.speed_of_light_per_token_s + fixed);
              CHECK(p.decode_tokens_per_second <= static_cast<double>(b) / p.speed_of_light_per_token_s * (1 + 1e-9));
              const double slow_dec = (p.decode_latency_per_token_s - fixed) / p.speed_of_light_per_token_s;
              if (slow_dec > worst_slow) worst_slow = slow_dec, worst_what = what + " decode";
            }
            ++checked;
          }
        }
      }
    }
  }
  std::printf(
      "envelope: %lld estimates inside [SOL, %g x SOL + fixed costs] (%lld refused formats); slowest %.2f x SOL: %s\n",
      static_cast<long long>(checked), engine_envelope_slowdown, static_cast<long long>(skipped), worst_slow,
      worst_what.c_str());
  CHECK(checked > 10000);
}
