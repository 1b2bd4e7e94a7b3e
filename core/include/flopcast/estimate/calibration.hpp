#pragma once
// Calibration: pin compute and memory efficiency to measured figures for a (model, GPU,
// precision), or for a GPU across models ("*"). Explicit efficiencies always win over
// calibrated ones; calibrated ones over the defaults. The CLI keeps entries in a file under
// the user's config folder, the web page in local storage; the logic lives here.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/estimate/estimate.hpp"

namespace flopcast {

struct calibration_entry {
  std::string model = "*";      // model name as estimates report it, or "*" for any model
  std::string gpu;              // GPU name
  std::string precision = "*";  // precision name, or "*"
  std::optional<double> compute_efficiency;
  std::optional<double> mem_efficiency;
  std::string source;  // what it was derived from
};

// The most specific entry for (model, gpu, precision): exact model before "*", exact
// precision before "*". nullptr if none.
[[nodiscard]] const calibration_entry* find_calibration(const std::vector<calibration_entry>& entries,
                                                        std::string_view model, std::string_view gpu, precision p);

// Fills the efficiencies whose origin is still the default from the matching entry.
void apply_calibration(settings& s, const std::vector<calibration_entry>& entries, const model_spec& m,
                       const hardware_spec* gpu);

// Replaces the entry with the same (model, gpu, precision), or appends.
void upsert(std::vector<calibration_entry>& entries, const calibration_entry& e);

// A measurement taken under `config` (batch, sequence, generated tokens, precision).
struct measurement {
  std::optional<double> decode_tokens_per_second;  // whole batch, as estimates report it
  std::optional<double> time_to_first_token_s;     // prefill latency
};

// The efficiencies that make the estimate reproduce the measurement: the decode figure
// sets the efficiency of the bound its decode step is under (memory bandwidth, usually),
// the TTFT the one of the prefill's bound (compute, usually). Errors if a figure is beyond
// the GPU's physical ceiling. `for_all_models` stores it under "*".
[[nodiscard]] calibration_entry calibrate(const model_spec& m, const settings& config, const hardware_spec& gpu,
                                          const measurement& measured, bool for_all_models = false);

// The fitting rule behind calibrate() (and the measurement library's calibrate_from): the
// decode step calibrates the efficiency of the bound it is under at `config`'s efficiencies,
// solving latency(eff) = measured by bisection; then the prefill (with the decode's
// efficiency in place) the efficiency of its bound. Targets are seconds: the mean decode
// step (whole batch) and the time to first token.
struct fit_targets {
  std::optional<double> decode_step_s;
  std::optional<double> time_to_first_token_s;
};
struct fit_options {
  bool clamp_to_ceiling = false;         // a figure beyond the ceiling gives 1 (else: error)
  bool keep_decode_on_conflict = false;  // memory-bound prefill after a memory-bound decode: keep the decode's
                                         // (else: error)
};
struct efficiency_fit {
  std::optional<double> compute_efficiency;
  std::optional<double> mem_efficiency;
  std::optional<bound> decode_bound;   // the efficiency the decode step set
  std::optional<bound> prefill_bound;  // the efficiency the prefill set
  bool clamped = false;                // a figure was beyond the ceiling (clamp_to_ceiling)
  bool prefill_ignored = false;        // keep_decode_on_conflict applied
};
[[nodiscard]] efficiency_fit fit_efficiencies(const model_spec& m, const settings& config, const hardware_spec& gpu,
                                              const fit_targets& measured, const fit_options& options);

// Many measured rows (e.g. a CSV): per (model, gpu, precision) the geometric mean of each
// row's calibrated efficiencies.
struct measured_row {
  const model_spec* model;
  const hardware_spec* gpu;
  settings config;
  measurement measured;
};
[[nodiscard]] std::vector<calibration_entry> calibrate_rows(const std::vector<measured_row>& rows, bool for_all_models);

}  // namespace flopcast
