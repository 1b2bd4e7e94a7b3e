// The simulator's work bound (work_bound.hpp).
//
// Steps. Take one simulate() run of n requests, request i prefilling p_i prompt tokens (at most
// its input; less with a prefix-cache hit or K/V present) and emitting o_i output tokens, with a
// step budget of c = max_num_batched_tokens tokens. Every step the scheduler runs is one of:
//  (a) a step with a decoding sequence: it emits at least one token of that sequence (a
//      verification emits 1 + accepted drafts, never 0). A request's first token comes from its
//      prefill's last step, so such steps number at most sum_i (o_i - 1);
//  (b) a prefill-only step that used the whole budget: c prompt tokens, so at most
//      floor(sum_i p_i / c) of them;
//  (c) a prefill-only step that left budget over: every sequence in it got all its `want`
//      (want = min(rest of the prompt, budget left), and the budget left only runs out when a
//      want is cut), so each one finished its prefill in it: at most n such steps.
// Hence steps <= sum_i (o_i - 1) + floor(sum_i p_i / c) + n <= sum_i (ceil(p_i / c) + o_i),
// the formula used (concurrency and max_num_seqs only share steps, they never add any). A
// preemption (KV blocks exhausted) makes a request prefill its prompt and output again, which
// no bound computed before running can know: the simulator stops a run at max_simulation_work
// steps instead (simulator.cpp).
//
// Work. A step costs O(1 + its sequences), a sequence O(1 + k) with k speculative tokens (a
// verification adds its drafts' passes); the sequences of a run's steps number at most
// sum_i o_i (decodes) + n (finished prefills) + one cut prefill per step, so at most twice the
// step bound. With a prefix cache each request hashes its (p_i + o_i) / block_size blocks and,
// in sessions, copies its previous turns' content (2 segments a turn). The units:
//   units = steps x (1 + k) + [prefix cache] sum_i (ceil((p_i + o_i) / block_size) + 2 turns).
// Measured (Release, one core of a 2020s x86 server): 1e6 steps of one sequence 0.25 s, 1e7
// sequence-steps of a 1024-sequence batch 0.6 s: 0.03 to 0.25 us a unit, so the cap
// (max_simulation_work) is 4 to 40 s of simulation.
//
// A request: every point (concurrency or request_rate value) runs the same requests, so
// `points` x one point. An attention-DP replica deals its requests to its ranks (each rank's
// share is at most all of them, at the same per-rank budget), so one point's bound holds for
// every rank together. Disaggregated: each run simulates every request in the prefill pool
// (output 1) and in the decode pool (its prompt's K/V present), and a point runs the simulation
// once (open loop; a closed loop: up to max_disaggregated_passes passes and one request alone)
// and twice more for the bottleneck probes: 3 runs. A closed loop repeats its pass until the
// arrivals repeat, at most max_disaggregated_passes times and never past the cap
// (disaggregated.cpp stops there and reports converged false), so a point stays within it.
#include "flopcast/serving/work_bound.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"
#include "serving/simulator_parts.hpp"

namespace flopcast {
namespace {

using detail::d;
using detail::format_number;

// The terms of one run: sum_i ceil(p_i / c), sum_i o_i, sum_i (p_i + o_i) / block_size.
struct terms {
  double requests = 0, prefill = 0, output = 0, blocks = 0;
};

double chunks(std::int64_t tokens, std::int64_t budget) {
  return std::ceil(d(std::max<std::int64_t>(tokens, 1)) / d(std::max<std::int64_t>(budget, 1)));
}

// `second`: a second budget (disaggregated: the decode pool's), whose chunks add to the first's.
terms run_terms(const simulation_settings& s, std::int64_t budget, std::int64_t second) {
  terms t;
  const std::int64_t bs = std::max<std::int64_t>(s.block_size, 1);
  const auto add = [&](std::int64_t p, std::int64_t o, double count) {
    t.requests += count;
    t.prefill += count * (chunks(p, budget) + (second > 0 ? chunks(p, second) : 0.0));
    t.output += count * d(std::max<std::int64_t>(o, 1));
    t.blocks += count * std::ceil(d(std::max<std::int64_t>(p, 0) + std::max<std::int64_t>(o, 0)) / d(bs));
  };
  if (s.arrivals == arrival_kind::trace) {
    for (const trace_request& r : s.trace) add(r.input_tokens, r.output_tokens, 1);
  } else {
    // Every request at the longest prompt and output its settings allow (a session's last turn).
    const auto [prompt, total] = detail::longest_request(s);
    add(prompt, total - prompt, d(std::max<std::int64_t>(s.num_requests, 0)));
  }
  return t;
}

std::int64_t speculative_tokens(const simulation_settings& s) {
  if (s.speculative.method == speculative_method::off) return 0;
  return std::max<std::int64_t>(resolve_speculative(s.speculative).tokens, 0);
}

struct work_terms {
  terms per_run;
  double runs = 1, k = 0, cache = 0;
  simulation_work work;
};

work_terms compute(const simulation_settings& s, std::size_t points, const disaggregation_settings* dz) {
  work_terms b;
  b.k = d(speculative_tokens(s));
  if (dz != nullptr) {
    // Prefill pool: ceil(p_i / c_prefill) + 1 (its one output token); decode pool:
    // ceil(p_i / c_decode) + o_i (a present prompt prefills 1 token; a preempted one all).
    b.per_run = run_terms(s, dz->prefill_max_num_batched_tokens.value_or(s.max_num_batched_tokens),
                          dz->decode_max_num_batched_tokens.value_or(s.max_num_batched_tokens));
    b.per_run.output += b.per_run.requests;
    // A closed loop's passes stop at the cap (disaggregated.cpp): counted as the open loop's.
    b.runs = 3;
  } else {
    b.per_run = run_terms(s, s.max_num_batched_tokens, 0);
  }
  const double steps = b.per_run.prefill + b.per_run.output;
  if (s.prefix_cache != prefix_cache_mode::off)
    b.cache = b.per_run.blocks + 2 * d(s.workload.turns) * b.per_run.requests;
  b.runs *= d(static_cast<std::int64_t>(std::max<std::size_t>(points, 1)));
  b.work.steps = steps;
  b.work.units = b.runs * (steps * (1 + b.k) + b.cache);
  return b;
}

}  // namespace

simulation_work simulation_work_bound(const simulation_settings& s) { return compute(s, 1, nullptr).work; }

simulation_work simulation_work_bound(const simulation_settings& s, std::size_t points,
                                      const disaggregation_settings* dz) {
  return compute(s, points, dz).work;
}

void check_simulation_work(const simulation_settings& s, std::size_t points, const disaggregation_settings* dz) {
  const work_terms b = compute(s, points, dz);
  if (b.work.units <= max_simulation_work) return;
  const bool trace = s.arrivals == arrival_kind::trace;
  std::string what = "per run " + format_number(b.per_run.prefill) + " prefill chunks (" +
                     (trace ? std::string("the trace's input_tokens") : std::string("input_tokens")) +
                     " / max_num_batched_tokens) + " + format_number(b.per_run.output) + " output tokens over " +
                     format_number(b.per_run.requests) + (trace ? " trace rows" : " requests");
  if (b.k > 0) what += ", x (1 + " + format_number(b.k) + " speculative_tokens)";
  if (b.cache > 0) what += ", + " + format_number(b.cache) + " prefix-cache blocks and session segments";
  if (b.runs > 1) {
    what += ", x " + format_number(b.runs) + " runs (";
    if (points > 1) what += std::to_string(points) + " points";
    if (dz != nullptr)
      what += std::string(points > 1 ? "; " : "") + "disaggregated: both pools, " + std::string("one pass") +
              " and 2 bottleneck probes";
    what += ")";
  }
  std::string lower = trace ? "fewer or shorter trace rows" : "num_requests";
  lower +=
      b.per_run.prefill > b.per_run.output ? ", input_tokens, or a larger max_num_batched_tokens" : ", output_tokens";
  if (points > 1) lower += ", fewer concurrency or request_rate values";
  throw error(error_code::limit, trace ? "/simulation/trace" : "/simulation/num_requests",
              "the simulation's work is bounded by " + format_number(b.work.units) + " units (" + what +
                  "): expected at most " + format_number(max_simulation_work) + " (about 10 s of simulation); lower " +
                  lower);
}

double trace_work_floor(std::int64_t rows, double output_tokens) noexcept {
  // Each row: at least one prefill chunk and its output tokens (run_terms with any budget).
  return d(rows) + output_tokens;
}

}  // namespace flopcast
