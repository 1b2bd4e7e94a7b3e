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
  // Latency with communication: one GPU's roofline divided by TP, plus the all-reduces; the
  // estimate's headline is that layout's figure.
  auto single = s;
  single.parallel = flopcast::parallel_layout{};
  const auto one = estimate(m, single, &a100);
  CHECK(r.parallel.prefill_latency_s ==
        Approx(one.perf.prefill_latency_s / 8 + r.parallel.tp_allreduce_s).epsilon(1e-12));
  CHECK(r.perf.prefill_latency_s == r.parallel.prefill_latency_s);
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

TEST_CASE("one GPU's layout weighs exactly the plain estimate, for every bundled model and format") {
  // The layout's per-GPU memory takes each part's bytes as the estimate costed them (per-part
  // formats, a GGUF plan, a checkpoint's exact bytes): on one GPU the two must agree exactly.
  const auto& h100 = find_gpu("H100-SXM");
  for (const auto& rec : flopcast::model_records()) {
    const auto& m = rec.spec;
    for (const char* format : {"bf16", "fp8", "Q4_K_M", "experts-mxfp4", "exact-bytes"}) {
      flopcast::settings s;
      s.batch_size = 2;
      s.sequence_length = 512;
      if (std::string(format) == "experts-mxfp4") {
        s.component_precision[static_cast<std::size_t>(flopcast::weight_component::experts)] =
            flopcast::precision::mxfp4;
        s.component_precision[static_cast<std::size_t>(flopcast::weight_component::attention)] =
            flopcast::precision::fp8;
      } else if (std::string(format) == "exact-bytes") {
        s.weight_bytes = 1.7 * static_cast<double>(flopcast::count_parameters(m).total);
      } else {
        s.weight_precision = flopcast::parse_precision(format);
      }
      INFO(rec.id << " " << format);
      const auto r = estimate(m, s, &h100);
      CHECK(r.parallel.weights_per_gpu == Approx(r.memory.weights).epsilon(1e-9));
      CHECK(r.parallel.memory_per_gpu == Approx(r.memory.total).epsilon(1e-9));
    }
  }
}

TEST_CASE("a layout shards each part at its own format: gpt-oss-120b's MXFP4 experts beside bf16 attention") {
  // gpt-oss-120b's checkpoint keeps attention, router, embedding and head in bf16 and the experts
  // in MXFP4 (4.25 bits: 4-bit values plus one 8-bit scale per 32). At TP=2 every matrix halves
  // (norms and the router stay whole), so one GPU holds half of each part's bytes, give or take
  // the replicated norms and router (under 0.1%).
  const auto& m = test::model("openai/gpt-oss-120b");
  const auto& h100 = find_gpu("H100-SXM");
  flopcast::settings s;
  s.component_precision[static_cast<std::size_t>(flopcast::weight_component::experts)] = flopcast::precision::mxfp4;
  s.weight_precision = flopcast::precision::bf16;
  const auto one = estimate(m, s, &h100);
  s.parallel.tensor_parallel = 2;
  const auto two = estimate(m, s, &h100);
  const double experts = one.memory.weights_by_component[static_cast<std::size_t>(flopcast::weight_component::experts)];
  CHECK(experts / one.memory.weights > 0.8);  // the experts dominate, so a uniform rate would be far off
  CHECK(two.parallel.weights_per_gpu == Approx(one.memory.weights / 2).epsilon(1e-3));
  // A uniform bf16 rate (the old per-GPU rule) would put ~117 GB on each GPU instead of ~32 GB.
  CHECK(two.parallel.weights_per_gpu < 40e9);
}

TEST_CASE("with a layout the headline is the configuration: fit per GPU, latency, energy and cost of all GPUs") {
  // The link: Llama-2-70B fp16 on A100-80GB at TP=4. 68,976,648,192 parameters x 2 bytes
  // = 137.95 GB of weights: no fit on one 80 GiB GPU, about 34.5 GB each on four.
  const auto& m = test::model("meta-llama/Llama-2-70b-hf");
  const auto& a100 = find_gpu("A100-80GB-SXM");
  const auto one = estimate(m, fp16_layout(1), &a100);
  const auto four = estimate(m, fp16_layout(4), &a100);
  CHECK_FALSE(one.memory.fits_on_gpu);
  CHECK(four.memory.fits_on_gpu);
  CHECK(four.parallel.weights_per_gpu == Approx(68976648192.0 * 2 / 4).epsilon(1e-3));
  CHECK(four.perf.gpus == 4);
  CHECK(four.perf.prefill_latency_s == four.parallel.prefill_latency_s);
  CHECK(four.perf.decode_latency_per_token_s == four.parallel.decode_latency_per_token_s);
  CHECK(four.perf.total_request_latency_s == four.parallel.total_request_latency_s);
  CHECK(four.perf.prefill_latency_s < one.perf.prefill_latency_s / 3);
  const double watts = a100.tdp_watts * four.perf.gpus * flopcast::settings{}.power_utilization;
  CHECK(four.perf.energy_total_joules == Approx(four.perf.total_request_latency_s * watts).epsilon(1e-12));
  CHECK(four.perf.cost_usd ==
        Approx(four.perf.total_request_latency_s / 3600 * 4 * a100.cost_per_hour_usd).epsilon(1e-12));
  // Ranges move with their figure and still bracket it.
  CHECK(four.perf.prefill_latency_range.low < four.perf.prefill_latency_s);
  CHECK(four.perf.prefill_latency_range.high > four.perf.prefill_latency_s);
  CHECK(four.perf.cost_range.low < four.perf.cost_usd);
  CHECK(four.perf.cost_range.high > four.perf.cost_usd);
  // The JSON's top level says the same.
  const auto j = test::run({{"model", "llama-2-70b"},
                            {"gpu", "A100-80GB-SXM"},
                            {"precision", "fp16"},
                            {"parallelism", {{"tensor_parallel", 4}}}});
  CHECK(j["fits"] == true);
  CHECK(j["gpus"] == 4);
  CHECK(j["memory_per_gpu"].get<double>() == j["details"]["parallelism"]["per_gpu_memory_bytes"].get<double>());
  CHECK(j["latency"].get<double>() == j["details"]["parallelism"]["prefill_latency_s"].get<double>());
  CHECK(j["details"]["memory"]["fits_on_gpu"] == true);
  CHECK(j["memory_per_gpu"].get<double>() < j["details"]["memory"]["usable_gpu_memory"].get<double>());
  // Training: one step of the layout.
  auto t = fp16_layout(4);
  t.training = true;
  t.weight_precision = flopcast::precision::bf16;
  const auto tr = estimate(m, t, &a100);
  CHECK(tr.perf.training_step_s == tr.parallel.training_step_s);
  CHECK(tr.perf.energy_total_joules == Approx(tr.perf.training_step_s * watts).epsilon(1e-12));
}
