#pragma once
// Workloads as people send them: a shared prefix (a system prompt on every request), a prompt
// pool (requests cycle through N distinct prompts, as benchmark harnesses do), multi-turn
// sessions (each turn = the conversation so far + new user tokens, after a think time), and
// length presets fitted to the datasets benchmarks use (data/workloads.json, with sources).
// The prefix cache (prefix_cache.hpp) needs to know which prompt tokens are the same content:
// a request's tokens are a few segments, each a run of one content's tokens.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flopcast {

// A length distribution fitted to a dataset's published statistics: log-normal with median
// exp(mu) and shape sigma, rounded and clipped to [min, max].
struct lognormal_lengths {
  double mu = 0, sigma = 0;
  std::int64_t min = 1, max = 1;
};
struct length_preset {
  std::string_view name;
  std::string_view description;
  lognormal_lengths input, output;
  std::int64_t max_total = 0;  // input + output at most (0: no bound); output is clipped to fit
};
// The presets (the same figures as data/workloads.json, which gives each one's source).
[[nodiscard]] const std::vector<length_preset>& length_presets();
// nullptr for an unknown name.
[[nodiscard]] const length_preset* find_length_preset(std::string_view name);
// The length for two uniform draws in [0, 1) (Box-Muller), rounded, clipped to [min, max].
[[nodiscard]] std::int64_t lognormal_length(const lognormal_lengths& d, double u1, double u2);

struct workload_settings {
  std::int64_t prefix_tokens = 0;  // the first tokens of every prompt are one shared system prompt
  std::int64_t prompt_pool = 0;    // 0: every prompt is unique; N: request i sends prompt i mod N
  std::int64_t turns = 1;          // turns per session (1: single-turn requests)
  double think_time_s = 0;         // between a turn's last token and the session's next turn
  std::string dataset;             // a length preset's name ("": input_tokens / output_tokens)
  [[nodiscard]] bool sessions() const noexcept { return turns > 1; }
};

// A run of one content's tokens: token k of the run is token (offset + k) of content `id`.
struct token_segment {
  std::uint64_t id = 0;
  std::int64_t length = 0;
};

}  // namespace flopcast
