// The streaming result writer (core/src/json_out.hpp): every document it writes is the text
// nlohmann's dump() would write for the same values (so the layout, the number forms and the key
// order are what they were when the results were built as nlohmann trees), strings are escaped
// and kept valid UTF-8, and numbers read back to the same double.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "flopcast/plan.hpp"
#include "helpers.hpp"
#include "json_out.hpp"

namespace {

using ordered = nlohmann::ordered_json;

// Parsing a document and dumping it again with the same indent gives the same text.
void check_canonical(const std::string& text, int indent, const std::string& what) {
  INFO(what << " (indent " << indent << ")");
  const ordered parsed = ordered::parse(text);
  const std::string again = parsed.dump(indent);
  if (again != text) {
    std::size_t at = 0;
    while (at < text.size() && at < again.size() && text[at] == again[at]) ++at;
    const std::size_t from = at > 60 ? at - 60 : 0;
    FAIL("differs at byte " << at << ":\nwriter:   " << text.substr(from, 120)
                            << "\nnlohmann: " << again.substr(from, 120));
  }
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
