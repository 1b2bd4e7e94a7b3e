// The streaming result writer (core/src/base/json_out.hpp): every document it writes is the text
// nlohmann's dump() would write for the same values (so the layout, the number forms and the key
// order are what they were when the results were built as nlohmann trees), strings are escaped
// and kept valid UTF-8, and numbers read back to the same double.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <random>

#include "base/json_out.hpp"
#include "flopcast/io/plan_json.hpp"
#include "flopcast/plan/plan.hpp"
#include "helpers.hpp"

namespace {

using ordered = nlohmann::ordered_json;

// The length of the number token at text[i] (JSON number characters).
std::size_t number_length(const std::string& text, std::size_t i) {
  std::size_t n = 0;
  while (i + n < text.size() && std::strchr("-+.eE0123456789", text[i + n]) != nullptr) ++n;
  return n;
}

// Parsing a document and dumping it again with the same indent gives the same text, except that
// a number may be written with other digits for the same double (the writer's Dragonbox picks the
// shortest digits; nlohmann's grisu2 occasionally one more): such tokens must read back to the
// same double and both be floating-point or both integers.
void check_canonical(const std::string& text, int indent, const std::string& what) {
  INFO(what << " (indent " << indent << ")");
  const std::string again = ordered::parse(text).dump(indent);
  std::size_t i = 0, j = 0;
  while (i < text.size() && j < again.size()) {
    const bool in_number = (text[i] == '-' || (text[i] >= '0' && text[i] <= '9')) && i > 0 &&
                           std::strchr(":[, \n", text[i - 1]) != nullptr;
    if (in_number) {
      const std::size_t a = number_length(text, i), b = number_length(again, j);
      const std::string x = text.substr(i, a), y = again.substr(j, b);
      const auto is_float = [](const std::string& t) { return t.find_first_of(".eE") != std::string::npos; };
      if (x != y) {
        INFO("number " << x << " vs nlohmann's " << y);
        REQUIRE(is_float(x) == is_float(y));
        REQUIRE(std::strtod(x.c_str(), nullptr) == std::strtod(y.c_str(), nullptr));
      }
      i += a;
      j += b;
      continue;
    }
    if (text[i] != again[j]) {
      const std::size_t from = i > 60 ? i - 60 : 0;
      FAIL("differs at byte " << i << ":\nwriter:   " << text.substr(from, 120)
                              << "\nnlohmann: " << again.substr(from, 120));
    }
    ++i;
    ++j;
  }
  CHECK(i == text.size());
  CHECK(j == again.size());
}

}  // namespace

TEST_CASE("json_out: estimates of every bundled model read as nlohmann writes them", "[json]") {
  std::size_t checked = 0;
  for (const auto& rec : flopcast::model_records()) {
    for (const test::json& extra :
         {test::json{{"gpu", "H100"}, {"layer_table", true}, {"operator_table", true}},
          test::json{{"training", true}, {"gpu", "A100"}, {"batch_size", 4}, {"parallelism", {{"data_parallel", 2}}}},
          test::json{{"precision", "int4"}}}) {
      test::json request = extra;
      request["model"] = rec.id;
      for (int indent : {-1, 2}) {
        check_canonical(flopcast::estimate_json(request.dump(), indent), indent, rec.id + " " + extra.dump());
        ++checked;
      }
    }
  }
  CHECK(checked == 6 * flopcast::model_records().size());
}

TEST_CASE("json_out: every other result document reads as nlohmann writes it", "[json]") {
  const std::string base = R"("model": "llama-3-8b", "gpu": "H100")";
  const std::pair<const char*, std::string> docs[] = {
      {"compare", flopcast::compare_json(R"({"model": ["llama-3-8b", "mixtral-8x7b"], "batch_size": [1, 8]})")},
      {"throughput", flopcast::throughput_json("{" + base + R"(, "serving": {"prompt_tokens": 512}})", 2)},
      {"train", flopcast::train_json("{" + base + R"(, "training_analysis": {"lora_rank": 16}})", 2)},
      {"plan", flopcast::plan_json("{" + base + "}", 2)},
      {"simulate",
       flopcast::simulate_json("{" + base + R"(, "simulation": {"num_requests": 50, "concurrency": [4]}})", 2)},
      {"models", flopcast::models_to_json(2)},
      {"gpus", flopcast::gpus_to_json(2)},
      {"engines", flopcast::engines_to_json(2)},
      {"defaults", flopcast::defaults_json(-1)},
  };
  for (const auto& [what, text] : docs) check_canonical(text, text.find('\n') == std::string::npos ? -1 : 2, what);
}

TEST_CASE("json_out: strings are escaped and stay valid UTF-8", "[json]") {
  const std::string control = std::string("a\"b\\c\n\t\r\b\f") + '\x01' + '\x1f' + "\x7f";
  const std::string utf8 = "H\xC2\xB2O \xE2\x82\xAC \xF0\x9F\x9A\x80";  // H²O € 🚀
  flopcast::detail::json_out w;
  w.begin_array().value(control).value(utf8).value(std::string_view("bad \xFF tail \xC3")).value("").end_array();
  const std::string text = w.take();
  CHECK(text.find("\\u0001") != std::string::npos);
  CHECK(text.find("\\u001f") != std::string::npos);
  const auto back = ordered::parse(text);  // throws on invalid UTF-8
  CHECK(back[0].get<std::string>() == control);
  CHECK(back[1].get<std::string>() == utf8);
  CHECK(back[2].get<std::string>() == "bad \xEF\xBF\xBD tail \xEF\xBF\xBD");
  CHECK(back[3].get<std::string>().empty());
  // Overlong forms and UTF-16 surrogates are not UTF-8 either.
  flopcast::detail::json_out v;
  v.value(std::string_view("\xC0\xAF \xED\xA0\x80"));
  CHECK(ordered::parse(v.take()).get<std::string>() == "\xEF\xBF\xBD\xEF\xBF\xBD \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
}

TEST_CASE("json_out: numbers read back exactly and keep their kind", "[json]") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::uint64_t> bits;
  flopcast::detail::json_out w;
  std::vector<double> values{0.0, -0.0, 1.0, 0.1, 1e-300, 5e-324, 1.7976931348623157e308, 8030261248.0, 1e15, 1e16};
  while (values.size() < 2000) {
    double d;
    const std::uint64_t b = bits(rng);
    std::memcpy(&d, &b, sizeof d);
    if (std::isfinite(d)) values.push_back(d);
  }
  w.begin_array();
  for (double d : values) w.value(d);
  w.value(std::numeric_limits<std::int64_t>::min()).value(std::numeric_limits<std::int64_t>::max());
  w.end_array();
  const auto back = ordered::parse(w.take());
  REQUIRE(back.size() == values.size() + 2);
  for (std::size_t i = 0; i < values.size(); ++i) {
    INFO(values[i]);
    CHECK(back[i].is_number_float());  // 8030261248.0 stays a double, not an integer
    CHECK(back[i].get<double>() == values[i]);
  }
  CHECK(back[values.size()].get<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  CHECK(back[values.size() + 1].get<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
}

TEST_CASE("json_out: empty containers and nesting in both layouts", "[json]") {
  for (int indent : {-1, 0, 2, 4}) {
    flopcast::detail::json_out w(indent);
    w.begin_object().field("a", 1).array("empty", [] {}).object("none", [] {});
    w.object("nested", [&] {
      w.array("list", [&] { w.value(true).value(nullptr).begin_object().field("x", 0.5).end_object(); });
    });
    w.field("optional", std::optional<double>{}).field("text", "t").end_object();
    check_canonical(w.take(), indent, "hand-built document");
  }
}
