// Roofline latency, energy, CO2 and cost.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"

using flopcast::bound;
using flopcast::estimate;
using flopcast::find_gpu;

TEST_CASE("prefill is max(compute, memory) with the bound named") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& a100 = find_gpu("A100");
  flopcast::settings s;
  s.batch_size = 4;
  const auto r = estimate(m, s, &a100);
  const auto& p = r.perf;
  CHECK(p.peak_flops_per_s == 312e12);
  CHECK(p.prefill_compute_s == Approx(r.prefill.parts.total / (312e12 * 0.5)).epsilon(1e-12));
  CHECK(p.prefill_latency_s == std::max(p.prefill_compute_s, p.prefill_memory_s));
  CHECK(p.prefill_bound == bound::compute);
  // One token of prompt: weight streaming dominates.
  s.batch_size = 1;
  s.sequence_length = 1;
  CHECK(estimate(m, s, &a100).perf.prefill_bound == bound::memory);
}

TEST_CASE("decode re-reads weights and the KV cache, the bandwidth ceiling is never crossed") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& h100 = find_gpu("H100");
  for (int b : {1, 8, 64, 512}) {
    for (int q : {128, 4096}) {
      flopcast::settings s;
      s.batch_size = b;
      s.sequence_length = q;
      s.mem_efficiency = 1.0;
      s.compute_efficiency = 1.0;
      const auto r = estimate(m, s, &h100);
      INFO("batch " << b << " seq " << q);
      CHECK(r.perf.decode_tokens_per_second <= r.perf.decode_ceiling_tokens_per_second * (1 + 1e-12));
      // Bytes of the first step: weights (minus the untied table, plus gathered rows) + KV.
      const double weights = (8030261248.0 - 128256.0 * 4096 + std::min(b, 128256) * 4096.0) * 2;
      const double kv_read = b * (q + 1.0) * r.memory.kv_cache_per_token;
      const double kv_write = b * r.memory.kv_cache_per_token;
      CHECK(r.perf.decode_first_step_bytes == Approx(weights + kv_read + kv_write).epsilon(1e-12));
    }
  }
}

TEST_CASE("decode total is the exact sum over the growing context") {
  // Brute force: one step at a time, with the same per-step model.
  for (const char* name : {"meta-llama/Meta-Llama-3-8B", "google/gemma-2-9b", "mistralai/Mistral-7B-v0.1",
                           "deepseek-ai/DeepSeek-V2-Lite", "google-t5/t5-small"}) {
    const auto& m = test::model(name);
    const auto& gpu = find_gpu("L4");
    flopcast::settings s;
    s.sequence_length = 4000;
    s.num_generated_tokens = 300;
    s.batch_size = 48;
    const auto r = estimate(m, s, &gpu);
    double brute = 0;
    const bool encdec = m.arch == flopcast::architecture::encoder_decoder;
    for (std::int64_t k = 0; k < s.num_generated_tokens - 1; ++k) {
      // A request whose prompt is the context of step k has that step as its first decode step.
      flopcast::settings t = s;
      if (encdec) continue;
      t.sequence_length = s.sequence_length + k;
      brute += estimate(m, t, &gpu).perf.decode_first_step_s;
    }
    INFO(name);
    if (!encdec) CHECK(r.perf.decode_total_s == Approx(brute).epsilon(1e-9));
    CHECK(r.perf.decode_total_s > 0);
    CHECK(r.perf.total_request_latency_s == Approx(r.perf.prefill_latency_s + r.perf.decode_total_s).epsilon(1e-12));
  }
}

TEST_CASE("energy = time x TDP x utilisation, CO2 and cost follow") {
  const auto& m = test::model("mistralai/Mistral-7B-v0.1");
  const auto& gpu = find_gpu("H100-SXM");
  flopcast::settings s;
  s.power_utilization = 0.5;
  s.carbon_intensity_g_per_kwh = 100;
  s.cost_per_hour_usd = 3.6;
  const auto r = estimate(m, s, &gpu);
  const double t = r.perf.total_request_latency_s;
  CHECK(r.perf.energy_total_joules == Approx(t * gpu.tdp_watts * 0.5).epsilon(1e-12));
  CHECK(r.perf.co2_grams == Approx(r.perf.energy_total_joules / 3.6e6 * 100).epsilon(1e-12));
  CHECK(r.perf.cost_usd == Approx(t / 3600 * 3.6).epsilon(1e-12));
  s.cost_per_hour_usd.reset();
  CHECK(estimate(m, s, &gpu).perf.cost_per_hour_usd == gpu.cost_per_hour_usd);
}

TEST_CASE("every knob changes the answer it should") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& gpu = find_gpu("A100");
  flopcast::settings s;
  s.batch_size = 8;
  const auto base = estimate(m, s, &gpu);
  auto with = [&](auto change) {
    flopcast::settings t = s;
    change(t);
    return estimate(m, t, &gpu);
  };
  CHECK(with([](auto& t) { t.compute_efficiency = 0.25; }).perf.prefill_latency_s ==
        Approx(2 * base.perf.prefill_latency_s));
  CHECK(with([](auto& t) { t.mem_efficiency = 0.4; }).perf.decode_first_step_s ==
        Approx(2 * base.perf.decode_first_step_s));
  CHECK(with([](auto& t) { t.power_utilization = 0.425; }).perf.energy_total_joules ==
        Approx(base.perf.energy_total_joules / 2));
  CHECK(with([](auto& t) { t.carbon_intensity_g_per_kwh = 800; }).perf.co2_grams == Approx(2 * base.perf.co2_grams));
  CHECK(with([](auto& t) { t.causal = true; }).forward.parts.attention < base.forward.parts.attention);
  CHECK(with([](auto& t) { t.kv_cache_precision = flopcast::precision::fp8; }).memory.kv_cache ==
        base.memory.kv_cache / 2);
  CHECK(with([](auto& t) { t.flash_attention = false; }).memory.activations > base.memory.activations);
  CHECK(with([](auto& t) { t.num_generated_tokens = 256; }).perf.total_request_latency_s >
        base.perf.total_request_latency_s);
  CHECK(with([](auto& t) { t.weight_precision = flopcast::precision::fp32; }).perf.peak_flops_per_s == 19.5e12);
  CHECK(with([](auto& t) { t.weight_precision = flopcast::precision::tf32; }).perf.peak_flops_per_s == 156e12);
}

TEST_CASE("a precision the GPU lacks falls back and says so") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  flopcast::settings s;
  s.weight_precision = flopcast::precision::fp8;
  const auto on_a100 = estimate(m, s, &find_gpu("A100"));  // Ampere: no fp8
  CHECK(on_a100.perf.compute_precision == flopcast::compute_unit::bf16);
  CHECK((on_a100.notes & flopcast::note_compute_fallback) != 0);
  const auto on_h100 = estimate(m, s, &find_gpu("H100"));
  CHECK(on_h100.perf.compute_precision == flopcast::compute_unit::fp8);
  CHECK((on_h100.notes & flopcast::note_compute_fallback) == 0);
  s.weight_precision = flopcast::precision::int4;  // weight-only: fp16 matmuls
  CHECK(estimate(m, s, &find_gpu("H100")).perf.compute_precision == flopcast::compute_unit::fp16);
}

TEST_CASE("fits_on_gpu compares the right total") {
  const auto& m = test::model("meta-llama/Llama-2-70b-hf");
  flopcast::settings s;
  s.weight_precision = flopcast::precision::fp16;
  CHECK_FALSE(estimate(m, s, &find_gpu("A100-80GB-SXM")).memory.fits_on_gpu);
  CHECK(estimate(m, s, &find_gpu("MI300X")).memory.fits_on_gpu);
  s.weight_precision = flopcast::precision::int4;
  CHECK(estimate(m, s, &find_gpu("A100-80GB-SXM")).memory.fits_on_gpu);
  s.training = true;
  s.weight_precision = flopcast::precision::bf16;
  CHECK_FALSE(estimate(m, s, &find_gpu("MI300X")).memory.fits_on_gpu);
}

TEST_CASE("encoder-only models have no decode") {
  flopcast::settings s;
  s.sequence_length = 512;
  const auto r = estimate(test::model("bert-base"), s, &find_gpu("T4"));
  CHECK(r.memory.kv_cache == 0);
  CHECK(r.perf.total_request_latency_s == r.perf.prefill_latency_s);
  CHECK((r.notes & flopcast::note_encoder_no_decode) != 0);
}
