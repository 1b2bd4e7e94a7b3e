// report_json: its series are the compare rows of the same points, its estimate is the
// estimate of the request, and the serving curve is there only when asked.
#include <catch2/catch.hpp>

#include "helpers.hpp"

namespace {

using test::json;

json report(const json& request) { return json::parse(flopcast::report_json(request.dump())); }
json compare(const json& request) { return json::parse(flopcast::compare_json(request.dump())); }

const json report_base = {{"model", "llama-3-8b"}, {"gpu", "H100-SXM"}, {"batch_size", 4}, {"sequence_length", 1024}};

json with(json request, const char* key, const json& value) {
  request[key] = value;
  return request;
}

}  // namespace

TEST_CASE("report: the estimate and its row are the request's", "[report]") {
  const json r = report(report_base);
  CHECK(r.at("estimate") == test::run(with(report_base, "layer_table", true)));
  // The row is the request's compare row; the layer table is there (one row per layer: 32 for Llama 3 8B).
  CHECK(r.at("row") == compare(report_base).at(0));
  CHECK(r.at("estimate").at("details").at("flops").at("layers").size() == 32);
  CHECK(r.at("fields") == json::parse(flopcast::defaults_json()).at("row_fields"));
}

TEST_CASE("report: each series is the compare of the same points", "[report]") {
  const json r = report(report_base);
  const json& s = r.at("series");
  const std::vector<std::int64_t> batches{1, 2, 4, 8, 16, 32, 64, 128, 256};
  CHECK(s.at("batch_size").at("values") == json(batches));
  CHECK(s.at("batch_size").at("rows") == compare(with(report_base, "batch_size", batches)));
  const std::vector<std::int64_t> seqs{128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
  CHECK(s.at("sequence_length").at("values") == json(seqs));
  CHECK(s.at("sequence_length").at("rows") == compare(with(report_base, "sequence_length", seqs)));
  CHECK(json(flopcast::report_batch_sizes()) == json(batches));
  CHECK(json(flopcast::report_sequence_lengths()) == json(seqs));
  // Every format the core knows (defaults' precisions), each row that precision's compare row.
  const json defaults = json::parse(flopcast::defaults_json());
  json names = json::array();
  for (const json& p : defaults.at("precisions")) names.push_back(p.at("name"));
  CHECK(s.at("precision").at("values") == names);
  CHECK(s.at("precision").at("rows") == compare(with(report_base, "precision", names)));
  for (const json& row : s.at("batch_size").at("rows")) CHECK(row.at("sequence_length") == 1024);
}

TEST_CASE("report: points the core rejects are left out, the rest kept", "[report]") {
  // Training refuses the weight-only and integer formats: each value kept estimates on its own,
  // each left out is refused on its own.
  const json train = with(report_base, "training", true);
  const json r = report(train);
  const json& s = r.at("series").at("precision");
  json kept = s.at("values");
  REQUIRE(kept.size() >= 2);
  const json defaults = json::parse(flopcast::defaults_json());
  for (const json& p : defaults.at("precisions")) {
    const bool in = std::find(kept.begin(), kept.end(), p.at("name")) != kept.end();
    bool ok = true;
    try {
      (void)flopcast::estimate_json(with(train, "precision", p.at("name")).dump());
    } catch (const flopcast::error&) {
      ok = false;
    }
    CHECK(in == ok);
  }
  CHECK(std::find(kept.begin(), kept.end(), "int4") == kept.end());
  CHECK(s.at("rows") == compare(with(train, "precision", kept)));
}

TEST_CASE("report: the roofline points are prefill's and the first decode step's", "[report]") {
  const json r = report(report_base);
  const json& f = r.at("estimate").at("details").at("performance");
  const json& roof = r.at("roofline");
  CHECK(roof.at("peak_flops_per_s") == f.at("peak_flops_per_s"));
  CHECK(roof.at("ridge_intensity").get<double>() ==
        Approx(f.at("peak_flops_per_s").get<double>() / f.at("memory_bandwidth_bytes_per_s").get<double>()));
  REQUIRE(roof.at("points").size() == 2);
  CHECK(roof.at("points").at(0).at("intensity").get<double>() ==
        Approx(f.at("prefill_flops").get<double>() / f.at("prefill_bytes").get<double>()));
  // Decode at batch 4 reads every weight once per step: far below the ridge (memory-bound).
  CHECK(roof.at("points").at(1).at("intensity").get<double>() < roof.at("ridge_intensity").get<double>());
  CHECK(report(with(report_base, "gpu", nullptr)).at("roofline").is_null());
}

TEST_CASE("report: the serving curve only when asked", "[report]") {
  CHECK(report(report_base).at("serving").is_null());
  CHECK(report(with(report_base, "report", {{"serving", false}})).at("serving").is_null());
  const json r = report(with(report_base, "report", {{"serving", true}}));
  const json& sv = r.at("serving");
  REQUIRE(sv.is_object());
  const json sim = {
      {"model", "llama-3-8b"},
      {"gpu", "H100-SXM"},
      {"simulation", {{"concurrency", {1, 2, 4, 8, 16, 32, 64, 128}}, {"input_tokens", 1024}, {"output_tokens", 128}}}};
  CHECK(sv == json::parse(flopcast::simulate_json(sim.dump())));
  CHECK(sv.at("points").size() == flopcast::report_concurrencies().size());
}

TEST_CASE("report: a bad report part is an error at its pointer", "[report]") {
  const auto fails = [](const json& request, flopcast::error_code code, const std::string& pointer) {
    try {
      (void)flopcast::report_json(request.dump());
      FAIL("no error for " << request.dump());
    } catch (const flopcast::error& e) {
      CHECK(e.code() == code);
      CHECK(e.pointer() == pointer);
    }
  };
  fails(with(report_base, "report", {{"serving", "yes"}}), flopcast::error_code::config_type, "/report/serving");
  fails(with(report_base, "report", {{"servings", true}}), flopcast::error_code::invalid_argument, "/report/servings");
  fails(with(report_base, "report", 1), flopcast::error_code::config_type, "/report");
  fails(with(report_base, "batch_size", 0), flopcast::error_code::config_range, "/batch_size");
  fails(with(with(report_base, "gpu", nullptr), "report", {{"serving", true}}), flopcast::error_code::invalid_argument,
        "/gpu");
}
