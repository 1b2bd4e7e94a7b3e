#include "flopcast/calibration.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "detail.hpp"
#include "flopcast/error.hpp"

namespace flopcast {

const calibration_entry* find_calibration(const std::vector<calibration_entry>& entries, std::string_view model,
                                          std::string_view gpu, precision p) {
  const calibration_entry* best = nullptr;
  int best_score = -1;
  for (const auto& e : entries) {
    if (e.gpu != gpu) continue;
    const bool model_exact = e.model == model, prec_exact = e.precision == to_string(p);
    if (!(model_exact || e.model == "*") || !(prec_exact || e.precision == "*")) continue;
    const int score = (model_exact ? 2 : 0) + (prec_exact ? 1 : 0);
    if (score > best_score) {
      best = &e;
      best_score = score;
    }
  }
  return best;
}

void apply_calibration(settings& s, const std::vector<calibration_entry>& entries, const model_spec& m,
                       const hardware_spec* gpu) {
  if (gpu == nullptr || entries.empty()) return;
  const calibration_entry* e = find_calibration(entries, m.name, gpu->name, s.weight_precision);
  if (e == nullptr) return;
  bool used = false;
  if (e->compute_efficiency && s.compute_efficiency_origin == efficiency_origin::default_value) {
    s.compute_efficiency = *e->compute_efficiency;
    s.compute_efficiency_origin = efficiency_origin::calibrated;
    used = true;
  }
  if (e->mem_efficiency && s.mem_efficiency_origin == efficiency_origin::default_value) {
    s.mem_efficiency = *e->mem_efficiency;
    s.mem_efficiency_origin = efficiency_origin::calibrated;
    used = true;
  }
  if (used) s.calibration_source = e->source;
}

void upsert(std::vector<calibration_entry>& entries, const calibration_entry& e) {
  for (auto& x : entries)
    if (x.model == e.model && x.gpu == e.gpu && x.precision == e.precision) {
      x = e;
      return;
    }
  entries.push_back(e);
}

namespace {

// Solves latency(eff) = target for eff in (0, 1] by bisection (latency falls as eff rises).
template <class F>
double solve(F latency_at, double target, const char* what, const std::string& ceiling_text) {
  const double best = latency_at(1.0);
  if (target < best * (1 - 1e-9))
    throw error(error_code::invalid_argument, what,
                "the measured figure is beyond the physical ceiling of this GPU (" + ceiling_text +
                    " at 100% efficiency): check the measurement, the GPU or the precision");
  double lo = 1e-6, hi = 1.0;
  if (latency_at(lo) < target) return lo;
  for (int i = 0; i < 100; ++i) {
    const double mid = std::sqrt(lo * hi);
    (latency_at(mid) > target ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}

}  // namespace

calibration_entry calibrate(const model_spec& m, const settings& config, const hardware_spec& gpu,
                            const measurement& measured, bool for_all_models) {
  if (!measured.decode_tokens_per_second && !measured.time_to_first_token_s)
    throw error(error_code::invalid_argument, "/measured",
                "expected a measured decode tokens/s or time to first token");
  settings s = config;
  s.parallel = parallel_layout{};
  calibration_entry e;
  e.model = for_all_models ? "*" : m.name;
  e.gpu = gpu.name;
  e.precision = to_string(s.weight_precision);
  std::string src;
  if (measured.decode_tokens_per_second) {
    const double tps = *measured.decode_tokens_per_second;
    if (!(tps > 0 && std::isfinite(tps)))
      throw error(error_code::invalid_argument, "/measured/decode_tokens_per_second",
                  "expected a positive number, but got " + detail::format_number(tps));
    if (m.arch == architecture::encoder)
      throw error(error_code::invalid_argument, "/measured/decode_tokens_per_second",
                  "an encoder-only model does not decode");
    const estimate_result first = estimate(m, s, &gpu);
    const bool memory_bound = first.perf.decode_bound == bound::memory;
    const auto latency_at = [&](double eff) {
      settings t = s;
      (memory_bound ? t.mem_efficiency : t.compute_efficiency) = eff;
      return estimate(m, t, &gpu).perf.decode_latency_per_token_s;
    };
    settings best = s;
    best.mem_efficiency = best.compute_efficiency = 1.0;
    const double ceiling = estimate(m, best, &gpu).perf.decode_tokens_per_second;
    const double eff = solve(latency_at, static_cast<double>(s.batch_size) / tps, "/measured/decode_tokens_per_second",
                             detail::format_short(ceiling) + " tok/s");
    (memory_bound ? e.mem_efficiency : e.compute_efficiency) = eff;
    (memory_bound ? s.mem_efficiency : s.compute_efficiency) = eff;
    src += "decode " + detail::format_number(tps) + " tok/s";
  }
  if (measured.time_to_first_token_s) {
    const double ttft = *measured.time_to_first_token_s;
    if (!(ttft > 0 && std::isfinite(ttft)))
      throw error(error_code::invalid_argument, "/measured/time_to_first_token_s",
                  "expected a positive number of seconds, but got " + detail::format_number(ttft));
    const estimate_result first = estimate(m, s, &gpu);
    const bool compute_bound = first.perf.prefill_bound == bound::compute;
    if (!compute_bound && e.mem_efficiency)
      throw error(error_code::invalid_argument, "/measured/time_to_first_token_s",
                  "this prefill is memory-bound, like the decode step: give one of the two measurements");
    const auto latency_at = [&](double eff) {
      settings t = s;
      (compute_bound ? t.compute_efficiency : t.mem_efficiency) = eff;
      return estimate(m, t, &gpu).perf.prefill_latency_s;
    };
    settings best = s;
    best.mem_efficiency = best.compute_efficiency = 1.0;
    const double floor_s = estimate(m, best, &gpu).perf.prefill_latency_s;
    const double eff = solve(latency_at, ttft, "/measured/time_to_first_token_s", detail::format_short(floor_s) + " s");
    (compute_bound ? e.compute_efficiency : e.mem_efficiency) = eff;
    src += std::string(src.empty() ? "" : ", ") + "TTFT " + detail::format_number(ttft) + " s";
  }
  e.source = src + " (" + m.name + ", " + gpu.name + ", " + std::string(to_string(s.weight_precision)) + ", batch " +
             std::to_string(s.batch_size) + ", " + std::to_string(s.sequence_length) + " tokens)";
  return e;
}

std::vector<calibration_entry> calibrate_rows(const std::vector<measured_row>& rows, bool for_all_models) {
  struct acc {
    double log_ce = 0, log_me = 0;
    int n_ce = 0, n_me = 0;
  };
  std::map<std::tuple<std::string, std::string, std::string>, acc> groups;
  for (const auto& row : rows) {
    const calibration_entry e = calibrate(*row.model, row.config, *row.gpu, row.measured, for_all_models);
    acc& a = groups[{e.model, e.gpu, e.precision}];
    if (e.compute_efficiency) a.log_ce += std::log(*e.compute_efficiency), ++a.n_ce;
    if (e.mem_efficiency) a.log_me += std::log(*e.mem_efficiency), ++a.n_me;
  }
  std::vector<calibration_entry> out;
  for (const auto& [key, a] : groups) {
    calibration_entry e;
    std::tie(e.model, e.gpu, e.precision) = key;
    if (a.n_ce) e.compute_efficiency = std::exp(a.log_ce / a.n_ce);
    if (a.n_me) e.mem_efficiency = std::exp(a.log_me / a.n_me);
    e.source = "geometric mean of " + std::to_string(std::max(a.n_ce, a.n_me)) + " measured rows";
    out.push_back(e);
  }
  return out;
}

}  // namespace flopcast
