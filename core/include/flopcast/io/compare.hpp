#pragma once
// The Cartesian product of a comparison or sweep, in one place for the CLI, the WASM
// module and the web UI: model-major, then precision, GPU, batch, sequence, generated tokens.
#include <cstdint>
#include <vector>

#include "flopcast/estimate/calibration.hpp"
#include "flopcast/estimate/estimate.hpp"

namespace flopcast {

struct compare_plan {
  std::vector<const model_spec*> models;
  std::vector<precision> precisions;
  // false: the request named no precision, so each model's own format (its config.json's
  // quantization_config) is used where it has one, precisions.front() elsewhere.
  bool precision_given = true;
  std::vector<const hardware_spec*> gpus;  // nullptr: no GPU
  std::vector<std::int64_t> batch_sizes;
  std::vector<std::int64_t> sequence_lengths;
  std::vector<std::int64_t> generated_tokens;
  settings base;                                // everything that is not swept
  std::vector<calibration_entry> calibrations;  // applied per point where efficiencies are not explicit
  std::string calibration_store;                // where they came from (a file path, or "request")
  // A request that names no engine runs the device class's (default_engine_for) unless this is
  // false: calibrate, whose measurement is the user's own setup, fits the plain roofline.
  bool use_default_engine = true;

  // Number of combinations (0 if any list is empty).
  [[nodiscard]] std::size_t size() const;

  struct point {
    const model_spec* model;
    const hardware_spec* gpu;
    settings config;
  };
  // The i-th combination, 0 <= i < size().
  [[nodiscard]] point at(std::size_t i) const;
};

struct field_value;
// Every combination's row (row_fields() order); throws if there are more than max_rows.
[[nodiscard]] std::vector<std::vector<field_value>> compare_rows(const compare_plan& plan, std::size_t max_rows);

// Numeric sweep: for points [offset, offset + count) writes sweep_field_count() doubles per
// point (the numeric row_fields() in order; NaN marks a figure that does not apply, e.g. decode
// for an encoder or latency without a GPU). Returns the number of points written. Each row is
// estimate()'s, bit for bit; a size list holding a value out of bounds is refused whole.
[[nodiscard]] std::size_t sweep_field_count();
std::size_t sweep(const compare_plan& plan, std::size_t offset, std::size_t count, double* out);

}  // namespace flopcast
