// Fits each engine profile's efficiency section (data/engines/*.json) to the fit part of the
// validation table (data/measurements/, source.split == "fit"), and writes it back. `npm run fit`
// runs it and formats the files. Deterministic: the same table gives the same constants.
//
// The fit itself is core/cli/measure/engine_fit.cpp (shared with `flopcast validate --loco`). Per
// engine, the parameters are
//  - shared by every device: per_step_s, per_layer_s (fixed costs of an iteration),
//    gemm_half_tokens (the tokens in a step at which GEMMs reach half their efficiency) and
//    kv_read_efficiency (decode attention's cache reads relative to the weights' bandwidth);
//  - per device family (vendor and memory type, hardware_spec::family()): mem_efficiency, and
//    compute_efficiency where the family has fit rows on at least two devices or the most rows
//    (the others borrow the latter's);
// chosen to minimise the mean over sources of the mean |log(predicted / measured)| of their rows
// (every source weighs the same, however many rows it has), by a bounded pattern search in log
// space. The predictions are validation.cpp's, the ones `flopcast validate` reports. The pooled
// family "all" (for devices of a family without rows) is the row-weighted geometric mean of the
// fitted families. The bands (ranges) are the p10 and p90 of measured/predicted time ratios over
// every row of the engine, fit and held out, per figure category (validation::category_of), with
// their p50 (median: the point correction where a band excludes 1, estimate.hpp band_biased).
//
//   flopcast_fit [--source-dir DIR] [--check] [--engine ID]
//     --engine: only this engine's profile, by id or file name (llama-cpp); ctest checks each
//               engine in a test of its own, so the fits run side by side
//     --check: fit, compare with the committed sections, exit 1 when a constant differs by more
//              than 1e-6 relative (nothing is written).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "../core/cli/measure/engine_fit.hpp"

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using flopcast::validation::row;

namespace {

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The committed section against a fresh fit: the same keys, strings and arrays, numbers within
// 1e-4 relative (the committed ones are rounded to 6 digits; prettier may print them shorter).
bool same(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) {
    const double x = a.get<double>(), y = b.get<double>();
    return std::fabs(x - y) <= 1e-4 * std::max(std::fabs(x), std::fabs(y)) + 1e-12;
  }
  if (a.type() != b.type()) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!b.contains(it.key()) || !same(*it, b.at(it.key()))) return false;
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

}  // namespace

int main(int argc, char** argv) {
  fs::path dir = FLOPCAST_SOURCE_DIR;
  bool check = false;
  std::string only;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--source-dir" && i + 1 < argc) {
      dir = argv[++i];
    } else if (a == "--check") {
      check = true;
    } else if (a == "--engine" && i + 1 < argc) {
      only = argv[++i];
    } else {
      std::cerr << "usage: flopcast_fit [--source-dir DIR] [--check] [--engine ID]\n";
      return 2;
    }
  }
  std::vector<fs::path> measurement_files;
  for (const auto& e : fs::directory_iterator(dir / "data/measurements"))
    if (e.path().extension() == ".json") measurement_files.push_back(e.path());
  std::sort(measurement_files.begin(), measurement_files.end());
  std::vector<std::string> texts;
  for (const auto& p : measurement_files) texts.push_back(read_text(p));
  std::vector<std::string_view> views(texts.begin(), texts.end());
  // Rows that state a serving feature (prefix caching with a prompt pool, attention DP, speculative
  // decoding, disaggregation, replicas) check those features; the engines' constants and bands
  // come from the others (`flopcast validate` summarises the two apart).
  const std::vector<row> rows = flopcast::validation::fit_table(flopcast::validation::rows_of(views));

  int differences = 0;
  bool found = only.empty();
  for (const auto& e : fs::directory_iterator(dir / "data/engines")) {
    if (e.path().extension() != ".json") continue;
    json profile = json::parse(read_text(e.path()));
    const std::string id = profile.at("engine").get<std::string>();
    if (!only.empty() && id != only && e.path().stem().string() != only) continue;
    found = true;
    const json efficiency = flopcast::validation::fit_engine(id, rows, &std::cerr);
    if (check) {
      if (!same(profile.at("efficiency"), efficiency)) {
        std::cerr << id << ": the committed efficiency section differs from the fit\n  committed: "
                  << profile.at("efficiency").dump() << "\n  fit:       " << efficiency.dump() << "\n";
        ++differences;
      }
      continue;
    }
    profile["efficiency"] = efficiency;
    std::ofstream out(e.path(), std::ios::binary);
    out << profile.dump(2) << "\n";
  }
  if (!found) {
    std::cerr << "flopcast_fit: no engine \"" << only << "\" in " << (dir / "data/engines").string() << "\n";
    return 2;
  }
  return differences == 0 ? 0 : 1;
}
