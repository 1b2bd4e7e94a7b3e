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

#include "training/training_parts.hpp"

namespace flopcast::detail {
namespace training_schedule {

// The training compute efficiency (fraction of the matmul unit's dense peak the phase roofline's
// compute phases reach) with no efficiency given. Fitted by median log-ratio of predicted to measured
// tokens/s/GPU on the `fit` sources of data/measurements/training-*.json only
// (training-nemo-24.07-performance-summary, training-megatron-bridge-25.11-performance-summary:
// Megatron-Core on H100, B200, GB200, GB300); held out: training-megatron-bridge-26.04-performance-summary.
// 16-bit matmuls (bf16, fp16): 16 rows of the fit part; 8-bit (fp8, mxfp8, fp8_block): 23 rows,
// relative to the FP8 peak (the recipes keep attention, norms and the optimizer in 16/32 bits, so
// the whole step reaches a smaller share of the doubled peak).
constexpr double k_efficiency_16bit = 0.5;
constexpr double k_efficiency_8bit = 0.5;

// The fraction of a step's compute that is backward (2 of the 3 passes without recompute).
constexpr double backward_share = 2.0 / 3.0;

}  // namespace training_schedule

double training_efficiency_scale(const settings& s) {
  if (s.compute_efficiency_origin != efficiency_origin::default_value || !(s.compute_efficiency > 0)) return 1.0;
  const std::vector<compute_unit>& path = format_of(s.weight_precision).path;
  const bool eight_bit = !path.empty() && (path.front() == compute_unit::fp8 || path.front() == compute_unit::int8);
  const double e = eight_bit ? training_schedule::k_efficiency_8bit : training_schedule::k_efficiency_16bit;
  return e / s.compute_efficiency;
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
  const double overlapped = passes * (x.tp_s + x.ep_s) + x.pp_s;
  const double last_backward = training_schedule::backward_share * ideal / m;
  const double dp_exposed = std::max(0.0, x.dp_s - last_backward);
  out.step_s = std::max(compute, overlapped) + dp_exposed;
  out.exposed_communication_s = out.step_s - compute;
  return out;
}

}  // namespace flopcast::detail
