// The bundled records of data/, embedded at build time (cmake/embed_data.cmake).
#include "flopcast/registry.hpp"

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string_view>

#include "detail.hpp"
#include "flopcast/config.hpp"
#include "flopcast/error.hpp"
#include "json_reader.hpp"

namespace flopcast {
namespace detail {
extern const std::string_view k_gpu_records;
extern const std::string_view k_model_records[];
extern const std::size_t k_model_record_count;
}  // namespace detail

namespace {

using json = nlohmann::json;

using detail::lower;
// GPU names match ignoring case and punctuation ("h100-sxm" == "H100 SXM" == "h100sxm").
std::string squash(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

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

std::vector<model_record> load_models() {
  std::vector<model_record> out;
  for (std::size_t i = 0; i < detail::k_model_record_count; ++i) {
    const json j = json::parse(detail::k_model_records[i]);
    model_record r;
    r.id = j.at("id").get<std::string>();
    r.aliases = j.value("aliases", std::vector<std::string>{});
    r.family = j.value("family", "");
    r.source = j.value("source", "");
    if (j.contains("published") && j["published"].is_object()) {
      const json& p = j["published"];
      r.published_parameters = p.value("parameters", std::int64_t{0});
      r.published_significant_digits = p.value("significant_digits", 0);
      r.published_source = p.value("source", "");
      r.published_text = p.value("text", "");
    }
    r.spec = detail::read_hf_config(j.at("config"), r.id);  // parsed once, never re-serialised
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return lower(a.id) < lower(b.id); });
  return out;
}

std::vector<hardware_spec> load_gpus() {
  std::vector<hardware_spec> out;
  const json j = json::parse(detail::k_gpu_records);
  for (const json& g : j.at("gpus")) out.push_back(detail::read_hardware(g));
  return out;
}

template <class Records, class Id>
std::vector<std::vector<std::string>> names_of(const Records& records, Id id) {
  std::vector<std::vector<std::string>> out;
  for (const auto& r : records) {
    out.push_back({id(r)});
    out.back().insert(out.back().end(), r.aliases.begin(), r.aliases.end());
  }
  return out;
}

}  // namespace

const std::vector<model_record>& model_records() {
  static const std::vector<model_record> records = load_models();
  return records;
}

const std::vector<hardware_spec>& gpu_records() {
  static const std::vector<hardware_spec> records = load_gpus();
  return records;
}

bool model_filter::matches(const model_record& r) const {
  if (!family.empty() && lower(family) != lower(r.family)) return false;
  if (!model_type.empty() && lower(model_type) != lower(r.spec.model_type)) return false;
  const double n = static_cast<double>(count_parameters(r.spec).total);
  return (!min_parameters || n >= *min_parameters) && (!max_parameters || n <= *max_parameters);
}

const model_record& find_model(std::string_view name) {
  const std::string key = lower(name);
  for (const auto& r : model_records()) {
    if (lower(r.id) == key) return r;
    for (const auto& a : r.aliases)
      if (lower(a) == key) return r;
  }
  // A bare repo name ("Meta-Llama-3-8B") also finds "meta-llama/Meta-Llama-3-8B".
  for (const auto& r : model_records()) {
    const auto slash = r.id.find('/');
    if (slash != std::string::npos && lower(r.id.substr(slash + 1)) == key) return r;
  }
  throw error(error_code::unknown_model, "/model",
              "unknown model \"" + std::string(name) + "\"" + did_you_mean(suggest_models(name)) +
                  " (flopcast list-models shows all; a path to a config.json also works)");
}

const hardware_spec& find_gpu(std::string_view name) {
  const std::string key = squash(name);
  for (const auto& g : gpu_records()) {
    if (squash(g.name) == key) return g;
    for (const auto& a : g.aliases)
      if (squash(a) == key) return g;
  }
  throw error(error_code::unknown_gpu, "/gpu",
              "unknown GPU \"" + std::string(name) + "\"" + did_you_mean(suggest_gpus(name)) +
                  " (flopcast list-gpus shows all; --gpu-file reads a custom one)");
}

std::vector<std::string> suggest_models(std::string_view name, std::size_t limit) {
  return closest(name, names_of(model_records(), [](const model_record& r) { return r.id; }), limit);
}
std::vector<std::string> suggest_gpus(std::string_view name, std::size_t limit) {
  return closest(name, names_of(gpu_records(), [](const hardware_spec& g) { return g.name; }), limit);
}

}  // namespace flopcast
