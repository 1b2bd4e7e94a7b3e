// No accepted input gives NaN, an infinity or a negative figure where none can be: a sweep over
// every bundled model, several devices, precisions and sizes, inference and training. (In debug
// builds, e.g. the sanitizer suite, the JSON writer also asserts every number is finite.)
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"

namespace {

void check_figure(double v, const char* name, const std::string& where) {
  INFO(where << ": " << name << " = " << v);
  CHECK(std::isfinite(v));
  CHECK(v >= 0);
}

}  // namespace

TEST_CASE("no result holds NaN, an infinity or an impossible negative") {
  using flopcast::precision;
  const char* gpus[] = {"A100", "H100", "T4", "L4"};
  std::size_t checked = 0;
  for (const auto& rec : flopcast::model_records()) {
    for (const char* g : gpus) {
      const auto& gpu = flopcast::find_gpu(g);
      for (precision p : {precision::bf16, precision::int4, precision::fp32}) {
        for (std::int64_t batch : {1, 64}) {
          for (std::int64_t seq : {1, 4096}) {
            for (bool training : {false, true}) {
              if (training && p == precision::int4) continue;
              flopcast::settings s;
              s.weight_precision = p;
              s.batch_size = batch;
              s.sequence_length = seq;
              s.num_generated_tokens = seq == 1 ? 0 : 64;
              s.training = training;
              const auto r = flopcast::estimate(rec.spec, s, &gpu);
              const std::string where = rec.id + " on " + g;
              const auto& m = r.memory;
              for (double v : {m.weights, m.kv_cache, m.kv_cache_prompt, m.kv_cache_per_token, m.activations, m.total,
                               m.train_total, r.forward.parts.total, r.prefill.parts.total, r.decode_step.parts.total})
                check_figure(v, "memory/flops", where);
              const auto& q = r.perf;
              for (double v :
                   {q.prefill_latency_s, q.decode_total_s, q.decode_latency_per_token_s, q.decode_tokens_per_second,
                    q.total_request_latency_s, q.training_step_s, q.energy_total_joules, q.co2_grams, q.cost_usd,
                    q.prefill_latency_range.low, q.prefill_latency_range.high, q.decode_latency_range.high})
                check_figure(v, "performance", where);
              for (double v : {r.parallel.memory_per_gpu, r.parallel.prefill_latency_s, r.parallel.training_step_s})
                check_figure(v, "parallel", where);
              ++checked;
            }
          }
        }
      }
    }
    // The JSON path too (its writer asserts finiteness in debug builds).
    const auto j = test::run({{"model", rec.id}, {"gpu", "H100"}, {"num_generated_tokens", 0}});
    CHECK(j.at("parameters").get<double>() > 0);
  }
  CHECK(checked > 2000);
}
