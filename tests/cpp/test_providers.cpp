// The hosted-provider catalog (data/providers/*.json, core/src/catalog/providers.cpp): every file read
// back from disk here independently; every entry names a registry model, published prices are
// positive, each figure has its source and date, ids are unique per provider; provider ids
// resolve to their model, "provider:id" is explicit, registry names win; bad records fail with a
// code and a pointer; the price comparison's arithmetic.
#include <catch2/catch.hpp>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "flopcast/base/error.hpp"
#include "flopcast/catalog/providers.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/plan/price_comparison.hpp"
#include "helpers.hpp"

namespace fs = std::filesystem;
using flopcast::error_code;

namespace {

std::string folded(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool has_date(const test::json& v) {
  if (!v.is_string()) return false;
  const std::string s = v.get<std::string>();
  return s.size() == 10 && s[4] == '-' && s[7] == '-';
}

flopcast::error_code code_of(const std::string& text) {
  try {
    (void)flopcast::parse_provider_record(text);
  } catch (const flopcast::error& e) {
    return e.code();
  }
  FAIL("no error for " << text);
  return error_code::io;
}

std::string pointer_of(const std::string& text) {
  try {
    (void)flopcast::parse_provider_record(text);
  } catch (const flopcast::error& e) {
    return e.pointer();
  }
  return "";
}

}  // namespace

TEST_CASE("providers: every data/providers file is bundled, its entries valid, sourced and dated") {
  std::size_t files = 0, entries = 0;
  std::map<std::string, std::string> bare_model;  // bare id (lower case) -> the model it serves
  for (const auto& f : fs::directory_iterator(fs::path(FLOPCAST_SOURCE_DIR) / "data/providers")) {
    if (f.path().extension() != ".json") continue;
    ++files;
    const test::json j = test::json::parse(test::read_text("data/providers/" + f.path().filename().string()));
    INFO(f.path().filename().string());
    CHECK(j.at("provider").get<std::string>() + ".json" == f.path().filename().string());
    CHECK(has_date(j.at("date")));
    CHECK(j.at("note").get<std::string>().find("change") != std::string::npos);  // says prices change
    CHECK(j.at("url").get<std::string>().rfind("https://", 0) == 0);
    std::set<std::string> ids;
    for (const auto& e : j.at("entries")) {
      ++entries;
      const std::string id = e.at("id").get<std::string>();
      INFO(id);
      CHECK(ids.insert(folded(id)).second);  // unique per provider
      const flopcast::model_record& m = flopcast::find_model(e.at("model").get<std::string>());
      CHECK(m.id == e.at("model").get<std::string>());  // names the registry id exactly
      CHECK(has_date(e.at("seen")));
      for (const char* k : {"input_usd_per_million", "output_usd_per_million", "output_tokens_per_second"})
        if (!e.at(k).is_null()) CHECK(e.at(k).get<double>() > 0);
      const auto& src = e.at("sources");
      const auto sourced = [&](const char* figure, const char* key) {
        if (!e.at(figure).is_null()) CHECK(src.at(key).get<std::string>().rfind("https://", 0) == 0);
      };
      sourced("input_usd_per_million", "price");
      sourced("output_tokens_per_second", "speed");
      sourced("context_length", "context");
      sourced("precision", "precision");
      // A figure not found is null and the note says so.
      for (const char* k : {"input_usd_per_million", "output_tokens_per_second", "context_length"})
        if (e.at(k).is_null()) CHECK(e.at("note").get<std::string>().find("not found") != std::string::npos);
      // A bare id at two providers serves the same architecture.
      const auto [it, fresh] = bare_model.emplace(folded(id), m.id);
      if (!fresh) CHECK(it->second == m.id);
      // Found as "provider:id", with the figures the file holds.
      const flopcast::provider_entry* p = flopcast::find_provider_entry(j.at("provider").get<std::string>() + ":" + id);
      REQUIRE(p != nullptr);
      CHECK(p->id == id);
      CHECK(p->input_usd_per_million.has_value() == !e.at("input_usd_per_million").is_null());
      if (p->input_usd_per_million) CHECK(*p->input_usd_per_million == e.at("input_usd_per_million").get<double>());
    }
  }
  CHECK(files == 9);
  CHECK(entries >= 35);
  std::size_t bundled = 0;
  for (const auto& r : flopcast::provider_records()) bundled += r.entries.size();
  CHECK(bundled == entries);
}

TEST_CASE("providers: provider ids resolve to their architecture; registry names win") {
  // GroqCloud's id for Llama 3.3 70B (console.groq.com/docs/models).
  CHECK(flopcast::find_model("llama-3.3-70b-versatile").id == "meta-llama/Llama-3.3-70B-Instruct");
  CHECK(flopcast::find_model("groq:llama-3.3-70b-versatile").id == "meta-llama/Llama-3.3-70B-Instruct");
  CHECK(flopcast::find_model("GROQ:Llama-3.3-70B-Versatile").id == "meta-llama/Llama-3.3-70B-Instruct");
  CHECK(flopcast::find_model("meta.llama3-3-70b-instruct-v1:0").id == "meta-llama/Llama-3.3-70B-Instruct");
  const auto* e = flopcast::provider_for_model_name("llama-3.3-70b-versatile");
  REQUIRE(e != nullptr);
  CHECK(e->provider == "groq");
  // "gpt-oss-120b" is a registry alias (and a Cerebras/SambaNova id): an ordinary model name.
  CHECK(flopcast::provider_for_model_name("gpt-oss-120b") == nullptr);
  const auto* c = flopcast::provider_for_model_name("cerebras:gpt-oss-120b");
  REQUIRE(c != nullptr);
  CHECK(c->provider == "cerebras");
  CHECK(flopcast::provider_for_model_name("sambanova:gpt-oss-120b")->provider == "sambanova");
  // A provider key that is not one, or an id the provider lacks, is unknown.
  CHECK(flopcast::find_provider_entry("groq:meta.llama3-3-70b-instruct-v1:0") == nullptr);
  CHECK(flopcast::find_provider_entry("nosuch:llama-3.3-70b-versatile") == nullptr);
  try {
    (void)flopcast::find_model("llama-3.3-70b-versatil");
    FAIL("no error");
  } catch (const flopcast::error& x) {
    CHECK(x.code() == error_code::unknown_model);
  }
  // Entries serving a model, by registry alias or by a provider id of it.
  const auto by_alias = flopcast::provider_entries("llama-3.3-70b");
  const auto by_id = flopcast::provider_entries("llama-3.3-70b-versatile");
  CHECK(by_alias.size() >= 8);
  CHECK(by_alias == by_id);
  for (const auto* x : by_alias) CHECK(flopcast::find_model(x->model).id == "meta-llama/Llama-3.3-70B-Instruct");
}

TEST_CASE("providers: bad records fail with a code and the field's pointer") {
  const std::string ok_entry = R"({"id":"a","model":"llama-3.2-1b","seen":"2026-12-01","sources":{}})";
  const auto rec = [](const std::string& entries) {
    return R"({"provider":"p","name":"P","url":"https://p","date":"2026-12-01","note":"prices change","entries":[)" +
           entries + "]}";
  };
  CHECK(flopcast::parse_provider_record(rec(ok_entry)).entries.size() == 1);
  CHECK(code_of(rec(ok_entry + "," + ok_entry)) == error_code::config_range);
  CHECK(pointer_of(rec(ok_entry + "," + ok_entry)) == "/entries/1/id");
  const std::string negative =
      R"({"id":"a","model":"m","seen":"2026-12-01","input_usd_per_million":-1,"sources":{"price":"https://x"}})";
  CHECK(code_of(rec(negative)) == error_code::config_range);
  CHECK(pointer_of(rec(negative)) == "/entries/0/input_usd_per_million");
  const std::string unsourced = R"({"id":"a","model":"m","seen":"2026-12-01","output_usd_per_million":1,"sources":{}})";
  CHECK(code_of(rec(unsourced)) == error_code::config_missing);
  CHECK(pointer_of(rec(unsourced)) == "/entries/0/sources/price");
  CHECK(pointer_of(rec(R"({"id":"a","model":"m","seen":"1 Dec","sources":{}})")) == "/entries/0/seen");
  CHECK(pointer_of(rec(R"({"model":"m","seen":"2026-12-01"})")) == "/entries/0/id");
  CHECK(pointer_of(rec(R"({"id":"a","model":"m","seen":"2026-12-01","speed":3})")) == "/entries/0/speed");
  CHECK(code_of("[]") == error_code::config_type);
}

TEST_CASE("providers: the price comparison's self-hosted cost is the GPU-hours over the busy throughput") {
  flopcast::price_comparison_request q;
  q.model = "llama-3.3-70b-versatile";
  q.gpu = "H100";
  q.utilization = 0.25;
  const test::json j = test::json::parse(flopcast::price_comparison_json(q));
  REQUIRE(j.at("fits").get<bool>());
  const double usd_per_s = j.at("gpu_cost_per_hour_usd").get<double>() * j.at("gpus").get<double>() / 3600.0;
  const double out_tps = j.at("output_tokens_per_second").get<double>();
  const double rps = j.at("requests_per_second").get<double>();
  const auto& sh = j.at("self_hosted");
  // $/1M output = $/s / (utilization x tokens/s) x 1e6; $/request = $/s / (utilization x requests/s).
  CHECK(sh.at("usd_per_million_output_tokens").get<double>() == Approx(usd_per_s / (0.25 * out_tps) * 1e6));
  CHECK(sh.at("usd_per_request").get<double>() == Approx(usd_per_s / (0.25 * rps)));
  // Half the utilisation, twice the cost per token.
  q.utilization = 0.5;
  const test::json h = test::json::parse(flopcast::price_comparison_json(q));
  CHECK(h.at("self_hosted").at("usd_per_million_output_tokens").get<double>() ==
        Approx(sh.at("usd_per_million_output_tokens").get<double>() / 2));
  // GroqCloud's request: 512 x $0.59 + 256 x $0.79 per 1M = $0.00050432 (aicost's Groq table).
  bool groq = false;
  for (const auto& p : j.at("providers"))
    if (p.at("provider") == "groq") {
      groq = true;
      CHECK(p.at("usd_per_request").get<double>() == Approx(0.00050432));
      CHECK(p.at("self_hosted_to_api_cost").get<double>() ==
            Approx(sh.at("usd_per_request").get<double>() / 0.00050432));
    }
  CHECK(groq);
  q.utilization = 0;
  CHECK_THROWS_AS(flopcast::price_comparison_json(q), flopcast::error);
  CHECK_THROWS_AS(flopcast::price_comparison_json(R"({"model":"llama-3.3-70b","utilization":2})"), flopcast::error);
  CHECK_THROWS_AS(flopcast::price_comparison_json(R"({"gpu":"H100"})"), flopcast::error);
}

TEST_CASE("providers: with a self_hosted throughput request, the self-hosted cost is the throughput command's") {
  // Issue 27 item 7: the providers panel and the serving card send the same request, so the
  // self-hosted $/1M output tokens at full utilisation is throughput's cost_per_1m_tokens_usd, and
  // at utilisation u it is that over u.
  const std::string serving = R"({"model":"llama-3-8b","gpu":"A100-80GB-SXM","precision":"bf16","engine":"vllm",)"
                              R"("serving":{"prompt_tokens":2048,"output_tokens":128,"concurrency":8}})";
  const test::json t = test::json::parse(flopcast::throughput_json(serving));
  const test::json full = test::json::parse(
      flopcast::price_comparison_json(R"({"model":"llama-3-8b","utilization":1,"self_hosted":)" + serving + "}"));
  CHECK(full.at("self_hosted").at("usd_per_million_output_tokens").get<double>() ==
        Approx(t.at("cost_per_1m_tokens_usd").get<double>()).epsilon(1e-12));
  CHECK(full.at("output_tokens_per_second").get<double>() == t.at("tokens_per_second").get<double>());
  CHECK(full.at("concurrency").get<int>() == 8);
  CHECK(full.at("prompt_tokens").get<int>() == 2048);
  CHECK(full.at("output_tokens").get<int>() == 128);
  const test::json quarter = test::json::parse(
      flopcast::price_comparison_json(R"({"model":"llama-3-8b","utilization":0.25,"self_hosted":)" + serving + "}"));
  CHECK(quarter.at("self_hosted").at("usd_per_million_output_tokens").get<double>() ==
        Approx(4 * t.at("cost_per_1m_tokens_usd").get<double>()));
  // A bad field inside the serving request is named under /self_hosted.
  try {
    (void)flopcast::price_comparison_json(
        R"({"model":"llama-3-8b","self_hosted":{"gpu":"A100","serving":{"prompt_tokens":0}}})");
    FAIL("no error");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/self_hosted/serving/prompt_tokens");
  }
  // Another model than the providers' is refused; so are the narrow fields beside self_hosted.
  try {
    (void)flopcast::price_comparison_json(R"({"model":"llama-3-8b","self_hosted":{"model":"qwen3-8b","gpu":"A100"}})");
    FAIL("no error");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/self_hosted/model");
  }
  CHECK_THROWS_AS(
      flopcast::price_comparison_json(R"({"model":"llama-3-8b","gpu":"H100","self_hosted":{"gpu":"A100"}})"),
      flopcast::error);
}
