// flopcast_measure_bench: the part-5 figures of the measurement issue, printed honestly
// (a goal missed says MISS). Run on an idle machine:
//   ./build/flopcast_measure_bench [--threads T] [--quick]
// 1. machine peaks (STREAM, GEMM fp32, register-only FMA/int8);
// 2. tracker cost per record (goal: <= 100 ns);
// 3. prefill GEMM shapes of Llama-3.2-1B;
// 4. batch-1 decode of Llama-3.2-1B (4 layers, ~2 GB fp32, far beyond the LLC): weight
//    bytes read per second vs the measured bandwidth (goal: >= 60%), for fp32, bf16, int8;
// 5. prefill FLOP/s vs the measured GEMM peak (goal: >= 50%);
// 6. calibration: efficiencies from one run, then TTFT/TPOT predicted for other
//    configurations and compared with their measurement (goal: within 20%);
// 7. precision effects: logits of bf16 and int8 weights against fp32.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "flopcast/flopcast.hpp"
#include "flopcast/measure/decoder.hpp"
#include "flopcast/measure/machine.hpp"
#include "flopcast/measure/measure.hpp"
#include "flopcast/measure/tracker.hpp"

using namespace flopcast::measure;

namespace {

const char* verdict(bool ok) { return ok ? "PASS" : "MISS"; }

double tracker_ns_per_record() {
  latency_tracker t(4096);
  const std::int64_t n = 20'000'000;
  double best = 1e300;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = clock_type::now();
    for (std::int64_t i = 0; i < n; ++i) t.record(1e-6 * static_cast<double>(i & 1023), 1);
    best = std::min(best, seconds(t0, clock_type::now()));
  }
  volatile double sink = t.total_s();
  (void)sink;
  return best / static_cast<double>(n) * 1e9;
}

double scope_ns() {
  latency_tracker t(4096);
  const std::int64_t n = 2'000'000;
  const auto t0 = clock_type::now();
  for (std::int64_t i = 0; i < n; ++i) {
    auto s = t.time(1);
  }
  return seconds(t0, clock_type::now()) / static_cast<double>(n) * 1e9;
}

double gemm_rate(thread_pool& pool, std::int64_t m, std::int64_t n, std::int64_t k, weight_format f) {
  std::vector<float> a(static_cast<std::size_t>(m * k)), c(static_cast<std::size_t>(m * n));
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(i % 17) * 0.01f;
  const packed_matrix w = packed_matrix::build(n, k, f, pool, [&](std::int64_t row, float* out) {
    for (std::int64_t j = 0; j < k; ++j) out[j] = static_cast<float>((row + j) % 13) * 0.01f;
  });
  gemm(pool, m, a.data(), k, w, c.data(), n);
  double best = 1e300;
  for (int r = 0; r < 3; ++r) {
    const auto t0 = clock_type::now();
    gemm(pool, m, a.data(), k, w, c.data(), n);
    best = std::min(best, seconds(t0, clock_type::now()));
  }
  return 2.0 * static_cast<double>(m * n) * static_cast<double>(k) / best;
}

struct precision_effect {
  double max_rel = 0;
  int agree = 0, total = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int threads = 0;
  bool quick = false;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc)
      threads = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--quick"))
      quick = true;
  }
  if (threads <= 0) threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  thread_pool pool(threads);
  fmt::print("flopcast {} measurement benchmark: {} threads, kernels {}\n\n", flopcast::version(), threads,
             to_string(best_isa()));

  // 1. Machine.
  const machine_peaks mp = measure_machine(pool, {quick});
  const double bw = mp.bandwidth_bytes_per_s(), peak = mp.gemm_fp32_flops_per_s;
  fmt::print("1. machine ({}), LLC {:.0f} MiB, {:.1f} GiB RAM\n", mp.cpu_model, mp.llc_bytes / 1048576,
             mp.memory_total_bytes / 1073741824);
  fmt::print("   STREAM (arrays {} MiB): copy {:.2f}, scale {:.2f}, add {:.2f}, triad {:.2f}, read-only {:.2f} GB/s\n",
             mp.stream.array_bytes >> 20, mp.stream.copy / 1e9, mp.stream.scale / 1e9, mp.stream.add / 1e9,
             mp.stream.triad / 1e9, mp.stream.read / 1e9);
  fmt::print("   bandwidth used by the estimate (best of the five): {:.2f} GB/s\n", bw / 1e9);
  fmt::print(
      "   GEMM fp32 {}^3: {:.1f} GFLOP/s; register-only: FMA fp32 {:.1f}, fp64 {:.1f} GFLOP/s, int8 dot {:.1f} "
      "Gop/s\n\n",
      mp.gemm_size, peak / 1e9, mp.fma_fp32_flops_per_s / 1e9, mp.fma_fp64_flops_per_s / 1e9,
      mp.int8_dot_ops_per_s / 1e9);

  // 2. Tracker.
  const double ns = tracker_ns_per_record();
  fmt::print(
      "2. latency_tracker::record: {:.2f} ns per record (goal <= 100 ns: {}); a timed scope (two clock reads): {:.1f} "
      "ns\n\n",
      ns, verdict(ns <= 100), scope_ns());

  // 3. Prefill GEMM shapes (M = 128 tokens) of Llama-3.2-1B.
  fmt::print("3. GEMM, M = 128 (prefill of Llama-3.2-1B), fp32 weights:\n");
  struct shape {
    const char* name;
    std::int64_t n, k;
  };
  for (const shape s : {shape{"qkv 3072x2048", 3072, 2048}, shape{"o 2048x2048", 2048, 2048},
                        shape{"gate_up 16384x2048", 16384, 2048}, shape{"down 2048x8192", 2048, 8192}}) {
    const double r = gemm_rate(pool, 128, s.n, s.k, weight_format::f32);
    fmt::print("   {:<20} {:7.1f} GFLOP/s  {:5.1f}% of the GEMM peak\n", s.name, r / 1e9, 100 * r / peak);
  }
  fmt::print("\n");

  // 4-5. Decode and prefill of Llama-3.2-1B, 4 layers.
  const auto& llama = flopcast::find_model("llama-3.2-1b").spec;
  measure_options base;
  base.layers = 4;
  base.prompt_tokens = 128;
  base.generated_tokens = quick ? 8 : 32;
  base.threads = threads;
  base.repetitions = quick ? 1 : 3;
  base.machine = mp;
  fmt::print("4-5. Llama-3.2-1B, 4 of 16 layers, batch 1, prompt {}, {} generated:\n", base.prompt_tokens,
             base.generated_tokens);
  measure_result fp32_run;
  for (auto w : {weight_format::f32, weight_format::bf16, weight_format::i8}) {
    measure_options o = base;
    o.weights = w;
    const measure_result r = run_measurement(llama, o);
    if (w == weight_format::f32) fp32_run = r;
    const double weight_bw = r.decode_weight_bandwidth_bytes_per_s.value_or(0);
    const double prefill_rate = r.prefill_flops_per_s.value_or(0);
    fmt::print(
        "   {:<5} weights {:6.2f} GB: TTFT {:7.1f} ms ± {:.1f}, TPOT {:7.2f} ms ± {:.2f} (p50 {:.2f}, p99 {:.2f})\n",
        to_string(w), r.decode_counts.weight_bytes / static_cast<double>(o.generated_tokens - 1) / 1e9,
        r.ttft.mean_s * 1e3, r.ttft.stddev_s * 1e3, r.tpot.mean_s * 1e3, r.tpot.stddev_s * 1e3, r.tpot.p50_s * 1e3,
        r.tpot.p99_s * 1e3);
    fmt::print("         decode reads weights at {:.2f} GB/s = {:.1f}% of the measured bandwidth{}\n", weight_bw / 1e9,
               100 * weight_bw / bw,
               w == weight_format::f32 ? fmt::format(" (goal >= 60%: {})", verdict(weight_bw >= 0.6 * bw)) : "");
    fmt::print("         prefill {:.1f} GFLOP/s = {:.1f}% of the measured GEMM peak{}\n", prefill_rate / 1e9,
               100 * prefill_rate / peak,
               w == weight_format::f32 ? fmt::format(" (goal >= 50%: {})", verdict(prefill_rate >= 0.5 * peak)) : "");
  }
  fmt::print("\n");

  // 6. Calibration: from the fp32 run above, predict other configurations.
  const calibration_result& cal = fp32_run.calibration;
  fmt::print("6. calibration from that fp32 run: compute_efficiency {:.3f}, mem_efficiency {:.3f}\n",
             cal.compute_efficiency, cal.mem_efficiency);
  fmt::print("   uncalibrated (peak) error on that run: TTFT {:+.1f}%, TPOT {:+.1f}%\n",
             *fp32_run.find("ttft_s")->error_pct, *fp32_run.find("tpot_s")->error_pct);
  struct held_out {
    const char* name;
    std::int64_t layers, prompt, gen, batch;
  };
  bool all_within = true;
  for (const held_out h :
       {held_out{"4 layers, prompt 128, gen 32 (a new run)", 4, 128, 32, 1},
        held_out{"2 layers, prompt 256, gen 16", 2, 256, 16, 1}, held_out{"6 layers, prompt 64, gen 16", 6, 64, 16, 1},
        held_out{"4 layers, batch 2, prompt 96, gen 16", 4, 96, 16, 2}}) {
    measure_options o = base;
    o.layers = h.layers;
    o.prompt_tokens = h.prompt;
    o.generated_tokens = quick ? 6 : h.gen;
    o.batch_size = h.batch;
    o.calibration = efficiencies{cal.compute_efficiency, cal.mem_efficiency};
    const measure_result r = run_measurement(llama, o);
    const double e_ttft = *r.find("ttft_s")->error_pct, e_tpot = *r.find("tpot_s")->error_pct;
    const bool ok = std::fabs(e_ttft) <= 20 && std::fabs(e_tpot) <= 20;
    all_within = all_within && ok;
    fmt::print("   {:<40} TTFT {:7.1f} ms est {:7.1f} ({:+5.1f}%)  TPOT {:6.2f} ms est {:6.2f} ({:+5.1f}%)  {}\n",
               h.name, r.ttft.mean_s * 1e3, r.estimate.perf.prefill_latency_s * 1e3, e_ttft, r.tpot.mean_s * 1e3,
               r.estimate.perf.decode_latency_per_token_s * 1e3, e_tpot, verdict(ok));
  }
  fmt::print("   calibrated estimates within 20% of the measurement: {}\n\n", verdict(all_within));

  // 7. Precision effects on the logits (Llama-3.2-1B, 2 layers, prompt 32).
  fmt::print("7. precision effects (Llama-3.2-1B, 2 layers, 4 prompts of 32 tokens): logits vs fp32\n");
  {
    const flopcast::model_spec m = first_layers(llama, 2);
    std::vector<std::vector<float>> logits;
    const std::int64_t B = 4, S = 32, V = m.vocab_size;
    std::vector<std::int32_t> prompt(static_cast<std::size_t>(B * S));
    for (std::size_t i = 0; i < prompt.size(); ++i) prompt[i] = static_cast<std::int32_t>((i * 7919 + 13) % V);
    for (auto w : {weight_format::f32, weight_format::bf16, weight_format::i8}) {
      decoder_options o;
      o.weights = w;
      o.batch = B;
      o.max_tokens = S;
      decoder d(m, o, pool);
      std::vector<float> out(static_cast<std::size_t>(B * V));
      d.prefill(prompt.data(), S, out.data());
      logits.push_back(out);
    }
    const auto ref_top = argmax_rows(logits[0].data(), B, V);
    double scale = 0;
    for (float v : logits[0]) scale = std::max(scale, static_cast<double>(std::fabs(v)));
    for (int i = 1; i < 3; ++i) {
      double worst = 0;
      for (std::size_t j = 0; j < logits[0].size(); ++j)
        worst = std::max(worst, static_cast<double>(std::fabs(logits[i][j] - logits[0][j])));
      const auto top = argmax_rows(logits[i].data(), B, V);
      int agree = 0;
      for (std::int64_t b = 0; b < B; ++b)
        agree += top[static_cast<std::size_t>(b)] == ref_top[static_cast<std::size_t>(b)];
      fmt::print("   {:<5} max |logit - fp32| = {:.2e} ({:.3f}% of max |logit|), greedy token agrees {}/{}\n",
                 i == 1 ? "bf16" : "int8", worst, 100 * worst / scale, agree, B);
    }
  }
  return 0;
}
