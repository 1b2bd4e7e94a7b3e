// The suite of measurement tasks, the machine microbenchmarks and the whole measurement
// beside the estimate, on small configs. No timing assertions: figures are checked for
// presence, labels, consistency and exact counts.
#include <catch2/catch.hpp>
#include <cmath>

#include "flopcast/base/error.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/measure/machine.hpp"
#include "flopcast/measure/measure.hpp"
#include "flopcast/measure/suite.hpp"
#include "helpers.hpp"
#include "measure_helpers.hpp"

using namespace flopcast::measure;

namespace {

class counting_task final : public measure_task {
 public:
  explicit counting_task(int& runs) : runs_(runs) {}
  std::string_view name() const override { return "widgets"; }
  double weight() const override { return 3.0; }
  void run(task_context& ctx) override {
    ++runs_;
    ctx.progress(0.5, "halfway");
    ctx.log("counting");
    ctx.emit("widgets_per_s", figure::measured(42.5), "1/s", 1.5, 4);
    ctx.emit("power_w", figure::unavailable("no counters, here"), "W");
  }

 private:
  int& runs_;
};

class failing_task final : public measure_task {
 public:
  std::string_view name() const override { return "failing"; }
  void run(task_context&) override { throw flopcast::error(flopcast::error_code::invalid_argument, "/x", "bad"); }
};

}  // namespace

TEST_CASE("a new task is one class: the suite runs it, times it, and writes its rows", "[measure]") {
  int runs = 0;
  suite s;
  s.add(std::make_unique<counting_task>(runs));
  thread_pool pool(1);
  std::vector<double> fractions;
  std::vector<std::string> logs;
  const suite_result r = s.run(
      pool, [&](double f, std::string_view) { fractions.push_back(f); },
      [&](std::string_view l) { logs.emplace_back(l); });
  CHECK(runs == 1);
  REQUIRE(r.tasks.size() == 1);
  CHECK(r.tasks[0].name == "widgets");
  CHECK(r.tasks[0].wall_s >= 0);
  REQUIRE(r.metrics.size() == 2);
  CHECK(r.metrics[0].task == "widgets");
  CHECK(fractions.front() == 0);
  CHECK(fractions.back() == 1);
  CHECK(std::find(fractions.begin(), fractions.end(), 0.5) != fractions.end());
  CHECK(logs.front() == "[widgets] counting");
  CHECK(metrics_to_csv(r.metrics) ==
        "task,metric,value,unit,label,stddev,samples,note\n"
        "widgets,widgets_per_s,42.5,1/s,MEASURED,1.5,4,\n"
        "widgets,power_w,,W,unavailable,,,\"no counters, here\"\n");
  const auto j = test::json::parse(metrics_to_json(r.metrics));
  CHECK(j[0]["value"] == 42.5);
  CHECK(j[0]["label"] == "MEASURED");
  CHECK(j[0]["samples"] == 4);
  CHECK(j[1]["value"].is_null());
  CHECK(j[1]["label"] == "unavailable");
  CHECK(j[1]["note"] == "no counters, here");

  suite bad;
  bad.add(std::make_unique<failing_task>());
  CHECK_THROWS_AS(bad.run(pool), flopcast::error);
}

TEST_CASE("machine microbenchmarks give a hardware spec the estimator accepts", "[measure]") {
  thread_pool pool(2);
  const machine_peaks p = measure_machine(pool, {true});
  CHECK(p.threads == 2);
  CHECK(p.memory_total_bytes > 0);
  CHECK(p.memory_available_bytes > 0);
  CHECK(p.stream.copy > 0);
  CHECK(p.stream.triad > 0);
  CHECK(p.stream.read > 0);
  CHECK(p.stream.array_bytes >= 32 << 20);
  CHECK(p.gemm_fp32_flops_per_s > 0);
  CHECK(p.fma_fp32_flops_per_s > 0);
  CHECK(p.bandwidth_bytes_per_s() ==
        std::max({p.stream.copy, p.stream.scale, p.stream.add, p.stream.triad, p.stream.read}));
  const flopcast::hardware_spec hw = to_hardware_spec(p);
  CHECK(hw.name == "this-cpu");
  CHECK(hw.memory_bandwidth_bytes_per_s == p.bandwidth_bytes_per_s());
  CHECK(*hw.peak(flopcast::precision::fp32) == p.gemm_fp32_flops_per_s);
  CHECK(!hw.peak(flopcast::precision::bf16));
  CHECK(hw.tdp_watts == placeholder_watts_per_thread * 2);
  CHECK(hw.source_note.find("placeholder") != std::string::npos);
  flopcast::settings s;
  s.weight_precision = flopcast::precision::fp32;
  const auto r = flopcast::estimate(test::model("llama-3.2-1b"), s, &hw);
  CHECK(r.has_performance);
  CHECK(r.perf.peak_flops_per_s == p.gemm_fp32_flops_per_s);
  s.weight_precision = flopcast::precision::bf16;  // no bf16 unit: falls back to fp32, and says so
  CHECK((flopcast::estimate(test::model("llama-3.2-1b"), s, &hw).notes & flopcast::note_compute_fallback) != 0);
}

TEST_CASE("calibration reproduces the measurement it came from", "[measure]") {
  const flopcast::hardware_spec hw = to_hardware_spec(flopcast::testing::fake_machine());
  const auto& m = test::model("llama-3.2-1b");
  flopcast::settings s;
  s.weight_precision = flopcast::precision::fp32;
  s.sequence_length = 128;
  s.num_generated_tokens = 32;
  s.causal = true;
  s.compute_efficiency = s.mem_efficiency = 1;
  const auto peak = flopcast::estimate(m, s, &hw);
  REQUIRE(peak.perf.prefill_bound == flopcast::bound::compute);
  REQUIRE(peak.perf.decode_bound == flopcast::bound::memory);
  // A machine running prefill at 60% of peak and decode at 75% of the bandwidth.
  const double ttft = peak.perf.prefill_latency_s / 0.6, tpot = peak.perf.decode_latency_per_token_s / 0.75;
  const calibration_result c = calibrate_from(m, s, hw, ttft, tpot);
  CHECK(c.compute_efficiency == Approx(0.6));
  CHECK(c.mem_efficiency == Approx(0.75));
  CHECK(!c.clamped);
  s.compute_efficiency = c.compute_efficiency;
  s.mem_efficiency = c.mem_efficiency;
  const auto cal = flopcast::estimate(m, s, &hw);
  CHECK(cal.perf.prefill_latency_s == Approx(ttft));
  CHECK(cal.perf.decode_latency_per_token_s == Approx(tpot));
  // Faster than the peak: clamped to 1, and said so.
  const calibration_result fast = calibrate_from(m, s, hw, ttft, peak.perf.decode_latency_per_token_s / 2);
  CHECK(fast.mem_efficiency == 1.0);
  CHECK(fast.clamped);
  // No decode step: the memory efficiency cannot be told from this run.
  const calibration_result no_decode = calibrate_from(m, s, hw, ttft, std::nullopt);
  CHECK(no_decode.mem_efficiency == 1.0);
  CHECK(no_decode.mem_basis.find("not measurable") != std::string::npos);
}

TEST_CASE("a measurement sets measured TTFT and TPOT beside the estimate, every figure labelled", "[measure]") {
  measure_options o;
  o.prompt_tokens = 12;
  o.generated_tokens = 5;
  o.batch_size = 2;
  o.threads = 2;
  o.repetitions = 2;
  o.machine = flopcast::testing::fake_machine();
  std::vector<double> progress;
  const measure_result r =
      run_measurement(flopcast::testing::tiny_llama(), o, [&](double f, std::string_view) { progress.push_back(f); });
  CHECK(!progress.empty());
  CHECK(progress.back() == Approx(1.0));
  CHECK(std::is_sorted(progress.begin(), progress.end()));
  CHECK(r.layers == 2);
  CHECK(r.hardware.name == "this-cpu");
  CHECK(r.ttft_samples_s.size() == 2);
  CHECK(r.decode_samples_s.size() == 2);
  CHECK(r.decode_samples_s[0].size() == 4);
  CHECK(r.ttft.samples == 2);
  CHECK(r.tpot.samples == 8);
  CHECK(r.tpot.p50_s <= r.tpot.p99_s);
  // Exact work: the kernels' counts and the estimate's.
  CHECK(r.prefill_counts.flops() == r.estimate.perf.prefill_flops);
  CHECK(r.decode_first_step_counts.flops() == r.estimate.perf.decode_first_step_flops);
  const comparison_row* ttft = r.find("ttft_s");
  REQUIRE(ttft);
  CHECK(ttft->measured.label == source_label::measured);
  CHECK(ttft->estimated.label == source_label::estimated);
  CHECK(*ttft->error_pct == Approx(100.0 * (*ttft->estimated.value - r.ttft.mean_s) / r.ttft.mean_s));
  CHECK(r.find("prefill_flops")->error_pct == Approx(0.0).margin(1e-9));
  CHECK(r.find("decode_first_step_flops")->error_pct == Approx(0.0).margin(1e-9));
  CHECK(r.find("decode_first_step_bytes")->error_pct == Approx(0.0).margin(1e-9));
  CHECK(r.find("kv_growth_bytes_per_token")->error_pct == Approx(0.0).margin(1e-9));
  CHECK(*r.kv_growth_bytes_per_token.value == r.estimate.memory.kv_cache_per_token);
  // The calibration lies in (0, 1] and reproduces this run's TTFT (compute-bound prefill).
  CHECK(r.calibration.compute_efficiency > 0);
  CHECK(r.calibration.compute_efficiency <= 1);
  CHECK(r.calibration.mem_efficiency > 0);
  CHECK(r.calibration.mem_efficiency <= 1);
  // Energy: never invented.
  const comparison_row* energy = r.find("energy_j");
  REQUIRE(energy);
  if (!r.machine.rapl) CHECK(energy->measured.label == source_label::unavailable);
  CHECK(energy->estimated.note.find("placeholder") != std::string::npos);
  // KV-cache profile: one row per layer, every run's appends and attends.
  REQUIRE(r.kv.layers.size() == 2);
  CHECK(r.kv.layers[0].append_calls == 2 * 2 * (1 + 4));  // 2 runs x 2 sequences x (prefill + 4 steps)
  CHECK(r.kv.layers[0].compression_ratio() == Approx(0.5));

  // JSON: the documented keys, figures labelled.
  const auto j = test::json::parse(to_json(r));
  for (const char* k : {"flopcast_version", "model", "run", "machine", "ttft", "tpot", "comparison", "phases", "counts",
                        "kv_cache", "calibration", "tasks", "metrics", "elapsed_s"})
    CHECK(j.contains(k));
  CHECK(j["ttft"]["measured"]["label"] == "MEASURED");
  CHECK(j["ttft"]["estimated"]["label"] == "ESTIMATED");
  CHECK(j["ttft"]["error_pct"].is_number());
  CHECK(j["tpot"]["p99_s"]["label"] == "MEASURED");
  CHECK(j["tpot"]["measured"]["samples"] == 8);
  CHECK(j["phases"]["decode"]["samples_s"].size() == 2);
  CHECK(j["machine"]["tdp_watts"]["label"] == "ESTIMATED");
  CHECK(j["counts"]["prefill"]["counted"]["total"] == j["counts"]["prefill"]["estimated"]["total"]);
  CHECK(j["calibration"]["in_sample"] == true);
  std::vector<std::string> tasks;
  for (const auto& t : j["tasks"]) tasks.push_back(t["name"]);
  CHECK(tasks == std::vector<std::string>{"machine", "generate", "latency", "throughput", "kv_cache", "estimate"});
  for (const auto& m : j["metrics"]) {
    const std::string label = m["label"];
    CHECK((label == "MEASURED" || label == "ESTIMATED" || label == "unavailable"));
    if (label == "unavailable") CHECK(m["value"].is_null());
  }
  const std::string text = to_text(r);
  CHECK(text.find("| TTFT") != std::string::npos);
  CHECK(text.find("| TPOT (mean)") != std::string::npos);
  CHECK(text.find("Layer 1") != std::string::npos);
  CHECK(to_csv(r).rfind("task,metric,value,unit,label,stddev,samples,note\n", 0) == 0);
}

TEST_CASE("one generated token: TPOT is unavailable, not invented", "[measure]") {
  measure_options o;
  o.prompt_tokens = 4;
  o.generated_tokens = 1;
  o.threads = 1;
  o.repetitions = 1;
  o.machine = flopcast::testing::fake_machine();
  const measure_result r = run_measurement(flopcast::testing::tiny_llama(), o);
  CHECK(r.tpot.samples == 0);
  CHECK(r.find("tpot_s")->measured.label == source_label::unavailable);
  CHECK(!r.find("tpot_s")->error_pct);
  const auto j = test::json::parse(to_json(r));
  CHECK(j["tpot"]["measured"]["label"] == "unavailable");
  CHECK(j["tpot"]["measured"]["value"].is_null());
}

TEST_CASE("bad options and configs too large for memory fail before allocating", "[measure]") {
  const auto m = flopcast::testing::tiny_llama();
  const auto fails = [&](measure_options o, const char* field, const char* text) {
    try {
      (void)check_measurement(m, o);
      FAIL("accepted");
    } catch (const flopcast::error& e) {
      CHECK(e.pointer() == field);
      CHECK(e.message().find(text) != std::string::npos);
    }
  };
  measure_options o;
  o.machine = flopcast::testing::fake_machine();
  auto p = o;
  p.prompt_tokens = 0;
  fails(p, "/prompt_tokens", "expected an integer >= 1, but got 0");
  p = o;
  p.generated_tokens = 0;
  fails(p, "/generated_tokens", "expected an integer >= 1, but got 0");
  p = o;
  p.batch_size = -1;
  fails(p, "/batch_size", "but got -1");
  p = o;
  p.threads = -2;
  fails(p, "/threads", "but got -2");
  p = o;
  p.layers = 3;
  fails(p, "/layers", "expected an integer in [1, 2]");
  p = o;
  p.repetitions = 0;
  fails(p, "/repetitions", "but got 0");
  // Llama-2-70B in fp32 (280 GB): refused, with what would fit.
  try {
    (void)check_measurement(test::model("llama-2-70b"), o);
    FAIL("accepted");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/memory");
    CHECK(e.message().find("of memory is available on this machine") != std::string::npos);
    const bool advice = e.message().find("--layers N with N <=") != std::string::npos ||
                        e.message().find("even one layer does not fit") != std::string::npos;
    CHECK(advice);
  }
  CHECK_THROWS_AS(check_measurement(test::model("gpt2"), o), flopcast::error);
  auto ok = o;
  ok.layers = 1;
  CHECK(check_measurement(m, ok).num_layers == 1);
}
