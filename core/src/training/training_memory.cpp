// Training memory (capacity, one GPU, no sharding): weights, gradients, optimizer state and
// the activation ESTIMATE under each recompute policy. The per-parameter state and the
// activation estimate are memory.cpp's, so estimate() and analyze_training() agree.
#include "estimate/estimate_parts.hpp"
#include "training/training_parts.hpp"

namespace flopcast::detail {

activation_set training_activations(const model_spec& m, const settings& s) {
  const auto acts = [&](bool checkpointing, bool flash) {
    settings v = s;
    v.gradient_checkpointing = checkpointing;
    v.flash_attention = flash;
    return estimate_activations(m, v);
  };
  activation_set a;
  const activation_estimate full = acts(true, s.flash_attention);
  a.full = full.training;
  a.none = acts(false, s.flash_attention).training;
  a.selective = acts(false, true).training;  // what selective recompute stores: no score matrices
  a.stored = a.none;
  a.score_bytes = a.none - a.selective;
  a.replicated_fraction = full.training_replicated_fraction;
  return a;
}

training_memory training_memory_of(const training_core& c, double P) {
  const training_settings& t = c.config;
  const training_state_bytes per = training_state_per_parameter(t.base);
  const double Pt = d(c.trainable_parameters);
  training_memory mem;
  mem.activations_none = c.acts.none;
  mem.activations_selective = c.acts.selective;
  mem.activations_full = c.acts.full;
  mem.activations = c.acts.under(*t.recompute);
  if (t.lora.rank > 0) {
    mem.weights = c.base_weight_bytes + Pt * per.weights;
    mem.gradients = Pt * per.gradients;
    mem.optimizer_state = Pt * per.optimizer;
    mem.master_weights = Pt * per.master;
  } else {
    mem.weights = P * per.weights;
    mem.gradients = P * per.gradients;
    mem.optimizer_state = P * per.optimizer;
    mem.master_weights = P * per.master;
  }
  mem.total = mem.weights + mem.gradients + mem.optimizer_state + mem.activations;
  mem.bytes_per_trainable_parameter = per.weights + per.gradients + per.optimizer;
  return mem;
}

}  // namespace flopcast::detail
