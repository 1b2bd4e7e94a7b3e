#include "flopcast/io/compare.hpp"

#include <limits>

#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/io/request.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/serving/engine.hpp"

namespace flopcast {

using point = compare_plan::point;

std::size_t compare_plan::size() const {
  std::size_t n = 1;
  for (std::size_t len : {models.size(), precisions.size(), gpus.size(), batch_sizes.size(), sequence_lengths.size(),
                          generated_tokens.size()}) {
    if (len == 0) return 0;
    if (n > std::numeric_limits<std::size_t>::max() / len)
      throw error(error_code::invalid_argument, "", "the comparison has too many combinations");
    n *= len;
  }
  return n;
}

namespace {
// Points [block x sizes, (block + 1) x sizes) share their model, precision and GPU and differ only
// in the sizes (batch, sequence, generated tokens) of the innermost lists.
std::size_t sizes_per_block(const compare_plan& plan) {
  return plan.batch_sizes.size() * plan.sequence_lengths.size() * plan.generated_tokens.size();
}
// The sizes of point i; returns i's block.
std::size_t set_sizes(const compare_plan& plan, std::size_t i, settings& s) {
  s.num_generated_tokens = plan.generated_tokens[i % plan.generated_tokens.size()];
  i /= plan.generated_tokens.size();
  s.sequence_length = plan.sequence_lengths[i % plan.sequence_lengths.size()];
  i /= plan.sequence_lengths.size();
  s.batch_size = plan.batch_sizes[i % plan.batch_sizes.size()];
  return i / plan.batch_sizes.size();
}
}  // namespace

compare_plan::point compare_plan::at(std::size_t i) const {
  point p{nullptr, nullptr, base};
  i = set_sizes(*this, i, p.config);
  p.gpu = gpus[i % gpus.size()];
  i /= gpus.size();
  p.config.weight_precision = precisions[i % precisions.size()];
  i /= precisions.size();
  p.model = models[i];
  if (!precision_given && !p.model->quantization.method.empty()) {
    p.config.weight_precision = p.model->quantization.weights;
    p.config.component_precision = p.model->quantization.parts;
  }
  apply_calibration(p.config, calibrations, *p.model, p.gpu);
  if (!p.config.calibration_source.empty() || p.config.compute_efficiency_origin == efficiency_origin::calibrated ||
      p.config.mem_efficiency_origin == efficiency_origin::calibrated)
    p.config.calibration_store = calibration_store;
  // The engine after the calibration: a calibrated efficiency is kept (and sets the range); the
  // engine's step costs apply either way.
  // No engine named: the device class's engine (default_engine_for), labelled; "none": the plain
  // roofline. A calibration is the user's own measurement, fitted on the plain roofline
  // (calibrate adds no default engine), so where one applies no default engine is added either:
  // the calibrated figure is reproduced. A named engine applies as before.
  if (p.config.engine == "none") {
    p.config.engine.clear();
    p.config.engine_rule = "--engine none: the plain roofline (compute 0.5 and memory 0.8 of peak, no fixed cost)";
  } else if (p.config.engine.empty() && p.gpu != nullptr && use_default_engine && p.config.calibration_source.empty() &&
             p.config.compute_efficiency_origin != efficiency_origin::calibrated &&
             p.config.mem_efficiency_origin != efficiency_origin::calibrated) {
    const default_engine d = default_engine_for(*p.gpu);
    p.config.engine_rule = d.rule;
    if (d.engine != nullptr) p.config.engine = d.engine->id;
  }
  if (!p.config.engine.empty() && p.gpu != nullptr) apply_engine(find_engine(p.config.engine), *p.gpu, p.config);
  return p;
}

namespace {
// The estimates of points [offset, offset + count) for their rows, in order: each block's first
// point is built by at() and validated in full; the rest of the block changes only the sizes
// (their bounds checked here once), keeps what depends on the model and its weight formats and
// computes only what a row reads (detail::estimate_reuse): per point, the row of estimate().
template <class F>
void for_each_row(const compare_plan& plan, std::size_t offset, std::size_t count, F&& row) {
  for (std::int64_t b : plan.batch_sizes) check_field("/batch_size", detail::d(b));
  for (std::int64_t q : plan.sequence_lengths) check_field("/sequence_length", detail::d(q));
  for (std::int64_t n : plan.generated_tokens) check_field("/num_generated_tokens", detail::d(n));
  const std::size_t block_size = sizes_per_block(plan);
  detail::estimate_reuse reuse;
  reuse.row_only = true;
  point p{nullptr, nullptr, {}};
  std::size_t block = 0;
  for (std::size_t i = offset; i < offset + count; ++i) {
    if (i == offset || i / block_size != block) {
      p = plan.at(i);
      validate(p.config);
      reuse.validated = true;
      block = i / block_size;
    } else {
      (void)set_sizes(plan, i, p.config);
    }
    row({*p.model, p.config, p.gpu, detail::estimate_with(*p.model, p.config, p.gpu, nullptr, nullptr, &reuse)});
  }
}
}  // namespace

std::vector<std::vector<field_value>> compare_rows(const compare_plan& plan, std::size_t max_rows) {
  const std::size_t n = plan.size();
  if (n > max_rows)
    throw error(error_code::invalid_argument, "",
                "the comparison has " + std::to_string(n) + " combinations: expected at most " +
                    std::to_string(max_rows) + " (a sweep takes more)");
  std::vector<std::vector<field_value>> rows;
  rows.reserve(n);
  for_each_row(plan, 0, n, [&](const estimate_context& c) { rows.push_back(row_values(c)); });
  return rows;
}

std::size_t sweep_field_count() {
  std::size_t n = 0;
  for (const auto& f : row_fields()) n += f.kind == field_kind::text ? 0 : 1;
  return n;
}

std::size_t sweep(const compare_plan& plan, std::size_t offset, std::size_t count, double* out) {
  const std::size_t total = plan.size();
  if (offset >= total) return 0;
  if (count > total - offset) count = total - offset;
  for_each_row(plan, offset, count, [&](const estimate_context& c) { out += row_numbers(c, out); });
  return count;
}

}  // namespace flopcast
