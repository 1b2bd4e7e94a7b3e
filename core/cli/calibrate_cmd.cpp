#include "calibrate_cmd.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <deque>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "common.hpp"
#include "flopcast/io/request_json.hpp"
#include "flopcast/measure/measure.hpp"
#include "format.hpp"

namespace flopcast::cli {
namespace {

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r\"");
  const auto e = s.find_last_not_of(" \t\r\"");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// Rows of measurements from a CSV (header: model,gpu,precision,batch_size,sequence_length,
// num_generated_tokens,decode_tokens_per_second,ttft_s; empty cells allowed) or a JSON array
// of objects with the same keys (any order).
std::vector<measured_row> read_rows(const std::string& path, std::deque<calibration_request>& owned) {
  const std::string text = read_file(path, "--file");
  std::vector<std::vector<std::pair<std::string, std::string>>> records;
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '[') {
    // JSON rows: reuse the request reader for each row's settings via a compare request.
    throw error(error_code::invalid_argument, "--file", "JSON rows are not supported yet in " + path + ": use CSV");
  }
  std::istringstream in(text);
  std::string line;
  std::vector<std::string> header;
  int line_no = 0;
  while (std::getline(in, line)) {
    ++line_no;
    if (trim(line).empty()) continue;
    const auto cells = split(line);
    if (header.empty()) {
      for (const auto& c : cells) header.push_back(trim(c));
      for (const char* need : {"model", "gpu"})
        if (std::find(header.begin(), header.end(), need) == header.end())
          bad("--file", std::string("expected a CSV header with a \"") + need + "\" column in " + path);
      continue;
    }
    if (cells.size() != header.size())
      bad("--file", fmt::format("{}:{}: expected {} cells as in the header, but got {}", path, line_no, header.size(),
                                cells.size()));
    std::vector<std::pair<std::string, std::string>> rec;
    for (std::size_t i = 0; i < cells.size(); ++i) rec.emplace_back(header[i], trim(cells[i]));
    rec.emplace_back("#line", std::to_string(line_no));
    records.push_back(std::move(rec));
  }
  if (records.empty()) bad("--file", "expected at least one measured row in " + path);
  std::vector<measured_row> rows;
  for (const auto& rec : records) {
    const auto get = [&](const char* key) {
      for (const auto& [k, v] : rec)
        if (k == key) return v;
      return std::string();
    };
    const std::string where = path + ":" + get("#line");
    measured_row row{};
    try {
      // Each row is a calibration request: the cells are its fields, read as JSON would be.
      nlohmann::json req = {{"model", model_value(get("model"), "/model")}, {"gpu", get("gpu")}};
      for (const char* key : {"precision", "batch_size", "sequence_length", "num_generated_tokens"})
        if (!get(key).empty()) req[key] = typed_value(*find_request_field(std::string("/") + key), get(key));
      const std::pair<const char*, const char*> measured[] = {{"decode_tokens_per_second", "decode_tokens_per_second"},
                                                              {"ttft_s", "time_to_first_token_s"}};
      for (const auto& [column, key] : measured)
        if (!get(column).empty())
          req["measured"][key] = typed_value(*find_request_field(std::string("/measured/") + key), get(column));
      if (!req.contains("measured")) req["measured"] = nlohmann::json::object();
      owned.push_back(read_calibration_request(req));
      const compare_plan::point p = owned.back().request.plan.at(0);
      row.model = p.model;
      row.gpu = p.gpu;
      row.config = p.config;
      row.measured = owned.back().measured;
    } catch (const error& e) {
      throw error(e.code(), "--file", where + ": " + cli_message(e));
    }
    rows.push_back(row);
  }
  return rows;
}

void print_entries(const std::vector<calibration_entry>& entries) {
  if (entries.empty()) {
    std::cout << "no calibration stored (" << calibration_path() << ")\n";
    return;
  }
  std::cout << fmt::format("{:<36} {:<16} {:<6} {:>8} {:>8}  {}\n", "model", "gpu", "prec", "compute", "memory",
                           "source");
  for (const auto& e : entries)
    std::cout << fmt::format("{:<36} {:<16} {:<6} {:>8} {:>8}  {}\n", e.model, e.gpu, e.precision,
                             e.compute_efficiency ? format_percent(*e.compute_efficiency) : std::string(none_text),
                             e.mem_efficiency ? format_percent(*e.mem_efficiency) : std::string(none_text), e.source);
  std::cout << "(" << calibration_path() << ")\n";
}

}  // namespace

calibrate_command add_calibrate_command(CLI::App& parent) {
  struct state {
    request_options o;
    std::string file;
    bool show_json = false, from_measure = false;
    std::string layers = "4", prompt = "128", gen = "32", threads = "0";
  };
  auto st = std::make_shared<state>();
  st->o.command = command_calibrate;
  calibrate_command cmd;
  cmd.app = parent.add_subcommand("calibrate",
                                  "Pin compute/memory efficiency to measured figures (stored for later estimates)");
  CLI::App& a = *cmd.app;
  a.require_subcommand(0, 1);
  a.add_option("MODEL", st->o.models, "The measured model (registry name or config.json path)")->expected(0, 1);
  add_request_options(a, st->o);
  note_given(
      a.add_option("--calibration", st->o.calibration_file,
                   "The calibration store [$FLOPCAST_CALIBRATION_FILE, else ~/.config/flopcast/calibration.json]"),
      st->o, "--calibration");
  a.add_option("--file", st->file,
               "CSV of measured rows "
               "(model,gpu,precision,batch_size,sequence_length,num_generated_tokens,decode_tokens_per_second,ttft_s)");
  a.add_flag("--from-measure", st->from_measure,
             "Measure MODEL on this machine (flopcast measure) and store the result for \"this-cpu\"");
  a.add_option("--layers", st->layers, "With --from-measure: layers of MODEL to run [4]");
  a.add_option("--prompt", st->prompt, "With --from-measure: prompt tokens [128]");
  a.add_option("--gen", st->gen, "With --from-measure: generated tokens [32]");
  a.add_option("--threads", st->threads, "With --from-measure: threads, 0 = all [0]");
  auto* show = a.add_subcommand("show", "Show the stored calibration");
  show->add_flag("--json", st->show_json, "Print JSON");
  auto* reset = a.add_subcommand("reset", "Delete the stored calibration");

  cmd.run = [st, show, reset] {
    use_calibration_option(st->o);
    const bool all_models = st->o.flags["/all_models"];
    const std::string model = st->o.models.empty() ? std::string() : st->o.models.front();
    const auto given = [&](const char* ptr) { return st->o.given.count(ptr) > 0; };
    if (*show) {
      const auto entries = load_calibration(true);
      if (st->show_json)
        std::cout << calibration_to_json(entries) << "\n";
      else
        print_entries(entries);
      return 0;
    }
    if (*reset) {
      const std::string path = calibration_path();
      const calibration_lock lock;
      const bool existed = remove_calibration();
      std::cout << (existed ? "removed " : "nothing to remove at ") << path << "\n";
      return 0;
    }
    std::deque<calibration_request> owned;
    std::vector<calibration_entry> added;
    if (st->from_measure) {
      if (model.empty()) bad("MODEL", "expected the model to measure with --from-measure");
      const compare_request measured =
          read_compare_request(nlohmann::json{{"model", model_value(model, "/model")}, {"gpu", nullptr}}, false);
      const model_spec& spec = *measured.plan.models.front();
      measure::measure_options mo;
      mo.layers = parse_int(st->layers, "--layers");
      mo.prompt_tokens = parse_int(st->prompt, "--prompt");
      mo.generated_tokens = parse_int(st->gen, "--gen");
      const std::int64_t threads = parse_int(st->threads, "--threads");
      if (threads < 0 || threads > 4096)
        bad("--threads", "expected 0 (all) or a positive thread count, but got " + st->threads);
      mo.threads = static_cast<int>(threads);
      std::cerr << "measuring " << spec.name << " on this machine...\n";
      const measure::measure_result r = measure::run_measurement(spec, mo);
      calibration_entry e;
      e.model = "*";
      e.gpu = r.hardware.name;
      e.precision = std::string(to_string(r.estimate_settings.weight_precision));
      e.compute_efficiency = r.calibration.compute_efficiency;
      e.mem_efficiency = r.calibration.mem_efficiency;
      e.source = "flopcast measure " + spec.name + " (" + std::to_string(r.layers) + " layers, prompt " +
                 std::to_string(mo.prompt_tokens) + ", " + std::to_string(mo.generated_tokens) + " generated)";
      added.push_back(e);
      // The measured machine, for --gpu-file: estimates on it then use this calibration.
      const std::string spec_path = calibration_path() + ".this-cpu.json";
      std::error_code ec;
      std::filesystem::create_directories(std::filesystem::path(spec_path).parent_path(), ec);
      std::ofstream out(spec_path, std::ios::trunc);
      if (out) out << hardware_to_json(r.hardware) << "\n";
      std::cerr << "this machine's spec: " << spec_path << " (use --gpu-file " << spec_path << ")\n";
    } else if (!st->file.empty()) {
      if (!model.empty() || given("/measured/decode_tokens_per_second") || given("/measured/time_to_first_token_s"))
        bad("--file", "expected either --file or MODEL with --decode-tps/--ttft, not both");
      added = calibrate_rows(read_rows(st->file, owned), all_models);
    } else {
      if (model.empty()) bad("MODEL", "expected the measured model (or --file, show, reset)");
      const calibration_request q = read_calibration_request(build_request(st->o));
      const compare_plan::point p = q.request.plan.at(0);
      added.push_back(calibrate(*p.model, p.config, *p.gpu, q.measured, q.all_models));
    }
    const calibration_lock lock;  // held from the read to the write
    std::vector<calibration_entry> entries = load_calibration(true);
    for (const auto& e : added) upsert(entries, e);
    save_calibration(entries);
    if (st->o.json)
      std::cout << calibration_to_json(added) << "\n";
    else {
      std::cout << "stored:\n";
      print_entries(added);
    }
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
