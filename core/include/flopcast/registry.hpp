#pragma once
// The bundled model and GPU records (data/), compiled into the library.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/hardware.hpp"
#include "flopcast/model.hpp"

namespace flopcast {

struct model_record {
  std::string id;                    // Hugging Face id
  std::vector<std::string> aliases;  // short names
  std::string family;
  std::string source;                     // where the config.json comes from
  std::int64_t published_parameters = 0;  // 0: none published
  int published_significant_digits = 0;   // 0: the published count is exact
  std::string published_source;
  std::string published_text;
  model_spec spec;
};

[[nodiscard]] const std::vector<model_record>& model_records();

// Which bundled models a listing shows: family and model_type match case-insensitively (empty:
// any); parameter bounds are inclusive, on the total count.
struct model_filter {
  std::string family;
  std::string model_type;
  std::optional<double> min_parameters, max_parameters;
  [[nodiscard]] bool matches(const model_record& r) const;
};
[[nodiscard]] const std::vector<hardware_spec>& gpu_records();

// Case-insensitive lookup by id or alias. Unknown names throw
// flopcast::error(unknown_model) with "did you mean" suggestions.
[[nodiscard]] const model_record& find_model(std::string_view name);
[[nodiscard]] const hardware_spec& find_gpu(std::string_view name);

// Up to `limit` known names closest to `name` (edit distance), best first.
[[nodiscard]] std::vector<std::string> suggest_models(std::string_view name, std::size_t limit = 3);
[[nodiscard]] std::vector<std::string> suggest_gpus(std::string_view name, std::size_t limit = 3);

}  // namespace flopcast
