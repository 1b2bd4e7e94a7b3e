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
#include <queue>
#include <random>
#include <string>
#include <unordered_map>

#include "base/detail.hpp"
#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/serving/work_bound.hpp"
#include "serving/attention_dp.hpp"
#include "serving/prefix_cache.hpp"
#include "serving/simulator_parts.hpp"
#include "serving/speculative_parts.hpp"

namespace flopcast {
namespace {

using detail::d;
using detail::format_number;

[[noreturn]] void bad(const std::string& field, const std::string& message) {
  throw error(error_code::invalid_argument, field, message);
}

constexpr std::int64_t max_requests = max_simulation_requests;
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

using detail::rng;

struct request {
  double arrival = 0, first_token = -1, last_token = 0, finish = -1;
  std::int64_t input = 0, output = 0;
  std::int64_t emitted = 0;      // output tokens so far
  std::int64_t computed = 0;     // tokens whose K/V is in the cache (this admission)
  std::int64_t prefill_end = 0;  // input + emitted at admission: tokens this admission prefills
  std::int64_t blocks = 0;
  std::int64_t prefill_tokens = 0, preemptions = 0;
  std::int64_t client = -1;
  std::int64_t scheduled = 0;   // tokens in the current step
  std::int64_t cached = 0;      // prompt tokens the prefix cache served (every admission)
  std::int32_t parent = -1;     // sessions: the previous turn
  std::int32_t turn = 0;        // sessions: 0 for a session's first request
  std::int64_t kv_present = 0;  // prompt tokens whose K/V arrived with the request (trace_request)
  bool warmup = false;
  double spec_credit = 0;  // speculative decoding: expected tokens accumulated
  bool measured = false;
  [[nodiscard]] std::int64_t tokens() const { return input + emitted; }
};

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

void validate_workload(const simulation_settings& s) {
  const workload_settings& w = s.workload;
  check_int(w.prefix_tokens, 0, max_tokens, "/simulation/prefix_tokens");
  check_int(w.prompt_pool, 0, max_requests, "/simulation/prompt_pool");
  check_int(w.turns, 1, 10000, "/simulation/turns");
  if (!std::isfinite(w.think_time_s) || w.think_time_s < 0 || w.think_time_s > 1e9)
    bad("/simulation/think_time_s", "expected a think time in [0, 1e9] s, but got " + format_number(w.think_time_s));
  if (!w.dataset.empty() && find_length_preset(w.dataset) == nullptr) {
    std::string names;
    for (const length_preset& p : length_presets()) names += (names.empty() ? "" : ", ") + std::string(p.name);
    bad("/simulation/dataset", "expected a length preset (" + names + "), but got \"" + w.dataset + "\"");
  }
  if (s.arrivals == arrival_kind::trace) {
    if (w.prompt_pool > 0)
      bad("/simulation/prompt_pool", "a trace gives its own requests: expected no prompt pool with it");
    if (w.sessions())
      bad("/simulation/turns", "a trace gives its own requests: expected no turns with it (name a session_id per row)");
    if (!w.dataset.empty())
      bad("/simulation/dataset", "a trace gives every request's lengths: expected no dataset with it");
    for (std::size_t i = 0; i < s.trace.size(); ++i) {
      const trace_request& t = s.trace[i];
      const std::string at = "/simulation/trace/" + std::to_string(i);
      check_int(t.prefix_id, -1, std::int64_t{1} << 53, at + "/prefix_id");
      check_int(t.session_id, -1, std::int64_t{1} << 53, at + "/session_id");
      if (t.prefix_id >= 0 && w.prefix_tokens == 0)
        bad(at + "/prefix_id", "a prefix id names a shared prefix of prefix_tokens tokens: expected prefix_tokens > 0");
    }
    return;
  }
  const auto [prompt, total] = detail::longest_request(s);
  if (prompt > max_tokens || total > max_tokens)
    bad(w.sessions()         ? "/simulation/turns"
        : !w.dataset.empty() ? "/simulation/dataset"
                             : "/simulation/output_tokens",
        "expected requests of at most " + std::to_string(max_tokens) + " tokens, but " +
            (w.sessions() ? "a session's last turn" : "the longest request (input + output tokens)") + " reaches " +
            std::to_string(total));
  if (!w.dataset.empty() && d(s.num_requests) * d(find_length_preset(w.dataset)->output.max) > max_generated)
    bad("/simulation/num_requests",
        "expected num_requests x the dataset's longest output at most 10^9 output tokens, "
        "but got " +
            format_number(d(s.num_requests) * d(find_length_preset(w.dataset)->output.max)));
}

}  // namespace

namespace detail {

// The longest prompt and the longest request (prompt + output) of a generated workload.
std::pair<std::int64_t, std::int64_t> longest_request(const simulation_settings& s) {
  const workload_settings& w = s.workload;
  const length_preset* preset = w.dataset.empty() ? nullptr : find_length_preset(w.dataset);
  const std::int64_t in = preset ? preset->input.max : s.input_tokens.max;
  const std::int64_t out = preset ? preset->output.max : s.output_tokens.max;
  const std::int64_t turn = preset && preset->max_total > 0 ? std::min(preset->max_total, in + out) : in + out;
  // A session's last turn: every earlier turn (prompt and output) and its own.
  const std::int64_t before = (w.turns - 1) * turn;
  return {before + in, before + turn};
}
}  // namespace detail

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
      check_int(t.kv_present_tokens, 0, t.input_tokens, at + "/kv_present_tokens");
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
  if (!(std::isfinite(s.step_time_scale) && s.step_time_scale > 0.1 && s.step_time_scale <= 10))
    bad("/simulation/step_time_scale",
        "expected a step-time scale in (0.1, 10], but got " + format_number(s.step_time_scale));
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
  validate_workload(s);
  if (!s.chunked_prefill) {
    // Tokens a request prefills here: those whose K/V did not arrive with it (at least one).
    const auto to_prefill = [](const trace_request& t) {
      return std::max<std::int64_t>(1, t.input_tokens - t.kv_present_tokens);
    };
    const std::int64_t longest =
        trace ? to_prefill(*std::max_element(
                    s.trace.begin(), s.trace.end(),
                    [&](const trace_request& a, const trace_request& b) { return to_prefill(a) < to_prefill(b); }))
              : detail::longest_request(s).first;
    if (longest > s.max_num_batched_tokens)
      bad("/simulation/max_num_batched_tokens",
          "without chunked prefill a prompt runs in one step: expected at least the longest prompt (" +
              std::to_string(longest) + " tokens), but got " + std::to_string(s.max_num_batched_tokens));
  }
  // Warm-up requests are left out of the statistics: at least one request must be measured.
  const std::int64_t n = trace ? static_cast<std::int64_t>(s.trace.size()) : s.num_requests;
  if (s.warmup_requests >= n)
    bad("/simulation/warmup_requests", "expected fewer warm-up requests than the " + std::to_string(n) +
                                           (trace ? " requests of the trace" : " requests (num_requests)") +
                                           " so that some are measured, but got " + std::to_string(s.warmup_requests));
  check_simulation_work(s, 1, nullptr);  // one run's bound (a request's: read_simulation_request)
}

simulation_result simulate_one_rank(const model_spec& m, const simulation_settings& s, const hardware_spec& gpu) {
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
  } else if (s.workload.sessions() || !s.workload.dataset.empty()) {
    const auto [prompt, total] = detail::longest_request(s);
    check_fits(prompt, total - prompt, s.workload.sessions() ? "/simulation/turns" : "/simulation/dataset");
  } else {
    check_fits(s.input_tokens.max, s.output_tokens.max, "/simulation/input_tokens");
  }
  const workload_settings& w = s.workload;
  const bool sessions = w.sessions();
  const length_preset* preset = w.dataset.empty() ? nullptr : find_length_preset(w.dataset);
  // Prefix caching: not for recurrent state (vLLM turns it off for hybrid models) nor without a
  // growing KV cache.
  std::unique_ptr<detail::prefix_cache> cache;
  if (s.prefix_cache != prefix_cache_mode::off && sm.kv_bytes_per_token() > 0 && sm.state_bytes_per_sequence() <= 0)
    cache = detail::make_prefix_cache(s.prefix_cache, bs);
  const bool radix = cache && s.prefix_cache == prefix_cache_mode::radix;

  // Requests, in creation order; arrival times known up front except in a closed loop.
  rng random(s.seed);
  std::vector<request> reqs(static_cast<std::size_t>(n));
  const auto draw = [&](std::int64_t& in, std::int64_t& out) {
    if (preset != nullptr) {
      in = lognormal_length(preset->input, random.uniform01(), random.uniform01());
      lognormal_lengths o = preset->output;
      if (preset->max_total > 0) o.max = std::max(o.min, std::min(o.max, preset->max_total - in));
      out = lognormal_length(o, random.uniform01(), random.uniform01());
      return;
    }
    in = s.input_tokens.min == s.input_tokens.max ? s.input_tokens.min
                                                  : random.uniform_int(s.input_tokens.min, s.input_tokens.max);
    out = s.output_tokens.min == s.output_tokens.max ? s.output_tokens.min
                                                     : random.uniform_int(s.output_tokens.min, s.output_tokens.max);
  };
  // A prompt pool: each prompt's lengths drawn once; request k (sessions: session k) sends prompt k mod N.
  std::vector<std::pair<std::int64_t, std::int64_t>> pool(static_cast<std::size_t>(w.prompt_pool));
  for (auto& [in, out] : pool) draw(in, out);
  std::vector<std::int32_t> body(w.prompt_pool > 0 && cache ? static_cast<std::size_t>(n)
                                                            : 0);  // pool prompt per request
  std::int64_t bodies = 0;
  const auto lengths = [&](request& r) {
    if (pool.empty()) return draw(r.input, r.output);
    const std::int64_t p = bodies++ % w.prompt_pool;
    r.input = pool[static_cast<std::size_t>(p)].first;
    r.output = pool[static_cast<std::size_t>(p)].second;
    if (!body.empty()) body[static_cast<std::size_t>(&r - reqs.data())] = static_cast<std::int32_t>(p);
  };
  // Token contents (with a cache): [shared prefix][pool prompt or unique tokens][output]; a
  // session's turn: [the previous turn's prompt and output][new user tokens][output].
  constexpr std::uint64_t prefix_tag = 1, pool_tag = 2, unique_tag = 3, output_tag = 4;
  const auto content_id = [](std::uint64_t tag, std::uint64_t v) { return (tag << 56) ^ v; };
  std::vector<std::vector<token_segment>> content(cache ? static_cast<std::size_t>(n) : 0);
  std::vector<detail::cache_holder> holders(cache ? static_cast<std::size_t>(n) : 0);
  // The first `tokens` tokens of `from`, appended to `to`.
  const auto copy_prefix = [](const std::vector<token_segment>& from, std::int64_t tokens,
                              std::vector<token_segment>& to) {
    for (const token_segment& g : from) {
      if (tokens <= 0) break;
      to.push_back({g.id, std::min(g.length, tokens)});
      tokens -= g.length;
    }
  };
  const auto build_content = [&](std::int32_t id, std::int64_t prefix_id, std::int32_t history) {
    if (!cache) return;
    const request& r = reqs[static_cast<std::size_t>(id)];
    std::vector<token_segment>& c = content[static_cast<std::size_t>(id)];
    std::int64_t have = 0;
    if (history >= 0) {
      copy_prefix(content[static_cast<std::size_t>(history)], r.input, c);
      for (const token_segment& g : c) have += g.length;
    } else if (w.prefix_tokens > 0) {
      have = std::min(w.prefix_tokens, r.input);
      c.push_back({content_id(prefix_tag, static_cast<std::uint64_t>(std::max<std::int64_t>(prefix_id, 0))), have});
    }
    if (r.input > have) {
      const bool pooled = !body.empty() && history < 0;
      c.push_back({pooled ? content_id(pool_tag, static_cast<std::uint64_t>(body[static_cast<std::size_t>(id)]))
                          : content_id(unique_tag, static_cast<std::uint64_t>(id)),
                   r.input - have});
    }
    c.push_back({content_id(output_tag, static_cast<std::uint64_t>(id)), r.output});
  };
  const auto span = [&](std::int32_t id) {
    const std::vector<token_segment>& c = content[static_cast<std::size_t>(id)];
    return detail::token_span{c.data(), c.size()};
  };
  // Sessions: arrivals wait in a queue ordered by time (a turn arrives after the previous one
  // finishes and the think time).
  using pending_arrival = std::pair<double, std::int32_t>;
  std::priority_queue<pending_arrival, std::vector<pending_arrival>, std::greater<>> pending;
  std::int64_t created = 0;
  // A session's next turn after `prev`, or (prev < 0) a new session's first request.
  const auto create = [&](std::int32_t prev, double arrival, std::int64_t client) {
    const auto id = static_cast<std::int32_t>(created++);
    request& r = reqs[static_cast<std::size_t>(id)];
    r.arrival = arrival;
    r.client = client;
    if (prev >= 0) {
      const request& p = reqs[static_cast<std::size_t>(prev)];
      std::int64_t user = 0;
      draw(user, r.output);
      r.input = p.input + p.output + user;
      r.parent = prev;
      r.turn = p.turn + 1;
    } else {
      lengths(r);
    }
    build_content(id, -1, prev);
    pending.push({arrival, id});
  };
  if (sessions) {
    // A session's first turns: every client's (closed loop), or ceil(n / turns) sessions at
    // t = 0 (batch) or starting at the Poisson rate.
    const std::int64_t first =
        s.arrivals == arrival_kind::closed_loop ? std::min(s.clients, n) : (n + w.turns - 1) / w.turns;
    double at = 0;
    for (std::int64_t k = 0; k < first; ++k) {
      if (s.arrivals == arrival_kind::poisson) at += random.exponential(s.rate_per_s);
      create(-1, at, s.arrivals == arrival_kind::closed_loop ? k : -1);
    }
  } else if (s.arrivals == arrival_kind::closed_loop) {
    for (std::int64_t c = 0; c < std::min(s.clients, n); ++c) {
      request& r = reqs[static_cast<std::size_t>(created++)];
      r.client = c;
      lengths(r);
      build_content(static_cast<std::int32_t>(c), -1, -1);
    }
  } else {
    double t = 0;
    std::unordered_map<std::int64_t, std::int32_t> last_of_session;  // a trace's session ids
    for (std::int64_t i = 0; i < n; ++i) {
      request& r = reqs[static_cast<std::size_t>(i)];
      if (trace) {
        const trace_request& q = s.trace[static_cast<std::size_t>(i)];
        r.arrival = q.arrival_s;
        r.input = q.input_tokens;
        r.output = q.output_tokens;
        std::int32_t history = -1;
        if (q.session_id >= 0 && cache) {
          const auto it = last_of_session.find(q.session_id);
          if (it != last_of_session.end()) history = it->second;
          last_of_session[q.session_id] = static_cast<std::int32_t>(i);
        }
        build_content(static_cast<std::int32_t>(i), q.prefix_id, history);
        r.kv_present = q.kv_present_tokens;
        r.warmup = q.warmup;
      } else {
        if (s.arrivals == arrival_kind::poisson) t += random.exponential(s.rate_per_s);
        r.arrival = t;
        lengths(r);
        build_content(static_cast<std::int32_t>(i), -1, -1);
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
  out.weights_per_gpu = sm.weights_per_gpu();
  out.kv_bytes_per_token_per_gpu = sm.kv_bytes_per_token();
  log_histogram itl;
  std::int64_t verify_steps = 0, verify_tokens = 0;  // speculative decoding
  sampler timeline(s.max_samples);
  double area_in_system = 0, area_running = 0, area_kv = 0;

  const auto measured = [&](std::int64_t i, const request& r) {
    return i >= s.warmup_requests && r.arrival >= s.warmup_s && !r.warmup;
  };
  // With a cache: the requests' blocks outside it (private), and the free blocks are those
  // neither private nor pinned (cached blocks nobody uses are evicted when needed).
  std::int64_t private_blocks = 0;
  const auto sync_free = [&] { free_blocks = total_blocks - private_blocks - cache->pinned_blocks(); };
  const auto take_blocks = [&](std::int64_t k) {
    if (k <= 0) return;
    const std::int64_t empty = total_blocks - private_blocks - cache->cached_blocks();
    if (empty < k) cache->evict(k - empty);
    private_blocks += k;
    sync_free();
  };
  const auto commit = [&](std::int32_t id, std::int64_t tokens) {
    detail::cache_holder& h = holders[static_cast<std::size_t>(id)];
    const std::int64_t before = h.tokens / bs;
    cache->commit(h, span(id), tokens);
    private_blocks -= h.tokens / bs - before;
    sync_free();
  };
  // A request leaves the running set (finished or preempted): SGLang's tree keeps what it
  // computed; every pin is released.
  const auto release = [&](std::int32_t id) {
    request& r = reqs[static_cast<std::size_t>(id)];
    if (!cache) {
      free_blocks += r.blocks;
      return;
    }
    if (radix) commit(id, r.computed);
    detail::cache_holder& h = holders[static_cast<std::size_t>(id)];
    private_blocks -= r.blocks - h.tokens / bs;
    cache->release(h);
    sync_free();
  };
  // Running requests whose prefill is unfinished: with none, a prefill-first step skips its pass
  // over the running set for them.
  std::int64_t prefilling = 0;
  const auto preempt = [&](std::int32_t id) {
    request& r = reqs[static_cast<std::size_t>(id)];
    if (r.computed < r.prefill_end) --prefilling;
    // Prompt tokens count what an admission processed: not the rest of an unfinished prefill.
    if (r.computed < r.prefill_end) out.prompt_tokens -= r.prefill_end - r.computed;
    release(id);
    r.blocks = 0;
    r.computed = 0;
    r.scheduled = 0;
    r.kv_present = 0;  // the transferred K/V is freed with the blocks: recomputed locally
    ++r.preemptions;
    ++out.preemptions;
    waiting.push_front(id);
  };

  while (finished < n) {
    // Arrivals up to now.
    if (sessions) {
      while (!pending.empty() && pending.top().first <= t) {
        area_in_system += t - pending.top().first;
        waiting.push_back(pending.top().second);
        pending.pop();
      }
    }
    while (next_arrival < created && !sessions && reqs[static_cast<std::size_t>(next_arrival)].arrival <= t) {
      area_in_system += t - reqs[static_cast<std::size_t>(next_arrival)].arrival;
      waiting.push_back(static_cast<std::int32_t>(next_arrival++));
    }
    if (running.empty() && waiting.empty()) {
      if (sessions) {
        if (pending.empty()) break;
        t = pending.top().first;
        continue;
      }
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
        if (cache)
          take_blocks(need);
        else
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
        // K/V that arrived with the request (a disaggregated decode worker): its blocks are
        // allocated here and only the rest is prefilled. Otherwise the prefix cache serves whole
        // pages of the prompt, never its last token (its logits).
        const std::int64_t present = std::min(r.kv_present, total - 1);
        std::int64_t hit = 0, hit_unpinned = 0;
        if (cache && present == 0) hit = cache->lookup(span(id), total - 1, hit_unpinned);
        const std::int64_t rest = total - hit - present;
        // Without chunking a prompt runs whole; a recomputed prefill longer than the budget is
        // still chunked (it could never run otherwise).
        if (!s.chunked_prefill && rest > budget && rest <= s.max_num_batched_tokens) break;
        const std::int64_t want = std::min(rest, budget);
        const std::int64_t need = blocks_for(hit + present + want, bs) - hit / bs;
        if (need + hit_unpinned > free_blocks) break;
        waiting.pop_front();
        r.computed = hit + present;
        r.prefill_end = total;
        r.blocks = hit / bs + need;
        r.cached += hit;
        out.prompt_tokens += total - present;
        out.cached_prompt_tokens += hit;
        if (cache) {
          cache->acquire(holders[static_cast<std::size_t>(id)]);
          sync_free();
          take_blocks(need);
        } else {
          free_blocks -= need;
        }
        r.scheduled = want;
        budget -= want;
        running.push_back(id);
        scheduled.push_back(id);
        ++prefilling;  // at least one token to prefill (rest >= 1)
      }
    };
    if (s.policy == batching_policy::mixed) {
      schedule_running(true, true);
      if (preempted == 0) admit();
    } else {
      if (prefilling > 0) schedule_running(false, true);  // unfinished (chunked) prefills
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
    const step_time st = sm.time(b);
    const double dt = (st.total_s + (spec_k > 0 ? spec.draft_s() : 0.0)) * s.step_time_scale;
    out.communication_s += st.communication_s;
    out.alltoall_bytes += st.alltoall_bytes;
    const double end = t + dt;
    const std::int64_t used = total_blocks - free_blocks;
    const double kv_util = total_blocks > 0 ? d(used) / d(total_blocks) : 0.0;
    area_in_system += d(static_cast<std::int64_t>(running.size() + waiting.size())) * dt;
    area_running += d(static_cast<std::int64_t>(running.size())) * dt;
    area_kv += kv_util * dt;
    out.peak_kv_utilization = std::max(out.peak_kv_utilization, kv_util);
    timeline.add({t, static_cast<std::int64_t>(running.size()), static_cast<std::int64_t>(waiting.size()), kv_util,
                  out.prompt_tokens > 0 ? d(out.cached_prompt_tokens) / d(out.prompt_tokens) : 0.0});
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
    // Preemptions (recomputed prompts) are the work no bound before running knows: a hard stop.
    if (d(out.steps) > max_simulation_work)
      throw error(error_code::limit, "/simulation",
                  "the simulation passed " + format_number(max_simulation_work) + " engine steps after " +
                      std::to_string(out.preemptions) +
                      " preemptions (each recomputes a prompt): expected fewer; give the KV cache more blocks "
                      "(kv_blocks) or lower max_num_seqs");

    // ---- results of the step ----
    const std::size_t dt_bin = itl.bin_of(dt);
    bool any_finished = false;
    for (const std::int32_t id : scheduled) {
      request& r = reqs[static_cast<std::size_t>(id)];
      const bool prefill = r.computed < r.prefill_end;
      // A verification keeps the accepted drafts and the target's own token (at most the rest).
      std::int64_t got = 1;
      if (!prefill && r.scheduled > 1) {
        got = std::min(spec.accepted(r.spec_credit, r.scheduled - 1), r.output - r.emitted);
        r.scheduled = got;
        ++verify_steps;
        verify_tokens += got;
      }
      if (prefill) r.prefill_tokens += r.scheduled;
      r.computed += r.scheduled;
      if (prefill && r.computed >= r.prefill_end) --prefilling;
      r.scheduled = 0;
      // Caching the computed blocks: vLLM's and TensorRT-LLM's as each fills; SGLang's tree
      // after each prefill chunk (and what is left when the request leaves).
      if (cache && (radix ? prefill : r.computed / bs > holders[static_cast<std::size_t>(id)].tokens / bs))
        commit(id, r.computed);
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
        release(id);
        r.blocks = 0;
        ++finished;
        any_finished = true;
        if (sessions && created < n) {
          if (r.turn + 1 < w.turns)
            create(id, end + w.think_time_s, r.client);  // the session's next turn
          else if (r.client >= 0)
            create(-1, end, r.client);              // the client's next session
        } else if (r.client >= 0 && created < n) {  // the client's next request
          request& next = reqs[static_cast<std::size_t>(created++)];
          next.client = r.client;
          next.arrival = end;
          lengths(next);
          build_content(static_cast<std::int32_t>(&next - reqs.data()), -1, -1);
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
  detail::request_statistics stats(s, static_cast<std::size_t>(n));
  double latency_all = 0, last_arrival = 0;
  if (s.keep_requests) out.requests_detail.reserve(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    request& r = reqs[static_cast<std::size_t>(i)];
    r.measured = measured(i, r);
    latency_all += r.finish - r.arrival;
    last_arrival = std::max(last_arrival, r.arrival);
    if (s.keep_requests)
      out.requests_detail.push_back({r.arrival, r.first_token, r.finish, r.input, r.output, r.emitted, r.prefill_tokens,
                                     r.preemptions, r.measured, r.cached});
    out.computed_prompt_tokens += r.prefill_tokens;
    if (r.measured) stats.add(r.arrival, r.first_token, r.finish, r.input, r.output);
  }
  stats.into(out);
  out.itl = itl.summary();
  if (t > 0) {
    out.mean_in_system = area_in_system / t;
    out.mean_running = area_running / t;
    out.mean_kv_utilization = area_kv / t;
    out.arrival_rate_all = d(n) / t;
  }
  out.mean_latency_all_s = latency_all / d(n);
  out.prefix_cache = cache ? s.prefix_cache : prefix_cache_mode::off;
  out.cache_hit_rate = out.prompt_tokens > 0 ? d(out.cached_prompt_tokens) / d(out.prompt_tokens) : 0.0;
  if (cache) out.evicted_blocks = cache->evicted_blocks();
  out.timeline = std::move(timeline.points);
  out.speculative = spec.on() ? resolve_speculative(s.speculative) : s.speculative;
  if (spec.on()) {
    out.expected_tokens_per_step = spec.expected(spec_k);
    if (verify_steps > 0) out.tokens_per_decode_step = d(verify_tokens) / d(verify_steps);
  }
  return out;
}

saturation_check saturation_of(const model_spec& m, const simulation_settings& s, const hardware_spec& gpu,
                               const simulation_result& base, double fast_scale, double slow_scale) {
  saturation_check c;
  if (s.arrivals != arrival_kind::poisson) return c;
  c.checked = true;
  c.fast_scale = fast_scale;
  c.slow_scale = slow_scale;
  const auto keeps_up = [&](const simulation_result& r) { return r.requests_per_s >= 0.95 * s.rate_per_s; };
  simulation_settings x = s;
  x.on_step = nullptr;
  x.keep_requests = false;
  x.step_time_scale = s.step_time_scale * fast_scale;
  c.fast = simulate(m, x, gpu);
  x.step_time_scale = s.step_time_scale * slow_scale;
  c.slow = simulate(m, x, gpu);
  c.fast_keeps_up = keeps_up(c.fast);
  c.base_keeps_up = keeps_up(base);
  c.slow_keeps_up = keeps_up(c.slow);
  c.near_capacity = c.fast_keeps_up != c.slow_keeps_up;
  return c;
}

}  // namespace flopcast
