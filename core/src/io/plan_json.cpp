// The plan's JSON (plan.hpp): the request's configuration, then one object per listed layout.
#include "flopcast/io/plan_json.hpp"

#include "base/detail.hpp"
#include "base/json_out.hpp"
#include "flopcast/plan/plan.hpp"

namespace flopcast {
namespace {

using detail::json_out;

void write_layout(json_out& w, const plan_layout& x, bool training) {
  w.begin_object()
      .field("tp", x.tp)
      .field("pp", x.pp)
      .field("ep", x.ep)
      .field("dp", x.dp)
      .field("gpus", x.gpus)
      .field("per_gpu_memory_bytes", x.per_gpu_memory_bytes)
      .field("weights_per_gpu_bytes", x.weights_per_gpu_bytes)
      .field("kv_cache_per_gpu_bytes", x.kv_cache_per_gpu_bytes)
      .field("activations_per_gpu_bytes", x.activations_per_gpu_bytes)
      .field("usable_bytes", x.usable_bytes)
      .field("fits", x.fits)
      .field("spans_nodes", x.spans_nodes)
      .field("nodes", x.nodes)
      .field_if("inter_node_bandwidth_bytes_per_s", x.inter_node_bandwidth_bytes_per_s.has_value(),
                x.inter_node_bandwidth_bytes_per_s.value_or(0.0))
      .field("inter_node", x.inter_node)
      .field_if("ttft_s", x.fits && !training, x.ttft_s)
      .field_if("tpot_s", x.fits && !training, x.tpot_s)
      .field_if("training_step_s", x.fits && training, x.training_step_s)
      .field_if("request_latency_s", x.fits, x.request_latency_s)
      .field_if("tokens_per_s", x.fits, x.tokens_per_s)
      .field("cost_per_hour_usd", x.cost_per_hour_usd)
      .field_if("usd_per_million_output_tokens", x.fits, x.usd_per_million_output_tokens)
      .field("cheapest", x.cheapest)
      .field("fastest", x.fastest)
      .end_object();
}

}  // namespace

std::vector<std::string> serve_args(const plan_request& q, const search_point& p) {
  const search_config& c = p.config;
  const simulation_settings& x = p.sim;
  const auto num = [](double v) { return detail::format_number(v); };
  std::vector<std::string> a{"serve",       q.model->name,
                             "--gpu",       p.gpu.empty() ? q.gpu->name : p.gpu,
                             "--precision", std::string(to_string(c.weight)),
                             "--engine",    c.engine,
                             "--tp",        std::to_string(c.tp)};
  if (c.ep > 1) a.insert(a.end(), {"--ep", std::to_string(c.ep)});
  if (c.attention_dp > 1) a.insert(a.end(), {"--attention-dp", std::to_string(c.attention_dp)});
  if (q.plan.base.kv_cache_precision)
    a.insert(a.end(), {"--kv-precision", std::string(to_string(*q.plan.base.kv_cache_precision))});
  // The workload: a dataset's lengths, or each side fixed or uniform on a range; a shared prefix,
  // a prompt pool, sessions.
  const workload_settings& wl = x.workload;
  const auto lengths = [&](const char* fixed, const char* range, const length_range& r) {
    if (r.min == r.max)
      a.insert(a.end(), {fixed, std::to_string(r.min)});
    else
      a.insert(a.end(), {range, std::to_string(r.min) + ":" + std::to_string(r.max)});
  };
  if (!wl.dataset.empty()) {
    a.insert(a.end(), {"--dataset", wl.dataset});
  } else {
    lengths("--isl", "--isl-range", x.input_tokens);
    lengths("--osl", "--osl-range", x.output_tokens);
  }
  if (wl.prefix_tokens > 0) a.insert(a.end(), {"--prefix-tokens", std::to_string(wl.prefix_tokens)});
  if (wl.prompt_pool > 0) a.insert(a.end(), {"--prompt-pool", std::to_string(wl.prompt_pool)});
  if (wl.turns > 1) a.insert(a.end(), {"--turns", std::to_string(wl.turns), "--think-time", num(wl.think_time_s)});
  a.insert(a.end(), {"--max-num-seqs", std::to_string(x.max_num_seqs), "--max-num-batched-tokens",
                     std::to_string(x.max_num_batched_tokens)});
  if (!x.chunked_prefill) a.emplace_back("--no-chunked-prefill");
  if (c.disaggregated)
    a.insert(a.end(), {"--disagg", "--prefill-workers", std::to_string(c.prefill_workers), "--decode-workers",
                       std::to_string(c.decode_workers), "--prefill-tp", std::to_string(c.prefill_tp), "--decode-tp",
                       std::to_string(c.tp)});
  if (c.speculative_tokens > 0)
    a.insert(a.end(), {"--speculative", "mtp", "--speculative-tokens", std::to_string(c.speculative_tokens)});
  if (x.arrivals == arrival_kind::poisson)
    a.insert(a.end(), {"--request-rate", num(x.rate_per_s)});
  else
    a.insert(a.end(), {"--concurrency", std::to_string(x.clients)});
  a.insert(a.end(), {"--num-requests", std::to_string(x.num_requests), "--seed", std::to_string(x.seed)});
  return a;
}

namespace {

void write_point(json_out& w, const plan_request& q, const search_point& p) {
  const search_config& c = p.config;
  w.begin_object()
      .field("gpu", p.gpu)
      .field("engine", c.engine)
      .field("precision", to_string(c.weight))
      .field("kv_cache_precision", to_string(p.sim.base.kv_cache_precision.value_or(c.kv)))
      .field("tp", c.tp)
      .field("ep", c.ep)
      .field("attention_dp", c.attention_dp)
      .field("replicas", c.replicas)
      .field("gpus", c.gpus())
      .field("max_num_seqs", p.sim.max_num_seqs)
      .field("max_num_batched_tokens", p.sim.max_num_batched_tokens)
      .field("chunked_prefill", p.sim.chunked_prefill)
      .field("speculative_tokens", c.speculative_tokens)
      .field_if("concurrency", p.concurrency > 0, p.concurrency)
      .field_if("request_rate", p.rate_per_s > 0, p.rate_per_s)
      .field("replica_concurrency", p.sim.arrivals == arrival_kind::closed_loop ? p.sim.clients : 0)
      .field("ttft_s", p.ttft_s)
      .field("tpot_s", p.tpot_s)
      .field("e2e_s", p.e2e_s);
  if (p.has_ranges)
    w.pair("ttft_range", p.ttft_range.low, p.ttft_range.high).pair("tpot_range", p.tpot_range.low, p.tpot_range.high);
  else
    w.field("ttft_range", nullptr).field("tpot_range", nullptr);
  w.field("output_tokens_per_s", p.output_tokens_per_s)
      .field("output_tokens_per_s_per_gpu", p.output_tokens_per_s_per_gpu)
      .field("total_tokens_per_s_per_gpu", p.total_tokens_per_s_per_gpu)
      .field("tokens_per_s_per_user", p.tokens_per_s_per_user)
      .field("goodput_requests_per_s", p.goodput_requests_per_s)
      .field("cost_per_hour_usd", p.cost_per_hour_usd)
      .field("usd_per_million_output_tokens", p.usd_per_million_output_tokens)
      .field("keeps_up", p.keeps_up)
      .field("meets", p.meets)
      .field("ttft_margin", p.ttft_margin)
      .field("tpot_margin", p.tpot_margin)
      .field("e2e_margin", p.e2e_margin)
      .text_or_null("binding", p.binding)
      .strings("serve_args", serve_args(q, p));
  w.key("disaggregated");
  if (c.disaggregated)
    w.begin_object()
        .field("prefill_workers", c.prefill_workers)
        .field("prefill_tp", c.prefill_tp)
        .field("decode_workers", c.decode_workers)
        .field("decode_tp", c.tp)
        .end_object();
  else
    w.value(nullptr);
  const auto command = [&](const char* key, const std::optional<launch_command>& x) {
    w.key(key);
    if (!x) {
      w.value(nullptr);
      return;
    }
    const launch_command& l = *x;
    w.begin_object()
        .field("command", l.text)
        .strings("args", l.args)
        .text_or_null("yaml_file", l.yaml_file)
        .strings("yaml", l.yaml)
        .strings("left_out", l.left_out)
        .field("docs_version", l.version)
        .end_object();
  };
  command("launch", p.launch);
  command("prefill_launch", p.prefill_launch);
  w.end_object();
}

void write_search(json_out& w, const plan_request& q, const search_result& r) {
  const plan_settings& p = q.plan;
  w.object("search", [&] {
    w.field("label", "ESTIMATED")
        .field("method",
               "configurations sized by the serving closed form; the closed form's Pareto "
               "front simulated as `flopcast serve` runs it; the SLOs filter, the objective "
               "ranks (plan/slo_search.hpp)");
    w.object("question", [&] {
      std::vector<std::string> devices;
      for (const hardware_spec* g : q.gpus) devices.push_back(g->name);
      w.strings("devices", devices)
          .field("gpus", p.search_gpus)
          .field("budget_usd_per_hour", p.budget_usd_per_hour)
          .field("concurrency", p.concurrency)
          .field("request_rate", p.request_rate)
          .field("input_tokens", p.base.sequence_length)
          .field("output_tokens", p.base.num_generated_tokens);
      if (p.input_tokens_range)
        w.pair("input_tokens_range", detail::d(p.input_tokens_range->min), detail::d(p.input_tokens_range->max));
      else
        w.field("input_tokens_range", nullptr);
      if (p.output_tokens_range)
        w.pair("output_tokens_range", detail::d(p.output_tokens_range->min), detail::d(p.output_tokens_range->max));
      else
        w.field("output_tokens_range", nullptr);
      w.text_or_null("dataset", p.workload.dataset)
          .field("prefix_tokens", p.workload.prefix_tokens)
          .field("prompt_pool", p.workload.prompt_pool)
          .field("turns", p.workload.turns)
          .field("think_time_s", p.workload.think_time_s)
          .field("seed", p.seed)
          .field("slo_ttft_s", p.slo.ttft_s)
          .field("slo_tpot_s", p.slo.tpot_s)
          .field("slo_e2e_s", p.slo.e2e_s)
          .field("slo_percentile", p.slo.percentile)
          .field("optimize", to_string(p.optimize.value_or(search_objective::goodput)));
    });
    w.field("configurations", r.configurations)
        .field("fitting", r.fitting)
        .field("closed_form_points", r.closed_form_points)
        .field("simulations", r.simulations)
        .field("why", r.why);
    w.array("ranked", [&] {
      for (const search_point& x : r.ranked) write_point(w, q, x);
    });
    w.array("pareto", [&] {
      for (const search_point& x : r.pareto) write_point(w, q, x);
    });
    w.array("rejected", [&] {
      for (const search_point& x : r.rejected) write_point(w, q, x);
    });
    w.strings("notes", r.notes);
  });
}

}  // namespace

search_result plan_search(const plan_request& q, const std::function<bool(double)>& progress) {
  search_settings s = search_question(q.plan, q.engines);
  s.progress = progress;
  return search_configurations(*q.model, s, q.gpus);
}

std::string plan_to_json(const plan_request& q, const plan_result& r, int indent, const search_result* search) {
  const settings& s = q.plan.base;
  json_out w(indent);
  w.begin_object()
      .field("model", q.model->name)
      .field("gpu", q.gpu->name)
      .field("precision", to_string(s.weight_precision));
  w.object("component_precision", [&] {
    for (std::size_t i = 0; i < weight_component_count; ++i)
      if (const auto& p = s.component_precision[i]) w.field(to_string(static_cast<weight_component>(i)), to_string(*p));
  });
  w.field("kv_cache_precision", to_string(s.kv_cache_precision.value_or(default_kv_precision(s.weight_precision))))
      .field("batch_size", s.batch_size)
      .field("sequence_length", s.sequence_length)
      .field("num_generated_tokens", s.num_generated_tokens)
      .field("training", s.training)
      .text_or_null("fine_tuning", !s.training                                                       ? ""
                                   : s.lora.rank == 0                                                ? "full"
                                   : s.lora.base_precision && is_weight_only(*s.lora.base_precision) ? "qlora"
                                                                                                     : "lora")
      .field("concurrency", q.plan.concurrency)
      .field("load", r.load)
      .text_or_null("engine", s.engine)
      .field("max_gpus", r.max_gpus)
      .field("interconnect_domain_size", r.domain_size)
      .field("fits", r.min_gpus > 0)
      .field_if("min_gpus", r.min_gpus > 0, r.min_gpus);
  w.array("layouts", [&] {
    for (const plan_layout& x : r.layouts) write_layout(w, x, s.training);
  });
  w.field("cheapest", r.cheapest).field("fastest", r.fastest).key("closest");
  if (r.closest)
    write_layout(w, *r.closest, s.training);
  else
    w.value(nullptr);
  w.field("candidates", r.candidates);
  w.strings("notes", r.notes);
  if (search != nullptr) write_search(w, q, *search);
  w.end_object();
  return w.take();
}

}  // namespace flopcast
