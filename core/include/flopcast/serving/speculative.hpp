#pragma once
// Speculative decoding: what a proposer (a draft model, MTP heads, an EAGLE-3 head) costs and
// how many tokens a verification step yields. The closed form (serving.hpp) and the simulator
// (simulator.hpp) share expected_tokens_per_step.
#include <cstdint>
#include <string_view>
#include <vector>

#include "flopcast/model/model.hpp"

namespace flopcast {

enum class speculative_method : std::uint8_t {
  off,
  draft_model,  // a smaller model drafts k tokens, k forward steps of its own
  mtp,          // multi-token-prediction heads shipped with the model (DeepSeek-V3/R1, GLM-4.5, Qwen3.5)
  eagle3,       // an EAGLE-3 head: one decoder layer on the target's hidden states
};
[[nodiscard]] std::string_view to_string(speculative_method m) noexcept;

struct speculative_settings {
  speculative_method method = speculative_method::off;
  const model_spec* draft = nullptr;  // draft_model: the drafter
  std::int64_t tokens = 0;            // k draft tokens per verification; 0: the method's default
  // Acceptance of the draft token at position i given positions < i were accepted: one value for
  // every position, or one per position (the last repeats). Empty: the method's default.
  std::vector<double> acceptance;
};

// Expected tokens a verification of k drafts yields: 1 + sum_{i=1..k} prod_{j<=i} a_j (the
// target's own token plus the accepted prefix); with one rate a, (1 - a^(k+1)) / (1 - a)
// (Leviathan et al. 2023, arXiv:2211.17192, eq. 1).
[[nodiscard]] double expected_tokens_per_step(std::int64_t k, const std::vector<double>& acceptance);

// The method's defaults where the settings leave them open (tokens 0, acceptance empty); the
// defaults are ESTIMATED (speculative.cpp names each one's source). Errors name the field
// ("/simulation/draft", "/simulation/speculative_tokens", "/simulation/acceptance_rate").
[[nodiscard]] speculative_settings resolve_speculative(const speculative_settings& s);

}  // namespace flopcast
