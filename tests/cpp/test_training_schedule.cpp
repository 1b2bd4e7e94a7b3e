// The training step as frameworks schedule it (core/src/training/training_schedule.cpp): the
// interleaved pipeline bubble, context parallelism, the ranks that share a replica's work,
// communication overlap, FP8 recipes that keep attention in 16 bits, and the default training
// efficiency, which `flopcast train` and `estimate --training` share.
#include <catch2/catch.hpp>

#include "flopcast/training/training.hpp"
#include "helpers.hpp"
#include "training/training_parts.hpp"

using flopcast::analyze_training;
using flopcast::efficiency_origin;
using flopcast::estimate;
using flopcast::find_gpu;
using flopcast::precision;
using flopcast::recompute_policy;
using flopcast::settings;
using flopcast::training_analysis;
using flopcast::training_settings;

namespace {

training_settings layout_run(std::int64_t tp, std::int64_t pp, std::int64_t dp, std::int64_t microbatches) {
  training_settings t;
  t.base.training = true;
  t.base.batch_size = 64;
  t.base.sequence_length = 4096;
  t.base.causal = true;
  t.base.parallel.tensor_parallel = tp;
  t.base.parallel.pipeline_parallel = pp;
  t.base.parallel.data_parallel = dp;
  t.base.parallel.num_microbatches = microbatches;
  t.recompute = recompute_policy::selective;
  return t;
}

}  // namespace

TEST_CASE("virtual pipeline stages shrink the bubble to (p-1)/(v m + p-1)") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-70B");
  const auto& gpu = find_gpu("H100");
  training_settings t = layout_run(4, 4, 2, 16);
  const training_analysis plain = analyze_training(m, t, &gpu);
  CHECK(plain.estimate.parallel.pp_bubble_fraction == Approx(3.0 / (16 + 3)));
  t.virtual_pipeline = 5;
  const training_analysis interleaved = analyze_training(m, t, &gpu);
  CHECK(interleaved.estimate.parallel.pp_bubble_fraction == Approx(3.0 / (5 * 16 + 3)));
  CHECK(interleaved.step_time_s < plain.step_time_s);
  // Without a pipeline there are no stages to interleave: refused, naming the field (it would change nothing).
  training_settings flat = layout_run(4, 1, 2, 16);
  flat.virtual_pipeline = 4;
  CHECK_THROWS_WITH(analyze_training(m, flat, &gpu),
                    Catch::Contains("/training_analysis/virtual_pipeline") && Catch::Contains("need a pipeline"));
}

TEST_CASE("context-parallel ranks share a replica's work and count as GPUs") {
  const auto& m = test::model("meta-llama/Llama-3.1-8B");
  const auto& gpu = find_gpu("H100");
  training_settings dp8 = layout_run(1, 1, 8, 1);
  training_settings cp2 = layout_run(1, 1, 4, 1);
  cp2.context_parallel = 2;
  const training_analysis a = analyze_training(m, dp8, &gpu), b = analyze_training(m, cp2, &gpu);
  // Eight GPUs either way; the same tokens per step at nearly the same per-GPU work.
  CHECK(b.model_flops_utilization == Approx(b.flops.model_flops / (b.step_time_s * b.peak_flops_per_s * 8)));
  CHECK(b.step_time_s == Approx(a.step_time_s).epsilon(0.25));
  training_settings bad = cp2;
  bad.context_parallel = 0;
  CHECK_THROWS(analyze_training(m, bad, &gpu));
}

TEST_CASE("expert-parallel ranks share the replica's compute") {
  const auto& m = test::model("mistralai/Mixtral-8x7B-v0.1");
  const auto& gpu = find_gpu("H100");
  training_settings t = layout_run(1, 1, 1, 1);
  t.base.batch_size = 8;
  t.base.parallel.expert_parallel = 8;
  const training_analysis ep8 = analyze_training(m, t, &gpu);
  t.base.parallel.expert_parallel = 1;
  const training_analysis one = analyze_training(m, t, &gpu);
  // Eight GPUs on one replica's batch: several times faster than one GPU, not as slow as it.
  CHECK(ep8.step_time_s < one.step_time_s / 4);
}

TEST_CASE("data-parallel gradient reduction hides behind the last microbatch's backward") {
  const auto& m = test::model("meta-llama/Llama-2-7b-hf");
  const auto& gpu = find_gpu("A100");
  settings s;
  s.parallel.data_parallel = 4;
  s.parallel.num_microbatches = 1;
  flopcast::detail::layout_traffic x;
  x.replica_step_s = 3.0;
  x.dp_s = 1.0;
  // The backward of the one microbatch (2/3 of 3 s) covers the 1 s reduction.
  CHECK(flopcast::detail::training_layout_step(s, nullptr, x).step_s == Approx(3.0));
  s.parallel.num_microbatches = 6;  // the last backward is 1/3 s: 2/3 s exposed
  CHECK(flopcast::detail::training_layout_step(s, nullptr, x).step_s == Approx(3.0 + 2.0 / 3.0));
  // Tensor-parallel traffic overlaps the compute: the step is the longer of the two.
  s.parallel.num_microbatches = 1;
  x.dp_s = 0;
  x.tp_s = 0.5;
  s.gradient_checkpointing = false;  // forward and backward: 2 passes
  CHECK(flopcast::detail::training_layout_step(s, nullptr, x).step_s == Approx(3.0));
  x.tp_s = 2.0;
  CHECK(flopcast::detail::training_layout_step(s, nullptr, x).step_s == Approx(4.0));
  (void)m;
  (void)gpu;
}

TEST_CASE("FP8 recipes keep the attention core at the 16-bit peak") {
  const auto& gpu = find_gpu("H100");
  settings s;
  s.weight_precision = precision::fp8;
  CHECK(flopcast::detail::attention_peak_ratio(s, gpu) == Approx(0.5).epsilon(0.02));
  s.weight_precision = precision::bf16;
  CHECK(flopcast::detail::attention_peak_ratio(s, gpu) == 1.0);
  // A long sequence is attention-heavy: its FP8 step gains less than 2x over BF16.
  const auto& m = test::model("meta-llama/Llama-3.1-8B");
  training_settings t;
  t.base.training = true;
  t.base.batch_size = 1;
  t.base.sequence_length = 32768;
  t.base.causal = true;
  t.recompute = recompute_policy::selective;
  t.base.compute_efficiency = 0.5;
  t.base.compute_efficiency_origin = efficiency_origin::explicit_value;
  const double bf16 = analyze_training(m, t, &gpu).step_time_s;
  t.base.weight_precision = precision::fp8;
  const training_analysis fp8 = analyze_training(m, t, &gpu);
  CHECK(fp8.step_time_s < bf16);
  CHECK(fp8.step_time_s > bf16 / 1.8);
  double attention = 0;
  for (const auto& p : fp8.phases) {
    CHECK(p.attention_flops <= p.flops);
    attention += p.attention_flops;
  }
  CHECK(attention > 0.2 * fp8.step.flops);
}

TEST_CASE("the default training efficiency is the fitted one; a given efficiency is kept") {
  settings s;
  s.training = true;
  const auto& dense = test::model("meta-llama/Llama-2-7b-hf");
  const double bf16 = flopcast::detail::training_efficiency_scale(dense, s) * s.compute_efficiency;
  CHECK(bf16 > 0.3);
  CHECK(bf16 < 0.9);
  s.weight_precision = precision::fp8;
  const double fp8 = flopcast::detail::training_efficiency_scale(dense, s) * s.compute_efficiency;
  CHECK(fp8 > 0.2);
  CHECK(fp8 < 0.9);
  s.compute_efficiency = 0.42;
  s.compute_efficiency_origin = efficiency_origin::explicit_value;
  CHECK(flopcast::detail::training_efficiency_scale(dense, s) == 1.0);
  // train and estimate --training print one step time at the default.
  const auto& m = test::model("meta-llama/Llama-2-7b-hf");
  const auto& gpu = find_gpu("H100");
  training_settings t;
  t.base.training = true;
  t.base.batch_size = 4;
  t.base.sequence_length = 2048;
  t.recompute = recompute_policy::full;
  settings e = t.base;
  e.gradient_checkpointing = true;
  CHECK(analyze_training(m, t, &gpu).step_time_s == estimate(m, e, &gpu).perf.training_step_s);
}
