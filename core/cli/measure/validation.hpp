#pragma once
// The validation table (data/measurements/) against the model: one prediction per published row,
// from the core alone. Shared by `flopcast validate` and the engine fit (tools/fit_engines.cpp),
// so the fit optimises exactly what validate reports.
//
// How a row is predicted (the load it states decides):
//  - single_stream: estimate() at batch 1 (prefill and decode rates, TTFT, TPOT);
//  - max_throughput and batch rows of a throughput or per-phase rate: the closed-form steady
//    state (serve()) at the engine's max_num_seqs, capped by the KV cache;
//  - everything that depends on the queue (TTFT, TPOT, ITL, end-to-end latency under load, and
//    any figure at a concurrency or a request rate): the serving simulator with the engine's
//    scheduler, the stated arrivals (a batch at t = 0, closed-loop clients, Poisson at the rate)
//    and the stated number of requests.
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/estimate/estimate.hpp"

namespace flopcast::validation {

struct row {
  nlohmann::json data;
  std::string source;  // source id
  bool held_out = false;
};

// Every row of the measurement files given as text (one file per source).
[[nodiscard]] std::vector<row> rows_of(const std::vector<std::string_view>& files);

// Which model predicts: the plain roofline, the bundled engine profiles (data/engines/, as fitted),
// or given costs and efficiencies (a fit's candidate; no bands).
struct model_choice {
  enum class kind : std::uint8_t { plain, bundled, given };
  kind how = kind::bundled;
  step_costs costs;
  double compute_efficiency = 0.5, mem_efficiency = 0.8;
  // The serving features a row states (uses_features): prefix caching with its prompt pool or
  // shared prefix, attention data parallelism with the engine's layout, speculative decoding,
  // data-parallel replicas. false: the rows run as if those columns were absent, as the simulator
  // ran them before it had the features (the "before" of a comparison).
  bool features = true;
};

// The bundled model and device a row names (its "model" and "gpu"): "" when both are found, else
// why not ("model not bundled", "device not bundled"). Shared by the serving and training rows.
[[nodiscard]] std::string bundled_target(const nlohmann::json& row, const model_spec*& model,
                                         const hardware_spec*& gpu);

// Whether a row states one of the serving features (the columns above); such rows are
// summarised apart from the others.
[[nodiscard]] bool uses_features(const nlohmann::json& row);

// The figure category a row's metric and load fall in, for the residual bands (estimate.hpp
// engine_bands): "prefill", "decode", "throughput", "ttft_load".
[[nodiscard]] std::string category_of(const nlohmann::json& row);
// The q-quantile of v (linear between order statistics); v non-empty.
[[nodiscard]] double quantile(std::vector<double> v, double q);
// measured / predicted as a time ratio (rates inverted), the band's convention.
[[nodiscard]] double time_ratio(const nlohmann::json& row, double predicted);

struct prediction {
  std::optional<double> value;
  std::string why;     // when not predicted
  std::string family;  // the device family (hardware_spec::family())
};

// Predicts rows; simulations are shared by rows of one run (the metrics of one table line).
class predictor {
 public:
  [[nodiscard]] prediction operator()(const nlohmann::json& row, const model_choice& how);

 private:
  std::map<std::string, nlohmann::json> runs_;  // simulation key -> its figures
};

}  // namespace flopcast::validation
