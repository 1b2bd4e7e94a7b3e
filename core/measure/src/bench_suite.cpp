// flopcast measure --suite: the benchmark tasks (prefill, decode, batch, kv_cache) over the
// reference decoder, their samples and statistics, and the estimate beside each point.
#include "flopcast/measure/bench_suite.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <numeric>
#include <thread>

#include "flopcast/base/error.hpp"
#include "json_util.hpp"
#include "text.hpp"

namespace flopcast::measure {

const std::vector<std::string>& suite_task_names() {
  static const std::vector<std::string> names = {"prefill", "decode", "batch", "kv_cache"};
  return names;
}

std::vector<std::string> parse_suite_tasks(std::string_view list) {
  const auto& valid = suite_task_names();
  if (list.empty() || list == "all") return valid;
  std::vector<std::string> out;
  std::size_t at = 0;
  while (at <= list.size()) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    std::string name(list.substr(at, comma - at));
    name.erase(0, name.find_first_not_of(' '));
    name.erase(name.find_last_not_of(' ') + 1);
    if (std::find(valid.begin(), valid.end(), name) == valid.end()) {
      std::string names;
      for (const auto& v : valid) names += (names.empty() ? "" : ", ") + v;
      throw error(error_code::invalid_argument, "/tasks",
                  fmt::format("unknown task \"{}\": expected all or a comma-separated list of {}", name, names));
    }
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    at = comma + 1;
  }
  return out;
}

sample_stats stats_of(std::vector<double> samples) {
  sample_stats s;
  const latency_stats l = summarize(samples);
  s.samples = std::move(samples);
  s.n = l.samples;
  s.mean = l.mean_s;
  s.stddev = l.stddev_s;
  if (s.n >= 5) {
    s.p50 = l.p50_s;
    s.p90 = l.p90_s;
    s.p99 = l.p99_s;
  }
  return s;
}

namespace {

// Prompt / context lengths: 16, 32, 64, ... below `max`, then `max`.
std::vector<std::int64_t> lengths_up_to(std::int64_t max) {
  std::vector<std::int64_t> v;
  for (std::int64_t n = 16; n < max; n *= 2) v.push_back(n);
  v.push_back(max);
  return v;
}
std::vector<std::int64_t> batches_up_to(std::int64_t max) {
  std::vector<std::int64_t> v;
  for (std::int64_t n = 1; n < max; n *= 2) v.push_back(n);
  v.push_back(max);
  return v;
}

std::vector<std::int32_t> tokens_for(std::int64_t count, std::int64_t vocab, std::uint64_t seed) {
  std::vector<std::int32_t> t(static_cast<std::size_t>(count));
  std::uint64_t state = 0x9e3779b97f4a7c15ull ^ seed;
  for (auto& x : t) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x = static_cast<std::int32_t>((state >> 33) % static_cast<std::uint64_t>(vocab));
  }
  return t;
}

template <class F>
double timed(F&& f) {
  const auto start = clock_type::now();
  f();
  return seconds(start, clock_type::now());
}

// A decoder with its token and logits buffers.
struct bench_decoder {
  std::unique_ptr<decoder> dec;
  std::int64_t batch = 1, vocab = 0;
  std::vector<std::int32_t> prompt;  // batch x max prompt
  std::vector<float> logits;
  std::vector<std::int32_t> next;

  bench_decoder(const model_spec& m, const decoder_options& o, thread_pool& pool)
      : dec(std::make_unique<decoder>(m, o, pool)), batch(o.batch), vocab(dec->shape().vocab) {
    prompt = tokens_for(o.batch * o.max_prefill_tokens, vocab, o.seed);
    logits.resize(static_cast<std::size_t>(o.batch * vocab));
    // Warm-up: page faults, clocks, caches.
    prefill(std::min<std::int64_t>(8, o.max_prefill_tokens));
    step();
    dec->reset();
  }
  // `n` new tokens per sequence (after what is cached).
  void prefill(std::int64_t n) {
    std::vector<std::int32_t> t;
    const std::int64_t cap = dec->options().max_prefill_tokens;
    for (std::int64_t b = 0; b < batch; ++b) t.insert(t.end(), prompt.begin() + b * cap, prompt.begin() + b * cap + n);
    dec->prefill(t.data(), n, logits.data());
    next = argmax_rows(logits.data(), batch, vocab);
  }
  void step() {
    dec->decode(next.data(), logits.data());
    next = argmax_rows(logits.data(), batch, vocab);
  }
};

struct bench_state {
  const model_spec& model;
  suite_run_result& r;
  thread_pool& pool;
  std::unique_ptr<bench_decoder> base;  // batch 1, fp32 KV cache, shared by the tasks

  [[nodiscard]] decoder_options options(std::int64_t batch, kv_format kv) const {
    decoder_options d;
    d.weights = r.options.weights;
    d.kv = kv;
    d.batch = batch;
    d.max_prefill_tokens = r.options.prompt_tokens;
    d.max_tokens = r.options.prompt_tokens + r.options.decode_steps + 1;
    return d;
  }
  bench_decoder& base_decoder() {
    if (!base) base = std::make_unique<bench_decoder>(model, options(1, kv_format::f32), pool);
    return *base;
  }
  // What run_measurement estimates for a run of this shape.
  [[nodiscard]] measure_options run(std::int64_t batch, std::int64_t prompt, std::int64_t generated,
                                    kv_format kv = kv_format::f32) const {
    measure_options o;
    o.batch_size = batch;
    o.prompt_tokens = prompt;
    o.generated_tokens = generated;
    o.weights = r.options.weights;
    o.kv_cache = kv;
    return o;
  }
  [[nodiscard]] estimate_result at_peak(const measure_options& o) const {
    return estimate(model, measurement_settings(o), &r.hardware);
  }
  [[nodiscard]] estimate_result calibrated(const measure_options& o) const {
    return estimate(model, measurement_settings(o, {r.calibration.compute_efficiency, r.calibration.mem_efficiency}),
                    &r.hardware);
  }
};

suite_point point(std::string parameter, double value, std::string metric, std::string unit,
                  std::vector<double> samples) {
  suite_point p;
  p.parameter = std::move(parameter);
  p.value = value;
  p.metric = std::move(metric);
  p.unit = std::move(unit);
  p.measured = stats_of(std::move(samples));
  return p;
}

const char* const k_peak_note = "roofline at the measured peaks (efficiency 1)";
const char* const k_cal_note = "roofline with the suite's calibration";

// The estimate of `field` at the peaks and calibrated, for a run of shape `o`.
template <class F>
void estimates(suite_point& p, const bench_state& s, const measure_options& o, F field) {
  p.estimated = figure::estimated(field(s.at_peak(o)), k_peak_note);
  p.calibrated = figure::estimated(field(s.calibrated(o)), k_cal_note);
}

double ttft_of(const estimate_result& e) { return e.perf.prefill_latency_s; }
double step_of(const estimate_result& e) { return e.perf.decode_latency_per_token_s; }

// Timed prefills of `n` tokens (repetitions, from an empty cache).
std::vector<double> prefill_samples(bench_decoder& d, std::int64_t n, int reps) {
  std::vector<double> v;
  for (int i = 0; i < reps; ++i) {
    d.dec->reset();
    v.push_back(timed([&] { d.prefill(n); }));
  }
  return v;
}
// Timed decode steps after an untimed prefill of `context` tokens.
std::vector<double> step_samples(bench_decoder& d, std::int64_t context, std::int64_t steps) {
  d.dec->reset();
  d.prefill(context);
  std::vector<double> v;
  for (std::int64_t i = 0; i < steps; ++i) v.push_back(timed([&] { d.step(); }));
  return v;
}

void run_prefill(bench_state& s, suite_task_result& t, const progress_fn& progress) {
  const auto& o = s.r.options;
  const auto L = lengths_up_to(o.prompt_tokens);
  for (std::size_t i = 0; i < L.size(); ++i) {
    if (progress) progress(static_cast<double>(i) / static_cast<double>(L.size()), fmt::format("prefill {}", L[i]));
    suite_point p = point("prompt_tokens", static_cast<double>(L[i]), "ttft_s", "s",
                          prefill_samples(s.base_decoder(), L[i], o.repetitions));
    estimates(p, s, s.run(1, L[i], 1), ttft_of);
    t.points.push_back(std::move(p));
  }
}

void run_decode(bench_state& s, suite_task_result& t, const progress_fn& progress) {
  const auto& o = s.r.options;
  const auto L = lengths_up_to(o.prompt_tokens);
  for (std::size_t i = 0; i < L.size(); ++i) {
    if (progress) progress(static_cast<double>(i) / static_cast<double>(L.size()), fmt::format("decode at {}", L[i]));
    suite_point p = point("context_tokens", static_cast<double>(L[i]), "decode_step_s", "s",
                          step_samples(s.base_decoder(), L[i], o.decode_steps));
    estimates(p, s, s.run(1, L[i], 2), step_of);  // one step at this context
    t.points.push_back(std::move(p));
  }
}

void run_batch(bench_state& s, suite_task_result& t, const progress_fn& progress) {
  const auto& o = s.r.options;
  const std::int64_t S = std::min<std::int64_t>(16, o.prompt_tokens);
  const auto B = batches_up_to(o.max_batch);
  for (std::size_t i = 0; i < B.size(); ++i) {
    if (progress) progress(static_cast<double>(i) / static_cast<double>(B.size()), fmt::format("batch {}", B[i]));
    std::unique_ptr<bench_decoder> own;
    if (B[i] != 1) own = std::make_unique<bench_decoder>(s.model, s.options(B[i], kv_format::f32), s.pool);
    bench_decoder& d = B[i] == 1 ? s.base_decoder() : *own;
    suite_point ttft =
        point("batch_size", static_cast<double>(B[i]), "ttft_s", "s", prefill_samples(d, S, o.repetitions));
    estimates(ttft, s, s.run(B[i], S, 1), ttft_of);
    suite_point step = point("batch_size", static_cast<double>(B[i]), "decode_step_s", "s",
                             step_samples(d, S, std::max<std::int64_t>(o.decode_steps / 2, 1)));
    estimates(step, s, s.run(B[i], S, 2), step_of);
    t.points.push_back(std::move(ttft));
    t.points.push_back(std::move(step));
  }
}

void run_kv(bench_state& s, suite_task_result& t, const progress_fn& progress) {
  const auto& o = s.r.options;
  const auto L = lengths_up_to(o.prompt_tokens);
  for (const kv_format f : {kv_format::f32, kv_format::i8}) {
    const bool i8 = f == kv_format::i8;
    if (progress) progress(i8 ? 0.5 : 0.0, i8 ? "int8 KV cache" : "fp32 KV cache");
    std::unique_ptr<bench_decoder> own;
    if (i8) own = std::make_unique<bench_decoder>(s.model, s.options(1, f), s.pool);
    bench_decoder& d = i8 ? *own : s.base_decoder();
    const double bits = i8 ? 8 : 32;
    const std::string name = i8 ? "int8" : "fp32";
    const double est_per_token = s.at_peak(s.run(1, o.prompt_tokens, 1, f)).memory.kv_cache_per_token;
    // Growth: the cache after each prefill chunk, from empty.
    d.dec->reset();
    std::vector<double> per_token;
    std::vector<std::array<double, 3>> growth;
    std::int64_t cached = 0;
    for (const std::int64_t n : L) {
      d.prefill(n - cached);
      cached = n;
      const double bytes = d.dec->kv_bytes();
      growth.push_back({static_cast<double>(n), bytes, est_per_token * static_cast<double>(n)});
      per_token.push_back(bytes / static_cast<double>(n));
    }
    suite_point bpt = point("kv_cache", bits, "kv_bytes_per_token", "B", std::move(per_token));
    bpt.label = name;
    bpt.growth = std::move(growth);
    bpt.estimated = figure::estimated(est_per_token, "the estimate's KV cache per token");
    bpt.calibrated = figure::estimated(s.calibrated(s.run(1, o.prompt_tokens, 1, f)).memory.kv_cache_per_token,
                                       "efficiencies do not change bytes");
    // Decode steps at the full context, and the attend time per layer call.
    d.dec->reset_kv_profiles();
    suite_point step = point("kv_cache", bits, "decode_step_s", "s", step_samples(d, o.prompt_tokens, o.decode_steps));
    step.label = name;
    estimates(step, s, s.run(1, o.prompt_tokens, 2, f), step_of);
    std::vector<double> attend;
    for (const auto& l : d.dec->kv_report().layers) attend.push_back(l.attend_s_mean());
    suite_point att = point("kv_cache", bits, "attend_s", "s", std::move(attend));
    att.label = name;
    att.estimated = figure::unavailable("the estimate has no per-layer attention time");
    att.calibrated = att.estimated;
    t.points.push_back(std::move(bpt));
    t.points.push_back(std::move(step));
    t.points.push_back(std::move(att));
  }
}

}  // namespace

suite_run_result run_benchmark_suite(const model_spec& m, const suite_options& options, const progress_fn& progress) {
  const auto start = clock_type::now();
  suite_run_result r;
  r.options = options;
  if (r.options.tasks.empty()) r.options.tasks = suite_task_names();
  for (const auto& t : r.options.tasks) (void)parse_suite_tasks(t);
  if (r.options.max_batch < 1 || r.options.max_batch > 64)
    throw error(error_code::invalid_argument, "/batch_size",
                "expected an integer in [1, 64] for the batch sweep, but got " + std::to_string(r.options.max_batch));
  if (r.options.decode_steps < 1 || r.options.decode_steps > 4096)
    throw error(error_code::invalid_argument, "/generated_tokens",
                "expected 2 to 4097 generated tokens (decode steps + 1) with --suite, but got " +
                    std::to_string(r.options.decode_steps + 1));
  // The options and memory of the largest run, checked as `flopcast measure` checks them.
  measure_options check;
  check.layers = options.layers;
  check.prompt_tokens = options.prompt_tokens;
  check.generated_tokens = options.decode_steps + 1;
  check.batch_size = r.options.max_batch;
  check.threads = options.threads;
  check.repetitions = options.repetitions;
  check.weights = options.weights;
  const model_spec model = check_measurement(m, check);
  if (r.options.threads <= 0) r.options.threads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  r.version = FLOPCAST_VERSION;
  r.model_name = m.name;
  r.layers = model.num_layers;
  r.layers_total = m.num_layers;
  r.parameters = count_parameters(model).total;

  thread_pool pool(r.options.threads);
  const double n_tasks = static_cast<double>(r.options.tasks.size()) + 1;
  if (progress) progress(0, "machine peaks");
  r.machine = options.machine ? *options.machine : measure_machine(pool, {r.options.quick_machine});
  r.hardware = to_hardware_spec(r.machine);
  bench_state s{model, r, pool, nullptr};

  // One calibration for every point: the prefill at the longest prompt (TTFT) and the decode
  // at that context (step time), fitted by the core's rule.
  {
    if (progress) progress(0.5 / n_tasks, "calibration");
    auto& d = s.base_decoder();
    const double ttft = stats_of(prefill_samples(d, r.options.prompt_tokens, r.options.repetitions)).mean;
    const double step = stats_of(step_samples(d, r.options.prompt_tokens, r.options.decode_steps)).mean;
    r.calibration =
        calibrate_from(model, measurement_settings(s.run(1, r.options.prompt_tokens, 2)), r.hardware, ttft, step);
    r.calibration_basis = fmt::format(
        "calibrate_from: mean TTFT of {} prefills of {} tokens ({}) and mean of {} "
        "decode steps at context {} ({}), batch 1",
        r.options.repetitions, r.options.prompt_tokens, text::duration(ttft), r.options.decode_steps,
        r.options.prompt_tokens, text::duration(step));
  }

  using runner = void (*)(bench_state&, suite_task_result&, const progress_fn&);
  const std::map<std::string, runner> runners = {
      {"prefill", run_prefill}, {"decode", run_decode}, {"batch", run_batch}, {"kv_cache", run_kv}};
  for (std::size_t i = 0; i < r.options.tasks.size(); ++i) {
    suite_task_result t;
    t.name = r.options.tasks[i];
    const double begin = (static_cast<double>(i) + 1) / n_tasks;
    const progress_fn sub = [&](double f, std::string_view what) {
      if (progress) progress(begin + f / n_tasks, what);
    };
    const auto t0 = clock_type::now();
    runners.at(t.name)(s, t, sub);
    t.wall_s = seconds(t0, clock_type::now());
    r.tasks.push_back(std::move(t));
  }
  r.elapsed_s = seconds(start, clock_type::now());
  return r;
}

// ---------------------------------------------------------------------------------------
// Output.

namespace {
using json_util::json;
using json_util::number;

json stats_json(const sample_stats& s) {
  json j;
  j["label"] = "MEASURED";
  json a = json::array();
  for (double v : s.samples) a.push_back(number(v));
  j["samples"] = std::move(a);
  j["n"] = s.n;
  j["mean"] = number(s.mean);
  j["stddev"] = number(s.stddev);
  if (s.p50) {
    j["p50"] = number(*s.p50);
    j["p90"] = number(*s.p90);
    j["p99"] = number(*s.p99);
  }
  return j;
}

std::optional<double> error_pct(const figure& est, const sample_stats& m) {
  if (!est.available() || m.n == 0 || m.mean == 0) return std::nullopt;
  return 100.0 * (*est.value - m.mean) / m.mean;
}
}  // namespace

std::string suite_to_json(const suite_run_result& r) {
  json j;
  j["kind"] = "measure-suite";
  j["flopcast_version"] = r.version;
  j["command"] = "measure --suite";
  j["model"] = {
      {"name", r.model_name}, {"layers", r.layers}, {"layers_total", r.layers_total}, {"parameters", r.parameters}};
  const auto& o = r.options;
  j["run"] = {{"tasks", o.tasks},
              {"prompt_tokens", o.prompt_tokens},
              {"decode_steps", o.decode_steps},
              {"max_batch", o.max_batch},
              {"repetitions", o.repetitions},
              {"threads", o.threads},
              {"weight_precision", std::string(to_string(o.weights))},
              {"quick_machine", o.quick_machine}};
  j["machine"] = {
      {"name", "this-cpu"},
      {"cpu", r.machine.cpu_model},
      {"bandwidth_bytes_per_s", json_util::figure_json(figure::measured(r.machine.bandwidth_bytes_per_s()))},
      {"gemm_fp32_flops_per_s", json_util::figure_json(figure::measured(r.machine.gemm_fp32_flops_per_s))},
      {"peak_flops_per_s", json_util::figure_json(figure::measured(r.hardware.peak(precision::fp32).value_or(0.0)))}};
  j["calibration"] = {{"compute_efficiency", r.calibration.compute_efficiency},
                      {"mem_efficiency", r.calibration.mem_efficiency},
                      {"compute_basis", r.calibration.compute_basis},
                      {"mem_basis", r.calibration.mem_basis},
                      {"clamped", r.calibration.clamped},
                      {"basis", r.calibration_basis},
                      {"label", "MEASURED"}};
  json tasks = json::array();
  for (const auto& t : r.tasks) {
    json points = json::array();
    for (const auto& p : t.points) {
      json q;
      q["parameter"] = p.parameter;
      q["value"] = p.value;
      if (!p.label.empty()) q["format"] = p.label;
      q["metric"] = p.metric;
      q["unit"] = p.unit;
      q["measured"] = stats_json(p.measured);
      q["estimated"] = json_util::figure_json(p.estimated);
      q["calibrated"] = json_util::figure_json(p.calibrated);
      const auto e = error_pct(p.estimated, p.measured), c = error_pct(p.calibrated, p.measured);
      q["error_pct"] = e ? number(*e) : json(nullptr);
      q["calibrated_error_pct"] = c ? number(*c) : json(nullptr);
      if (!p.growth.empty()) {
        json g = json::array();
        for (const auto& [tokens, bytes, est] : p.growth)
          g.push_back({{"tokens", tokens}, {"bytes", bytes}, {"estimated_bytes", est}});
        q["growth"] = std::move(g);
      }
      points.push_back(std::move(q));
    }
    tasks.push_back({{"name", t.name}, {"wall_s", t.wall_s}, {"points", std::move(points)}});
  }
  j["tasks"] = std::move(tasks);
  j["elapsed_s"] = r.elapsed_s;
  return j.dump(2);
}

std::string suite_to_csv(const suite_run_result& r) {
  std::string out =
      "task,parameter,value,format,metric,unit,sample,measured,mean,stddev,n,label,estimated,calibrated\n";
  const auto num = [](double v) { return std::isfinite(v) ? fmt::format("{}", v) : std::string(); };
  const auto fig = [&](const figure& f) { return f.value ? num(*f.value) : std::string(); };
  for (const auto& t : r.tasks)
    for (const auto& p : t.points)
      for (std::size_t i = 0; i < p.measured.samples.size(); ++i)
        out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},MEASURED,{},{}\n", t.name, p.parameter, num(p.value),
                           p.label, p.metric, p.unit, i + 1, num(p.measured.samples[i]), num(p.measured.mean),
                           num(p.measured.stddev), p.measured.n, fig(p.estimated), fig(p.calibrated));
  return out;
}

std::string suite_to_text(const suite_run_result& r) {
  std::string out =
      fmt::format("flopcast {} benchmark suite: {} ({} of {} layers, {} parameters), {} threads, {} weights\n",
                  r.version, r.model_name, r.layers, r.layers_total, text::si(static_cast<double>(r.parameters), ""),
                  r.options.threads, to_string(r.options.weights));
  out += fmt::format("calibration (MEASURED): compute efficiency {:.3f}, memory efficiency {:.3f}\n  {}\n",
                     r.calibration.compute_efficiency, r.calibration.mem_efficiency, r.calibration_basis);
  const auto show = [](const std::string& unit, double v) {
    return unit == "s" ? text::duration(v) : unit == "B" ? text::bytes(v) : fmt::format("{:.4g} {}", v, unit);
  };
  for (const auto& t : r.tasks) {
    out += fmt::format("\n{} ({:.2f} s)\n", t.name, t.wall_s);
    out += fmt::format("  {:<22} {:<18} {:>12} {:>11} {:>4} {:>11} {:>11} {:>12} {:>12}\n", "parameter", "metric",
                       "mean", "stddev", "n", "p50", "p99", "estimated", "calibrated");
    for (const auto& p : t.points) {
      const std::string param =
          p.label.empty() ? fmt::format("{} {}", p.parameter, p.value) : fmt::format("{} {}", p.parameter, p.label);
      const auto& m = p.measured;
      out += fmt::format("  {:<22} {:<18} {:>12} {:>11} {:>4} {:>11} {:>11} {:>12} {:>12}\n", param, p.metric,
                         show(p.unit, m.mean), show(p.unit, m.stddev), m.n, m.p50 ? show(p.unit, *m.p50) : "-",
                         m.p99 ? show(p.unit, *m.p99) : "-", p.estimated.value ? show(p.unit, *p.estimated.value) : "-",
                         p.calibrated.value ? show(p.unit, *p.calibrated.value) : "-");
    }
  }
  out += fmt::format(
      "\nmean, stddev (n - 1), n, p50, p99: MEASURED on this machine; estimated: roofline at the "
      "measured peaks; calibrated: with the calibration above (ESTIMATED). {:.1f} s in all.\n",
      r.elapsed_s);
  return out;
}

}  // namespace flopcast::measure
