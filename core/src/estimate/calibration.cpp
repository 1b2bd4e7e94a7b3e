#include "flopcast/estimate/calibration.hpp"

#include <cmath>
#include <map>
#include <tuple>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"

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
// A target beyond the ceiling (faster than at efficiency 1) throws, or gives 1 with `clamped`.
template <class F>
double solve(F latency_at, double target, bool clamp, bool& clamped, const char* what,
             const std::string& ceiling_text) {
  const double best = latency_at(1.0);
  if (clamp && target < best) {
    clamped = true;
    return 1.0;
  }
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

efficiency_fit fit_efficiencies(const model_spec& m, const settings& config, const hardware_spec& gpu,
                                const fit_targets& measured, const fit_options& options) {
  settings s = config;
  s.parallel = parallel_layout{};
  efficiency_fit fit;
  if (measured.decode_step_s) {
    if (m.arch == architecture::encoder)
      throw error(error_code::invalid_argument, "/measured/decode_tokens_per_second",
                  "an encoder-only model does not decode");
    const bool memory_bound = estimate(m, s, &gpu).perf.decode_bound == bound::memory;
    const auto latency_at = [&](double eff) {
      settings t = s;
      (memory_bound ? t.mem_efficiency : t.compute_efficiency) = eff;
      return estimate(m, t, &gpu).perf.decode_latency_per_token_s;
    };
    const auto ceiling = [&] {
      settings best = s;
      best.mem_efficiency = best.compute_efficiency = 1.0;
      return detail::format_short(estimate(m, best, &gpu).perf.decode_tokens_per_second) + " tok/s";
    };
    const double eff = solve(latency_at, *measured.decode_step_s, options.clamp_to_ceiling, fit.clamped,
                             "/measured/decode_tokens_per_second", options.clamp_to_ceiling ? "" : ceiling());
    fit.decode_bound = memory_bound ? bound::memory : bound::compute;
    (memory_bound ? fit.mem_efficiency : fit.compute_efficiency) = eff;
    (memory_bound ? s.mem_efficiency : s.compute_efficiency) = eff;
  }
  if (measured.time_to_first_token_s) {
    const bool compute_bound = estimate(m, s, &gpu).perf.prefill_bound == bound::compute;
    if (!compute_bound && fit.mem_efficiency) {
      if (!options.keep_decode_on_conflict)
        throw error(error_code::invalid_argument, "/measured/time_to_first_token_s",
                    "this prefill is memory-bound, like the decode step: give one of the two measurements");
      fit.prefill_ignored = true;
      return fit;
    }
    const auto latency_at = [&](double eff) {
      settings t = s;
      (compute_bound ? t.compute_efficiency : t.mem_efficiency) = eff;
      return estimate(m, t, &gpu).perf.prefill_latency_s;
    };
    const auto floor_text = [&] {
      settings best = s;
      best.mem_efficiency = best.compute_efficiency = 1.0;
      return detail::format_short(estimate(m, best, &gpu).perf.prefill_latency_s) + " s";
    };
    const double eff = solve(latency_at, *measured.time_to_first_token_s, options.clamp_to_ceiling, fit.clamped,
                             "/measured/time_to_first_token_s", options.clamp_to_ceiling ? "" : floor_text());
    fit.prefill_bound = compute_bound ? bound::compute : bound::memory;
    (compute_bound ? fit.compute_efficiency : fit.mem_efficiency) = eff;
  }
  return fit;
}

calibration_entry calibrate(const model_spec& m, const settings& config, const hardware_spec& gpu,
                            const measurement& measured, bool for_all_models) {
  if (!measured.decode_tokens_per_second && !measured.time_to_first_token_s)
    throw error(error_code::invalid_argument, "/measured",
                "expected a measured decode tokens/s or time to first token");
  fit_targets targets;
  std::string src;
  if (measured.decode_tokens_per_second) {
    const double tps = *measured.decode_tokens_per_second;
    if (!(tps > 0 && std::isfinite(tps)))
      throw error(error_code::invalid_argument, "/measured/decode_tokens_per_second",
                  "expected a positive number, but got " + detail::format_number(tps));
    targets.decode_step_s = static_cast<double>(config.batch_size) / tps;
    src += "decode " + detail::format_number(tps) + " tok/s";
  }
  if (measured.time_to_first_token_s) {
    const double ttft = *measured.time_to_first_token_s;
    if (!(ttft > 0 && std::isfinite(ttft)))
      throw error(error_code::invalid_argument, "/measured/time_to_first_token_s",
                  "expected a positive number of seconds, but got " + detail::format_number(ttft));
    targets.time_to_first_token_s = ttft;
    src += std::string(src.empty() ? "" : ", ") + "TTFT " + detail::format_number(ttft) + " s";
  }
  const efficiency_fit fit = fit_efficiencies(m, config, gpu, targets, fit_options{});
  calibration_entry e;
  e.model = for_all_models ? "*" : m.name;
  e.gpu = gpu.name;
  e.precision = to_string(config.weight_precision);
  e.compute_efficiency = fit.compute_efficiency;
  e.mem_efficiency = fit.mem_efficiency;
  e.source = src + " (" + m.name + ", " + gpu.name + ", " + std::string(to_string(config.weight_precision)) +
             ", batch " + std::to_string(config.batch_size) + ", " + std::to_string(config.sequence_length) +
             " tokens)";
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
