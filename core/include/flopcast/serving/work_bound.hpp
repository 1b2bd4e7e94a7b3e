#pragma once
// The serving simulator's work bound (work_bound.cpp): an upper bound, computed from a request
// before anything runs, on the engine steps and the work of every simulation the request asks
// for (every point of a sweep, both pools of a disaggregated simulation and all its passes),
// and the cap beyond which a request is refused with flopcast.limit.
#include <cstddef>
#include <cstdint>

#include "flopcast/serving/disaggregated.hpp"
#include "flopcast/serving/simulator.hpp"

namespace flopcast {

// The most work units (simulation_work::units) one request may ask for. One unit costs the
// native simulator about 0.1 us (0.03 to 0.25 us measured, see work_bound.cpp), so a request
// at the cap runs for about 10 to 40 s; every test and benchmark request is far below it.
inline constexpr double max_simulation_work = 1.5e8;

struct simulation_work {
  // Upper bound on the engine steps of one simulate() call (without preemption: a preempted
  // request recomputes its prompt, which the bound cannot know; the simulator stops a run whose
  // steps pass max_simulation_work instead).
  double steps = 0;
  // The work: steps x (1 + speculative tokens, each verified draft a pass over the layer
  // groups) + the prefix cache's block hashing (prompt + output tokens / block_size per request)
  // and session content (2 segments per turn per request).
  double units = 0;
};

// One simulate() call with these settings (a point; an attention-DP replica: all its ranks).
[[nodiscard]] simulation_work simulation_work_bound(const simulation_settings& s);
// A whole request: `points` simulations of s, each disaggregated when dz is given (both pools,
// every pass of a closed loop and the two bottleneck probes).
[[nodiscard]] simulation_work simulation_work_bound(const simulation_settings& s, std::size_t points,
                                                    const disaggregation_settings* dz);
// Throws flopcast::error(limit) naming the fields that drive the bound when it passes
// max_simulation_work (the trace, or num_requests, with the bound, the cap and what to lower).
void check_simulation_work(const simulation_settings& s, std::size_t points, const disaggregation_settings* dz);
// The least work a trace of `rows` requests of `output_tokens` output tokens in all can be
// bounded by, whatever the other settings (for readers that count a trace file before building
// the request).
[[nodiscard]] double trace_work_floor(std::int64_t rows, double output_tokens) noexcept;

}  // namespace flopcast
