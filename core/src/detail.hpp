#pragma once
// Internal helpers shared by the parameter counter, the estimator and the training analysis.
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "flopcast/error.hpp"
#include "flopcast/estimate.hpp"
#include "flopcast/model.hpp"
#include "flopcast/precision.hpp"

namespace flopcast::detail {

// An integer count as a double (exact below 2^53): FLOP and byte arithmetic is carried in double.
[[nodiscard]] constexpr double d(std::int64_t v) noexcept { return static_cast<double>(v); }

// step_costs (estimate.hpp): the GEMM-efficiency factor at `tokens` tokens in a step, and the
// fixed time of a step of `sequences` sequences through `layers` layers. The roofline
// (roofline.cpp) and the simulator's step model (step_model.cpp) both use these.
[[nodiscard]] inline double gemm_factor(const step_costs& c, double tokens) noexcept {
  return c.gemm_half_tokens > 0 ? tokens / (tokens + c.gemm_half_tokens) : 1.0;
}
// The extra FLOPs that time a step's expert GEMMs at their own size: each expert multiplies about
// tokens x k / E of the step's tokens, so its GEMMs sit lower on the curve than the dense ones.
// Timing a step as (flops + this) / (peak x efficiency x gemm_factor(tokens)) gives dense flops
// at gemm_factor(tokens) and expert flops at gemm_factor(tokens x k / E). 0 without a curve or
// experts.
[[nodiscard]] inline double expert_gemm_extra_flops(const step_costs& c, double expert_flops, double tokens,
                                                    double experts_per_token, double experts) noexcept {
  if (c.gemm_half_tokens <= 0 || expert_flops <= 0 || experts <= 0) return 0;
  const double per_expert = tokens * experts_per_token / experts;
  return expert_flops * (gemm_factor(c, tokens) / gemm_factor(c, per_expert) - 1.0);
}
// Layers of every group: what step_costs' per-layer costs multiply.
[[nodiscard]] inline double layer_count(const model_spec& m) noexcept {
  double n = 0;
  for (const auto& g : m.groups) n += d(g.count);
  return n;
}
[[nodiscard]] inline double fixed_step_s(const step_costs& c, double layers, double sequences) noexcept {
  return c.per_step_s + c.per_sequence_s * sequences +
         layers * (c.per_layer_s + c.launches_per_layer * c.per_kernel_launch_s);
}

// ASCII lower case (names, aliases, policies: matching is case-insensitive).
[[nodiscard]] inline std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// A name as lookups compare it: lower case, letters and digits only ("H100 SXM" == "h100-sxm",
// "TensorRT_LLM" == "tensorrt-llm", "llama.cpp" == "llamacpp").
[[nodiscard]] inline std::string squash_name(std::string_view s) {
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// Checked 64-bit integer arithmetic: a parameter count never wraps silently.
[[nodiscard]] inline std::int64_t mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r))
    throw error(error_code::config_range, "", "model is too large: a parameter count exceeds 2^63");
  return r;
}
[[nodiscard]] inline std::int64_t add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_add_overflow(a, b, &r))
    throw error(error_code::config_range, "", "model is too large: a parameter count exceeds 2^63");
  return r;
}
[[nodiscard]] inline std::int64_t mul(std::int64_t a, std::int64_t b, std::int64_t c) { return mul(mul(a, b), c); }

// Shortest text that reads back as the same double ("2", "0.85", "1e+30").
[[nodiscard]] inline std::string format_number(double v) {
  char buf[32];
  int first = 1;  // no exponent for ordinary magnitudes: 80, not 8e+01
  if (v != 0 && std::fabs(v) >= 1 && std::fabs(v) < 1e15)
    first = static_cast<int>(std::floor(std::log10(std::fabs(v)))) + 1;
  for (int precision = first; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof buf, "%.*g", precision, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  return buf;
}

// Four significant digits, for figures quoted in messages.
[[nodiscard]] inline std::string format_short(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
}

// Weights of one layer of a group, split the way FLOPs need them.
struct layer_weights {
  std::int64_t attn_matmul = 0;  // weights used once per query token
  std::int64_t attn_bias = 0;
  std::int64_t attn_kv_matmul = 0;  // MLA kv_b_proj / cross-attention K,V: per key/value token
  std::int64_t norm = 0;            // all norm parameters of the layer
  std::int64_t mlp_total = 0;       // all MLP/expert/router weights and biases
  std::int64_t mlp_active = 0;      // what one token uses
  std::int64_t expert = 0;          // one routed expert
  std::int64_t mixer = 0;           // a linear-attention or state-space mixer (all its weights)
  [[nodiscard]] std::int64_t total() const {
    return add(add(add(add(attn_matmul, attn_bias), add(attn_kv_matmul, norm)), mlp_total), mixer);
  }
  [[nodiscard]] std::int64_t active() const {
    return add(add(add(add(attn_matmul, attn_bias), add(attn_kv_matmul, norm)), mlp_active), mixer);
  }
};

// Whether a group's layers run softmax attention (alone or beside a Mamba-2 mixer).
[[nodiscard]] inline bool has_attention(const layer_group& g) { return g.mixer == mixer_kind::attention; }
// Hidden-size norms of one layer of the group.
[[nodiscard]] inline std::int64_t norms_of(const model_spec& m, const layer_group& g) {
  return (g.norms >= 0 ? g.norms : m.norms_per_layer) + (g.cross_attention ? 1 : 0);
}
// The Mamba-2 conv's channels: x, B and C (inner + 2 groups x state).
[[nodiscard]] inline std::int64_t mamba2_conv_dim(const ssm_spec& s) {
  return add(s.inner, mul(2, s.n_groups, s.state_size));
}
// Gated DeltaNet widths: all key heads (q and k each) and all value heads.
[[nodiscard]] inline std::int64_t linear_key_dim(const linear_attention_spec& l) {
  return mul(l.num_key_heads, l.key_head_dim);
}
[[nodiscard]] inline std::int64_t linear_value_dim(const linear_attention_spec& l) {
  return mul(l.num_value_heads, l.value_head_dim);
}
// Parameters of one mixer of kind k (linear attention, Mamba-1, Mamba-2; 0 for the others).
[[nodiscard]] std::int64_t mixer_params(const model_spec& m, mixer_kind k);

[[nodiscard]] layer_weights weights_of(const model_spec& m, const layer_group& g);

// Elements one norm of width n applies per token: RMSNorm 4 (square, sum, scale, weight),
// LayerNorm 7 (mean, subtract, square, sum, normalise, weight, bias).
[[nodiscard]] inline double norm_flops_per_element(norm_kind k) { return k == norm_kind::rmsnorm ? 4.0 : 7.0; }
[[nodiscard]] inline std::int64_t norm_params(norm_kind k, std::int64_t width) {
  return k == norm_kind::rmsnorm ? width : 2 * width;
}
// One hidden-size norm of the model (a LayerNorm without bias has only its weight).
[[nodiscard]] inline std::int64_t norm_params(const model_spec& m, std::int64_t width) {
  return m.norm == norm_kind::layernorm && !m.norm_bias ? width : norm_params(m.norm, width);
}
// Width of the token embedding rows (OPT-350m embeds at word_embed_proj_dim).
[[nodiscard]] inline std::int64_t embed_dim(const model_spec& m) {
  return m.embed_proj_dim > 0 ? m.embed_proj_dim : m.hidden_size;
}
// Number of stacks with their own final norm (2 for encoder-decoder).
[[nodiscard]] inline std::int64_t stacks(const model_spec& m) {
  return m.arch == architecture::encoder_decoder ? 2 : 1;
}

// Width of the q, k and v projections' outputs per token (what a layer stores of them):
// heads x head_dim for q, KV heads x (head_dim + v_head_dim) for k and v; MLA expands k and
// v per head (nope + rope key: head_dim, value: v_head_dim).
[[nodiscard]] inline double qkv_width(const attention_spec& a) {
  const double nh = d(a.num_heads);
  return a.mla ? nh * d(a.head_dim) + nh * d(a.head_dim) + nh * d(a.v_head_dim)
               : nh * d(a.head_dim) + d(a.num_kv_heads) * d(a.head_dim + a.v_head_dim);
}

// Bytes of one activation element when weights are stored in p (int8/int4/fp8 compute
// in 16-bit; fp32/tf32 in 4 bytes).
[[nodiscard]] inline double activation_bytes(precision p) {
  return p == precision::fp32 || p == precision::tf32 ? 4.0 : 2.0;
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
