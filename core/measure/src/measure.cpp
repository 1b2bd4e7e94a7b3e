// flopcast measure: the suite of measurement tasks and the comparison with estimate().
#include "flopcast/measure/measure.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <thread>

#include "flopcast/base/error.hpp"
#include "flopcast/estimate/calibration.hpp"
#include "flopcast/measure/phase_profiler.hpp"
#include "text.hpp"

namespace flopcast::measure {

const comparison_row* measure_result::find(std::string_view metric) const noexcept {
  for (const auto& c : comparison)
    if (c.metric == metric) return &c;
  return nullptr;
}

namespace {

[[noreturn]] void bad(const char* field, const std::string& message) {
  throw error(error_code::invalid_argument, field, message);
}

void check_count(std::int64_t v, const char* field, std::int64_t max) {
  if (v < 1) bad(field, "expected an integer >= 1, but got " + std::to_string(v));
  if (v > max) bad(field, "expected an integer <= " + std::to_string(max) + ", but got " + std::to_string(v));
}

int resolve_threads(int threads) {
  if (threads > 0) return threads;
  const unsigned hw = std::thread::hardware_concurrency();
  return hw > 0 ? static_cast<int>(hw) : 1;
}

precision to_precision(weight_format f) {
  switch (f) {
    case weight_format::f32:
      return precision::fp32;
    case weight_format::bf16:
      return precision::bf16;
    case weight_format::i8:
      return precision::int8;
  }
  return precision::fp32;
}

decoder_options decoder_options_for(const measure_options& o) {
  decoder_options d;
  d.weights = o.weights;
  d.kv = o.kv_cache;
  d.batch = o.batch_size;
  d.max_tokens = o.prompt_tokens + o.generated_tokens;
  d.max_prefill_tokens = o.prompt_tokens;
  d.seed = o.seed;
  return d;
}

settings settings_for(const measure_options& o, efficiencies e) {
  settings s;
  s.batch_size = o.batch_size;
  s.sequence_length = o.prompt_tokens;
  s.num_generated_tokens = o.generated_tokens;
  s.weight_precision = to_precision(o.weights);
  s.kv_cache_precision = o.kv_cache == kv_format::i8 ? precision::int8 : precision::fp32;
  s.causal = true;  // the decoder computes the causal pairs only
  s.compute_efficiency = e.compute_efficiency;
  s.mem_efficiency = e.mem_efficiency;
  return s;
}

// Memory a run needs before it starts: the decoder's allocation, the estimator's inference
// total (weights, KV cache, activations) and the STREAM arrays, whichever is largest.
struct memory_need {
  double bytes = 0;
  decoder_memory decoder;
  double estimated = 0;
};
memory_need memory_needed(const model_spec& m, const measure_options& o) {
  memory_need n;
  n.decoder = decoder_memory_for(m, decoder_options_for(o));
  n.estimated = estimate(m, settings_for(o, {}), nullptr).memory.total;
  const double llc = last_level_cache_bytes() > 0 ? last_level_cache_bytes() : 32.0 * 1024 * 1024;
  const double stream = o.machine ? 0.0 : 3.0 * std::max(4 * llc, 128.0 * 1024 * 1024);
  n.bytes = std::max({n.decoder.total(), n.estimated, stream});
  return n;
}

}  // namespace

settings measurement_settings(const measure_options& o, efficiencies e) { return settings_for(o, e); }

namespace {

std::string gb(double b) { return fmt::format("{:.2f} GB", b / 1e9); }

}  // namespace

model_spec check_measurement(const model_spec& m, const measure_options& o) {
  constexpr std::int64_t max_tokens = std::int64_t{1} << 20;
  check_count(o.prompt_tokens, "/prompt_tokens", max_tokens);
  check_count(o.generated_tokens, "/generated_tokens", max_tokens);
  check_count(o.batch_size, "/batch_size", 4096);
  if (o.threads < 0 || o.threads > 1024)
    bad("/threads", "expected an integer >= 1 (or 0: every hardware thread), but got " + std::to_string(o.threads));
  check_count(o.repetitions, "/repetitions", 1000);
  if (o.layers < 0) bad("/layers", "expected an integer >= 1, but got " + std::to_string(o.layers));
  (void)decoder_shape_of(m);  // unsupported architectures first
  const model_spec run = o.layers > 0 ? first_layers(m, o.layers) : m;
  if (o.batch_size * (o.prompt_tokens + o.generated_tokens) > (std::int64_t{1} << 24))
    bad("/batch_size", "batch x (prompt + generated tokens) is " +
                           std::to_string(o.batch_size * (o.prompt_tokens + o.generated_tokens)) +
                           ", expected at most 2^24");

  const double available = available_memory_bytes();
  const memory_need need = memory_needed(run, o);
  if (available > 0 && need.bytes > 0.9 * available) {
    // The most layers that would fit, to say what to do.
    std::int64_t fits = 0;
    for (std::int64_t n = run.num_layers - 1; n >= 1 && fits == 0; --n) {
      measure_options smaller = o;
      smaller.layers = n;
      if (memory_needed(first_layers(m, n), smaller).bytes <= 0.9 * available) fits = n;
    }
    std::string advice;
    const bool tokens_dominate = need.decoder.kv_cache + need.decoder.scratch > need.decoder.weights;
    if (tokens_dominate) {
      advice = "use a smaller --prompt, --gen or --batch, or --kv-cache int8";
    } else if (fits > 0) {
      advice = fmt::format("use --layers N with N <= {}", fits);
      if (o.weights != weight_format::i8) advice += ", or --precision bf16 or int8";
    } else {
      measure_options one = o;
      one.layers = 1;
      one.weights = weight_format::i8;
      const bool int8_fits = memory_needed(first_layers(m, 1), one).bytes <= 0.9 * available;
      advice = o.weights != weight_format::i8 && int8_fits
                   ? "even one layer does not fit in " + std::string(to_string(o.weights)) +
                         ": try --layers 1 --precision int8"
                   : std::string("even one layer in int8 does not fit on this machine");
    }
    bad("/memory", fmt::format("the run needs {} (decoder: weights {}, KV cache {}, activations {}; estimate: {}) but "
                               "{} of memory is available on this machine: {}",
                               gb(need.bytes), gb(need.decoder.weights), gb(need.decoder.kv_cache),
                               gb(need.decoder.scratch), gb(need.estimated), gb(available), advice));
  }
  return run;
}

calibration_result calibrate_from(const model_spec& m, settings s, const hardware_spec& hw, double ttft_s,
                                  std::optional<double> tpot_s) {
  // The core's fitting rule (flopcast::fit_efficiencies, as `flopcast calibrate` uses), from
  // the peaks: a figure beyond them is clamped to 1, and a memory-bound prefill after a
  // memory-bound decode keeps the decode's bandwidth.
  s.compute_efficiency = 1.0;
  s.mem_efficiency = 1.0;
  fit_targets targets;
  if (ttft_s > 0) targets.time_to_first_token_s = ttft_s;
  if (tpot_s && *tpot_s > 0 && s.num_generated_tokens > 1) targets.decode_step_s = *tpot_s;
  const efficiency_fit fit = fit_efficiencies(m, s, hw, targets, fit_options{true, true});
  calibration_result c;
  c.clamped = fit.clamped;
  c.compute_efficiency = fit.compute_efficiency.value_or(1.0);
  c.mem_efficiency = fit.mem_efficiency.value_or(1.0);
  const char* const unmeasured = "not measurable from this run: left at 1";
  c.compute_basis = fit.prefill_bound == bound::compute ? "prefill: FLOPs / (peak FLOP/s x measured TTFT)"
                    : fit.decode_bound == bound::compute
                        ? "decode (compute-bound at peak): FLOPs per step / (peak FLOP/s x measured TPOT)"
                        : unmeasured;
  c.mem_basis = fit.decode_bound == bound::memory ? "decode: bytes per step / (bandwidth x measured TPOT)"
                : fit.prefill_bound == bound::memory
                    ? "prefill (memory-bound at peak): bytes / (bandwidth x measured TTFT)"
                    : unmeasured;
  return c;
}

// ---------------------------------------------------------------------------------------
// The tasks. They share the result being built.

namespace {

struct shared_state {
  measure_result& r;
  const measure_options& o;
  std::vector<phase_report> reports;
};

double mean(const std::vector<double>& v) {
  return v.empty() ? 0.0 : std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size());
}

class machine_task final : public measure_task {
 public:
  explicit machine_task(shared_state& s) : s_(s) {}
  std::string_view name() const override { return "machine"; }
  double weight() const override { return s_.o.machine ? 0.05 : 2.0; }
  void run(task_context& ctx) override {
    measure_result& r = s_.r;
    if (s_.o.machine) {
      r.machine = *s_.o.machine;
      ctx.log("reusing a machine measurement");
    } else {
      ctx.progress(0, "STREAM and GEMM microbenchmarks");
      r.machine = measure_machine(ctx.pool(), {s_.o.quick_machine});
    }
    r.hardware = to_hardware_spec(r.machine);
    const machine_peaks& m = r.machine;
    const auto meas = [](double v) {
      return v > 0 ? figure::measured(v) : figure::unavailable("not measured with these kernels");
    };
    ctx.emit("memory_total_bytes", figure::measured(m.memory_total_bytes, "sysconf"), "B");
    ctx.emit("memory_available_bytes", figure::measured(m.memory_available_bytes, "/proc/meminfo MemAvailable"), "B");
    ctx.emit("llc_bytes", m.llc_bytes > 0 ? figure::measured(m.llc_bytes, "sysfs") : figure::unavailable("unknown"),
             "B");
    ctx.emit("stream_copy_bytes_per_s", meas(m.stream.copy), "B/s");
    ctx.emit("stream_scale_bytes_per_s", meas(m.stream.scale), "B/s");
    ctx.emit("stream_add_bytes_per_s", meas(m.stream.add), "B/s");
    ctx.emit("stream_triad_bytes_per_s", meas(m.stream.triad), "B/s");
    ctx.emit("stream_read_bytes_per_s", meas(m.stream.read), "B/s");
    ctx.emit("bandwidth_bytes_per_s",
             figure::measured(m.bandwidth_bytes_per_s(), "best of the STREAM-style kernels: the estimate's bandwidth"),
             "B/s");
    ctx.emit("gemm_fp32_flops_per_s", meas(m.gemm_fp32_flops_per_s), "FLOP/s");
    ctx.emit("fma_fp32_flops_per_s", meas(m.fma_fp32_flops_per_s), "FLOP/s");
    ctx.emit("fma_fp64_flops_per_s", meas(m.fma_fp64_flops_per_s), "FLOP/s");
    ctx.emit("int8_dot_ops_per_s", meas(m.int8_dot_ops_per_s), "op/s");
    ctx.emit("tdp_watts",
             figure::estimated(r.hardware.tdp_watts, "placeholder, not measured: a CPU's power cannot be read here"),
             "W");
  }

 private:
  shared_state& s_;
};

class generate_task final : public measure_task {
 public:
  explicit generate_task(shared_state& s) : s_(s) {}
  std::string_view name() const override { return "generate"; }
  double weight() const override { return 6.0; }
  void run(task_context& ctx) override {
    measure_result& r = s_.r;
    const measure_options& o = s_.o;
    const std::int64_t B = o.batch_size, S = o.prompt_tokens, steps = o.generated_tokens - 1;
    const decoder_options dopt = decoder_options_for(o);
    r.memory = decoder_memory_for(r.model, dopt);
    ctx.progress(0, "random weights");
    decoder dec(r.model, dopt, ctx.pool());
    const std::int64_t V = dec.shape().vocab;
    ctx.log(fmt::format("weights {} ({}), KV cache {} at capacity", text::bytes(dec.weight_bytes()),
                        to_string(o.weights), text::bytes(r.memory.kv_cache)));
    ctx.emit("weight_bytes", figure::measured(dec.weight_bytes(), "as stored"), "B");

    // Prompts: pseudo-random token ids, different per sequence.
    std::vector<std::int32_t> prompt(static_cast<std::size_t>(B * S));
    std::uint64_t state = 0x9e3779b97f4a7c15ull ^ o.seed;
    for (auto& t : prompt) {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      t = static_cast<std::int32_t>((state >> 33) % static_cast<std::uint64_t>(V));
    }
    std::vector<float> logits(static_cast<std::size_t>(B * V));

    // Warm-up: a short prefill and one step (page faults, clocks, caches), then forget it.
    {
      const std::int64_t w = std::min<std::int64_t>(S, 8);
      std::vector<std::int32_t> short_prompt;
      for (std::int64_t b = 0; b < B; ++b)
        short_prompt.insert(short_prompt.end(), prompt.begin() + b * S, prompt.begin() + b * S + w);
      ctx.progress(0.05, "warm-up");
      dec.prefill(short_prompt.data(), w, logits.data());
      if (steps > 0) {
        auto next = argmax_rows(logits.data(), B, V);
        dec.decode(next.data(), logits.data());
      }
      dec.reset();
      dec.reset_counts();
      dec.reset_kv_profiles();
    }

    const auto kv_start = clock_type::now();
    const double per_rep = 0.9 / static_cast<double>(o.repetitions);
    for (int rep = 0; rep < o.repetitions; ++rep) {
      dec.reset();
      phase_profiler prof(static_cast<std::size_t>(std::max<std::int64_t>(steps, 1)));
      const op_counts c0 = dec.counts();
      ctx.progress(0.1 + per_rep * rep, fmt::format("run {}/{}: prefill {} tokens", rep + 1, o.repetitions, B * S));
      prof.begin_prefill();
      dec.prefill(prompt.data(), S, logits.data());
      auto next = argmax_rows(logits.data(), B, V);
      prof.end_prefill(B * S);
      const op_counts cp = dec.counts() - c0;
      prof.record_kv_bytes(dec.kv_bytes());
      op_counts first_step;
      std::vector<double> samples;
      for (std::int64_t step = 0; step < steps; ++step) {
        const op_counts before = dec.counts();
        prof.begin_decode_step();
        dec.decode(next.data(), logits.data());
        next = argmax_rows(logits.data(), B, V);
        prof.end_decode_step(B);
        if (step == 0) first_step = dec.counts() - before;
        if ((step & 3) == 0)
          ctx.progress(0.1 + per_rep * (rep + 0.3 + 0.7 * static_cast<double>(step) / static_cast<double>(steps)),
                       fmt::format("run {}/{}: decode {}/{}", rep + 1, o.repetitions, step + 1, steps));
      }
      prof.record_kv_bytes(dec.kv_bytes());
      const op_counts cd = dec.counts() - c0 - cp;
      prof.add_work(phase::prefill, cp.flops(), cp.bytes(), source_label::measured);
      if (steps > 0) prof.add_work(phase::decode, cd.flops(), cd.bytes(), source_label::measured);
      s_.reports.push_back(prof.report());
      r.ttft_samples_s.push_back(*s_.reports.back().ttft_s.value);
      r.decode_samples_s.push_back(s_.reports.back().decode_samples_s);
      if (rep == 0) {
        r.prefill_counts = cp;
        r.decode_counts = cd;
        r.decode_first_step_counts = first_step;
      }
      ctx.log(fmt::format("run {}: TTFT {}, {} decode steps", rep + 1, text::duration(r.ttft_samples_s.back()), steps));
      ctx.emit(fmt::format("run{}_ttft_s", rep + 1), figure::measured(r.ttft_samples_s.back()), "s");
    }
    r.kv = dec.kv_report(seconds(kv_start, clock_type::now()));
  }

 private:
  shared_state& s_;
};

class latency_task final : public measure_task {
 public:
  explicit latency_task(shared_state& s) : s_(s) {}
  std::string_view name() const override { return "latency"; }
  double weight() const override { return 0.05; }
  void run(task_context& ctx) override {
    measure_result& r = s_.r;
    const std::int64_t B = s_.o.batch_size;
    r.ttft = summarize(r.ttft_samples_s, std::vector<std::int64_t>(r.ttft_samples_s.size(), B * s_.o.prompt_tokens));
    std::vector<double> steps;
    for (const auto& rep : r.decode_samples_s) steps.insert(steps.end(), rep.begin(), rep.end());
    r.tpot = summarize(steps, std::vector<std::int64_t>(steps.size(), B));
    const auto n = r.ttft.samples;
    ctx.emit("ttft_s", figure::measured(r.ttft.mean_s), "s", r.ttft.stddev_s, n);
    if (r.tpot.samples > 0) {
      ctx.emit("tpot_s", figure::measured(r.tpot.mean_s), "s", r.tpot.stddev_s, r.tpot.samples);
      ctx.emit("tpot_p50_s", figure::measured(r.tpot.p50_s), "s");
      ctx.emit("tpot_p90_s", figure::measured(r.tpot.p90_s), "s");
      ctx.emit("tpot_p95_s", figure::measured(r.tpot.p95_s), "s");
      ctx.emit("tpot_p99_s", figure::measured(r.tpot.p99_s), "s");
    } else {
      ctx.emit("tpot_s", figure::unavailable("one generated token: no decode step (use --gen 2 or more)"), "s");
    }
    ctx.emit("total_request_s",
             figure::measured(r.ttft.mean_s + r.tpot.mean_s * static_cast<double>(s_.o.generated_tokens - 1)), "s");
  }

 private:
  shared_state& s_;
};

class throughput_task final : public measure_task {
 public:
  explicit throughput_task(shared_state& s) : s_(s) {}
  std::string_view name() const override { return "throughput"; }
  double weight() const override { return 0.05; }
  void run(task_context& ctx) override {
    measure_result& r = s_.r;
    const auto& reps = s_.reports;
    const auto avg = [&](figure phase_report::*field, const char* why) {
      std::vector<double> v;
      source_label label = source_label::measured;
      for (const auto& rep : reps) {
        const figure& f = rep.*field;
        if (!f.available()) return figure::unavailable(f.note.empty() ? why : f.note);
        v.push_back(*f.value);
        label = f.label;
      }
      return v.empty() ? figure::unavailable(why) : figure{mean(v), label, ""};
    };
    const char* none = "no decode step";
    r.prefill_tokens_per_s = avg(&phase_report::prefill_tokens_per_s, "no prefill");
    r.prefill_flops_per_s = avg(&phase_report::prefill_flops_per_s, "no prefill");
    r.prefill_bandwidth_bytes_per_s = avg(&phase_report::prefill_bandwidth_bytes_per_s, "no prefill");
    r.decode_tokens_per_s = avg(&phase_report::decode_tokens_per_s, none);
    r.decode_flops_per_s = avg(&phase_report::decode_flops_per_s, none);
    r.decode_bandwidth_bytes_per_s = avg(&phase_report::decode_bandwidth_bytes_per_s, none);
    r.prefill_energy_j = avg(&phase_report::prefill_energy_j, "energy counters unavailable");
    r.decode_energy_j = avg(&phase_report::decode_energy_j, "energy counters unavailable");
    // Weights alone: what the bandwidth goal of decode is about.
    if (r.tpot.samples > 0 && r.tpot.mean_s > 0) {
      const double steps = static_cast<double>(s_.o.generated_tokens - 1);
      r.decode_weight_bandwidth_bytes_per_s = figure::measured(r.decode_counts.weight_bytes / steps / r.tpot.mean_s,
                                                               "weight bytes per step (counted) / mean step time");
    } else {
      r.decode_weight_bandwidth_bytes_per_s = figure::unavailable(none);
    }
    ctx.emit("prefill_tokens_per_s", r.prefill_tokens_per_s, "tokens/s");
    ctx.emit("decode_tokens_per_s", r.decode_tokens_per_s, "tokens/s");
    ctx.emit("prefill_flops_per_s", r.prefill_flops_per_s, "FLOP/s");
    ctx.emit("prefill_bandwidth_bytes_per_s", r.prefill_bandwidth_bytes_per_s, "B/s");
    ctx.emit("decode_flops_per_s", r.decode_flops_per_s, "FLOP/s");
    ctx.emit("decode_bandwidth_bytes_per_s", r.decode_bandwidth_bytes_per_s, "B/s");
    ctx.emit("decode_weight_bandwidth_bytes_per_s", r.decode_weight_bandwidth_bytes_per_s, "B/s");
    ctx.emit("prefill_flops", figure::measured(r.prefill_counts.flops(), "counted by the kernels"), "FLOP");
    ctx.emit("prefill_bytes", figure::measured(r.prefill_counts.bytes(), "counted by the kernels"), "B");
    ctx.emit("decode_flops", figure::measured(r.decode_counts.flops(), "counted by the kernels, every step"), "FLOP");
    ctx.emit("decode_bytes", figure::measured(r.decode_counts.bytes(), "counted by the kernels, every step"), "B");
    ctx.emit("prefill_energy_j", r.prefill_energy_j, "J");
    ctx.emit("decode_energy_j", r.decode_energy_j, "J");
  }

 private:
  shared_state& s_;
};

class kv_cache_task final : public measure_task {
 public:
  explicit kv_cache_task(shared_state& s) : s_(s) {}
  std::string_view name() const override { return "kv_cache"; }
  double weight() const override { return 0.05; }
  void run(task_context& ctx) override {
    measure_result& r = s_.r;
    r.kv_growth_bytes_per_token =
        s_.reports.empty() ? figure::unavailable("no run") : s_.reports.front().kv_growth_bytes_per_token;
    ctx.emit("kv_growth_bytes_per_token", r.kv_growth_bytes_per_token, "B");
    ctx.emit("kv_peak_bytes", figure::measured(r.kv.total_peak_bytes()), "B");
    ctx.emit("kv_compression_ratio_vs_fp16", figure::measured(r.kv.compression_ratio()), "1");
    for (const auto& l : r.kv.layers) {
      ctx.emit(fmt::format("layer{}_append_s_mean", l.layer), figure::measured(l.append_s_mean()), "s", std::nullopt,
               l.append_calls);
      ctx.emit(fmt::format("layer{}_attend_s_mean", l.layer), figure::measured(l.attend_s_mean()), "s", std::nullopt,
               l.attend_calls);
      ctx.emit(fmt::format("layer{}_peak_bytes", l.layer), figure::measured(l.peak_bytes), "B");
    }
  }

 private:
  shared_state& s_;
};

class estimate_task final : public measure_task {
 public:
  explicit estimate_task(shared_state& s) : s_(s) {}
  std::string_view name() const override { return "estimate"; }
  double weight() const override { return 0.05; }
  void run(task_context& ctx) override {
    measure_result& r = s_.r;
    const measure_options& o = s_.o;
    r.estimate_settings = settings_for(o, o.calibration.value_or(efficiencies{}));
    r.estimate = estimate(r.model, r.estimate_settings, &r.hardware);
    const bool has_decode = r.tpot.samples > 0;
    r.calibration = calibrate_from(r.model, r.estimate_settings, r.hardware, r.ttft.mean_s,
                                   has_decode ? std::optional<double>(r.tpot.mean_s) : std::nullopt);
    settings cs = r.estimate_settings;
    cs.compute_efficiency = r.calibration.compute_efficiency;
    cs.mem_efficiency = r.calibration.mem_efficiency;
    r.calibrated = estimate(r.model, cs, &r.hardware);

    const std::string est_note =
        o.calibration ? "roofline with the given calibration" : "roofline at the measured peaks (efficiency 1)";
    const std::string cal_note = "roofline with this run's calibration (in-sample)";
    const auto add = [&](const char* metric, const char* unit, figure measured, double est, double cal) {
      comparison_row row;
      row.metric = metric;
      row.unit = unit;
      row.measured = std::move(measured);
      row.estimated = figure::estimated(est, est_note);
      row.calibrated = figure::estimated(cal, cal_note);
      if (row.measured.available() && *row.measured.value != 0) {
        row.error_pct = 100.0 * (est - *row.measured.value) / *row.measured.value;
        row.calibrated_error_pct = 100.0 * (cal - *row.measured.value) / *row.measured.value;
      }
      r.comparison.push_back(std::move(row));
    };
    const performance& e = r.estimate.perf;
    const performance& c = r.calibrated.perf;
    const double B = static_cast<double>(o.batch_size), S = static_cast<double>(o.prompt_tokens);
    const double steps = static_cast<double>(o.generated_tokens - 1);
    const figure no_decode = figure::unavailable("one generated token: no decode step");
    add("ttft_s", "s", figure::measured(r.ttft.mean_s), e.prefill_latency_s, c.prefill_latency_s);
    add("tpot_s", "s", has_decode ? figure::measured(r.tpot.mean_s) : no_decode, e.decode_latency_per_token_s,
        c.decode_latency_per_token_s);
    add("prefill_tokens_per_s", "tokens/s", r.prefill_tokens_per_s, B * S / e.prefill_latency_s,
        B * S / c.prefill_latency_s);
    add("decode_tokens_per_s", "tokens/s", has_decode ? r.decode_tokens_per_s : no_decode, e.decode_tokens_per_second,
        c.decode_tokens_per_second);
    add("total_request_s", "s", figure::measured(r.ttft.mean_s + r.tpot.mean_s * steps), e.total_request_latency_s,
        c.total_request_latency_s);
    add("prefill_flops_per_s", "FLOP/s", r.prefill_flops_per_s, e.prefill_flops / e.prefill_latency_s,
        c.prefill_flops / c.prefill_latency_s);
    // Decode bandwidth: the bytes the estimate streams per step over its step time.
    const double est_step_bytes = e.decode_first_step_bytes;
    add("decode_bandwidth_bytes_per_s", "B/s", has_decode ? r.decode_bandwidth_bytes_per_s : no_decode,
        est_step_bytes / e.decode_latency_per_token_s, est_step_bytes / c.decode_latency_per_token_s);
    add("kv_growth_bytes_per_token", "B", r.kv_growth_bytes_per_token, r.estimate.memory.kv_cache_per_token,
        r.calibrated.memory.kv_cache_per_token);
    // Work: counted by the kernels vs the analytical counts (exact for FLOPs).
    add("prefill_flops", "FLOP", figure::measured(r.prefill_counts.flops(), "counted by the kernels"), e.prefill_flops,
        c.prefill_flops);
    add("decode_first_step_flops", "FLOP",
        has_decode ? figure::measured(r.decode_first_step_counts.flops(), "counted by the kernels") : no_decode,
        e.decode_first_step_flops, c.decode_first_step_flops);
    const bool tied = r.model.tie_word_embeddings;
    const auto est_bytes =
        [&](const op_counts& k) {  // the estimator's definition: no KV reads in prefill, gathered rows only untied
          return k.weight_bytes + k.kv_write_bytes + (tied ? 0.0 : k.embedding_bytes);
        };
    add("prefill_bytes", "B",
        figure::measured(est_bytes(r.prefill_counts), "counted: weights and KV written (the estimate's definition)"),
        e.prefill_bytes, c.prefill_bytes);
    add("decode_first_step_bytes", "B",
        has_decode ? figure::measured(est_bytes(r.decode_first_step_counts) + r.decode_first_step_counts.kv_read_bytes,
                                      "counted: weights, KV read and written")
                   : no_decode,
        e.decode_first_step_bytes, c.decode_first_step_bytes);
    figure energy = r.prefill_energy_j;
    if (energy.available() && has_decode)
      energy = r.decode_energy_j.available() ? figure::measured(*energy.value + *r.decode_energy_j.value, energy.note)
                                             : r.decode_energy_j;
    add("energy_j", "J", energy, e.energy_total_joules, c.energy_total_joules);
    comparison_row* before = &r.comparison.back();
    const std::string placeholder =
        fmt::format("placeholder TDP {} W (not measured) x power_utilization", r.hardware.tdp_watts);
    before->estimated.note = placeholder;
    before->calibrated.note = placeholder;

    for (const auto& row : r.comparison) {
      ctx.emit("estimated_" + row.metric, row.estimated, row.unit);
      if (row.error_pct)
        ctx.emit("error_pct_" + row.metric, figure::estimated(*row.error_pct, "(estimate - measured) / measured"), "%");
      if (row.calibrated_error_pct)
        ctx.emit("calibrated_error_pct_" + row.metric, figure::estimated(*row.calibrated_error_pct, "in-sample"), "%");
    }
    ctx.emit("compute_efficiency", figure::measured(r.calibration.compute_efficiency, r.calibration.compute_basis),
             "1");
    ctx.emit("mem_efficiency", figure::measured(r.calibration.mem_efficiency, r.calibration.mem_basis), "1");
  }

 private:
  shared_state& s_;
};

}  // namespace

measure_result run_measurement(const model_spec& m, const measure_options& options, const progress_fn& progress,
                               const log_fn& log) {
  const auto start = clock_type::now();
  measure_result r;
  r.model = check_measurement(m, options);
  r.options = options;
  r.options.threads = resolve_threads(options.threads);
  r.version = FLOPCAST_VERSION;
  r.model_name = m.name;
  r.model_type = m.model_type;
  r.layers = r.model.num_layers;
  r.layers_total = m.num_layers;
  r.parameters = count_parameters(r.model).total;

  thread_pool pool(r.options.threads);
  shared_state state{r, r.options, {}};
  suite s;
  s.add(std::make_unique<machine_task>(state));
  s.add(std::make_unique<generate_task>(state));
  s.add(std::make_unique<latency_task>(state));
  s.add(std::make_unique<throughput_task>(state));
  s.add(std::make_unique<kv_cache_task>(state));
  s.add(std::make_unique<estimate_task>(state));
  r.suite = s.run(pool, progress, log);
  r.elapsed_s = seconds(start, clock_type::now());
  return r;
}

}  // namespace flopcast::measure
