// Latency tracker, phase profiler, labels and energy counters. No timing assertions:
// latencies are recorded by hand wherever a value is checked.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "flopcast/base/error.hpp"
#include "flopcast/measure/energy.hpp"
#include "flopcast/measure/phase_profiler.hpp"
#include "flopcast/measure/tracker.hpp"

using namespace flopcast::measure;

TEST_CASE("percentiles interpolate between the nearest ranks like numpy", "[measure]") {
  const std::vector<double> v{1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  CHECK(percentile(v, 0) == 1);
  CHECK(percentile(v, 100) == 10);
  CHECK(percentile(v, 50) == Approx(5.5));
  CHECK(percentile(v, 90) == Approx(9.1));
  CHECK(percentile(v, 95) == Approx(9.55));
  CHECK(percentile(v, 99) == Approx(9.91));
  CHECK(percentile({}, 50) == 0);
  CHECK(percentile({4.0}, 99) == 4.0);
}

TEST_CASE("the tracker summarises its window: mean, stddev, percentiles, tokens/s", "[measure]") {
  latency_tracker t(100);
  for (int i = 1; i <= 10; ++i) t.record(i * 1e-3, 2);
  const latency_stats s = t.stats();
  CHECK(s.samples == 10);
  CHECK(s.total_samples == 10);
  CHECK(s.mean_s == Approx(5.5e-3));
  CHECK(s.stddev_s == Approx(3.0276503540974917e-3));
  CHECK(s.min_s == Approx(1e-3));
  CHECK(s.max_s == Approx(10e-3));
  CHECK(s.p50_s == Approx(5.5e-3));
  CHECK(s.p90_s == Approx(9.1e-3));
  CHECK(s.p99_s == Approx(9.91e-3));
  CHECK(s.window_tokens == 20);
  CHECK(s.total_tokens == 20);
  CHECK(s.tokens_per_s == Approx(20 / 55e-3));
  CHECK(t.samples().front() == Approx(1e-3));
}

TEST_CASE("the window is bounded: old samples leave the statistics, not the totals", "[measure]") {
  latency_tracker t(4);
  for (int i = 1; i <= 10; ++i) t.record(static_cast<double>(i), 1);
  CHECK(t.size() == 4);
  CHECK(t.samples() == std::vector<double>{7, 8, 9, 10});
  const auto s = t.stats();
  CHECK(s.samples == 4);
  CHECK(s.mean_s == Approx(8.5));
  CHECK(s.total_samples == 10);
  CHECK(s.total_tokens == 10);
  CHECK(s.total_s == Approx(55));
  t.reset();
  CHECK(t.stats().samples == 0);
  CHECK(t.stats().mean_s == 0);
  CHECK_THROWS_AS(latency_tracker(0), flopcast::error);
}

TEST_CASE("a scope records on exit once, with its tokens, cancel records nothing", "[measure]") {
  latency_tracker t(8);
  {
    auto s = t.time(5);
    s.set_tokens(7);
  }
  CHECK(t.total_samples() == 1);
  CHECK(t.total_tokens() == 7);
  CHECK(t.samples()[0] >= 0);
  {
    auto s = t.time(3);
    const double e = s.stop();
    CHECK(e >= 0);
    s.stop();  // once only
  }
  CHECK(t.total_samples() == 2);
  {
    auto s = t.time();
    s.cancel();
  }
  CHECK(t.total_samples() == 2);
  t.record(std::chrono::milliseconds(3), 1);
  CHECK(t.samples().back() == Approx(3e-3));
}

TEST_CASE("merge appends another tracker's window and totals", "[measure]") {
  latency_tracker a(10), b(10);
  a.record(1.0, 1);
  b.record(2.0, 3);
  b.record(3.0, 3);
  a.merge(b);
  CHECK(a.samples() == std::vector<double>{1, 2, 3});
  CHECK(a.total_tokens() == 7);
  CHECK(a.total_samples() == 3);
}

TEST_CASE("the phase profiler separates prefill from decode steps and labels every figure", "[measure]") {
  phase_profiler p(16);
  p.begin_prefill();
  p.end_prefill(128);
  p.record_kv_bytes(1000);
  for (int i = 0; i < 4; ++i) {
    auto s = p.decode_step(2);
  }
  p.record_kv_bytes(1800);
  p.add_work(phase::prefill, 1e9, 2e9, source_label::measured);
  const phase_report r = p.report();
  REQUIRE(r.ttft_s.available());
  CHECK(r.ttft_s.label == source_label::measured);
  CHECK(*r.prefill_tokens.value == 128);
  CHECK(r.decode.samples == 4);
  CHECK(r.decode.total_tokens == 8);
  CHECK(r.decode_samples_s.size() == 4);
  CHECK(r.tpot_s.label == source_label::measured);
  // 800 bytes over 8 generated tokens.
  CHECK(*r.kv_growth_bytes_per_token.value == Approx(100));
  CHECK(r.kv_growth_bytes_per_token.label == source_label::measured);
  CHECK(r.prefill_flops.label == source_label::measured);
  CHECK(*r.prefill_flops.value == 1e9);
  // No work given for decode: its FLOP/s cannot be told.
  CHECK(!r.decode_flops_per_s.available());
  CHECK(r.decode_flops_per_s.label == source_label::unavailable);
  CHECK(!r.decode_flops_per_s.note.empty());
  // Energy: measured only where counters exist; never invented.
  if (!p.energy().available()) {
    CHECK(r.prefill_energy_j.label == source_label::unavailable);
    CHECK(r.prefill_energy_j.note == p.energy().reason());
  }
}

TEST_CASE("estimated work makes a figure ESTIMATED, nothing recorded makes it unavailable", "[measure]") {
  phase_profiler p;
  const phase_report empty = p.report();
  CHECK(empty.ttft_s.label == source_label::unavailable);
  CHECK(empty.tpot_s.label == source_label::unavailable);
  CHECK(empty.kv_growth_bytes_per_token.label == source_label::unavailable);
  { auto s = p.prefill(10); }
  p.add_work(phase::prefill, 100, 0, source_label::measured);
  p.add_work(phase::prefill, 100, 0, source_label::estimated);
  const phase_report r = p.report();
  CHECK(r.prefill_flops.label == source_label::estimated);
  CHECK(*r.prefill_flops.value == 200);
  CHECK(to_string(source_label::measured) == "MEASURED");
  CHECK(to_string(source_label::estimated) == "ESTIMATED");
  CHECK(to_string(source_label::unavailable) == "unavailable");
}

TEST_CASE("energy counters: RAPL package domains read with wrap-around, absent ones reported", "[measure]") {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("flopcast-rapl-" + std::to_string(::getpid()));
  fs::remove_all(root);
  {
    const energy_meter none((root / "missing").string());
    CHECK(!none.available());
    CHECK(none.reason().find("not exposed") != std::string::npos);
    CHECK(!none.joules_between(none.read(), none.read()));
  }
  fs::create_directories(root / "intel-rapl:0");
  fs::create_directories(root / "intel-rapl:0:0");
  const auto write = [&](const fs::path& p, const std::string& v) { std::ofstream(p) << v << "\n"; };
  write(root / "intel-rapl:0" / "name", "package-0");
  write(root / "intel-rapl:0" / "energy_uj", "999000000");
  write(root / "intel-rapl:0" / "max_energy_range_uj", "1000000000");
  write(root / "intel-rapl:0:0" / "name", "core");  // a sub-domain: not added again
  write(root / "intel-rapl:0:0" / "energy_uj", "5");
  const energy_meter m(root.string());
  REQUIRE(m.available());
  const auto a = m.read();
  write(root / "intel-rapl:0" / "energy_uj", "1500000");  // wrapped: 1 J to the top, 1.5 J after
  const auto b = m.read();
  REQUIRE(m.joules_between(a, b));
  CHECK(*m.joules_between(a, b) == Approx(2.5));
  fs::remove_all(root);
}
