// The engine fit: see engine_fit.hpp and tools/fit_engines.cpp.
//
// Per engine, the parameters are
//  - shared by every device: per_step_s, per_layer_s (fixed costs of an iteration),
//    per_sequence_s (the cost of each sequence in a step: input preparation, sampling, output),
//    gemm_half_tokens (the tokens in a step at which GEMMs reach half their efficiency) and
//    kv_read_efficiency (decode attention's cache reads relative to the weights' bandwidth);
//  - per device family (vendor and memory type, hardware_spec::family()): mem_efficiency, and
//    compute_efficiency where the family has fit rows on at least two devices or the most rows
//    (the others borrow the latter's);
// chosen to minimise the mean over sources of the mean |log(predicted / measured)| of their rows
// (every source weighs the same, however many rows it has; with three or more sources the one
// the candidate fits worst is left out, a trimmed mean), by a bounded pattern search in log space
// within the physical envelope's bounds (serving/engine.hpp). The pooled family "all" (for devices of a family without
// rows) is the row-weighted geometric mean of the fitted families. The bands (ranges) are the p10 and p90 of
// measured/predicted time ratios over every row of the engine, fit and held out, per figure
// category (validation::category_of), with their p50 (median: the point correction where a band
// excludes 1, estimate.hpp band_biased).
#include "measure/engine_fit.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <exception>
#include <map>
#include <set>
#include <thread>

#include "flopcast/serving/engine.hpp"

namespace flopcast::validation {

namespace {

using ojson = nlohmann::ordered_json;
using json = ojson;

// A bounded parameter searched in log space.
struct parameter {
  std::string name;
  double lo, hi, value;
};

// The parameters every device shares: per_step_s, per_layer_s, gemm_half_tokens, kv_read_efficiency,
// per_sequence_s (x[0] to x[4]); a row's prediction depends on these and its family's two efficiencies.
constexpr std::size_t k_shared = 5;
using row_key = std::array<double, k_shared + 2>;

struct engine_fit {
  std::string engine;
  std::vector<const row*> rows;  // fit rows the model predicts
  std::vector<std::string> families;
  std::vector<std::size_t> row_family;    // index into families
  std::vector<std::size_t> ce_at, me_at;  // per family: its compute and memory efficiencies in x
  std::vector<parameter> params;  // per_step_s, per_layer_s, gemm_half_tokens, kv_read_efficiency, per_sequence_s,
                                  // then (ce, me) per family
  // Each row's last prediction and the values it was made with (row_key): a candidate that changes only
  // another family's efficiencies leaves the row's prediction as it was (the search moves one
  // parameter at a time, so most evaluations recompute one family's rows).
  struct memo {
    row_key at{};
    double error = 0;
    bool set = false;
  };
  mutable std::vector<memo> memos;
};

model_choice choice_for(const engine_fit& f, const std::vector<double>& x, std::size_t family) {
  model_choice c;
  c.how = model_choice::kind::given;
  c.costs.per_step_s = x[0];
  c.costs.per_layer_s = x[1];
  c.costs.gemm_half_tokens = x[2];
  c.costs.kv_read_efficiency = x[3];
  c.costs.per_sequence_s = x[4];
  c.compute_efficiency = x[f.ce_at[family]];
  c.mem_efficiency = x[f.me_at[family]];
  return c;
}

// Threads for the rows a candidate changes: every core (FLOPCAST_THREADS overrides). Each row's
// error depends only on the row and the candidate, so the result is the same for any count.
std::size_t fit_threads() {
  if (const char* v = std::getenv("FLOPCAST_THREADS"); v != nullptr) {
    const long n = std::strtol(v, nullptr, 10);
    if (n >= 1 && n <= 256) return static_cast<std::size_t>(n);
  }
  return std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, 16);
}

double objective(const engine_fit& f, const std::vector<double>& x) {
  f.memos.resize(f.rows.size());
  // The rows whose values changed.
  std::vector<std::size_t> todo;
  for (std::size_t i = 0; i < f.rows.size(); ++i) {
    const std::size_t fam = f.row_family[i];
    row_key at{};
    std::copy(x.begin(), x.begin() + k_shared, at.begin());
    at[k_shared] = x[f.ce_at[fam]];
    at[k_shared + 1] = x[f.me_at[fam]];
    engine_fit::memo& m = f.memos[i];
    if (m.set && m.at == at) continue;
    m.at = at;
    m.set = false;
    todo.push_back(i);
  }
  // Rows are taken in chunks of a few (a run's metrics are adjacent rows: one chunk keeps them in one
  // predictor's run cache) from a shared counter, so one slow campaign does not hold up a thread's share.
  constexpr std::size_t chunk = 4;
  std::atomic<std::size_t> next{0};
  const auto work = [&] {
    predictor predict;
    for (std::size_t begin = next.fetch_add(chunk); begin < todo.size(); begin = next.fetch_add(chunk)) {
      for (std::size_t k = begin; k < std::min(begin + chunk, todo.size()); ++k) {
        const std::size_t i = todo[k];
        engine_fit::memo& m = f.memos[i];
        const auto p = predict(f.rows[i]->data, choice_for(f, x, f.row_family[i]));
        const double measured = f.rows[i]->data.at("value").get<double>();
        m.error = p.value && *p.value > 0 && std::isfinite(*p.value) ? std::fabs(std::log(*p.value / measured)) : 2.0;
        m.set = true;
      }
    }
  };
  const std::size_t threads = std::min(fit_threads(), std::max<std::size_t>(1, todo.size() / chunk));
  if (threads <= 1) {
    work();
  } else {
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> failed(threads);
    for (std::size_t t = 0; t < threads; ++t)
      pool.emplace_back([&, t] {
        try {
          work();
        } catch (...) {
          failed[t] = std::current_exception();
        }
      });
    for (std::thread& th : pool) th.join();
    for (const std::exception_ptr& e : failed)
      if (e) std::rethrow_exception(e);
  }
  std::map<std::string, std::pair<double, int>> per_source;
  for (std::size_t i = 0; i < f.rows.size(); ++i) {
    auto& s = per_source[f.rows[i]->source];
    s.first += f.memos[i].error;
    s.second += 1;
  }
  // A trimmed mean over sources: with three or more, the source the candidate fits worst does not
  // count, so no constant can be bent to one campaign (a source whose setup differs from what the
  // model expresses, e.g. an engine release before a model's kernels landed, stays in the fit
  // part and in `validate`, and `validate --loco` shows what leaving each source out does).
  std::vector<double> means;
  for (const auto& [id, s] : per_source) means.push_back(s.first / s.second);
  std::sort(means.begin(), means.end());
  if (means.size() >= 3) means.pop_back();
  double total = 0;
  for (const double m : means) total += m;
  return total / static_cast<double>(means.size());
}

// Bounded pattern search (Hooke-Jeeves without the pattern move) in log space.
std::vector<double> search(const engine_fit& f, std::ostream* log) {
  std::vector<double> x;
  for (const parameter& p : f.params) x.push_back(p.value);
  double best = objective(f, x);
  std::vector<double> step(x.size(), std::log(4.0));
  int evals = 1;
  // At most 300 evaluations (each simulates every fit row): the search is deterministic, so the
  // ctest check (flopcast_fit --check) reproduces the same constants, in minutes.
  while (evals < 300) {
    bool improved = false;
    for (std::size_t k = 0; k < x.size(); ++k) {
      for (const double dir : {1.0, -1.0}) {
        std::vector<double> y = x;
        y[k] = std::clamp(x[k] * std::exp(dir * step[k]), f.params[k].lo, f.params[k].hi);
        if (y[k] == x[k]) continue;
        const double v = objective(f, y);
        ++evals;
        if (v < best - 1e-12) {
          best = v;
          x = y;
          improved = true;
          break;
        }
      }
    }
    if (!improved) {
      bool done = true;
      for (double& s : step) {
        s /= 2;
        done = done && s < 1e-2;  // steps of 1% in log space
      }
      if (done) break;
    }
  }
  if (log != nullptr) *log << "  " << f.engine << ": objective " << best << " after " << evals << " evaluations\n";
  return x;
}

double round6(double v) {
  if (v == 0) return 0;
  const double scale = std::pow(10.0, 5 - std::floor(std::log10(std::fabs(v))));
  return std::round(v * scale) / scale;
}

}  // namespace

std::vector<row> fit_table(std::vector<row> rows) {
  rows.erase(std::remove_if(rows.begin(), rows.end(), [](const row& r) { return uses_features(r.data); }), rows.end());
  return rows;
}

std::optional<model_choice> choice_from(const nlohmann::json& efficiency, const std::string& family) {
  if (!efficiency.value("fitted", false)) return std::nullopt;
  const nlohmann::json& c = efficiency.at("costs");
  const nlohmann::json& fams = efficiency.at("families");
  const nlohmann::json& fam = fams.contains(family) ? fams.at(family) : fams.at("all");
  model_choice m;
  m.how = model_choice::kind::given;
  m.costs.per_step_s = c.at("per_step_s").get<double>();
  m.costs.per_sequence_s = c.value("per_sequence_s", 0.0);
  m.costs.per_layer_s = c.at("per_layer_s").get<double>();
  m.costs.gemm_half_tokens = c.at("gemm_half_tokens").get<double>();
  m.costs.kv_read_efficiency = c.at("kv_read_efficiency").get<double>();
  m.compute_efficiency = fam.at("compute_efficiency").get<double>();
  m.mem_efficiency = fam.at("mem_efficiency").get<double>();
  return m;
}

nlohmann::ordered_json fit_engine(const std::string& id, const std::vector<row>& rows, std::ostream* log) {
  std::map<std::string, std::set<std::string>> fit_sources, held_sources;
  for (const row& r : rows)
    (r.held_out ? held_sources : fit_sources)[r.data.at("engine").get<std::string>()].insert(r.source);
  engine_fit f;
  f.engine = id;
  // Rows the model predicts at the starting point (a row that cannot be predicted, e.g. a model
  // not bundled, stays out of the fit).
  {
    predictor predict;
    model_choice start;
    start.how = model_choice::kind::given;
    for (const row& r : rows) {
      if (r.held_out || r.data.at("engine") != id) continue;
      const auto p = predict(r.data, start);
      if (!p.value) continue;
      const std::string fam = p.family.empty() ? "all" : p.family;
      auto it = std::find(f.families.begin(), f.families.end(), fam);
      if (it == f.families.end()) {
        f.families.push_back(fam);
        it = f.families.end() - 1;
      }
      f.rows.push_back(&r);
      f.row_family.push_back(static_cast<std::size_t>(it - f.families.begin()));
    }
  }
  json efficiency;
  std::string note;
  if (f.rows.size() < 5) {
    efficiency = {{"fitted", false}};
    if (log != nullptr) *log << "  " << id << ": " << f.rows.size() << " fit rows predicted: not fitted\n";
  } else {
    // An engine fits as many parameters as it has independent runs for (two runs per
    // parameter), the most influential first; the rest stay at neutral values (no cost,
    // constant GEMM efficiency, the cache read at the weights' bandwidth, flopcast's default
    // efficiencies).
    std::set<std::string> runs;
    for (const row* r : f.rows) {
      const json& d = r->data;
      runs.insert(r->source + json{d.at("model"), d.at("gpu"), d.value("tensor_parallel", 1), d.at("input_tokens"),
                                   d.at("output_tokens"), d.at("load"), d.at("precision")}
                                  .dump());
    }
    // The bounds are the physical envelope's (engine.hpp), so no fit can leave it.
    f.params = {
        {"per_step_s", flopcast::engine_fit_per_step_s.lo, flopcast::engine_fit_per_step_s.hi, 1e-3},
        {"per_layer_s", flopcast::engine_fit_per_layer_s.lo, flopcast::engine_fit_per_layer_s.hi, 1e-5},
        {"gemm_half_tokens", flopcast::engine_fit_gemm_half_tokens.lo, flopcast::engine_fit_gemm_half_tokens.hi, 64},
        {"kv_read_efficiency", flopcast::engine_fit_kv_read_efficiency.lo, flopcast::engine_fit_kv_read_efficiency.hi,
         0.8},
        {"per_sequence_s", flopcast::engine_fit_per_sequence_s.lo, flopcast::engine_fit_per_sequence_s.hi, 1e-5}};
    // A family gets its own compute efficiency only when at least two of its devices have fit
    // rows, or it is the family with the most rows; the others borrow the latter's (one
    // device's compute efficiency would be a fit to that device). Every family has its own
    // memory efficiency (its memory technology).
    std::map<std::string, std::set<std::string>> devices;
    std::map<std::string, std::size_t> family_rows;
    for (std::size_t i = 0; i < f.rows.size(); ++i) {
      const std::string& fam = f.families[f.row_family[i]];
      devices[fam].insert(f.rows[i]->data.at("gpu").get<std::string>());
      ++family_rows[fam];
    }
    std::string main_family;
    for (const auto& [fam, n] : family_rows)
      if (main_family.empty() || n > family_rows[main_family]) main_family = fam;
    std::map<std::string, std::size_t> own_ce;
    for (const std::string& fam : f.families) {
      if (devices[fam].size() < 2 && fam != main_family) continue;
      own_ce[fam] = f.params.size();
      f.params.push_back({"compute_efficiency/" + fam, flopcast::engine_fit_compute_efficiency.lo,
                          flopcast::engine_fit_compute_efficiency.hi, 0.6});
    }
    for (const std::string& fam : f.families) {
      f.ce_at.push_back(own_ce.count(fam) ? own_ce[fam] : own_ce[main_family]);
      f.me_at.push_back(f.params.size());
      f.params.push_back({"mem_efficiency/" + fam, flopcast::engine_fit_mem_efficiency.lo,
                          flopcast::engine_fit_mem_efficiency.hi, 0.8});
    }
    // The most influential first: the objective's change when a parameter alone is halved or
    // doubled from its starting value (bounded).
    std::vector<double> x0;
    for (const parameter& q : f.params) x0.push_back(q.value);
    std::vector<std::pair<double, std::size_t>> influence;
    const double base = objective(f, x0);
    for (std::size_t k = 0; k < f.params.size(); ++k) {
      double most = 0;
      for (const double factor : {0.5, 2.0}) {
        std::vector<double> y = x0;
        y[k] = std::clamp(x0[k] * factor, f.params[k].lo, f.params[k].hi);
        most = std::max(most, std::fabs(objective(f, y) - base));
      }
      influence.emplace_back(-most, k);
    }
    std::sort(influence.begin(), influence.end());
    std::vector<std::size_t> priority;
    for (const auto& [neg, k] : influence) priority.push_back(k);
    // A parameter that moves no counted row (a family whose only source is the one the trimmed
    // mean leaves out) is not fitted by anything: it stays at its neutral value and says so.
    const auto moving = static_cast<std::size_t>(
        std::count_if(influence.begin(), influence.end(), [](const auto& q) { return q.first < 0; }));
    const std::size_t n_free = std::min({priority.size(), std::max<std::size_t>(2, runs.size() / 2), moving});
    const double neutral[k_shared] = {0, 0, 0, 1, 0};
    std::string held;
    for (std::size_t i = n_free; i < priority.size(); ++i) {
      parameter& q = f.params[priority[i]];
      // flopcast's defaults where not fitted: compute 0.5, memory 0.8 (estimate.hpp settings).
      const std::size_t k = priority[i];
      const double v = k < k_shared ? neutral[k] : (q.name.rfind("compute", 0) == 0 ? 0.5 : 0.8);
      q.lo = q.hi = q.value = v;
      held += (held.empty() ? "" : ", ") + q.name;
    }
    note = std::to_string(runs.size()) + " independent runs: " + std::to_string(n_free) + " of " +
           std::to_string(priority.size()) + " parameters fitted" +
           (held.empty() ? std::string() : "; held at neutral values: " + held);
    if (log != nullptr) *log << "  " << id << ": " << note << "\n";
    std::vector<double> x = search(f, log);
    // A fitted parameter that ends on a bound of the envelope would have gone further: the rows
    // ask for more than the model's terms explain physically. The note names it.
    std::string bounded;
    for (std::size_t k = 0; k < x.size(); ++k) {
      const parameter& q = f.params[k];
      if (q.lo == q.hi || (x[k] != q.lo && x[k] != q.hi)) continue;
      bounded += (bounded.empty() ? "" : ", ") + q.name + (x[k] == q.hi ? " (upper)" : " (lower)");
    }
    if (!bounded.empty()) note += "; at a bound of the envelope: " + bounded;
    if (log != nullptr && !bounded.empty()) *log << "  " << id << ": at a bound of the envelope: " << bounded << "\n";
    for (double& v : x) v = round6(v);
    json families = json::object();
    std::vector<std::int64_t> counts(f.families.size(), 0);
    for (std::size_t fam : f.row_family) ++counts[fam];
    double lce = 0, lme = 0, n = 0;
    for (std::size_t k = 0; k < f.families.size(); ++k) {
      families[f.families[k]] = {
          {"compute_efficiency", x[f.ce_at[k]]}, {"mem_efficiency", x[f.me_at[k]]}, {"rows", counts[k]}};
      lce += static_cast<double>(counts[k]) * std::log(x[f.ce_at[k]]);
      lme += static_cast<double>(counts[k]) * std::log(x[f.me_at[k]]);
      n += static_cast<double>(counts[k]);
    }
    if (!families.contains("all"))
      families["all"] = {{"compute_efficiency", round6(std::exp(lce / n))},
                         {"mem_efficiency", round6(std::exp(lme / n))},
                         {"rows", static_cast<std::int64_t>(n)}};
    // Bands from every row of the engine (fit and held out) at the fitted constants.
    std::map<std::string, std::vector<double>> ratios;
    predictor predict;
    for (const row& r : rows) {
      if (r.data.at("engine") != id) continue;
      const auto p0 = predict(r.data, model_choice{model_choice::kind::plain, {}, 0.5, 0.8});
      if (!p0.value) continue;
      const std::string fam = p0.family;
      const auto it = std::find(f.families.begin(), f.families.end(), fam);
      std::size_t k = 0;
      model_choice c;
      if (it != f.families.end()) {
        k = static_cast<std::size_t>(it - f.families.begin());
        c = choice_for(f, x, k);
      } else {
        c = choice_for(f, x, 0);
        c.compute_efficiency = families["all"]["compute_efficiency"].get<double>();
        c.mem_efficiency = families["all"]["mem_efficiency"].get<double>();
      }
      const auto p = predict(r.data, c);
      if (!p.value || *p.value <= 0) continue;
      ratios[flopcast::validation::category_of(r.data)].push_back(flopcast::validation::time_ratio(r.data, *p.value));
    }
    json bands = json::object();
    for (const char* cat : {"prefill", "decode", "throughput", "ttft_load"}) {
      const auto& v = ratios[cat];
      if (v.size() < 3)
        bands[cat] = {{"low", 1}, {"high", 1}, {"rows", 0}};
      else
        bands[cat] = {{"low", round6(flopcast::validation::quantile(v, 0.1))},
                      {"median", round6(flopcast::validation::quantile(v, 0.5))},
                      {"high", round6(flopcast::validation::quantile(v, 0.9))},
                      {"rows", v.size()}};
    }
    efficiency = {
        {"fitted", true},
        {"fitted_by",
         "tools/fit_engines.cpp (npm run fit): bounded pattern search, within the envelope's bounds (engine.hpp), "
         "minimising the mean over sources (the worst-fitting one left out when there are three or more) of the "
         "mean |log(predicted/measured)| of the fit rows; bands: p10-p90 (and p50) of measured/predicted time "
         "ratios over every row of the engine"},
        {"note", note},
        {"fitted_to", fit_sources[id]},
        {"held_out", held_sources[id]},
        {"costs",
         {{"per_step_s", x[0]},
          {"per_sequence_s", x[4]},
          {"per_layer_s", x[1]},
          {"gemm_half_tokens", x[2]},
          {"kv_read_efficiency", x[3]}}},
        {"families", families},
        {"bands", bands}};
  }
  return efficiency;
}

}  // namespace flopcast::validation
