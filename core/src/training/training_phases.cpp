// The phases of a training step: FLOPs, memory traffic (ESTIMATE) and the roofline of each.
//
// - memory traffic (ESTIMATE, first order): a pass reads the weights once; each stored
//   activation A is written once and read once in the forward; the input-gradient phase
//   reads the weights and the incoming gradients and writes the outgoing ones (as large as
//   the activations); the weight-gradient phase reads the saved inputs and the output
//   gradients and writes the gradients; the attention core reads Q, K, V, O, dO and writes dQ,
//   dK, dV (plus the score matrices without FlashAttention); the optimizer, clipping and
//   casts stream fp32 state per trainable parameter (optimizer_cost, training_flops.cpp).
// - each phase's time is max(FLOPs / (peak x compute_efficiency), bytes / (bandwidth x
//   mem_efficiency)) with the peak and bandwidth of estimate()'s roofline; the step's time
//   is their sum (what estimate() reports as the training step).
#include <algorithm>

#include "training/training_parts.hpp"

namespace flopcast::detail {
namespace {

constexpr double clip_read_elements = 2.0, clip_write_elements = 1.0;  // norm pass, scale pass

void add_phase(std::vector<phase_cost>& phases, training_phase p, double flops, double read, double write,
               double attention = 0) {
  phase_cost c;
  c.phase = p;
  c.flops = flops;
  c.attention_flops = std::min(attention, flops);
  c.read_bytes = read;
  c.write_bytes = write;
  phases.push_back(c);
}

}  // namespace

std::vector<phase_cost> training_phases(const model_spec& m, const training_core& c, double P) {
  const training_settings& t = c.config;
  const settings& s = t.base;
  const step_flops& f = c.flops;
  const backward_flops_detail& b = f.backward;
  const recompute_flops& rc = f.recompute;
  const activation_set& A = c.acts;
  const bool lora = t.lora.rank > 0;
  const double Pt = d(c.trainable_parameters), T = d(s.batch_size) * d(s.sequence_length);
  const double wbytes = storage_bytes(s.weight_precision), act_bytes = activation_bytes(s.weight_precision);
  const double core = b.attention.dq_dk + b.attention.dv_dp + b.attention.softmax + b.attention.rotary;

  // The model's widths, averaged with those of groups that have their own attention layout.
  const double layers = d(m.num_layers + m.num_encoder_layers);
  double qkv = qkv_width(m.attention), out_width = d(m.attention.num_heads) * d(m.attention.v_head_dim);
  for (const layer_group& g : m.groups) {
    if (!g.attention || layers <= 0) continue;
    const attention_spec& a = *g.attention;
    qkv += d(g.count) * (qkv_width(a) - qkv_width(m.attention)) / layers;
    out_width +=
        d(g.count) * (d(a.num_heads) * d(a.v_head_dim) - d(m.attention.num_heads) * d(m.attention.v_head_dim)) / layers;
  }
  const double layer_tokens = T * layers;
  const double core_saved = layer_tokens * (qkv + out_width) * act_bytes;
  const double rest_acts = std::max(0.0, A.stored - core_saved - A.score_bytes);
  const double weights_read = (P + (lora ? Pt : 0.0)) * wbytes;  // the 16-bit copy of a quantised base
  const double grads_written = Pt * wbytes;

  std::vector<phase_cost> phases;
  phases.reserve(training_phase_count);
  // The forward's attention matmuls: half their gradients' (dQ dK = 2 x scores, dV dP = 2 x values).
  const double forward_attention = (b.attention.dq_dk + b.attention.dv_dp) / 2;
  add_phase(phases, training_phase::forward, f.forward, weights_read + A.stored, A.stored, forward_attention);
  add_phase(phases, training_phase::backward_input_gradients, b.input_gradient - core, weights_read + rest_acts,
            rest_acts);
  add_phase(phases, training_phase::backward_attention_core, core,
            layer_tokens * (qkv + 2 * out_width) * act_bytes + A.score_bytes,
            layer_tokens * qkv * act_bytes + A.score_bytes, core);
  add_phase(phases, training_phase::backward_weight_gradients, b.weight_gradient,
            lora ? c.lora.wgrad_read : 2 * (A.stored - A.score_bytes), grads_written);
  {
    double read = 0, write = 0;
    if (*t.recompute == recompute_policy::full) {
      read += weights_read + A.stored;
      write += A.stored;
    }
    if (rc.attention_core > 0) {
      read += layer_tokens * qkv * act_bytes;
      write += layer_tokens * out_width * act_bytes + A.score_bytes;
    }
    const bool full = *t.recompute == recompute_policy::full;
    add_phase(phases, training_phase::recompute, rc.total, read, write,
              rc.attention_core + rc.flash_attention_kernel + (full ? forward_attention : 0.0));
  }
  add_phase(phases, training_phase::gradient_clipping, f.gradient_clipping,
            t.gradient_clipping ? Pt * clip_read_elements * fp32_bytes : 0.0,
            t.gradient_clipping ? Pt * clip_write_elements * fp32_bytes : 0.0);
  const elementwise_cost mp = mixed_precision_cost(c);
  add_phase(phases, training_phase::mixed_precision, f.mixed_precision, mp.read, mp.write);
  const optimizer_cost oc = cost_of(s.optim);
  add_phase(phases, training_phase::optimizer, f.optimizer,
            Pt * fp32_bytes * (t.fused_optimizer ? oc.read_fused : oc.read_unfused),
            Pt * fp32_bytes * (t.fused_optimizer ? oc.write_fused : oc.write_unfused));
  return phases;
}

void time_phase(phase_cost& c, double pc, double pm, double pa) {
  const double bytes = c.read_bytes + c.write_bytes;
  c.arithmetic_intensity = bytes > 0 ? c.flops / bytes : 0.0;
  if (pc <= 0) return;
  if (pa <= 0) pa = pc;
  c.compute_s = (c.flops - c.attention_flops) / pc + c.attention_flops / pa;
  c.memory_s = bytes / pm;
  c.time_s = std::max(c.compute_s, c.memory_s);
  c.limit = c.compute_s >= c.memory_s ? bound::compute : bound::memory;
}

phase_cost sum_phases(const std::vector<phase_cost>& phases, std::size_t first, std::size_t last) {
  phase_cost s;
  for (std::size_t i = first; i < last; ++i) {
    s.flops += phases[i].flops;
    s.read_bytes += phases[i].read_bytes;
    s.write_bytes += phases[i].write_bytes;
    s.compute_s += phases[i].compute_s;
    s.memory_s += phases[i].memory_s;
    s.time_s += phases[i].time_s;
  }
  const double bytes = s.read_bytes + s.write_bytes;
  s.arithmetic_intensity = bytes > 0 ? s.flops / bytes : 0.0;
  s.limit = s.compute_s >= s.memory_s ? bound::compute : bound::memory;
  return s;
}

double training_step_time(const std::vector<phase_cost>& phases, double pc, double pm, double pa) {
  double total = 0;
  for (phase_cost c : phases) {
    time_phase(c, pc, pm, pa);
    total += c.time_s;
  }
  return total;
}

}  // namespace flopcast::detail
