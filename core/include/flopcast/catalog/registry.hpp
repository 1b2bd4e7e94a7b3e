#pragma once
// The bundled model and GPU records (data/), compiled into the library.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/hardware/hardware.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast {

// all: the whole checkpoint; text: the language model without a vision tower; non_embedding: the
// whole checkpoint less its input embedding table (cards that count "parameters (non-embedding)").
enum class publication_scope { all, text, non_embedding };
[[nodiscard]] std::string_view to_string(publication_scope s) noexcept;

struct model_record {
  std::string id;                    // Hugging Face id
  std::vector<std::string> aliases;  // short names
  std::string family;
  std::string source;                     // where the config.json comes from
  std::int64_t published_parameters = 0;  // 0: none published
  int published_significant_digits = 0;   // 0: the published count is exact
  std::string published_source;
  std::string published_text;
  // What the published figure counts: the whole checkpoint (all), or only the language model
  // of a multimodal checkpoint (text: compared with the total minus parameter_breakdown.vision).
  publication_scope published_scope = publication_scope::all;
  // Active parameters per token (MoE models) where the source gives them; 0: none published.
  std::int64_t published_active = 0;
  int published_active_significant_digits = 0;  // 0: exact (defaults to significant_digits)
  // The flopcast release that first bundled the record ("0.3.0"); empty: bundled before 0.3.0,
  // when records did not say. list-models and list-gpus report what a release added from it.
  std::string added;
  model_spec spec;
};

// One record as data/models/*.json holds it: {id, aliases, family, source, published, config}.
// Bad fields throw flopcast::error naming the record and the field ("/published/scope").
[[nodiscard]] model_record parse_model_record(std::string_view json_text);

// Whether a computed count agrees with a published one: exactly when significant_digits is 0,
// else within half a unit of the published figure's last significant digit ("7.24B").
[[nodiscard]] bool matches_published(std::int64_t computed, std::int64_t published, int significant_digits);

// The computed counts a record's published figures are compared with: total and active, less
// the vision tower when the published scope is "text", less the input embedding table when it is
// "non_embedding".
struct compared_counts {
  std::int64_t total = 0;
  std::int64_t active = 0;
};
[[nodiscard]] compared_counts counts_for_published(const model_record& r);

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

// What one flopcast release added to the bundled records (their "added" field), for list-models
// and list-gpus: the records' ids or names in data order and, for models, the config.json
// model_types first bundled then (every record of the type carries that release).
struct release_additions {
  std::string release;
  std::vector<std::string> records;
  std::vector<std::string> new_model_types;
};
// By release, oldest first; records bundled before releases were recorded are not listed.
[[nodiscard]] std::vector<release_additions> model_additions();
[[nodiscard]] std::vector<release_additions> gpu_additions();
// The distinct config.json model_types of the bundled models.
[[nodiscard]] std::size_t bundled_model_types();

// Case-insensitive lookup by id or alias. Unknown names throw
// flopcast::error(unknown_model) with "did you mean" suggestions.
[[nodiscard]] const model_record& find_model(std::string_view name);
[[nodiscard]] const hardware_spec& find_gpu(std::string_view name);
// Whether `name` is a bundled model's id or alias (an index lookup: parses nothing; a provider's
// model id, which find_model also takes, is not).
[[nodiscard]] bool is_registry_name(std::string_view name);

// Up to `limit` known names closest to `name` (edit distance), best first.
[[nodiscard]] std::vector<std::string> suggest_models(std::string_view name, std::size_t limit = 3);
[[nodiscard]] std::vector<std::string> suggest_gpus(std::string_view name, std::size_t limit = 3);

}  // namespace flopcast
