// The training step as frameworks schedule it: the default training compute efficiency and the
// step on a multi-GPU layout (pipeline schedule, communication overlap). Shared by estimate()
// (perf.training_step_s, parallel.training_step_s) and analyze_training() (`flopcast train`), so
// both print one figure.
//
// The step on a layout (Megatron-Core's schedule, as NeMo and Megatron Bridge recipes run it):
// - compute: one replica's phase roofline (its batch share on one GPU) / (tp x pp x ep x cp): the
//   tensor, pipeline, expert and context ranks of a replica share its work evenly (balanced routing,
//   as the published MoE benchmarks force);
// - pipeline bubble: (pp - 1) / (v x m) of the ideal step for m microbatches and v virtual stages
//   per GPU (interleaved 1F1B; Narayanan et al. 2021, "Efficient Large-Scale Language Model
//   Training on GPU Clusters Using Megatron-LM", sec. 2.2.2), i.e. (pp-1) / (v m + pp - 1) of the step;
// - communication: the TP all-reduces (forward, backward, and the recompute's forward under full
//   recompute), the PP sends and the EP all-to-alls overlap the GEMMs (Megatron-Core
//   tp_comm_overlap, overlap_p2p_comm and MoE a2a overlap, on in those recipes), so the step is the
//   longer of compute and that traffic; the data-parallel gradient reduction overlaps only the last
//   microbatch's backward (overlap_grad_reduce: buckets reduce as the last backward produces them),
//   the rest of it is exposed.
#include <algorithm>

#include "estimate/estimate_parts.hpp"
#include "training/training_parts.hpp"

namespace flopcast::detail {
namespace training_schedule {

// The training compute efficiency: the fraction of the matmul unit's dense peak (BF16, or FP8 under
// an 8-bit recipe, whose attention core runs at the BF16 peak: attention_peak_ratio) that the phase
// roofline's compute reaches with no efficiency given. Fitted, with the expert efficiency below, by
// the median log-ratio of measured to predicted tokens/s/GPU on the `fit` sources of
// data/measurements/training-*.json only (training-nemo-24.07-performance-summary and
// training-megatron-bridge-25.11-performance-summary: Megatron-Core on H100, B200, GB200 and GB300):
// 0.430 from their 23 dense rows (Llama 2 and 3, all FP8 or MXFP8). Those sources have no dense BF16
// row, so the 16-bit figure is the same fraction (not fitted separately). Held out:
// training-megatron-bridge-26.04-performance-summary and the two torchtitan sources.
constexpr double k_efficiency_16bit = 0.430;
constexpr double k_efficiency_8bit = 0.430;
// The routed experts' matmuls (grouped GEMMs over many small experts, with the tokens' permutation
// around them) at this fraction of the dense efficiency: 0.405, fitted on the same sources' 16 MoE
// rows (DeepSeek-V3, Qwen3-30B-A3B, Qwen3-235B-A22B, gpt-oss-120b; BF16 and FP8/MXFP8) after the
// dense efficiency. One figure for every expert size: small experts (Qwen3-30B-A3B's 768-wide) run
// slower than it says, large ones (DeepSeek-V3's) faster.
constexpr double k_expert_relative_efficiency = 0.405;

// Of a token's forward matmul weights, the share in routed experts (0 for dense models).
double routed_share(const model_spec& m) {
  if (m.moe.num_experts == 0 || m.moe.experts_per_token == 0) return 0.0;
  const double per_expert = (m.moe.gated_experts ? 3.0 : 2.0) * d(m.hidden_size) * d(m.moe.expert_intermediate_size) *
                            d(m.moe.experts_per_token);
  double routed = 0;
  for (const layer_group& g : m.groups)
    if (g.moe) routed += d(g.count) * per_expert;
  const double active = d(count_parameters(m).active);
  return active > 0 ? std::min(1.0, routed / active) : 0.0;
}

// The fraction of a step's compute that is backward (2 of the 3 passes without recompute).
constexpr double backward_share = 2.0 / 3.0;

}  // namespace training_schedule

double training_efficiency_scale(const model_spec& m, const settings& s) {
  if (s.compute_efficiency_origin != efficiency_origin::default_value || !(s.compute_efficiency > 0)) return 1.0;
  const std::vector<compute_unit>& path = format_of(s.weight_precision).path;
  const bool eight_bit = !path.empty() && (path.front() == compute_unit::fp8 || path.front() == compute_unit::int8);
  const double e = eight_bit ? training_schedule::k_efficiency_8bit : training_schedule::k_efficiency_16bit;
  // Time at the dense efficiency over time with the routed share at its own.
  const double f = training_schedule::routed_share(m);
  const double moe = 1.0 / (1.0 - f + f / training_schedule::k_expert_relative_efficiency);
  // Relative to the default efficiency, so that the range's ends (the spread around that default,
  // estimate.hpp efficiency_spread) move the training efficiency alike.
  static const double reference = settings{}.compute_efficiency;
  return e * moe / reference;
}

double attention_peak_ratio(const settings& s, const hardware_spec& gpu) {
  const std::vector<compute_unit>& path = format_of(s.weight_precision).path;
  if (path.empty() || (path.front() != compute_unit::fp8 && path.front() != compute_unit::int8)) return 1.0;
  const std::optional<double> eight = unit_peak(gpu, path.front()), sixteen = unit_peak(gpu, compute_unit::bf16);
  return eight && sixteen && *eight > 0 ? std::min(1.0, *sixteen / *eight) : 1.0;
}

layout_step training_layout_step(const settings& s, const training_settings* t, const layout_traffic& x) {
  const parallel_layout& l = s.parallel;
  const std::int64_t cp = t != nullptr ? t->context_parallel : 1;
  const std::int64_t v = t != nullptr && l.pipeline_parallel > 1 ? t->virtual_pipeline : 1;
  const bool full = t != nullptr ? *t->recompute == recompute_policy::full : s.gradient_checkpointing;
  const double ranks = d(l.tensor_parallel) * d(l.pipeline_parallel) * d(l.expert_parallel) * d(cp);
  const double m = d(l.num_microbatches), pp = d(l.pipeline_parallel);
  layout_step out;
  const double ideal = x.replica_step_s / ranks;
  const double bubble = (pp - 1.0) / (d(v) * m);  // of the ideal step
  const double compute = ideal * (1.0 + bubble);
  out.bubble_fraction = bubble / (1.0 + bubble);
  const double passes = 2.0 + (full ? 1.0 : 0.0);
  // Each expert- and context-parallel rank moves its share of the replica's tokens.
  const double share = 1.0 / (d(l.expert_parallel) * d(cp));
  const double overlapped = passes * (x.tp_s + x.ep_s + x.pp_s) * share;
  const double last_backward = training_schedule::backward_share * ideal / m;
  const double dp_exposed = std::max(0.0, x.dp_s - last_backward);
  out.step_s = std::max(compute, overlapped) + dp_exposed;
  out.exposed_communication_s = out.step_s - compute;
  return out;
}

}  // namespace flopcast::detail
