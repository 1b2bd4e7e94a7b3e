// `flopcast train` and `flopcast estimate --training` answer the same training question
// from one step model: the same memory (total and per GPU) and the same step time (one
// GPU and on a TP/PP/DP/EP layout), for dense and MoE models, whatever the recompute
// policy, optimizer, precision or efficiency origin.
#include <catch2/catch.hpp>
#include <string>

#include "flopcast/training/training.hpp"
#include "helpers.hpp"

using flopcast::analyze_training;
using flopcast::estimate;
using flopcast::find_gpu;
using flopcast::recompute_policy;
using flopcast::settings;
using flopcast::training_analysis;
using flopcast::training_settings;

namespace {

settings training_base(std::int64_t batch, std::int64_t seq) {
  settings s;
  s.training = true;
  s.batch_size = batch;
  s.sequence_length = seq;
  return s;
}

// Both sides at the same settings; the train side states the policy, the estimate side
// the equivalent gradient_checkpointing (full <-> true, none <-> false).
void check_agreement(const std::string& model, settings s, const char* gpu_name, recompute_policy policy) {
  const auto& m = test::model(model);
  const auto& gpu = find_gpu(gpu_name);
  training_settings t;
  t.base = s;
  t.base.gradient_checkpointing = !s.gradient_checkpointing;  // overridden by the explicit policy
  t.recompute = policy;
  s.gradient_checkpointing = policy == recompute_policy::full;
  const training_analysis a = analyze_training(m, t, &gpu);
  const auto e = estimate(m, s, &gpu);
  INFO(model << " on " << gpu_name << ", recompute " << to_string(policy) << ", TP " << s.parallel.tensor_parallel
             << " PP " << s.parallel.pipeline_parallel << " DP " << s.parallel.data_parallel << " EP "
             << s.parallel.expert_parallel);

  // Memory: the same state and activations, exactly.
  CHECK(a.memory.weights == e.memory.train_weights);
  CHECK(a.memory.gradients == e.memory.train_gradients);
  CHECK(a.memory.optimizer_state == e.memory.train_optimizer_state);
  CHECK(a.memory.activations == e.memory.train_activations);
  CHECK(a.memory.total == e.memory.train_total);
  CHECK(a.memory.fits_on_gpu == e.memory.fits_on_gpu);

  // One GPU: the estimate's step is the phase roofline of the analysis; with a layout it is the
  // layout's step (the headline follows the configuration asked for).
  double phases = 0;
  for (const auto& p : a.phases) phases += p.time_s;
  if (s.parallel.trivial()) {
    CHECK(a.step.time_s == e.perf.training_step_s);
    CHECK(phases == e.perf.training_step_s);
  } else {
    CHECK(e.perf.training_step_s == e.parallel.training_step_s);
  }
  CHECK(a.estimate.perf.training_step_s == e.perf.training_step_s);
  CHECK(a.estimate.perf.training_step_range.low == e.perf.training_step_range.low);
  CHECK(a.estimate.perf.training_step_range.high == e.perf.training_step_range.high);

  // The layout: per-GPU memory and the step with communication, bubble and DP all-reduce.
  CHECK(a.estimate.parallel.memory_per_gpu == e.parallel.memory_per_gpu);
  CHECK(a.estimate.parallel.training_state_per_gpu == e.parallel.training_state_per_gpu);
  CHECK(a.estimate.parallel.activations_per_gpu == e.parallel.activations_per_gpu);
  CHECK(a.estimate.parallel.training_step_s == e.parallel.training_step_s);
  const double layout_step = s.parallel.trivial() ? e.perf.training_step_s : e.parallel.training_step_s;
  CHECK(a.step_time_s == layout_step);
  CHECK(a.tokens_per_second == Approx(static_cast<double>(s.batch_size * s.sequence_length) / layout_step));
}

}  // namespace

TEST_CASE("train and estimate --training agree on one GPU (dense and MoE)") {
  for (const char* model : {"meta-llama/Llama-2-7b-hf", "meta-llama/Meta-Llama-3-8B", "mistralai/Mixtral-8x7B-v0.1"})
    for (const recompute_policy policy : {recompute_policy::full, recompute_policy::none}) {
      check_agreement(model, training_base(1, 2048), "A100", policy);
      settings s = training_base(2, 1024);
      s.optim = flopcast::optimizer::sgd;
      s.weight_precision = flopcast::precision::fp16;
      check_agreement(model, s, "H100", policy);
      s.weight_precision = flopcast::precision::fp32;
      s.flash_attention = false;
      s.optim = flopcast::optimizer::adamw;
      check_agreement(model, s, "H100", policy);
    }
}

TEST_CASE("train and estimate --training agree on TP, PP, DP and EP layouts") {
  settings s = training_base(4, 2048);
  s.parallel.tensor_parallel = 2;
  check_agreement("meta-llama/Llama-2-7b-hf", s, "A100", recompute_policy::full);
  s.parallel.data_parallel = 2;
  check_agreement("meta-llama/Llama-2-7b-hf", s, "A100", recompute_policy::full);
  check_agreement("meta-llama/Llama-2-7b-hf", s, "A100", recompute_policy::none);
  s.parallel.pipeline_parallel = 2;
  s.parallel.num_microbatches = 8;
  s.parallel.sequence_parallel = true;
  check_agreement("meta-llama/Meta-Llama-3-8B", s, "H100", recompute_policy::full);

  settings moe = training_base(4, 1024);
  moe.parallel.expert_parallel = 4;
  check_agreement("mistralai/Mixtral-8x7B-v0.1", moe, "H100", recompute_policy::full);
  moe.parallel.tensor_parallel = 2;
  moe.parallel.data_parallel = 2;
  check_agreement("mistralai/Mixtral-8x7B-v0.1", moe, "H100", recompute_policy::none);
}

TEST_CASE("train and estimate --training agree with explicit and calibrated efficiencies") {
  settings s = training_base(2, 2048);
  s.compute_efficiency = 0.4;
  s.mem_efficiency = 0.7;
  s.compute_efficiency_origin = flopcast::efficiency_origin::explicit_value;
  s.mem_efficiency_origin = flopcast::efficiency_origin::explicit_value;
  check_agreement("meta-llama/Meta-Llama-3-8B", s, "H100", recompute_policy::full);
  s.compute_efficiency_origin = flopcast::efficiency_origin::calibrated;
  s.mem_efficiency_origin = flopcast::efficiency_origin::calibrated;
  s.parallel.tensor_parallel = 2;
  check_agreement("mistralai/Mixtral-8x7B-v0.1", s, "H100", recompute_policy::full);
}

TEST_CASE("the training step range is the step model at the ends of the efficiency spread") {
  const auto& m = test::model("meta-llama/Llama-2-7b-hf");
  const auto& gpu = find_gpu("A100");
  settings s = training_base(1, 2048);
  for (const auto origin : {flopcast::efficiency_origin::default_value, flopcast::efficiency_origin::calibrated}) {
    s.compute_efficiency_origin = s.mem_efficiency_origin = origin;
    const auto e = estimate(m, s, &gpu);
    training_settings fast, slow;
    fast.base = slow.base = s;
    fast.base.compute_efficiency = e.perf.compute_efficiency_high;
    fast.base.mem_efficiency = e.perf.mem_efficiency_high;
    slow.base.compute_efficiency = e.perf.compute_efficiency_low;
    slow.base.mem_efficiency = e.perf.mem_efficiency_low;
    CHECK(analyze_training(m, fast, &gpu).step.time_s == e.perf.training_step_range.low);
    CHECK(analyze_training(m, slow, &gpu).step.time_s == e.perf.training_step_range.high);
  }
}

TEST_CASE("train honours the layout: sharded step, the layout's GPUs for the budget") {
  const auto& m = test::model("meta-llama/Llama-2-7b-hf");
  const auto& gpu = find_gpu("A100");
  training_settings t;
  t.base = training_base(4, 2048);
  const training_analysis one = analyze_training(m, t, &gpu);
  CHECK(one.step_time_s == one.step.time_s);
  t.base.parallel.tensor_parallel = 2;
  t.base.parallel.data_parallel = 2;
  const training_analysis four = analyze_training(m, t, &gpu);
  CHECK(four.step.time_s == one.step.time_s);  // the phases: the whole batch on one GPU
  CHECK(four.step_time_s < one.step_time_s / 2);
  CHECK(four.step_time_s > one.step_time_s / 4);  // communication is not free
  CHECK(four.budget.gpus == 4);
  CHECK(four.estimate.parallel.memory_per_gpu < four.memory.total / 2);
  t.gpus = 8;
  CHECK_THROWS_WITH(analyze_training(m, t, &gpu),
                    Catch::Contains("(/training_analysis/gpus) expected 1 or the layout's 4 GPUs"));
}
