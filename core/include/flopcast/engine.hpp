#pragma once
// Serving-engine profiles (data/engines/*.json), compiled into the library: each engine's
// scheduler and KV-cache defaults as its own documentation or argument parser states them, every
// value with its source. The efficiency section stays unfitted until it is fitted to the
// validation table (data/measurements/); nothing here is a tuned constant.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace flopcast {

// How an engine batches requests: continuous (in-flight: requests join and leave every step) or
// static (one batch runs to its longest sequence).
enum class engine_batching { continuous, static_batch };
// How the KV cache is laid out: paged (fixed-size blocks), contiguous (one buffer per sequence or
// slot, allocated up front or grown in steps) or dynamic (grown by concatenation per step).
enum class engine_kv_cache { paged, contiguous, dynamic };

[[nodiscard]] std::string_view to_string(engine_batching b) noexcept;
[[nodiscard]] std::string_view to_string(engine_kv_cache k) noexcept;

// Where a default is stated: a URL (a doc page or a source file at a commit), and, for a source
// file, its path in the repository, the commit (40 hex, when pinned) and the line as written.
struct engine_source {
  std::string url;
  std::string path;
  std::string commit;
  std::string quote;
};

// One default. kind null: the engine computes it at start-up (the note says from what).
struct engine_default {
  enum class kind { number, boolean, text, null };
  std::string key;
  kind type = kind::null;
  double number = 0;
  bool boolean = false;
  std::string text;
  engine_source source;
  std::string note;
};

struct engine_profile {
  std::string id;  // "vllm", "sglang", "tensorrt-llm", "llama.cpp", "mlx", "transformers"
  std::string name;
  std::vector<std::string> aliases;
  std::string repository;  // owner/name on GitHub
  std::string version;
  std::string version_note;
  engine_batching batching = engine_batching::continuous;
  engine_kv_cache kv_cache = engine_kv_cache::paged;
  std::vector<engine_default> defaults;  // in the file's order
  // Fitted efficiency parameters; empty and fitted == false until a fit to data/measurements/.
  bool efficiency_fitted = false;
  std::string efficiency_fitted_to;
  std::map<std::string, double> efficiency;

  // The default named `key`, or nullptr.
  [[nodiscard]] const engine_default* find(std::string_view key) const noexcept;
  // The default named `key` as a number; throws flopcast::error when absent or not a number.
  [[nodiscard]] double number(std::string_view key) const;
};

// One profile as data/engines/*.json holds it. Bad fields throw flopcast::error naming the field
// by its JSON pointer ("/defaults/block_size/source/url").
[[nodiscard]] engine_profile parse_engine_profile(std::string_view json_text);

// Every bundled profile, sorted by id.
[[nodiscard]] const std::vector<engine_profile>& engine_records();

// Case-insensitive lookup by id or alias, ignoring '-', '_', '.' and spaces ("TensorRT_LLM",
// "trtllm", "llamacpp"). Unknown names throw flopcast::error(invalid_argument) listing the engines.
[[nodiscard]] const engine_profile& find_engine(std::string_view name);

}  // namespace flopcast
