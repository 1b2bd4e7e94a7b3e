#include "common.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "flopcast/io/request_json.hpp"
#include "flopcast/serving/work_bound.hpp"
#include "inputs/checkpoint_cmd.hpp"
#include "inputs/hub.hpp"

namespace flopcast::cli {
namespace {

using json = nlohmann::json;

// Pointer prefixes whose value came from a file ("/model" -> "path/config.json"), for messages.
std::map<std::string, std::string>& file_origins() {
  static std::map<std::string, std::string> k;
  return k;
}

// The exact weight bytes of a checkpoint MODEL, by request pointer, and where they came from.
std::map<std::string, std::pair<double, std::string>>& checkpoint_weights() {
  static std::map<std::string, std::pair<double, std::string>> k;
  return k;
}

std::string& calibration_override() {
  static std::string k;
  return k;
}

bool looks_like_path(const std::string& s) {
  std::ifstream probe(s);
  return probe.good() || (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}

std::string help_for(const request_field& f, bool lists) {
  std::string h(f.help);
  if (f.flag_scale != 1) h += ", " + std::string(f.flag_unit);
  if (f.listable && (lists || f.part == "simulation")) h += " (comma list)";
  if (f.type == field_type::boolean) return h;
  return h + " [" + (f.type == field_type::gpu ? std::string(default_gpu_name) : default_text(f)) + "]";
}

}  // namespace

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  if (out.empty()) out.push_back("");
  return out;
}

[[noreturn]] void bad(const std::string& option, const std::string& message) {
  throw error(error_code::invalid_argument, option, message);
}

bool is_json_number(const std::string& s, bool integer_only) {
  // RFC 8259 section 6: [ "-" ] ( "0" / [1-9] *DIGIT ) [ "." 1*DIGIT ] [ ( "e" / "E" ) [ "+" / "-" ] 1*DIGIT ]
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t from = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i > from;
  };
  if (i < s.size() && s[i] == '-') ++i;
  if (i < s.size() && s[i] == '0')
    ++i;
  else if (!digits())
    return false;
  if (i < s.size() && s[i] == '.') {
    ++i;
    if (integer_only || !digits()) return false;
  }
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (integer_only || !digits()) return false;
  }
  return i == s.size();
}

std::int64_t parse_int(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  long long v = 0;
  if (!is_json_number(text, true)) bad(option, "expected an integer, but got \"" + text + "\"");
  try {
    v = std::stoll(text, &used);
  } catch (const std::out_of_range&) {
    bad(option, "expected an integer, but got \"" + text + "\" (out of range)");
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) bad(option, "expected an integer, but got \"" + text + "\"");
  return v;
}

std::string read_file(const std::string& path, const std::string& option) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw error(error_code::io, option, "cannot read \"" + path + "\": it is a directory, expected a JSON file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::io, option, "cannot read \"" + path + "\": " + std::strerror(errno));
  // Never more than the limit (+1 to tell): /dev/zero or a huge file stops here, not at bad_alloc.
  constexpr std::size_t limit = std::size_t{16} << 20;
  std::string text(limit + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw error(error_code::io, option, "cannot read \"" + path + "\": " + std::strerror(errno));
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > limit)
    throw error(error_code::limit, option,
                "\"" + path + "\" is larger than 16 MiB: expected a JSON file of at most 16 MiB");
  return text;
}

json json_number_or_text(const std::string& text) {
  if (!is_json_number(text)) return text;
  if (is_json_number(text, true)) {
    char* end = nullptr;
    errno = 0;
    const long long i = std::strtoll(text.c_str(), &end, 10);
    if (errno == 0) return i;
  }
  const double x = std::strtod(text.c_str(), nullptr);
  return std::isfinite(x) ? json(x) : json(text);
}

namespace {
std::map<std::string, std::string>& flag_names() {
  static std::map<std::string, std::string> k;
  return k;
}
}  // namespace

void name_flag(const std::string& pointer, const std::string& flag) { flag_names()[pointer] = flag; }

json typed_value(const request_field& f, const std::string& text) {
  switch (f.type) {
    case field_type::integer:
    case field_type::number:
    case field_type::tokens: {
      // Only JSON's number syntax is a number ("0x10", "0x1p3", " 8", "inf" stay text, which the
      // core refuses as JSON refuses "0x10").
      if (!is_json_number(text, false)) return text;
      char* end = nullptr;
      errno = 0;
      const long long i = std::strtoll(text.c_str(), &end, 10);
      if (!text.empty() && end == text.c_str() + text.size() && errno == 0 && f.flag_scale == 1) return i;
      const double x = std::strtod(text.c_str(), &end);
      // A value the flag's unit scales past a double's range stays text (JSON has no infinity).
      if (!text.empty() && end == text.c_str() + text.size() && std::isfinite(x * f.flag_scale))
        return x * f.flag_scale;
      return text;  // the core reports "expected ..., but got string ..."
    }
    case field_type::token_range: {
      // MIN:MAX -> [MIN, MAX]; anything else goes to the core as typed (its type error).
      const std::size_t colon = text.find(':');
      if (colon == std::string::npos) return text;
      request_field one = f;
      one.type = field_type::integer;
      return json::array({typed_value(one, text.substr(0, colon)), typed_value(one, text.substr(colon + 1))});
    }
    default:
      return text;
  }
}

namespace {

// Where each trace row came from: its line in the CSV file, and the columns' order.
struct trace_origin {
  std::vector<std::size_t> lines;
  std::vector<std::string> columns;
};
trace_origin& trace_lines() {
  static trace_origin k;
  return k;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The counts of a trace CSV, taken as read and before any JSON is built: its rows against the
// simulator's row limit (max_simulation_requests, the JSON trace's too), the request they would
// make against the request size limit (each row {"arrival_s":..,"input_tokens":..,
// "output_tokens":..}, about 50 bytes), and their output tokens against the work bound's floor.
// A header it does not know is left to trace_value's own message.
void check_trace_counts(const std::string& text, const std::string& path, const std::string& pointer) {
  std::vector<std::string> columns;
  std::size_t out_column = std::string::npos, rows = 0, bytes = 1, line_number = 0;
  double output_tokens = 0;
  const auto refuse = [&](const std::string& message) {
    throw error(error_code::limit, pointer, message + " in " + path);
  };
  for (std::size_t at = 0; at < text.size();) {
    const std::size_t end = std::min(text.find('\n', at), text.size());
    const std::string line = text.substr(at, end - at);
    at = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::vector<std::string> cells = split(line);
    if (columns.empty()) {
      for (auto& c : cells) c = trim(c);
      columns = cells;
      out_column =
          static_cast<std::size_t>(std::find(columns.begin(), columns.end(), "output_tokens") - columns.begin());
      continue;
    }
    if (++rows > static_cast<std::size_t>(max_simulation_requests))
      refuse("expected a trace of at most " + std::to_string(max_simulation_requests) + " requests (rows), but line " +
             std::to_string(line_number) + " is row " + std::to_string(rows));
    bytes += 3;  // {}, and the comma between rows
    for (std::size_t c = 0; c < cells.size() && c < columns.size(); ++c) {
      const std::string cell = trim(cells[c]);
      if (!cell.empty()) bytes += columns[c].size() + 4 + cell.size();  // "key":value,
    }
    if (out_column < cells.size()) output_tokens += std::max(0.0, std::strtod(cells[out_column].c_str(), nullptr));
  }
  if (bytes > max_json_text_bytes)
    refuse("expected a trace whose request fits " + std::to_string(max_json_text_bytes) + " bytes (16 MiB, about " +
           std::to_string(max_json_text_bytes / std::max<std::size_t>(bytes / std::max<std::size_t>(rows, 1), 1)) +
           " rows like these), but its " + std::to_string(rows) + " rows make about " + std::to_string(bytes) +
           " bytes");
  const double work = trace_work_floor(static_cast<std::int64_t>(rows), output_tokens);
  if (work > max_simulation_work)
    refuse("the simulation's work is bounded by at least " + std::to_string(static_cast<long long>(work)) + " units (" +
           std::to_string(rows) + " rows and " + std::to_string(static_cast<long long>(output_tokens)) +
           " output tokens): expected at most " + std::to_string(static_cast<long long>(max_simulation_work)) +
           " (about 10 s of simulation); lower the trace's rows or output_tokens");
}

// A trace CSV (header arrival_s,input_tokens,output_tokens, in any order) as the request's
// array of {arrival_s, input_tokens, output_tokens}. Values go to the core as typed, so its
// checks and messages apply; cli_message adds the line and column.
json trace_value(const std::string& path, const std::string& pointer) {
  const std::string text = read_file(path, pointer);
  file_origins()[pointer] = path;
  check_trace_counts(text, path, pointer);
  trace_origin& origin = trace_lines();
  origin = {};
  static const std::vector<std::string> names = {"arrival_s", "input_tokens", "output_tokens"};
  json out = json::array();
  std::stringstream in(text);
  std::string line;
  std::size_t number = 0;
  bool header = false;
  const request_field* tokens = find_request_field("/simulation/input_tokens");
  const request_field* rate = find_request_field("/simulation/request_rate");
  while (std::getline(in, line)) {
    ++number;
    if (trim(line).empty()) continue;
    std::vector<std::string> cells = split(line);
    for (auto& c : cells) c = trim(c);
    if (!header) {
      // The three columns, and optionally prefix_id and session_id.
      std::vector<std::string> sorted;
      for (const std::string& c : cells)
        if (c != "prefix_id" && c != "session_id") sorted.push_back(c);
      std::sort(sorted.begin(), sorted.end());
      std::vector<std::string> unique = cells;
      std::sort(unique.begin(), unique.end());
      if (sorted != names || std::adjacent_find(unique.begin(), unique.end()) != unique.end())
        throw error(error_code::config_parse, pointer,
                    "expected the header arrival_s,input_tokens,output_tokens (in any order; optionally prefix_id, "
                    "session_id), but got \"" +
                        trim(line) + "\" in " + path + " line " + std::to_string(number));
      origin.columns = cells;
      header = true;
      continue;
    }
    const std::string at = pointer + "/" + std::to_string(out.size());
    origin.lines.push_back(number);
    if (cells.size() != origin.columns.size()) {
      std::string columns;
      for (const std::string& c : origin.columns) columns += (columns.empty() ? "" : ",") + c;
      throw error(error_code::config_parse, at,
                  "expected " + std::to_string(origin.columns.size()) + " comma-separated values (" + columns +
                      "), but got " + std::to_string(cells.size()));
    }
    json row = json::object();
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const bool id = origin.columns[c] == "prefix_id" || origin.columns[c] == "session_id";
      if (id && cells[c].empty()) continue;  // an optional id left empty: none
      row[origin.columns[c]] = typed_value(origin.columns[c] == "arrival_s" ? *rate : *tokens, cells[c]);
    }
    out.push_back(row);
  }
  if (!header)
    throw error(error_code::config_parse, pointer,
                "expected the header arrival_s,input_tokens,output_tokens, but \"" + path + "\" is empty");
  return out;
}

// " line 7, column 2" for a pointer into the trace read from a CSV file ("/simulation/trace/5/input_tokens").
std::string trace_place(const std::string& pointer) {
  static const std::string base = "/simulation/trace/";
  if (pointer.compare(0, base.size(), base) != 0) return "";
  const trace_origin& origin = trace_lines();
  const std::string rest = pointer.substr(base.size());
  const std::size_t slash = rest.find('/');
  char* end = nullptr;
  const std::string index = rest.substr(0, slash);
  const unsigned long row = std::strtoul(index.c_str(), &end, 10);
  if (index.empty() || *end != '\0' || row >= origin.lines.size()) return "";
  std::string out = " line " + std::to_string(origin.lines[row]);
  if (slash != std::string::npos) {
    const std::string key = rest.substr(slash + 1);
    for (std::size_t c = 0; c < origin.columns.size(); ++c)
      if (origin.columns[c] == key) out += ", column " + std::to_string(c + 1) + " (" + key + ")";
  }
  return out;
}

}  // namespace

namespace {

bool is_registry_model(const std::string& name) {
  try {
    (void)find_model(name);
    return true;
  } catch (const error&) {
    return false;
  }
}

}  // namespace

json model_value(const std::string& name, const std::string& pointer) {
  // A checkpoint (.gguf; .safetensors beside its config.json): only its header is read.
  if (is_checkpoint_path(name)) {
    checkpoint_info info;
    json config = checkpoint_model_value(name, &info);
    if (const auto bytes = checkpoint_weight_bytes(info))
      checkpoint_weights()[pointer] = {static_cast<double>(*bytes), checkpoint_weight_source(info, name)};
    file_origins()[pointer] = name;
    return config;
  }
  if (!looks_like_path(name)) {
    // Neither a file nor a bundled model but "org/name": the Hugging Face Hub (cli/hub.hpp).
    if (!looks_like_hub_id(name) || is_registry_model(name)) return name;
    hub_options hub;
    hub.revision = hub_revision();
    json config = hub_config(name, hub, pointer);
    file_origins()[pointer] = name;
    return config;
  }
  const std::string text = read_file(name, pointer);
  json config;
  try {
    config = parse_json_text(text, "config.json");
  } catch (const error& e) {
    throw error(e.code(), pointer, e.message() + " in " + name);
  }
  if (config.is_object()) {
    // The model's label: the folder of a .../config.json, else the path.
    std::string label = name;
    const auto slash = label.find_last_of('/');
    if (slash != std::string::npos && slash > 0 && label.substr(slash + 1) == "config.json")
      label = label.substr(0, slash);
    config["_name_or_path"] = label;
  }
  file_origins()[pointer] = name;
  return config;
}

void add_request_options(CLI::App& cmd, request_options& o, bool output_flags) {
  for (const request_field& f : request_fields()) {
    if (f.flag.empty() || !(f.commands & o.command)) continue;
    std::string names(f.flag);
    if (!f.short_flag.empty()) names = std::string(f.short_flag) + "," + names;
    const std::string help = help_for(f, o.lists);
    if (f.type == field_type::boolean && !f.negated_flag && !f.derived.empty()) {
      // A default that depends on others (the engine's): --X turns it on, --no-X off.
      std::int64_t& given = o.switches[std::string(f.pointer)];
      cmd.add_flag(names + ",!--no-" + std::string(f.flag.substr(2)), given, help);
    } else if (f.type == field_type::boolean) {
      bool& given = o.flags[std::string(f.pointer)];
      cmd.add_flag(names, given, help);
    } else {
      std::string& text = o.text[std::string(f.pointer)];
      note_given(cmd.add_option(names, text, help), o, std::string(f.pointer));
      if (f.type == field_type::gpu)
        note_given(cmd.add_option("--gpu-file", o.gpu_file, "Custom accelerator JSON (data/gpus.json record format)"),
                   o, "--gpu-file");
    }
  }
  note_given(cmd.add_option("--revision", o.revision,
                            "Hub branch, tag or commit of an org/name MODEL that is not bundled [main]"),
             o, "--revision");
  if (o.command != command_calibrate) {
    note_given(cmd.add_option(
                   "--calibration", o.calibration_file,
                   "Calibration store to apply [$FLOPCAST_CALIBRATION_FILE, else ~/.config/flopcast/calibration.json]"),
               o, "--calibration");
    cmd.add_flag("--no-calibration", o.no_calibration, "Apply no stored calibration");
  }
  if (output_flags) {
    auto* j = cmd.add_flag("--json", o.json, "Print JSON (SI units)");
    if (o.command == command_estimate || o.command == command_compare || o.command == command_simulate) {
      auto* c = cmd.add_flag("--csv", o.csv, "Print CSV (SI units)");
      j->excludes(c);
    }
  }
}

CLI::Option* note_given(CLI::Option* opt, request_options& o, const std::string& key) {
  request_options* at = &o;
  opt->each([at, key](const std::string&) { at->given.insert(key); });
  return opt;
}

namespace {

// An empty value given for a file-path option: refused, never read as "not given".
void refuse_empty_path(const request_options& o, const std::string& flag, const std::string& value,
                       const std::string& what) {
  if (value.empty() && o.given.count(flag))
    throw error(error_code::invalid_argument, flag, "expected " + what + ", but got \"\"");
}

}  // namespace

void use_calibration_option(const request_options& o) {
  refuse_empty_path(o, "--calibration", o.calibration_file, "the path of a calibration store");
  if (!o.calibration_file.empty()) set_calibration_file(o.calibration_file);
}

json build_request(const request_options& o) {
  json req = json::object();
  refuse_empty_path(o, "--gpu-file", o.gpu_file, "the path of a GPU JSON file");
  refuse_empty_path(o, "--revision", o.revision, "a Hub branch, tag or commit");
  set_hub_revision(o.revision);
  const auto slot = [&](const request_field& f) -> json& {
    return f.part.empty() ? req[std::string(f.key)] : req[std::string(f.part)][std::string(f.key)];
  };
  if (o.models.size() == 1) {
    req["model"] = model_value(o.models.front(), "/model");
  } else if (!o.models.empty()) {
    req["model"] = json::array();
    for (std::size_t i = 0; i < o.models.size(); ++i)
      req["model"].push_back(model_value(o.models[i], "/model/" + std::to_string(i)));
  }
  // One checkpoint MODEL: its exact weight bytes (an explicit --weight-bytes wins, below).
  const request_field* wb = find_request_field("/weight_bytes");
  const auto ckpt = checkpoint_weights().find("/model");
  if (o.models.size() == 1 && ckpt != checkpoint_weights().end() && wb != nullptr && (wb->commands & o.command)) {
    req["weight_bytes"] = ckpt->second.first;
    weight_bytes_source() = ckpt->second.second;
  }
  for (const request_field& f : request_fields()) {
    if (f.flag.empty() || !(f.commands & o.command)) continue;
    const std::string ptr(f.pointer);
    if (const auto sw = o.switches.find(ptr); sw != o.switches.end()) {
      if (sw->second != 0) slot(f) = sw->second > 0;
      continue;
    }
    if (f.type == field_type::boolean) {
      const auto it = o.flags.find(ptr);
      if (it != o.flags.end() && it->second) slot(f) = !f.negated_flag;
      continue;
    }
    const auto it = o.text.find(ptr);
    // Not given: the default. Given empty: "" goes to the core, which refuses it as in JSON.
    if (it == o.text.end() || (it->second.empty() && !o.given.count(ptr))) continue;
    const std::string& text = it->second;
    if (ptr == "/weight_bytes") weight_bytes_source() = "--weight-bytes";
    const auto one = [&](const std::string& item) -> json {
      if (f.type == field_type::gpu) return item;  // a name, or "none"
      if (f.type == field_type::model) return model_value(item, ptr);
      if (f.type == field_type::trace) return trace_value(item, ptr);
      return typed_value(f, item);
    };
    const std::vector<std::string> items = f.listable ? split(text) : std::vector<std::string>{text};
    if (f.type == field_type::precision && text.find('=') != std::string::npos) {
      // A precision per part: --precision experts=mxfp4,attention=bf16 (a bare name: the rest).
      json parts = json::object();
      for (const auto& item : items) {
        const std::size_t eq = item.find('=');
        parts[eq == std::string::npos ? std::string("default") : item.substr(0, eq)] =
            eq == std::string::npos ? item : item.substr(eq + 1);
      }
      slot(f) = parts;
      continue;
    }
    if (items.size() > 1) {
      json list = json::array();
      for (const auto& item : items) list.push_back(one(item));
      slot(f) = list;
    } else {
      slot(f) = one(items.front());
    }
  }
  if (!o.gpu_file.empty()) {
    const std::string text = read_file(o.gpu_file, "/gpu");
    try {
      req["gpu"] = parse_json_text(text, "the GPU description");
    } catch (const error& e) {
      throw error(e.code(), "/gpu", e.message() + " in " + o.gpu_file);
    }
    file_origins()["/gpu"] = o.gpu_file;
  }
  use_calibration_option(o);
  if (!o.no_calibration && o.command != command_calibrate) {
    const std::vector<calibration_entry> entries = load_calibration();
    if (!entries.empty()) {
      req["calibration"] = json::parse(calibration_to_json(entries, -1));
      req["calibration"]["origin"] = calibration_path();
    }
  }
  return req;
}

std::string cli_message(const error& e) {
  std::string where = e.pointer();
  std::string message = e.message();
  // The core's lookup errors say what is allowed in neutral words; the CLI adds where to look.
  // (Once: a message that already carries a hint, an inner error quoted, gets none.)
  if (message.find("(flopcast list-") == std::string::npos) {
    if (e.code() == error_code::unknown_model && e.pointer() == "/model")
      message += " (flopcast list-models shows all; a path to a config.json also works)";
    else if (e.code() == error_code::unknown_model)
      message += " (flopcast list-models shows all)";
    else if (e.code() == error_code::unknown_gpu)
      message += " (flopcast list-gpus shows all; --gpu-file reads a custom one)";
  }
  const request_field* f = find_request_field(e.pointer());
  // An element of a [min, max] range ("/simulation/input_tokens_range/1"): the range's flag.
  if (f == nullptr && e.pointer().size() > 2) {
    const request_field* up = find_request_field(e.pointer().substr(0, e.pointer().rfind('/')));
    if (up != nullptr && up->type == field_type::token_range) f = up;
  }
  if (!e.pointer().empty() && e.pointer()[0] == '/') {
    std::string flag;
    if (f && !f->flag.empty()) flag = std::string(f->flag);
    if (f && f->type == field_type::model && f->part.empty()) flag = "MODEL";
    if (f && f->type == field_type::gpu && file_origins().count("/gpu")) flag = "--gpu-file";
    if (flag_names().count(e.pointer())) flag = flag_names().at(e.pointer());
    // A value in a trace CSV: its line and column.
    const auto trace_file = file_origins().find("/simulation/trace");
    if (trace_file != file_origins().end() &&
        e.pointer().compare(0, trace_file->first.size(), trace_file->first) == 0) {
      if (message.find(trace_file->second) == std::string::npos)
        message += " in " + trace_file->second + trace_place(e.pointer());
      return "[flopcast." + std::string(to_string(e.code())) + "] (--trace, " + e.pointer() + ") " + message;
    }
    // A pointer inside a value read from a file ("/model/hidden_size"): name the file.
    for (const auto& [prefix, file] : file_origins())
      if (e.pointer().compare(0, prefix.size(), prefix) == 0 && message.find(file) == std::string::npos) {
        if (flag.empty())
          flag = prefix == "/gpu" ? "--gpu-file" : prefix.rfind("/serving", 0) == 0 ? "--draft" : "MODEL";
        message += " in " + file;
        break;
      }
    if (!flag.empty()) where = flag + ", " + e.pointer();
  }
  std::string out = "[flopcast." + std::string(to_string(e.code())) + "]";
  if (!where.empty()) out += " (" + where + ")";
  return out + " " + message;
}

std::string& weight_bytes_source() {
  static std::string k;
  return k;
}

void set_calibration_file(const std::string& path) { calibration_override() = path; }

std::string calibration_path() {
  if (!calibration_override().empty()) return calibration_override();
  if (const char* f = std::getenv("FLOPCAST_CALIBRATION_FILE"); f && *f) return f;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/flopcast/calibration.json";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/flopcast/calibration.json";
  return ".flopcast-calibration.json";
}

std::vector<calibration_entry> load_calibration(bool missing_ok) {
  const std::string path = calibration_path();
  std::error_code ec;
  const bool exists = std::filesystem::exists(path, ec);
  if (ec && ec != std::errc::no_such_file_or_directory)  // a link loop, a folder that cannot be searched
    throw error(error_code::io, "--calibration", "cannot read \"" + path + "\": " + ec.message());
  if (!exists) {
    if (!calibration_override().empty() && !missing_ok)
      throw error(error_code::io, "--calibration", "cannot read \"" + path + "\": no such file");
    return {};
  }
  if (std::filesystem::is_directory(path, ec))
    throw error(error_code::io, "--calibration",
                "the calibration store \"" + path + "\" is a directory: expected a JSON file");
  const std::string text = read_file(path, "--calibration");
  try {
    return read_calibration(text, path);
  } catch (const error& e) {
    throw error(e.code(), "--calibration", e.message() + " in " + path + " (flopcast calibrate reset clears it)");
  }
}

namespace {

[[noreturn]] void store_error(const std::string& what, const std::string& path, int err) {
  throw error(error_code::io, "--calibration", what + " \"" + path + "\": " + std::strerror(err));
}

// The file a write must replace: the store, or what a symbolic link at its path points to (the
// link stays a link). A link that does not end within 16 links (a loop) is an error, never replaced
// by a file.
std::filesystem::path store_target() {
  std::filesystem::path path = calibration_path();
  std::error_code ec;
  for (int hops = 0; hops < 16 && std::filesystem::is_symlink(path, ec); ++hops) {
    std::filesystem::path to = std::filesystem::read_symlink(path, ec);
    if (ec) store_error("cannot read the symbolic link", path.string(), ec.value());
    path = to.is_absolute() ? to : path.parent_path() / to;
  }
  if (std::filesystem::is_symlink(path, ec))
    throw error(error_code::io, "--calibration",
                "the calibration store \"" + calibration_path() +
                    "\" is a symbolic link that does not end in a file within 16 links (a loop?): expected a JSON "
                    "file or a link to one");
  return path;
}

// A store the user made read-only (no write permission bit, or not writable by this user) is
// never replaced or removed.
void check_writable(const std::filesystem::path& target) {
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return;  // none yet
  if ((st.st_mode & 0222) == 0 || ::access(target.c_str(), W_OK) != 0)
    throw error(error_code::io, "--calibration",
                "the calibration store \"" + target.string() +
                    "\" is read-only: make it writable (chmod u+w) to change it, or name another with --calibration");
}

// Creates a new file beside `target` that only this process knows, with the permissions open()
// gives (0666 less the umask).
int create_temporary(const std::filesystem::path& target, std::string& tmp) {
  const std::filesystem::path dir = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  static unsigned counter = 0;
  for (int attempt = 0; attempt < 100; ++attempt) {
    tmp = (dir / ("." + target.filename().string() + "." + std::to_string(::getpid()) + "." +
                  std::to_string(++counter) + ".tmp"))
              .string();
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST) return fd;
  }
  errno = EEXIST;
  return -1;
}

// Writes every byte or fails with errno (a full disk or a file-size limit fails here).
void write_all(int fd, const std::string& text, const std::string& path) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) store_error("cannot write", path, n < 0 ? errno : EIO);
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

}  // namespace

calibration_lock::calibration_lock() {
  const std::filesystem::path target = store_target();
  std::error_code ec;
  if (target.has_parent_path()) {
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) store_error("cannot create the folder", target.parent_path().string(), ec.value());
  }
  if (std::filesystem::is_directory(target, ec))
    throw error(error_code::io, "--calibration",
                "the calibration store \"" + target.string() + "\" is a directory: expected a JSON file");
  const std::string lock = target.string() + ".lock";
  fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
  if (fd_ < 0) store_error(errno == ENOENT ? "cannot lock the calibration store with" : "cannot create", lock, errno);
  while (::flock(fd_, LOCK_EX) != 0)
    if (errno != EINTR) store_error("cannot lock", lock, errno);
}

calibration_lock::~calibration_lock() {
  if (fd_ >= 0) ::close(fd_);  // releases the lock
}

void save_calibration(const std::vector<calibration_entry>& entries) {
  const std::filesystem::path target = store_target();
  check_writable(target);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : std::string(".");
  std::string tmp;
  const int fd = create_temporary(target, tmp);
  if (fd < 0) store_error("cannot write in the folder", dir, errno);
  try {
    struct stat st {};
    // Keep an existing store's permissions; a new one has open()'s (0666 less the umask).
    if (::stat(target.c_str(), &st) == 0 && ::fchmod(fd, st.st_mode & 07777) != 0)
      store_error("cannot set the permissions of", tmp, errno);
    write_all(fd, calibration_to_json(entries) + "\n", tmp);
    if (::fsync(fd) != 0) store_error("cannot write", tmp, errno);
    if (::close(fd) != 0) store_error("cannot write", tmp, errno);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    store_error("cannot replace", target.string(), err);
  }
  // The rename itself is durable once the folder is.
  const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    (void)::fsync(dfd);
    ::close(dfd);
  }
}

bool remove_calibration() {
  const std::filesystem::path target = store_target();
  check_writable(target);
  if (::unlink(target.c_str()) == 0) return true;
  if (errno == ENOENT) return false;
  store_error("cannot remove", target.string(), errno);
}

}  // namespace flopcast::cli
