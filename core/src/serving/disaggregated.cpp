// Disaggregated serving: a prefill pool and a decode pool of simulated replicas joined by a KV
// transfer per request (disaggregated.hpp). Each pool's workers are simulate() runs on traces
// this file builds: the prefill workers' requests end at their first token (output 1), the decode
// workers' arrive with their prompt's K/V present (trace_request::kv_present_tokens).
#include "flopcast/serving/disaggregated.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/serving/work_bound.hpp"
#include "serving/simulator_parts.hpp"

namespace flopcast {
namespace {

using detail::d;
using detail::format_number;

[[noreturn]] void bad(const std::string& field, const std::string& message) {
  throw error(error_code::invalid_argument, field, message);
}

// Scale-out rate per GPU beyond the NVLink domain: estimate/parallel.cpp's (one 400 Gb/s NIC per
// GPU, 50 GB/s per direction: NVIDIA DGX H100/B200 user guides, 8 x ConnectX-7 per 8 GPUs).
constexpr double scale_out_bytes_per_s = 50e9;
// The closed loop's fixed point: arrivals that move by at most this between passes repeat (the
// simulator's sums of step times differ between passes only by rounding).
constexpr double arrival_tolerance_s = 1e-9;
constexpr std::int64_t max_passes = max_disaggregated_passes;
// A pool is the bottleneck when one more of its workers shortens the mean E2E by at least this.
constexpr double bottleneck_gain = 0.01;
constexpr std::int64_t max_workers = 65536;

struct request {
  double arrival = 0;
  std::int64_t input = 0, output = 0;
  bool measured = true;
  double prefill_done = 0, transfer = 0, decode_arrival = 0, first_token = 0, finish = 0;
  std::int64_t prefill_tokens = 0, preemptions = 0;
};

struct pool_setup;
std::int64_t gpus_per_worker(const pool_setup& p);

struct pool_setup {
  const char* name;  // "prefill", "decode"
  simulation_settings s;
  // Which request fields set the pool's values (for errors): "" = the simulation's own.
  std::string tp_field, seqs_field, tokens_field, ep_field, adp_field;
  std::int64_t workers = 1;
};

std::int64_t gpus_per_worker(const pool_setup& p) {
  return p.s.base.parallel.tensor_parallel * p.s.base.parallel.expert_parallel;
}

// The pool's figures over its workers' runs; `horizon`: the whole run's end.
struct pool_run {
  std::vector<simulation_result> results;
  std::vector<double> busy;  // per worker, seconds of steps
  std::vector<double> first_arrival, last_finish;
};

class coupled {
 public:
  coupled(const model_spec& m, const simulation_settings& s, const disaggregation_settings& dz,
          const hardware_spec& gpu, std::vector<request>& reqs)
      : m_(m), s_(s), gpu_(gpu), reqs_(reqs) {
    using opt = std::optional<std::int64_t>;
    const auto pool = [&](const char* name, const opt& tp, const opt& ep, const opt& adp, const opt& seqs,
                          const opt& tokens, std::int64_t workers) {
      pool_setup p{name, s, "", "", "", "", "", workers};
      const std::string base = std::string("/disaggregation/") + name;
      if (tp) p.s.base.parallel.tensor_parallel = *tp, p.tp_field = base + "_tensor_parallel";
      if (ep) p.s.base.parallel.expert_parallel = *ep, p.ep_field = base + "_expert_parallel";
      if (adp) p.s.base.parallel.attention_data_parallel = *adp, p.adp_field = base + "_attention_data_parallel";
      if (seqs) p.s.max_num_seqs = *seqs, p.seqs_field = base + "_max_num_seqs";
      if (tokens) p.s.max_num_batched_tokens = *tokens, p.tokens_field = base + "_max_num_batched_tokens";
      p.s.arrivals = arrival_kind::trace;
      p.s.warmup_requests = 0;
      p.s.warmup_s = 0;
      p.s.slo_ttft_s.reset();
      p.s.slo_tpot_s.reset();
      p.s.keep_requests = true;
      return p;
    };
    prefill_ =
        pool("prefill", dz.prefill_tensor_parallel, dz.prefill_expert_parallel, dz.prefill_attention_data_parallel,
             dz.prefill_max_num_seqs, dz.prefill_max_num_batched_tokens, dz.prefill_workers);
    decode_ = pool("decode", dz.decode_tensor_parallel, dz.decode_expert_parallel, dz.decode_attention_data_parallel,
                   dz.decode_max_num_seqs, dz.decode_max_num_batched_tokens, dz.decode_workers);
    // The sizes of the K/V a prefill worker sends: the whole model's (every GPU's shard).
    // Both layouts checked before anything runs.
    (void)guarded(decode_, [&] { return step_model(m_, decode_.s.base, gpu_); });
    const step_model sm = guarded(prefill_, [&] { return step_model(m_, prefill_.s.base, gpu_); });
    kv_bytes_ = [sm](std::int64_t tokens) { return sm.sequence_kv_bytes(tokens); };
    // A worker's GPUs: tensor_parallel x expert_parallel (the layout's convention).
    const std::int64_t tp_p = gpus_per_worker(prefill_), tp_d = gpus_per_worker(decode_);
    gpus_ = dz.prefill_workers * tp_p + dz.decode_workers * tp_d;
    bandwidth_ = dz.transfer_bandwidth_bytes_per_s.value_or(transfer_link_default(gpu_, gpus_, tp_p, tp_d));
    latency_ = dz.transfer_latency_s.value_or(s.base.parallel.link_latency_s);
    if (!(bandwidth_ > 0 && std::isfinite(bandwidth_)))
      bad(dz.transfer_bandwidth_bytes_per_s ? "/disaggregation/transfer_bandwidth_bytes_per_s" : "/gpu",
          "expected a positive KV transfer bandwidth, but got " + format_number(bandwidth_) + " bytes/s");
  }

  [[nodiscard]] const pool_setup& prefill() const { return prefill_; }
  [[nodiscard]] const pool_setup& decode() const { return decode_; }
  [[nodiscard]] std::int64_t gpus() const { return gpus_; }
  [[nodiscard]] double bandwidth() const { return bandwidth_; }
  [[nodiscard]] double latency() const { return latency_; }
  [[nodiscard]] double transfer_bytes(std::int64_t prompt) const { return kv_bytes_(prompt); }

  // One pass over both pools with the requests' arrivals as they stand.
  void pass(pool_run& pre, pool_run& dec) {
    const std::size_t n = reqs_.size();
    std::vector<std::size_t> order(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
    const auto by = [&](auto key) {
      std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
    };
    by([&](std::size_t i) { return reqs_[i].arrival; });
    run_pool(prefill_, order, pre, [&](std::size_t i) {
      const request& r = reqs_[i];
      trace_request t;
      t.arrival_s = r.arrival;
      t.input_tokens = r.input;
      t.output_tokens = 1;
      t.warmup = !r.measured;
      return t;
    });
    for (std::size_t k = 0; k < n; ++k) {
      request& r = reqs_[order[k]];
      const request_record& x = record(pre, prefill_, k);
      r.prefill_done = x.finish_s;
      r.prefill_tokens = x.prefill_tokens;
      r.preemptions = x.preemptions;
      r.transfer = transfer_bytes(r.input) / bandwidth_ + latency_;
      r.decode_arrival = r.prefill_done + r.transfer;
    }
    by([&](std::size_t i) { return reqs_[i].decode_arrival; });
    run_pool(decode_, order, dec, [&](std::size_t i) {
      const request& r = reqs_[i];
      trace_request t;
      t.arrival_s = r.decode_arrival;
      t.input_tokens = r.input;
      t.output_tokens = r.output;
      t.kv_present_tokens = r.input;
      t.warmup = !r.measured;
      return t;
    });
    for (std::size_t k = 0; k < n; ++k) {
      request& r = reqs_[order[k]];
      const request_record& x = record(dec, decode_, k);
      r.first_token = x.first_token_s;
      r.finish = x.finish_s;
      r.prefill_tokens += x.prefill_tokens;
      r.preemptions += x.preemptions;
    }
  }

 private:
  // The k-th request in dealing order went to worker k % workers, as its (k / workers)-th.
  static const request_record& record(const pool_run& run, const pool_setup& p, std::size_t k) {
    const auto w = static_cast<std::size_t>(p.workers);
    return run.results[k % w].requests_detail[k / w];
  }

  template <class F>
  auto guarded(const pool_setup& p, F&& f) const -> decltype(f()) {
    try {
      return f();
    } catch (const error& e) {
      std::string where = e.pointer();
      if (where == "/parallelism/tensor_parallel" && !p.tp_field.empty()) where = p.tp_field;
      if (where == "/parallelism/expert_parallel" && !p.ep_field.empty()) where = p.ep_field;
      if (where == "/parallelism/attention_data_parallel" && !p.adp_field.empty()) where = p.adp_field;
      if (where == "/simulation/max_num_seqs" && !p.seqs_field.empty()) where = p.seqs_field;
      if (where == "/simulation/max_num_batched_tokens" && !p.tokens_field.empty()) where = p.tokens_field;
      // A pool's trace is this file's: its requests are the simulation's.
      if (where.rfind("/simulation/trace", 0) == 0)
        where = s_.arrivals == arrival_kind::trace ? "/simulation/trace" : "/simulation/input_tokens";
      throw error(e.code(), where, std::string("the ") + p.name + " workers: " + e.message());
    }
  }

  template <class Make>
  void run_pool(const pool_setup& p, const std::vector<std::size_t>& order, pool_run& out, Make&& make) {
    const auto w = static_cast<std::size_t>(p.workers);
    out.results.assign(w, simulation_result{});
    out.busy.assign(w, 0.0);
    out.first_arrival.assign(w, 0.0);
    out.last_finish.assign(w, 0.0);
    for (std::size_t k = 0; k < w && k < order.size(); ++k) {
      simulation_settings s = p.s;
      s.trace.clear();
      for (std::size_t j = k; j < order.size(); j += w) s.trace.push_back(make(order[j]));
      s.num_requests = static_cast<std::int64_t>(s.trace.size());
      double& busy = out.busy[k];
      const auto& user = s_.on_step;
      s.on_step = [&busy, &user](const step_record& r) {
        busy += r.duration_s;
        if (user) user(r);
      };
      out.first_arrival[k] = s.trace.front().arrival_s;
      out.results[k] = guarded(p, [&] { return simulate(m_, s, gpu_); });
      out.last_finish[k] = out.results[k].makespan_s;
    }
  }

  const model_spec& m_;
  const simulation_settings& s_;
  const hardware_spec& gpu_;
  std::vector<request>& reqs_;
  pool_setup prefill_, decode_;
  std::function<double(std::int64_t)> kv_bytes_;
  std::int64_t gpus_ = 0;
  double bandwidth_ = 0, latency_ = 0;
};

// The requests as simulate() draws them (batch, Poisson, trace: the same stream in the same
// order); a closed loop's client i sends requests i, i + c, i + 2c, ... (arrivals set later).
std::vector<request> draw(const simulation_settings& s) {
  const bool trace = s.arrivals == arrival_kind::trace;
  const std::int64_t n = trace ? static_cast<std::int64_t>(s.trace.size()) : s.num_requests;
  std::vector<request> out(static_cast<std::size_t>(n));
  detail::rng random(s.seed);
  double t = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    request& r = out[static_cast<std::size_t>(i)];
    if (trace) {
      const trace_request& q = s.trace[static_cast<std::size_t>(i)];
      r.arrival = q.arrival_s;
      r.input = q.input_tokens;
      r.output = q.output_tokens;
    } else {
      if (s.arrivals == arrival_kind::poisson) t += random.exponential(s.rate_per_s);
      r.arrival = s.arrivals == arrival_kind::closed_loop ? 0.0 : t;
      r.input = s.input_tokens.min == s.input_tokens.max ? s.input_tokens.min
                                                         : random.uniform_int(s.input_tokens.min, s.input_tokens.max);
      r.output = s.output_tokens.min == s.output_tokens.max
                     ? s.output_tokens.min
                     : random.uniform_int(s.output_tokens.min, s.output_tokens.max);
    }
  }
  return out;
}

void check_layout(const disaggregation_settings& dz) {
  const auto count = [](std::int64_t v, const char* key) {
    if (v < 1 || v > max_workers)
      bad(std::string("/disaggregation/") + key,
          "expected an integer in [1, " + std::to_string(max_workers) + "], but got " + std::to_string(v));
  };
  count(dz.prefill_workers, "prefill_workers");
  count(dz.decode_workers, "decode_workers");
  if (dz.transfer_bandwidth_bytes_per_s &&
      !(std::isfinite(*dz.transfer_bandwidth_bytes_per_s) && *dz.transfer_bandwidth_bytes_per_s > 0))
    bad("/disaggregation/transfer_bandwidth_bytes_per_s",
        "expected a bandwidth > 0 bytes/s, but got " + format_number(*dz.transfer_bandwidth_bytes_per_s));
  if (dz.transfer_latency_s && !(std::isfinite(*dz.transfer_latency_s) && *dz.transfer_latency_s >= 0))
    bad("/disaggregation/transfer_latency_s",
        "expected a latency >= 0 s, but got " + format_number(*dz.transfer_latency_s));
}

// A pool's utilisation and queueing (disaggregated_pool), over the run's horizon.
disaggregated_pool summarize_pool(const pool_setup& p, pool_run& run, double horizon) {
  disaggregated_pool out;
  out.workers = p.workers;
  out.tensor_parallel = p.s.base.parallel.tensor_parallel;
  out.expert_parallel = p.s.base.parallel.expert_parallel;
  out.attention_data_parallel = p.s.base.parallel.attention_data_parallel;
  out.gpus_per_worker = gpus_per_worker(p);
  out.max_num_seqs = p.s.max_num_seqs;
  out.max_num_batched_tokens = p.s.max_num_batched_tokens;
  std::int64_t used = 0, requests = 0;
  double wait_area = 0, run_area = 0, util = 0;
  for (std::size_t w = 0; w < run.results.size(); ++w) {
    const simulation_result& r = run.results[w];
    if (r.requests == 0) continue;
    if (used == 0) out.kv_blocks = r.kv_blocks;
    ++used;
    requests += r.requests;
    wait_area += (r.mean_in_system - r.mean_running) * r.makespan_s;
    run_area += r.mean_running * r.makespan_s;
    const double span = run.last_finish[w] - run.first_arrival[w];
    util += span > 0 ? std::min(1.0, run.busy[w] / span) : 0.0;  // 1 + rounding when always busy
  }
  if (used > 0) out.utilization = util / d(used);
  if (requests > 0) out.mean_queue_s = std::max(0.0, wait_area) / d(requests);
  if (horizon > 0) {
    out.mean_waiting = std::max(0.0, wait_area) / horizon;
    out.mean_running = run_area / horizon;
  }
  out.worker_results = std::move(run.results);
  return out;
}

// Inter-token latencies of the decode workers pooled (disaggregated_result::total).
distribution pool_itl(const std::vector<simulation_result>& workers) {
  distribution out;
  double sum = 0, p50 = 0, p90 = 0, p99 = 0;
  for (const simulation_result& r : workers) {
    const distribution& x = r.itl;
    if (x.count == 0) continue;
    out.min = out.count == 0 ? x.min : std::min(out.min, x.min);
    out.max = std::max(out.max, x.max);
    out.count += x.count;
    const double c = d(x.count);
    sum += c * x.mean;
    p50 += c * x.p50;
    p90 += c * x.p90;
    p99 += c * x.p99;
  }
  if (out.count == 0) return out;
  const double c = d(out.count);
  out.mean = sum / c;
  out.p50 = p50 / c;
  out.p90 = p90 / c;
  out.p99 = p99 / c;
  return out;
}

}  // namespace

double transfer_link_default(const hardware_spec& gpu, std::int64_t total_gpus, std::int64_t prefill_tp,
                             std::int64_t decode_tp) noexcept {
  const double nvlink = gpu.interconnect_bandwidth_bytes_per_s / 2.0;
  const std::int64_t domain = gpu.interconnect_domain_size;
  const bool within = nvlink > 0 && (domain == 0 || total_gpus <= domain);
  return (within ? nvlink : scale_out_bytes_per_s) * d(std::min(prefill_tp, decode_tp));
}

namespace {

// One disaggregated simulation, all but the bottleneck.
disaggregated_result run(const model_spec& m, const simulation_settings& s, const disaggregation_settings& dz,
                         const hardware_spec& gpu) {
  std::vector<request> reqs = draw(s);
  const std::size_t n = reqs.size();
  // Warm-up: the first warmup_requests and those arriving before warmup_s (as simulate()).
  const auto mark = [&] {
    for (std::size_t i = 0; i < n; ++i)
      reqs[i].measured = static_cast<std::int64_t>(i) >= s.warmup_requests && reqs[i].arrival >= s.warmup_s;
  };
  mark();
  coupled c(m, s, dz, gpu, reqs);

  disaggregated_result out;
  pool_run pre, dec;
  if (s.arrivals != arrival_kind::closed_loop) {
    c.pass(pre, dec);
  } else {
    // Client i's k-th request arrives when its (k-1)-th finishes. First guess: each request
    // takes as long as one alone (request 0 through both pools by itself).
    const auto clients = static_cast<std::size_t>(std::min<std::int64_t>(s.clients, static_cast<std::int64_t>(n)));
    double alone = 0;
    {
      std::vector<request> one(reqs.begin(), reqs.begin() + 1);
      one[0].arrival = 0;
      coupled solo(m, s, dz, gpu, one);
      pool_run a, b;
      solo.pass(a, b);
      alone = one[0].finish;
    }
    for (std::size_t j = clients; j < n; ++j) reqs[j].arrival = reqs[j - clients].arrival + alone;
    out.converged = false;
    // The passes stop at the work cap too (work_bound.hpp counts 3 passes up front): a loop that
    // has not converged by then says so (converged false), as at max_passes.
    const double per_pass = simulation_work_bound(s, 1, &dz).units / 3;
    const std::int64_t passes = std::clamp<std::int64_t>(
        static_cast<std::int64_t>(max_simulation_work / std::max(per_pass, 1.0)) - 2, 1, max_passes);
    for (out.passes = 1; out.passes <= passes; ++out.passes) {
      mark();
      c.pass(pre, dec);
      double moved = 0;
      for (std::size_t j = clients; j < n; ++j)
        moved = std::max(moved, std::abs(reqs[j - clients].finish - reqs[j].arrival));
      if (moved <= arrival_tolerance_s) {
        out.converged = true;
        break;
      }
      if (out.passes == passes) break;
      for (std::size_t j = clients; j < n; ++j) reqs[j].arrival = reqs[j - clients].finish;
    }
    out.passes = std::min(out.passes, passes);
  }

  // ---- end to end ----
  simulation_result& t = out.total;
  t.requests = static_cast<std::int64_t>(n);
  detail::request_statistics stats(s, n);
  std::vector<double> transfer;
  double latency_all = 0, transfer_bytes = 0;
  if (s.keep_requests) t.requests_detail.reserve(n);
  for (const request& r : reqs) {
    t.makespan_s = std::max(t.makespan_s, r.finish);
    latency_all += r.finish - r.arrival;
    if (s.keep_requests)
      t.requests_detail.push_back({r.arrival, r.first_token, r.finish, r.input, r.output, r.output, r.prefill_tokens,
                                   r.preemptions, r.measured});
    if (!r.measured) continue;
    stats.add(r.arrival, r.first_token, r.finish, r.input, r.output);
    transfer.push_back(r.transfer);
    transfer_bytes += c.transfer_bytes(r.input);
  }
  stats.into(t);
  out.transfer_s = detail::summarize(transfer);
  t.itl = pool_itl(dec.results);
  for (const pool_run* run : {&pre, &dec})
    for (const simulation_result& r : run->results) {
      t.steps += r.steps;
      t.preemptions += r.preemptions;
    }
  std::int64_t decode_used = 0;
  for (const simulation_result& r : dec.results) {
    if (r.requests == 0) continue;
    ++decode_used;
    t.mean_kv_utilization += r.mean_kv_utilization;
    t.peak_kv_utilization = std::max(t.peak_kv_utilization, r.peak_kv_utilization);
  }
  if (decode_used > 0) t.mean_kv_utilization /= d(decode_used);
  t.kv_blocks = dec.results.front().kv_blocks;
  t.block_size = s.block_size;
  t.timeline = dec.results.front().timeline;
  t.mean_latency_all_s = n > 0 ? latency_all / d(static_cast<std::int64_t>(n)) : 0.0;
  if (t.makespan_s > 0) {
    t.mean_in_system = latency_all / t.makespan_s;
    t.arrival_rate_all = d(static_cast<std::int64_t>(n)) / t.makespan_s;
  }

  // ---- the pools ----
  out.prefill = summarize_pool(c.prefill(), pre, t.makespan_s);
  out.decode = summarize_pool(c.decode(), dec, t.makespan_s);
  t.mean_running = out.decode.mean_running;
  out.transfer_bandwidth_bytes_per_s = c.bandwidth();
  out.transfer_latency_s = c.latency();
  out.mean_transfer_bytes = t.measured_requests > 0 ? transfer_bytes / d(t.measured_requests) : 0.0;
  out.gpus = c.gpus();
  out.output_tokens_per_s_per_gpu = t.output_tokens_per_s / d(out.gpus);
  return out;
}

}  // namespace

disaggregated_result simulate_disaggregated(const model_spec& m, const simulation_settings& s,
                                            const disaggregation_settings& dz, const hardware_spec& gpu) {
  validate(m, s);
  check_layout(dz);
  // The pools deal requests drawn from the lengths, range or trace; the workload shapes that give
  // requests shared content (their prefix caches would need it across both pools) or lengths of a
  // preset are not modelled with disaggregation yet: refused rather than silently dropped.
  const workload_settings& wl = s.workload;
  const auto unsupported = [](const char* field, const std::string& what) {
    bad(std::string("/simulation/") + field,
        "disaggregated serving does not model " + what + " yet: expected none with a \"disaggregation\" part");
  };
  if (wl.prefix_tokens > 0) unsupported("prefix_tokens", "a shared prefix");
  if (wl.prompt_pool > 0) unsupported("prompt_pool", "a prompt pool");
  if (wl.sessions()) unsupported("turns", "multi-turn sessions");
  if (!wl.dataset.empty()) unsupported("dataset", "a length preset");
  simulation_settings with_records = s;
  with_records.keep_requests = true;
  disaggregated_result out = run(m, with_records, dz, gpu);
  // The bottleneck: the pool whose one more worker shortens the mean end-to-end latency more per
  // GPU added, for the same requests at the same arrival times (a closed loop's as found: the
  // probes replay them open loop); no progress calls.
  simulation_settings probe = s;
  probe.on_step = nullptr;
  probe.keep_requests = false;
  probe.max_samples = 2;
  probe.arrivals = arrival_kind::trace;
  probe.trace.clear();
  for (const request_record& r : out.total.requests_detail)
    probe.trace.push_back({r.arrival_s, r.input_tokens, r.output_tokens});
  if (!s.keep_requests) out.total.requests_detail = {};
  disaggregation_settings more = dz;
  ++more.prefill_workers;
  out.e2e_mean_plus_prefill_worker_s = run(m, probe, more, gpu).total.e2e.mean;
  more = dz;
  ++more.decode_workers;
  out.e2e_mean_plus_decode_worker_s = run(m, probe, more, gpu).total.e2e.mean;
  const double e2e = out.total.e2e.mean;
  const double gain_p = (e2e - out.e2e_mean_plus_prefill_worker_s) / d(out.prefill.gpus_per_worker);
  const double gain_d = (e2e - out.e2e_mean_plus_decode_worker_s) / d(out.decode.gpus_per_worker);
  const bool helps =
      e2e - std::min(out.e2e_mean_plus_prefill_worker_s, out.e2e_mean_plus_decode_worker_s) >= bottleneck_gain * e2e;
  out.bottleneck = !helps ? "none" : gain_p >= gain_d ? "prefill" : "decode";
  return out;
}

}  // namespace flopcast
