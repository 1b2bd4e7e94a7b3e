// The registry reads each embedded record when first used (core/src/catalog/registry.cpp), indexing
// names the build wrote beside the records (cmake/embed_data.cmake). Checked against data/
// read here independently: every file's record is found under its id and aliases, the same
// object model_records() holds; the per-GPU texts the build split out of data/gpus.json read
// back to what the file's own elements read to; first uses from several threads agree.
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>
#include <thread>

#include "flopcast/io/result_json.hpp"
#include "helpers.hpp"

namespace fs = std::filesystem;

TEST_CASE("registry: every data/models file is found under its id and aliases, as model_records holds it") {
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(FLOPCAST_SOURCE_DIR) / "data/models")) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    const std::string text = test::read_text("data/models/" + entry.path().filename().string());
    const test::json file = test::json::parse(text);
    const std::string id = file.at("id").get<std::string>();
    INFO(entry.path().filename().string());
    const flopcast::model_record& r = flopcast::find_model(id);
    CHECK(r.id == id);
    CHECK(r.aliases == file.value("aliases", std::vector<std::string>{}));
    for (const auto& a : r.aliases) CHECK(&flopcast::find_model(a) == &r);
    const flopcast::model_record direct = flopcast::parse_model_record(text);
    CHECK(r.family == direct.family);
    CHECK(r.source == direct.source);
    CHECK(r.published_parameters == direct.published_parameters);
    CHECK(flopcast::count_parameters(r.spec).total == flopcast::count_parameters(direct.spec).total);
    CHECK(flopcast::count_parameters(r.spec).active == flopcast::count_parameters(direct.spec).active);
    const auto& all = flopcast::model_records();
    CHECK(std::any_of(all.begin(), all.end(), [&](const flopcast::model_record& x) { return &x == &r; }));
  }
  CHECK(files == flopcast::model_records().size());
  // Sorted by id, case-insensitively.
  const auto& all = flopcast::model_records();
  const auto key = [](const std::string& s) {
    std::string k = s;
    for (char& c : k) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return k;
  };
  for (std::size_t i = 1; i < all.size(); ++i) CHECK(key(all[i - 1].id) < key(all[i].id));
}

TEST_CASE("registry: the GPU records read back as data/gpus.json's elements do, in its order") {
  const test::json file = test::json::parse(test::read_text("data/gpus.json"));
  const auto& gpus = flopcast::gpu_records();
  REQUIRE(gpus.size() == file.at("gpus").size());
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    const test::json& element = file.at("gpus")[i];
    INFO(element.at("name").get<std::string>());
    const flopcast::hardware_spec direct = flopcast::read_hardware(element.dump());
    CHECK(gpus[i].name == direct.name);
    CHECK(gpus[i].aliases == direct.aliases);
    CHECK(gpus[i].source_note == direct.source_note);
    CHECK(flopcast::hardware_to_json(gpus[i]) == flopcast::hardware_to_json(direct));
    CHECK(&flopcast::find_gpu(direct.name) == &gpus[i]);
    for (const auto& a : direct.aliases) {
      // An alias may name an earlier record first (e.g. a family name): the first record keeps it.
      const flopcast::hardware_spec& found = flopcast::find_gpu(a);
      CHECK(&found >= &gpus[0]);
      CHECK(&found <= &gpus[i]);
    }
  }
}

TEST_CASE("registry: unknown names are suggested from the name index") {
  try {
    (void)flopcast::find_model("llama-3-8");
    FAIL("no error");
  } catch (const flopcast::error& e) {
    CHECK(e.code() == flopcast::error_code::unknown_model);
    CHECK(std::string(e.what()).find("did you mean") != std::string::npos);
  }
  const auto s = flopcast::suggest_gpus("H10");
  REQUIRE(!s.empty());
  CHECK(std::find(s.begin(), s.end(), "H100") != s.end());  // an alias of H100-SXM, one edit away
}

TEST_CASE("registry: first uses from several threads get the same records") {
  const std::vector<std::string> names{"llama-3-8b", "mixtral-8x7b", "qwen2.5-7b", "gemma-2-9b"};
  std::vector<std::vector<const void*>> seen(8);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < seen.size(); ++t)
    threads.emplace_back([&, t] {
      for (const auto& n : names) seen[t].push_back(&flopcast::find_model(n));
      seen[t].push_back(&flopcast::find_gpu("H100"));
      seen[t].push_back(&flopcast::model_records().front());
    });
  for (auto& th : threads) th.join();
  for (const auto& s : seen) CHECK(s == seen[0]);
}
