#pragma once
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "flopcast/flopcast.hpp"

namespace test {

using json = nlohmann::json;

inline std::string read_text(const std::string& relative) {
  std::ifstream in(std::string(FLOPCAST_SOURCE_DIR) + "/" + relative, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + relative);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The estimate of a request (same JSON the WASM API takes), parsed back.
inline json run(const json& request) { return json::parse(flopcast::estimate_json(request.dump())); }

inline const flopcast::model_spec& model(const std::string& name) { return flopcast::find_model(name).spec; }

// A small Llama-style config to vary one field at a time.
inline json llama_config(int kv_heads = 32) {
  return {{"model_type", "llama"},
          {"hidden_size", 4096},
          {"num_hidden_layers", 32},
          {"num_attention_heads", 32},
          {"num_key_value_heads", kv_heads},
          {"intermediate_size", 11008},
          {"vocab_size", 32000},
          {"tie_word_embeddings", false}};
}

inline flopcast::model_spec spec(const json& config) { return flopcast::read_hf_config(config.dump()); }

// a and b agree to a relative tolerance.
inline bool close_to(double a, double b, double rel) {
  return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

// The flopcast::error fn throws (a logic_error, which fails the test, when it throws none).
template <class F>
flopcast::error error_of(F&& fn) {
  try {
    fn();
  } catch (const flopcast::error& e) {
    return e;
  }
  throw std::logic_error("expected a flopcast::error");
}

// The pointer of the flopcast::error f throws ("" when it throws none).
template <class F>
std::string pointer_of(F&& f) {
  try {
    f();
  } catch (const flopcast::error& e) {
    return e.pointer();
  }
  return "";
}

// A minimal valid engine profile (data/engines schema) to break one field at a time; its one
// device class is NVIDIA GPUs.
inline json engine_profile_fixture() {
  return {{"engine", "test-engine"},
          {"name", "Test engine"},
          {"aliases", {"te"}},
          {"repository", "example/test-engine"},
          {"version", "1.0"},
          {"batching", "continuous"},
          {"kv_cache", "paged"},
          {"runs_on",
           {{"devices", {{{"vendor", "NVIDIA"}, {"kinds", {"gpu"}}}}},
            {"source", {{"url", "https://example.org/install"}, {"quote", "NVIDIA GPUs"}}}}},
          {"defaults",
           {{"block_size",
             {{"value", 16},
              {"source",
               {{"url", "https://example.org/config.py"},
                {"path", "config.py"},
                {"commit", "0123456789abcdef0123456789abcdef01234567"},
                {"quote", "block_size: int = 16"}}}}}}},
          {"efficiency", {{"fitted", false}}}};
}

// A bad profile raises an error with this code at this JSON pointer.
inline void require_profile_error(const json& profile, flopcast::error_code code, const std::string& pointer) {
  try {
    (void)flopcast::parse_engine_profile(profile.dump());
    FAIL("expected an error at " << pointer);
  } catch (const flopcast::error& e) {
    INFO(e.what());
    CHECK(e.code() == code);
    CHECK(e.pointer() == pointer);
  }
}

}  // namespace test
