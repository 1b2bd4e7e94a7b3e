// The measured efficiency curves (data/efficiency/*.json, core/src/estimate/efficiency_curves.cpp):
// every file on disk is embedded and reads; each curve names a bundled device whose datasheet peak
// is the one its efficiencies divide by; the lookup gives back every published point exactly,
// interpolates between neighbours on the curve's axis scale, holds the end values, transfers within
// an architecture only; bad files fail naming the file and the field; the operator table carries
// the curves beside, never instead of, the estimate's figures.
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <set>
#include <string>

#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/estimate/efficiency_curves.hpp"
#include "helpers.hpp"

namespace fs = std::filesystem;

namespace {

const flopcast::hardware_spec* device_named(std::string_view name) {
  for (const flopcast::hardware_spec& g : flopcast::gpu_records())
    if (g.name == name) return &g;
  return nullptr;
}

const flopcast::device_resolver k_resolve = [](std::string_view name) { return device_named(name); };

flopcast::curve_query query_of(const flopcast::efficiency_curve& c, double x) {
  flopcast::curve_query q;
  q.op = c.op;
  q.format = c.format;
  q.variant = c.variant;
  q.x = x;
  q.fixed = c.fixed;
  return q;
}

const flopcast::efficiency_curve& curve_with_id(std::string_view source, std::string_view id) {
  for (const auto& s : flopcast::efficiency_sources())
    if (s.id == source)
      for (const auto& c : s.curves)
        if (c.id == id) return c;
  throw std::runtime_error("no curve " + std::string(id));
}

// A small valid file; the bad-file cases break one field of it.
test::json good_file() {
  return test::json::parse(R"({
    "schema": "flopcast-efficiency-curves/1",
    "id": "t",
    "source": {"title": "T", "url": "https://example.org/t", "licence": "MIT", "retrieved": "2026-12-06",
               "quotes": ["a row"]},
    "curves": [{
      "id": "c", "op": "gemm", "device": "H800-SXM", "format": "fp8", "engine": "e",
      "axis": {"name": "m", "scale": "log"}, "fixed": {"n": 4096, "k": 7168},
      "metric": "tflops", "peak": {"field": "peak_flops.fp8", "value": 1.9789e15},
      "points": [{"x": 64, "achieved": 206, "efficiency": 0.1041, "quote": "q"},
                 {"x": 4096, "achieved": 1410, "efficiency": 0.7125, "quote": "q"}]
    }]
  })");
}

std::string error_of(const test::json& j, const std::string& name = "t.json") {
  const std::string text = j.dump();
  try {
    (void)flopcast::read_efficiency_sources({{name, text}});
  } catch (const flopcast::error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("efficiency curves: every file of data/efficiency is embedded and reads", "[efficiency]") {
  std::set<std::string> on_disk;
  for (const auto& f : fs::directory_iterator(fs::path(FLOPCAST_SOURCE_DIR) / "data/efficiency"))
    if (f.path().extension() == ".json") on_disk.insert(f.path().stem().string());
  std::set<std::string> embedded;
  for (const auto& s : flopcast::efficiency_sources()) embedded.insert(s.id);
  CHECK(embedded == on_disk);
  CHECK(!embedded.empty());
  // The files on disk read the same as the embedded ones.
  for (const auto& id : on_disk) {
    const std::string text = test::read_text("data/efficiency/" + id + ".json");
    const auto again = flopcast::read_efficiency_sources({{id + ".json", text}});
    REQUIRE(again.size() == 1);
    CHECK(again[0].curves.size() > 0);
  }
}

TEST_CASE("efficiency curves: devices, peaks and bounds", "[efficiency]") {
  for (const auto& s : flopcast::efficiency_sources()) {
    CHECK(!s.url.empty());
    CHECK(!s.licence.empty());
    CHECK(!s.quotes.empty());
    for (const auto& c : s.curves) {
      INFO(s.id << " " << c.id);
      const flopcast::hardware_spec* dev = device_named(c.device);
      REQUIRE(dev != nullptr);  // a `flopcast list-gpus` name
      const auto peak = flopcast::curve_peak(*dev, c.peak_field);
      REQUIRE(peak);
      CHECK(std::abs(*peak - c.peak) <= 1e-9 * c.peak);  // the peak recorded is the record's
      for (const auto& p : c.points) {
        CHECK(p.efficiency > 0);
        CHECK(p.efficiency <= 1.05);
        const double unit = c.metric == "tflops" ? 1e12 : 1e9;
        CHECK(std::abs(p.achieved * unit / c.peak - p.efficiency) <= 5.1e-5);
        CHECK(!p.quote.empty());
      }
    }
  }
}

TEST_CASE("efficiency curves: the lookup gives back every published point exactly", "[efficiency]") {
  std::size_t points = 0;
  for (const auto& s : flopcast::efficiency_sources())
    for (const auto& c : s.curves) {
      const flopcast::hardware_spec* dev = device_named(c.device);
      REQUIRE(dev != nullptr);
      for (const auto& p : c.points) {
        INFO(s.id << " " << c.id << " x=" << p.x);
        const auto l = flopcast::lookup_efficiency(query_of(c, p.x), *dev, k_resolve);
        REQUIRE(l);
        CHECK(l->curve == c.id);
        CHECK(l->source == s.id);
        CHECK(l->how == "measured");
        CHECK(!l->clamped);
        CHECK(l->range_widening == 1.0);
        CHECK(std::abs(l->efficiency - p.efficiency) <= 1e-9 * p.efficiency);
        ++points;
      }
    }
  CHECK(points >= 30);
}

TEST_CASE("efficiency curves: between two points, on the axis scale; ends held", "[efficiency]") {
  for (const auto& s : flopcast::efficiency_sources())
    for (const auto& c : s.curves) {
      const flopcast::hardware_spec* dev = device_named(c.device);
      REQUIRE(dev != nullptr);
      for (std::size_t i = 1; i < c.points.size(); ++i) {
        const auto& a = c.points[i - 1];
        const auto& b = c.points[i];
        INFO(s.id << " " << c.id << " between " << a.x << " and " << b.x);
        // The middle of the axis scale: log -> geometric mean, sqrt -> mean of roots.
        double mid = 0;
        switch (c.scale) {
          case flopcast::curve_scale::log:
            mid = std::sqrt(a.x * b.x);
            break;
          case flopcast::curve_scale::sqrt:
            mid = std::pow((std::sqrt(a.x) + std::sqrt(b.x)) / 2, 2);
            break;
          case flopcast::curve_scale::linear:
            mid = (a.x + b.x) / 2;
            break;
        }
        const auto l = flopcast::lookup_efficiency(query_of(c, mid), *dev, k_resolve);
        REQUIRE(l);
        CHECK(l->how == "interpolated");
        CHECK(l->efficiency >= std::min(a.efficiency, b.efficiency));
        CHECK(l->efficiency <= std::max(a.efficiency, b.efficiency));
        CHECK(l->efficiency == Approx((a.efficiency + b.efficiency) / 2).epsilon(1e-9));
      }
      // Beyond the ends: the end value, said so.
      const auto below = flopcast::lookup_efficiency(query_of(c, c.points.front().x / 4), *dev, k_resolve);
      const auto above = flopcast::lookup_efficiency(query_of(c, c.points.back().x * 4), *dev, k_resolve);
      REQUIRE(below);
      REQUIRE(above);
      CHECK(below->efficiency == c.points.front().efficiency);
      CHECK(above->efficiency == c.points.back().efficiency);
      CHECK(below->clamped);
      CHECK(above->clamped);
      CHECK(below->range_widening == 1.5);
      CHECK(above->how == "interpolated");
    }
}

TEST_CASE("efficiency curves: a sequence-length axis interpolates on its square root", "[efficiency]") {
  auto j = good_file();
  auto& c = j["curves"][0];
  c["op"] = "attention_prefill";
  c["axis"] = {{"name", "seq_len"}, {"scale", "sqrt"}};
  c["fixed"] = {{"head_dim", 128}};
  c["points"][0]["x"] = 1024;
  c["points"][1]["x"] = 16384;
  const std::string text = j.dump();
  const auto sources = flopcast::read_efficiency_sources({{"t.json", text}});
  flopcast::curve_query q;
  q.op = flopcast::kernel_op::attention_prefill;
  q.format = "fp8";
  q.x = 6400;  // sqrt: 80, halfway between 32 and 128
  const auto l = flopcast::lookup_efficiency(q, *device_named("H800-SXM"), k_resolve, sources);
  REQUIRE(l);
  CHECK(l->efficiency == Approx((0.1041 + 0.7125) / 2).epsilon(1e-12));
  CHECK(l->how == "interpolated");
  q.x = 100000;
  CHECK(flopcast::lookup_efficiency(q, *device_named("H800-SXM"), k_resolve, sources)->efficiency == 0.7125);
}

TEST_CASE("efficiency curves: the nearest published shape is read", "[efficiency]") {
  const flopcast::hardware_spec& h800 = *device_named("H800-SXM");
  flopcast::curve_query q;
  q.op = flopcast::kernel_op::gemm;
  q.format = "fp8";
  q.x = 4096;
  q.fixed = {{"n", 7168}, {"k", 16000}};  // nearest: n 7168, k 16384
  const auto l = flopcast::lookup_efficiency(q, h800, k_resolve);
  REQUIRE(l);
  CHECK(l->curve == "fp8-gemm-n7168-k16384");
  CHECK(l->how == "interpolated");  // a published M, but not the published shape
  CHECK(l->efficiency ==
        curve_with_id("deepseek-deepgemm-readme-h800-fp8", "fp8-gemm-n7168-k16384").points.back().efficiency);
}

TEST_CASE("efficiency curves: transfer within an architecture only", "[efficiency]") {
  const auto& c = curve_with_id("deepseek-deepgemm-readme-h800-fp8", "fp8-gemm-n4096-k7168");
  const double measured = c.points.back().efficiency;
  // H100-SXM: Hopper (compute capability 9.0) like the H800, the same FP8 peak.
  const auto h100 = flopcast::lookup_efficiency(query_of(c, c.points.back().x), *device_named("H100-SXM"), k_resolve);
  REQUIRE(h100);
  CHECK(h100->how == "transferred");
  CHECK(h100->device == "H800-SXM");
  CHECK(h100->efficiency == measured);
  CHECK(h100->range_widening == Approx(1.25));
  // H20: Hopper too, a far lower FP8 peak: the efficiency carries over, the range widens by the ratio.
  const flopcast::hardware_spec& h20 = *device_named("H20");
  const auto t = flopcast::lookup_efficiency(query_of(c, c.points.back().x), h20, k_resolve);
  REQUIRE(t);
  CHECK(t->how == "transferred");
  CHECK(t->efficiency == measured);
  CHECK(t->peak == *h20.peak(flopcast::precision::fp8));
  CHECK(t->range_widening == Approx(1.25 * c.peak / *h20.peak(flopcast::precision::fp8)));
  // Another architecture (Ampere, CDNA3) or another format: no curve, callers keep their own.
  CHECK_FALSE(flopcast::lookup_efficiency(query_of(c, 4096), *device_named("A100-80GB-SXM"), k_resolve));
  CHECK_FALSE(flopcast::lookup_efficiency(query_of(c, 4096), *device_named("MI300X"), k_resolve));
  auto bf16 = query_of(c, 4096);
  bf16.format = "bf16";
  CHECK_FALSE(flopcast::lookup_efficiency(bf16, *device_named("H800-SXM"), k_resolve));
  // Without a resolver nothing transfers.
  CHECK_FALSE(flopcast::lookup_efficiency(query_of(c, 4096), *device_named("H100-SXM"), {}));
  // An interconnect curve transfers by the NVLink ratio (H100's 900 GB/s against H800's 400).
  const auto& ep = curve_with_id("deepseek-deepep-legacy-readme-h800", "intranode-dispatch-ep8");
  const auto e = flopcast::lookup_efficiency(query_of(ep, 8), *device_named("H100-SXM"), k_resolve);
  REQUIRE(e);
  CHECK(e->how == "transferred");
  CHECK(e->peak == Approx(450e9));
  CHECK(e->range_widening == Approx(1.25 * 900.0 / 400.0));
}

TEST_CASE("efficiency curves: a bad file names the file and the field", "[efficiency]") {
  CHECK(error_of(good_file()).empty());
  {
    auto j = good_file();
    j["source"].erase("url");
    const std::string e = error_of(j);
    CHECK_THAT(e, Catch::Contains("data/efficiency/t.json"));
    CHECK_THAT(e, Catch::Contains("/source/url"));
  }
  {
    auto j = good_file();
    j["curves"][0]["points"][1]["efficiency"] = 0.8;  // not achieved / peak
    CHECK_THAT(error_of(j), Catch::Contains("/curves/0/points/1/efficiency") && Catch::Contains("achieved / peak"));
  }
  {
    auto j = good_file();
    j["curves"][0]["points"][1]["x"] = 64;  // not increasing
    CHECK_THAT(error_of(j), Catch::Contains("/curves/0/points/1/x"));
  }
  {
    auto j = good_file();
    j["curves"][0]["op"] = "conv";
    CHECK_THAT(error_of(j), Catch::Contains("/curves/0/op") && Catch::Contains("\"conv\""));
  }
  {
    auto j = good_file();
    j["curves"][0]["points"][1]["achieved"] = 2100;
    j["curves"][0]["points"][1]["efficiency"] = 1.0612;
    CHECK_THAT(error_of(j), Catch::Contains("/curves/0/points/1/efficiency") && Catch::Contains("at most"));
  }
  {
    auto j = good_file();
    j["curves"][0]["format"] = "fp9";
    CHECK_THAT(error_of(j), Catch::Contains("/curves/0/format"));
  }
  {
    auto j = good_file();
    j["curves"][0]["axis"]["scale"] = "cubic";
    CHECK_THAT(error_of(j), Catch::Contains("/curves/0/axis/scale"));
  }
  {
    auto j = good_file();
    j["curves"][0]["metric"] = "gbps";  // a bandwidth curve over a FLOP/s peak
    CHECK_THAT(error_of(j), Catch::Contains("/curves/0/peak/field"));
  }
  {
    auto j = good_file();
    j["source"]["repository"] = "o/r";
    j["source"]["path"] = "README.md";
    j["source"]["commit"] = "abc";
    CHECK_THAT(error_of(j), Catch::Contains("/source/commit"));
  }
  CHECK_THAT(error_of(good_file(), "other.json"),
             Catch::Contains("data/efficiency/other.json") && Catch::Contains("/id"));
  try {
    (void)flopcast::read_efficiency_sources({{"broken.json", "{\"schema\": "}});
    FAIL("no error");
  } catch (const flopcast::error& e) {
    CHECK_THAT(std::string(e.what()), Catch::Contains("data/efficiency/broken.json"));
  }
}

TEST_CASE("efficiency curves: operator rows carry the curve beside the estimate's figures", "[efficiency][operators]") {
  const test::json base = {{"model", "llama-3-8b"}, {"gpu", "H800"}, {"precision", "fp8"}, {"batch_size", 8}};
  test::json asked = base;
  asked["operator_table"] = true;
  const auto with = test::run(asked);
  const auto without = test::run(base);
  // Additive: the headline figures do not move.
  CHECK(with["details"]["performance"] == without["details"]["performance"]);
  const auto& ops = with["details"]["operators"];
  std::size_t curves = 0;
  for (const auto* pass : {&ops["prefill"], &ops["decode"]})
    for (const auto& row : *pass) {
      REQUIRE(row.contains("kernel_curve"));
      const auto& kc = row["kernel_curve"];
      if (kc.is_null()) continue;
      ++curves;
      CHECK(kc["source"] == "deepseek-deepgemm-readme-h800-fp8");
      CHECK(kc["op"] == "gemm");
      CHECK(kc["efficiency"].get<double>() > 0);
      CHECK(kc["time_s"].get<double>() > 0);
      const std::string how = kc["how"];
      CHECK((how == "measured" || how == "interpolated"));
    }
  CHECK(curves > 0);
  const auto& q = ops["prefill"][0];
  REQUIRE(q["name"] == "q_proj");
  CHECK(q["kernel_curve"]["time_s"].get<double>() ==
        Approx(q["flops"].get<double>() / (q["kernel_curve"]["efficiency"].get<double>() * 1.9789e15)));
  // bf16 on an H100: no curve covers it; every row says null.
  const auto plain = test::run({{"model", "llama-3-8b"}, {"gpu", "H100"}, {"operator_table", true}});
  for (const auto& row : plain["details"]["operators"]["prefill"]) CHECK(row["kernel_curve"].is_null());
  // fp8 on an H100: the H800's curves, transferred.
  const auto h100 =
      test::run({{"model", "llama-3-8b"}, {"gpu", "H100"}, {"precision", "fp8"}, {"operator_table", true}});
  CHECK(h100["details"]["operators"]["prefill"][0]["kernel_curve"]["how"] == "transferred");
  // Routed experts: grouped GEMMs, the contiguous layout in a prefill, the masked one in a decode step.
  const auto moe =
      test::run({{"model", "qwen3-30b-a3b"}, {"gpu", "H800"}, {"precision", "fp8"}, {"operator_table", true}});
  for (const char* pass : {"prefill", "decode"})
    for (const auto& row : moe["details"]["operators"][pass])
      if (row["name"] == "experts_gate") {
        INFO(pass);
        REQUIRE(row["kernel_curve"].is_object());
        CHECK(row["kernel_curve"]["op"] == "grouped_gemm");
        const std::string curve = row["kernel_curve"]["curve"];
        CHECK_THAT(curve, Catch::Contains(std::string(pass) == "prefill" ? "contiguous" : "masked"));
      }
  // No GPU: null.
  const auto bare = test::run({{"model", "llama-3-8b"}, {"gpu", nullptr}, {"operator_table", true}});
  for (const auto& row : bare["details"]["operators"]["prefill"]) CHECK(row["kernel_curve"].is_null());
}
