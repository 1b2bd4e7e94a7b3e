#pragma once
// The result schema, written once: the nested --json object (llm-flops compatible
// top-level keys) and the flat row used by tables, CSV and compare.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/estimate/calibration.hpp"
#include "flopcast/estimate/estimate.hpp"

namespace flopcast {

struct estimate_context {
  const model_spec& model;
  const settings& config;
  const hardware_spec* gpu;  // nullptr: no GPU
  const estimate_result& result;
  // The hosted provider's entry when the model was named by a provider id (providers.hpp): the
  // result then carries its published figures as "provider"; nullptr: none.
  const struct provider_entry* provider = nullptr;
};

// What a configuration that does not fit would need (fit_advice.cpp): its speeds are then
// hypothetical ("if it fitted"), and the fewest GPUs of its kind that hold it (the planner's
// min_gpus at the same format, context and batch; 0 when no layout within the planner's cap
// holds it, or the planner does not apply: training, encoders, no generated tokens).
struct fit_advice {
  bool hypothetical = false;  // a GPU is given and the configuration does not fit on it
  std::int64_t min_gpus = 0;
  std::string layout;       // the first fitting layout at min_gpus ("TP=2"), empty when none
  double excess_bytes = 0;  // memory per GPU beyond the usable memory (what offloading would move)
  std::string text;         // one sentence for the page and the CLI, empty when it fits
};
[[nodiscard]] fit_advice advise_fit(const estimate_context& c);

// The full result as one JSON object (text), SI base units throughout.
[[nodiscard]] std::string to_json(const estimate_context& c, int indent = 2);

// A flat row field: declared once, used by the table, CSV and compare printers.
// bound: 1 = compute-bound, 0 = memory-bound (numeric in sweeps, a word in rows).
enum class field_kind { text, count, flops, bytes, seconds, rate, joules, boolean, number, bound };
struct field_value {
  field_kind kind = field_kind::number;
  double number = 0;  // for every kind but text; NaN never appears (absent -> has_value false)
  bool has_value = true;
  std::string text;
};
struct row_field {
  std::string_view key;     // CSV/JSON key, SI units
  std::string_view header;  // table header
  field_kind kind;
};
[[nodiscard]] const std::vector<row_field>& row_fields();
[[nodiscard]] std::vector<field_value> row_values(const estimate_context& c);
// The numeric fields only, in row_fields() order, NaN where a figure does not apply
// (for sweeps: no allocation). Returns how many were written.
std::size_t row_numbers(const estimate_context& c, double* out);

// Rows as JSON text (an array of objects) and as CSV text (header + rows).
[[nodiscard]] std::string rows_to_json(const std::vector<std::vector<field_value>>& rows,
                                       const std::vector<std::size_t>& columns, int indent = 2);
[[nodiscard]] std::string rows_to_csv(const std::vector<std::vector<field_value>>& rows,
                                      const std::vector<std::size_t>& columns);

// Resolves and runs one request (config.hpp's read_request) and returns to_json's text.
// This is the single entry point of the WASM module and of the shared fixtures.
[[nodiscard]] std::string estimate_json(std::string_view request_json, int indent = -1);
// Runs a request whose model, gpu, precision and sizes may be lists; returns the rows
// (every row field) as a JSON array, like `flopcast compare --json`.
inline constexpr std::size_t max_compare_rows = 100000;
[[nodiscard]] std::string compare_json(std::string_view request_json, int indent = -1);

// The defaults and vocabularies a front end needs (settings defaults, precisions,
// optimizers, row fields with their kinds, sweep fields, model types), so none re-types them.
[[nodiscard]] std::string defaults_json(int indent = -1);

// Serving throughput (serving.hpp) as one JSON object, SI units.
struct serving_settings;
struct serving_result;
[[nodiscard]] std::string serving_to_json(const model_spec& m, const serving_settings& s, const hardware_spec& gpu,
                                          const serving_result& r, int indent = 2);

// Entry points of the WASM module (request JSON in, result JSON out).
[[nodiscard]] std::string throughput_json(std::string_view request_json, int indent = -1);
// API price against self-hosting (plan/price_comparison.hpp) from a JSON request: {model, gpu,
// tensor_parallel, precision, utilization, prompt_tokens, output_tokens, cost_per_hour_usd}, or
// {model, utilization, self_hosted: a throughput request (what throughput_json reads)}.
[[nodiscard]] std::string price_comparison_json(std::string_view request_json, int indent = -1);

// A serving simulation (request.hpp read_simulation_request, simulator.hpp) as one JSON object,
// SI units: the workload, the scheduler used, and per point (concurrency or request rate) the
// TTFT / TPOT / ITL / end-to-end distributions, rates, goodput, KV use and a timeline.
// Disaggregated (q.disaggregation): `points` are the results' totals and `disaggregated` the
// results, which add a "disaggregation" object at the top (the layout) and in every point (the
// pools, the transfer, the bottleneck).
struct simulation_request;
struct simulation_result;
struct disaggregated_result;
[[nodiscard]] std::string simulation_to_json(const simulation_request& q, const std::vector<simulation_result>& points,
                                             int indent = 2,
                                             const std::vector<disaggregated_result>* disaggregated = nullptr);
// Reads and runs a simulation request (every point) and returns simulation_to_json's text.
[[nodiscard]] std::string simulate_json(std::string_view request_json, int indent = -1);
// A training-step analysis (training.hpp) of an estimate request; "training_analysis" may hold
// {recompute, gradient_clipping, fused_optimizer, tokens, mfu, gpus, lora_rank, lora_targets,
// base_precision}.
[[nodiscard]] std::string train_json(std::string_view request_json, int indent = -1);
// Returns the calibration entry as a store ({"entries": [entry]}) to merge into the caller's store.
[[nodiscard]] std::string calibrate_json(std::string_view request_json, int indent = -1);

// A calibration store as JSON text ({"entries": [...]}), the format read_calibration reads.
[[nodiscard]] std::string calibration_to_json(const std::vector<calibration_entry>& entries, int indent = 2);

// Lists as JSON text, for list-models / list-gpus and the WASM API.
[[nodiscard]] std::string models_to_json(int indent = 2);
struct model_filter;
[[nodiscard]] std::string models_to_json(const model_filter& filter, int indent = 2);
[[nodiscard]] std::string gpus_to_json(int indent = 2);
// Every bundled engine profile (data/engines/): id, name, version, whether the simulator runs it
// (continuous batching), and its fit: costs, families, the measurement sources fitted and held out.
// The serving-engine profiles; with a device, only the engines that run on it.
[[nodiscard]] std::string engines_to_json(int indent = 2, const hardware_spec* gpu = nullptr);
// One accelerator in data/gpus.json's record format (read back by read_hardware / --gpu-file).
[[nodiscard]] std::string hardware_to_json(const hardware_spec& g, int indent = 2);

}  // namespace flopcast
