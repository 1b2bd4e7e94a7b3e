#pragma once
// The measurement tasks (machine peaks, generation, latency, throughput, KV cache, the
// estimate beside them) run as one small suite that shares timing, progress, logging and
// CSV/JSON output. A new task is one class:
//
//   class my_task final : public measure_task {
//    public:
//     std::string_view name() const override { return "my_task"; }
//     void run(task_context& ctx) override {
//       ctx.progress(0.5, "halfway");
//       ctx.emit("widgets_per_s", figure::measured(42.0), "1/s");
//     }
//   };
//   suite s;
//   s.add(std::make_unique<my_task>());
//   const suite_result r = s.run(pool);
//   std::cout << metrics_to_csv(r.metrics);
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/measure/figure.hpp"
#include "flopcast/measure/thread_pool.hpp"

namespace flopcast::measure {

// One row of output: what a task measured or estimated, in SI units.
struct metric {
  std::string task;  // set by the suite
  std::string name;  // e.g. "ttft_s"
  figure value;      // with its label
  std::string unit;  // "s", "B", "B/s", "FLOP", "FLOP/s", "tokens/s", "1"
  std::optional<double> stddev;
  std::int64_t samples = 0;  // 0: not a statistic
};

// Progress of the whole suite in [0, 1] and what runs now.
using progress_fn = std::function<void(double fraction, std::string_view what)>;
using log_fn = std::function<void(std::string_view line)>;

class task_context {
 public:
  task_context(thread_pool& pool, std::string task, std::vector<metric>& sink, const progress_fn& progress,
               const log_fn& log, double begin, double end)
      : pool_(pool), task_(std::move(task)), sink_(sink), progress_(progress), log_(log), begin_(begin), end_(end) {}

  [[nodiscard]] thread_pool& pool() noexcept { return pool_; }
  [[nodiscard]] const std::string& task() const noexcept { return task_; }
  // Fraction of this task done, in [0, 1].
  void progress(double fraction, std::string_view what = {});
  void log(std::string_view line);
  void emit(metric m);
  void emit(std::string name, figure value, std::string unit, std::optional<double> stddev = std::nullopt,
            std::int64_t samples = 0);

 private:
  thread_pool& pool_;
  std::string task_;
  std::vector<metric>& sink_;
  const progress_fn& progress_;
  const log_fn& log_;
  double begin_, end_;
};

class measure_task {
 public:
  virtual ~measure_task() = default;
  [[nodiscard]] virtual std::string_view name() const = 0;
  // Relative share of the progress bar (about the expected run time).
  [[nodiscard]] virtual double weight() const { return 1.0; }
  virtual void run(task_context& ctx) = 0;
};

struct task_record {
  std::string name;
  double wall_s = 0;
};

struct suite_result {
  std::vector<task_record> tasks;
  std::vector<metric> metrics;
};

class suite {
 public:
  suite& add(std::unique_ptr<measure_task> task);
  // Runs the tasks in order; an exception stops the suite and propagates.
  suite_result run(thread_pool& pool, const progress_fn& progress = {}, const log_fn& log = {});
  [[nodiscard]] std::size_t size() const noexcept { return tasks_.size(); }

 private:
  std::vector<std::unique_ptr<measure_task>> tasks_;
};

// CSV: task,metric,value,unit,label,stddev,samples,note (one header line; SI units;
// empty value when unavailable).
[[nodiscard]] std::string metrics_to_csv(const std::vector<metric>& metrics);
// JSON array of {"task","metric","value","unit","label","stddev"?,"samples"?,"note"?}.
[[nodiscard]] std::string metrics_to_json(const std::vector<metric>& metrics);

}  // namespace flopcast::measure
