// Architecture coverage (issue 25): data/coverage/architectures.json maps each architecture of
// vLLM's and llama.cpp's lists to the config.json model_type its checkpoints carry. Coverage is
// computed here from the families the reader knows, never typed by hand, and the README's
// figures must equal it.
#include <catch2/catch.hpp>
#include <set>

#include "helpers.hpp"

namespace {

struct coverage_count {
  int read = 0;
  int exact = 0;   // read, with a record whose published count is exact (not a rounded card figure)
  int listed = 0;  // text-generation entries (the excluded ones are outside the count)
  std::vector<std::string> missing;
  std::vector<std::string> unexplained;  // not read, with no "not_read" reason in the list
  std::vector<std::string> stale;        // read, yet still carrying a "not_read" reason
};

// A multimodal wrapper type is read when its text_config is a known family (hf_config.cpp).
bool coverage_reads_wrapper(const std::string& type) {
  test::json c = {{"model_type", type}, {"text_config", test::llama_config()}};
  try {
    return flopcast::count_parameters(flopcast::read_hf_config(c.dump())).total > 0;
  } catch (const flopcast::error&) {
    return false;
  }
}

// An architecture counts as read when flopcast reads its model_type and bundles a record of it
// whose count matches a published one (the registry test checks every record's count); a
// reader without such a record is listed apart, not counted.
coverage_count coverage_of(const test::json& list) {
  const auto& types = flopcast::supported_model_types();
  const std::set<std::string> known(types.begin(), types.end());
  std::set<std::string> with_record, wrapper_families, exact_types;
  for (const auto& r : flopcast::model_records())
    if (r.published_parameters > 0) {
      with_record.insert(r.spec.model_type);
      wrapper_families.insert(r.family);  // a wrapper's record names the wrapper type as its family
      if (r.published_significant_digits == 0) {
        exact_types.insert(r.spec.model_type);
        exact_types.insert(r.family);
      }
    }
  coverage_count c;
  for (const auto& e : list.at("entries")) {
    if (e.contains("excluded")) continue;
    ++c.listed;
    const std::string type = e.at("model_type").get<std::string>();
    const bool wrapper = e.value("read_through", std::string()) == "text_config";
    const bool reads = known.count(type) > 0 || (wrapper && coverage_reads_wrapper(type));
    const bool recorded =
        wrapper ? wrapper_families.count(type) > 0 : with_record.count(e.value("record_type", type)) > 0;
    const std::string name = e.at("name").get<std::string>();
    if (reads && recorded) {
      ++c.read;
      if (exact_types.count(wrapper ? type : e.value("record_type", type)) > 0) ++c.exact;
      if (e.contains("not_read")) c.stale.push_back(name);
    } else {
      c.missing.push_back(name + " (" + type + (reads ? ", no record" : "") + ")" +
                          (e.contains("not_read") ? ": " + e.at("not_read").get<std::string>() : ""));
      if (e.value("not_read", std::string()).size() < 20) c.unexplained.push_back(name);
    }
  }
  return c;
}

}  // namespace

TEST_CASE("coverage: the README's figures are the ones the reader achieves") {
  const test::json doc = test::json::parse(test::read_text("data/coverage/architectures.json"));
  const std::string readme = test::read_text("README.md");
  REQUIRE(doc.at("lists").size() == 2);
  for (const auto& list : doc.at("lists")) {
    const coverage_count c = coverage_of(list);
    std::string missing;
    for (const auto& m : c.missing) missing += "\n  " + m;
    INFO(list.at("id").get<std::string>()
         << ": " << c.read << " of " << c.listed << " (" << c.exact << " exact); not read:" << missing);
    CHECK(c.listed > 100);  // the whole list, not a chosen part of it
    // The README row of this list names the list's commit and gives "**N of M**".
    const std::string version = list.at("version").get<std::string>();
    const std::string commit = version.substr(version.rfind(' ') + 1, 8);
    const std::string figure = "**" + std::to_string(c.read) + " of " + std::to_string(c.listed) + "** (" +
                               std::to_string(c.exact) + " of them with an exact published count)";
    bool found = false;
    std::istringstream lines(readme);
    for (std::string line; std::getline(lines, line);)
      if (line.find(commit) != std::string::npos && line.find(figure) != std::string::npos) found = true;
    CHECK(found);
    // Every architecture not read says why (data/coverage/architectures.json "not_read"), and
    // one that is read carries no stale reason.
    std::string unexplained, stale;
    for (const auto& n : c.unexplained) unexplained += " " + n;
    for (const auto& n : c.stale) stale += " " + n;
    INFO("not read, without a reason:" << unexplained << "; read, with a stale reason:" << stale);
    CHECK(c.unexplained.empty());
    CHECK(c.stale.empty());
  }
}

TEST_CASE("coverage: the entries name real model types and nothing twice") {
  const test::json doc = test::json::parse(test::read_text("data/coverage/architectures.json"));
  for (const auto& list : doc.at("lists")) {
    std::set<std::string> names;
    for (const auto& e : list.at("entries")) {
      const std::string name = e.at("name").get<std::string>();
      INFO(name);
      CHECK(names.insert(name).second);
      CHECK((e.contains("excluded") != e.contains("model_type")));
      if (e.contains("excluded")) CHECK(e.at("excluded").get<std::string>().size() > 10);
    }
    CHECK(list.at("source").get<std::string>().rfind("https://github.com/", 0) == 0);
  }
}
