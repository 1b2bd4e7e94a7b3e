#pragma once
// The hosted-provider catalog (data/providers/*.json, compiled into the library): each
// provider's model ids as its API takes them, the registry model each serves, and the figures
// the provider (or a named page) publishes: price per 1M input and output tokens (USD), output
// tokens/s, context length, served precision; each with its source and the date it was seen.
// A figure not found is absent (null in the data, with a note). Prices change.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flopcast {

struct provider_entry {
  std::string provider;       // the provider's key (the file name: "groq")
  std::string provider_name;  // "GroqCloud"
  std::string id;             // as the provider's API takes it: "llama-3.3-70b-versatile"
  std::string model;          // the registry model it serves (an id or alias of data/models)
  std::optional<std::string> precision;
  std::optional<std::int64_t> context_length;
  std::optional<double> output_tokens_per_second;
  std::optional<double> input_usd_per_million, output_usd_per_million;
  std::string seen;  // YYYY-MM-DD
  std::string price_source, speed_source, context_source, precision_source;
  std::string note;
};

struct provider_record {
  std::string key, name, url, date, note;
  std::vector<provider_entry> entries;
};

// One data/providers/*.json text: {provider, name, url, date, note, entries: [...]}. Bad fields
// throw flopcast::error naming the record and the field ("/entries/2/input_usd_per_million").
[[nodiscard]] provider_record parse_provider_record(std::string_view json_text);

// Every bundled provider, by key.
[[nodiscard]] const std::vector<provider_record>& provider_records();

// The entry a name names: "provider:id" (provider key, case-insensitive) or a bare provider id
// (the first provider by key that has it; the catalog tests that a bare id shared by two
// providers serves the same model). nullptr when none does.
[[nodiscard]] const provider_entry* find_provider_entry(std::string_view name);

// The provider entry a model name means when it is no registry name or alias (registry names
// win: "gpt-oss-120b" stays the registry's model); nullptr otherwise.
[[nodiscard]] const provider_entry* provider_for_model_name(std::string_view name);

// provider_for_model_name of a request's "model" when it is a string (estimate_json): nullptr
// for a registry name, an inline config or text that is no JSON object.
[[nodiscard]] const provider_entry* provider_of_request(std::string_view request_json);

// The entries serving `model` (a registry name or alias, or a provider id: the model it serves),
// or every entry when `model` is empty. Unknown models throw find_model's error.
[[nodiscard]] std::vector<const provider_entry*> provider_entries(std::string_view model = {});

// The "provider" object of an estimate named by a provider id (label "PUBLISHED").
[[nodiscard]] std::string provider_entry_json(const provider_entry& e, int indent = -1);
// provider_entries(model) as JSON: {"providers": [...]}.
[[nodiscard]] std::string providers_json(std::string_view model = {}, int indent = 2);

}  // namespace flopcast
