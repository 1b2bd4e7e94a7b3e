// The plan's JSON (plan.hpp): the request's configuration, then one object per listed layout.
#include "flopcast/io/plan_json.hpp"

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

std::string plan_to_json(const plan_request& q, const plan_result& r, int indent) {
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
  w.end_object();
  return w.take();
}

}  // namespace flopcast
