// Expert parallelism and attention data parallelism in the step model (README "Expert and
// attention-data parallelism").
//
// Layout: the tensor_parallel x expert_parallel GPUs of a replica. The routed experts are spread
// over the ep ranks (num_experts / ep each), every expert sharded over the tp GPUs of its rank;
// the attention, dense and shared parts, embeddings and head are held once per group of tp GPUs
// (sharded by tp), and attention_data_parallel of those groups each run their own batch (a
// divisor of ep: with fewer, ep / adp groups share one batch). A step here is one attention
// rank's; the ranks run in lock-step with equal batches, so the MoE layers see adp x the rank's
// tokens, routed uniformly over the E experts (top-k each), and the busiest EP rank receives
// expert_imbalance x the mean. Per step, per rank:
// - expert FLOPs: 2 x expert params x (adp x T x k / ep x imbalance) token-expert pairs;
// - expert weights read: the rank's experts that at least one of those tokens reaches,
//   (E / ep) x (1 - (1 - k/E)^(adp x T x imbalance)), as weight_traffic::read does for all E;
// - all-to-all: dispatch and combine per MoE layer, each T x k x hidden x activation bytes x
//   (ep - 1) / ep (the rank's own tokens' copies that leave it: one per routed expert, bf16 as
//   parallel.cpp's ep_alltoall), at the layout's bandwidth (NVLink domain, or the scale-out
//   network beyond it: parallel.cpp) plus (ep - 1) link latencies each; the busiest rank's
//   receive volume (imbalance x the mean) sets the time. Not overlapped with compute.
#include <algorithm>
#include <cmath>

#include "base/detail.hpp"
#include "estimate/estimate_parts.hpp"
#include "flopcast/serving/simulator.hpp"

namespace flopcast {

using detail::d;

void step_model::init_expert_parallel(const model_spec& m, const settings& s, double bandwidth) {
  const parallel_layout& l = s.parallel;
  ep_path_ = true;
  ep_ = d(l.expert_parallel);
  adp_ = d(l.attention_data_parallel);
  imbalance_ = l.expert_imbalance;
  ep_experts_ = traffic_.experts / ep_;
  for (const layer_group& g : m.groups)
    if (g.moe && g.mlp) moe_layers_ += d(g.count);
  a2a_per_token_ =
      traffic_.experts_per_token * hidden_ * detail::activation_bytes(s.weight_precision) * (ep_ - 1) / ep_;
  ep_bw_ = bandwidth;
  ep_lat_ = l.link_latency_s;
}

double step_model::alltoall_bytes(double tokens) const noexcept {
  return ep_path_ ? 2 * moe_layers_ * tokens * a2a_per_token_ : 0.0;
}

step_time step_model::time_expert_parallel(const batch& b) const noexcept {
  step_time t;
  const double T = d(b.tokens);
  const double k = traffic_.experts_per_token, E = traffic_.experts, P = traffic_.expert_params;
  // Tokens the busiest EP rank's experts see, from all attention ranks; its token-expert pairs.
  const double moe_tokens = adp_ * T * imbalance_;
  const double pairs = moe_tokens * k / ep_;
  // Weights: the plain path's (dense parts + the experts among all E that the rank's own T tokens
  // reach), with the experts swapped for the rank's own that moe_tokens reach.
  double params = 0;
  double weights = weight_bytes_read(T, params);
  double flops = b.flops;
  double expert_extra = 0;
  if (P > 0 && E > 0) {
    const double miss = 1.0 - k / E;
    const double touched_all = E * (1.0 - std::pow(miss, T));
    const double touched_rank = ep_experts_ * (1.0 - std::pow(miss, moe_tokens));
    params += (touched_rank - touched_all) * P;
    weights += (touched_rank - touched_all) * P * traffic_.expert_bytes_per_param;
    // The step's own T x k pairs are in b.flops (run_pass); the rank computes `pairs` instead.
    const double expert_flops = 2 * P * pairs;
    flops += expert_flops - 2 * P * k * T;
    // Each running expert multiplies tokens_per_active_expert() of the rank's tokens
    // (expert_gemm_extra_flops' convention).
    if (costs_.gemm_half_tokens > 0)
      expert_extra =
          expert_flops * (detail::gemm_factor(costs_, T) /
                              detail::gemm_factor(costs_, detail::tokens_per_active_expert(moe_tokens, k, E)) -
                          1.0);
  }
  t.flops = flops;
  t.bytes = (b.bytes + b.kv_read_bytes + weights) / tp_;
  const double dequant = weight_only_ ? 2 * params : 0.0;
  // Dequantisation is elementwise work on the weights read: off the GEMM curve.
  t.compute_s = ((flops + expert_extra) / (peak_c_ * detail::gemm_factor(costs_, T)) + dequant / peak_dequant_) / tp_;
  t.memory_s = (b.bytes + weights + b.kv_read_bytes / costs_.kv_read_efficiency) / tp_ / bw_m_;
  if (tp_ > 1)
    t.communication_s = allreduces_ * detail::ring_allreduce_s(T * allreduce_msg_per_token_,
                                                               static_cast<std::int64_t>(tp_), tp_bw_, tp_lat_);
  if (ep_ > 1) {
    t.alltoall_bytes = alltoall_bytes(T);
    t.alltoall_s = t.alltoall_bytes * imbalance_ / ep_bw_ + 2 * moe_layers_ * (ep_ - 1) * ep_lat_;
    t.communication_s += t.alltoall_s;
  }
  t.fixed_s = detail::fixed_step_s(costs_, d(layers_), d(b.sequences));
  t.total_s = std::max(t.compute_s, t.memory_s) + t.communication_s + t.fixed_s;
  return t;
}

}  // namespace flopcast
