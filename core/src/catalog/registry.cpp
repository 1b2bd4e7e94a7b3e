// The bundled records of data/, embedded at build time (cmake/embed_data.cmake).
#include "flopcast/catalog/registry.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string_view>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "catalog/embedded_records.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/catalog/providers.hpp"
#include "flopcast/model/config.hpp"
#include "hardware/hardware_reader.hpp"
#include "model/hf_reader.hpp"

namespace flopcast {

namespace {

using json = nlohmann::json;

using detail::lower;
std::string squash(std::string_view s) { return detail::squash_name(s); }

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

// Up to `limit` names closest to `name`, one per record (each candidate list is the
// names of one record), ranked by edit distance, then by length difference.
std::vector<std::string> closest(std::string_view name, const std::vector<std::vector<std::string>>& records,
                                 std::size_t limit) {
  const std::string key = lower(name);
  struct scored {
    std::size_t dist, len_diff;
    std::string name;
  };
  std::vector<scored> best;
  for (const auto& names : records) {
    scored top{SIZE_MAX, SIZE_MAX, {}};
    for (const auto& c : names) {
      const std::string lc = lower(c);
      std::size_t dist = edit_distance(key, lc);
      if (key.size() >= 3 && lc.find(key) != std::string::npos) dist = std::min<std::size_t>(dist, 2);
      const std::size_t len_diff = lc.size() > key.size() ? lc.size() - key.size() : key.size() - lc.size();
      if (dist < top.dist || (dist == top.dist && len_diff < top.len_diff)) top = {dist, len_diff, c};
    }
    if (!top.name.empty()) best.push_back(top);
  }
  std::stable_sort(best.begin(), best.end(), [](const scored& a, const scored& b) {
    return a.dist != b.dist ? a.dist < b.dist : a.len_diff < b.len_diff;
  });
  std::vector<std::string> out;
  const std::size_t cutoff = std::max<std::size_t>(3, key.size() / 2);
  for (const auto& s : best) {
    if (out.size() == limit || s.dist > cutoff) break;
    out.push_back(s.name);
  }
  return out;
}

std::string did_you_mean(const std::vector<std::string>& s) {
  if (s.empty()) return "";
  std::string out = "; did you mean ";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", \"" : "\"") + s[i] + "\"";
  return out + "?";
}

// The published block of a record: {parameters, significant_digits, source, text, scope, active,
// active_significant_digits}; every field optional.
void read_published(const json& j, model_record& r) {
  if (!j.contains("published")) return;
  const json& p = j["published"];
  if (!p.is_object())
    throw error(error_code::config_type, "/published", "expected an object, got " + detail::describe(p));
  const detail::reader rd(p, "/published");
  rd.only({"parameters", "significant_digits", "source", "text", "scope", "active", "active_significant_digits"},
          "published");
  constexpr std::int64_t max_count = std::int64_t{1} << 53;  // beyond any model, exact in a double
  r.published_parameters = rd.has("parameters") ? rd.integer("parameters", 0, max_count, "a non-negative integer") : 0;
  r.published_significant_digits = static_cast<int>(
      rd.has("significant_digits") ? rd.integer("significant_digits", 0, 16, "an integer from 0 (exact) to 16") : 0);
  r.published_source = rd.string_or("source", "");
  r.published_text = rd.string_or("text", "");
  const std::string scope = rd.string_or("scope", "all");
  if (scope == "all")
    r.published_scope = publication_scope::all;
  else if (scope == "text")
    r.published_scope = publication_scope::text;
  else if (scope == "non_embedding")
    r.published_scope = publication_scope::non_embedding;
  else
    throw error(error_code::config_range, "/published/scope",
                "expected \"all\" (the whole checkpoint), \"text\" (the language model only) or \"non_embedding\" "
                "(without the input embedding table), got \"" +
                    scope + "\"");
  if (rd.has("active")) {
    r.published_active = rd.integer("active", 1, max_count, "a positive integer");
    if (r.published_parameters > 0 && r.published_active > r.published_parameters)
      throw error(error_code::config_range, "/published/active",
                  "expected at most the published total " + std::to_string(r.published_parameters) + ", got " +
                      std::to_string(r.published_active));
  }
  r.published_active_significant_digits =
      static_cast<int>(rd.has("active_significant_digits")
                           ? rd.integer("active_significant_digits", 0, 16, "an integer from 0 (exact) to 16")
                           : r.published_significant_digits);
  if (rd.has("active_significant_digits") && !rd.has("active"))
    throw error(error_code::config_missing, "/published/active",
                "active_significant_digits is given without the active count it qualifies");
}

// The embedded records of one kind, parsed one by one when first used: a lookup is a binary
// search of the build's name index, so a start-up parses only the records it uses. Slots never
// move (references to records are kept); std::call_once makes a first use from several threads
// parse once. A record that fails to parse throws at each use. Never destroyed (the process
// keeps its records to the end; no destructor runs at exit).
template <class Record>
class lazy_records {
 public:
  using parse_fn = Record (*)(std::string_view);
  lazy_records(const detail::embedded_records& data, parse_fn parse)
      : data_(data), parse_(parse), slots_(data.count), once_(new std::once_flag[data.count]) {}
  // The slot whose name folds to `key`, or -1.
  [[nodiscard]] std::ptrdiff_t find(std::string_view key) const {
    const std::string_view* end = data_.keys + data_.key_count;
    const std::string_view* it = std::lower_bound(data_.keys, end, key);
    return it != end && *it == key ? static_cast<std::ptrdiff_t>(data_.key_slots[it - data_.keys]) : -1;
  }
  // Each record's names: its id or name first, then its aliases (for suggestions).
  [[nodiscard]] std::vector<std::vector<std::string>> names() const {
    std::vector<std::vector<std::string>> out(data_.count);
    for (std::size_t i = 0; i < data_.count; ++i) {
      const std::string_view n = data_.names[i];
      for (std::size_t b = 0, e; b <= n.size(); b = e + 1) {
        e = std::min(n.find('\n', b), n.size());
        out[i].emplace_back(n.substr(b, e - b));
      }
    }
    return out;
  }
  const Record& at(std::size_t i) {
    std::call_once(once_[i], [&] { slots_[i] = parse_(data_.texts[i]); });
    return slots_[i];
  }
  const std::vector<Record>& all() {
    for (std::size_t i = 0; i < slots_.size(); ++i) (void)at(i);
    return slots_;
  }

 private:
  detail::embedded_records data_;
  parse_fn parse_;
  std::vector<Record> slots_;
  std::unique_ptr<std::once_flag[]> once_;
};

hardware_spec parse_gpu_record(std::string_view text) { return read_hardware(text); }

lazy_records<model_record>& models() {
  static auto* records = new lazy_records<model_record>(detail::k_models, parse_model_record);
  return *records;
}
lazy_records<hardware_spec>& gpus() {
  static auto* records = new lazy_records<hardware_spec>(detail::k_gpus, parse_gpu_record);
  return *records;
}

}  // namespace

std::string_view to_string(publication_scope s) noexcept {
  switch (s) {
    case publication_scope::text:
      return "text";
    case publication_scope::non_embedding:
      return "non_embedding";
    case publication_scope::all:
      break;
  }
  return "all";
}

model_record parse_model_record(std::string_view text) {
  const json j = detail::parse_object(text, "a model record");
  model_record r;
  const detail::reader rd(j);
  if (!rd.has("id") || !j["id"].is_string() || j["id"].get<std::string>().empty())
    throw error(error_code::config_missing, "/id", "a model record needs an id (a non-empty string)");
  r.id = j["id"].get<std::string>();
  try {
    r.aliases = rd.string_list_or_empty("aliases");
    r.family = rd.string_or("family", "");
    r.source = rd.string_or("source", "");
    r.added = detail::release_or_empty(rd, "added");
    read_published(j, r);
    if (!rd.has("config")) throw error(error_code::config_missing, "/config", "a model record needs its config");
  } catch (const error& e) {
    throw error(e.code(), e.pointer(), "model record \"" + r.id + "\": " + e.message());
  }
  try {
    r.spec = detail::read_hf_config(j["config"], r.id);  // parsed once, never re-serialised
  } catch (const error& e) {
    throw error(e.code(), "/config" + e.pointer(), "model record \"" + r.id + "\": " + e.message());
  }
  return r;
}

bool matches_published(std::int64_t computed, std::int64_t published, int significant_digits) {
  if (significant_digits <= 0) return computed == published;
  if (published <= 0) return false;
  // A figure like "7.24B" promises half a unit in its last digit.
  const double p = static_cast<double>(published);
  const double unit = std::pow(10.0, std::floor(std::log10(p)) - significant_digits + 1);
  return std::fabs(static_cast<double>(computed) - p) <= 0.5 * unit;
}

compared_counts counts_for_published(const model_record& r) {
  const parameter_breakdown p = count_parameters(r.spec);
  const std::int64_t vision = r.published_scope == publication_scope::text ? p.vision : 0;
  // The input embedding table is read, not multiplied, per token: it leaves both figures.
  const std::int64_t embedding = r.published_scope == publication_scope::non_embedding ? p.embedding : 0;
  return {p.total - vision - embedding, p.active - vision - embedding};
}

const std::vector<model_record>& model_records() { return models().all(); }

const std::vector<hardware_spec>& gpu_records() { return gpus().all(); }

namespace {
// Releases compare by their numbers ("0.10.0" after "0.9.0").
bool release_before(const std::string& a, const std::string& b) {
  std::vector<long> x, y;
  for (auto* v : {&a, &b}) {
    auto& out = v == &a ? x : y;
    long n = 0;
    for (char c : *v) {
      if (c == '.') {
        out.push_back(n);
        n = 0;
      } else {
        n = n * 10 + (c - '0');
      }
    }
    out.push_back(n);
  }
  return x < y;
}

release_additions& slot_for(std::vector<release_additions>& out, const std::string& release) {
  for (auto& r : out)
    if (r.release == release) return r;
  auto at = std::find_if(out.begin(), out.end(), [&](const auto& r) { return release_before(release, r.release); });
  return *out.insert(at, release_additions{release, {}, {}});
}
}  // namespace

std::vector<release_additions> model_additions() {
  std::vector<release_additions> out;
  // model_type -> the release of its first record ("" when any record predates the releases).
  std::vector<std::pair<std::string, std::string>> first;
  for (const auto& r : model_records()) {
    if (!r.added.empty()) slot_for(out, r.added).records.push_back(r.id);
    auto it = std::find_if(first.begin(), first.end(), [&](const auto& f) { return f.first == r.spec.model_type; });
    if (it == first.end())
      first.emplace_back(r.spec.model_type, r.added);
    else if (it->second.empty() || r.added.empty() || release_before(r.added, it->second))
      it->second = r.added.empty() || it->second.empty() ? std::string() : r.added;
  }
  for (const auto& [type, release] : first)
    if (!release.empty()) slot_for(out, release).new_model_types.push_back(type);
  return out;
}

std::vector<release_additions> gpu_additions() {
  std::vector<release_additions> out;
  for (const auto& g : gpu_records())
    if (!g.added.empty()) slot_for(out, g.added).records.push_back(g.name);
  return out;
}

std::size_t bundled_model_types() {
  std::vector<std::string> types;
  for (const auto& r : model_records())
    if (std::find(types.begin(), types.end(), r.spec.model_type) == types.end()) types.push_back(r.spec.model_type);
  return types.size();
}

bool model_filter::matches(const model_record& r) const {
  if (!family.empty() && lower(family) != lower(r.family)) return false;
  if (!model_type.empty() && lower(model_type) != lower(r.spec.model_type)) return false;
  const double n = static_cast<double>(count_parameters(r.spec).total);
  return (!min_parameters || n >= *min_parameters) && (!max_parameters || n <= *max_parameters);
}

// Ids and aliases first; then a bare repo name ("Meta-Llama-3-8B" finds
// "meta-llama/Meta-Llama-3-8B") where no id or alias has it (the build's index orders them so).
const model_record& find_model(std::string_view name) {
  if (const auto slot = models().find(lower(name)); slot >= 0) return models().at(static_cast<std::size_t>(slot));
  // A hosted provider's model id ("llama-3.3-70b-versatile", "groq:..."): the model it serves.
  if (const provider_entry* e = find_provider_entry(name))
    if (const auto slot = models().find(lower(e->model)); slot >= 0) return models().at(static_cast<std::size_t>(slot));
  throw error(error_code::unknown_model, "/model",
              "unknown model \"" + std::string(name) + "\": expected a registry model name or alias" +
                  did_you_mean(suggest_models(name)));
}

bool is_registry_name(std::string_view name) { return models().find(lower(name)) >= 0; }

const hardware_spec& find_gpu(std::string_view name) {
  if (const auto slot = gpus().find(squash(name)); slot >= 0) return gpus().at(static_cast<std::size_t>(slot));
  throw error(error_code::unknown_gpu, "/gpu",
              "unknown GPU \"" + std::string(name) + "\": expected a GPU name or alias from the accelerator database" +
                  did_you_mean(suggest_gpus(name)));
}

std::vector<std::string> suggest_models(std::string_view name, std::size_t limit) {
  return closest(name, models().names(), limit);
}
std::vector<std::string> suggest_gpus(std::string_view name, std::size_t limit) {
  return closest(name, gpus().names(), limit);
}

}  // namespace flopcast
