// The hosted-provider catalog (providers.hpp): data/providers/*.json, embedded by
// cmake/embed_providers.cmake, parsed on first use. The API-price vs self-hosted comparison: plan/price_comparison.cpp.
#include "flopcast/catalog/providers.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>

#include "base/detail.hpp"
#include "base/json_out.hpp"
#include "base/json_reader.hpp"
#include "catalog/providers_parts.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/formats/precision.hpp"
#include "flopcast/hardware/hardware.hpp"

namespace flopcast {
namespace detail {
extern const std::string_view k_provider_files[];
extern const std::size_t k_provider_file_count;
}  // namespace detail

namespace {

using detail::json;
using detail::json_out;
using detail::lower;

std::string text_field(const json& j, const std::string& ptr, const char* key, bool required) {
  if (!j.contains(key) || j[key].is_null()) {
    if (required)
      throw error(error_code::config_missing, ptr + "/" + key,
                  std::string("needs \"") + key + "\" (a non-empty string)");
    return "";
  }
  if (!j[key].is_string() || (required && j[key].get<std::string>().empty()))
    throw error(error_code::config_type, ptr + "/" + key,
                std::string("expected \"") + key + "\" to be a non-empty string, but got " + detail::describe(j[key]));
  return j[key].get<std::string>();
}

// A published figure: null (not found) or a positive finite number.
std::optional<double> figure(const json& j, const std::string& ptr, const char* key) {
  if (!j.contains(key) || j[key].is_null()) return std::nullopt;
  const json& v = j[key];
  if (!v.is_number() || !(v.get<double>() > 0) || !std::isfinite(v.get<double>()))
    throw error(
        error_code::config_range, ptr + "/" + key,
        std::string("expected \"") + key + "\" to be a positive number or null, but got " + detail::describe(v));
  return v.get<double>();
}

bool is_date(const std::string& s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  for (std::size_t i = 0; i < s.size(); ++i)
    if (i != 4 && i != 7 && (s[i] < '0' || s[i] > '9')) return false;
  return true;
}

std::string date_field(const json& j, const std::string& ptr, const char* key) {
  std::string d = text_field(j, ptr, key, true);
  if (!is_date(d))
    throw error(error_code::config_range, ptr + "/" + key, "expected a date YYYY-MM-DD, but got \"" + d + "\"");
  return d;
}

// The figure's source: required when the figure is given.
std::string source_for(const json& sources, const std::string& ptr, const char* key, bool given) {
  std::string s = sources.is_object() ? text_field(sources, ptr, key, false) : "";
  if (given && s.empty())
    throw error(error_code::config_missing, ptr + "/" + key,
                std::string("a published ") + key + " needs its source URL");
  return s;
}

provider_entry read_entry(const json& e, const std::string& ptr, const provider_record& r) {
  if (!e.is_object())
    throw error(error_code::config_type, ptr, "expected an entry object, but got " + detail::describe(e));
  const detail::reader rd(e, ptr);
  rd.only({"id", "model", "precision", "context_length", "output_tokens_per_second", "input_usd_per_million",
           "output_usd_per_million", "seen", "sources", "note"},
          "a provider entry");
  provider_entry p;
  p.provider = r.key;
  p.provider_name = r.name;
  p.id = text_field(e, ptr, "id", true);
  p.model = text_field(e, ptr, "model", true);
  if (const std::string prec = text_field(e, ptr, "precision", false); !prec.empty()) p.precision = prec;
  if (e.contains("context_length") && !e["context_length"].is_null())
    p.context_length = detail::to_integer(e["context_length"], ptr + "/context_length", 1, std::int64_t{1} << 40,
                                          "a positive integer or null");
  p.output_tokens_per_second = figure(e, ptr, "output_tokens_per_second");
  p.input_usd_per_million = figure(e, ptr, "input_usd_per_million");
  p.output_usd_per_million = figure(e, ptr, "output_usd_per_million");
  p.seen = date_field(e, ptr, "seen");
  const json none = json::object();
  const json& src = e.contains("sources") ? e["sources"] : none;
  if (!src.is_object()) throw error(error_code::config_type, ptr + "/sources", "expected an object of source URLs");
  const std::string sp = ptr + "/sources";
  p.price_source = source_for(src, sp, "price", p.input_usd_per_million || p.output_usd_per_million);
  p.speed_source = source_for(src, sp, "speed", p.output_tokens_per_second.has_value());
  p.context_source = source_for(src, sp, "context", p.context_length.has_value());
  p.precision_source = source_for(src, sp, "precision", p.precision.has_value());
  p.note = text_field(e, ptr, "note", false);
  return p;
}

struct catalog {
  std::vector<provider_record> records;
};

const catalog& the_catalog() {
  static const catalog* c = [] {
    auto* out = new catalog;
    for (std::size_t i = 0; i < detail::k_provider_file_count; ++i)
      out->records.push_back(parse_provider_record(detail::k_provider_files[i]));
    std::sort(out->records.begin(), out->records.end(),
              [](const provider_record& a, const provider_record& b) { return a.key < b.key; });
    return out;
  }();
  return *c;
}

}  // namespace

using detail::json_out;
using detail::lower;

void detail::write_provider_entry(json_out& w, const provider_entry& e) {
  w.field("provider", e.provider)
      .field("name", e.provider_name)
      .field("id", e.id)
      .field("model", e.model)
      .field("precision", e.precision)
      .field("context_length", e.context_length)
      .field("output_tokens_per_second", e.output_tokens_per_second)
      .field("input_usd_per_million", e.input_usd_per_million)
      .field("output_usd_per_million", e.output_usd_per_million)
      .field("date", e.seen)
      .text_or_null("source", e.price_source.empty() ? e.speed_source : e.price_source)
      .text_or_null("speed_source", e.speed_source)
      .field("note", e.note)
      .field("label", "PUBLISHED");
}

provider_record parse_provider_record(std::string_view text) {
  const json j = detail::parse_object(text, "a provider record");
  provider_record r;
  r.key = text_field(j, "", "provider", true);
  try {
    const detail::reader rd(j);
    rd.only({"provider", "name", "url", "date", "note", "entries"}, "a provider record");
    r.name = text_field(j, "", "name", true);
    r.url = text_field(j, "", "url", true);
    r.date = date_field(j, "", "date");
    r.note = text_field(j, "", "note", true);
    if (!j.contains("entries") || !j["entries"].is_array() || j["entries"].empty())
      throw error(error_code::config_missing, "/entries", "needs \"entries\" (a non-empty array)");
    for (std::size_t i = 0; i < j["entries"].size(); ++i) {
      const std::string ptr = "/entries/" + std::to_string(i);
      provider_entry e = read_entry(j["entries"][i], ptr, r);
      for (const auto& other : r.entries)
        if (lower(other.id) == lower(e.id))
          throw error(error_code::config_range, ptr + "/id", "duplicate id \"" + e.id + "\"");
      r.entries.push_back(std::move(e));
    }
  } catch (const error& e) {
    throw error(e.code(), e.pointer(), "provider record \"" + r.key + "\": " + e.message());
  }
  return r;
}

const std::vector<provider_record>& provider_records() { return the_catalog().records; }

const provider_entry* find_provider_entry(std::string_view name) {
  std::string provider;
  std::string id(name);
  if (const auto colon = name.find(':'); colon != std::string_view::npos) {
    const std::string key = lower(name.substr(0, colon));
    for (const auto& r : provider_records())
      if (r.key == key) {
        provider = key;
        id = std::string(name.substr(colon + 1));
      }
  }
  for (const auto& r : provider_records()) {
    if (!provider.empty() && r.key != provider) continue;
    for (const auto& e : r.entries)
      if (lower(e.id) == lower(id)) return &e;
  }
  return nullptr;
}

const provider_entry* provider_for_model_name(std::string_view name) {
  if (is_registry_name(name)) return nullptr;
  return find_provider_entry(name);
}

const provider_entry* provider_of_request(std::string_view request_json) {
  const json j = json::parse(request_json.begin(), request_json.end(), nullptr, false);
  if (!j.is_object() || !j.contains("model") || !j["model"].is_string()) return nullptr;
  return provider_for_model_name(j["model"].get<std::string>());
}

std::vector<const provider_entry*> provider_entries(std::string_view model) {
  std::vector<const provider_entry*> out;
  const model_record* m = model.empty() ? nullptr : &find_model(model);
  for (const auto& r : provider_records())
    for (const auto& e : r.entries)
      if (!m || &find_model(e.model) == m) out.push_back(&e);
  return out;
}

std::string provider_entry_json(const provider_entry& e, int indent) {
  json_out w(indent);
  w.begin_object();
  detail::write_provider_entry(w, e);
  w.end_object();
  return w.take();
}

std::string providers_json(std::string_view model, int indent) {
  const auto entries = provider_entries(model);
  json_out w(indent);
  w.begin_object();
  w.array("providers", [&] {
    for (const provider_entry* e : entries) {
      w.begin_object();
      detail::write_provider_entry(w, *e);
      w.end_object();
    }
  });
  w.end_object();
  return w.take();
}

}  // namespace flopcast
