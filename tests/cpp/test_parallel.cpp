// Multi-GPU layouts: per-GPU memory, communication, latency with communication.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"

using flopcast::estimate;
using flopcast::find_gpu;

namespace {
flopcast::settings fp16_layout(std::int64_t tp, std::int64_t pp = 1, std::int64_t dp = 1) {
  flopcast::settings s;
  s.weight_precision = flopcast::precision::fp16;
  s.parallel.tensor_parallel = tp;
  s.parallel.pipeline_parallel = pp;
  s.parallel.data_parallel = dp;
  return s;
}
}  // namespace

TEST_CASE("Llama-2-70B in fp16: no fit on one A100-80GB, fits at TP=2 with a reported all-reduce") {
  const auto& m = test::model("meta-llama/Llama-2-70b-hf");
  const auto& a100 = find_gpu("A100-80GB-SXM");
  const auto one = estimate(m, fp16_layout(1), &a100);
  CHECK_FALSE(one.parallel.fits_per_gpu);
  CHECK(one.parallel.memory_per_gpu == Approx(one.memory.total).epsilon(1e-12));  // one GPU = the plain estimate
  CHECK(one.parallel.tp_allreduce_s == 0);
  const auto two = estimate(m, fp16_layout(2), &a100);
  CHECK(two.parallel.total_gpus == 2);
  CHECK(two.parallel.fits_per_gpu);
  CHECK(two.parallel.tp_allreduce_s > 0);
  CHECK(two.parallel.weights_per_gpu < one.parallel.weights_per_gpu * 0.5001);
  CHECK(two.parallel.weights_per_gpu > one.parallel.weights_per_gpu * 0.4999);
}

TEST_CASE("TP all-reduce: 2 per layer, ring volume 2(N-1)/N of the message (Megatron-LM)") {
  // Shoeybi et al. 2019: two all-reduces per transformer layer in the forward pass;
  // a ring all-reduce moves 2(N-1)/N of the message per GPU (Patarasuk & Yuan 2009).
  const auto& m = test::model("meta-llama/Llama-2-70b-hf");
  const auto& a100 = find_gpu("A100-80GB-SXM");
  auto s = fp16_layout(8);
  s.sequence_length = 1000;
  s.parallel.link_latency_s = 0;
  const auto r = estimate(m, s, &a100);
  const double bw = a100.interconnect_bandwidth_bytes_per_s / 2;  // per direction
  const double message = 1000.0 * 8192 * 2;                       // tokens x hidden x fp16
  CHECK(r.parallel.tp_allreduce_bytes == message);
  CHECK(r.parallel.tp_allreduce_s == Approx(80 * 2 * (2.0 * 7 / 8 * message / bw)).epsilon(1e-12));
  s.parallel.link_latency_s = 1e-5;
  const auto with_latency = estimate(m, s, &a100);
  CHECK(with_latency.parallel.tp_allreduce_s - r.parallel.tp_allreduce_s == Approx(80 * 2 * 14 * 1e-5).epsilon(1e-9));
  // Latency with communication: the per-GPU roofline divided by TP, plus the all-reduces.
  CHECK(r.parallel.prefill_latency_s ==
        Approx(r.perf.prefill_latency_s / 8 + r.parallel.tp_allreduce_s).epsilon(1e-12));
}

TEST_CASE("parallel attention needs one all-reduce per layer") {
  const auto& neox = test::model("EleutherAI/gpt-neox-20b");
  auto s = fp16_layout(2);
  s.parallel.link_latency_s = 0;
  const auto r = estimate(neox, s, &find_gpu("A100"));
  const double message = 2048.0 * 6144 * 2;
  CHECK(r.parallel.tp_allreduce_s == Approx(44 * (1.0 * message / (600e9 / 2))).epsilon(1e-12));
}

TEST_CASE("pipeline stages split layers, sends and the training bubble") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  auto s = fp16_layout(1, 4);
  s.parallel.link_latency_s = 0;
  const auto r = estimate(m, s, &find_gpu("H100"));
  CHECK(r.parallel.layers_per_stage == 8);
  CHECK(r.parallel.pp_send_s == Approx(3 * 2048.0 * 4096 * 2 / (900e9 / 2)).epsilon(1e-12));
  CHECK(r.parallel.weights_per_gpu < r.memory.weights / 3.5);
  s.training = true;
  s.parallel.num_microbatches = 12;
  const auto t = estimate(m, s, &find_gpu("H100"));
  CHECK(t.parallel.pp_bubble_fraction == Approx(3.0 / 15));  // (p-1)/(m+p-1), GPipe / 1F1B
}

TEST_CASE("data parallelism splits the batch and all-reduces gradients in training") {
  const auto& m = test::model("meta-llama/Llama-2-7b-hf");
  auto s = fp16_layout(1, 1, 4);
  s.batch_size = 8;
  s.training = true;
  s.parallel.link_latency_s = 0;
  const auto r = estimate(m, s, &find_gpu("A100"));
  CHECK(r.parallel.batch_per_replica == 2);
  const double grads = 6738415616.0 * 2;
  CHECK(r.parallel.dp_allreduce_s == Approx(2.0 * 3 / 4 * grads / 300e9).epsilon(1e-9));
}

TEST_CASE("expert parallelism divides routed experts and adds all-to-alls") {
  const auto& m = test::model("mistralai/Mixtral-8x7B-v0.1");
  flopcast::settings s;
  s.parallel.expert_parallel = 8;
  const auto r = estimate(m, s, &find_gpu("H100"));
  const auto one = estimate(m, flopcast::settings{}, &find_gpu("H100"));
  const double expert_bytes = 32.0 * 8 * 3 * 4096 * 14336 * 2;
  CHECK(one.parallel.weights_per_gpu - r.parallel.weights_per_gpu == Approx(expert_bytes * 7 / 8).epsilon(1e-12));
  CHECK(r.parallel.ep_alltoall_s > 0);
}

TEST_CASE("sequence parallelism shards the rest of the training activations") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  auto s = fp16_layout(4);
  s.training = true;
  s.gradient_checkpointing = false;
  const double without = estimate(m, s, &find_gpu("H100")).parallel.activations_per_gpu;
  s.parallel.sequence_parallel = true;
  const double with = estimate(m, s, &find_gpu("H100")).parallel.activations_per_gpu;
  CHECK(with < without);
}

TEST_CASE("layouts are validated against the model") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  auto s = fp16_layout(3);
  CHECK_THROWS_WITH(estimate(m, s, &find_gpu("H100")),
                    "[flopcast.invalid_argument] (/parallelism/tensor_parallel) expected a divisor of "
                    "num_attention_heads (32), but got 3");
  s = fp16_layout(1, 33);
  CHECK_THROWS_WITH(estimate(m, s, &find_gpu("H100")),
                    Catch::Contains("(/parallelism/pipeline_parallel) expected at most the number of layers (32)"));
  s = fp16_layout(1);
  s.parallel.expert_parallel = 2;
  CHECK_THROWS_WITH(estimate(m, s, &find_gpu("H100")),
                    Catch::Contains("(/parallelism/expert_parallel) expected 1 for a dense model"));
  s = fp16_layout(1, 1, 2);
  CHECK_THROWS_WITH(estimate(m, s, &find_gpu("H100")),
                    Catch::Contains("(/parallelism/data_parallel) expected at most the batch size (1)"));
}

TEST_CASE("a tensor-parallel group beyond the NVLink domain runs at the scale-out rate") {
  const auto& m = test::model("meta-llama/Llama-2-70b-hf");
  const auto& h100 = flopcast::find_gpu("H100");
  REQUIRE(h100.interconnect_domain_size == 8);  // HGX H100: 8 GPUs per NVLink domain
  flopcast::settings s;
  s.weight_precision = flopcast::precision::fp16;
  s.parallel.tensor_parallel = 8;
  const auto in = flopcast::estimate(m, s, &h100);
  CHECK(in.parallel.interconnect_bandwidth_bytes_per_s == h100.interconnect_bandwidth_bytes_per_s / 2);
  CHECK((in.notes & flopcast::note_beyond_domain) == 0);
  s.parallel.tensor_parallel = 16;
  s.batch_size = 1;
  const auto out = flopcast::estimate(m, s, &h100);
  CHECK(out.parallel.interconnect_bandwidth_bytes_per_s == 50e9);
  CHECK((out.notes & flopcast::note_beyond_domain) != 0);
  CHECK(out.parallel.tp_allreduce_decode_step_s > in.parallel.tp_allreduce_decode_step_s);
}
