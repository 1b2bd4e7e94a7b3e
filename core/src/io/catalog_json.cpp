// The catalog documents: the bundled models, accelerators and engine profiles (list-models,
// list-gpus, list-engines and the module's listModels/listGpus/listEngines), and a calibration store.
#include "base/json_out.hpp"
#include "estimate/estimate_parts.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/serving/engine.hpp"
#include "io/result_parts.hpp"

namespace flopcast {

using detail::arch_name;
using detail::json_out;

std::string calibration_to_json(const std::vector<calibration_entry>& entries, int indent) {
  json_out w(indent);
  w.begin_object().field("version", 1);
  w.array("entries", [&] {
    for (const auto& e : entries)
      w.begin_object()
          .field("model", e.model)
          .field("gpu", e.gpu)
          .field("precision", e.precision)
          .field("compute_efficiency", e.compute_efficiency)
          .field("mem_efficiency", e.mem_efficiency)
          .field("source", e.source)
          .end_object();
  });
  w.end_object();
  return w.take();
}

std::string models_to_json(int indent) { return models_to_json(model_filter{}, indent); }

std::string models_to_json(const model_filter& filter, int indent) {
  json_out w(indent);
  w.begin_array();
  for (const auto& r : model_records()) {
    if (!filter.matches(r)) continue;
    const parameter_breakdown p = count_parameters(r.spec);
    w.begin_object().field("id", r.id);
    w.strings("aliases", r.aliases);
    w.field("family", r.family)
        .field("model_type", r.spec.model_type)
        .field("architecture", arch_name(r.spec.arch))
        .field("parameters", p.total)
        .field("active_parameters", p.active)
        .field_if("published_parameters", r.published_parameters > 0, r.published_parameters)
        .field("published_significant_digits", r.published_significant_digits)
        .field("published_scope", to_string(r.published_scope))
        .field("source", r.source)
        .text_or_null("added", r.added)
        .end_object();
  }
  w.end_array();
  return w.take();
}

namespace {
void write_hardware(json_out& w, const hardware_spec& g) {
  w.begin_object().field("name", g.name);
  w.strings("aliases", g.aliases);
  w.field("vendor", g.vendor)
      .field("kind", to_string(g.kind))
      .field("memory_bytes", g.memory_bytes)
      .field("usable_memory_fraction", g.usable_memory_fraction)
      .field("memory_bandwidth_bytes_per_s", g.memory_bandwidth_bytes_per_s);
  w.object("peak_flops", [&] {
    for (precision p : all_precisions)
      if (g.peak(p)) w.field(to_string(p), *g.peak(p));
    if (g.peak_fp6) w.field("fp6", *g.peak_fp6);
    if (g.peak_fp4) w.field("fp4", *g.peak_fp4);
    if (g.peak_fp16_acc16) w.field("fp16_acc16", *g.peak_fp16_acc16);
  });
  w.field("tdp_watts", g.tdp_watts);
  w.object("interconnect", [&] {
    w.field("name", g.interconnect_name).field("bandwidth_bytes_per_s", g.interconnect_bandwidth_bytes_per_s);
    if (!g.interconnect_generation.empty()) w.field("generation", g.interconnect_generation);
    if (g.interconnect_domain_size > 0) w.field("domain_size", g.interconnect_domain_size);
  });
  w.field("cost_per_hour_usd", g.cost_per_hour_usd);
  // Read back by read_hardware, so a --gpu-file written from list-gpus keeps its engine support.
  if (g.compute_capability > 0) w.field("compute_capability", g.compute_capability);
  if (!g.gfx.empty()) w.field("gfx", g.gfx);
  w.text_or_null("added", g.added);
  w.end_object();
}

void write_bands(json_out& w, const engine_bands& b) {
  const auto one = [&](std::string_view key, const residual_band& r) {
    w.object(key, [&] { w.field("low", r.low).field("median", r.median).field("high", r.high).field("rows", r.rows); });
  };
  one("prefill", b.prefill);
  one("decode", b.decode);
  one("throughput", b.throughput);
  one("ttft_load", b.ttft_load);
}
}  // namespace

std::string hardware_to_json(const hardware_spec& g, int indent) {
  json_out w(indent);
  write_hardware(w, g);
  return w.take();
}

std::string engines_to_json(int indent, const hardware_spec* gpu) {
  json_out w(indent);
  w.begin_array();
  for (const engine_profile& e : engine_records()) {
    if (gpu != nullptr && !e.runs_on_device(*gpu)) continue;
    std::int64_t rows = 0;
    for (const engine_family_fit& f : e.families)
      if (f.family == "all") rows = f.rows;
    w.begin_object().field("id", e.id).field("name", e.name);
    w.strings("aliases", e.aliases);
    w.field("version", e.version)
        .field("batching", to_string(e.batching))
        .field("simulated", e.batching == engine_batching::continuous)
        .field("fitted", e.efficiency_fitted)
        .field("fit_rows", rows)
        .field("basis", e.basis(gpu));
    w.array("runs_on", [&] {
      for (const engine_device_class& d : e.runs_on) {
        w.begin_object().field("vendor", d.vendor);
        w.array("kinds", [&] {
          for (device_kind k : d.kinds) w.value(to_string(k));
        });
        w.end_object();
      }
    });
    w.field("runs_on_text", e.runs_on_text()).field("runs_on_source", e.runs_on_source.url);
    w.strings("fitted_to", e.fitted_to).strings("held_out", e.held_out);
    w.object("costs", [&] {
      w.field("per_step_s", e.costs.per_step_s)
          .field("per_layer_s", e.costs.per_layer_s)
          .field("gemm_half_tokens", e.costs.gemm_half_tokens)
          .field("kv_read_efficiency", e.costs.kv_read_efficiency);
    });
    w.object("families", [&] {
      for (const engine_family_fit& f : e.families)
        w.object(f.family, [&] {
          w.field("compute_efficiency", f.compute_efficiency)
              .field("mem_efficiency", f.mem_efficiency)
              .field("rows", f.rows);
        });
    });
    w.object("bands", [&] { write_bands(w, e.bands); });
    w.end_object();
  }
  w.end_array();
  return w.take();
}

std::string gpus_to_json(int indent) {
  json_out w(indent);
  w.begin_array();
  for (const auto& g : gpu_records()) write_hardware(w, g);
  w.end_array();
  return w.take();
}

}  // namespace flopcast
