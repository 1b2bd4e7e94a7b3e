// Engine profiles (data/engines/*.json): every profile loads and validates, every default names its
// source, named defaults match the lines their sources state, and bad profiles fail with the
// field's JSON pointer.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <set>
#include <string>

#include "flopcast/base/error.hpp"
#include "flopcast/serving/engine.hpp"
#include "helpers.hpp"

namespace {

using flopcast::engine_default;
using flopcast::engine_profile;
using flopcast::error_code;

std::string lowered(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// The number as a source would write it: "0.9", "2048", "-1" ("1.0" contains "1").
std::string written(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

using test::engine_profile_fixture;

const engine_default& get(const engine_profile& p, const char* key) {
  const engine_default* d = p.find(key);
  INFO(p.id << " " << key);
  REQUIRE(d != nullptr);
  return *d;
}

}  // namespace

TEST_CASE("every engine profile file is embedded, loads and validates", "[engines]") {
  namespace fs = std::filesystem;
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(std::string(FLOPCAST_SOURCE_DIR) + "/data/engines"))
    if (entry.path().extension() == ".json") {
      ++files;
      const engine_profile p =
          flopcast::parse_engine_profile(test::read_text("data/engines/" + entry.path().filename().string()));
      CHECK(flopcast::find_engine(p.id).id == p.id);
    }
  CHECK(files == flopcast::engine_records().size());
  // The engines the validation table (data/measurements/) names, one profile each.
  std::set<std::string> ids;
  for (const auto& p : flopcast::engine_records()) ids.insert(p.id);
  CHECK(ids == std::set<std::string>{"llama.cpp", "mlx", "sglang", "tensorrt-llm", "transformers", "vllm"});
}

TEST_CASE("every engine default has a source and the source states its value", "[engines]") {
  for (const auto& p : flopcast::engine_records()) {
    CHECK_FALSE(p.defaults.empty());
    CHECK_FALSE(p.version.empty());
    // Efficiency constants only from a fit to the validation table, with whole sources held out.
    if (!p.efficiency_fitted) {
      CHECK(p.families.empty());
      CHECK(p.costs.none());
    } else {
      INFO(p.id);
      CHECK_FALSE(p.fitted_to.empty());
      for (const auto& f : p.fitted_to) CHECK(std::find(p.held_out.begin(), p.held_out.end(), f) == p.held_out.end());
      CHECK(p.fit_for(flopcast::hardware_spec{}) != nullptr);  // "all" for a device of no family
    }
    for (const auto& d : p.defaults) {
      INFO(p.id << " " << d.key << ": " << d.source.quote);
      CHECK(d.source.url.rfind("https://", 0) == 0);
      CHECK_FALSE(d.source.quote.empty());
      // A pinned source file is linked at its commit.
      if (!d.source.commit.empty()) CHECK(d.source.url.find(d.source.commit) != std::string::npos);
      if (!d.source.path.empty()) CHECK(d.source.url.find(d.source.path) != std::string::npos);
      const std::string quote = lowered(d.source.quote);
      switch (d.type) {
        case engine_default::kind::number: {
          const bool as_written = quote.find(written(d.number)) != std::string::npos;
          const bool as_percent = quote.find(written(d.number * 100) + "%") != std::string::npos;
          CHECK((as_written || as_percent));
          break;
        }
        case engine_default::kind::boolean:
          CHECK(quote.find(d.boolean ? "true" : "false") != std::string::npos);
          break;
        case engine_default::kind::text:
          CHECK(quote.find(lowered(d.text)) != std::string::npos);
          break;
        case engine_default::kind::null:
          CHECK((quote.find("none") != std::string::npos || quote.find("null") != std::string::npos));
          CHECK_FALSE(d.note.empty());
          break;
      }
    }
  }
}

TEST_CASE("engine defaults match their published sources", "[engines]") {
  // vllm/config/cache.py (0.11 series): gpu_memory_utilization default=0.9;
  // vllm/platforms/cuda.py: block_size = 16; vllm/engine/arg_utils.py: 256 seqs, 2048 / 8192 tokens.
  const engine_profile& vllm = flopcast::find_engine("vllm");
  CHECK(vllm.number("gpu_memory_utilization") == 0.9);
  CHECK(vllm.number("block_size") == 16);
  CHECK(vllm.number("max_num_seqs") == 256);
  CHECK(vllm.number("max_num_batched_tokens_api_server") == 2048);
  CHECK(vllm.number("max_num_batched_tokens_llm_class") == 8192);
  CHECK(get(vllm, "enable_chunked_prefill").boolean);
  CHECK(get(vllm, "enable_prefix_caching").boolean);
  CHECK(vllm.batching == flopcast::engine_batching::continuous);
  CHECK(vllm.kv_cache == flopcast::engine_kv_cache::paged);

  // common/common.h: n_batch = 2048, n_ubatch = 512, cache types F16, continuous batching on.
  const engine_profile& llama = flopcast::find_engine("llama.cpp");
  CHECK(llama.number("n_batch") == 2048);
  CHECK(llama.number("n_ubatch") == 512);
  CHECK(llama.number("n_ctx") == 0);
  CHECK(get(llama, "cache_type_k").text == "f16");
  CHECK(get(llama, "cont_batching").boolean);

  // SGLang server arguments: schedule policy fcfs, page size 1, max_prefill_tokens 16384.
  const engine_profile& sglang = flopcast::find_engine("sglang");
  CHECK(get(sglang, "schedule_policy").text == "fcfs");
  CHECK(sglang.number("page_size") == 1);
  CHECK(sglang.number("max_prefill_tokens") == 16384);
  CHECK(get(sglang, "mem_fraction_static").type == engine_default::kind::null);

  // TensorRT-LLM BuildConfig: max_batch_size 2048, max_num_tokens 8192; KV cache 90%, 32 tokens a block.
  const engine_profile& trt = flopcast::find_engine("trtllm");
  CHECK(trt.number("max_batch_size") == 2048);
  CHECK(trt.number("max_num_tokens") == 8192);
  CHECK(trt.number("kv_cache_free_gpu_memory_fraction") == 0.9);
  CHECK(trt.number("tokens_per_block") == 32);
  CHECK_FALSE(get(trt, "enable_chunked_prefill").boolean);

  // mlx_lm/generate.py: prefill_step_size = 2048; cache.py: KVCache.step = 256.
  const engine_profile& mlx = flopcast::find_engine("mlx-lm");
  CHECK(mlx.number("prefill_step_size") == 2048);
  CHECK(mlx.number("kv_cache_step") == 256);

  // transformers GenerationConfig: one static batch, use_cache True, num_beams 1.
  const engine_profile& hf = flopcast::find_engine("transformers");
  CHECK(hf.batching == flopcast::engine_batching::static_batch);
  CHECK(hf.kv_cache == flopcast::engine_kv_cache::dynamic);
  CHECK(get(hf, "use_cache").boolean);
  CHECK(hf.number("num_beams") == 1);
}

TEST_CASE("find_engine matches ids and aliases ignoring case and punctuation", "[engines]") {
  CHECK(flopcast::find_engine("TensorRT-LLM").id == "tensorrt-llm");
  CHECK(flopcast::find_engine("tensorrt_llm").id == "tensorrt-llm");
  CHECK(flopcast::find_engine("trtllm").id == "tensorrt-llm");
  CHECK(flopcast::find_engine("llamacpp").id == "llama.cpp");
  CHECK(flopcast::find_engine("LLAMA.CPP").id == "llama.cpp");
  CHECK(flopcast::find_engine("mlx_lm").id == "mlx");
  CHECK(flopcast::find_engine("vLLM").id == "vllm");
  CHECK(flopcast::find_engine("HF").id == "transformers");
  try {
    (void)flopcast::find_engine("tgi");
    FAIL("tgi is not a bundled engine");
  } catch (const flopcast::error& e) {
    CHECK(e.code() == error_code::invalid_argument);
    CHECK(e.pointer() == "/engine");
    CHECK(std::string(e.what()).find("\"vllm\"") != std::string::npos);
  }
  CHECK_THROWS_AS(flopcast::find_engine(""), flopcast::error);
}

TEST_CASE("a valid engine profile parses", "[engines]") {
  const engine_profile p = flopcast::parse_engine_profile(engine_profile_fixture().dump());
  CHECK(p.id == "test-engine");
  CHECK(p.number("block_size") == 16);
  CHECK(get(p, "block_size").source.commit == "0123456789abcdef0123456789abcdef01234567");
  CHECK_THROWS_AS(p.number("max_num_seqs"), flopcast::error);
}

TEST_CASE("bad engine profiles give specific errors", "[engines]") {
  using j = test::json;
  {
    j p = engine_profile_fixture();
    p["defaults"]["block_size"].erase("source");
    test::require_profile_error(p, error_code::config_missing, "/defaults/block_size/source");
  }
  {
    j p = engine_profile_fixture();
    p["defaults"]["block_size"]["source"].erase("quote");
    test::require_profile_error(p, error_code::config_missing, "/defaults/block_size/source/quote");
  }
  {
    j p = engine_profile_fixture();
    p["defaults"]["block_size"]["source"]["url"] = "http://example.org/config.py";
    test::require_profile_error(p, error_code::config_range, "/defaults/block_size/source/url");
  }
  {
    j p = engine_profile_fixture();
    p["defaults"]["block_size"]["source"]["commit"] = "abc123";
    test::require_profile_error(p, error_code::config_range, "/defaults/block_size/source/commit");
  }
  {
    j p = engine_profile_fixture();
    p["defaults"]["block_size"]["value"] = j::array({16});
    test::require_profile_error(p, error_code::config_type, "/defaults/block_size/value");
  }
  {
    j p = engine_profile_fixture();
    p["defaults"]["block_size"].erase("value");
    test::require_profile_error(p, error_code::config_missing, "/defaults/block_size/value");
  }
  {
    j p = engine_profile_fixture();
    p["defaults"]["block_size"]["value"] = nullptr;  // computed at start-up: needs a note
    test::require_profile_error(p, error_code::config_missing, "/defaults/block_size/note");
  }
  {
    j p = engine_profile_fixture();
    p["defaults"]["block_size"]["default"] = 16;
    test::require_profile_error(p, error_code::invalid_argument, "/defaults/block_size/default");
  }
  {
    j p = engine_profile_fixture();
    p["defaults"]["Block-Size"] = p["defaults"]["block_size"];
    test::require_profile_error(p, error_code::config_range, "/defaults/Block-Size");
  }
  {
    j p = engine_profile_fixture();
    p["defaults"] = j::object();
    test::require_profile_error(p, error_code::config_missing, "/defaults");
  }
  {
    j p = engine_profile_fixture();
    p["efficiency"]["costs"] = {{"per_step_s", 1e-3}};  // an unfitted constant
    test::require_profile_error(p, error_code::config_range, "/efficiency/costs");
  }
  const j fitted = {
      {"fitted", true},
      {"fitted_by", "tools/fit_engines.cpp"},
      {"fitted_to", {"a"}},
      {"held_out", {"b"}},
      {"costs", {{"per_step_s", 1e-3}, {"per_sequence_s", 0}, {"per_layer_s", 1e-5}, {"gemm_half_tokens", 64}}},
      {"families", {{"all", {{"compute_efficiency", 0.6}, {"mem_efficiency", 0.7}, {"rows", 10}}}}},
      {"bands",
       {{"prefill", {{"low", 0.8}, {"high", 1.2}, {"rows", 5}}},
        {"decode", {{"low", 0.9}, {"high", 1.1}, {"rows", 5}}},
        {"throughput", {{"low", 0.9}, {"high", 1.1}, {"rows", 5}}},
        {"ttft_load", {{"low", 0.5}, {"high", 2}, {"rows", 5}}}}}};
  {
    j p = engine_profile_fixture();
    p["efficiency"] = fitted;
    const flopcast::engine_profile e = flopcast::parse_engine_profile(p.dump());
    CHECK(e.efficiency_fitted);
    CHECK(e.costs.per_layer_s == 1e-5);
    CHECK(e.bands.ttft_load.high == 2);
    // apply_engine: the family's efficiencies where the request left defaults, origin "fitted".
    flopcast::settings s;
    s.mem_efficiency = 0.75;
    s.mem_efficiency_origin = flopcast::efficiency_origin::explicit_value;
    flopcast::apply_engine(e, flopcast::find_gpu("H100"), s);
    CHECK(s.engine == e.id);
    CHECK(s.compute_efficiency == 0.6);
    CHECK(s.compute_efficiency_origin == flopcast::efficiency_origin::fitted);
    CHECK(s.mem_efficiency == 0.75);
    CHECK(s.costs.gemm_half_tokens == 64);
  }
  {
    j p = engine_profile_fixture();
    p["efficiency"] = fitted;
    p["efficiency"].erase("fitted_to");
    test::require_profile_error(p, error_code::config_missing, "/efficiency/fitted_to");
  }
  {
    j p = engine_profile_fixture();
    p["efficiency"] = fitted;
    p["efficiency"]["families"].erase("all");
    test::require_profile_error(p, error_code::config_missing, "/efficiency/families/all");
  }
  {
    j p = engine_profile_fixture();
    p["efficiency"] = fitted;
    p["efficiency"]["families"]["all"]["compute_efficiency"] = 1.5;
    test::require_profile_error(p, error_code::config_range, "/efficiency/families/all/compute_efficiency");
  }
  {
    j p = engine_profile_fixture();
    p["efficiency"] = fitted;
    p["efficiency"]["bands"]["decode"]["low"] = 2;
    test::require_profile_error(p, error_code::config_range, "/efficiency/bands/decode");
  }
  {
    j p = engine_profile_fixture();
    p.erase("efficiency");
    test::require_profile_error(p, error_code::config_missing, "/efficiency");
  }
  {
    j p = engine_profile_fixture();
    p["batching"] = "dynamic";
    test::require_profile_error(p, error_code::config_range, "/batching");
  }
  {
    j p = engine_profile_fixture();
    p["kv_cache"] = "radix";
    test::require_profile_error(p, error_code::config_range, "/kv_cache");
  }
  {
    j p = engine_profile_fixture();
    p["repository"] = "test-engine";
    test::require_profile_error(p, error_code::config_range, "/repository");
  }
  {
    j p = engine_profile_fixture();
    p["engine"] = "Test Engine";
    test::require_profile_error(p, error_code::config_range, "/engine");
  }
  {
    j p = engine_profile_fixture();
    p.erase("version");
    test::require_profile_error(p, error_code::config_missing, "/version");
  }
  {
    j p = engine_profile_fixture();
    p["max_batch_size"] = 8;
    test::require_profile_error(p, error_code::invalid_argument, "/max_batch_size");
  }
  CHECK_THROWS_AS(flopcast::parse_engine_profile("[1, 2]"), flopcast::error);
  CHECK_THROWS_AS(flopcast::parse_engine_profile("{\"engine\": "), flopcast::error);
}
