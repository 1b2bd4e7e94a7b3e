// The C++ display rules (core/src/base/format.cpp, used by the CLI) against the case table that web/src/format.js is
// checked against too (tests/cli/format.test.mjs): the two print every case alike or one fails.
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>

#include "flopcast/base/format.hpp"

using namespace flopcast::display;

namespace {
nlohmann::json cases() {
  std::ifstream in(std::string(FLOPCAST_SOURCE_DIR) + "/tests/fixtures/format_cases.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in).at("cases");
}
double value_of(const nlohmann::json& v) {
  if (v.is_null()) return std::numeric_limits<double>::quiet_NaN();  // a missing value shows "–" too
  if (v.is_number()) return v.get<double>();
  const auto s = v.get<std::string>();
  if (s == "NaN") return std::numeric_limits<double>::quiet_NaN();
  if (s == "Infinity") return HUGE_VAL;
  if (s == "-Infinity") return -HUGE_VAL;
  if (s == "-0") return -0.0;
  FAIL("unknown special value " << s);
  return 0;
}
}  // namespace

TEST_CASE("format: every case of the shared table prints as written", "[format]") {
  const auto all = cases();
  REQUIRE(all.size() > 100);
  for (const auto& c : all) {
    const std::string kind = c.at("kind");
    const std::string unit = c.value("unit", "");
    INFO(kind << " " << c.at("value").dump() << (unit.empty() ? "" : " (" + unit + ")"));
    CHECK(format_as(kind, value_of(c.at("value")), unit) == c.at("expected").get<std::string>());
  }
}

TEST_CASE("format: no rule prints -0, nan, inf or an exponent", "[format]") {
  const double values[] = {-0.0,
                           -1e-30,
                           1e-30,
                           -1e-12,
                           5e-324,
                           std::numeric_limits<double>::max(),
                           -std::numeric_limits<double>::max(),
                           1e21,
                           9007199254740994.0};
  const std::regex bad(R"(^-0(?![.,\d])|^-\$0\.00$|nan|inf|e[+-]\d)");
  for (const char* kind :
       {"flops", "bytes", "seconds", "count", "int", "rate", "percent", "usd", "joules", "grams", "number"})
    for (double v : values) {
      const std::string s = format_as(kind, v);
      INFO(kind << " " << v << ": " << s);
      CHECK_FALSE(std::regex_search(s, bad));
    }
}

TEST_CASE("format: an unknown rule is an error, not a guess", "[format]") {
  CHECK_THROWS_AS(format_as("furlongs", 1), std::invalid_argument);
  CHECK(plural(1, "child", "children") == "1 child");
  CHECK(plural(3, "child", "children") == "3 children");
}
