// flopcast measure --suite (flopcast::measure::run_benchmark_suite) on a tiny config with a
// fixed machine: the task list, the statistics against their raw samples (hand arithmetic),
// every point's rows and estimates, the KV bytes per token by hand, and the JSON and CSV.
#include <catch2/catch.hpp>
#include <cmath>

#include "flopcast/base/error.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/measure/bench_suite.hpp"
#include "helpers.hpp"
#include "measure_helpers.hpp"

using namespace flopcast::measure;

TEST_CASE("suite task lists: all, a subset in order, duplicates dropped, a bad name named", "[measure-suite]") {
  const std::vector<std::string> all{"prefill", "decode", "batch", "kv_cache"};
  CHECK(parse_suite_tasks("") == all);
  CHECK(parse_suite_tasks("all") == all);
  CHECK(parse_suite_tasks("kv_cache,prefill") == std::vector<std::string>{"kv_cache", "prefill"});
  CHECK(parse_suite_tasks("decode, decode") == std::vector<std::string>{"decode"});
  try {
    (void)parse_suite_tasks("prefill,warp");
    FAIL("no error");
  } catch (const flopcast::error& e) {
    CHECK(e.code() == flopcast::error_code::invalid_argument);
    CHECK(e.pointer() == "/tasks");
    CHECK_THAT(e.message(), Catch::Contains("\"warp\"") && Catch::Contains("prefill, decode, batch, kv_cache"));
  }
  CHECK_THROWS_AS(parse_suite_tasks("prefill,"), flopcast::error);
}

TEST_CASE("suite statistics: mean, sample stddev and percentiles of the raw samples", "[measure-suite]") {
  // 2, 4, 4, 4, 5, 5, 7, 9: mean 40 / 8 = 5; squared deviations 9+1+1+1+0+0+4+16 = 32,
  // stddev sqrt(32 / 7) = 2.13809; p50 between ranks 3 and 4 (4, 5) = 4.5; p90 at rank
  // 0.9 x 7 = 6.3: 7 + 0.3 x (9 - 7) = 7.6; p99 at 6.93: 7 + 0.93 x 2 = 8.86.
  const sample_stats s = stats_of({9, 2, 4, 5, 4, 7, 4, 5});
  CHECK(s.n == 8);
  CHECK(s.samples.size() == 8);
  CHECK(s.samples[0] == 9);  // the order kept
  CHECK(s.mean == Approx(5.0));
  CHECK(s.stddev == Approx(std::sqrt(32.0 / 7.0)));
  REQUIRE(s.p50);
  CHECK(*s.p50 == Approx(4.5));
  CHECK(*s.p90 == Approx(7.6));
  CHECK(*s.p99 == Approx(8.86));
  // Under five samples: no percentiles; one sample: stddev 0.
  const sample_stats few = stats_of({1, 3});
  CHECK(few.mean == Approx(2.0));
  CHECK(few.stddev == Approx(std::sqrt(2.0)));  // (1 + 1) / 1
  CHECK_FALSE(few.p50);
  CHECK(stats_of({0.25}).stddev == 0);
}

TEST_CASE("the suite's tasks write rows with samples, statistics and both estimates", "[measure-suite]") {
  suite_options o;
  o.prompt_tokens = 40;  // lengths 16, 32, 40
  o.decode_steps = 5;
  o.max_batch = 3;  // batches 1, 2, 3
  o.repetitions = 2;
  o.threads = 1;
  o.machine = flopcast::testing::fake_machine(1);
  const auto model = flopcast::testing::tiny_llama();
  const suite_run_result r = run_benchmark_suite(model, o);
  REQUIRE(r.tasks.size() == 4);
  CHECK(r.tasks[0].name == "prefill");
  CHECK(r.layers == 2);

  const auto& prefill = r.tasks[0].points;
  REQUIRE(prefill.size() == 3);
  CHECK(prefill[0].value == 16);
  CHECK(prefill[1].value == 32);
  CHECK(prefill[2].value == 40);
  for (const auto& p : prefill) {
    CHECK(p.metric == "ttft_s");
    CHECK(p.measured.n == 2);
    REQUIRE(p.measured.samples.size() == 2);
    CHECK(p.measured.mean == Approx((p.measured.samples[0] + p.measured.samples[1]) / 2));
    CHECK(p.measured.stddev == Approx(std::fabs(p.measured.samples[0] - p.measured.samples[1]) / std::sqrt(2.0)));
    CHECK(p.measured.mean > 0);
    CHECK(p.estimated.label == source_label::estimated);
    CHECK(p.calibrated.label == source_label::estimated);
    CHECK(*p.estimated.value > 0);
  }
  // More prompt, more estimated prefill time.
  CHECK(*prefill[2].estimated.value > *prefill[0].estimated.value);

  const auto& decode = r.tasks[1].points;
  REQUIRE(decode.size() == 3);
  for (const auto& p : decode) {
    CHECK(p.parameter == "context_tokens");
    CHECK(p.measured.n == 5);
    CHECK(p.measured.p50);  // five samples: percentiles
  }

  const auto& batch = r.tasks[2].points;
  REQUIRE(batch.size() == 6);  // ttft and step at 1, 2, 3
  CHECK(batch[4].value == 3);
  CHECK(batch[4].metric == "ttft_s");

  const auto& kv = r.tasks[3].points;
  REQUIRE(kv.size() == 6);
  // fp32: 2 layers x (K + V) x 2 KV heads x 16 x 4 bytes = 512 B per token, at every length.
  CHECK(kv[0].label == "fp32");
  CHECK(kv[0].metric == "kv_bytes_per_token");
  for (double v : kv[0].measured.samples) CHECK(v == 512);
  CHECK(*kv[0].estimated.value == 512);
  REQUIRE(kv[0].growth.size() == 3);
  CHECK(kv[0].growth[2][0] == 40);
  CHECK(kv[0].growth[2][1] == 40 * 512);
  CHECK(kv[3].label == "int8");
  CHECK(kv[3].measured.mean < 512.0 / 3);  // 128 B of values and their scales
  CHECK(kv[5].metric == "attend_s");
  CHECK(kv[5].measured.n == 2);  // one mean per layer

  const auto j = test::json::parse(suite_to_json(r));
  CHECK(j["kind"] == "measure-suite");
  CHECK(j["tasks"][0]["points"][0]["measured"]["label"] == "MEASURED");
  CHECK(j["tasks"][0]["points"][0]["estimated"]["label"] == "ESTIMATED");
  CHECK(j["tasks"][0]["points"][0]["measured"]["samples"].size() == 2);
  CHECK(j["tasks"][3]["points"][0]["growth"].size() == 3);
  // CSV: a header and one row per sample.
  std::size_t samples = 0;
  for (const auto& t : r.tasks)
    for (const auto& p : t.points) samples += p.measured.samples.size();
  const std::string csv = suite_to_csv(r);
  CHECK(static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) == samples + 1);
}

TEST_CASE("suite options out of range are errors naming the field", "[measure-suite]") {
  suite_options o;
  o.machine = flopcast::testing::fake_machine(1);
  o.threads = 1;
  o.max_batch = 65;
  try {
    (void)run_benchmark_suite(flopcast::testing::tiny_llama(), o);
    FAIL("no error");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/batch_size");
  }
  o.max_batch = 2;
  o.tasks = {"nope"};
  CHECK_THROWS_AS(run_benchmark_suite(flopcast::testing::tiny_llama(), o), flopcast::error);
}
