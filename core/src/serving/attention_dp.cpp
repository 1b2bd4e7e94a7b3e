// Attention data parallelism in the simulator: the replica's requests are dealt round-robin to its
// attention_data_parallel ranks (request i to rank i mod adp), which run in lock-step with equal
// shares (the step model's MoE layers see adp x one rank's tokens: step_model_ep.cpp). One rank is
// simulated, the first, which gets the ceiling of every share: ceil(num_requests / adp) requests,
// ceil(clients / adp) clients, rate / adp, ceil(warmup_requests / adp) warm-up requests; the
// scheduler's limits (max_num_seqs, max_num_batched_tokens, kv_blocks) are per rank, as each
// engine's DP rank runs its own scheduler. Per-request figures (TTFT, TPOT, ITL, E2E) are the
// rank's; counts, rates and occupancies are the rank's x adp, the replica's.
#include "serving/attention_dp.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"

namespace flopcast {

using detail::d;

simulation_result simulate(const model_spec& m, const simulation_settings& s, const hardware_spec& gpu) {
  const std::int64_t adp = s.base.parallel.attention_data_parallel;
  if (adp <= 1) return simulate_one_rank(m, s, gpu);
  validate(m, s);
  const auto need = [&](std::int64_t have, const char* field, const char* what) {
    if (have < adp)
      throw error(error_code::invalid_argument, field,
                  "expected at least attention_data_parallel (" + std::to_string(adp) + ") " + what +
                      " so every attention rank has work, but got " + std::to_string(have));
  };
  const auto share = [&](std::int64_t n) { return (n + adp - 1) / adp; };
  simulation_settings r = s;
  std::vector<simulation_result> others;  // traces kept request by request: ranks 1.. as well
  std::int64_t ranks = adp;
  if (s.arrivals == arrival_kind::trace) {
    // A trace (a disaggregated pool's share, say) may have fewer requests than ranks: the ranks
    // without one are idle. Rank k takes requests k, k + adp, ...
    const auto n = static_cast<std::int64_t>(s.trace.size());
    ranks = std::min(adp, n);
    const auto rank_trace = [&](std::int64_t k) {
      std::vector<trace_request> t;
      for (auto i = static_cast<std::size_t>(k); i < s.trace.size(); i += static_cast<std::size_t>(adp))
        t.push_back(s.trace[i]);
      return t;
    };
    r.trace = rank_trace(0);
    if (s.keep_requests) {
      // Every request's record (disaggregated serving reads them all): every rank simulated;
      // the step callback and the figures stay rank 0's.
      simulation_settings o = s;
      o.on_step = nullptr;
      for (std::int64_t k = 1; k < ranks; ++k) {
        o.trace = rank_trace(k);
        others.push_back(simulate_one_rank(m, o, gpu));
      }
    }
  } else {
    need(s.num_requests, "/simulation/num_requests", "requests");
    r.num_requests = share(s.num_requests);
  }
  if (s.arrivals == arrival_kind::closed_loop) {
    need(s.clients, "/simulation/clients", "clients");
    r.clients = share(s.clients);
  }
  r.rate_per_s = s.rate_per_s / d(adp);
  // The rank measures at least one request (validate() keeps warmup_requests below the whole
  // count, but the two ceilings may meet: 7 of 8 requests over 4 ranks are 2 of 2).
  const auto rank_requests =
      s.arrivals == arrival_kind::trace ? static_cast<std::int64_t>(r.trace.size()) : r.num_requests;
  r.warmup_requests = std::min(share(s.warmup_requests), rank_requests - 1);

  simulation_result out = simulate_one_rank(m, r, gpu);
  if (!others.empty()) {
    std::vector<request_record> all(s.trace.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      const std::size_t k = i % static_cast<std::size_t>(adp), j = i / static_cast<std::size_t>(adp);
      all[i] = k == 0 ? out.requests_detail[j] : others[k - 1].requests_detail[j];
    }
    out.requests_detail = std::move(all);
  }
  const double k = d(ranks);
  out.attention_ranks = adp;
  out.requests *= ranks;
  out.measured_requests *= ranks;
  out.goodput_requests *= ranks;
  out.preemptions *= ranks;
  out.output_tokens_per_s *= k;
  out.total_tokens_per_s *= k;
  out.requests_per_s *= k;
  out.goodput_requests_per_s *= k;
  out.arrival_rate_all *= k;
  out.mean_in_system *= k;
  out.mean_running *= k;
  if (!others.empty()) {  // every request simulated: the counts are exact
    out.requests = static_cast<std::int64_t>(out.requests_detail.size());
    out.measured_requests = 0;
    for (const request_record& q : out.requests_detail) out.measured_requests += q.measured ? 1 : 0;
  }
  for (time_point& p : out.timeline) {
    p.running *= ranks;
    p.waiting *= ranks;
  }
  return out;
}

}  // namespace flopcast
