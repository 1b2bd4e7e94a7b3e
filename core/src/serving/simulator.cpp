// The serving simulator: discrete-event, iteration-level continuous batching on one replica.
//
// Each iteration the scheduler (modelled on vLLM's) picks the tokens to run:
//  - mixed (vLLM V1): the running sequences first, in admission order (a decode token each, or
//    the next chunk of an unfinished prefill), then waiting requests are admitted in arrival
//    order while max_num_seqs, the token budget (max_num_batched_tokens) and free KV blocks
//    allow; with chunked prefill a prompt is split to fill the budget, without it a prompt is
//    admitted only whole.
//  - prefill_first (vLLM V0): a step that can run prefills runs only prefills; decodes wait.
//  - Paged KV: a sequence holds ceil(computed tokens / block_size) blocks. When a running
//    sequence needs a block and none is free, the most recently admitted running sequence is
//    preempted (vLLM's default, recompute): its blocks are freed and it goes back to the front
//    of the queue; on readmission its prompt and the tokens it already emitted are prefilled
//    again, and that prefill's last position gives its next token.
// The step's time is step_model's. Tokens come out at the end of the step that produced them.
#include "flopcast/serving/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <random>
#include <string>

#include "base/detail.hpp"
#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "serving/speculative_parts.hpp"

namespace flopcast {
namespace {

using detail::d;
using detail::format_number;

[[noreturn]] void bad(const std::string& field, const std::string& message) {
  throw error(error_code::invalid_argument, field, message);
}

constexpr std::int64_t max_requests = 1000000;
constexpr std::int64_t max_tokens = 10000000;                     // input or output tokens of one request
constexpr double max_generated = 1e9;                             // output tokens of a whole simulation
constexpr std::int64_t unbounded_blocks = std::int64_t{1} << 40;  // models without a growing KV cache

void check_int(std::int64_t v, std::int64_t lo, std::int64_t hi, const std::string& field) {
  if (v < lo || v > hi)
    bad(field, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], but got " +
                   std::to_string(v));
}

void check_range(const length_range& r, const std::string& field) {
  check_int(r.min, 1, max_tokens, field + "/min");
  check_int(r.max, 1, max_tokens, field + "/max");
  if (r.max < r.min)
    bad(field + "/max", "expected max >= min (" + std::to_string(r.min) + "), but got " + std::to_string(r.max));
}

// Deterministic on every platform: the raw 64-bit stream of mt19937_64 (fixed by the standard)
// mapped by our own arithmetic (the standard distributions are implementation-defined).
struct rng {
  std::mt19937_64 gen;
  explicit rng(std::uint64_t seed) : gen(seed) {}
  double uniform01() { return static_cast<double>(gen() >> 11) * 0x1.0p-53; }  // [0, 1)
  double exponential(double rate) { return -std::log1p(-uniform01()) / rate; }
  std::int64_t uniform_int(std::int64_t lo, std::int64_t hi) {  // [lo, hi]
    const std::uint64_t span = static_cast<std::uint64_t>(hi - lo) + 1;
    if (span == 0) return lo;
    const std::uint64_t limit =
        std::numeric_limits<std::uint64_t>::max() - std::numeric_limits<std::uint64_t>::max() % span;
    std::uint64_t x = gen();
    while (x >= limit) x = gen();
    return lo + static_cast<std::int64_t>(x % span);
  }
};

struct request {
  double arrival = 0, first_token = -1, last_token = 0, finish = -1;
  std::int64_t input = 0, output = 0;
  std::int64_t emitted = 0;      // output tokens so far
  std::int64_t computed = 0;     // tokens whose K/V is in the cache (this admission)
  std::int64_t prefill_end = 0;  // input + emitted at admission: tokens this admission prefills
  std::int64_t blocks = 0;
  std::int64_t prefill_tokens = 0, preemptions = 0;
  std::int64_t client = -1;
  std::int64_t scheduled = 0;  // tokens in the current step
  double spec_credit = 0;      // speculative decoding: expected tokens accumulated
  bool measured = false;
  [[nodiscard]] std::int64_t tokens() const { return input + emitted; }
};

double percentile_sorted(const std::vector<double>& v, double q) {
  if (v.empty()) return 0;
  const double pos = q * d(static_cast<std::int64_t>(v.size()) - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, v.size() - 1);
  return v[lo] + (v[hi] - v[lo]) * (pos - d(static_cast<std::int64_t>(lo)));
}

distribution summarize(std::vector<double>& v) {
  distribution out;
  if (v.empty()) return out;
  std::sort(v.begin(), v.end());
  out.count = static_cast<std::int64_t>(v.size());
  double sum = 0;
  for (const double x : v) sum += x;
  out.mean = sum / d(out.count);
  out.min = v.front();
  out.max = v.back();
  out.p50 = percentile_sorted(v, 0.5);
  out.p90 = percentile_sorted(v, 0.9);
  out.p99 = percentile_sorted(v, 0.99);
  return out;
}

// Inter-token latencies (there can be 10^9): a log histogram of 0.1%-wide bins from 1 ns.
struct log_histogram {
  static constexpr double lo = 1e-9, ratio = 1.001;
  std::vector<std::int64_t> bins;
  double inv_log_ratio = 1.0 / std::log(ratio);
  std::int64_t count = 0;
  double sum = 0, min = std::numeric_limits<double>::infinity(), max = 0;
  log_histogram() : bins(static_cast<std::size_t>(std::log(1e13) / std::log(ratio)) + 2, 0) {}
  [[nodiscard]] std::size_t bin_of(double x) const {
    if (x <= lo) return 0;
    const double b = std::floor(std::log(x / lo) * inv_log_ratio) + 1;
    return std::min(static_cast<std::size_t>(b), bins.size() - 1);
  }
  void add(double x, std::size_t bin) {
    ++bins[bin];
    ++count;
    sum += x;
    min = std::min(min, x);
    max = std::max(max, x);
  }
  [[nodiscard]] double quantile(double q) const {
    // The value of nearest rank ceil(q x count), at its bin's geometric centre.
    const auto rank = std::max<std::int64_t>(1, static_cast<std::int64_t>(std::ceil(q * d(count))));
    std::int64_t seen = 0;
    for (std::size_t i = 0; i < bins.size(); ++i) {
      seen += bins[i];
      if (seen >= rank) {
        const double v = i == 0 ? lo : lo * std::pow(ratio, d(static_cast<std::int64_t>(i)) - 0.5);
        return std::clamp(v, min, max);
      }
    }
    return max;
  }
  [[nodiscard]] distribution summary() const {
    distribution out;
    if (count == 0) return out;
    out.count = count;
    out.mean = sum / d(count);
    out.min = min;
    out.max = max;
    out.p50 = quantile(0.5);
    out.p90 = quantile(0.9);
    out.p99 = quantile(0.99);
    return out;
  }
};

// Evenly thinned samples: every stride-th step; when full, every other point is dropped.
struct sampler {
  std::vector<time_point> points;
  std::size_t cap;
  std::int64_t stride = 1, n = 0;
  explicit sampler(std::int64_t max_points) : cap(static_cast<std::size_t>(max_points)) { points.reserve(cap); }
  void add(const time_point& p) {
    if (n++ % stride != 0) return;
    if (points.size() == cap) {
      std::size_t w = 0;
      for (std::size_t i = 0; i < points.size(); i += 2) points[w++] = points[i];
      points.resize(w);
      stride *= 2;
      if ((n - 1) % stride != 0) return;
    }
    points.push_back(p);
  }
};

std::int64_t blocks_for(std::int64_t tokens, std::int64_t block_size) { return (tokens + block_size - 1) / block_size; }

// Memory per GPU after the weights and the activations of the largest step (batch 1,
// max_num_batched_tokens tokens: vLLM profiles its peak with a dummy step of that size).
double memory_left(const simulation_settings& s, const step_model& sm, const model_spec& m, const hardware_spec& gpu) {
  settings one = s.base;
  one.training = false;
  one.batch_size = 1;
  one.sequence_length = s.max_num_batched_tokens;
  one.num_generated_tokens = 1;
  const estimate_result r = estimate(m, one, &gpu);
  return detail::usable_memory(s.base, gpu) - sm.weights_per_gpu() - r.parallel.activations_per_gpu;
}

// The recurrent-state pool (hybrid models) out of the memory `left` after weights and activations:
// every running sequence's state (max_num_seqs of them), or, where the engine sizes it by a ratio
// (SGLang's handle_max_mamba_cache: state / KV = mamba_full_memory_ratio), left x r / (1 + r).
double state_pool_bytes(const simulation_settings& s, const step_model& sm, double left) {
  if (sm.state_bytes_per_sequence() <= 0) return 0;
  if (s.state_memory_ratio > 0) return std::max(left, 0.0) * s.state_memory_ratio / (1 + s.state_memory_ratio);
  return d(s.max_num_seqs) * sm.state_bytes_per_sequence();
}

// The most sequences that run at once: max_num_seqs, and where the state pool is sized by a
// ratio, its slots / state_slots_per_sequence (SGLang: max_mamba_cache_size // 3).
std::int64_t running_cap(const simulation_settings& s, const step_model& sm, const model_spec& m,
                         const hardware_spec& gpu) {
  if (s.state_memory_ratio <= 0 || sm.state_bytes_per_sequence() <= 0) return s.max_num_seqs;
  const double left = memory_left(s, sm, m, gpu);
  const double slots = std::floor(state_pool_bytes(s, sm, left) / sm.state_bytes_per_sequence());
  return std::clamp(static_cast<std::int64_t>(std::min(slots / d(s.state_slots_per_sequence), d(s.max_num_seqs))),
                    std::int64_t{0}, s.max_num_seqs);
}

std::int64_t default_blocks(const simulation_settings& s, const step_model& sm, const model_spec& m,
                            const hardware_spec& gpu, const detail::speculation& spec) {
  if (sm.kv_bytes_per_token() <= 0) return unbounded_blocks;
  // Activations of the largest step and the recurrent-state pool are reserved.
  const double left = memory_left(s, sm, m, gpu);
  // A proposer's weights and cache (speculative decoding) share the pool.
  const double budget = left - state_pool_bytes(s, sm, left) - spec.weight_bytes();
  const double block_bytes = (sm.kv_bytes_per_token() + spec.kv_bytes_per_token()) * d(s.block_size);
  if (budget <= 0) return 0;
  return static_cast<std::int64_t>(std::min(std::floor(budget / block_bytes), d(unbounded_blocks)));
}

}  // namespace

void validate(const model_spec& m, const simulation_settings& s) {
  if (m.arch != architecture::decoder)
    bad("/model",
        "the serving simulator runs decoder-only models (encoder and encoder-decoder models are not "
        "simulated)");
  validate(s.base);
  const bool trace = s.arrivals == arrival_kind::trace;
  if (trace) {
    if (s.trace.empty()) bad("/simulation/trace", "expected at least one request in the trace, but it is empty");
    if (static_cast<std::int64_t>(s.trace.size()) > max_requests)
      bad("/simulation/trace",
          "expected at most " + std::to_string(max_requests) + " requests, but got " + std::to_string(s.trace.size()));
    double last = 0, generated = 0;
    for (std::size_t i = 0; i < s.trace.size(); ++i) {
      const trace_request& t = s.trace[i];
      const std::string at = "/simulation/trace/" + std::to_string(i);
      if (!std::isfinite(t.arrival_s) || t.arrival_s < 0)
        bad(at + "/arrival_s", "expected a finite arrival time >= 0 s, but got " + format_number(t.arrival_s));
      if (t.arrival_s < last)
        bad(at + "/arrival_s", "expected the trace in arrival order: " + format_number(t.arrival_s) +
                                   " s comes after " + format_number(last) + " s");
      last = t.arrival_s;
      check_int(t.input_tokens, 1, max_tokens, at + "/input_tokens");
      check_int(t.output_tokens, 1, max_tokens, at + "/output_tokens");
      generated += d(t.output_tokens);
    }
    if (generated > max_generated)
      bad("/simulation/trace",
          "expected at most 10^9 output tokens in all, but the trace asks for " + format_number(generated));
  } else {
    check_int(s.num_requests, 1, max_requests, "/simulation/num_requests");
    check_range(s.input_tokens, "/simulation/input_tokens");
    check_range(s.output_tokens, "/simulation/output_tokens");
    if (d(s.num_requests) * d(s.output_tokens.max) > max_generated)
      bad("/simulation/num_requests", "expected num_requests x output_tokens.max at most 10^9 output tokens, but got " +
                                          format_number(d(s.num_requests) * d(s.output_tokens.max)));
  }
  if (s.arrivals == arrival_kind::closed_loop) check_int(s.clients, 1, max_requests, "/simulation/clients");
  if (s.arrivals == arrival_kind::poisson && !(std::isfinite(s.rate_per_s) && s.rate_per_s > 0 && s.rate_per_s <= 1e9))
    bad("/simulation/rate_per_s",
        "expected an arrival rate in (0, 1e9] requests/s, but got " + format_number(s.rate_per_s));
  check_int(s.max_num_seqs, 1, max_requests, "/simulation/max_num_seqs");
  check_int(s.max_num_batched_tokens, 1, 100000000, "/simulation/max_num_batched_tokens");
  check_int(s.block_size, 1, 1048576, "/simulation/block_size");
  if (s.kv_blocks) check_int(*s.kv_blocks, 1, unbounded_blocks, "/simulation/kv_blocks");
  check_int(s.warmup_requests, 0, max_requests, "/simulation/warmup_requests");
  if (!std::isfinite(s.warmup_s) || s.warmup_s < 0)
    bad("/simulation/warmup_s", "expected a warm-up time >= 0 s, but got " + format_number(s.warmup_s));
  if (s.slo_ttft_s && !(std::isfinite(*s.slo_ttft_s) && *s.slo_ttft_s > 0))
    bad("/simulation/slo_ttft_s", "expected a TTFT limit > 0 s, but got " + format_number(*s.slo_ttft_s));
  if (s.slo_tpot_s && !(std::isfinite(*s.slo_tpot_s) && *s.slo_tpot_s > 0))
    bad("/simulation/slo_tpot_s", "expected a TPOT limit > 0 s, but got " + format_number(*s.slo_tpot_s));
  check_int(s.max_samples, 2, 100000, "/simulation/max_samples");
  if (!s.chunked_prefill) {
    const std::int64_t longest = trace ? std::max_element(s.trace.begin(), s.trace.end(),
                                                          [](const trace_request& a, const trace_request& b) {
                                                            return a.input_tokens < b.input_tokens;
                                                          })
                                             ->input_tokens
                                       : s.input_tokens.max;
    if (longest > s.max_num_batched_tokens)
      bad("/simulation/max_num_batched_tokens",
          "without chunked prefill a prompt runs in one step: expected at least the longest prompt (" +
              std::to_string(longest) + " tokens), but got " + std::to_string(s.max_num_batched_tokens));
  }
}

simulation_result simulate(const model_spec& m, const simulation_settings& s, const hardware_spec& gpu) {
  validate(m, s);
  const step_model sm(m, s.base, gpu);
  detail::speculation spec(resolve_speculative(s.speculative), s.base, gpu, sm);
  const std::int64_t spec_k = spec.on() ? spec.tokens() : 0;  // drafts per decoding sequence
  const std::int64_t bs = s.block_size;
  const std::int64_t total_blocks = s.kv_blocks ? *s.kv_blocks : default_blocks(s, sm, m, gpu, spec);
  const std::int64_t max_running = running_cap(s, sm, m, gpu);
  const bool trace = s.arrivals == arrival_kind::trace;
  const std::int64_t n = trace ? static_cast<std::int64_t>(s.trace.size()) : s.num_requests;

  // A request's cache peaks at input + output - 1 tokens (the last token is never fed back).
  if (total_blocks == 0)
    bad(s.kv_blocks ? "/simulation/kv_blocks" : "/simulation",
        "the weights (" + format_number(sm.weights_per_gpu()) +
            " bytes per GPU) and the activations leave no memory "
            "for the KV cache on " +
            gpu.name);
  if (max_running < 1)
    bad("/simulation",
        "the recurrent-state pool left after the weights and activations holds no running sequence on " + gpu.name);
  const auto check_fits = [&](std::int64_t in, std::int64_t out, const std::string& field) {
    const std::int64_t need = blocks_for(in + out - 1 + spec_k, bs);  // + the drafts verified
    if (need > total_blocks)
      bad(field, "a request of " + std::to_string(in) + " input + " + std::to_string(out) + " output tokens needs " +
                     std::to_string(need) + " KV blocks of " + std::to_string(bs) + " tokens, but the KV cache holds " +
                     std::to_string(total_blocks) + " blocks (" + std::to_string(total_blocks * bs) + " tokens) on " +
                     gpu.name);
  };
  if (trace) {
    for (std::size_t i = 0; i < s.trace.size(); ++i)
      check_fits(s.trace[i].input_tokens, s.trace[i].output_tokens, "/simulation/trace/" + std::to_string(i));
  } else {
    check_fits(s.input_tokens.max, s.output_tokens.max, "/simulation/input_tokens");
  }

  // Requests, in creation order; arrival times known up front except in a closed loop.
  rng random(s.seed);
  std::vector<request> reqs(static_cast<std::size_t>(n));
  const auto lengths = [&](request& r) {
    r.input = s.input_tokens.min == s.input_tokens.max ? s.input_tokens.min
                                                       : random.uniform_int(s.input_tokens.min, s.input_tokens.max);
    r.output = s.output_tokens.min == s.output_tokens.max
                   ? s.output_tokens.min
                   : random.uniform_int(s.output_tokens.min, s.output_tokens.max);
  };
  std::int64_t created = 0;
  if (s.arrivals == arrival_kind::closed_loop) {
    for (std::int64_t c = 0; c < std::min(s.clients, n); ++c) {
      request& r = reqs[static_cast<std::size_t>(created++)];
      r.client = c;
      lengths(r);
    }
  } else {
    double t = 0;
    for (std::int64_t i = 0; i < n; ++i) {
      request& r = reqs[static_cast<std::size_t>(i)];
      if (trace) {
        const trace_request& q = s.trace[static_cast<std::size_t>(i)];
        r.arrival = q.arrival_s;
        r.input = q.input_tokens;
        r.output = q.output_tokens;
      } else {
        if (s.arrivals == arrival_kind::poisson) t += random.exponential(s.rate_per_s);
        r.arrival = t;
        lengths(r);
      }
    }
    created = n;
  }

  std::deque<std::int32_t> waiting;
  std::vector<std::int32_t> running, scheduled, kept;
  running.reserve(static_cast<std::size_t>(s.max_num_seqs));
  scheduled.reserve(static_cast<std::size_t>(s.max_num_seqs));
  kept.reserve(static_cast<std::size_t>(s.max_num_seqs));
  std::int64_t next_arrival = 0;  // index of the next request not yet in the system
  std::int64_t free_blocks = total_blocks, finished = 0;
  double t = 0;

  simulation_result out;
  out.kv_blocks = total_blocks;
  out.block_size = bs;
  log_histogram itl;
  std::int64_t verify_steps = 0, verify_tokens = 0;  // speculative decoding
  sampler timeline(s.max_samples);
  double area_in_system = 0, area_running = 0, area_kv = 0;

  const auto measured = [&](std::int64_t i, const request& r) {
    return i >= s.warmup_requests && r.arrival >= s.warmup_s;
  };
  const auto preempt = [&](std::int32_t id) {
    request& r = reqs[static_cast<std::size_t>(id)];
    free_blocks += r.blocks;
    r.blocks = 0;
    r.computed = 0;
    r.scheduled = 0;
    ++r.preemptions;
    ++out.preemptions;
    waiting.push_front(id);
  };

  while (finished < n) {
    // Arrivals up to now.
    while (next_arrival < created && reqs[static_cast<std::size_t>(next_arrival)].arrival <= t) {
      area_in_system += t - reqs[static_cast<std::size_t>(next_arrival)].arrival;
      waiting.push_back(static_cast<std::int32_t>(next_arrival++));
    }
    if (running.empty() && waiting.empty()) {
      if (next_arrival >= created) break;  // cannot happen: a closed loop creates on finish
      t = reqs[static_cast<std::size_t>(next_arrival)].arrival;
      continue;
    }

    // ---- schedule ----
    std::int64_t budget = s.max_num_batched_tokens, preempted = 0;
    scheduled.clear();
    // Running sequences in admission order; `decodes`: whether decode tokens may run.
    const auto schedule_running = [&](bool decodes, bool prefills) {
      for (std::size_t i = 0; i < running.size() && budget > 0; ++i) {
        const std::int32_t id = running[i];
        request& r = reqs[static_cast<std::size_t>(id)];
        const bool decode = r.computed >= r.prefill_end;
        if (decode ? !decodes : !prefills) continue;
        // A decode verifies its drafts too (k + 1 tokens of the budget; vLLM counts them).
        const std::int64_t want = std::min(r.tokens() - r.computed + (decode ? spec_k : 0), budget);
        const std::int64_t need = blocks_for(r.computed + want, bs) - r.blocks;
        bool self_preempted = false;
        while (free_blocks < need) {
          const std::int32_t victim = running.back();
          running.pop_back();
          preempt(victim);
          ++preempted;
          if (victim == id) {
            self_preempted = true;
            break;
          }
        }
        if (self_preempted) break;
        free_blocks -= std::max<std::int64_t>(need, 0);
        r.blocks += std::max<std::int64_t>(need, 0);
        r.scheduled = want;
        budget -= want;
        scheduled.push_back(id);
      }
    };
    const auto admit = [&]() {
      while (!waiting.empty() && budget > 0 && static_cast<std::int64_t>(running.size()) < max_running) {
        const std::int32_t id = waiting.front();
        request& r = reqs[static_cast<std::size_t>(id)];
        const std::int64_t total = r.tokens();
        // Without chunking a prompt runs whole; a recomputed prefill longer than the budget is
        // still chunked (it could never run otherwise).
        if (!s.chunked_prefill && total > budget && total <= s.max_num_batched_tokens) break;
        const std::int64_t want = std::min(total, budget);
        const std::int64_t need = blocks_for(want, bs);
        if (need > free_blocks) break;
        waiting.pop_front();
        r.computed = 0;
        r.prefill_end = total;
        r.blocks = need;
        free_blocks -= need;
        r.scheduled = want;
        budget -= want;
        running.push_back(id);
        scheduled.push_back(id);
      }
    };
    if (s.policy == batching_policy::mixed) {
      schedule_running(true, true);
      if (preempted == 0) admit();
    } else {
      schedule_running(false, true);  // unfinished (chunked) prefills
      if (preempted == 0) admit();
      if (scheduled.empty()) schedule_running(true, false);
    }
    if (scheduled.empty()) {
      // Only a preemption that left nothing to run (the freed blocks admit work next time).
      if (preempted > 0) continue;
      throw error(error_code::invalid_argument, "/simulation",
                  "internal: the scheduler found no work although requests are waiting (please report)");
    }

    // ---- time the step ----
    step_model::batch b;
    std::int64_t decode_tokens = 0, prefill_tokens = 0;
    spec.begin();
    for (const std::int32_t id : scheduled) {
      const request& r = reqs[static_cast<std::size_t>(id)];
      if (r.computed >= r.prefill_end) {
        if (r.scheduled > 1) {
          sm.add_verify(b, r.computed, r.scheduled);
          spec.add_decode(r.computed, r.scheduled - 1);
        } else {
          sm.add_decode(b, r.computed);
        }
        ++decode_tokens;
      } else {
        const bool last = r.computed + r.scheduled == r.prefill_end;
        sm.add_prefill(b, r.computed, r.scheduled, last);
        if (spec_k > 0) spec.add_prefill(r.computed, r.scheduled, last);
        prefill_tokens += r.scheduled;
      }
    }
    const double dt = sm.time(b).total_s + (spec_k > 0 ? spec.draft_s() : 0.0);
    const double end = t + dt;
    const std::int64_t used = total_blocks - free_blocks;
    const double kv_util = total_blocks > 0 ? d(used) / d(total_blocks) : 0.0;
    area_in_system += d(static_cast<std::int64_t>(running.size() + waiting.size())) * dt;
    area_running += d(static_cast<std::int64_t>(running.size())) * dt;
    area_kv += kv_util * dt;
    out.peak_kv_utilization = std::max(out.peak_kv_utilization, kv_util);
    timeline.add({t, static_cast<std::int64_t>(running.size()), static_cast<std::int64_t>(waiting.size()), kv_util});
    if (s.on_step) {
      step_record rec;
      rec.start_s = t;
      rec.duration_s = dt;
      rec.decode_tokens = decode_tokens;
      rec.prefill_tokens = prefill_tokens;
      rec.sequences = static_cast<std::int64_t>(scheduled.size());
      rec.running = static_cast<std::int64_t>(running.size());
      rec.waiting = static_cast<std::int64_t>(waiting.size());
      rec.blocks_used = used;
      rec.blocks_total = total_blocks;
      rec.preempted = preempted;
      s.on_step(rec);
    }
    ++out.steps;

    // ---- results of the step ----
    const std::size_t dt_bin = itl.bin_of(dt);
    bool any_finished = false;
    for (const std::int32_t id : scheduled) {
      request& r = reqs[static_cast<std::size_t>(id)];
      // A verification keeps the accepted drafts and the target's own token (at most the rest).
      std::int64_t got = 1;
      if (r.computed >= r.prefill_end && r.scheduled > 1) {
        got = std::min(spec.accepted(r.spec_credit, r.scheduled - 1), r.output - r.emitted);
        r.scheduled = got;
        ++verify_steps;
        verify_tokens += got;
      }
      if (r.computed < r.prefill_end) r.prefill_tokens += r.scheduled;
      r.computed += r.scheduled;
      r.scheduled = 0;
      if (r.computed - (got - 1) != r.tokens()) continue;  // a prefill chunk before the last
      r.emitted += got;
      if (r.emitted == 1) {
        r.first_token = end;
      } else if (measured(id, r)) {
        const double gap = end - r.last_token;
        itl.add(gap, r.last_token == t ? dt_bin : itl.bin_of(gap));
      }
      r.last_token = end;
      if (r.emitted == r.output) {
        r.finish = end;
        free_blocks += r.blocks;
        r.blocks = 0;
        ++finished;
        any_finished = true;
        if (r.client >= 0 && created < n) {  // the client's next request
          request& next = reqs[static_cast<std::size_t>(created++)];
          next.client = r.client;
          next.arrival = end;
          lengths(next);
        }
      }
    }
    if (any_finished) {
      kept.clear();
      for (const std::int32_t id : running)
        if (reqs[static_cast<std::size_t>(id)].finish < 0) kept.push_back(id);
      running.swap(kept);
    }
    t = end;
  }

  // ---- statistics ----
  out.requests = n;
  out.makespan_s = t;
  std::vector<double> ttft, tpot, e2e;
  ttft.reserve(static_cast<std::size_t>(n));
  tpot.reserve(static_cast<std::size_t>(n));
  e2e.reserve(static_cast<std::size_t>(n));
  double first_arrival = std::numeric_limits<double>::infinity(), last_finish = 0, out_tokens = 0, in_tokens = 0;
  double latency_all = 0, last_arrival = 0;
  if (s.keep_requests) out.requests_detail.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    request& r = reqs[static_cast<std::size_t>(i)];
    r.measured = measured(i, r);
    latency_all += r.finish - r.arrival;
    last_arrival = std::max(last_arrival, r.arrival);
    if (s.keep_requests)
      out.requests_detail.push_back({r.arrival, r.first_token, r.finish, r.input, r.output, r.emitted, r.prefill_tokens,
                                     r.preemptions, r.measured});
    if (!r.measured) continue;
    ++out.measured_requests;
    const double ft = r.first_token - r.arrival, lat = r.finish - r.arrival;
    const double per_token = r.output > 1 ? (r.finish - r.first_token) / d(r.output - 1) : 0.0;
    ttft.push_back(ft);
    e2e.push_back(lat);
    if (r.output > 1) tpot.push_back(per_token);
    first_arrival = std::min(first_arrival, r.arrival);
    last_finish = std::max(last_finish, r.finish);
    out_tokens += d(r.output);
    in_tokens += d(r.input);
    if ((!s.slo_ttft_s || ft <= *s.slo_ttft_s) && (!s.slo_tpot_s || per_token <= *s.slo_tpot_s)) ++out.goodput_requests;
  }
  if (out.measured_requests > 0) {
    out.window_s = last_finish - first_arrival;
    if (out.window_s > 0) {
      out.output_tokens_per_s = out_tokens / out.window_s;
      out.total_tokens_per_s = (out_tokens + in_tokens) / out.window_s;
      out.requests_per_s = d(out.measured_requests) / out.window_s;
      out.goodput_requests_per_s = d(out.goodput_requests) / out.window_s;
    }
  }
  out.ttft = summarize(ttft);
  out.tpot = summarize(tpot);
  out.e2e = summarize(e2e);
  out.itl = itl.summary();
  if (t > 0) {
    out.mean_in_system = area_in_system / t;
    out.mean_running = area_running / t;
    out.mean_kv_utilization = area_kv / t;
    out.arrival_rate_all = d(n) / t;
  }
  out.mean_latency_all_s = latency_all / d(n);
  out.timeline = std::move(timeline.points);
  out.speculative = spec.on() ? resolve_speculative(s.speculative) : s.speculative;
  if (spec.on()) {
    out.expected_tokens_per_step = spec.expected(spec_k);
    if (verify_steps > 0) out.tokens_per_decode_step = d(verify_tokens) / d(verify_steps);
  }
  return out;
}

}  // namespace flopcast
