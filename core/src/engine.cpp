// Serving-engine profiles (data/engines/*.json), embedded at build time (cmake/embed_data.cmake),
// read and validated field by field: every default carries its value and where it is stated.
#include "flopcast/engine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

#include "detail.hpp"
#include "flopcast/error.hpp"
#include "json_reader.hpp"

namespace flopcast {
namespace detail {
extern const std::string_view k_engine_records[];
extern const std::size_t k_engine_record_count;
}  // namespace detail

namespace {

using json = nlohmann::json;
using detail::describe;

std::string squash(std::string_view s) { return detail::squash_name(s); }

const json& required(const json& obj, const std::string& base, const char* key, const char* what) {
  if (!obj.contains(key)) throw error(error_code::config_missing, base + "/" + key, std::string("missing ") + what);
  return obj.at(key);
}

std::string required_string(const json& obj, const std::string& base, const char* key, const char* what) {
  const json& v = required(obj, base, key, what);
  if (!v.is_string() || v.get<std::string>().empty())
    throw error(error_code::config_type, base + "/" + key,
                std::string("expected ") + what + " (a non-empty string), got " + describe(v));
  return v.get<std::string>();
}

std::string optional_string(const json& obj, const std::string& base, const char* key) {
  if (!obj.contains(key)) return "";
  const json& v = obj.at(key);
  if (!v.is_string() || v.get<std::string>().empty())
    throw error(error_code::config_type, base + "/" + key, "expected a non-empty string, got " + describe(v));
  return v.get<std::string>();
}

const json& object_at(const json& obj, const std::string& base, const char* key, const char* what) {
  const json& v = required(obj, base, key, what);
  if (!v.is_object())
    throw error(error_code::config_type, base + "/" + key,
                std::string("expected ") + what + " (an object), got " + describe(v));
  return v;
}

bool is_hex40(const std::string& s) {
  return s.size() == 40 &&
         std::all_of(s.begin(), s.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
}

// Default names are identifiers (a-z, 0-9, _), so they need no JSON-pointer escaping.
bool is_key(const std::string& s) {
  return !s.empty() && std::all_of(s.begin(), s.end(),
                                   [](char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'; });
}

engine_source read_source(const json& j, const std::string& base) {
  const json& s = object_at(j, base, "source", "the source the default is stated in");
  const std::string ptr = base + "/source";
  detail::reader(s, ptr).only({"url", "path", "commit", "quote"}, "source field");
  engine_source out;
  out.url = required_string(s, ptr, "url", "the URL of the doc page or source file");
  if (out.url.rfind("https://", 0) != 0)
    throw error(error_code::config_range, ptr + "/url", "expected an https:// URL, got \"" + out.url + "\"");
  out.path = optional_string(s, ptr, "path");
  out.commit = optional_string(s, ptr, "commit");
  if (!out.commit.empty() && !is_hex40(out.commit))
    throw error(error_code::config_range, ptr + "/commit",
                "expected a 40-hex-digit commit, got \"" + out.commit + "\"");
  out.quote = required_string(s, ptr, "quote", "the line or table cell that states the default, as written");
  return out;
}

engine_default read_default(const std::string& key, const json& j, const std::string& base) {
  if (!is_key(key))
    throw error(error_code::config_range, base, "expected a default name of a-z, 0-9 and _, got \"" + key + "\"");
  if (!j.is_object())
    throw error(error_code::config_type, base, "expected an object {value, source, note}, got " + describe(j));
  detail::reader(j, base).only({"value", "source", "note"}, "default field");
  engine_default d;
  d.key = key;
  const json& v = required(j, base, "value", "the default's value (a number, boolean, string or null)");
  if (v.is_boolean()) {
    d.type = engine_default::kind::boolean;
    d.boolean = v.get<bool>();
  } else if (v.is_number()) {
    d.type = engine_default::kind::number;
    d.number = v.get<double>();
    if (!std::isfinite(d.number)) throw error(error_code::config_range, base + "/value", "expected a finite number");
  } else if (v.is_string()) {
    d.type = engine_default::kind::text;
    d.text = v.get<std::string>();
    if (d.text.empty()) throw error(error_code::config_range, base + "/value", "expected a non-empty string");
  } else if (v.is_null()) {
    d.type = engine_default::kind::null;
  } else {
    throw error(error_code::config_type, base + "/value",
                "expected a number, boolean, string or null, got " + describe(v));
  }
  d.note = optional_string(j, base, "note");
  if (d.type == engine_default::kind::null && d.note.empty())
    throw error(error_code::config_missing, base + "/note",
                "a null value (computed by the engine at start-up) needs a note saying from what");
  d.source = read_source(j, base);
  return d;
}

void read_efficiency(const json& j, engine_profile& p) {
  const json& e = object_at(j, "", "efficiency", "the efficiency section ({\"fitted\": false} until fitted)");
  detail::reader(e, "/efficiency").only({"fitted", "fitted_to", "parameters"}, "efficiency field");
  const json& f = required(e, "/efficiency", "fitted", "whether the efficiency parameters are fitted");
  if (!f.is_boolean())
    throw error(error_code::config_type, "/efficiency/fitted", "expected a boolean, got " + describe(f));
  p.efficiency_fitted = f.get<bool>();
  if (!p.efficiency_fitted) {
    if (e.contains("parameters") || e.contains("fitted_to"))
      throw error(error_code::config_range,
                  e.contains("parameters") ? "/efficiency/parameters" : "/efficiency/fitted_to",
                  "an unfitted efficiency section holds no parameters: efficiency constants come only from a fit "
                  "to data/measurements/");
    return;
  }
  p.efficiency_fitted_to = required_string(e, "/efficiency", "fitted_to", "the measurements the fit used");
  const json& params = object_at(e, "/efficiency", "parameters", "the fitted parameters");
  if (params.empty())
    throw error(error_code::config_missing, "/efficiency/parameters", "a fitted efficiency section needs parameters");
  for (auto it = params.begin(); it != params.end(); ++it) {
    const std::string ptr = "/efficiency/parameters/" + it.key();
    if (!is_key(it.key())) throw error(error_code::config_range, ptr, "expected a parameter name of a-z, 0-9 and _");
    if (!it->is_number() || !std::isfinite(it->get<double>()))
      throw error(error_code::config_type, ptr, "expected a finite number, got " + describe(*it));
    p.efficiency[it.key()] = it->get<double>();
  }
}

engine_profile parse(const json& j) {
  engine_profile p;
  p.id = required_string(j, "", "engine", "the engine id");
  for (char c : p.id)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
      throw error(error_code::config_range, "/engine",
                  "expected a lower-case id of a-z, 0-9, '-' and '.', got \"" + p.id + "\"");
  detail::reader rd(j);
  rd.only({"engine", "name", "aliases", "repository", "version", "version_note", "batching", "kv_cache", "defaults",
           "efficiency"},
          "engine profile field");
  p.name = required_string(j, "", "name", "the engine's name");
  p.aliases = rd.string_list_or_empty("aliases");
  for (std::size_t i = 0; i < p.aliases.size(); ++i)
    if (squash(p.aliases[i]).empty())
      throw error(error_code::config_range, "/aliases/" + std::to_string(i), "expected a non-empty alias");
  p.repository = required_string(j, "", "repository", "the engine's GitHub repository (owner/name)");
  const auto slash = p.repository.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == p.repository.size() ||
      p.repository.find('/', slash + 1) != std::string::npos)
    throw error(error_code::config_range, "/repository", "expected owner/name, got \"" + p.repository + "\"");
  p.version = required_string(j, "", "version", "the engine version the defaults describe");
  p.version_note = optional_string(j, "", "version_note");

  const std::string batching = required_string(j, "", "batching", "the batching mode");
  if (batching == "continuous")
    p.batching = engine_batching::continuous;
  else if (batching == "static")
    p.batching = engine_batching::static_batch;
  else
    throw error(error_code::config_range, "/batching",
                "expected \"continuous\" or \"static\", got \"" + batching + "\"");
  const std::string kv = required_string(j, "", "kv_cache", "the KV-cache layout");
  if (kv == "paged")
    p.kv_cache = engine_kv_cache::paged;
  else if (kv == "contiguous")
    p.kv_cache = engine_kv_cache::contiguous;
  else if (kv == "dynamic")
    p.kv_cache = engine_kv_cache::dynamic;
  else
    throw error(error_code::config_range, "/kv_cache",
                "expected \"paged\", \"contiguous\" or \"dynamic\", got \"" + kv + "\"");

  const json& defaults = object_at(j, "", "defaults", "the engine's defaults");
  if (defaults.empty()) throw error(error_code::config_missing, "/defaults", "an engine profile needs its defaults");
  for (auto it = defaults.begin(); it != defaults.end(); ++it)
    p.defaults.push_back(read_default(it.key(), *it, "/defaults/" + it.key()));
  read_efficiency(j, p);
  return p;
}

std::vector<engine_profile> load_engines() {
  std::vector<engine_profile> out;
  for (std::size_t i = 0; i < detail::k_engine_record_count; ++i)
    out.push_back(parse_engine_profile(detail::k_engine_records[i]));
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
  // Every id and alias names one engine.
  std::vector<std::pair<std::string, std::string>> seen;  // squashed name, engine id
  for (const auto& p : out) {
    std::vector<std::string> names{p.id};
    names.insert(names.end(), p.aliases.begin(), p.aliases.end());
    for (const auto& n : names) {
      const std::string key = squash(n);
      for (const auto& [k, id] : seen)
        if (k == key && id != p.id)
          throw error(error_code::config_range, "/aliases",
                      "engine profile \"" + p.id + "\": the name \"" + n + "\" also names \"" + id + "\"");
      seen.emplace_back(key, p.id);
    }
  }
  return out;
}

}  // namespace

std::string_view to_string(engine_batching b) noexcept {
  return b == engine_batching::static_batch ? "static" : "continuous";
}

std::string_view to_string(engine_kv_cache k) noexcept {
  switch (k) {
    case engine_kv_cache::paged:
      return "paged";
    case engine_kv_cache::contiguous:
      return "contiguous";
    case engine_kv_cache::dynamic:
      return "dynamic";
  }
  return "paged";
}

const engine_default* engine_profile::find(std::string_view key) const noexcept {
  for (const auto& d : defaults)
    if (d.key == key) return &d;
  return nullptr;
}

double engine_profile::number(std::string_view key) const {
  const engine_default* d = find(key);
  const std::string ptr = "/defaults/" + std::string(key);
  if (d == nullptr)
    throw error(error_code::config_missing, ptr, "engine \"" + id + "\" has no default \"" + std::string(key) + "\"");
  if (d->type != engine_default::kind::number)
    throw error(error_code::config_type, ptr,
                "engine \"" + id + "\": default \"" + std::string(key) + "\" is not a number");
  return d->number;
}

engine_profile parse_engine_profile(std::string_view json_text) {
  const json j = detail::parse_object(json_text, "an engine profile");
  std::string id;
  if (j.contains("engine") && j["engine"].is_string()) id = j["engine"].get<std::string>();
  try {
    return parse(j);
  } catch (const error& e) {
    throw error(e.code(), e.pointer(),
                (id.empty() ? "engine profile: " : "engine profile \"" + id + "\": ") + e.message());
  }
}

const std::vector<engine_profile>& engine_records() {
  static const std::vector<engine_profile> records = load_engines();
  return records;
}

const engine_profile& find_engine(std::string_view name) {
  const std::string key = squash(name);
  std::string known;
  for (const auto& p : engine_records()) {
    if (!key.empty()) {
      if (squash(p.id) == key) return p;
      for (const auto& a : p.aliases)
        if (squash(a) == key) return p;
    }
    known += (known.empty() ? "\"" : ", \"") + p.id + "\"";
  }
  throw error(error_code::invalid_argument, "/engine",
              "unknown engine \"" + std::string(name) + "\": expected one of " + known);
}

}  // namespace flopcast
