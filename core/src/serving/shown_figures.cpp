// The figures a simulation shows: the simulator's, corrected where a fitted engine's residual band
// excludes them (estimate.hpp band_biased). One place for the `serve` output (io/serving_json.cpp)
// and the SLO search (plan/slo_search.cpp), so a configuration the search ranks is judged on the
// figures `flopcast serve` prints for it.
#include <algorithm>

#include "flopcast/serving/engine.hpp"
#include "flopcast/serving/simulator.hpp"

namespace flopcast {

band_corrections corrections_for(const model_spec& m, const simulation_settings& s, const hardware_spec& gpu) {
  band_corrections k;
  const settings& b = s.base;
  const engine_profile* e = b.engine.empty() ? nullptr : &find_engine(b.engine);
  const engine_family_fit* fit = e != nullptr && e->efficiency_fitted ? e->fit_for(gpu) : nullptr;
  k.fitted = fit != nullptr && b.compute_efficiency_origin == efficiency_origin::fitted;
  const engine_bands& eb = b.bands;
  k.has_ttft = k.fitted && eb.ttft_load.rows > 0;
  k.has_decode = k.fitted && eb.decode.rows > 0;
  k.has_rate = k.fitted && eb.throughput.rows > 0;
  k.ttft = k.has_ttft ? band_correction(eb.ttft_load) : 1.0;
  k.decode = k.has_decode ? band_correction(eb.decode) : 1.0;
  k.rate = k.has_rate ? band_correction(eb.throughput) : 1.0;
  // A corrected TTFT stays at or above the idle prefill of the shortest prompt as estimate() shows
  // it (or the simulator's own figure where that is lower: prefix-cache hits).
  if (k.ttft != 1.0 && s.arrivals != arrival_kind::trace) {
    settings one = b;
    one.batch_size = 1;
    one.sequence_length = s.input_tokens.min;
    one.num_generated_tokens = 1;
    k.idle_prefill_s = estimate(m, one, &gpu).perf.prefill_latency_s;
  }
  return k;
}

simulation_result corrected(const simulation_result& x, const band_corrections& k) {
  simulation_result c = x;
  for (double* v : {&c.ttft.mean, &c.ttft.p50, &c.ttft.p90, &c.ttft.p99})
    *v = std::max(*v * k.ttft, std::min(*v, k.idle_prefill_s));
  for (distribution* t : {&c.tpot, &c.itl})
    t->mean *= k.decode, t->p50 *= k.decode, t->p90 *= k.decode, t->p99 *= k.decode;
  c.output_tokens_per_s /= k.rate;
  c.total_tokens_per_s /= k.rate;
  c.requests_per_s /= k.rate;
  return c;
}

}  // namespace flopcast
