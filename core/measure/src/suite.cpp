#include "flopcast/measure/suite.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "flopcast/measure/tracker.hpp"
#include "json_util.hpp"

namespace flopcast::measure {

void task_context::progress(double fraction, std::string_view what) {
  if (!progress_) return;
  const double f = std::clamp(fraction, 0.0, 1.0);
  std::string label = task_;
  if (!what.empty()) label += ": " + std::string(what);
  progress_(begin_ + (end_ - begin_) * f, label);
}

void task_context::log(std::string_view line) {
  if (log_) log_(fmt::format("[{}] {}", task_, line));
}

void task_context::emit(metric m) {
  m.task = task_;
  sink_.push_back(std::move(m));
}

void task_context::emit(std::string name, figure value, std::string unit, std::optional<double> stddev,
                        std::int64_t samples) {
  metric m;
  m.name = std::move(name);
  m.value = std::move(value);
  m.unit = std::move(unit);
  m.stddev = stddev;
  m.samples = samples;
  emit(std::move(m));
}

suite& suite::add(std::unique_ptr<measure_task> task) {
  tasks_.push_back(std::move(task));
  return *this;
}

suite_result suite::run(thread_pool& pool, const progress_fn& progress, const log_fn& log) {
  suite_result r;
  double total = 0;
  for (const auto& t : tasks_) total += std::max(0.0, t->weight());
  if (total <= 0) total = 1;
  double done = 0;
  for (const auto& t : tasks_) {
    const double share = std::max(0.0, t->weight()) / total;
    task_context ctx(pool, std::string(t->name()), r.metrics, progress, log, done, done + share);
    ctx.progress(0);
    const auto start = clock_type::now();
    t->run(ctx);
    const double wall = seconds(start, clock_type::now());
    r.tasks.push_back({std::string(t->name()), wall});
    ctx.log(fmt::format("done in {:.3f} s", wall));
    done += share;
    ctx.progress(1);
  }
  return r;
}

namespace {
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}
std::string csv_number(double v) { return std::isfinite(v) ? fmt::format("{}", v) : ""; }
}  // namespace

std::string metrics_to_csv(const std::vector<metric>& metrics) {
  std::string out = "task,metric,value,unit,label,stddev,samples,note\n";
  for (const auto& m : metrics) {
    out += csv_field(m.task) + "," + csv_field(m.name) + "," + (m.value.value ? csv_number(*m.value.value) : "") + "," +
           csv_field(m.unit) + "," + std::string(to_string(m.value.label)) + "," +
           (m.stddev ? csv_number(*m.stddev) : "") + "," + (m.samples > 0 ? std::to_string(m.samples) : "") + "," +
           csv_field(m.value.note) + "\n";
  }
  return out;
}

std::string metrics_to_json(const std::vector<metric>& metrics) {
  json_util::json a = json_util::json::array();
  for (const auto& m : metrics) a.push_back(json_util::metric_json(m));
  return a.dump(2);
}

}  // namespace flopcast::measure
