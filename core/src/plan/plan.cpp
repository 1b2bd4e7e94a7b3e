// "How many GPUs do I need?" (plan.hpp): every layout of the search is one estimate() at that
// layout (memory per GPU and the fit, prefill and decode with communication), and with a
// concurrency target one serve() at it; nothing here re-derives a formula.
#include "flopcast/plan/plan.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

#include "base/detail.hpp"
#include "estimate/rules.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/serving/serving.hpp"

namespace flopcast {
namespace {

using detail::d;

// The layouts of exactly `gpus` GPUs: TP x EP within the domain, PP and DP beyond it.
std::vector<parallel_layout> layouts_of(std::int64_t gpus, const std::vector<std::int64_t>& tps,
                                        const std::vector<std::int64_t>& eps, std::int64_t domain, std::int64_t layers,
                                        std::int64_t load, const parallel_layout& links) {
  std::vector<parallel_layout> out;
  for (const std::int64_t tp : tps)
    for (const std::int64_t ep : eps) {
      if (tp * ep > domain || gpus % (tp * ep) != 0) continue;
      const std::int64_t rest = gpus / (tp * ep);
      for (std::int64_t pp = 1; pp <= std::min(rest, layers); ++pp) {
        if (rest % pp != 0 || rest / pp > load) continue;
        parallel_layout l = links;
        l.tensor_parallel = tp;
        l.expert_parallel = ep;
        l.pipeline_parallel = pp;
        l.data_parallel = rest / pp;
        out.push_back(l);
      }
    }
  return out;
}

// How many nodes (interconnect domains) a layout fills and what crossing them costs, as the
// estimate charges it (estimate/parallel.cpp): a TP/EP group beyond the domain runs its collectives
// at the scale-out rate; otherwise only pipeline sends cross nodes, charged at the GPU's own link.
void describe_nodes(plan_layout& out, std::int64_t domain, const parallel_result& p) {
  out.nodes = (out.gpus + domain - 1) / domain;
  if (out.nodes <= 1) return;
  out.inter_node_bandwidth_bytes_per_s = p.interconnect_bandwidth_bytes_per_s;
  if (std::max(out.tp, out.ep) > domain)
    out.inter_node =
        "the tensor/expert-parallel collectives cross nodes at the scale-out rate (one 400 Gb/s NIC per GPU)";
  else if (out.pp > 1)
    out.inter_node =
        "pipeline sends cross nodes, charged at the GPU's own link rate: no slower scale-out link is modelled for them";
  else
    out.inter_node = "only data-parallel replicas sit on different nodes: inference exchanges nothing between them";
}

// One layout, costed by the estimate (and serve() for a concurrency target).
plan_layout evaluate(const model_spec& m, const plan_settings& s, const hardware_spec& gpu, std::int64_t load,
                     std::int64_t domain, const parallel_layout& l) {
  settings at = s.base;
  at.parallel = l;
  at.batch_size = load;
  const estimate_result r = estimate(m, at, &gpu);
  const parallel_result& p = r.parallel;
  plan_layout out;
  out.tp = l.tensor_parallel;
  out.pp = l.pipeline_parallel;
  out.ep = l.expert_parallel;
  out.dp = l.data_parallel;
  out.gpus = l.total_gpus();
  out.per_gpu_memory_bytes = p.memory_per_gpu;
  out.weights_per_gpu_bytes = p.weights_per_gpu;
  out.kv_cache_per_gpu_bytes = p.kv_cache_per_gpu;
  out.activations_per_gpu_bytes = p.activations_per_gpu;
  out.usable_bytes = detail::usable_memory(at, gpu);
  out.fits = p.fits_per_gpu;
  out.spans_nodes = out.gpus > domain;
  describe_nodes(out, domain, p);
  out.cost_per_hour_usd = s.base.cost_per_hour_usd.value_or(gpu.cost_per_hour_usd) * d(out.gpus);
  const double tokens = d(s.base.num_generated_tokens);
  if (!out.fits) return out;
  if (s.base.training) {
    // The training step at this layout (the estimate's, with its fine-tuning method).
    out.training_step_s = p.training_step_s;
    out.request_latency_s = p.training_step_s;
    out.tokens_per_s = d(load) * d(s.base.sequence_length) / p.training_step_s;
    out.usd_per_million_output_tokens = out.cost_per_hour_usd / 3600.0 / out.tokens_per_s * 1e6;
    return out;
  }
  if (s.concurrency) {
    // The serving closed form at this layout; a contiguous cache, so its fit is the estimate's.
    serving_settings sv;
    sv.base = at;
    sv.prompt_tokens = s.base.sequence_length;
    sv.output_tokens = s.base.num_generated_tokens;
    sv.concurrency = *s.concurrency;
    sv.paged = false;
    const serving_result q = serve(m, sv, gpu);
    out.fits = q.fits;
    if (!out.fits) return out;
    out.ttft_s = q.ttft_s;
    out.tpot_s = q.tpot_s;
    out.tokens_per_s = q.output_tokens_per_second;
    out.usd_per_million_output_tokens = q.cost_per_1m_output_tokens_usd;
  } else {
    out.ttft_s = p.prefill_latency_s;
    out.tpot_s = p.decode_latency_per_token_s;
    // The batch's output tokens over the whole request (prefill included: it is paid for).
    out.tokens_per_s = d(load) * tokens / p.total_request_latency_s;
    out.usd_per_million_output_tokens = out.cost_per_hour_usd / 3600.0 / out.tokens_per_s * 1e6;
  }
  out.request_latency_s = out.ttft_s + (tokens - 1) * out.tpot_s;
  return out;
}

bool cheaper(const plan_layout& a, const plan_layout& b) {
  return std::tuple(a.usd_per_million_output_tokens, a.gpus, a.request_latency_s) <
         std::tuple(b.usd_per_million_output_tokens, b.gpus, b.request_latency_s);
}
bool faster(const plan_layout& a, const plan_layout& b) {
  return std::tuple(a.request_latency_s, -a.tokens_per_s, a.gpus) <
         std::tuple(b.request_latency_s, -b.tokens_per_s, b.gpus);
}
bool same_layout(const plan_layout& a, const plan_layout& b) {
  return a.tp == b.tp && a.pp == b.pp && a.ep == b.ep && a.dp == b.dp;
}

}  // namespace

plan_result plan(const model_spec& m, const plan_settings& s, const hardware_spec& gpu) {
  detail::check_plan(s);
  validate(s.base);
  if (m.arch == architecture::encoder)
    throw error(error_code::invalid_argument, "/model",
                "an encoder-only model does not generate: a plan ranks layouts by output tokens");
  if (s.base.num_generated_tokens < 1)
    throw error(error_code::invalid_argument, "/num_generated_tokens",
                "expected at least 1 generated token: a plan ranks layouts by output tokens, but got 0");
  if (!(gpu.memory_bytes > 0))
    throw error(error_code::invalid_argument, "/gpu", "expected a GPU with memory: GPU " + gpu.name + " lists none");
  if (s.base.training && s.concurrency)
    throw error(error_code::invalid_argument, "/plan/concurrency",
                "concurrency is a serving load: expected no concurrency with training (the batch trains at once)");

  plan_result out;
  out.load = s.concurrency.value_or(s.base.batch_size);
  const bool known_domain = gpu.interconnect_domain_size > 0;
  out.domain_size = known_domain ? gpu.interconnect_domain_size : 1;
  const bool links =
      s.base.parallel.interconnect_bandwidth_bytes_per_s.has_value() || gpu.interconnect_bandwidth_bytes_per_s > 0;
  out.max_gpus = links ? s.max_gpus : 1;
  if (!links)
    out.notes.push_back(
        "GPU " + gpu.name +
        " lists no interconnect: only one GPU is tried (give parallelism.interconnect_bandwidth_bytes_per_s)");
  else if (!known_domain)
    out.notes.push_back("GPU " + gpu.name +
                        " lists no interconnect domain (NVLink/ICI): counted as one device per "
                        "node, so TP and EP stay at 1 and PP and DP span devices");
  if (!(s.base.cost_per_hour_usd.value_or(gpu.cost_per_hour_usd) > 0))
    out.notes.push_back("GPU " + gpu.name +
                        " lists no price: cost is 0, the cheapest is the fewest GPUs (give cost_per_hour)");
  if (s.concurrency)
    out.notes.push_back("speed and cost at a concurrency of " + std::to_string(*s.concurrency) +
                        " sequences by the serving closed form (continuous batching, contiguous KV cache)");

  // The ranks each kind of parallelism may take.
  const std::int64_t cap = std::min(out.max_gpus, out.domain_size);
  std::vector<std::int64_t> tps, eps{1};
  for (std::int64_t t = 1; t <= cap; ++t)
    if (m.attention.num_heads % t == 0) tps.push_back(t);
  if (m.moe.num_experts > 1)
    for (std::int64_t e = 2; e <= cap; ++e)
      if (m.moe.num_experts % e == 0) eps.push_back(e);
  const std::int64_t layers = m.num_layers + m.num_encoder_layers;

  std::vector<plan_layout> tried;
  const auto try_count = [&](std::int64_t gpus) {
    bool any = false;
    for (const parallel_layout& l : layouts_of(gpus, tps, eps, out.domain_size, layers, out.load, s.base.parallel)) {
      plan_layout x = evaluate(m, s, gpu, out.load, out.domain_size, l);
      ++out.candidates;
      if (x.fits) {
        any = true;
        tried.push_back(x);
      } else if (!out.closest || x.per_gpu_memory_bytes < out.closest->per_gpu_memory_bytes) {
        out.closest = x;
      }
    }
    return any;
  };
  for (std::int64_t g = 1; g <= out.max_gpus && out.min_gpus == 0; ++g)
    if (try_count(g)) out.min_gpus = g;
  if (out.min_gpus == 0) return out;
  out.closest.reset();
  std::int64_t p2 = 1;
  while (p2 <= out.min_gpus) p2 *= 2;
  for (; p2 <= out.max_gpus; p2 *= 2) try_count(p2);

  // The marks over everything tried; the list: the fewest GPUs, then faster larger counts.
  const auto best = [&](auto&& better) { return *std::min_element(tried.begin(), tried.end(), better); };
  const plan_layout cheapest = best(cheaper), fastest = best(faster);
  std::vector<plan_layout> list;
  for (const plan_layout& x : tried)
    if (x.gpus == out.min_gpus) list.push_back(x);
  double best_latency = best([](const plan_layout& a, const plan_layout& b) {
                          return a.gpus != b.gpus ? a.gpus < b.gpus : faster(a, b);
                        }).request_latency_s;
  for (std::int64_t g = out.min_gpus + 1; g <= out.max_gpus; ++g) {
    const plan_layout* top = nullptr;
    for (const plan_layout& x : tried)
      if (x.gpus == g && (top == nullptr || faster(x, *top))) top = &x;
    if (top == nullptr || !(top->request_latency_s < best_latency)) continue;
    best_latency = top->request_latency_s;
    list.push_back(*top);
  }
  for (const plan_layout* x : {&cheapest, &fastest})
    if (std::none_of(list.begin(), list.end(), [&](const plan_layout& y) { return same_layout(*x, y); }))
      list.push_back(*x);
  std::stable_sort(list.begin(), list.end(), [](const plan_layout& a, const plan_layout& b) {
    return a.gpus != b.gpus ? a.gpus < b.gpus : faster(a, b);
  });
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (same_layout(list[i], cheapest)) out.cheapest = i;
    if (same_layout(list[i], fastest)) out.fastest = i;
  }
  list[*out.cheapest].cheapest = true;
  list[*out.fastest].fastest = true;
  out.layouts = std::move(list);
  return out;
}

}  // namespace flopcast
