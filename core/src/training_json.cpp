// Training-step analysis as JSON: SI base units (FLOPs are counts, bytes, seconds), stable keys.
#include <cmath>
#include <nlohmann/json.hpp>

#include "flopcast/training.hpp"
#include "json_writer.hpp"

namespace flopcast {
namespace {

using json = nlohmann::ordered_json;

json or_null(bool has, double v) { return has ? json(v) : json(nullptr); }

json traffic_json(const phase_cost& c) {
  return {{"read_bytes", c.read_bytes},
          {"write_bytes", c.write_bytes},
          {"bytes", c.read_bytes + c.write_bytes},
          {"arithmetic_intensity", c.arithmetic_intensity}};
}

json phase_json(const phase_cost& c, const std::string& name, bool perf) {
  return {{"phase", name},
          {"bound", perf ? json(to_string(c.limit)) : json(nullptr)},
          {"time_s", or_null(perf, c.time_s)},
          {"compute_s", or_null(perf, c.compute_s)},
          {"memory_s", or_null(perf, c.memory_s)},
          {"flops", c.flops},
          {"bytes", c.read_bytes + c.write_bytes},
          {"arithmetic_intensity", c.arithmetic_intensity}};
}

}  // namespace

std::string training_to_json(const model_spec& model, const hardware_spec* gpu, const training_analysis& a,
                             int indent) {
  const training_settings& t = a.config;
  const settings& s = t.base;
  const step_flops& f = a.flops;
  const backward_flops_detail& b = f.backward;
  const bool perf = a.has_performance;

  json out;
  out["model"] = model.name;
  out["settings"] = {{"batch_size", s.batch_size},
                     {"sequence_length", s.sequence_length},
                     {"precision", to_string(s.weight_precision)},
                     {"gpu", gpu ? json(gpu->name) : json(nullptr)},
                     {"optimizer", to_string(s.optim)},
                     {"fused_optimizer", t.fused_optimizer},
                     {"recompute", to_string(*t.recompute)},
                     {"gradient_clipping", t.gradient_clipping},
                     {"causal", s.causal},
                     {"flash_attention", s.flash_attention},
                     {"compute_efficiency", s.compute_efficiency},
                     {"mem_efficiency", s.mem_efficiency},
                     {"mfu", *t.mfu},
                     {"gpus", t.gpus},
                     {"tokens", *t.tokens},
                     {"lora_rank", t.lora.rank},
                     {"lora_targets", t.lora.rank > 0 ? json(lora_targets_name(t.lora.targets)) : json(nullptr)},
                     {"base_precision", a.lora ? json(to_string(a.lora->base_precision)) : json(nullptr)}};
  out["parameters"] = {
      {"total", a.parameters}, {"trainable", a.trainable_parameters}, {"frozen", a.lora ? a.parameters : 0}};

  const attention_backward& ab = b.attention;
  out["flops"] = {{"forward", f.forward},
                  {"forward_base", f.forward_base},
                  {"lora_forward", f.lora_forward},
                  {"backward",
                   {{"total", b.total},
                    {"weight_gradient", b.weight_gradient},
                    {"input_gradient", b.input_gradient},
                    {"attention",
                     {{"qkv_projection", ab.qkv_projection},
                      {"output_projection", ab.output_projection},
                      {"cross_kv_projection", ab.cross_kv_projection},
                      {"dq_dk", ab.dq_dk},
                      {"dv_dp", ab.dv_dp},
                      {"softmax", ab.softmax},
                      {"rotary", ab.rotary},
                      {"total", ab.total}}},
                    {"mlp", b.mlp},
                    {"norm", b.norm},
                    {"embedding", b.embedding},
                    {"output_head", b.output_head},
                    {"mixer", b.mixer},
                    {"lora_adapters", b.lora_adapters},
                    {"ratio_to_forward", b.ratio_to_forward}}},
                  {"optimizer", f.optimizer},
                  {"gradient_clipping", f.gradient_clipping},
                  {"mixed_precision", f.mixed_precision},
                  {"recompute",
                   {{"policy", to_string(f.recompute.policy)},
                    {"layers", f.recompute.layers},
                    {"attention_core", f.recompute.attention_core},
                    {"flash_attention_kernel", f.recompute.flash_attention_kernel},
                    {"total", f.recompute.total}}},
                  {"total_step", f.total_step},
                  {"sum_of_parts", f.sum_of_parts},
                  {"sum_of_parts_ratio", f.sum_of_parts_ratio},
                  {"within_5_percent", std::abs(f.sum_of_parts_ratio - 1.0) <= 0.05},
                  {"model_flops", f.model_flops}};

  const training_memory& m = a.memory;
  out["memory"] = {
      {"weights", m.weights},
      {"gradients", m.gradients},
      {"optimizer_state", m.optimizer_state},
      {"master_weights", m.master_weights},
      {"optimizer_moments", m.optimizer_state - m.master_weights},
      {"activations", m.activations},
      {"total", m.total},
      {"gpu_memory", gpu ? json(m.gpu_memory) : json(nullptr)},
      {"usable_gpu_memory", gpu ? json(m.usable_gpu_memory) : json(nullptr)},
      {"fits_on_gpu", gpu ? json(m.fits_on_gpu) : json(nullptr)},
      {"bytes_per_trainable_parameter", m.bytes_per_trainable_parameter},
      {"activations_by_recompute",
       {{"none", m.activations_none}, {"selective", m.activations_selective}, {"full", m.activations_full}}}};

  json traffic = json::object();
  for (const phase_cost& c : a.phases) traffic[std::string(to_string(c.phase))] = traffic_json(c);
  traffic["backward"] = traffic_json(a.backward_phase);
  traffic["total"] = traffic_json(a.step);
  out["memory_traffic"] = traffic;

  json phases = json::array();
  for (const phase_cost& c : a.phases) phases.push_back(phase_json(c, std::string(to_string(c.phase)), perf));
  out["bottleneck"] = phases;

  if (perf)
    out["performance"] = {{"compute_precision", to_string(a.estimate.perf.compute_precision)},
                          {"peak_flops_per_s", a.peak_flops_per_s},
                          {"memory_bandwidth_bytes_per_s", a.memory_bandwidth_bytes_per_s},
                          {"step_time_s", a.step.time_s},
                          {"step_compute_s", a.step.compute_s},
                          {"step_memory_s", a.step.memory_s},
                          {"tokens_per_second", a.tokens_per_second},
                          {"model_flops_utilization", a.model_flops_utilization},
                          {"estimate_training_step_s", a.estimate.perf.training_step_s}};
  else
    out["performance"] = nullptr;
  // A multi-GPU layout (config.base.parallel): the step and memory per GPU, as estimate
  // --training reports them (absent on one GPU, so the one-GPU output is unchanged).
  if (perf && !a.config.base.parallel.trivial()) {
    const parallel_result& p = a.estimate.parallel;
    out["parallelism"] = {{"tensor_parallel", p.layout.tensor_parallel},
                          {"pipeline_parallel", p.layout.pipeline_parallel},
                          {"data_parallel", p.layout.data_parallel},
                          {"expert_parallel", p.layout.expert_parallel},
                          {"total_gpus", p.total_gpus},
                          {"step_time_s", a.step_time_s},
                          {"per_gpu_memory_bytes", p.memory_per_gpu},
                          {"fits_per_gpu", p.fits_per_gpu},
                          {"pp_bubble_fraction", p.pp_bubble_fraction},
                          {"dp_allreduce_s", p.dp_allreduce_s}};
  }

  json recs = json::array();
  for (const recommendation& r : a.recommendations) recs.push_back({{"action", r.action}, {"reason", r.reason}});
  out["recommendations"] = recs;

  const token_budget& tb = a.budget;
  out["token_budget"] = {{"tokens", tb.tokens},
                         {"source", tb.default_tokens ? "default: 20 tokens per parameter (Chinchilla)" : "user"},
                         {"tokens_per_step", tb.tokens_per_step},
                         {"steps", tb.steps},
                         {"total_flops", tb.total_flops},
                         {"model_flops", tb.model_flops},
                         {"mfu", tb.mfu},
                         {"gpus", tb.gpus},
                         {"time_s", or_null(tb.has_time, tb.time_s)},
                         {"time_days", or_null(tb.has_time, tb.time_s / 86400.0)},
                         {"gpu_hours", or_null(tb.has_time, tb.gpu_hours)},
                         {"cost_usd", or_null(tb.has_time, tb.cost_usd)},
                         {"roofline_time_s", or_null(tb.has_time, tb.roofline_time_s)},
                         {"flops_6nd", tb.flops_6nd},
                         {"ratio_total_to_6nd", tb.ratio_total_to_6nd},
                         {"ratio_model_to_6nd", tb.ratio_model_to_6nd}};

  const cross_check_6nd& x = a.cross_check;
  out["cross_check_6nd"] = {
      {"n", "parameters a token passes through, embeddings included (all for dense models, active for MoE)"},
      {"parameters", x.parameters},
      {"tokens_per_step", x.tokens},
      {"forward_plus_backward", x.forward_plus_backward},
      {"flops_6nt", x.flops_6nt},
      {"ratio", x.ratio},
      {"within_5_percent", std::abs(x.ratio - 1.0) <= 0.05},
      {"non_embedding_parameters", x.non_embedding_parameters},
      {"flops_6nt_non_embedding", x.flops_6nt_non_embedding},
      {"ratio_non_embedding", x.ratio_non_embedding}};

  if (a.lora) {
    const lora_analysis& l = *a.lora;
    out["lora"] = {
        {"rank", l.rank},
        {"targets", lora_targets_name(l.targets)},
        {"base_precision", to_string(l.base_precision)},
        {"quantized_base", l.quantized},
        {"base_bits_per_quantized_weight", l.quantized ? json(l.base_bits_per_quantized_weight) : json(nullptr)},
        {"trainable_parameters", l.trainable_parameters},
        {"base_parameters", l.base_parameters},
        {"all_parameters", l.all_parameters},
        {"trainable_percent", l.trainable_percent},
        {"adapted_matrices", l.adapted_matrices},
        {"quantized_parameters", l.quantized_parameters},
        {"base_weight_bytes", l.base_weight_bytes},
        {"adapter_bytes", l.adapter_bytes},
        {"forward_flops", f.lora_forward},
        {"backward_flops", b.lora_adapters}};
  } else {
    out["lora"] = nullptr;
  }

  std::string note;
  for (const std::string& n : a.notes) note += (note.empty() ? "" : "; ") + n;
  out["note"] = note;
  return detail::dump_result(out, indent);
}

}  // namespace flopcast
