// The shared reference cases (tests/fixtures/reference_cases.json), public sources each.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"

TEST_CASE("shared reference cases match their published values") {
  const test::json cases = test::json::parse(test::read_text("tests/fixtures/reference_cases.json"));
  REQUIRE(cases.at("cases").size() >= 6);
  for (const auto& c : cases.at("cases")) {
    test::json request = c.at("settings");
    request["model"] = c.at("model");
    const test::json result = test::run(request);
    const double got = result.at(test::json::json_pointer(c.at("field").get<std::string>())).get<double>();
    const double expected = c.at("expected").get<double>();
    const double tol = c.at("rel_tol").get<double>();
    INFO(c.at("name").get<std::string>() << ": got " << std::fixed << got << ", expected " << expected
                                         << " (source: " << c.at("source").get<std::string>() << ")");
    if (tol == 0)
      CHECK(got == expected);
    else
      CHECK(std::fabs(got - expected) <= tol * std::fabs(expected));
  }
}
