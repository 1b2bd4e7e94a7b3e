// The shared bad-input fixture (tests/fixtures/bad_inputs.json): each request must fail with
// exactly the code, pointer and message the fixture gives. The CLI and WASM suites read the
// same file, so the three paths cannot drift apart.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>

#include "helpers.hpp"

namespace {

using entry = std::function<std::string(std::string_view)>;

const std::map<std::string, entry>& entries() {
  static const std::map<std::string, entry> k = {
      {"estimate", [](std::string_view r) { return flopcast::estimate_json(r); }},
      {"compare", [](std::string_view r) { return flopcast::compare_json(r); }},
      {"throughput", [](std::string_view r) { return flopcast::throughput_json(r); }},
      {"simulate", [](std::string_view r) { return flopcast::simulate_json(r); }},
      {"train", [](std::string_view r) { return flopcast::train_json(r); }},
      {"plan", [](std::string_view r) { return flopcast::plan_json(r); }},
      {"calibrate", [](std::string_view r) { return flopcast::calibrate_json(r); }},
      {"priceComparison", [](std::string_view r) { return flopcast::price_comparison_json(r, -1); }},
  };
  return k;
}

}  // namespace

TEST_CASE("bad inputs: the same code, pointer and message as the shared fixture") {
  test::json fixture = test::json::parse(test::read_text("tests/fixtures/bad_inputs.json"));
  REQUIRE(fixture.at("cases").size() >= 60);
  // FLOPCAST_WRITE_FIXTURE=1 records what the core says (for adding cases; review the diff).
  const bool write = std::getenv("FLOPCAST_WRITE_FIXTURE") != nullptr;
  for (auto& c : fixture.at("cases")) {
    const std::string name = c.at("name").get<std::string>();
    INFO(name);
    const auto it = entries().find(c.at("entry").get<std::string>());
    REQUIRE(it != entries().end());
    bool threw = false;
    try {
      (void)it->second(c.at("request").dump());
    } catch (const flopcast::error& e) {
      threw = true;
      if (write) {
        c["code"] = std::string(flopcast::to_string(e.code()));
        c["pointer"] = e.pointer();
        c["message"] = e.message();
        continue;
      }
      CHECK(std::string(flopcast::to_string(e.code())) == c.at("code").get<std::string>());
      CHECK(e.pointer() == c.at("pointer").get<std::string>());
      CHECK(e.message() == c.at("message").get<std::string>());
    }
    CHECK(threw);
  }
  if (write) {
    std::ofstream out(std::string(FLOPCAST_SOURCE_DIR) + "/tests/fixtures/bad_inputs.json");
    out << fixture.dump(1) << "\n";
  }
}
