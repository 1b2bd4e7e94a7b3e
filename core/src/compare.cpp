#include "flopcast/compare.hpp"

#include <limits>

#include "flopcast/engine.hpp"
#include "flopcast/error.hpp"
#include "flopcast/result_json.hpp"

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

compare_plan::point compare_plan::at(std::size_t i) const {
  point p{nullptr, nullptr, base};
  p.config.num_generated_tokens = generated_tokens[i % generated_tokens.size()];
  i /= generated_tokens.size();
  p.config.sequence_length = sequence_lengths[i % sequence_lengths.size()];
  i /= sequence_lengths.size();
  p.config.batch_size = batch_sizes[i % batch_sizes.size()];
  i /= batch_sizes.size();
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
  if (!p.config.engine.empty() && p.gpu != nullptr) apply_engine(find_engine(p.config.engine), *p.gpu, p.config);
  return p;
}

std::vector<std::vector<field_value>> compare_rows(const compare_plan& plan, std::size_t max_rows) {
  const std::size_t n = plan.size();
  if (n > max_rows)
    throw error(error_code::invalid_argument, "",
                "the comparison has " + std::to_string(n) + " combinations: expected at most " +
                    std::to_string(max_rows) + " (a sweep takes more)");
  std::vector<std::vector<field_value>> rows;
  rows.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    const point p = plan.at(i);
    rows.push_back(row_values({*p.model, p.config, p.gpu, estimate(*p.model, p.config, p.gpu)}));
  }
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
  for (std::size_t i = 0; i < count; ++i) {
    const point p = plan.at(offset + i);
    const estimate_result r = estimate(*p.model, p.config, p.gpu);
    out += row_numbers({*p.model, p.config, p.gpu, r}, out);
  }
  return count;
}

}  // namespace flopcast
