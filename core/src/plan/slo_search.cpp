// The SLO search (slo_search.hpp): configurations enumerated and sized by the closed form, the
// closed form's Pareto front simulated with the settings `flopcast serve` runs, the SLOs as a filter.
#include "flopcast/plan/slo_search.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/plan/plan.hpp"
#include "flopcast/serving/disaggregated.hpp"
#include "flopcast/serving/serving.hpp"
#include "flopcast/serving/speculative.hpp"
#include "flopcast/serving/workload.hpp"
#include "serving/simulator_parts.hpp"

namespace flopcast {
namespace {

using detail::d;

[[noreturn]] void bad(const std::string& field, const std::string& message) {
  throw error(error_code::invalid_argument, field, message);
}

// The simulated requests per point: enough for a steady state at the load, few where each is long.
std::int64_t requests_for(std::int64_t clients) { return std::clamp<std::int64_t>(3 * clients, 32, 600); }

// The mean lengths of the workload (the closed form's one request).
std::pair<std::int64_t, std::int64_t> mean_lengths(const simulation_settings& s) {
  if (!s.workload.dataset.empty())
    if (const length_preset* p = find_length_preset(s.workload.dataset); p != nullptr) {
      const auto mean = [](const lognormal_lengths& l) {
        return std::clamp<std::int64_t>(std::llround(std::exp(l.mu + l.sigma * l.sigma / 2)), l.min, l.max);
      };
      return {mean(p->input), mean(p->output)};
    }
  return {(s.input_tokens.min + s.input_tokens.max) / 2, (s.output_tokens.min + s.output_tokens.max) / 2};
}

double at_percentile(const distribution& x, std::int64_t p) { return p == 50 ? x.p50 : p == 99 ? x.p99 : x.p90; }

bool is_16bit(precision p) { return p == precision::bf16 || p == precision::fp16 || p == precision::fp32; }

// The weight formats tried with engine `e`: the model's own, and the narrower native formats the
// device computes in (FP8 where it has an FP8 peak, NVFP4 where it has an FP4 peak); llama.cpp's
// GGUF presets Q8_0 and Q4_K_M in its place (it runs neither FP8 nor FP4).
std::vector<precision> formats_for(const engine_profile& e, const search_settings& s, const hardware_spec& gpu) {
  if (!s.formats.empty()) return s.formats;
  const precision own = s.sim.base.weight_precision;
  if (e.id == "llama.cpp") return {parse_precision("q8_0"), parse_precision("q4_k_m")};
  std::vector<precision> out{own};
  if (is_16bit(own) && gpu.peak(precision::fp8)) out.push_back(precision::fp8);
  if ((is_16bit(own) || own == precision::fp8) && gpu.peak_fp4 && e.id != "mlx") out.push_back(precision::nvfp4);
  return out;
}

struct layout_choice {
  std::int64_t tp, ep, adp;
};

// One replica's layouts: TP (a divisor of the heads) within the domain; MoE models on engines that
// run expert parallelism: EP over the same GPUs, with and without attention data parallelism.
std::vector<layout_choice> layouts_for(const model_spec& m, const engine_profile& e, std::int64_t cap,
                                       std::int64_t ep_cap, const search_settings& s) {
  std::vector<layout_choice> out;
  const bool single = e.id == "llama.cpp" || e.id == "mlx";  // one GPU per replica as modelled
  const auto allowed = [&](std::int64_t t) {
    return s.tensor_parallel.empty() ||
           std::find(s.tensor_parallel.begin(), s.tensor_parallel.end(), t) != s.tensor_parallel.end();
  };
  for (std::int64_t t = 1; t <= (single ? 1 : cap); t *= 2)
    if (m.attention.num_heads % t == 0 && allowed(t)) out.push_back({t, 1, 1});
  if (!single && m.moe.num_experts > 1 && s.expert_parallel && allowed(1))
    for (std::int64_t ep = 2; ep <= ep_cap; ep *= 2) {
      if (m.moe.num_experts % ep != 0) continue;
      out.push_back({1, ep, 1});
      out.push_back({1, ep, ep});
    }
  return out;
}

// Non-dominated points: higher per-GPU throughput and higher per-user speed are better.
template <class P, class G, class U>
std::vector<std::size_t> front_of(const std::vector<P>& pts, G per_gpu, U per_user) {
  std::vector<std::size_t> idx(pts.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
    return std::make_tuple(-per_user(pts[a]), -per_gpu(pts[a]), a) <
           std::make_tuple(-per_user(pts[b]), -per_gpu(pts[b]), b);
  });
  std::vector<std::size_t> out;
  double best_gpu = -1;
  for (const std::size_t i : idx)
    if (per_gpu(pts[i]) > best_gpu) {
      out.push_back(i);
      best_gpu = per_gpu(pts[i]);
    }
  return out;
}

// The simulated points no other beats on both output tokens/s per GPU and tokens/s per user, by
// per-user speed.
std::vector<search_point> simulated_front(const std::vector<search_point>& pts) {
  std::vector<search_point> out;
  for (const std::size_t i : front_of(
           pts, [](const search_point& p) { return p.output_tokens_per_s_per_gpu; },
           [](const search_point& p) { return p.tokens_per_s_per_user; }))
    out.push_back(pts[i]);
  std::sort(out.begin(), out.end(), [](const search_point& a, const search_point& b) {
    return a.tokens_per_s_per_user < b.tokens_per_s_per_user;
  });
  return out;
}

// The objective's order: the first ranks before the second.
bool ranks_before(search_objective objective, const search_point& a, const search_point& b) {
  switch (objective) {
    case search_objective::cost:
      if (a.usd_per_million_output_tokens != b.usd_per_million_output_tokens)
        return a.usd_per_million_output_tokens < b.usd_per_million_output_tokens;
      break;
    case search_objective::gpus:
      if (a.config.gpus() != b.config.gpus()) return a.config.gpus() < b.config.gpus();
      break;
    case search_objective::goodput:
      break;
  }
  if (a.output_tokens_per_s_per_gpu != b.output_tokens_per_s_per_gpu)
    return a.output_tokens_per_s_per_gpu > b.output_tokens_per_s_per_gpu;
  return a.tokens_per_s_per_user > b.tokens_per_s_per_user;
}

struct candidate {
  search_config config;
  simulation_settings sim;  // the replica's run, load not yet set
  std::int64_t load = 0;    // per-replica clients (closed loop) or replicas (fixed rate)
  double per_gpu = 0, per_user = 0;
};

}  // namespace

std::string_view to_string(search_objective o) noexcept {
  switch (o) {
    case search_objective::goodput:
      return "goodput";
    case search_objective::cost:
      return "cost";
    case search_objective::gpus:
      return "gpus";
  }
  return "goodput";
}

search_objective parse_search_objective(std::string_view name, std::string_view field) {
  if (name == "goodput") return search_objective::goodput;
  if (name == "cost") return search_objective::cost;
  if (name == "gpus") return search_objective::gpus;
  bad(std::string(field), "expected goodput, cost or gpus, but got \"" + std::string(name) + "\"");
}

search_settings search_question(const plan_settings& p, std::vector<std::string> engines) {
  search_settings s;
  s.sim.base = p.base;
  s.sim.base.batch_size = 1;
  s.sim.input_tokens = p.input_tokens_range.value_or(length_range{p.base.sequence_length, p.base.sequence_length});
  s.sim.output_tokens =
      p.output_tokens_range.value_or(length_range{p.base.num_generated_tokens, p.base.num_generated_tokens});
  s.sim.workload = p.workload;
  s.sim.seed = p.seed;
  if (p.request_rate && p.concurrency)
    bad("/plan/request_rate", "the search's traffic is a concurrency or a request rate, not both");
  if (p.concurrency) {
    s.sim.arrivals = arrival_kind::closed_loop;
    s.sim.clients = *p.concurrency;
    s.sim.num_requests = std::clamp<std::int64_t>(4 * *p.concurrency, 256, 100000);
  } else if (p.request_rate) {
    s.sim.arrivals = arrival_kind::poisson;
    s.sim.rate_per_s = *p.request_rate;
    s.sim.num_requests = 500;
  }
  s.gpus = p.search_gpus;
  s.budget_usd_per_hour = p.budget_usd_per_hour;
  s.slo = p.slo;
  s.objective = p.optimize.value_or(search_objective::goodput);
  s.engines = std::move(engines);
  return s;
}

search_result search_configurations(const model_spec& m, const search_settings& s, const hardware_spec& gpu) {
  if (s.gpus < 1 || s.gpus > 1024) bad("/plan/gpus", "expected 1 to 1024 GPUs, but got " + std::to_string(s.gpus));
  if (s.slo.percentile != 50 && s.slo.percentile != 90 && s.slo.percentile != 99)
    bad("/plan/slo_percentile", "expected 50, 90 or 99, but got " + std::to_string(s.slo.percentile));
  for (const auto& [v, field] :
       {std::pair{s.slo.ttft_s, "/plan/slo_ttft_s"}, std::pair{s.slo.tpot_s, "/plan/slo_tpot_s"},
        std::pair{s.slo.e2e_s, "/plan/slo_e2e_s"}})
    if (v && !(std::isfinite(*v) && *v > 0)) bad(field, "expected a limit > 0 s, but got " + detail::format_number(*v));
  if (s.budget_usd_per_hour && !(std::isfinite(*s.budget_usd_per_hour) && *s.budget_usd_per_hour > 0))
    bad("/plan/budget_usd_per_hour",
        "expected a budget > 0 USD per hour, but got " + detail::format_number(*s.budget_usd_per_hour));
  const bool closed = s.sim.arrivals == arrival_kind::closed_loop, open = s.sim.arrivals == arrival_kind::poisson;
  if (!closed && !open && s.sim.arrivals != arrival_kind::batch)
    bad("/simulation/arrivals", "the search takes a concurrency, a request rate or neither (no trace)");

  {
    // The workload as `serve` checks it (lengths, dataset, prefix, sessions), once.
    simulation_settings probe = s.sim;
    probe.arrivals = arrival_kind::batch;
    probe.num_requests = 1;
    validate(m, probe);
  }
  search_result out;
  const std::int64_t domain = gpu.interconnect_domain_size > 0 ? gpu.interconnect_domain_size : 1;
  const std::int64_t cap = std::min(s.gpus, domain);
  const double price = s.sim.base.cost_per_hour_usd.value_or(gpu.cost_per_hour_usd);
  // (Not a structured binding: the lambdas below capture these, which C++17 does not allow of one.)
  const std::pair<std::int64_t, std::int64_t> lengths = mean_lengths(s.sim);
  const std::int64_t isl = lengths.first, osl = lengths.second;
  const std::int64_t longest_prompt = detail::longest_request(s.sim).first;

  // ---- the engines ----
  std::vector<const engine_profile*> engines;
  if (s.engines.empty()) {
    for (const engine_profile* e : engines_for(gpu)) engines.push_back(e);
  } else {
    for (const std::string& id : s.engines) {
      const engine_profile& e = find_engine(id);
      check_engine_runs_on(e, gpu);
      engines.push_back(&e);
    }
  }
  std::vector<std::pair<const engine_profile*, engine_scheduler>> runnable;
  for (const engine_profile* e : engines) {
    try {
      runnable.emplace_back(e, scheduler_of(*e, gpu));
    } catch (const error&) {
      out.notes.push_back("engine " + e->id + " is not simulated (static batching): left out");
    }
  }
  if (runnable.empty()) bad("/plan/engines", "no engine that the serving simulator models runs on " + gpu.name);

  // ---- 1. configurations, their fit and their closed-form figures at a ladder of loads ----
  std::vector<candidate> points;
  std::int64_t cfg_count = 0;
  // One replica's settings: the engine applied, the layout, the format, the batch budget, MTP.
  const auto configure = [&](const engine_profile& e, const engine_scheduler& sched, precision w,
                             const layout_choice& l, std::int64_t budget, std::int64_t spec) {
    candidate c;
    c.config.engine = e.id;
    c.config.weight = w;
    // The KV format the question names (a campaign's, a team's), else the weight format's default.
    c.config.kv = s.sim.base.kv_cache_precision.value_or(default_kv_precision(w));
    c.config.tp = l.tp;
    c.config.ep = l.ep;
    c.config.attention_dp = l.adp;
    c.config.max_num_seqs = sched.max_num_seqs;
    c.config.chunked_prefill = sched.chunked_prefill;
    simulation_settings& x = c.sim;
    x = s.sim;
    x.base.weight_precision = w;
    x.base.kv_cache_precision = s.sim.base.kv_cache_precision;
    x.base.parallel.tensor_parallel = l.tp;
    x.base.parallel.expert_parallel = l.ep;
    x.base.parallel.attention_data_parallel = l.adp;
    x.base.parallel.pipeline_parallel = 1;
    x.base.parallel.data_parallel = 1;
    // The engine's fitted constants, not another engine's: what the question's base took from
    // an engine (its default engine's fit) goes back to the defaults; the user's own stay.
    const settings pristine;
    if (x.base.compute_efficiency_origin == efficiency_origin::fitted) {
      x.base.compute_efficiency = pristine.compute_efficiency;
      x.base.compute_efficiency_origin = pristine.compute_efficiency_origin;
    }
    if (x.base.mem_efficiency_origin == efficiency_origin::fitted) {
      x.base.mem_efficiency = pristine.mem_efficiency;
      x.base.mem_efficiency_origin = pristine.mem_efficiency_origin;
    }
    x.base.costs = pristine.costs;
    x.base.bands = pristine.bands;
    x.base.engine.clear();
    apply_engine(e, gpu, x);
    // Without chunked prefill a prompt runs whole, in a step beside the running decodes: the
    // token budget holds the longest prompt and a token for each sequence the server runs, as
    // deployments size it (InferenceX's TensorRT-LLM scripts: max_num_tokens = CONC + ISL + 64,
    // benchmarks/dsr1_fp8_h200_trt.sh at 1fc5d73c). With the prompt alone, a long prompt would
    // wait until no decode runs (TensorRT-LLM's scheduler, and the simulator's).
    x.max_num_batched_tokens =
        std::max<std::int64_t>(budget, sched.chunked_prefill ? 1 : longest_prompt + sched.max_num_seqs);
    c.config.max_num_batched_tokens = x.max_num_batched_tokens;
    if (spec != 0) {
      speculative_settings sp;
      sp.method = speculative_method::mtp;
      x.speculative = resolve_speculative(sp);
      c.config.speculative_tokens = x.speculative.tokens;
    }
    return c;
  };
  // The closed form (serve()) of a replica at `clients`; nothing where it does not fit.
  const auto closed_form_of = [&](const candidate& c, std::int64_t clients) -> std::optional<serving_result> {
    serving_settings cf;
    cf.base = c.sim.base;
    cf.prompt_tokens = isl;
    cf.output_tokens = osl;
    cf.chunked_prefill_tokens = c.sim.chunked_prefill ? c.sim.max_num_batched_tokens : 0;
    cf.max_running = c.sim.max_num_seqs;
    cf.concurrency = clients;
    try {
      serving_result r = serve(m, cf, gpu);
      if (!r.fits || r.concurrency < 1 || !(r.tpot_s > 0)) return std::nullopt;
      return r;
    } catch (const error&) {
      return std::nullopt;
    }
  };
  // The loads a replica is tried at without a traffic: a ladder a factor of about sqrt(2) apart
  // (1, 2, 3, 4, 6, 8, 11, 16, ...), so that an SLO's edge falls within a third of a step.
  const auto ladder = [](std::int64_t most) {
    std::vector<std::int64_t> out;
    for (double c = 1; std::llround(c) <= most; c *= std::sqrt(2.0))
      if (out.empty() || out.back() != std::llround(c)) out.push_back(std::llround(c));
    return out;
  };
  const auto replicas_within = [&](std::int64_t gpus_each) {
    std::int64_t n = std::max<std::int64_t>(0, s.gpus / gpus_each);
    if (s.budget_usd_per_hour && price > 0)
      n = std::min<std::int64_t>(n, static_cast<std::int64_t>(*s.budget_usd_per_hour / (price * d(gpus_each))));
    return n;
  };
  const auto within_budget = [&](std::int64_t gpus) {
    return gpus <= s.gpus && (!s.budget_usd_per_hour || !(price > 0) || price * d(gpus) <= *s.budget_usd_per_hour);
  };
  for (const auto& [e, sched] : runnable) {
    const bool splits = s.disaggregated && e->launch.flag("disaggregated_role") != nullptr;
    for (const precision w : formats_for(*e, s, gpu)) {
      std::vector<std::int64_t> budgets{sched.max_num_batched_tokens};
      if (sched.chunked_prefill && sched.max_num_batched_tokens > 2048) budgets.push_back(2048);
      std::vector<std::int64_t> specs{0};
      if (s.speculative && m.mtp_layers > 0 && (e->id == "vllm" || e->id == "sglang" || e->id == "tensorrt-llm"))
        specs.push_back(-1);
      // TP within the interconnect domain; EP across domains too (wide EP over the scale-out
      // network, which the step model charges), up to the GPUs given.
      const std::vector<layout_choice> layouts = layouts_for(m, *e, cap, s.gpus, s);
      for (const std::int64_t budget : budgets)
        for (const std::int64_t spec : specs) {
          // Each layout's replica and its closed form at one client (kept for the split below).
          std::vector<std::pair<candidate, serving_result>> fitting;
          for (const layout_choice& l : layouts) {
            const std::int64_t per_replica = l.tp * l.ep;
            if (per_replica > s.gpus) continue;
            ++cfg_count;
            const candidate c = configure(*e, sched, w, l, budget, spec);
            const auto first = closed_form_of(c, 1);
            if (!first) continue;
            ++out.fitting;
            fitting.emplace_back(c, *first);
            const std::int64_t most = std::min<std::int64_t>(first->max_concurrency, c.sim.max_num_seqs);
            const std::int64_t replicas = std::max<std::int64_t>(1, replicas_within(per_replica));
            if (replicas_within(per_replica) < 1) continue;
            const auto add = [&](std::int64_t reps, std::int64_t clients, const serving_result& r) {
              candidate p = c;
              p.config.replicas = reps;
              p.load = clients;
              p.per_gpu = r.output_tokens_per_second / d(per_replica);
              p.per_user = 1.0 / r.tpot_s;
              points.push_back(std::move(p));
              ++out.closed_form_points;
            };
            if (closed) {
              // The system's clients dealt over 1..replicas replicas.
              for (std::int64_t r = 1; r <= replicas; ++r) {
                const std::int64_t clients = (s.sim.clients + r - 1) / r;
                if (clients > most) continue;
                if (const auto f = closed_form_of(c, clients)) add(r, clients, *f);
              }
            } else if (open) {
              // The replica's share of the rate must be within what it completes at its fullest.
              const auto full = closed_form_of(c, std::max<std::int64_t>(1, most));
              if (!full) continue;
              for (std::int64_t r = 1; r <= replicas; ++r) {
                const double share = s.sim.rate_per_s / d(r);
                if (share > full->requests_per_second) continue;
                // Little's law for the load the share keeps in flight.
                std::int64_t clients = 1;
                for (int it = 0; it < 4; ++it) {
                  const auto f = closed_form_of(c, clients);
                  if (!f) break;
                  const double latency = f->ttft_s + d(osl - 1) * f->tpot_s;
                  clients = std::clamp<std::int64_t>(std::llround(std::ceil(share * latency)), 1, most);
                }
                if (const auto f = closed_form_of(c, clients)) add(r, clients, *f);
              }
            } else {
              for (const std::int64_t clients : ladder(most))
                if (const auto f = closed_form_of(c, clients)) add(replicas, clients, *f);
            }
          }
          if (!splits) continue;
          // Disaggregated: prefill workers of a tensor-parallel layout, decode workers of any
          // layout. The closed form: a prefill worker completes 1 / prefill_s prompts per second
          // (queueing as M/D/1 below 90% busy); a decode worker's token time is its step at its
          // share of the clients; TTFT = prefill + its queue + one decode step (the transfer is
          // left to the simulation).
          // A decode pool of nd workers under the traffic given: each worker's clients (a rate's
          // share in flight by Little's law at the one-client step, step1_s).
          const auto traffic_per_worker = [&](std::int64_t nd, double step1_s) -> std::int64_t {
            if (closed) return (s.sim.clients + nd - 1) / nd;
            return std::llround(std::ceil(s.sim.rate_per_s / d(nd) * d(osl) * step1_s));
          };
          // Each decode layout's closed form at its loads (the traffic's, else the ladder), computed once.
          std::vector<std::map<std::int64_t, serving_result>> decode_at(fitting.size());
          for (std::size_t k = 0; k < fitting.size(); ++k) {
            const auto& [dc, df] = fitting[k];
            const std::int64_t most = std::min<std::int64_t>(df.max_concurrency, dc.sim.max_num_seqs);
            std::vector<std::int64_t> loads;
            if (closed || open) {
              for (std::int64_t nd = 1; nd * dc.config.tp * dc.config.ep <= s.gpus; ++nd)
                loads.push_back(traffic_per_worker(nd, df.decode_step_s));
            } else {
              loads = ladder(most);
            }
            for (const std::int64_t per : loads)
              if (per >= 1 && per <= most && decode_at[k].count(per) == 0)
                if (const auto f = closed_form_of(dc, per); f && f->decode_step_s > 0) decode_at[k].emplace(per, *f);
          }
          for (const auto& [pc, pf] : fitting) {
            if (pc.config.ep != 1 || !(pf.prefill_s > 0)) continue;
            const std::int64_t gp = pc.config.tp;
            for (std::size_t k = 0; k < fitting.size(); ++k) {
              const candidate& dc = fitting[k].first;
              const std::int64_t gd = dc.config.tp * dc.config.ep;
              for (std::int64_t nd = 1; gp + nd * gd <= s.gpus; ++nd)
                for (const auto& [per, f] : decode_at[k]) {
                  if ((closed || open) && per != traffic_per_worker(nd, fitting[k].second.decode_step_s)) continue;
                  // The fewest prefill workers that keep the pool below 90% busy, and one more
                  // (a shorter prefill queue for a TTFT limit).
                  const double system = d(per * nd);
                  const double cycle0 = pf.prefill_s + d(osl + 1) * f.decode_step_s;
                  const double work = system / cycle0 * pf.prefill_s;  // prefill workers kept busy
                  const std::int64_t fewest = std::max<std::int64_t>(1, static_cast<std::int64_t>(work / 0.9) + 1);
                  for (std::int64_t np = fewest; np <= fewest + 1; ++np) {
                    const std::int64_t gpus_used = np * gp + nd * gd;
                    if (!within_budget(gpus_used)) break;
                    ++cfg_count;
                    ++out.fitting;  // both pools' layouts hold a request
                    const double busy = work / d(np);
                    const double ttft = pf.prefill_s * (1 + busy / (2 * (1 - busy))) + f.decode_step_s;
                    const double cycle = ttft + d(osl) * f.decode_step_s;
                    candidate c = dc;
                    c.config.disaggregated = true;
                    c.config.prefill_workers = np;
                    c.config.decode_workers = nd;
                    c.config.prefill_tp = gp;
                    c.config.prefill_ep = 1;
                    c.config.prefill_attention_dp = 1;
                    c.load = per;
                    c.per_gpu = system * d(osl) / cycle / d(gpus_used);
                    c.per_user = 1.0 / f.decode_step_s;
                    points.push_back(std::move(c));
                    ++out.closed_form_points;
                  }
                }
            }
          }
        }
    }
  }
  out.configurations = cfg_count;
  if (points.empty()) {
    out.notes.push_back("no configuration holds a request of " + std::to_string(isl) + " + " + std::to_string(osl) +
                        " tokens within " + std::to_string(s.gpus) + " " + gpu.name + " GPUs" +
                        (s.budget_usd_per_hour ? " and the budget" : "") +
                        (open     ? " at that request rate"
                         : closed ? " at that concurrency"
                                  : ""));
    return out;
  }

  // ---- 2. the closed form's Pareto fronts, simulated: the whole space's and each engine's ----
  const auto gpu_of = [](const candidate& c) { return c.per_gpu; };
  const auto user_of = [](const candidate& c) { return c.per_user; };
  // Evenly by per-user speed, at most n of them.
  const auto thin = [&](std::vector<std::size_t> idx, std::size_t n) {
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      return std::make_tuple(points[a].per_user, points[a].per_gpu, a) <
             std::make_tuple(points[b].per_user, points[b].per_gpu, b);
    });
    if (idx.size() <= n) return idx;
    std::vector<std::size_t> kept;
    for (std::size_t k = 0; k < n; ++k) kept.push_back(idx[k * (idx.size() - 1) / std::max<std::size_t>(1, n - 1)]);
    kept.erase(std::unique(kept.begin(), kept.end()), kept.end());
    return kept;
  };
  // The whole space's front and each engine's, aggregated and disaggregated apart, thinned evenly
  // by per-user speed to the simulations allowed (nothing here depends on the SLOs).
  std::vector<std::size_t> chosen = front_of(points, gpu_of, user_of);
  for (const auto& [e, sched] : runnable)
    for (const bool split : {false, true}) {
      std::vector<candidate> own;
      std::vector<std::size_t> at;
      for (std::size_t i = 0; i < points.size(); ++i)
        if (points[i].config.engine == e->id && points[i].config.disaggregated == split) {
          own.push_back(points[i]);
          at.push_back(i);
        }
      for (const std::size_t k : front_of(own, gpu_of, user_of)) chosen.push_back(at[k]);
    }
  std::sort(chosen.begin(), chosen.end());
  chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
  chosen = thin(std::move(chosen), s.max_simulations);
  std::vector<search_point> simulated;
  for (std::size_t k = 0; k < chosen.size(); ++k) {
    if (s.progress && !s.progress(d(k) / d(chosen.size())))
      throw error(error_code::limit, "/plan", "the search was cancelled");
    const candidate& c = points[chosen[k]];
    search_point p;
    p.config = c.config;
    p.sim = c.sim;
    simulation_settings& x = p.sim;
    const bool split = c.config.disaggregated;
    // A disaggregated deployment is one system (its pools take the whole traffic); aggregated
    // replicas share it.
    const std::int64_t reps = c.config.replicas;
    const std::int64_t per_replica = split ? c.config.gpus() : c.config.tp * c.config.ep;
    const std::int64_t system_load = split ? c.load * c.config.decode_workers : c.load;
    if (open) {
      x.arrivals = arrival_kind::poisson;
      x.rate_per_s = s.sim.rate_per_s / d(reps);
      x.num_requests = s.sim.num_requests;
      p.rate_per_s = s.sim.rate_per_s;
    } else {
      x.arrivals = arrival_kind::closed_loop;
      x.clients = closed && split ? s.sim.clients : system_load;
      x.num_requests = closed ? s.sim.num_requests : requests_for(system_load);
      p.concurrency = closed ? s.sim.clients : system_load * reps;
    }
    if (split) {
      disaggregation_settings dz;
      dz.prefill_workers = c.config.prefill_workers;
      dz.decode_workers = c.config.decode_workers;
      dz.prefill_tensor_parallel = c.config.prefill_tp;
      dz.prefill_expert_parallel = c.config.prefill_ep;
      dz.prefill_attention_data_parallel = c.config.prefill_attention_dp;
      dz.decode_tensor_parallel = c.config.tp;
      dz.decode_expert_parallel = c.config.ep;
      dz.decode_attention_data_parallel = c.config.attention_dp;
      p.disaggregation = dz;
    }
    simulation_result raw;
    try {
      raw = split ? simulate_disaggregated(m, x, *p.disaggregation, gpu).total : simulate(m, x, gpu);
    } catch (const error&) {
      continue;  // a configuration the closed form admits but the simulator's memory does not
    }
    ++out.simulations;
    const band_corrections k_ = corrections_for(m, x, gpu);
    const simulation_result r = corrected(raw, k_);
    const std::int64_t pc = s.slo.percentile;
    p.simulated = true;
    p.gpu = gpu.name;
    p.ttft_s = at_percentile(r.ttft, pc);
    p.tpot_s = at_percentile(r.tpot, pc);
    p.e2e_s = at_percentile(r.e2e, pc);
    const engine_bands& eb = x.base.bands;
    p.has_ranges = k_.has_ttft && k_.has_decode;
    if (p.has_ranges) {
      const double rt = at_percentile(raw.ttft, pc), rd = at_percentile(raw.tpot, pc);
      p.ttft_range = {std::min(rt * eb.ttft_load.low, p.ttft_s), std::max(rt * eb.ttft_load.high, p.ttft_s)};
      p.tpot_range = {std::min(rd * eb.decode.low, p.tpot_s), std::max(rd * eb.decode.high, p.tpot_s)};
    }
    p.output_tokens_per_s = r.output_tokens_per_s * d(reps);
    p.output_tokens_per_s_per_gpu = r.output_tokens_per_s / d(per_replica);
    p.total_tokens_per_s_per_gpu = r.total_tokens_per_s / d(per_replica);
    p.tokens_per_s_per_user = r.tpot.mean > 0 ? 1.0 / r.tpot.mean : 0.0;
    p.cost_per_hour_usd = price * d(p.config.gpus());
    p.usd_per_million_output_tokens =
        p.output_tokens_per_s > 0 ? p.cost_per_hour_usd / (p.output_tokens_per_s * 3600.0) * 1e6 : 0.0;
    // An open loop keeps up when it completes requests at >= 95% of the arrival rate, the run's
    // ramp-down (its median latency after the last arrival) not counted against it.
    if (open) {
      const double span = raw.window_s - raw.e2e.p50;
      p.keeps_up = span > 0 && d(raw.measured_requests) / span >= 0.95 * x.rate_per_s;
    }
    // The SLOs: limit / figure - 1 each; every one met (and an open loop keeping up).
    double least = 1e300;
    const auto judge = [&](const std::optional<double>& limit, double v, std::optional<double>& margin,
                           const char* name) {
      if (!limit) return;
      margin = v > 0 ? *limit / v - 1.0 : 1e300;
      if (*margin < least) {
        least = *margin;
        p.binding = name;
      }
    };
    judge(s.slo.ttft_s, p.ttft_s, p.ttft_margin, "ttft");
    judge(s.slo.tpot_s, p.tpot_s, p.tpot_margin, "tpot");
    judge(s.slo.e2e_s, p.e2e_s, p.e2e_margin, "e2e");
    if (!p.keeps_up) p.binding = "throughput";
    p.meets = p.keeps_up && (!p.ttft_margin || *p.ttft_margin >= 0) && (!p.tpot_margin || *p.tpot_margin >= 0) &&
              (!p.e2e_margin || *p.e2e_margin >= 0);
    // Goodput: requests meeting the TTFT and TPOT limits (the simulator's count, all replicas).
    p.goodput_requests_per_s = p.meets ? r.requests_per_s * d(reps) : 0.0;
    simulated.push_back(std::move(p));
  }
  if (s.progress) s.progress(1.0);

  // ---- 3. the SLOs filter, the objective ranks ----
  const auto better = [&](const search_point& a, const search_point& b) { return ranks_before(s.objective, a, b); };
  std::vector<const search_point*> ok, missed;
  for (const search_point& p : simulated) (p.meets ? ok : missed).push_back(&p);
  std::stable_sort(ok.begin(), ok.end(), [&](auto* a, auto* b) { return better(*a, *b); });
  std::stable_sort(missed.begin(), missed.end(), [&](auto* a, auto* b) { return better(*a, *b); });
  // One point per configuration (its best load).
  const auto key = [](const search_config& c) {
    return std::make_tuple(c.engine, static_cast<int>(c.weight), c.tp, c.ep, c.attention_dp, c.max_num_batched_tokens,
                           c.speculative_tokens, c.disaggregated, c.prefill_workers, c.decode_workers, c.prefill_tp);
  };
  std::set<decltype(key(search_config{}))> seen;
  for (const search_point* p : ok)
    if (out.ranked.size() < s.top && seen.insert(key(p->config)).second) out.ranked.push_back(*p);
  for (const search_point* p : missed) out.rejected.push_back(*p);
  // Each ranked configuration as its engine's launch command.
  for (search_point& p : out.ranked) {
    launch_settings l;
    l.model = m.name;
    if (p.config.engine == "llama.cpp") {
      const std::size_t slash = m.name.rfind('/');
      std::string format(to_string(p.config.weight));
      std::transform(format.begin(), format.end(), format.begin(),
                     [](char ch) { return ch >= 'a' && ch <= 'z' ? static_cast<char>(ch - 'a' + 'A') : ch; });
      l.model = (slash == std::string::npos ? m.name : m.name.substr(slash + 1)) + "-" + format + ".gguf";
    }
    l.weight = p.config.weight;
    l.checkpoint = s.sim.base.weight_precision;
    l.kv = p.sim.base.kv_cache_precision.value_or(default_kv_precision(p.config.weight));
    l.tp = p.config.tp;
    l.ep = p.config.ep;
    l.attention_dp = p.config.attention_dp;
    l.max_num_seqs = p.sim.max_num_seqs;
    l.max_num_batched_tokens = p.sim.max_num_batched_tokens;
    l.chunked_prefill = p.sim.chunked_prefill;
    l.speculative_tokens = p.config.speculative_tokens;
    const engine_profile& e = find_engine(p.config.engine);
    if (p.config.disaggregated) {
      // Two commands: a decode worker's (the layout above) and a prefill worker's.
      l.role = "decode";
      p.launch = launch_for(e, l);
      l.role = "prefill";
      l.tp = p.config.prefill_tp;
      l.ep = p.config.prefill_ep;
      l.attention_dp = p.config.prefill_attention_dp;
      p.prefill_launch = launch_for(e, l);
    } else {
      p.launch = launch_for(e, l);
    }
  }
  out.pareto = simulated_front(simulated);

  // ---- why the best beats the next ----
  const auto name = [](const search_point& p) {
    std::string t =
        p.config.engine + " " + std::string(to_string(p.config.weight)) + " TP" + std::to_string(p.config.tp);
    if (p.config.ep > 1) t += " EP" + std::to_string(p.config.ep);
    if (p.config.attention_dp > 1) t += " DP-attention " + std::to_string(p.config.attention_dp);
    if (p.config.disaggregated)
      t = p.config.engine + " " + std::string(to_string(p.config.weight)) + " disaggregated " +
          std::to_string(p.config.prefill_workers) + " prefill x TP" + std::to_string(p.config.prefill_tp) + " + " +
          std::to_string(p.config.decode_workers) + " decode x " + t.substr(t.find(" TP") + 1);
    if (p.config.replicas > 1) t += " x" + std::to_string(p.config.replicas);
    if (p.config.speculative_tokens > 0) t += " MTP" + std::to_string(p.config.speculative_tokens);
    return t;
  };
  const auto fmt = [](double v) { return detail::format_number(std::round(v * 10) / 10); };
  if (out.ranked.empty()) {
    out.why = s.slo.any() ? "no simulated configuration meets every SLO" : "no configuration was simulated";
    if (!out.rejected.empty())
      out.why += "; the closest, " + name(out.rejected.front()) + ", misses " + out.rejected.front().binding;
  } else {
    const search_point& a = out.ranked.front();
    out.why = name(a) + ": " + fmt(a.output_tokens_per_s_per_gpu) + " output tokens/s per GPU at " +
              fmt(a.tokens_per_s_per_user) + " tokens/s per user on " + std::to_string(a.config.gpus()) + " GPUs";
    if (!a.binding.empty()) out.why += "; the SLO closest to binding: " + a.binding;
    if (out.ranked.size() > 1) {
      const search_point& b = out.ranked[1];
      out.why += ". Next, " + name(b) + ": " + fmt(b.output_tokens_per_s_per_gpu) + " tokens/s per GPU";
      if (!b.binding.empty()) out.why += ", held by " + b.binding;
    }
    // What stops the best configuration at more load: its simulated point beyond, missing an SLO.
    for (const search_point* p : missed)
      if (key(p->config) == key(a.config) && p->output_tokens_per_s_per_gpu > a.output_tokens_per_s_per_gpu) {
        out.why += std::string(closed || open ? ". On fewer replicas it misses " : ". More load on it misses ") +
                   p->binding + " (" + fmt(p->output_tokens_per_s_per_gpu) + " tokens/s per GPU)";
        break;
      }
  }
  return out;
}

search_result search_configurations(const model_spec& m, const search_settings& s,
                                    const std::vector<const hardware_spec*>& gpus) {
  if (gpus.empty()) bad("/gpu", "expected at least one GPU to search on");
  if (gpus.size() == 1) return search_configurations(m, s, *gpus.front());
  search_result out;
  std::vector<search_point> ranked, pareto, rejected;
  std::string best_each;
  for (std::size_t i = 0; i < gpus.size(); ++i) {
    search_settings one = s;
    if (s.progress)
      one.progress = [&, i](double f) {
        return s.progress((static_cast<double>(i) + f) / static_cast<double>(gpus.size()));
      };
    search_result r;
    try {
      r = search_configurations(m, one, *gpus[i]);
    } catch (const error& e) {
      // A device where no engine the simulator models runs: noted, the others searched.
      if (e.code() == error_code::limit || e.pointer() != "/plan/engines") throw;
      out.notes.push_back(gpus[i]->name + ": " + e.message());
      continue;
    }
    out.configurations += r.configurations;
    out.fitting += r.fitting;
    out.closed_form_points += r.closed_form_points;
    out.simulations += r.simulations;
    for (const std::string& n : r.notes) out.notes.push_back(gpus[i]->name + ": " + n);
    best_each += (best_each.empty() ? "" : "; ") + gpus[i]->name + ": ";
    if (r.ranked.empty()) {
      best_each += "nothing meets every SLO";
    } else {
      const search_point& b = r.ranked.front();
      best_each +=
          b.config.engine + " " + std::string(to_string(b.config.weight)) + " on " + std::to_string(b.config.gpus()) +
          " GPUs, " + detail::format_number(std::round(b.output_tokens_per_s_per_gpu)) + " output tokens/s per GPU, $" +
          detail::format_number(std::round(b.usd_per_million_output_tokens * 100) / 100) + " per million output tokens";
    }
    if (i == 0 ||
        (!r.ranked.empty() && (ranked.empty() || ranks_before(s.objective, r.ranked.front(), ranked.front()))))
      out.why = r.why;
    ranked.insert(ranked.end(), r.ranked.begin(), r.ranked.end());
    pareto.insert(pareto.end(), r.pareto.begin(), r.pareto.end());
    rejected.insert(rejected.end(), r.rejected.begin(), r.rejected.end());
    std::stable_sort(ranked.begin(), ranked.end(),
                     [&](const search_point& a, const search_point& b) { return ranks_before(s.objective, a, b); });
  }
  if (ranked.size() > s.top) ranked.resize(s.top);
  std::stable_sort(rejected.begin(), rejected.end(),
                   [&](const search_point& a, const search_point& b) { return ranks_before(s.objective, a, b); });
  out.ranked = std::move(ranked);
  out.rejected = std::move(rejected);
  out.pareto = simulated_front(pareto);
  out.why = (out.ranked.empty() ? std::string("no GPU's configurations meet every SLO")
                                : "best on " + out.ranked.front().gpu + ": " + out.why) +
            ". Best on each GPU: " + best_each;
  return out;
}

}  // namespace flopcast
