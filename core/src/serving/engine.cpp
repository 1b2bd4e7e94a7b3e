// Serving-engine profiles (data/engines/*.json), embedded at build time (cmake/embed_data.cmake),
// read and validated field by field: every default carries its value and where it is stated.
#include "flopcast/serving/engine.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/serving/simulator.hpp"

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

double fitted_number(const json& obj, const std::string& base, const char* key, double lo, double hi) {
  const json& v = required(obj, base, key, "a fitted number");
  const std::string ptr = base + "/" + key;
  if (!v.is_number()) throw error(error_code::config_type, ptr, "expected a number, got " + describe(v));
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < lo || x > hi)
    throw error(error_code::config_range, ptr,
                "expected a number in [" + detail::format_number(lo) + ", " + detail::format_number(hi) + "], got " +
                    detail::format_number(x));
  return x;
}

std::vector<std::string> source_ids(const json& e, const char* key) {
  const std::string ptr = std::string("/efficiency/") + key;
  const json& v = required(e, "/efficiency", key, "the measurement files (source ids) of this part of the fit");
  if (!v.is_array()) throw error(error_code::config_type, ptr, "expected an array of source ids, got " + describe(v));
  std::vector<std::string> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (!v[i].is_string() || v[i].get<std::string>().empty())
      throw error(error_code::config_type, ptr + "/" + std::to_string(i),
                  "expected a source id, got " + describe(v[i]));
    out.push_back(v[i].get<std::string>());
  }
  return out;
}

residual_band read_band(const json& bands, const char* key) {
  const std::string ptr = std::string("/efficiency/bands/") + key;
  const json& b = object_at(bands, "/efficiency/bands", key, "measured/predicted p10 and p90 of the rows");
  detail::reader(b, ptr).only({"low", "median", "high", "rows"}, "band field");
  residual_band out;
  out.rows = static_cast<std::int64_t>(fitted_number(b, ptr, "rows", 0, 1e9));
  out.low = fitted_number(b, ptr, "low", 1e-3, 1e3);
  out.high = fitted_number(b, ptr, "high", 1e-3, 1e3);
  if (out.low > out.high)
    throw error(
        error_code::config_range, ptr,
        "expected low <= high, got " + detail::format_number(out.low) + " > " + detail::format_number(out.high));
  // The p50 (npm run fit writes it); a band without one corrects nothing where it can (1 inside
  // the band), else to its nearer end.
  out.median = b.contains("median") ? fitted_number(b, ptr, "median", 1e-3, 1e3) : std::clamp(1.0, out.low, out.high);
  if (out.median < out.low || out.median > out.high)
    throw error(error_code::config_range, ptr + "/median",
                "expected low <= median <= high, got " + detail::format_number(out.median) + " outside [" +
                    detail::format_number(out.low) + ", " + detail::format_number(out.high) + "]");
  return out;
}

void read_efficiency(const json& j, engine_profile& p) {
  const json& e = object_at(j, "", "efficiency", "the efficiency section ({\"fitted\": false} until fitted)");
  detail::reader(e, "/efficiency")
      .only({"fitted", "fitted_by", "fitted_to", "held_out", "costs", "families", "bands", "note"}, "efficiency field");
  const json& f = required(e, "/efficiency", "fitted", "whether the efficiency parameters are fitted");
  if (!f.is_boolean())
    throw error(error_code::config_type, "/efficiency/fitted", "expected a boolean, got " + describe(f));
  p.efficiency_fitted = f.get<bool>();
  if (!p.efficiency_fitted) {
    for (const char* k : {"costs", "families", "bands", "fitted_to", "held_out", "fitted_by"})
      if (e.contains(k))
        throw error(error_code::config_range, std::string("/efficiency/") + k,
                    "an unfitted efficiency section holds no parameters: efficiency constants come only from a fit "
                    "to data/measurements/");
    return;
  }
  p.fitted_by = required_string(e, "/efficiency", "fitted_by", "the program that wrote the fit");
  p.fitted_to = source_ids(e, "fitted_to");
  if (p.fitted_to.empty())
    throw error(error_code::config_range, "/efficiency/fitted_to", "a fit needs at least one measurement file");
  p.held_out = source_ids(e, "held_out");
  const json& c = object_at(e, "/efficiency", "costs", "the fitted step costs");
  detail::reader(c, "/efficiency/costs")
      .only({"per_step_s", "per_sequence_s", "per_layer_s", "gemm_half_tokens", "kv_read_efficiency"}, "step cost");
  p.costs.per_step_s = fitted_number(c, "/efficiency/costs", "per_step_s", 0, 1);
  p.costs.per_sequence_s = fitted_number(c, "/efficiency/costs", "per_sequence_s", 0, 1);
  p.costs.per_layer_s = fitted_number(c, "/efficiency/costs", "per_layer_s", 0, 1);
  p.costs.gemm_half_tokens = fitted_number(c, "/efficiency/costs", "gemm_half_tokens", 0, 1e6);
  if (c.contains("kv_read_efficiency"))
    p.costs.kv_read_efficiency = fitted_number(c, "/efficiency/costs", "kv_read_efficiency", 0.01, 1);
  const json& fam = object_at(e, "/efficiency", "families", "the fitted efficiencies per device family");
  if (!fam.contains("all"))
    throw error(error_code::config_missing, "/efficiency/families/all",
                "a fit needs the pooled \"all\" family (used on devices of families without rows)");
  for (auto it = fam.begin(); it != fam.end(); ++it) {
    const std::string ptr = "/efficiency/families/" + it.key();
    if (!it->is_object()) throw error(error_code::config_type, ptr, "expected an object, got " + describe(*it));
    detail::reader(*it, ptr).only({"compute_efficiency", "mem_efficiency", "rows"}, "family field");
    engine_family_fit ff;
    ff.family = it.key();
    ff.compute_efficiency = fitted_number(*it, ptr, "compute_efficiency", 1e-3, 1);
    ff.mem_efficiency = fitted_number(*it, ptr, "mem_efficiency", 1e-3, 1);
    ff.rows = static_cast<std::int64_t>(fitted_number(*it, ptr, "rows", 0, 1e9));
    p.families.push_back(ff);
  }
  const json& bands = object_at(e, "/efficiency", "bands", "the residual spread per figure");
  detail::reader(bands, "/efficiency/bands").only({"prefill", "decode", "throughput", "ttft_load"}, "band");
  p.bands.prefill = read_band(bands, "prefill");
  p.bands.decode = read_band(bands, "decode");
  p.bands.throughput = read_band(bands, "throughput");
  p.bands.ttft_load = read_band(bands, "ttft_load");
}

// "runs_on": {"devices": [{"vendor": "NVIDIA", "kinds": ["gpu", "soc"]}, ...], "source": {url, quote},
// "note"}: where the engine runs, from its docs.
void read_runs_on(const json& j, engine_profile& p) {
  const json& r = object_at(j, "", "runs_on", "the devices the engine runs on ({devices, source, note})");
  detail::reader(r, "/runs_on").only({"devices", "source", "note"}, "runs_on field");
  const json& devices = required(r, "/runs_on", "devices", "the vendors and device kinds the engine runs on");
  if (!devices.is_array() || devices.empty())
    throw error(error_code::config_type, "/runs_on/devices",
                "expected a non-empty array of {vendor, kinds}, got " + describe(devices));
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::string ptr = "/runs_on/devices/" + std::to_string(i);
    const json& d = devices[i];
    if (!d.is_object())
      throw error(error_code::config_type, ptr, "expected an object {vendor, kinds}, got " + describe(d));
    const detail::reader dr(d, ptr);
    dr.only({"vendor", "kinds", "min_compute_capability", "gfx"}, "device class field");
    engine_device_class c;
    c.vendor = required_string(d, ptr, "vendor", "the vendor (\"*\" for any)");
    const json& kinds = required(d, ptr, "kinds", "the device kinds (gpu, tpu, npu, cpu, soc)");
    if (!kinds.is_array() || kinds.empty())
      throw error(error_code::config_type, ptr + "/kinds",
                  "expected a non-empty array of device kinds, got " + describe(kinds));
    for (std::size_t k = 0; k < kinds.size(); ++k) {
      bool found = false;
      for (device_kind dk : {device_kind::gpu, device_kind::tpu, device_kind::npu, device_kind::cpu, device_kind::soc})
        if (kinds[k].is_string() && kinds[k].get<std::string>() == to_string(dk)) {
          c.kinds.push_back(dk);
          found = true;
        }
      if (!found)
        throw error(error_code::config_range, ptr + "/kinds/" + std::to_string(k),
                    "expected gpu, tpu, npu, cpu or soc, got " + describe(kinds[k]));
    }
    c.min_compute_capability = dr.number_or("min_compute_capability", 0, 1, 20);
    if (dr.has("gfx")) {
      c.gfx = dr.string_list_or_empty("gfx");
      if (c.gfx.empty())
        throw error(error_code::config_range, ptr + "/gfx", "expected a non-empty array of LLVM targets (\"gfx942\")");
    }
    p.runs_on.push_back(c);
  }
  const json& src = object_at(r, "/runs_on", "source", "the engine's docs page that lists where it runs");
  detail::reader(src, "/runs_on/source").only({"url", "quote"}, "source field");
  p.runs_on_source.url = required_string(src, "/runs_on/source", "url", "the URL of the engine's docs page");
  if (p.runs_on_source.url.rfind("https://", 0) != 0)
    throw error(error_code::config_range, "/runs_on/source/url",
                "expected an https:// URL, got \"" + p.runs_on_source.url + "\"");
  p.runs_on_source.quote = required_string(src, "/runs_on/source", "quote", "the docs' words, as written");
  p.runs_on_note = optional_string(r, "/runs_on", "note");
}

// "launch": {program, model_flag, version, source, note, flags: [{setting, flag, value, off_flag,
// source, note}], yaml_options: [{setting, key, value, source, note}], not_expressible: [{setting, why}]}.
engine_launch read_launch(const json& l) {
  const std::string base = "/launch";
  if (!l.is_object()) throw error(error_code::config_type, base, "expected an object {program, flags, ...}");
  detail::reader(l, base).only(
      {"program", "model_flag", "version", "source", "note", "flags", "yaml_options", "not_expressible"},
      "launch field");
  engine_launch out;
  out.program = required_string(l, base, "program", "the command that starts the server");
  if (l.contains("model_flag") && !l.at("model_flag").is_null())
    out.model_flag = optional_string(l, base, "model_flag");
  out.version = required_string(l, base, "version", "the docs' version the flags were read at");
  out.note = optional_string(l, base, "note");
  out.source = read_source(l, base);
  const auto value_kind = [](const std::string& v, const std::string& ptr) {
    static const char* kinds[] = {"int", "float", "string", "json", "bool_switch", "bool_negatable"};
    for (const char* k : kinds)
      if (v == k) return;
    if (v.rfind("enum:", 0) == 0 && v.size() > 5) return;
    throw error(error_code::config_range, ptr,
                "expected int, float, string, json, bool_switch, bool_negatable or enum:a|b|c, got \"" + v + "\"");
  };
  const auto array_of = [&](const char* key) -> const json& {
    static const json empty = json::array();
    if (!l.contains(key)) return empty;
    const json& a = l.at(key);
    if (!a.is_array()) throw error(error_code::config_type, base + "/" + key, "expected an array");
    return a;
  };
  const json& flags = array_of("flags");
  for (std::size_t i = 0; i < flags.size(); ++i) {
    const std::string ptr = base + "/flags/" + std::to_string(i);
    const json& f = flags[i];
    if (!f.is_object()) throw error(error_code::config_type, ptr, "expected an object {setting, flag, value, source}");
    detail::reader(f, ptr).only({"setting", "flag", "value", "off_flag", "source", "note"}, "launch flag field");
    launch_flag x;
    x.setting = required_string(f, ptr, "setting", "the setting the flag sets");
    x.flag = required_string(f, ptr, "flag", "the flag as documented");
    if (x.flag.empty() || x.flag[0] != '-')
      throw error(error_code::config_range, ptr + "/flag", "expected a flag starting with '-', got \"" + x.flag + "\"");
    x.value = required_string(f, ptr, "value", "the flag's value kind");
    value_kind(x.value, ptr + "/value");
    x.off_flag = optional_string(f, ptr, "off_flag");
    x.source = read_source(f, ptr);
    x.note = optional_string(f, ptr, "note");
    out.flags.push_back(std::move(x));
  }
  const json& yaml = array_of("yaml_options");
  for (std::size_t i = 0; i < yaml.size(); ++i) {
    const std::string ptr = base + "/yaml_options/" + std::to_string(i);
    const json& y = yaml[i];
    if (!y.is_object()) throw error(error_code::config_type, ptr, "expected an object {setting, key, value, source}");
    detail::reader(y, ptr).only({"setting", "key", "value", "source", "note"}, "launch YAML option field");
    launch_yaml_option x;
    x.setting = required_string(y, ptr, "setting", "the setting the key sets");
    x.key = required_string(y, ptr, "key", "the YAML key (dotted path)");
    x.value = required_string(y, ptr, "value", "the value kind");
    x.source = read_source(y, ptr);
    x.note = optional_string(y, ptr, "note");
    out.yaml.push_back(std::move(x));
  }
  const json& none = array_of("not_expressible");
  for (std::size_t i = 0; i < none.size(); ++i) {
    const std::string ptr = base + "/not_expressible/" + std::to_string(i);
    if (!none[i].is_object()) throw error(error_code::config_type, ptr, "expected an object {setting, why}");
    detail::reader(none[i], ptr).only({"setting", "why"}, "not_expressible field");
    out.not_expressible.emplace_back(required_string(none[i], ptr, "setting", "the setting"),
                                     required_string(none[i], ptr, "why", "why the engine takes no flag for it"));
  }
  return out;
}

engine_profile parse(const json& j) {
  engine_profile p;
  p.id = required_string(j, "", "engine", "the engine id");
  for (char c : p.id)
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'))
      throw error(error_code::config_range, "/engine",
                  "expected a lower-case id of a-z, 0-9, '-' and '.', got \"" + p.id + "\"");
  detail::reader rd(j);
  rd.only({"engine", "name", "aliases", "repository", "version", "version_note", "batching", "kv_cache", "runs_on",
           "defaults", "launch", "efficiency"},
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

  read_runs_on(j, p);
  const json& defaults = object_at(j, "", "defaults", "the engine's defaults");
  if (defaults.empty()) throw error(error_code::config_missing, "/defaults", "an engine profile needs its defaults");
  for (auto it = defaults.begin(); it != defaults.end(); ++it)
    p.defaults.push_back(read_default(it.key(), *it, "/defaults/" + it.key()));
  if (rd.has("launch")) p.launch = read_launch(j.at("launch"));
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

const engine_family_fit* engine_profile::fit_for(const hardware_spec& gpu) const noexcept {
  if (!efficiency_fitted) return nullptr;
  const std::string family = gpu.family();
  const engine_family_fit* all = nullptr;
  for (const engine_family_fit& f : families) {
    if (!family.empty() && f.family == family) return &f;
    if (f.family == "all") all = &f;
  }
  return all;
}

namespace {
std::string lowered(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
std::string kind_plural(device_kind k) {
  switch (k) {
    case device_kind::gpu:
      return "GPUs";
    case device_kind::tpu:
      return "TPUs";
    case device_kind::npu:
      return "NPUs";
    case device_kind::cpu:
      return "CPUs";
    case device_kind::soc:
      return "SoCs";
  }
  return "devices";
}
}  // namespace

bool engine_profile::runs_on_device(const hardware_spec& gpu) const noexcept {
  const std::string vendor = lowered(gpu.vendor);
  for (const engine_device_class& c : runs_on) {
    if (c.vendor != "*" && !vendor.empty() && lowered(c.vendor) != vendor) continue;
    if (std::find(c.kinds.begin(), c.kinds.end(), gpu.kind) == c.kinds.end()) continue;
    // Below the docs' minimum compute capability (vLLM: 7.0, so no Pascal); 1e-6 absorbs 7.0 vs 7.
    if (c.min_compute_capability > 0 && gpu.compute_capability > 0 &&
        gpu.compute_capability + 1e-6 < c.min_compute_capability)
      continue;
    if (!c.gfx.empty() && !gpu.gfx.empty() && std::find(c.gfx.begin(), c.gfx.end(), gpu.gfx) == c.gfx.end()) continue;
    return true;
  }
  return false;
}

std::string engine_profile::runs_on_text() const {
  std::string out;
  for (std::size_t i = 0; i < runs_on.size(); ++i) {
    const engine_device_class& c = runs_on[i];
    std::string kinds;
    for (std::size_t k = 0; k < c.kinds.size(); ++k)
      kinds += (k == 0 ? "" : k + 1 == c.kinds.size() ? " and " : ", ") + kind_plural(c.kinds[k]);
    out += (i == 0 ? "" : ", ") + (c.vendor == "*" ? "any vendor's " + kinds : c.vendor + " " + kinds);
    if (c.min_compute_capability > 0) {
      char cc[32];
      std::snprintf(cc, sizeof cc, "%.1f", c.min_compute_capability);  // "7.0", as NVIDIA writes it
      out += std::string(" of compute capability ") + cc + " or higher";
    }
    if (!c.gfx.empty()) {
      std::string targets;
      for (const std::string& t : c.gfx) targets += (targets.empty() ? "" : " ") + t;
      out += " (" + targets + ")";
    }
  }
  return out + " (" + runs_on_source.url + ")";
}

std::string engine_profile::basis(const hardware_spec* gpu) const {
  const engine_family_fit* f = nullptr;
  if (efficiency_fitted && gpu != nullptr) f = fit_for(*gpu);
  if (efficiency_fitted && f == nullptr)
    for (const engine_family_fit& x : families)
      if (x.family == "all") f = &x;
  if (f == nullptr) return "unfitted (plain roofline plus the engine's scheduler defaults)";
  return "fitted to " + std::to_string(f->rows) + " measurements (" + f->family + "): its step costs and efficiencies";
}

std::vector<const engine_profile*> engines_for(const hardware_spec& gpu) {
  std::vector<const engine_profile*> out;
  for (const engine_profile& e : engine_records())
    if (e.runs_on_device(gpu)) out.push_back(&e);
  return out;
}

namespace {
// NVIDIA's data-centre cards with GDDR memory (L4, L40S, A10, A40, T4, the RTX PRO server cards)
// run where HBM parts do; GeForce, TITAN and the workstation RTX/Quadro boards sit on desks.
bool engine_default_datacenter_gddr(const hardware_spec& gpu) {
  if (gpu.memory_type != "gddr") return false;
  std::string n;
  for (char c : gpu.name) n += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (n.rfind("RTX-PRO", 0) == 0) return true;
  if (gpu.vendor != "NVIDIA") return false;
  for (const char* desk : {"RTX", "GTX", "TITAN", "QUADRO"})
    if (n.rfind(desk, 0) == 0) return false;
  return true;
}
}  // namespace

default_engine default_engine_for(const hardware_spec& gpu) {
  const bool datacenter = gpu.memory_type == "hbm" || gpu.kind == device_kind::tpu || gpu.kind == device_kind::npu ||
                          engine_default_datacenter_gddr(gpu);
  const char* first = datacenter ? "vllm" : "llama.cpp";
  const char* second = datacenter ? "llama.cpp" : "vllm";
  const std::string why = datacenter ? "the engine most deployments run on data-centre accelerators (HBM GPUs, "
                                       "TPUs, NPUs, NVIDIA's data-centre GDDR cards)"
                                     : "the engine most people run on Apple silicon, consumer and workstation "
                                       "cards, SoCs and CPUs";
  for (const char* id : {first, second}) {
    const engine_profile& e = find_engine(id);
    if (!e.runs_on_device(gpu)) continue;
    return {&e, "no engine named: " + e.name + ", " +
                    (id == first
                         ? why
                         : std::string("the engine of this device class (") + first + ") does not run on " + gpu.name) +
                    "; --engine none for the plain roofline"};
  }
  return {nullptr, "no engine named and none of the default engines runs on " + gpu.name + ": the plain roofline"};
}

void check_engine_runs_on(const engine_profile& e, const hardware_spec& gpu) {
  if (e.runs_on_device(gpu)) return;
  std::string here;
  for (const engine_profile* x : engines_for(gpu)) here += (here.empty() ? "" : ", ") + x->id;
  throw error(error_code::invalid_argument, "/engine",
              "engine \"" + e.id + "\" does not run on " + gpu.name + " (" +
                  (gpu.vendor.empty() ? "" : gpu.vendor + " ") + std::string(to_string(gpu.kind)) + "): " + e.name +
                  " runs on " + e.runs_on_text() + "; engines for this device: " + (here.empty() ? "none" : here));
}

void apply_engine(const engine_profile& e, const hardware_spec& gpu, settings& s) {
  check_engine_runs_on(e, gpu);
  s.engine = e.id;
  const engine_family_fit* f = e.fit_for(gpu);
  if (f == nullptr) return;
  if (s.compute_efficiency_origin == efficiency_origin::default_value) {
    s.compute_efficiency = f->compute_efficiency;
    s.compute_efficiency_origin = efficiency_origin::fitted;
  }
  if (s.mem_efficiency_origin == efficiency_origin::default_value) {
    s.mem_efficiency = f->mem_efficiency;
    s.mem_efficiency_origin = efficiency_origin::fitted;
  }
  s.costs = e.costs;
  s.bands = e.bands;
}

engine_scheduler scheduler_of(const engine_profile& e, const hardware_spec& gpu) {
  engine_scheduler out;
  const auto count = [&](std::string_view key) { return static_cast<std::int64_t>(e.number(key)); };
  const auto flag = [&](std::string_view key) {
    const engine_default* d = e.find(key);
    if (d == nullptr || d->type != engine_default::kind::boolean)
      throw error(error_code::config_type, "/defaults/" + std::string(key),
                  "engine \"" + e.id + "\": default \"" + std::string(key) + "\" is not a boolean");
    return d->boolean;
  };
  constexpr double gib = 1073741824.0;
  // A default the engine computes at start-up from memory (null): the KV blocks bound it.
  constexpr std::int64_t unbounded = max_simulation_requests;
  if (e.id == "vllm") {
    // EngineArgs._set_default_args: the API-server budgets (benchmarks run `vllm serve`), the
    // larger ones on GPUs of at least 70 GiB that are not A100s.
    const bool large = gpu.memory_bytes >= 70 * gib && detail::squash_name(gpu.name).find("a100") == std::string::npos;
    out.max_num_batched_tokens =
        count(large ? "max_num_batched_tokens_api_server_large_gpu" : "max_num_batched_tokens_api_server");
    out.max_num_seqs = std::min(count(large ? "max_num_seqs_large_gpu" : "max_num_seqs"), out.max_num_batched_tokens);
    out.chunked_prefill = flag("enable_chunked_prefill");
    out.block_size = count("block_size");
    out.gpu_memory_utilization = e.number("gpu_memory_utilization");
    out.prefix_cache = flag("enable_prefix_caching") ? prefix_cache_mode::block : prefix_cache_mode::off;
  } else if (e.id == "sglang") {
    // max_running_requests and chunked_prefill_size are computed from memory at start-up; the
    // prefill budget is max_prefill_tokens; prefills run in their own batches unless
    // enable_mixed_chunk.
    out.max_num_seqs = unbounded;
    out.max_num_batched_tokens = count("max_prefill_tokens");
    out.chunked_prefill = true;
    out.prefill_first = !flag("enable_mixed_chunk");
    out.block_size = count("page_size");
    out.prefix_cache = flag("disable_radix_cache") ? prefix_cache_mode::off : prefix_cache_mode::radix;
    out.state_memory_ratio = e.number("mamba_full_memory_ratio");
    out.state_slots_per_sequence = count("mamba_cache_per_running_request");
  } else if (e.id == "tensorrt-llm") {
    // In-flight batching mixes context and generation requests in one step.
    out.max_num_seqs = count("max_batch_size");
    out.max_num_batched_tokens = count("max_num_tokens");
    out.chunked_prefill = flag("enable_chunked_prefill");
    out.block_size = count("tokens_per_block");
    out.gpu_memory_utilization = e.number("kv_cache_free_gpu_memory_fraction");
    out.prefix_cache = flag("enable_block_reuse") ? prefix_cache_mode::block : prefix_cache_mode::off;
  } else if (e.id == "llama.cpp") {
    // llama-server: n_parallel slots, prompts processed n_ubatch tokens per physical step.
    out.max_num_seqs = count("n_parallel");
    out.max_num_batched_tokens = count("n_ubatch");
    out.chunked_prefill = true;
    out.block_size = 1;
  } else if (e.id == "mlx") {
    // mlx_lm BatchGenerator: completion_batch_size sequences, prompts prefilled prefill_step_size
    // tokens at a time in their own batches.
    out.max_num_seqs = count("completion_batch_size");
    out.max_num_batched_tokens = count("prefill_step_size");
    out.chunked_prefill = true;
    out.prefill_first = true;
    out.block_size = count("kv_cache_step");
  } else {
    throw error(error_code::invalid_argument, "/engine",
                "the serving simulator models continuous batching; engine \"" + e.id + "\" batches " +
                    std::string(to_string(e.batching)) + " (use estimate for its single-batch figures)");
  }
  return out;
}

void apply_scheduler(const engine_scheduler& k, simulation_settings& s) {
  s.max_num_seqs = k.max_num_seqs;
  s.max_num_batched_tokens = k.max_num_batched_tokens;
  s.chunked_prefill = k.chunked_prefill;
  s.policy = k.prefill_first ? batching_policy::prefill_first : batching_policy::mixed;
  s.block_size = k.block_size;
  s.prefix_cache = k.prefix_cache;
  s.state_memory_ratio = k.state_memory_ratio;
  s.state_slots_per_sequence = k.state_slots_per_sequence;
  if (!s.base.gpu_memory_utilization) s.base.gpu_memory_utilization = k.gpu_memory_utilization;
}

void apply_engine(const engine_profile& e, const hardware_spec& gpu, simulation_settings& s) {
  apply_engine(e, gpu, s.base);
  apply_scheduler(scheduler_of(e, gpu), s);
}

}  // namespace flopcast
