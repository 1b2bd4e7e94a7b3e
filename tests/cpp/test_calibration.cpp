// Calibration and ranges.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using flopcast::efficiency_origin;

TEST_CASE("calibrating to a measured decode rate reproduces it") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& a100 = flopcast::find_gpu("A100");
  flopcast::settings s;
  s.sequence_length = 512;
  flopcast::measurement measured;
  measured.decode_tokens_per_second = 80;
  const auto e = flopcast::calibrate(m, s, a100, measured);
  REQUIRE(e.mem_efficiency);
  CHECK_FALSE(e.compute_efficiency);
  CHECK(e.model == m.name);
  CHECK(e.precision == "bf16");
  std::vector<flopcast::calibration_entry> store{e};
  flopcast::settings t = s;
  flopcast::apply_calibration(t, store, m, &a100);
  CHECK(t.mem_efficiency_origin == efficiency_origin::calibrated);
  const auto r = flopcast::estimate(m, t, &a100);
  CHECK(r.perf.decode_tokens_per_second == Approx(80).epsilon(1e-6));
  CHECK((r.notes & flopcast::note_calibrated) != 0);
  // Explicit values win.
  flopcast::settings explicit_s = s;
  explicit_s.mem_efficiency = 0.7;
  explicit_s.mem_efficiency_origin = efficiency_origin::explicit_value;
  flopcast::apply_calibration(explicit_s, store, m, &a100);
  CHECK(explicit_s.mem_efficiency == 0.7);
  // Other models on the same GPU only with a "*" entry.
  flopcast::settings other;
  flopcast::apply_calibration(other, store, test::model("mistral-7b"), &a100);
  CHECK(other.mem_efficiency_origin == efficiency_origin::default_value);
  store.push_back(flopcast::calibrate(m, s, a100, measured, true));
  flopcast::apply_calibration(other, store, test::model("mistral-7b"), &a100);
  CHECK(other.mem_efficiency_origin == efficiency_origin::calibrated);
}

TEST_CASE("calibrating TTFT sets the compute efficiency, impossible figures are refused") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& h100 = flopcast::find_gpu("H100");
  flopcast::settings s;
  flopcast::measurement ttft;
  ttft.time_to_first_token_s = 0.09;
  const auto e = flopcast::calibrate(m, s, h100, ttft);
  REQUIRE(e.compute_efficiency);
  flopcast::settings t = s;
  t.compute_efficiency = *e.compute_efficiency;
  CHECK(flopcast::estimate(m, t, &h100).perf.prefill_latency_s == Approx(0.09).epsilon(1e-6));
  flopcast::measurement too_fast;
  too_fast.decode_tokens_per_second = 1e6;
  CHECK_THROWS_WITH(flopcast::calibrate(m, s, h100, too_fast), Catch::Contains("beyond the physical ceiling"));
}

TEST_CASE("many measured rows: geometric mean per (model, gpu, precision)") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& gpu = flopcast::find_gpu("A100");
  std::vector<flopcast::measured_row> rows;
  for (double tps : {70.0, 90.0}) {
    flopcast::measured_row row{&m, &gpu, {}, {}};
    row.measured.decode_tokens_per_second = tps;
    rows.push_back(row);
  }
  const auto entries = flopcast::calibrate_rows(rows, false);
  REQUIRE(entries.size() == 1);
  flopcast::measurement a, b;
  a.decode_tokens_per_second = 70;
  b.decode_tokens_per_second = 90;
  const double ea = *flopcast::calibrate(m, {}, gpu, a).mem_efficiency,
               eb = *flopcast::calibrate(m, {}, gpu, b).mem_efficiency;
  CHECK(*entries[0].mem_efficiency == Approx(std::sqrt(ea * eb)));
}

TEST_CASE("the calibration store round-trips through JSON") {
  flopcast::calibration_entry e;
  e.model = "*";
  e.gpu = "H100-SXM";
  e.precision = "fp8";
  e.compute_efficiency = 0.42;
  e.source = "test";
  const auto back = flopcast::read_calibration(flopcast::calibration_to_json({e}));
  REQUIRE(back.size() == 1);
  CHECK(back[0].gpu == "H100-SXM");
  CHECK(*back[0].compute_efficiency == 0.42);
  CHECK_FALSE(back[0].mem_efficiency);
  CHECK_THROWS_WITH(flopcast::read_calibration(R"({"entries": [{"gpu": "A100", "mem_efficiency": 1.5}]})"),
                    "[flopcast.config.range] (/entries/0/mem_efficiency) expected a number in (0, 1], but got 1.5");
}

TEST_CASE("every latency and throughput figure carries a range around its point") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& gpu = flopcast::find_gpu("A100");
  flopcast::settings s;
  s.training = false;
  const auto r = flopcast::estimate(m, s, &gpu);
  const auto& p = r.perf;
  const auto inside = [](const flopcast::figure_range& x, double v) {
    return x.low <= v * (1 + 1e-12) && v <= x.high * (1 + 1e-12);
  };
  CHECK(inside(p.prefill_latency_range, p.prefill_latency_s));
  CHECK(inside(p.decode_latency_range, p.decode_latency_per_token_s));
  CHECK(inside(p.decode_tokens_per_second_range, p.decode_tokens_per_second));
  CHECK(inside(p.total_request_latency_range, p.total_request_latency_s));
  CHECK(inside(p.energy_total_range, p.energy_total_joules));
  CHECK(p.compute_efficiency_low == Approx(0.35));
  CHECK(p.compute_efficiency_high == Approx(0.6));
  CHECK(p.mem_efficiency_low == Approx(0.55));
  CHECK(p.mem_efficiency_high == Approx(0.9));
  // A memory-bound decode scales with the bandwidth efficiency.
  CHECK(p.decode_tokens_per_second_range.low == Approx(p.decode_tokens_per_second * 0.6875));
  CHECK(p.decode_tokens_per_second_range.high == Approx(p.decode_tokens_per_second * 1.125));
  // Calibrated: +-10%.
  s.mem_efficiency_origin = efficiency_origin::calibrated;
  const auto c = flopcast::estimate(m, s, &gpu);
  CHECK(c.perf.decode_tokens_per_second_range.low == Approx(c.perf.decode_tokens_per_second * 0.9));
  CHECK(c.perf.decode_tokens_per_second_range.high == Approx(c.perf.decode_tokens_per_second * 1.1));
}
