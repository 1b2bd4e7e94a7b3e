// The roofline: peaks and the format a matmul runs in, the bytes each pass moves, prefill
// and decode latency (decode summed exactly over the growing context), the training step
// (the phase roofline of training_phases.cpp), energy, cost, and ranges over the
// efficiency spread.
//
// Latency is max(FLOPs / (peak x compute_efficiency), bytes / (bandwidth x mem_efficiency))
// with dense peaks (never the 2:4-sparse headline).
#include <algorithm>
#include <cmath>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "training/training_parts.hpp"

namespace flopcast {

const char* to_string(bound b) noexcept { return b == bound::compute ? "compute" : "memory"; }

efficiency_spread compute_spread(efficiency_origin o) noexcept {
  return o == efficiency_origin::calibrated ? efficiency_spread{0.9, 1.1} : efficiency_spread{0.7, 1.2};
}
efficiency_spread memory_spread(efficiency_origin o) noexcept {
  return o == efficiency_origin::calibrated ? efficiency_spread{0.9, 1.1} : efficiency_spread{0.6875, 1.125};
}
const char* range_source() noexcept {
  return "efficiency spread seen in public measurements: compute (MFU) 0.7x-1.2x of the point (0.35-0.6 at the "
         "default 0.5: PaLM 46%, Megatron-LM 52%, Llama 3 405B 38-43%), memory bandwidth 0.69x-1.13x (0.55-0.9 at the "
         "default 0.8: Databricks MBU ~60% at batch 1, vLLM/TensorRT-LLM 80-90% at large batch); +-10% when calibrated";
}

}  // namespace flopcast

namespace flopcast::detail {

std::string engine_range_source(const std::string& engine, const std::string& used) {
  return "residual spread of engine " + engine +
         "'s rows in the validation table (p10-p90 of measured/predicted, data/engines/): " + used +
         "; other figures: " + range_source();
}

namespace {
// One lasting copy of each distinct text (a few per engine: which of its bands applied), so that a
// result can hold a view of it.
std::string_view interned(std::string text) {
  static std::mutex lock;
  static auto* texts = new std::unordered_map<std::string, std::unique_ptr<const std::string>>();  // never freed
  const std::lock_guard<std::mutex> hold(lock);
  auto& slot = (*texts)[text];
  if (!slot) slot = std::make_unique<const std::string>(std::move(text));
  return *slot;
}
}  // namespace

// Sum over c in [lo, hi] of max(f(c)/pf, g(c)/pg), exact: f and g are linear between
// breakpoints, the max of two lines changes side at most once.
double sum_step_times(const model_spec& m, const step_cost& f, double pf, const step_cost& g, double pg, double lo,
                      double hi) {
  if (hi < lo) return 0;
  std::array<double, max_layer_groups + 1> cuts{};
  std::size_t n_cuts = 0;
  for (const auto& grp : m.groups)
    if (const std::int64_t w = attention_window(m, grp); w > 0) {
      const double c = d(w) - 1.0;  // keys saturate from c = window - 1 on
      if (c > lo && c <= hi) cuts[n_cuts++] = c;
    }
  std::sort(cuts.begin(), cuts.begin() + static_cast<std::ptrdiff_t>(n_cuts));
  cuts[n_cuts++] = hi + 1;
  const auto series = [](double a, double slope, double x0, double x1) {  // sum_{x0..x1} (a + slope x)
    const double n = x1 - x0 + 1;
    return n <= 0 ? 0.0 : n * a + slope * (x0 + x1) * n / 2.0;
  };
  double total = 0, start = lo;
  for (std::size_t k = 0; k < n_cuts; ++k) {
    const double end = cuts[k] - 1;
    if (end < start) continue;
    // Lines through start and start+1 (exact within the segment).
    const double f0 = f.at(m, start) / pf, f1 = f.at(m, start + 1) / pf;
    const double g0 = g.at(m, start) / pg, g1 = g.at(m, start + 1) / pg;
    const double fs = f1 - f0, gs = g1 - g0, fa = f0 - fs * start, ga = g0 - gs * start;
    // Where does f - g change sign?
    double cross = end + 1;
    if (fs != gs) {
      const double x = (ga - fa) / (fs - gs);
      if (x > start && x < end + 1) cross = std::ceil(x);
    }
    const bool f_first = f0 >= g0;
    const double split = std::min(std::max(cross, start), end + 1);
    total += f_first ? series(fa, fs, start, split - 1) : series(ga, gs, start, split - 1);
    total += f_first ? series(ga, gs, split, end) : series(fa, fs, split, end);
    start = end + 1;
  }
  return total;
}

std::optional<double> unit_peak(const hardware_spec& gpu, compute_unit u) {
  switch (u) {
    case compute_unit::fp32:
      return gpu.peak(precision::fp32);
    case compute_unit::tf32:
      return gpu.peak(precision::tf32);
    case compute_unit::fp16:
      return gpu.peak(precision::fp16);
    case compute_unit::bf16:
      return gpu.peak(precision::bf16);
    case compute_unit::fp8:
      return gpu.peak(precision::fp8);
    case compute_unit::int8:
      return gpu.peak(precision::int8);
    case compute_unit::int4:
      return gpu.peak(precision::int4);
    case compute_unit::fp16_acc16:
      return gpu.peak_fp16_acc16;
    case compute_unit::fp6:
      return gpu.peak_fp6;
    case compute_unit::fp4:
      return gpu.peak_fp4;
  }
  return std::nullopt;
}

compute_unit compute_unit_for(precision p, const hardware_spec& gpu, bool& fell_back) {
  const format_info& f = format_of(p);
  for (std::size_t i = 0; i < f.path.size(); ++i)
    if (unit_peak(gpu, f.path[i])) {
      // llama.cpp's fp16-accumulate rate is an extra where a device lists it: fp16 is its plain path.
      fell_back = i > 0 && f.path[0] != compute_unit::fp16_acc16;
      return f.path[i];
    }
  throw error(error_code::invalid_argument, "/gpu/peak_flops",
              "GPU " + gpu.name + " lists no peak FLOP/s usable for " + std::string(to_string(p)) +
                  " (expected one of its fallbacks, at least fp32)");
}

band_factors band_factors_of(const model_spec& m, const settings& s) {
  band_factors f;
  if (s.compute_efficiency_origin != efficiency_origin::fitted && s.mem_efficiency_origin != efficiency_origin::fitted)
    return f;
  f.prefill = band_correction(s.bands.prefill);
  if (m.arch != architecture::encoder) f.decode = band_correction(s.bands.decode);
  return f;
}

double fixed_in_figures(const model_spec& m, const settings& s, double batch, bool decode) {
  const band_factors f = band_factors_of(m, s);
  return fixed_step_s(s.costs, layer_count(m), batch) * (decode ? f.decode : f.prefill);
}

weight_traffic weight_traffic_of(const model_spec& m, const estimate_result& r) {
  const memory_breakdown& mem = r.memory;
  const double mean = r.parameters.total > 0 ? mem.weights / d(r.parameters.total) : 0.0;
  const auto bytes_per_param = [&](weight_component c, double params) {
    return params > 0 ? mem.weights_by_component[static_cast<std::size_t>(c)] / params : mean;
  };
  weight_traffic t;
  t.vocab = d(m.vocab_size);
  t.embed_width = d(embed_dim(m));
  t.hidden = d(m.hidden_size);
  t.positions = d(m.learned_positions);
  t.type_vocab = d(m.token_type_vocab);
  t.tied_head = m.lm_head && m.tie_word_embeddings;
  t.embedding_bytes_per_param = bytes_per_param(weight_component::embedding, d(r.parameters.embedding));
  const double table = t.vocab * t.embed_width + (t.positions + t.type_vocab) * t.hidden;
  t.fixed_params = d(r.parameters.total) - table;
  t.fixed_bytes = mem.weights - table * t.embedding_bytes_per_param;
  double expert_part = 0;
  for (const auto& g : m.groups) {
    if (!g.moe || !g.mlp) continue;
    expert_part += d(g.count) * d(weights_of(m, g).mlp_total);
    t.experts = d(m.moe.num_experts);
    t.experts_per_token = d(m.moe.experts_per_token);
    t.expert_params += d(g.count) * d(weights_of(m, g).expert);
  }
  t.expert_bytes_per_param = bytes_per_param(weight_component::experts, expert_part);
  return t;
}

void fill_roofline(const model_spec& m, const settings& s, const hardware_spec& gpu, const training_core* train,
                   estimate_result& r, bool ranges, const weight_traffic* traffic_known) {
  const bool encoder_only = m.arch == architecture::encoder;
  const double B = d(s.batch_size), S = d(s.sequence_length);
  const double c0 = m.arch == architecture::encoder_decoder ? 1.0 : S;  // decode context: tokens already cached
  const precision wp = s.weight_precision;
  memory_breakdown& mem = r.memory;
  r.has_performance = true;
  performance& p = r.perf;
  mem.gpu_memory = gpu.memory_bytes;
  mem.usable_gpu_memory = detail::usable_memory(s, gpu);
  mem.fits_on_gpu = (s.training ? mem.train_total : mem.total) <= mem.usable_gpu_memory;
  bool fell_back = false;
  p.compute_precision = compute_unit_for(wp, gpu, fell_back);
  if (fell_back) r.notes |= note_compute_fallback;
  const compute_unit cu = p.compute_precision;
  const bool sixteen = cu == compute_unit::fp16 || cu == compute_unit::bf16 || cu == compute_unit::fp16_acc16;
  p.weight_only_path = sixteen && bits_per_weight(wp) < 16;  // stored narrower than it computes
  if (p.weight_only_path) r.notes |= note_weight_only_path;
  if (cu == compute_unit::fp8 || cu == compute_unit::fp6 || cu == compute_unit::fp4)
    r.notes |= note_native_low_precision;
  if (cu == compute_unit::fp16_acc16) r.notes |= note_fp16_accumulate;
  if (s.compute_efficiency_origin == efficiency_origin::calibrated ||
      s.mem_efficiency_origin == efficiency_origin::calibrated)
    r.notes |= note_calibrated;
  p.peak_flops_per_s = *unit_peak(gpu, p.compute_precision);
  // Dequantisation runs on the vector units: its time at the fp32 (non-tensor) rate.
  const double dequant_peak = unit_peak(gpu, compute_unit::fp32).value_or(p.peak_flops_per_s);
  p.memory_bandwidth_bytes_per_s = gpu.memory_bandwidth_bytes_per_s;

  // Weight bytes a pass reads (weight_traffic): the token-embedding table only where rows are
  // gathered, MoE experts only as far as tokens reach them, each part at its own bytes per
  // parameter (bf16 attention beside MXFP4 experts; a checkpoint's weight_bytes pro rata).
  const weight_traffic traffic = traffic_known != nullptr ? *traffic_known : weight_traffic_of(m, r);
  if (traffic.expert_params > 0) r.notes |= note_moe_expected_experts;
  struct read_amount {
    double params, bytes;
  };
  const auto weights_read = [&](double tokens) {
    read_amount a{0, 0};
    a.bytes = traffic.read(tokens, a.params);
    return a;
  };
  const auto weight_bytes_read = [&](double tokens) { return weights_read(tokens).bytes; };

  p.prefill_flops = r.prefill.parts.total;
  p.prefill_bytes = weight_bytes_read(B * S) + mem.kv_cache_prompt;
  if (p.weight_only_path) {
    p.dequant_flops_prefill = 2 * weights_read(B * S).params;
    p.dequant_flops_step = 2 * weights_read(B).params;
  }
  p.cost_per_hour_usd = s.cost_per_hour_usd.value_or(gpu.cost_per_hour_usd);
  const double watts = gpu.tdp_watts * s.power_utilization;

  // Decode step cost as a function of context: FLOPs and bytes are affine in the keys
  // each group attends to. Slopes come from the attention terms that scale with keys.
  step_cost fl, by, fl_sol, by_sol;
  double kv_timed_bytes = 0;
  if (!encoder_only) {
    const double index_flops_per_key = decode_indexer_flops_per_key(m);
    const double kvb = storage_bytes(r.kv_precision);
    const double index_bytes_per_key = d(m.attention.index_head_dim) * kvb;
    fl.base = r.decode_step.parts.total;
    // Weights, the new token's K/V write, and each recurrent state read and written once.
    by.base = weight_bytes_read(B) + B * mem.kv_cache_per_token + 2 * mem.recurrent_state;
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
      const layer_group& g = m.groups[i];
      if (g.encoder || !has_attention(g)) continue;
      const double per = d(g.count) * B;
      fl.per_key[i] = per * decode_flops_per_key(m, g);
      by.per_key[i] = per * (kv_elements_per_token(m, g) * kvb - index_bytes_per_key);
      fl.per_key_full[i] = per * index_flops_per_key;
      by.per_key_full[i] = per * index_bytes_per_key;
      // run_pass already counted c0's keys
      fl.base -= fl.per_key[i] * keys_at(c0, attention_window(m, g)) + fl.per_key_full[i] * keys_at(c0, 0);
    }
    // Each step reads keys_at(c) cached K/V tokens per layer (the new one included, as
    // attention kernels do) and writes the new token's K/V once (in by.base).
    p.decode_first_step_flops = fl.at(m, c0);
    p.decode_first_step_bytes = by.at(m, c0);
    by_sol = by;  // the speed of light reads the cache at the full bandwidth
    // Timing counts the cached K/V read at the engine's KV-read efficiency (step_costs).
    for (std::size_t i = 0; i < m.groups.size(); ++i) {
      by.per_key[i] /= s.costs.kv_read_efficiency;
      by.per_key_full[i] /= s.costs.kv_read_efficiency;
    }
    kv_timed_bytes = by.at(m, c0);
    // The step's dequantisation, as the matmul FLOPs that take as long at the compute peak.
    fl.base += p.dequant_flops_step * p.peak_flops_per_s / dequant_peak;
    fl_sol = fl;  // real work only: the expert-GEMM term below is an efficiency, not FLOPs
    // Dequantisation is elementwise work on the weights read, not a GEMM: it stays off the GEMM
    // curve (the steps below divide fl by the curve's factor at B tokens).
    fl.base -= p.dequant_flops_step * p.peak_flops_per_s / dequant_peak * (1.0 - gemm_factor(s.costs, B));
    // Expert GEMMs at their own token counts (step_costs' curve).
    fl.base += expert_gemm_extra_flops(s.costs, 2 * traffic.experts_per_token * traffic.expert_params * B, B,
                                       traffic.experts_per_token, traffic.experts);
    p.decode_steps = std::max<std::int64_t>(s.num_generated_tokens - 1, 0);
    p.decode_ceiling_tokens_per_second = B * gpu.memory_bandwidth_bytes_per_s / p.decode_first_step_bytes;
  }

  const double layers = layer_count(m);
  const double prefill_expert_extra =
      expert_gemm_extra_flops(s.costs, 2 * traffic.experts_per_token * traffic.expert_params * B * S, B * S,
                              traffic.experts_per_token, traffic.experts);
  // The training step's efficiency and attention peak (training_schedule.cpp).
  const double train_scale = train != nullptr ? training_efficiency_scale(m, s) : 1.0;
  const double attention_ratio = train != nullptr ? attention_peak_ratio(s, gpu) : 1.0;
  // Every time-derived figure at one pair of efficiencies.
  struct timing {
    double prefill_compute, prefill_memory, prefill, step_compute, step_memory, step, decode_total, per_token, tps,
        total, training, energy, cost;
  };
  const auto time_at = [&](double ce, double me) {
    timing t{};
    const double pc = p.peak_flops_per_s * ce, pm = gpu.memory_bandwidth_bytes_per_s * me;
    // The engine's GEMM curve at the step's tokens, and its fixed cost per step (step_costs).
    const double ce_pre = ce * gemm_factor(s.costs, B * S), ce_dec = ce * gemm_factor(s.costs, B);
    const double fixed = fixed_step_s(s.costs, layers, B);
    t.prefill_compute = (p.prefill_flops + prefill_expert_extra) / (p.peak_flops_per_s * ce_pre) +
                        p.dequant_flops_prefill / (dequant_peak * ce);
    t.prefill_memory = p.prefill_bytes / pm;
    t.prefill = std::max(t.prefill_compute, t.prefill_memory) + fixed;
    t.total = t.prefill;
    if (!encoder_only) {
      const double pc_dec = p.peak_flops_per_s * ce_dec;
      t.step_compute = p.decode_first_step_flops / pc_dec + p.dequant_flops_step / (dequant_peak * ce);
      t.step_memory = kv_timed_bytes / pm;
      t.step = std::max(t.step_compute, t.step_memory) + fixed;
      t.decode_total =
          sum_step_times(m, fl, pc_dec, by, pm, c0, c0 + d(p.decode_steps) - 1) + d(p.decode_steps) * fixed;
      t.per_token = p.decode_steps > 0 ? t.decode_total / d(p.decode_steps) : t.step;
      t.tps = B / t.per_token;
      if (s.num_generated_tokens > 0) t.total += t.decode_total;
    }
    // The phase roofline, at the training efficiency (training_schedule.cpp) when none was given.
    const double train_pc = pc * train_scale;
    t.training = train != nullptr ? training_step_time(train->phases, train_pc, pm, train_pc * attention_ratio) : 0.0;
    const double busy = s.training ? t.training : t.total;
    t.energy = busy * watts;
    t.cost = busy / 3600.0 * p.cost_per_hour_usd;
    return t;
  };

  const timing model = time_at(s.compute_efficiency, s.mem_efficiency);
  // A fitted engine whose prefill or decode band excludes the model's figure (band_biased): the
  // figures shown are the model's x the band's median; the ranges stay around the model's.
  const band_factors bands = band_factors_of(m, s);
  const double fix_prefill = bands.prefill, fix_decode = bands.decode;
  timing t = [&] {
    timing c = model;
    if (fix_prefill == 1.0 && fix_decode == 1.0) return c;
    c.prefill *= fix_prefill;
    c.step *= fix_decode;
    c.decode_total *= fix_decode;
    c.per_token *= fix_decode;
    c.tps /= fix_decode;
    c.total = c.prefill + (!encoder_only && s.num_generated_tokens > 0 ? c.decode_total : 0.0);
    if (!s.training && model.total > 0) {
      c.energy *= c.total / model.total;
      c.cost *= c.total / model.total;
    }
    return c;
  }();
  // The speed of light: every FLOP at the compute peak and every byte at the bandwidth, no fixed
  // cost. No engine's figure may be faster (a band's median correction or a calibration
  // could otherwise push it there); the envelope test (tests/cpp/test_envelope.cpp) holds every
  // engine between it and a stated multiple.
  const double sol_prefill = std::max(p.prefill_flops / p.peak_flops_per_s + p.dequant_flops_prefill / dequant_peak,
                                      p.prefill_bytes / gpu.memory_bandwidth_bytes_per_s);
  double sol_per_token = 0;
  if (!encoder_only) {
    sol_per_token =
        p.decode_steps > 0
            ? sum_step_times(m, fl_sol, p.peak_flops_per_s, by_sol, gpu.memory_bandwidth_bytes_per_s, c0,
                             c0 + d(p.decode_steps) - 1) /
                  d(p.decode_steps)
            : std::max(fl_sol.at(m, c0) / p.peak_flops_per_s, by_sol.at(m, c0) / gpu.memory_bandwidth_bytes_per_s);
  }
  p.speed_of_light_prefill_s = sol_prefill;
  p.speed_of_light_per_token_s = sol_per_token;
  if (t.prefill < sol_prefill || (!encoder_only && t.per_token < sol_per_token)) {
    r.notes |= note_speed_of_light;
    const double was = t.total;
    t.prefill = std::max(t.prefill, sol_prefill);
    if (!encoder_only && t.per_token < sol_per_token) {
      t.decode_total *= sol_per_token / t.per_token;
      t.step *= sol_per_token / t.per_token;
      t.per_token = sol_per_token;
      t.tps = B / t.per_token;
    }
    t.total = t.prefill + (!encoder_only && s.num_generated_tokens > 0 ? t.decode_total : 0.0);
    if (!s.training && was > 0) {
      t.energy *= t.total / was;
      t.cost *= t.total / was;
    }
  }
  p.prefill_compute_s = t.prefill_compute;
  p.prefill_memory_s = t.prefill_memory;
  p.prefill_latency_s = t.prefill;
  p.prefill_bound = t.prefill_compute >= t.prefill_memory ? bound::compute : bound::memory;
  p.energy_prefill_joules = t.prefill * watts;
  if (!encoder_only) {
    p.decode_first_step_s = t.step;
    p.decode_first_step_memory_s = t.step_memory;
    p.decode_bound = t.step_compute > t.step_memory ? bound::compute : bound::memory;
    p.decode_total_s = t.decode_total;
    p.decode_latency_per_token_s = t.per_token;
    p.decode_tokens_per_second = t.tps;
  }
  p.total_request_latency_s = t.total;
  p.training_step_s = t.training;
  p.energy_total_joules = t.energy;
  p.co2_grams = p.energy_total_joules / 3.6e6 * s.carbon_intensity_g_per_kwh;
  p.cost_usd = t.cost;

  if (!ranges) return;  // a sweep's row reads none of what follows
  // Ranges: the fast end at the high efficiencies, the slow end at the low ones.
  const efficiency_spread cs = compute_spread(s.compute_efficiency_origin), ms = memory_spread(s.mem_efficiency_origin);
  p.compute_efficiency_low = s.compute_efficiency * cs.low;
  p.compute_efficiency_high = std::min(1.0, s.compute_efficiency * cs.high);
  p.mem_efficiency_low = s.mem_efficiency * ms.low;
  p.mem_efficiency_high = std::min(1.0, s.mem_efficiency * ms.high);
  const timing fast = time_at(p.compute_efficiency_high, p.mem_efficiency_high);
  const timing slow = time_at(p.compute_efficiency_low, p.mem_efficiency_low);
  p.prefill_latency_range = {fast.prefill, slow.prefill};
  p.decode_latency_range = {fast.per_token, slow.per_token};
  p.decode_tokens_per_second_range = {slow.tps, fast.tps};
  p.total_request_latency_range = {fast.total, slow.total};
  p.training_step_range = {fast.training, slow.training};
  p.energy_total_range = {fast.energy, slow.energy};
  p.cost_range = {fast.cost, slow.cost};
  // An engine fitted to the validation table: a figure whose category has residual rows takes
  // their spread (measured / predicted, p10-p90) instead of the efficiency spread. A
  // calibration (origin calibrated) keeps its own +-10%.
  p.range_source = range_source();
  const engine_bands& eb = s.bands;
  const bool fitted =
      s.compute_efficiency_origin == efficiency_origin::fitted || s.mem_efficiency_origin == efficiency_origin::fitted;
  if (fitted && (eb.prefill.rows > 0 || eb.decode.rows > 0)) {
    // Around the model's own figure (t may be corrected by a band's median: band_corrected).
    const auto band = [](double v, const residual_band& b) { return figure_range{v * b.low, v * b.high}; };
    std::string used;
    if (eb.prefill.rows > 0) {
      p.prefill_latency_range = band(model.prefill, eb.prefill);
      used = "prefill " + std::to_string(eb.prefill.rows) + " rows";
    }
    if (eb.decode.rows > 0 && !encoder_only) {
      p.decode_latency_range = band(model.per_token, eb.decode);
      p.decode_tokens_per_second_range = {B / p.decode_latency_range.high, B / p.decode_latency_range.low};
      used += (used.empty() ? "" : ", ") + std::string("decode ") + std::to_string(eb.decode.rows) + " rows";
    }
    const double decode_part = !encoder_only && s.num_generated_tokens > 0 ? t.decode_total : 0.0;
    const double pre_lo = p.prefill_latency_range.low / t.prefill, pre_hi = p.prefill_latency_range.high / t.prefill;
    const double dec_lo = t.per_token > 0 ? p.decode_latency_range.low / t.per_token : 1.0;
    const double dec_hi = t.per_token > 0 ? p.decode_latency_range.high / t.per_token : 1.0;
    p.total_request_latency_range = {t.prefill * pre_lo + decode_part * dec_lo,
                                     t.prefill * pre_hi + decode_part * dec_hi};
    const double lo = t.total > 0 ? p.total_request_latency_range.low / t.total : 1.0;
    const double hi = t.total > 0 ? p.total_request_latency_range.high / t.total : 1.0;
    p.energy_total_range = {t.energy * lo, t.energy * hi};
    p.cost_range = {t.cost * lo, t.cost * hi};
    std::string fixes;
    const auto fix = [&](const char* what, double k) {
      if (k != 1.0) fixes += (fixes.empty() ? "" : ", ") + std::string(what) + " x" + format_number(k);
    };
    fix("prefill", fix_prefill);
    fix("decode", fix_decode);
    if (!fixes.empty()) used += "; points corrected by the engine's fitted median residual (" + fixes + ")";
    p.range_source = interned(engine_range_source(s.engine, used));
  }
  // Neither end of a range is faster than the speed of light.
  p.prefill_latency_range.low = std::max(p.prefill_latency_range.low, sol_prefill);
  p.prefill_latency_range.high = std::max(p.prefill_latency_range.high, p.prefill_latency_range.low);
  if (!encoder_only && sol_per_token > 0) {
    p.decode_latency_range.low = std::max(p.decode_latency_range.low, sol_per_token);
    p.decode_latency_range.high = std::max(p.decode_latency_range.high, p.decode_latency_range.low);
    p.decode_tokens_per_second_range.high = std::min(p.decode_tokens_per_second_range.high, B / sol_per_token);
    p.decode_tokens_per_second_range.low =
        std::min(p.decode_tokens_per_second_range.low, p.decode_tokens_per_second_range.high);
  }
}

}  // namespace flopcast::detail

namespace flopcast {

double weight_traffic::read(double tokens, double& params) const noexcept {
  const double rows = (tied_head ? vocab : std::min(tokens, vocab)) * embed_width +
                      (std::min(tokens, positions) + std::min(tokens, type_vocab)) * hidden;
  params = fixed_params + rows;
  double bytes = fixed_bytes + rows * embedding_bytes_per_param;
  if (expert_params > 0) {
    const double touched = experts * (1.0 - std::pow(1.0 - experts_per_token / experts, tokens));
    const double untouched = (experts - touched) * expert_params;
    params -= untouched;
    bytes -= untouched * expert_bytes_per_param;
  }
  return bytes;
}

}  // namespace flopcast
