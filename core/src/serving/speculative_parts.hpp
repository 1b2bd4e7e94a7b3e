#pragma once
// What speculative decoding adds to a step of the serving simulator (simulator.cpp): the
// proposer's passes, the tokens a verification yields, and the proposer's memory.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "flopcast/serving/simulator.hpp"
#include "flopcast/serving/speculative.hpp"

namespace flopcast::detail {

class speculation {
 public:
  // s already resolved (resolve_speculative); target: the served model's step model.
  speculation(const speculative_settings& s, const settings& base, const hardware_spec& gpu, const step_model& target);
  [[nodiscard]] bool on() const noexcept { return s_.method != speculative_method::off; }
  [[nodiscard]] std::int64_t tokens() const noexcept { return s_.tokens; }

  // One step's proposer work: begin(), then every sequence the step runs (a prefill chunk, or a
  // verifying sequence with `depth` drafts), then draft_s().
  void begin() noexcept;
  void add_prefill(std::int64_t context, std::int64_t tokens, bool last) noexcept;
  void add_decode(std::int64_t context, std::int64_t depth) noexcept;
  [[nodiscard]] double draft_s() const noexcept;

  // Tokens a verification of `depth` drafts emits, as the expected value carried per sequence
  // (deterministic): floor(credit + E) - floor(credit), then credit += E.
  [[nodiscard]] std::int64_t accepted(double& credit, std::int64_t depth) const noexcept;
  [[nodiscard]] double expected(std::int64_t depth) const noexcept;

  // Per GPU: the proposer's weights and its cache per token of context.
  [[nodiscard]] double weight_bytes() const noexcept { return weights_; }
  [[nodiscard]] double kv_bytes_per_token() const noexcept { return kv_per_token_; }

 private:
  [[nodiscard]] double pass_s(const step_model::batch& b) const noexcept;
  speculative_settings s_;
  const step_model* target_ = nullptr;
  std::optional<step_model> draft_;
  double layer_share_ = 1;  // MTP / EAGLE-3: one target layer's share of a target step
  double weights_ = 0, kv_per_token_ = 0;
  std::vector<double> expected_;          // by depth 0..k
  step_model::batch first_;               // the proposer's first pass: the step's new tokens
  std::vector<step_model::batch> later_;  // passes 2..k: one token per drafting sequence
};

}  // namespace flopcast::detail
