#pragma once
// What the estimate shares with the rooms built on it (training, serving, plan, io): the step-cost
// helpers of the roofline and the simulator's step model, the one fit rule, the multi-GPU view,
// and the request table's bounds (defined in io/request_fields.cpp, where the table lives).
#include <algorithm>
#include <cmath>

#include "base/detail.hpp"
#include "flopcast/estimate/estimate.hpp"
#include "flopcast/model/model.hpp"
#include "model/model_parts.hpp"

namespace flopcast::detail {

// step_costs (estimate.hpp): the GEMM-efficiency factor at `tokens` tokens in a step, and the
// fixed time of a step of `sequences` sequences through `layers` layers. The roofline
// (roofline.cpp) and the simulator's step model (step_model.cpp) both use these.
[[nodiscard]] inline double gemm_factor(const step_costs& c, double tokens) noexcept {
  return c.gemm_half_tokens > 0 ? tokens / (tokens + c.gemm_half_tokens) : 1.0;
}
// The tokens each expert that a step reaches multiplies: `tokens` tokens each pick k of E
// experts, so about E (1 - (1 - k/E)^tokens) distinct experts run, on tokens x k of them in all.
// Never below one token (a running expert multiplies at least the token that reached it): at
// batch 1 the k experts each take that token, not k/E of one.
[[nodiscard]] inline double tokens_per_active_expert(double tokens, double experts_per_token, double experts) noexcept {
  if (experts <= 0 || experts_per_token <= 0 || tokens <= 0) return tokens;
  const double k = std::min(experts_per_token, experts);
  const double active = experts * (1.0 - std::pow(1.0 - k / experts, tokens));
  return active > 0 ? std::max(1.0, tokens * k / active) : tokens;
}
// The extra FLOPs that time a step's expert GEMMs at their own size: each running expert
// multiplies tokens_per_active_expert() of the step's tokens, so its GEMMs sit lower on the curve
// than the dense ones. Timing a step as (flops + this) / (peak x efficiency x
// gemm_factor(tokens)) gives dense flops at gemm_factor(tokens) and expert flops at
// gemm_factor(tokens per active expert). 0 without a curve or experts.
[[nodiscard]] inline double expert_gemm_extra_flops(const step_costs& c, double expert_flops, double tokens,
                                                    double experts_per_token, double experts) noexcept {
  if (c.gemm_half_tokens <= 0 || expert_flops <= 0 || experts <= 0) return 0;
  const double per_expert = tokens_per_active_expert(tokens, experts_per_token, experts);
  return expert_flops * (gemm_factor(c, tokens) / gemm_factor(c, per_expert) - 1.0);
}
[[nodiscard]] inline double fixed_step_s(const step_costs& c, double layers, double sequences) noexcept {
  return c.per_step_s + c.per_sequence_s * sequences +
         layers * (c.per_layer_s + c.launches_per_layer * c.per_kernel_launch_s);
}

}  // namespace flopcast::detail

namespace flopcast {
struct settings;
struct serving_settings;
struct training_settings;
struct estimate_result;
struct parallel_result;
struct hardware_spec;
struct training_settings;
struct plan_settings;
namespace detail {
// The multi-GPU view of an estimate (parallel.cpp); `training`: the resolved training
// options with settings.training (what the per-replica step is estimated with), else null.
[[nodiscard]] parallel_result parallel_view(const model_spec& m, const settings& s, const hardware_spec& gpu,
                                            estimate_result& r, const training_settings* training);
// Makes the estimate's headline figures the layout's (parallel.cpp): memory.fits_on_gpu is the
// per-GPU fit, and performance's latencies, energy and cost are those of all the layout's GPUs.
void apply_layout(const settings& s, const hardware_spec& gpu, estimate_result& r);
// The request table's bounds (request_fields.cpp), with its messages and full pointers: the
// estimate's settings ("" and "/parallelism/..."), "/serving/..." and "/training_analysis/...".
void check_settings(const settings& s);
void check_serving(const serving_settings& s);
void check_training(const training_settings& t);
void check_plan(const plan_settings& p);
// The one fit rule: the bytes of one GPU that weights, cache, activations and training state may
// use (estimate, layouts, training and serving all fit against this).
[[nodiscard]] double usable_memory(const settings& s, const hardware_spec& gpu);
// Validates a layout against the model; errors name "/parallelism/<field>".
void validate_layout(const model_spec& m, const settings& s);
}  // namespace detail
}  // namespace flopcast
