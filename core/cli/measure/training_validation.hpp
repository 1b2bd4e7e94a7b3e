#pragma once
// The training rows of the validation table (data/measurements/training-*.json, files with
// "kind": "training"; schema in data/measurements/README.md, "Training rows") against the core's
// training step model: one analyze_training() per row at the row's model, device, layout, batch,
// sequence length, recompute policy and precision, read as tokens per second (per GPU or for the
// system, as the row states). Used by `flopcast validate` (its training group).
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace flopcast::validation {

struct training_row {
  nlohmann::json data;
  std::string source;
  bool held_out = false;
};

// The rows of the files whose top-level "kind" is "training" (the others are serving files).
[[nodiscard]] std::vector<training_row> training_rows_of(const std::vector<std::string_view>& files);

// How a row is predicted: the row's layout (virtual pipeline and context parallel included), its
// recompute policy (a policy the source does not state: the framework's default, which for
// Megatron-Core, NeMo and Megatron Bridge is no recompute of whole layers: "selective" here, which
// with FlashAttention costs nothing extra) and the default training efficiency.

struct training_prediction {
  std::optional<double> value;  // in the row's metric and per
  std::string why;              // when not predicted
};

[[nodiscard]] training_prediction predict_training(const nlohmann::json& row);

// The training group of `flopcast validate`: per engine, metric and split, the rows, median signed
// error and median and p90 |error| (predicted / measured - 1), and the rows not predicted by reason.
struct training_summary {
  nlohmann::json summary = nlohmann::json::array();
  nlohmann::json rows = nlohmann::json::array();
  std::map<std::string, std::int64_t> skipped;
  std::int64_t considered = 0, predicted = 0;
};
[[nodiscard]] training_summary validate_training(const std::vector<std::string_view>& files);

}  // namespace flopcast::validation
