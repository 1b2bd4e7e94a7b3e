// flopcast measure MODEL|config.json [--layers N] [--prompt N] [--gen N] [--batch N]
//                  [--threads T] [--repetitions R] [--precision fp32|bf16|int8]
//                  [--kv-cache fp32|int8] [--quick] [--json|--csv]
//                  [--suite[=TASKS] | --tasks TASKS] [--html FILE]
// Runs the reference decoder on this machine and prints the measurement beside the
// estimate (flopcast::measure::run_measurement). A progress bar goes to stderr when stderr
// is a terminal; nothing is printed there when it is piped.
#include "measure/measure_cmd.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <iostream>
#include <memory>
#include <sstream>

#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/formats/precision.hpp"
#include "flopcast/measure/bench_suite.hpp"
#include "flopcast/measure/measure.hpp"
#include "measure/measure_suite_cmd.hpp"

namespace flopcast::cli {

namespace {

struct measure_args {
  std::string model;
  std::string layers, prompt = "128", gen = "32", batch = "1", threads, repetitions = "3";
  std::string precision = "fp32", kv_cache = "fp32";
  bool quick = false, json = false, csv = false;
  std::string suite, tasks, html;  // --suite[=TASKS], --tasks TASKS, --html FILE
};

[[noreturn]] void bad(const std::string& option, const std::string& message) {
  throw error(error_code::invalid_argument, option, message);
}

// An integer >= 1 typed for `option`.
std::int64_t positive(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::out_of_range&) {
    bad(option, "expected an integer >= 1, but got \"" + text + "\" (out of range)");
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) bad(option, "expected an integer >= 1, but got \"" + text + "\"");
  if (v < 1) bad(option, "expected an integer >= 1, but got " + std::to_string(v));
  return v;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::io, "MODEL", "cannot read \"" + path + "\": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A registry name, or a config.json path (as `estimate` takes it).
model_spec resolve(const std::string& name) {
  std::ifstream probe(name);
  const bool path = probe.good() || (name.size() > 5 && name.compare(name.size() - 5, 5, ".json") == 0);
  if (!path) return find_model(name).spec;
  const std::string text = read_text(name);
  std::string label = name;
  const auto slash = label.find_last_of('/');
  if (slash != std::string::npos && slash > 0 && label.substr(slash + 1) == "config.json")
    label = label.substr(0, slash);
  try {
    return read_hf_config(text, label);
  } catch (const error& e) {
    throw error(e.code(), e.pointer(), e.message() + " in " + name);
  }
}

measure::weight_format weights_of(const std::string& text) {
  const precision p = parse_precision(text, "--precision");
  switch (p) {
    case precision::fp32:
      return measure::weight_format::f32;
    case precision::bf16:
      return measure::weight_format::bf16;
    case precision::int8:
      return measure::weight_format::i8;
    default:
      bad("--precision",
          "expected fp32, bf16 or int8 (the reference decoder's weight formats), but got \"" + text + "\"");
  }
}

measure::kv_format kv_of(const std::string& text) {
  const precision p = parse_precision(text, "--kv-cache");
  if (p == precision::fp32) return measure::kv_format::f32;
  if (p == precision::int8) return measure::kv_format::i8;
  bad("--kv-cache", "expected fp32 or int8 (the reference decoder's KV caches), but got \"" + text + "\"");
}

// The library names fields; the user typed options.
error as_option_error(const error& e) {
  static const std::pair<const char*, const char*> k[] = {
      {"/prompt_tokens", "--prompt"}, {"/generated_tokens", "--gen"},    {"/batch_size", "--batch"},
      {"/threads", "--threads"},      {"/repetitions", "--repetitions"}, {"/layers", "--layers"},
      {"/memory", "MODEL"},           {"/max_tokens", "--prompt"},       {"/tasks", "--suite"},
  };
  for (const auto& [field, option] : k)
    if (e.pointer() == field) return error(e.code(), option, e.message());
  return e;
}

// A one-line bar on stderr, redrawn at most ten times a second.
class progress_bar {
 public:
  void operator()(double fraction, std::string_view what) {
    const auto now = std::chrono::steady_clock::now();
    if (fraction < 1.0 && now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    constexpr int width = 30;
    const int filled = static_cast<int>(fraction * width + 0.5);
    std::string label(what.substr(0, 44));
    std::cerr << fmt::format("\r[{}{}] {:3.0f}% {:<44}", std::string(static_cast<std::size_t>(filled), '#'),
                             std::string(static_cast<std::size_t>(width - filled), '.'), fraction * 100, label)
              << std::flush;
    shown_ = true;
  }
  ~progress_bar() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  std::chrono::steady_clock::time_point last_{};
  bool shown_ = false;
};

}  // namespace

measure_command add_measure_command(CLI::App& parent) {
  measure_command cmd;
  auto args = std::make_shared<measure_args>();
  CLI::App* app = parent.add_subcommand("measure", "Measure real latency on this machine beside the estimate");
  cmd.app = app;
  app->add_option("MODEL", args->model, "Registry name or alias, or a path to a config.json (Llama-style decoders)")
      ->required();
  app->add_option("--layers", args->layers, "Run only the first N layers (real widths, heads, vocabulary) [all]");
  app->add_option("--prompt", args->prompt, "Prompt tokens per sequence (prefill) [128]");
  app->add_option("--gen", args->gen, "Generated tokens per sequence: 1 from prefill, the rest decode steps [32]");
  app->add_option("--batch", args->batch, "Sequences [1]");
  app->add_option("--threads", args->threads, "Threads [every hardware thread]");
  app->add_option("--repetitions", args->repetitions, "Timed runs after a warm-up [3]");
  app->add_option("--precision", args->precision, "Weights: fp32, bf16 or int8 (weight-only) [fp32]");
  app->add_option("--kv-cache", args->kv_cache, "KV cache: fp32 or int8 [fp32]");
  app->add_flag("--quick", args->quick, "Smaller machine microbenchmarks (less accurate peaks)");
  auto* j = app->add_flag("--json", args->json, "Print JSON (SI units, every figure labelled)");
  auto* c = app->add_flag("--csv", args->csv, "Print the metric rows as CSV");
  j->excludes(c);
  auto* su = app->add_option("--suite", args->suite,
                             "Run the benchmark suite: every task, or --suite=prefill,decode,batch,kv_cache. Defaults "
                             "with --suite: --prompt 64 (lengths 16, 32, 64), --gen 9 (8 decode steps per point), "
                             "--batch 4 (sweep 1, 2, 4), --repetitions 3, quick machine peaks")
                 ->expected(0, 1);
  auto* ta = app->add_option("--tasks", args->tasks, "The suite's tasks, comma-separated (implies --suite)");
  auto* html = app->add_option("--html", args->html,
                               "With the suite: also write a self-contained HTML report with charts to FILE");
  su->excludes(ta);

  cmd.run = [args, app, su, ta, html] {
    const measure_args& a = *args;
    if (su->count() > 0 || ta->count() > 0) {
      measure_suite_args sa;
      sa.model = resolve(a.model);
      sa.tasks = ta->count() > 0 ? a.tasks : a.suite;
      const auto given = [&](const char* name) { return app->get_option(name)->count() > 0; };
      if (!a.layers.empty()) sa.options.layers = positive(a.layers, "--layers");
      if (given("--prompt")) sa.options.prompt_tokens = positive(a.prompt, "--prompt");
      if (given("--gen")) {
        const std::int64_t g = positive(a.gen, "--gen");
        if (g < 2) bad("--gen", "expected an integer >= 2 with --suite (decode steps + 1), but got 1");
        sa.options.decode_steps = g - 1;
      }
      if (given("--batch")) sa.options.max_batch = positive(a.batch, "--batch");
      if (given("--repetitions")) {
        const std::int64_t reps = positive(a.repetitions, "--repetitions");
        if (reps > 1000) bad("--repetitions", "expected an integer <= 1000, but got " + std::to_string(reps));
        sa.options.repetitions = static_cast<int>(reps);
      }
      if (!a.threads.empty()) {
        const std::int64_t t = positive(a.threads, "--threads");
        if (t > 1024) bad("--threads", "expected an integer <= 1024, but got " + std::to_string(t));
        sa.options.threads = static_cast<int>(t);
      }
      sa.options.weights = weights_of(a.precision);
      sa.html = a.html;
      sa.json = a.json;
      sa.csv = a.csv;
      try {
        return run_measure_suite(sa);
      } catch (const error& e) {
        throw as_option_error(e);
      }
    }
    if (html->count() > 0) bad("--html", "--html writes the suite's report: add --suite");
    measure::measure_options o;
    if (!a.layers.empty()) o.layers = positive(a.layers, "--layers");
    o.prompt_tokens = positive(a.prompt, "--prompt");
    o.generated_tokens = positive(a.gen, "--gen");
    o.batch_size = positive(a.batch, "--batch");
    if (!a.threads.empty()) {
      const std::int64_t t = positive(a.threads, "--threads");
      if (t > 1024) bad("--threads", "expected an integer <= 1024, but got " + std::to_string(t));
      o.threads = static_cast<int>(t);
    }
    const std::int64_t reps = positive(a.repetitions, "--repetitions");
    if (reps > 1000) bad("--repetitions", "expected an integer <= 1000, but got " + std::to_string(reps));
    o.repetitions = static_cast<int>(reps);
    o.weights = weights_of(a.precision);
    o.kv_cache = kv_of(a.kv_cache);
    o.quick_machine = a.quick;

    const model_spec model = resolve(a.model);
    measure::measure_result r;
    try {
      (void)measure::check_measurement(model, o);  // before anything is allocated
      if (isatty(STDERR_FILENO)) {
        progress_bar bar;
        r = measure::run_measurement(model, o, [&bar](double f, std::string_view what) { bar(f, what); });
      } else {
        r = measure::run_measurement(model, o);
      }
    } catch (const error& e) {
      throw as_option_error(e);
    }
    if (a.json)
      std::cout << measure::to_json(r) << "\n";
    else if (a.csv)
      std::cout << measure::to_csv(r);
    else
      std::cout << measure::to_text(r);
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
