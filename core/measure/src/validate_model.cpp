// flopcast validate-model: counted (reference decoder) against estimated (estimate()), per
// operation. See validate_model.hpp for the conventions and tolerances.
#include "flopcast/measure/validate_model.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <set>
#include <thread>

#include "flopcast/base/error.hpp"
#include "flopcast/estimate/operators.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/measure/machine.hpp"
#include "flopcast/measure/thread_pool.hpp"
#include "json_util.hpp"

namespace flopcast::measure {

namespace {

// MoE weight bytes of a pass over several tokens differ by convention: the estimate expects
// the distinct experts of uniform routing, E (1 - (1 - k/E)^T) per layer; the decoder reads the
// experts its router reached, and routing is not uniform (the MLP sees tokens already mixed by
// attention, so their routes correlate: 30 of the 40 expected experts for Qwen1.5-MoE's first
// layer over 16 tokens). Shown, not checked; one token per pass (batch 1 decode) reaches
// exactly k experts per layer and is checked exactly.

[[noreturn]] void bad(const std::string& pointer, const std::string& message) {
  throw error(error_code::invalid_argument, pointer, message);
}

void check_options(const validate_options& o) {
  const auto at_least = [](std::int64_t v, std::int64_t lo, std::int64_t hi, const char* ptr) {
    if (v < lo || v > hi)
      bad(ptr, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], but got " +
                   std::to_string(v));
  };
  at_least(o.prompt, 1, 4096, "/prompt_tokens");
  at_least(o.decode_steps, 0, 256, "/decode_steps");
  at_least(o.batch, 1, 64, "/batch_size");
  at_least(o.window, 0, 1 << 20, "/window");
}

settings settings_for(const validate_options& o, std::int64_t context) {
  settings st;
  st.batch_size = o.batch;
  st.sequence_length = context;
  st.num_generated_tokens = o.decode_steps + 1;
  st.weight_precision = precision::fp32;
  st.kv_cache_precision = precision::fp32;
  st.causal = true;
  return st;
}

validate_row row(std::string pass, std::string op, std::string unit, double counted, double estimated,
                 double tolerance = 0, bool checked = true, std::string note = {}) {
  validate_row r{std::move(pass), std::move(op), std::move(unit), counted, estimated, tolerance,
                 checked,         true,          std::move(note)};
  if (checked) {
    const double diff = std::fabs(counted - estimated);
    r.ok = tolerance == 0 ? diff == 0 : diff <= tolerance * std::max(std::fabs(estimated), std::fabs(counted));
  }
  return r;
}

void flop_rows(std::vector<validate_row>& out, const std::string& pass, const op_counts& c, const pass_flops& p) {
  const auto add = [&](const char* op, double counted, double estimated) {
    out.push_back(row(pass, op, "FLOP", counted, estimated));
  };
  add("qkv_projection", c.qkv_projection, p.attention.qkv_projection);
  add("rotary", c.rotary, p.attention.rotary);
  add("attention_scores", c.attention_scores, p.attention.attention_scores);
  add("softmax", c.softmax, p.attention.softmax);
  add("attention_values", c.attention_values, p.attention.attention_values);
  add("output_projection", c.output_projection, p.attention.output_projection);
  add("mlp", c.mlp, p.parts.mlp);
  add("norm", c.norm, p.parts.norm);
  add("output_head", c.output_head, p.parts.output_head);
  add("embedding", c.embedding, p.parts.embedding);
  add("total", c.flops(), p.parts.total);
}

bool has_moe(const model_spec& m) {
  return std::any_of(m.groups.begin(), m.groups.end(), [](const layer_group& g) { return g.moe; });
}

}  // namespace

double validate_row::diff_pct() const noexcept {
  if (estimated == 0) return counted == 0 ? 0.0 : INFINITY;
  return 100.0 * (counted - estimated) / estimated;
}

bool validate_result::ok() const noexcept {
  return std::all_of(rows.begin(), rows.end(), [](const validate_row& r) { return r.ok; });
}

model_spec scaled_model(const model_spec& m, const validate_options& o, std::vector<std::string>* scaling) {
  if (o.layers < 1) bad("/layers", "expected an integer >= 1, but got " + std::to_string(o.layers));
  const std::int64_t n = std::min(o.layers, m.num_layers);
  model_spec s = first_layers(m, n);
  if (scaling && n < m.num_layers)
    scaling->push_back(
        fmt::format("layers: the first {} of {} (widths, heads, experts and vocabulary unchanged)", n, m.num_layers));
  if (o.window > 0) {
    std::int64_t cut = 0;
    for (auto& g : s.groups)
      if (g.window > o.window) {
        cut = g.window;
        g.window = o.window;
      }
    if (scaling && cut > 0)
      scaling->push_back(fmt::format("sliding window: {} cut to {} (so that the prompt crosses it)", cut, o.window));
  }
  return s;
}

counted_run count_run(const model_spec& scaled, const validate_options& o) {
  check_options(o);
  const int threads = o.threads > 0 ? o.threads : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  thread_pool pool(threads);
  decoder_options d;
  d.batch = o.batch;
  d.max_tokens = o.prompt + o.decode_steps;
  d.max_prefill_tokens = o.prompt;
  d.seed = o.seed;
  d.moe_mla = true;
  decoder dec(scaled, d, pool);
  const std::int64_t V = scaled.vocab_size;
  std::vector<std::int32_t> tokens(static_cast<std::size_t>(o.batch * o.prompt));
  for (std::size_t i = 0; i < tokens.size(); ++i)
    tokens[i] = static_cast<std::int32_t>((i * 7919 + 13) % static_cast<std::size_t>(V));
  std::vector<float> logits(static_cast<std::size_t>(o.batch * V));
  counted_run run;
  dec.prefill(tokens.data(), o.prompt, logits.data());
  run.prefill = dec.counts();
  run.prefill_experts = dec.experts_built();
  for (std::int64_t k = 0; k < o.decode_steps; ++k) {
    dec.reset_counts();
    const auto next = argmax_rows(logits.data(), o.batch, V);
    dec.decode(next.data(), logits.data());
    run.steps.push_back(dec.counts());
  }
  run.weight_bytes = dec.weight_bytes();
  run.kv_bytes = dec.kv_bytes();
  run.experts_built = dec.experts_built();
  return run;
}

std::vector<validate_row> compare_counts(const model_spec& m, const validate_options& o, const counted_run& run) {
  check_options(o);
  const hardware_spec& gpu = find_gpu("A100");  // any GPU: only the FLOP and byte counts are read
  const double B = static_cast<double>(o.batch);
  const bool moe = has_moe(m);
  const double gathered = m.tie_word_embeddings ? 0.0 : 1.0;  // the estimator counts a tied table once (head)
  std::int64_t shortest_window = 0;
  for (const auto& g : m.groups)
    if (g.window > 0) shortest_window = shortest_window == 0 ? g.window : std::min(shortest_window, g.window);
  // Weights the estimator reads for a pass over B tokens: the prefill bytes of one token per
  // sequence less what that prefill writes to the cache.
  const estimate_result one = estimate(m, settings_for(o, 1), &gpu);
  const double weights_b = one.perf.prefill_bytes - one.memory.kv_cache_prompt;

  std::vector<validate_row> out;
  const estimate_result r = estimate(m, settings_for(o, o.prompt), &gpu);
  flop_rows(out, "prefill", run.prefill, r.prefill);
  std::int64_t experts = 0;
  for (const auto& g : m.groups)
    if (g.moe) experts += g.count * m.moe.num_experts;
  const std::string moe_note =
      fmt::format("by convention: routed to {} of {} experts; the estimate expects uniform routing's distinct experts",
                  run.prefill_experts, experts);
  const bool multi = moe && B * static_cast<double>(o.prompt) > 1;
  out.push_back(row("prefill", "weight_bytes", "B", run.prefill.weight_bytes + gathered * run.prefill.embedding_bytes,
                    r.perf.prefill_bytes - r.memory.kv_cache_prompt, 0, !multi, multi ? moe_note : ""));
  const bool capped = shortest_window > 0 && o.prompt > shortest_window;
  out.push_back(
      row("prefill", "kv_write_bytes", "B", run.prefill.kv_write_bytes, r.memory.kv_cache_prompt, 0, !capped,
          capped ? "the estimate caps a windowed layer's cache at the window; the decoder keeps every position" : ""));
  out.push_back(row("prefill", "kv_read_bytes", "B", run.prefill.kv_read_bytes, 0, 0, false,
                    "the estimate counts no KV reads in prefill"));

  for (std::size_t k = 0; k < run.steps.size(); ++k) {
    const op_counts& c = run.steps[k];
    const std::string pass = "decode " + std::to_string(k + 1);
    const std::int64_t context = o.prompt + static_cast<std::int64_t>(k);  // positions cached before the step
    const estimate_result e = estimate(m, settings_for(o, context), &gpu);
    flop_rows(out, pass, c, e.decode_step);
    const double kv_write = B * e.memory.kv_cache_per_token;
    const bool multi_step = moe && B > 1;
    out.push_back(row(pass, "weight_bytes", "B", c.weight_bytes + gathered * c.embedding_bytes, weights_b, 0,
                      !multi_step, multi_step ? moe_note : ""));
    out.push_back(
        row(pass, "kv_read_bytes", "B", c.kv_read_bytes, e.perf.decode_first_step_bytes - weights_b - kv_write));
    out.push_back(row(pass, "kv_write_bytes", "B", c.kv_write_bytes, kv_write));
    out.push_back(row(pass, "bytes", "B",
                      c.weight_bytes + gathered * c.embedding_bytes + c.kv_read_bytes + c.kv_write_bytes,
                      e.perf.decode_first_step_bytes, 0, !multi_step, multi_step ? moe_note : ""));
  }
  return out;
}

validate_result validate_model(const model_spec& m, const validate_options& o) {
  const auto t0 = std::chrono::steady_clock::now();
  check_options(o);
  validate_result res;
  const model_spec s = scaled_model(m, o, &res.scaling);
  const decoder_shape shape = decoder_shape_of(s, true);  // refuses what the decoder lacks, before allocating
  res.model_type = m.model_type;
  {  // Before allocating: fp32 weights of the truncated model (every expert: an upper bound).
    const double need = estimate(s, settings_for(o, o.prompt), nullptr).memory.weights;
    const double available = available_memory_bytes();
    if (available > 0 && need > 0.8 * available)
      bad("/layers", fmt::format("the first {} layers need up to {:.1f} GB of fp32 weights but {:.1f} GB of memory is "
                                 "available: use fewer --layers",
                                 s.num_layers, need / 1e9, available / 1e9));
  }
  if (shape.mla)
    res.kinds.push_back("MLA");
  else if (shape.kv_heads == 1)
    res.kinds.push_back("MQA");
  else if (shape.kv_heads < shape.heads)
    res.kinds.push_back("GQA");
  else
    res.kinds.push_back("MHA");
  if (std::any_of(shape.window.begin(), shape.window.end(), [](std::int64_t w) { return w > 0; }))
    res.kinds.push_back("sliding-window");
  if (std::find(shape.moe.begin(), shape.moe.end(), true) != shape.moe.end()) res.kinds.push_back("MoE");
  if (std::find(shape.moe.begin(), shape.moe.end(), false) != shape.moe.end()) res.kinds.push_back("dense MLP");
  res.layers = s.num_layers;
  res.model_layers = m.num_layers;
  res.prompt = o.prompt;
  res.decode_steps = o.decode_steps;
  res.batch = o.batch;
  const counted_run run = count_run(s, o);
  res.rows = compare_counts(s, o, run);
  res.weight_bytes = run.weight_bytes;
  res.kv_bytes = run.kv_bytes;
  res.experts_built = run.experts_built;
  for (bool e : shape.moe) res.experts_total += e ? shape.experts : 0;
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return res;
}

validate_result compare_onnx(const model_spec& m, const profile::graph& g, const profile::result& p,
                             const validate_options& o, bool head) {
  check_options(o);
  if (p.nodes.size() != g.nodes.size())
    throw error(error_code::invalid_argument, "--onnx", "the profile does not belong to this graph");
  validate_result res;
  const model_spec s = scaled_model(m, o, &res.scaling);
  res.model_type = m.model_type;
  res.kinds = {"ONNX export"};
  res.layers = s.num_layers;
  res.model_layers = m.num_layers;
  res.prompt = o.prompt;
  res.batch = o.batch;

  // The export's side: tensors computed from initializers alone are weights (a Transpose, Cast or
  // DequantizeLinear of a weight is still a weight).
  std::set<std::string> constant;
  for (const auto& t : g.initializers) constant.insert(t.name);
  for (const auto& n : g.nodes) {
    const bool all = std::all_of(n.inputs.begin(), n.inputs.end(),
                                 [&](const std::string& in) { return in.empty() || constant.count(in) > 0; });
    if (all)
      for (const auto& out : n.outputs) constant.insert(out);
  }
  double weight_mm = 0, attention_mm = 0, other = 0, not_costed = 0;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const profile::node_cost& c = p.nodes[i];
    if (c.status != "ok") ++not_costed;
    if (c.c.macs <= 0) {
      other += c.c.flops;
      continue;
    }
    const auto& in = g.nodes[i].inputs;
    const bool weights = std::any_of(in.begin(), in.end(), [&](const std::string& t) { return constant.count(t) > 0; });
    (weights ? weight_mm : attention_mm) += 2 * c.c.macs;
    other += c.c.flops - 2 * c.c.macs;
  }
  if (not_costed > 0)
    throw error(error_code::invalid_argument, "--onnx",
                fmt::format("{} node(s) of the export could not be costed (unknown ops or shapes): `flopcast profile "
                            "FILE` lists them",
                            not_costed));

  // The estimate's side: the operator rows of the same prefill.
  const hardware_spec& gpu = find_gpu("A100");  // any GPU: only the FLOP counts are read
  settings st = settings_for(o, o.prompt);
  st.causal = false;
  const estimate_result r = estimate(s, st, &gpu);
  const operator_tables t = operator_table(s, st, r);
  double est_weight = 0, est_attention = 0, est_other = 0;
  for (const operator_row& row : t.prefill.rows) {
    const bool layer = row.group >= 0 || (head && row.name == "lm_head");
    if (!layer) continue;
    if (row.name == "attention_scores" || row.name == "attention_values")
      est_attention += row.flops;
    else if (row.weight_bytes > 0 && row.name != "norms")  // reads weights: a weight matmul
      est_weight += row.flops;
    else
      est_other += row.flops;
  }
  const bool biased = s.attention.qkv_bias || s.attention.o_bias || s.mlp.bias || s.moe.expert_bias;
  const std::string bias_note = biased ? "the estimate's rows include bias adds (1 FLOP per output element)" : "";
  const std::string pass = "prefill";  // of the export
  res.rows.push_back(row(pass, "weight_matmuls", "FLOP", weight_mm, est_weight, 0, !biased, bias_note));
  res.rows.push_back(row(pass, "attention_matmuls", "FLOP", attention_mm, est_attention));
  res.rows.push_back(
      row(pass, "matmul_total", "FLOP", weight_mm + attention_mm, est_weight + est_attention, 0, !biased, bias_note));
  res.rows.push_back(row(pass, "other_flops", "FLOP", other, est_other, 0, false,
                         "elementwise, softmax and norms: written op by op in the export, fused in the estimate"));
  if (!head)
    res.scaling.push_back("the export is compared as layers only (no embedding or lm_head): --onnx-head adds lm_head");
  return res;
}

std::string to_text(const validate_result& r) {
  std::string out =
      fmt::format("validate-model: {} ({}), {} of {} layers, batch {}, prompt {}, {} decode steps\n", r.model_type,
                  fmt::join(r.kinds, ", "), r.layers, r.model_layers, r.batch, r.prompt, r.decode_steps);
  for (const auto& s : r.scaling) out += "  scaled down: " + s + "\n";
  const bool onnx = !r.kinds.empty() && r.kinds.front() == "ONNX export";  // compare_onnx: no decoder ran
  if (!onnx)
    out +=
        fmt::format("  decoder memory: weights {:.3f} GB, KV cache {:.1f} kB", r.weight_bytes / 1e9, r.kv_bytes / 1e3);
  if (r.experts_total > 0)
    out += fmt::format(" ({} of {} routed experts instantiated: only those routed to are built)", r.experts_built,
                       r.experts_total);
  if (!onnx) out += fmt::format("; ran in {:.2f} s\n", r.seconds);
  out += "\n";
  out += fmt::format("{:<9} {:<18} {:>20} {:>20} {:>10}  {}\n", "pass", "op", "counted", "estimated", "diff %", "ok");
  for (const auto& w : r.rows) {
    const std::string ok = !w.checked ? "n/a" : w.ok ? "ok" : "FAIL";
    std::string extra;
    if (w.tolerance > 0) extra += fmt::format(" (tol {:g}%)", 100 * w.tolerance);
    if (!w.note.empty()) extra += " (" + w.note + ")";
    const double diff = w.diff_pct();  // not finite when the estimate is 0
    out += fmt::format("{:<9} {:<18} {:>20.0f} {:>20.0f} {:>10}  {}{}\n", w.pass, w.op, w.counted, w.estimated,
                       std::isfinite(diff) ? fmt::format("{:.4f}", diff) : "-", ok, extra);
  }
  const auto failed = std::count_if(r.rows.begin(), r.rows.end(), [](const validate_row& w) { return !w.ok; });
  out += failed == 0 ? "\nevery checked operation agrees\n"
                     : fmt::format("\n{} operation(s) disagree\n", static_cast<long long>(failed));
  return out;
}

std::string to_json(const validate_result& r) {
  using json_util::json;
  using json_util::number;
  json j;
  j["model_type"] = r.model_type;
  j["kinds"] = r.kinds;
  j["scaling"] = r.scaling;
  j["layers"] = r.layers;
  j["model_layers"] = r.model_layers;
  j["batch_size"] = r.batch;
  j["prompt_tokens"] = r.prompt;
  j["decode_steps"] = r.decode_steps;
  j["weight_bytes"] = number(r.weight_bytes);
  j["kv_cache_bytes"] = number(r.kv_bytes);
  j["experts_built"] = r.experts_built;
  j["experts_total"] = r.experts_total;
  j["seconds"] = number(r.seconds);
  j["ok"] = r.ok();
  json rows = json::array();
  for (const auto& w : r.rows) {
    json x;
    x["pass"] = w.pass;
    x["op"] = w.op;
    x["unit"] = w.unit;
    x["counted"] = number(w.counted);
    x["estimated"] = number(w.estimated);
    x["diff_pct"] = number(w.diff_pct());
    x["tolerance"] = w.tolerance;
    x["checked"] = w.checked;
    x["ok"] = w.ok;
    if (!w.note.empty()) x["note"] = w.note;
    rows.push_back(std::move(x));
  }
  j["rows"] = std::move(rows);
  return j.dump(2);
}

}  // namespace flopcast::measure
