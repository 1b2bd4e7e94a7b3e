// Printers of a measure_result: JSON (schema in measure.hpp), CSV (the suite's rows) and
// text tables in the manner of llama-bench.
#include <fmt/format.h>

#include <algorithm>

#include "flopcast/measure/measure.hpp"
#include "json_util.hpp"
#include "text.hpp"

namespace flopcast::measure {

namespace {

using json_util::figure_json;
using json_util::json;
using json_util::number;

json stat_json(double mean, double stddev, std::int64_t samples) {
  json j = figure_json(figure::measured(mean));
  j["stddev"] = number(stddev);
  j["samples"] = samples;
  return j;
}

json opt_number(const std::optional<double>& v) { return v ? number(*v) : json(nullptr); }

json counts_json(const op_counts& c) {
  json j;
  j["qkv_projection"] = c.qkv_projection;
  j["rotary"] = c.rotary;
  j["attention_scores"] = c.attention_scores;
  j["softmax"] = c.softmax;
  j["attention_values"] = c.attention_values;
  j["output_projection"] = c.output_projection;
  j["mlp"] = c.mlp;
  j["norm"] = c.norm;
  j["output_head"] = c.output_head;
  j["total"] = c.flops();
  j["label"] = std::string(to_string(source_label::measured));  // counted by the kernels that ran
  j["weight_bytes"] = c.weight_bytes;
  j["embedding_bytes"] = c.embedding_bytes;
  j["kv_read_bytes"] = c.kv_read_bytes;
  j["kv_write_bytes"] = c.kv_write_bytes;
  return j;
}

json estimated_counts_json(const pass_flops& p, double bytes) {
  json j;
  j["qkv_projection"] = p.attention.qkv_projection;
  j["rotary"] = p.attention.rotary;
  j["attention_scores"] = p.attention.attention_scores;
  j["softmax"] = p.attention.softmax;
  j["attention_values"] = p.attention.attention_values;
  j["output_projection"] = p.attention.output_projection;
  j["mlp"] = p.parts.mlp;
  j["norm"] = p.parts.norm;
  j["output_head"] = p.parts.output_head;
  j["total"] = p.parts.total;
  j["bytes"] = bytes;
  j["label"] = std::string(to_string(source_label::estimated));
  return j;
}

json comparison_json(const comparison_row& c) {
  json j;
  j["metric"] = c.metric;
  j["unit"] = c.unit;
  j["measured"] = figure_json(c.measured);
  j["estimated"] = figure_json(c.estimated);
  j["error_pct"] = opt_number(c.error_pct);
  j["calibrated"] = figure_json(c.calibrated);
  j["calibrated_error_pct"] = opt_number(c.calibrated_error_pct);
  return j;
}

std::string precision_name(weight_format f) { return std::string(to_string(f)); }

}  // namespace

std::string to_json(const measure_result& r) {
  json j;
  j["flopcast_version"] = r.version;
  j["command"] = "measure";
  j["model"] = {{"name", r.model_name},
                {"model_type", r.model_type},
                {"layers", r.layers},
                {"layers_total", r.layers_total},
                {"parameters", r.parameters}};
  const std::int64_t steps = r.options.generated_tokens - 1;
  j["run"] = {{"batch_size", r.options.batch_size},
              {"prompt_tokens", r.options.prompt_tokens},
              {"generated_tokens", r.options.generated_tokens},
              {"decode_steps", steps},
              {"threads", r.options.threads},
              {"repetitions", r.options.repetitions},
              {"weight_precision", precision_name(r.options.weights)},
              {"kv_cache_precision", std::string(to_string(r.options.kv_cache))},
              {"kernels", r.machine.isa}};

  const machine_peaks& m = r.machine;
  const auto meas = [](double v, const char* note = "") {
    return figure_json(v > 0 ? figure::measured(v, note) : figure::unavailable("not measured with these kernels"));
  };
  json machine;
  machine["name"] = r.hardware.name;
  machine["cpu"] = m.cpu_model;
  machine["kernels"] = m.isa;
  machine["threads"] = m.threads;
  machine["memory_total_bytes"] = meas(m.memory_total_bytes, "sysconf");
  machine["memory_available_bytes"] = meas(m.memory_available_bytes, "/proc/meminfo MemAvailable");
  machine["llc_bytes"] = m.llc_bytes > 0 ? figure_json(figure::measured(m.llc_bytes, "sysfs"))
                                         : figure_json(figure::unavailable("unknown"));
  machine["stream_bytes_per_s"] = {{"copy", meas(m.stream.copy)}, {"scale", meas(m.stream.scale)},
                                   {"add", meas(m.stream.add)},   {"triad", meas(m.stream.triad)},
                                   {"read", meas(m.stream.read)}, {"array_bytes", m.stream.array_bytes}};
  machine["bandwidth_bytes_per_s"] =
      meas(m.bandwidth_bytes_per_s(), "best of the STREAM-style kernels; the estimate's bandwidth");
  machine["gemm_fp32_flops_per_s"] = meas(m.gemm_fp32_flops_per_s, "the estimate's fp32 peak");
  machine["gemm_size"] = m.gemm_size;
  machine["fma_fp32_flops_per_s"] = meas(m.fma_fp32_flops_per_s, "register-only loop");
  machine["fma_fp64_flops_per_s"] = meas(m.fma_fp64_flops_per_s, "register-only loop");
  machine["int8_dot_ops_per_s"] = meas(m.int8_dot_ops_per_s, "register-only loop, 2 ops per multiply-add");
  machine["tdp_watts"] = figure_json(figure::estimated(r.hardware.tdp_watts, "placeholder, not measured"));
  machine["energy_counters"] = {{"available", m.rapl}, {"note", m.rapl_note}};
  machine["elapsed_s"] = m.elapsed_s;
  j["machine"] = machine;

  const auto headline = [&](const char* metric, const latency_stats& st) {
    const comparison_row* c = r.find(metric);
    json h;
    h["measured"] = st.samples > 0 ? stat_json(st.mean_s, st.stddev_s, st.samples)
                                   : figure_json(figure::unavailable("one generated token: no decode step"));
    h["estimated"] = c ? figure_json(c->estimated) : json(nullptr);
    h["error_pct"] = c ? opt_number(c->error_pct) : json(nullptr);
    h["calibrated"] = c ? figure_json(c->calibrated) : json(nullptr);
    h["calibrated_error_pct"] = c ? opt_number(c->calibrated_error_pct) : json(nullptr);
    return h;
  };
  j["ttft"] = headline("ttft_s", r.ttft);
  j["ttft"]["samples_s"] = r.ttft_samples_s;
  j["tpot"] = headline("tpot_s", r.tpot);
  if (r.tpot.samples > 0) {
    j["tpot"]["p50_s"] = figure_json(figure::measured(r.tpot.p50_s));
    j["tpot"]["p90_s"] = figure_json(figure::measured(r.tpot.p90_s));
    j["tpot"]["p95_s"] = figure_json(figure::measured(r.tpot.p95_s));
    j["tpot"]["p99_s"] = figure_json(figure::measured(r.tpot.p99_s));
  }

  json comparison = json::array();
  for (const auto& c : r.comparison) comparison.push_back(comparison_json(c));
  j["comparison"] = comparison;

  const auto counted = [](double v) { return figure_json(figure::measured(v, "counted by the kernels")); };
  json prefill;
  prefill["ttft_s"] = stat_json(r.ttft.mean_s, r.ttft.stddev_s, r.ttft.samples);
  prefill["tokens_per_s"] = figure_json(r.prefill_tokens_per_s);
  prefill["flops"] = counted(r.prefill_counts.flops());
  prefill["bytes"] = counted(r.prefill_counts.bytes());
  prefill["flops_per_s"] = figure_json(r.prefill_flops_per_s);
  prefill["bandwidth_bytes_per_s"] = figure_json(r.prefill_bandwidth_bytes_per_s);
  prefill["energy_j"] = figure_json(r.prefill_energy_j);
  json decode;
  const bool has_decode = r.tpot.samples > 0;
  const figure none = figure::unavailable("one generated token: no decode step");
  decode["tpot_s"] = has_decode ? stat_json(r.tpot.mean_s, r.tpot.stddev_s, r.tpot.samples) : figure_json(none);
  decode["p50_s"] = figure_json(has_decode ? figure::measured(r.tpot.p50_s) : none);
  decode["p90_s"] = figure_json(has_decode ? figure::measured(r.tpot.p90_s) : none);
  decode["p95_s"] = figure_json(has_decode ? figure::measured(r.tpot.p95_s) : none);
  decode["p99_s"] = figure_json(has_decode ? figure::measured(r.tpot.p99_s) : none);
  decode["tokens_per_s"] = figure_json(r.decode_tokens_per_s);
  decode["flops"] = counted(r.decode_counts.flops());
  decode["bytes"] = counted(r.decode_counts.bytes());
  decode["flops_per_s"] = figure_json(r.decode_flops_per_s);
  decode["bandwidth_bytes_per_s"] = figure_json(r.decode_bandwidth_bytes_per_s);
  decode["weight_bandwidth_bytes_per_s"] = figure_json(r.decode_weight_bandwidth_bytes_per_s);
  decode["energy_j"] = figure_json(r.decode_energy_j);
  decode["samples_s"] = r.decode_samples_s;
  j["phases"] = {{"prefill", prefill}, {"decode", decode}};

  j["counts"] = {
      {"prefill",
       {{"counted", counts_json(r.prefill_counts)},
        {"estimated", estimated_counts_json(r.estimate.prefill, r.estimate.perf.prefill_bytes)}}},
      {"decode_first_step",
       {{"counted", counts_json(r.decode_first_step_counts)},
        {"estimated", estimated_counts_json(r.estimate.decode_step, r.estimate.perf.decode_first_step_bytes)}}}};

  json kv;
  kv["format"] = std::string(to_string(r.options.kv_cache));
  double per_token = 0;
  for (const auto& l : r.kv.layers)
    if (l.peak_tokens > 0) per_token += l.peak_bytes / static_cast<double>(l.peak_tokens);
  kv["bytes_per_token"] =
      figure_json(figure::measured(per_token, "cache bytes per position, all layers, one sequence"));
  kv["growth_bytes_per_token"] = figure_json(r.kv_growth_bytes_per_token);
  kv["estimated_bytes_per_token"] = figure_json(figure::estimated(r.estimate.memory.kv_cache_per_token));
  kv["compression_ratio_vs_fp16"] = r.kv.compression_ratio();
  json layers = json::array();
  for (const auto& l : r.kv.layers)
    layers.push_back({{"layer", l.layer},
                      {"label", std::string(to_string(source_label::measured))},
                      {"append_calls", l.append_calls},
                      {"attend_calls", l.attend_calls},
                      {"append_s_mean", l.append_s_mean()},
                      {"attend_s_mean", l.attend_s_mean()},
                      {"tokens_written", l.tokens_written},
                      {"peak_bytes", l.peak_bytes},
                      {"compression_ratio", l.compression_ratio()}});
  kv["layers"] = layers;
  j["kv_cache"] = kv;

  j["calibration"] = {{"compute_efficiency", r.calibration.compute_efficiency},
                      {"mem_efficiency", r.calibration.mem_efficiency},
                      {"compute_basis", r.calibration.compute_basis},
                      {"mem_basis", r.calibration.mem_basis},
                      {"clamped", r.calibration.clamped},
                      {"in_sample", true},
                      {"label", std::string(to_string(source_label::measured))}};

  json tasks = json::array();
  for (const auto& t : r.suite.tasks) tasks.push_back({{"name", t.name}, {"wall_s", t.wall_s}});
  j["tasks"] = tasks;
  json metrics = json::array();
  for (const auto& mtr : r.suite.metrics) metrics.push_back(json_util::metric_json(mtr));
  j["metrics"] = metrics;
  j["elapsed_s"] = r.elapsed_s;
  return j.dump(2);
}

std::string to_csv(const measure_result& r) { return metrics_to_csv(r.suite.metrics); }

namespace {

std::string fig_text(const figure& f, std::string (*fmt_value)(double)) {
  if (!f.available()) return "unavailable";
  return fmt_value(*f.value);
}
std::string time_text(double v) { return text::duration(v); }
std::string rate_tokens(double v) { return fmt::format("{:.1f} tok/s", v); }
std::string flops_text(double v) { return text::si(v, "FLOP/s"); }
std::string bw_text(double v) { return text::si(v, "B/s"); }
std::string bytes_text(double v) { return text::bytes(v); }
std::string joules(double v) { return text::si(v, "J"); }
std::string err_text(const std::optional<double>& e) { return e ? fmt::format("{:+.1f}%", *e) : "-"; }

}  // namespace

std::string to_text(const measure_result& r) {
  std::string out;
  const machine_peaks& m = r.machine;
  const auto& o = r.options;
  out += fmt::format("flopcast {} measure: {} ({}), {} of {} layers, {} parameters\n", r.version, r.model_name,
                     r.model_type, r.layers, r.layers_total, r.parameters);
  out += fmt::format(
      "run: batch {}, prompt {} tokens, {} generated ({} decode steps), {} weights, {} KV cache, {} threads, "
      "{} repetitions, kernels {}\n",
      o.batch_size, o.prompt_tokens, o.generated_tokens, o.generated_tokens - 1, to_string(o.weights),
      to_string(o.kv_cache), o.threads, o.repetitions, m.isa);
  out +=
      fmt::format("machine {} [MEASURED]: {}, {} RAM ({} available), LLC {}\n", r.hardware.name, m.cpu_model,
                  text::bytes(m.memory_total_bytes), text::bytes(m.memory_available_bytes), text::bytes(m.llc_bytes));
  out += fmt::format("  STREAM copy {}, scale {}, add {}, triad {}, read-only {}; bandwidth used: {}\n",
                     bw_text(m.stream.copy), bw_text(m.stream.scale), bw_text(m.stream.add), bw_text(m.stream.triad),
                     bw_text(m.stream.read), bw_text(m.bandwidth_bytes_per_s()));
  out += fmt::format("  GEMM fp32 {} ({}^3); register peaks: FMA fp32 {}, fp64 {}, int8 dot {}\n",
                     flops_text(m.gemm_fp32_flops_per_s), m.gemm_size, flops_text(m.fma_fp32_flops_per_s),
                     m.fma_fp64_flops_per_s > 0 ? flops_text(m.fma_fp64_flops_per_s) : "-",
                     m.int8_dot_ops_per_s > 0 ? text::si(m.int8_dot_ops_per_s, "op/s") : "-");
  out += fmt::format("  energy counters: {}; TDP for the estimate: {:.0f} W placeholder (ESTIMATED)\n\n",
                     m.rapl ? "RAPL" : "unavailable (" + m.rapl_note + ")", r.hardware.tdp_watts);

  // The comparison table.
  struct line {
    std::string metric, measured, estimated, error, calibrated, cal_error;
  };
  std::vector<line> lines;
  const auto row = [&](const char* label, const char* metric, std::string (*f)(double),
                       std::string measured_override = {}) {
    const comparison_row* c = r.find(metric);
    if (!c) return;
    line l{label,
           measured_override.empty() ? fig_text(c->measured, f) : measured_override,
           fig_text(c->estimated, f),
           err_text(c->error_pct),
           fig_text(c->calibrated, f),
           err_text(c->calibrated_error_pct)};
    lines.push_back(l);
  };
  const bool has_decode = r.tpot.samples > 0;
  row("TTFT", "ttft_s", time_text,
      fmt::format("{} ± {}", text::duration(r.ttft.mean_s), text::duration(r.ttft.stddev_s)));
  row("TPOT (mean)", "tpot_s", time_text,
      has_decode ? fmt::format("{} ± {}", text::duration(r.tpot.mean_s), text::duration(r.tpot.stddev_s))
                 : std::string());
  if (has_decode)
    lines.push_back({"TPOT p50/p90/p99",
                     fmt::format("{:.2f}/{:.2f}/{:.2f} ms", r.tpot.p50_s * 1e3, r.tpot.p90_s * 1e3, r.tpot.p99_s * 1e3),
                     "-", "-", "-", "-"});
  row("total request", "total_request_s", time_text);
  row("prefill tokens/s", "prefill_tokens_per_s", rate_tokens);
  row("decode tokens/s", "decode_tokens_per_s", rate_tokens);
  row("prefill FLOP/s", "prefill_flops_per_s", flops_text);
  lines.push_back({"prefill bandwidth", fig_text(r.prefill_bandwidth_bytes_per_s, bw_text), "-", "-", "-", "-"});
  lines.push_back({"decode FLOP/s", fig_text(r.decode_flops_per_s, flops_text), "-", "-", "-", "-"});
  row("decode bandwidth", "decode_bandwidth_bytes_per_s", bw_text);
  lines.push_back(
      {"decode weight reads", fig_text(r.decode_weight_bandwidth_bytes_per_s, bw_text), "-", "-", "-", "-"});
  row("KV growth / token", "kv_growth_bytes_per_token", bytes_text);
  row("prefill FLOPs", "prefill_flops", [](double v) { return text::si(v, "FLOP"); });
  row("decode step FLOPs", "decode_first_step_flops", [](double v) { return text::si(v, "FLOP"); });
  row("decode step bytes", "decode_first_step_bytes", bytes_text);
  row("energy", "energy_j", joules);

  std::size_t w[6] = {6, 8, 15, 5, 21, 5};
  for (const auto& l : lines) {
    w[0] = std::max(w[0], l.metric.size());
    w[1] = std::max(w[1], l.measured.size());
    w[2] = std::max(w[2], l.estimated.size());
    w[3] = std::max(w[3], l.error.size());
    w[4] = std::max(w[4], l.calibrated.size());
    w[5] = std::max(w[5], l.cal_error.size());
  }
  w[1] = std::min<std::size_t>(w[1], 40);
  out += fmt::format("| {:<{}} | {:>{}} | {:>{}} | {:>{}} | {:>{}} | {:>{}} |\n", "metric", w[0], "measured", w[1],
                     "estimate (peak)", w[2], "error", w[3], "estimate (calibrated)", w[4], "error", w[5]);
  out += fmt::format("| {:-<{}} | {:->{}}: | {:->{}}: | {:->{}}: | {:->{}}: | {:->{}}: |\n", "", w[0], "", w[1] - 1, "",
                     w[2] - 1, "", w[3] - 1, "", w[4] - 1, "", w[5] - 1);
  for (const auto& l : lines)
    out += fmt::format("| {:<{}} | {:>{}} | {:>{}} | {:>{}} | {:>{}} | {:>{}} |\n", l.metric, w[0], l.measured, w[1],
                       l.estimated, w[2], l.error, w[3], l.calibrated, w[4], l.cal_error, w[5]);
  out += fmt::format(
      "\nmeasured: MEASURED on this machine (mean ± stddev over {} runs, {} decode steps); estimates: "
      "ESTIMATED by the roofline on the measured peaks; error = (estimate - measured) / measured\n",
      r.ttft.samples, r.tpot.samples);
  out +=
      fmt::format("calibration [MEASURED, in-sample]: compute_efficiency {:.3f} ({}), mem_efficiency {:.3f} ({}){}\n",
                  r.calibration.compute_efficiency, r.calibration.compute_basis, r.calibration.mem_efficiency,
                  r.calibration.mem_basis, r.calibration.clamped ? "; a ratio above 1 was clamped" : "");
  if (!r.prefill_energy_j.available())
    out += fmt::format("energy: measured unavailable ({}); the estimate uses a placeholder TDP\n",
                       r.prefill_energy_j.note);
  out += "\nKV cache (" + std::string(to_string(o.kv_cache)) + "), every run:\n";
  out += format_kv_table(r.kv);
  return out;
}

}  // namespace flopcast::measure
