// The step-time model of the serving simulator: one engine iteration's roofline time from the
// tokens it schedules. Linear layers run once over all the step's tokens, attention per
// sequence over its own context, the weights are read once per step (MoE: the expected
// distinct experts the step's tokens reach), recurrent state is read and written per
// sequence. Coefficients come from the core's own functions, so a step of B decode sequences
// at context c is estimate()'s decode step at batch B, context c, and a step that is one whole
// prefill is estimate()'s prefill (roofline.cpp, parallel.cpp).
#include <algorithm>
#include <cmath>
#include <string>

#include "base/detail.hpp"
#include "estimate/estimate_parts.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/serving/simulator.hpp"

namespace flopcast {
namespace {

using detail::d;

[[noreturn]] void bad(const std::string& field, const std::string& message) {
  throw error(error_code::invalid_argument, field, message);
}

// (query, key) pairs of the first x positions of a causal prefill: flops.cpp's prefix sums, so a
// chunk's pairs are a difference.
double causal_prefix(double x, std::int64_t window) { return detail::causal_pairs(x, window); }
double chunked_prefix(double x, std::int64_t chunk) { return detail::chunked_pairs(x, chunk); }
double cached(std::int64_t window, double tokens) { return window > 0 ? std::min(tokens, d(window)) : tokens; }

using detail::allreduces_per_layer;

}  // namespace

step_model::step_model(const model_spec& m, const settings& s_in, const hardware_spec& gpu) {
  if (m.arch != architecture::decoder)
    bad("/model",
        "the serving simulator runs decoder-only models (encoder and encoder-decoder models are not "
        "simulated)");
  const parallel_layout& l = s_in.parallel;
  if (l.pipeline_parallel != 1)
    bad("/parallelism/pipeline_parallel",
        "the serving simulator models one pipeline stage: expected 1, but got " + std::to_string(l.pipeline_parallel));
  if (l.data_parallel != 1)
    bad("/parallelism/data_parallel",
        "the serving simulator models one replica (simulate one and multiply): "
        "expected 1, but got " +
            std::to_string(l.data_parallel));
  settings s = s_in;
  s.training = false;
  s.batch_size = 1;
  s.sequence_length = 1;
  s.num_generated_tokens = 2;
  const estimate_result r = estimate(m, s, &gpu);  // validates s
  const performance& p = r.perf;
  causal_ = s.causal;

  // Peaks (roofline.cpp): the matmul unit, dequantisation at the fp32 rate.
  peak_c_ = p.peak_flops_per_s * s.compute_efficiency;
  peak_dequant_ = detail::unit_peak(gpu, compute_unit::fp32).value_or(p.peak_flops_per_s) * s.compute_efficiency;
  bw_m_ = gpu.memory_bandwidth_bytes_per_s * s.mem_efficiency;
  weight_only_ = p.weight_only_path;

  // Per-group attention coefficients.
  const double kvb = storage_bytes(r.kv_precision);
  index_flops_per_key_ = detail::decode_indexer_flops_per_key(m);
  index_bytes_per_key_ = d(m.attention.index_head_dim) * kvb;
  // Prefill pairs: run_pass is linear in tokens and (non-causal) pairs = n^2 per layer, so the
  // second difference over n = 1, 2, 3 is twice the FLOPs per pair (self + indexer).
  const detail::pass_kind pre = detail::pass_kind::prefill;
  const pass_flops p1 = detail::run_pass(m, pre, 1, 1, 0, false);
  const pass_flops p2 = detail::run_pass(m, pre, 1, 2, 0, false);
  const pass_flops p3 = detail::run_pass(m, pre, 1, 3, 0, false);
  const pass_flops d0 = detail::run_pass(m, detail::pass_kind::decode, 1, 1, 0, false);
  double pair_flops_all = 0;       // all layers, per pair
  double decode_keys_flops_0 = 0;  // decode attention at context 0 (one key per layer)
  for (std::size_t i = 0; i < m.groups.size(); ++i) {
    const layer_group& g = m.groups[i];
    layers_ += g.count;
    if (g.encoder || !detail::has_attention(g)) continue;
    group_coef& c = groups_[n_groups_++];
    // a group's attention may have its own KV layout (layer_group::attention)
    const double fpk = detail::decode_flops_per_key(m, g);
    const double kv_per_token_layer = detail::kv_elements_per_token(m, g) * kvb;
    const double kv_bytes_per_key = kv_per_token_layer - index_bytes_per_key_;
    c.window = detail::attention_window(m, g);
    c.chunked = g.window == 0 && g.chunk > 0;
    c.chunk = g.chunk;
    c.cache_window = g.window > 0 ? g.window : g.chunk;
    c.count = d(g.count);
    c.decode_flops_per_key = fpk;
    c.decode_bytes_per_key = kv_bytes_per_key;
    const double a1 = p1.per_layer[i].attention, a2 = p2.per_layer[i].attention, a3 = p3.per_layer[i].attention;
    const double per_pair = (a3 - 2 * a2 + a1) / 2.0;
    c.prefill_flops_per_pair = per_pair - index_flops_per_key_;
    c.kv_bytes_per_token = kv_per_token_layer;
    pair_flops_all += c.count * per_pair;
    decode_keys_flops_0 +=
        c.count * (fpk * detail::keys_at(0, c.window) + index_flops_per_key_ * detail::keys_at(0, 0));
  }
  decode_linear_flops_ = d0.parts.total - decode_keys_flops_0;
  prefill_linear_flops_ = p2.parts.total - p1.parts.total - 3 * pair_flops_all;
  head_flops_ = p1.parts.total - prefill_linear_flops_ - pair_flops_all;

  kv_write_decode_ = r.memory.kv_cache_per_token;
  state_bytes_ = r.memory.recurrent_state;

  // Weight traffic: the estimator's own (roofline.cpp).
  const memory_breakdown& mem = r.memory;
  traffic_ = detail::weight_traffic_of(m, r);
  hidden_ = d(m.hidden_size);

  // Tensor parallelism (parallel.cpp): compute and traffic divided by tp, ring all-reduces of
  // the step's activations added.
  tp_ = d(l.tensor_parallel);
  if (l.tensor_parallel > 1) {
    tp_bw_ = r.parallel.interconnect_bandwidth_bytes_per_s;
    tp_lat_ = l.link_latency_s;
    for (const auto& g : m.groups) allreduces_ += d(g.count) * allreduces_per_layer(m, g);
    allreduce_msg_per_token_ = hidden_ * detail::activation_bytes(s.weight_precision);
  }
  weights_gpu_ = r.parallel.weights_per_gpu;
  const double shard = mem.kv_cache > 0 ? r.parallel.kv_cache_per_gpu / mem.kv_cache : 1.0 / tp_;
  kv_token_gpu_ = kv_write_decode_ * shard;
  state_seq_gpu_ = state_bytes_ * shard;

  costs_ = s.costs;
  if (l.expert_parallel > 1 || l.attention_data_parallel > 1)
    init_expert_parallel(m, s, r.parallel.interconnect_bandwidth_bytes_per_s);
}

double step_model::weight_bytes_read(double tokens, double& params) const noexcept {
  return traffic_.read(tokens, params);
}

void step_model::add_decode(batch& b, std::int64_t context) const noexcept {
  const double c = d(context);
  double flops = decode_linear_flops_, bytes = kv_write_decode_ + 2 * state_bytes_, kv = 0;
  const double all_keys = c + 1.0;
  for (std::size_t i = 0; i < n_groups_; ++i) {
    const group_coef& g = groups_[i];
    const double keys = g.window > 0 ? std::min(all_keys, d(g.window)) : all_keys;
    flops += g.count * (g.decode_flops_per_key * keys + index_flops_per_key_ * all_keys);
    kv += g.count * (g.decode_bytes_per_key * keys + index_bytes_per_key_ * all_keys);
  }
  b.flops += flops;
  b.bytes += bytes;
  b.kv_read_bytes += kv;
  b.tokens += 1;
  b.sequences += 1;
}

void step_model::add_prefill(batch& b, std::int64_t context, std::int64_t tokens, bool last) const noexcept {
  const double c = d(context), n = d(tokens), e = c + n;
  double flops = prefill_linear_flops_ * n + (last ? head_flops_ : 0.0);
  // First chunk: the state is written once (estimate()'s prefill); later chunks read and write it.
  double bytes = (context == 0 ? 1.0 : 2.0) * state_bytes_;
  const double full = causal_ ? causal_prefix(e, 0) - causal_prefix(c, 0) : n * e;
  for (std::size_t i = 0; i < n_groups_; ++i) {
    const group_coef& g = groups_[i];
    double self = n * e;
    if (causal_)
      self = g.chunked ? chunked_prefix(e, g.chunk) - chunked_prefix(c, g.chunk)
                       : causal_prefix(e, g.window) - causal_prefix(c, g.window);
    flops += g.count * (g.prefill_flops_per_pair * self + index_flops_per_key_ * full);
    // The chunk's K/V written, the cached context's read.
    const double read = cached(g.cache_window, c), written = cached(g.cache_window, e) - read;
    bytes += g.count * g.kv_bytes_per_token * (written + read);
  }
  b.flops += flops;
  b.bytes += bytes;
  b.tokens += tokens;
  b.sequences += 1;
}

step_time step_model::time(const batch& b) const noexcept {
  step_time t;
  if (b.tokens == 0) return t;
  if (ep_path_) return time_expert_parallel(b);
  double params = 0;
  const double T = d(b.tokens);
  t.flops = b.flops;
  const double weights = weight_bytes_read(T, params);
  t.bytes = (b.bytes + b.kv_read_bytes + weights) / tp_;
  const double dequant = weight_only_ ? 2 * params : 0.0;
  const double expert_extra =
      detail::expert_gemm_extra_flops(costs_, 2 * traffic_.experts_per_token * traffic_.expert_params * T, T,
                                      traffic_.experts_per_token, traffic_.experts);
  // Dequantisation is elementwise work on the weights read: off the GEMM curve.
  t.compute_s = ((b.flops + expert_extra) / (peak_c_ * detail::gemm_factor(costs_, T)) + dequant / peak_dequant_) / tp_;
  t.memory_s = (b.bytes + weights + b.kv_read_bytes / costs_.kv_read_efficiency) / tp_ / bw_m_;
  if (tp_ > 1)
    t.communication_s = allreduces_ * detail::ring_allreduce_s(T * allreduce_msg_per_token_,
                                                               static_cast<std::int64_t>(tp_), tp_bw_, tp_lat_);
  t.fixed_s = detail::fixed_step_s(costs_, d(layers_), d(b.sequences));
  t.total_s = std::max(t.compute_s, t.memory_s) + t.communication_s + t.fixed_s;
  return t;
}

double step_model::sequence_kv_bytes(std::int64_t tokens) const noexcept {
  double bytes = state_bytes_;
  for (std::size_t i = 0; i < n_groups_; ++i)
    bytes += groups_[i].count * groups_[i].kv_bytes_per_token * cached(groups_[i].cache_window, d(tokens));
  return bytes;
}

step_time step_model::decode_step(std::int64_t batch_size, std::int64_t context) const noexcept {
  batch one;
  add_decode(one, context);
  batch b;
  b.flops = one.flops * d(batch_size);
  b.bytes = one.bytes * d(batch_size);
  b.kv_read_bytes = one.kv_read_bytes * d(batch_size);
  b.tokens = batch_size;
  b.sequences = batch_size;
  return time(b);
}

step_time step_model::prefill(std::int64_t tokens) const noexcept {
  batch b;
  add_prefill(b, 0, tokens, true);
  return time(b);
}

}  // namespace flopcast
