// The serving documents: the closed-form capacity (serving_to_json) and the simulation's curve,
// percentiles and time series (simulation_to_json).
#include <algorithm>
#include <cmath>

#include "base/json_out.hpp"
#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/io/request.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/serving/disaggregated.hpp"
#include "flopcast/serving/engine.hpp"
#include "flopcast/serving/serving.hpp"
#include "io/result_parts.hpp"

namespace flopcast {

using detail::json_out;
using detail::origin_name;
using detail::write_range;

namespace {

// The layout of a disaggregated simulation (the same at every point).
void write_disaggregation_layout(json_out& w, const disaggregated_result& r) {
  w.object("disaggregation", [&] {
    for (const auto* p : {&r.prefill, &r.decode}) {
      const std::string name = p == &r.prefill ? "prefill" : "decode";
      w.field(name + "_workers", p->workers)
          .field(name + "_tensor_parallel", p->tensor_parallel)
          .field(name + "_expert_parallel", p->expert_parallel)
          .field(name + "_attention_data_parallel", p->attention_data_parallel)
          .field(name + "_gpus_per_worker", p->gpus_per_worker)
          .field(name + "_max_num_seqs", p->max_num_seqs)
          .field(name + "_max_num_batched_tokens", p->max_num_batched_tokens);
    }
    w.field("transfer_bandwidth_bytes_per_s", r.transfer_bandwidth_bytes_per_s)
        .field("transfer_latency_s", r.transfer_latency_s)
        .field("gpus", r.gpus)
        .field("first_token",
               "from the decode worker after the KV transfer: it recomputes the last prompt token to sample the "
               "first (vLLM's scheduler after a remote KV load)")
        .field("dealing", "round robin: prefill workers in arrival order, decode workers in order of KV arrival");
  });
}

void write_disaggregation_point(json_out& w, const disaggregated_result& r) {
  const auto dist = [&](std::string_view key, const distribution& x) {
    w.object(key, [&] { w.field("mean", x.mean).field("p50", x.p50).field("p90", x.p90).field("p99", x.p99); });
  };
  w.object("disaggregation", [&] {
    w.field("bottleneck", r.bottleneck)
        .field("e2e_mean_plus_prefill_worker_s", r.e2e_mean_plus_prefill_worker_s)
        .field("e2e_mean_plus_decode_worker_s", r.e2e_mean_plus_decode_worker_s)
        .field("gpus", r.gpus)
        .field("output_tokens_per_s_per_gpu", r.output_tokens_per_s_per_gpu);
    dist("transfer_s", r.transfer_s);
    w.field("mean_transfer_bytes", r.mean_transfer_bytes).field("passes", r.passes).field("converged", r.converged);
    for (const auto* p : {&r.prefill, &r.decode})
      w.object(p == &r.prefill ? "prefill" : "decode", [&] {
        std::int64_t steps = 0, preemptions = 0;
        for (const simulation_result& x : p->worker_results) steps += x.steps, preemptions += x.preemptions;
        w.field("workers", p->workers)
            .field("tensor_parallel", p->tensor_parallel)
            .field("utilization", p->utilization)
            .field("mean_queue_s", p->mean_queue_s)
            .field("mean_waiting", p->mean_waiting)
            .field("mean_running", p->mean_running)
            .field("kv_blocks", p->kv_blocks)
            .field("steps", steps)
            .field("preemptions", preemptions);
      });
  });
}

}  // namespace

std::string serving_to_json(const model_spec& m, const serving_settings& s, const hardware_spec& gpu,
                            const serving_result& r, int indent) {
  const bool ok = r.concurrency > 0;  // figures exist (at max_concurrent_batch when capped)
  const auto kv_precision = [&] {
    return s.base.kv_cache_precision ? std::string_view(to_string(*s.base.kv_cache_precision)) : std::string_view();
  };
  json_out w(indent);
  w.begin_object()
      .field("model", m.name)
      .field("gpu", gpu.name)
      .field("precision", to_string(s.base.weight_precision))
      .field("gpus", r.gpus)
      .field("prompt_tokens", s.prompt_tokens)
      .field("output_tokens", s.output_tokens)
      .field("fits", r.fits)
      .field("kv_budget_bytes", r.kv_budget_bytes)
      .field("kv_bytes_per_sequence", r.kv_bytes_per_sequence)
      .field("activation_bytes_per_sequence", r.activation_bytes_per_sequence)
      .field("max_concurrent_batch", r.max_concurrency)
      .field("concurrency", r.concurrency)
      .field("concurrency_capped", r.concurrency_capped)
      .field_if("prefill_s", ok, r.prefill_s)
      .field_if("decode_step_s", ok, r.decode_step_s)
      .field_if("decode_bound", ok, to_string(r.decode_bound))
      .field_if("cycle_s", ok, r.cycle_s)
      .field_if("tokens_per_second", ok, r.output_tokens_per_second)
      .field_if("total_tokens_per_second", ok, r.total_tokens_per_second)
      .field_if("requests_per_second", ok, r.requests_per_second)
      .field_if("ttft_s", ok, r.ttft_s)
      .field_if("tpot_s", ok, r.tpot_s)
      .field_if("cost_per_1m_tokens_usd", ok, r.cost_per_1m_output_tokens_usd);
  if (ok)
    w.object("ranges", [&] {
      write_range(w, "tokens_per_second", r.output_tokens_per_second_range);
      write_range(w, "ttft_s", r.ttft_range);
      write_range(w, "tpot_s", r.tpot_range);
      w.field("source", r.range_source);
      w.text_or_null("point_correction", r.point_correction);
    });
  else
    w.field("ranges", nullptr);
  if (r.speculative)
    w.object("speculative", [&] {
      w.text_or_null("draft_model", s.draft ? std::string_view(s.draft->name) : "")
          .field("speculative_tokens", s.speculative_tokens)
          .field("acceptance_rate", s.acceptance_rate)
          .field("expected_tokens_per_step", r.expected_tokens_per_step)
          .field("draft_step_s", r.draft_step_s)
          .field("verify_step_s", r.verify_step_s)
          .field("tpot_s", r.speculative_tpot_s)
          .field("tokens_per_second", r.speculative_output_tokens_per_second)
          .field("speedup", r.speedup);
    });
  else
    w.field("speculative", nullptr);
  w.object("settings", [&] {
    w.field("gpu_memory_utilization", s.base.gpu_memory_utilization.value_or(0.9))
        .field("paged", s.paged)
        .field("block_size", s.block_size)
        .field("chunked_prefill_tokens", s.chunked_prefill_tokens)
        .field("compute_efficiency", s.base.compute_efficiency)
        .field("mem_efficiency", s.base.mem_efficiency)
        .field("compute_efficiency_origin", origin_name(s.base.compute_efficiency_origin))
        .field("mem_efficiency_origin", origin_name(s.base.mem_efficiency_origin))
        .field("tensor_parallel", s.base.parallel.tensor_parallel)
        .field("pipeline_parallel", s.base.parallel.pipeline_parallel)
        .field("data_parallel", s.base.parallel.data_parallel)
        .field("expert_parallel", s.base.parallel.expert_parallel)
        .field("attention_data_parallel", s.base.parallel.attention_data_parallel)
        .text_or_null("kv_cache_precision", kv_precision());
  });
  w.end_object();
  return w.take();
}

std::string simulation_to_json(const simulation_request& q, const std::vector<simulation_result>& points, int indent,
                               const std::vector<disaggregated_result>* disaggregated) {
  const bool disagg = disaggregated != nullptr && !disaggregated->empty() && q.disaggregation.has_value();
  const simulation_settings& s = q.simulation;
  const settings& b = s.base;
  const engine_profile* e = b.engine.empty() ? nullptr : &find_engine(b.engine);
  const engine_family_fit* fit = e != nullptr && e->efficiency_fitted ? e->fit_for(*q.gpu) : nullptr;
  const engine_bands& eb = b.bands;
  // Ranges: the fitted engine's residual bands (measured / predicted, p10-p90), where it has rows;
  // the points shown: serving/shown_figures.cpp.
  const band_corrections k = corrections_for(*q.model, s, *q.gpu);
  const auto has = [&](const residual_band& band) { return k.fitted && band.rows > 0; };
  std::string method = "simulated: iteration-level continuous batching, ";
  if (e == nullptr)
    method += "plain roofline, no engine";
  else if (fit != nullptr)
    method += "engine " + e->id + " fitted to " + std::to_string(fit->rows) + " rows (" + fit->family + ")";
  else
    method += "engine " + e->id + "'s scheduler on the plain roofline (its efficiencies are not fitted)";
  const bool any_band = has(eb.ttft_load) || has(eb.decode) || has(eb.throughput);
  const std::string ranges_source =
      any_band ? "engine " + e->id + " residuals on its validation rows (measured / predicted, p10-p90): TTFT " +
                     std::to_string(eb.ttft_load.rows) + " rows, decode " + std::to_string(eb.decode.rows) +
                     " rows, throughput " + std::to_string(eb.throughput.rows) + " rows"
               : "none: ranges come from a fitted engine's residuals (--engine with a fitted profile)";

  // Where a band excludes the simulator's figure (band_biased), the point shown is the simulator's
  // x the band's median; its range stays around the simulator's figure (and so contains it).
  const double fix_ttft = k.ttft, fix_decode = k.decode, fix_rate = k.rate, idle_prefill = k.idle_prefill_s;
  std::string fixes;
  const auto fix = [&](const char* what, double f) {
    if (f != 1.0) fixes += (fixes.empty() ? "" : ", ") + std::string(what) + " x" + detail::format_number(f);
  };
  fix("TTFT", fix_ttft);
  fix("TPOT and ITL", fix_decode);
  fix("throughput (as a time)", fix_rate);
  const auto shown_ = [&](const simulation_result& x) { return corrected(x, k); };

  json_out w(indent);
  const auto dist = [&](std::string_view key, const distribution& x) {
    w.object(key, [&] { w.field("mean", x.mean).field("p50", x.p50).field("p90", x.p90).field("p99", x.p99); });
  };
  // Around the simulator's figure v; `shown` (v x the band's median, or held at the idle prefill)
  // always lies inside.
  const auto time_range = [&](std::string_view key, double v, double shown, const residual_band& band) {
    if (has(band))
      w.pair(key, std::min(v * band.low, shown), std::max(v * band.high, shown));
    else
      w.field(key, nullptr);
  };
  // A rate's band is a time ratio: the rate's range is [rate / high, rate / low].
  const auto rate_range = [&](std::string_view key, double v, double shown) {
    if (has(eb.throughput))
      w.pair(key, std::min(v / eb.throughput.high, shown), std::max(v / eb.throughput.low, shown));
    else
      w.field(key, nullptr);
  };
  const auto lengths = [&](std::string_view key, const length_range& l) {
    w.key(key).begin_array().value(l.min).value(l.max).end_array();
  };
  const bool trace = s.arrivals == arrival_kind::trace;
  w.begin_object()
      .field("label", "ESTIMATED")
      .field("method", method)
      .field("model", q.model->name)
      .field("gpu", q.gpu->name)
      .field("precision", to_string(b.weight_precision))
      .field("gpus", disagg ? disaggregated->front().gpus : b.parallel.tensor_parallel * b.parallel.expert_parallel)
      .text_or_null("engine", e != nullptr ? std::string_view(e->id) : "")
      .field("engine_fitted", fit != nullptr)
      .field("engine_fit_rows", fit != nullptr ? fit->rows : 0);
  w.object("workload", [&] {
    w.field("arrivals", arrival_name(s.arrivals))
        .field("num_requests", trace ? static_cast<std::int64_t>(s.trace.size()) : s.num_requests);
    if (trace)
      w.field("input_tokens", nullptr).field("output_tokens", nullptr);
    else {
      lengths("input_tokens", s.input_tokens);
      lengths("output_tokens", s.output_tokens);
    }
    w.field("seed", s.seed)
        .field("warmup_requests", s.warmup_requests)
        .field("slo_ttft_s", s.slo_ttft_s)
        .field("slo_tpot_s", s.slo_tpot_s)
        .field("prefix_tokens", s.workload.prefix_tokens)
        .field("prompt_pool", s.workload.prompt_pool)
        .field("turns", s.workload.turns)
        .field("think_time_s", s.workload.think_time_s)
        .text_or_null("dataset", s.workload.dataset);
  });
  w.object("scheduler", [&] {
    w.field("max_num_seqs", s.max_num_seqs)
        .field("max_num_batched_tokens", s.max_num_batched_tokens)
        .field("chunked_prefill", s.chunked_prefill)
        .field("policy", policy_name(s.policy))
        .field("block_size", s.block_size)
        .field("prefix_caching", prefix_cache_name(s.prefix_cache));
    if (points.empty())
      w.field("kv_blocks", s.kv_blocks.value_or(0));
    else
      w.field("kv_blocks", points.front().kv_blocks);
    w.field("kv_blocks_given", s.kv_blocks.has_value())
        .field("gpu_memory_utilization", b.gpu_memory_utilization.value_or(0.9))
        .field("source", q.scheduler_source);
  });
  w.object("settings", [&] {
    w.field("compute_efficiency", b.compute_efficiency)
        .field("mem_efficiency", b.mem_efficiency)
        .field("compute_efficiency_origin", origin_name(b.compute_efficiency_origin))
        .field("mem_efficiency_origin", origin_name(b.mem_efficiency_origin))
        .field("tensor_parallel", b.parallel.tensor_parallel)
        .field("expert_parallel", b.parallel.expert_parallel)
        .field("attention_data_parallel", b.parallel.attention_data_parallel)
        .field("expert_imbalance", b.parallel.expert_imbalance)
        .text_or_null("kv_cache_precision",
                      b.kv_cache_precision ? std::string_view(to_string(*b.kv_cache_precision)) : "");
  });
  w.field("ranges_source", ranges_source);
  w.text_or_null("point_correction",
                 fixes.empty()
                     ? std::string()
                     : "corrected by engine " + e->id +
                           "'s fitted median residual (its p10-p90 band "
                           "excludes the simulator's figure): " +
                           fixes +
                           (idle_prefill > 0 ? " (TTFT never below the idle prefill, " +
                                                   detail::format_number(std::round(idle_prefill * 1e6) / 1e3) + " ms)"
                                             : std::string()) +
                           "; goodput and end-to-end latency are the simulator's");
  if (disagg) write_disaggregation_layout(w, disaggregated->front());
  const speculative_settings& sp = points.empty() ? s.speculative : points.front().speculative;
  if (sp.method == speculative_method::off)
    w.field("speculative", nullptr);
  else
    w.object("speculative", [&] {
      w.field("label", "ESTIMATED")
          .field("method", to_string(sp.method))
          .text_or_null("draft", sp.draft != nullptr ? std::string_view(sp.draft->name) : "")
          .field("speculative_tokens", sp.tokens);
      w.key("acceptance_rate").begin_array();
      for (const double a : sp.acceptance) w.value(a);
      w.end_array();
      w.field("expected_tokens_per_step", points.empty() ? 1.0 : points.front().expected_tokens_per_step);
    });
  if (q.harness == nullptr)
    w.field("harness", nullptr);
  else
    w.object("harness", [&] {
      w.field("id", q.harness->id)
          .field("name", q.harness->name)
          .field("itl", q.harness->itl == itl_convention::chunk_gaps ? "chunk_gaps" : "request_mean")
          .field("warmup_requests", q.harness->warmup_requests)
          .field("default_requests", q.harness->default_requests)
          .field("client_overhead_s", q.client_overhead_s)
          .field("client_overhead_label", "ESTIMATED")
          .field("source", q.harness->source);
    });
  w.array("points", [&] {
    for (std::size_t i = 0; i < points.size() && i < q.points.size(); ++i) {
      const simulation_result& model = points[i];
      const simulation_result r = shown_(model);
      const simulation_point& p = q.points[i];
      w.begin_object().field("concurrency", p.concurrency).field("request_rate", p.request_rate);
      w.field("requests", r.requests).field("measured_requests", r.measured_requests);
      if (q.harness == nullptr) {
        w.field("harness", nullptr);
      } else {
        const harness_metrics hm = apply_harness(*q.harness, r, q.client_overhead_s);
        w.object("harness", [&] {
          w.field("ttft_mean_s", hm.ttft_mean_s)
              .field("tpot_mean_s", hm.tpot_mean_s)
              .field("itl_mean_s", hm.itl_mean_s)
              .field("e2e_mean_s", hm.e2e_mean_s);
        });
      }
      w.field("tokens_per_decode_step", r.tokens_per_decode_step);
      // Saturation is a range, not a cliff: an open-loop point is rerun with every step faster and
      // slower (the engine's throughput band, at least 0.8x and 1.25x); where the two fall in
      // different regimes the TTFT range spans both.
      saturation_check sat;
      if (!disagg && s.arrivals == arrival_kind::poisson) {
        const double fast = std::min(0.8, has(eb.throughput) ? eb.throughput.low : 1.0);
        const double slow = std::max(1.25, has(eb.throughput) ? eb.throughput.high : 1.0);
        sat = saturation_of(*q.model, q.at(i), *q.gpu, model, std::max(fast, 0.11), std::min(slow, 9.9));
      }
      dist("ttft_s", r.ttft);
      if (sat.near_capacity) {
        const double lo = std::min(
            {r.ttft.mean, sat.fast.ttft.mean, has(eb.ttft_load) ? model.ttft.mean * eb.ttft_load.low : r.ttft.mean});
        const double hi = std::max(
            {r.ttft.mean, sat.slow.ttft.mean, has(eb.ttft_load) ? model.ttft.mean * eb.ttft_load.high : r.ttft.mean});
        w.pair("ttft_s_range", lo, hi);
      } else {
        time_range("ttft_s_range", model.ttft.mean, r.ttft.mean, eb.ttft_load);
      }
      if (!sat.checked) {
        w.field("saturation", nullptr);
      } else {
        w.object("saturation", [&] {
          const auto regime = [](bool keeps_up) { return keeps_up ? "keeps up" : "queue grows"; };
          w.key("step_time_scales").begin_array().value(sat.fast_scale).value(sat.slow_scale).end_array();
          w.field("fast", regime(sat.fast_keeps_up))
              .field("point", regime(sat.base_keeps_up))
              .field("slow", regime(sat.slow_keeps_up))
              .field("near_capacity", sat.near_capacity);
          w.key("ttft_mean_s").begin_array().value(sat.fast.ttft.mean).value(sat.slow.ttft.mean).end_array();
          w.key("e2e_mean_s").begin_array().value(sat.fast.e2e.mean).value(sat.slow.e2e.mean).end_array();
          w.field("note",
                  sat.near_capacity
                      ? "the arrival rate is within " + detail::format_number(std::round((sat.slow_scale - 1) * 100)) +
                            "% of step time of capacity: with steps x" + detail::format_number(sat.fast_scale) +
                            " the queue " + (sat.fast_keeps_up ? "stays bounded" : "grows") + ", with x" +
                            detail::format_number(sat.slow_scale) + " it " +
                            (sat.slow_keeps_up ? "stays bounded" : "grows") + ": the TTFT range spans both regimes"
                      : std::string("the regime holds with steps x") + detail::format_number(sat.fast_scale) +
                            " and x" + detail::format_number(sat.slow_scale));
        });
      }
      dist("tpot_s", r.tpot);
      time_range("tpot_s_range", model.tpot.mean, r.tpot.mean, eb.decode);
      dist("itl_s", r.itl);
      time_range("itl_s_range", model.itl.mean, r.itl.mean, eb.decode);
      dist("e2e_s", r.e2e);
      w.field("output_tokens_per_s", r.output_tokens_per_s);
      rate_range("output_tokens_per_s_range", model.output_tokens_per_s, r.output_tokens_per_s);
      w.field("total_tokens_per_s", r.total_tokens_per_s);
      rate_range("total_tokens_per_s_range", model.total_tokens_per_s, r.total_tokens_per_s);
      w.field("requests_per_s", r.requests_per_s);
      rate_range("requests_per_s_range", model.requests_per_s, r.requests_per_s);
      w.field("goodput_requests_per_s", r.goodput_requests_per_s)
          .field("goodput_requests", r.goodput_requests)
          .field("goodput_share", r.measured_requests > 0 ? static_cast<double>(r.goodput_requests) /
                                                                static_cast<double>(r.measured_requests)
                                                          : 0.0)
          .field("mean_kv_utilization", r.mean_kv_utilization)
          .field("peak_kv_utilization", r.peak_kv_utilization)
          .field("mean_running", r.mean_running)
          .field("mean_in_system", r.mean_in_system)
          .field("preemptions", r.preemptions)
          .field("prefix_cache", prefix_cache_name(r.prefix_cache))
          .field("cache_hit_rate", r.cache_hit_rate)
          .field("prompt_tokens", r.prompt_tokens)
          .field("cached_prompt_tokens", r.cached_prompt_tokens)
          .field("computed_prompt_tokens", r.computed_prompt_tokens)
          .field("evicted_blocks", r.evicted_blocks)
          .field("steps", r.steps)
          .field("weights_per_gpu", r.weights_per_gpu)
          .field("kv_bytes_per_token_per_gpu", r.kv_bytes_per_token_per_gpu)
          .field("communication_s_per_step", r.steps > 0 ? r.communication_s / static_cast<double>(r.steps) : 0.0)
          .field("alltoall_bytes_per_step", r.steps > 0 ? r.alltoall_bytes / static_cast<double>(r.steps) : 0.0)
          .field("makespan_s", r.makespan_s)
          .field("window_s", r.window_s);
      if (disagg && i < disaggregated->size()) write_disaggregation_point(w, (*disaggregated)[i]);
      w.array("timeline", [&] {
        for (const time_point& t : r.timeline)
          w.begin_object()
              .field("t_s", t.t_s)
              .field("running", t.running)
              .field("waiting", t.waiting)
              .field("kv_utilization", t.kv_utilization)
              .field("cache_hit_rate", t.cache_hit_rate)
              .end_object();
      });
      w.end_object();
    }
  });
  w.end_object();
  return w.take();
}

}  // namespace flopcast
