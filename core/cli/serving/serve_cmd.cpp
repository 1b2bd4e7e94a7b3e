#include "serving/serve_cmd.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>

#include "common.hpp"
#include "report_text.hpp"

namespace flopcast::cli {
namespace {

using json = nlohmann::ordered_json;
using clock_type = std::chrono::steady_clock;

// A progress bar on stderr, only when it is a terminal and the run has taken over a second.
// Progress: the output tokens emitted (decode tokens of each step) over those the points ask for.
class progress {
 public:
  progress(const simulation_request& q) : points_(q.points.size()), start_(clock_type::now()) {
    const simulation_settings& s = q.simulation;
    if (s.arrivals == arrival_kind::trace) {
      for (const auto& t : s.trace) per_point_ += static_cast<double>(t.output_tokens);
    } else {
      per_point_ = static_cast<double>(s.num_requests) *
                   (static_cast<double>(s.output_tokens.min) + static_cast<double>(s.output_tokens.max)) / 2;
    }
    enabled_ = ::isatty(STDERR_FILENO) == 1;
  }
  ~progress() {
    if (shown_) std::cerr << "\r\033[K" << std::flush;
  }
  progress(const progress&) = delete;
  progress& operator=(const progress&) = delete;

  void begin(std::size_t point) {
    point_ = point;
    tokens_ = 0;
    steps_ = 0;
  }
  void step(const step_record& r) {
    tokens_ += static_cast<double>(r.decode_tokens);
    if (!enabled_ || (++steps_ & 1023) != 0) return;
    const auto now = clock_type::now();
    if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(100)) return;
    last_ = now;
    const double within = per_point_ > 0 ? std::min(1.0, tokens_ / per_point_) : 0.0;
    const double done = (static_cast<double>(point_) + within) / static_cast<double>(points_);
    constexpr int width = 30;
    const int filled = static_cast<int>(done * width);
    std::cerr << fmt::format("\rsimulating [{}{}] {:3.0f}%  point {}/{}", std::string(filled, '#'),
                             std::string(width - filled, '.'), done * 100, point_ + 1, points_)
              << std::flush;
    shown_ = true;
  }

 private:
  std::size_t points_ = 1, point_ = 0;
  double per_point_ = 0, tokens_ = 0;
  std::int64_t steps_ = 0;
  bool enabled_ = false, shown_ = false;
  clock_type::time_point start_, last_;
};

// CSV: one row per point, SI units, from the JSON result (the same numbers).
std::string csv(const json& r) {
  std::string out =
      "concurrency,request_rate,requests,ttft_mean_s,ttft_p50_s,ttft_p90_s,ttft_p99_s,tpot_mean_s,tpot_p50_s,tpot_p90_"
      "s,tpot_p99_s,itl_mean_s,itl_p50_s,itl_p90_s,itl_p99_s,e2e_mean_s,e2e_p50_s,e2e_p90_s,e2e_p99_s,output_tokens_"
      "per_s,total_tokens_per_s,requests_per_s,goodput_requests_per_s,goodput_share,mean_kv_utilization,peak_kv_"
      "utilization,mean_running,preemptions,steps,cache_hit_rate,cached_prompt_tokens,computed_prompt_tokens\n";
  const auto cell = [](const json& v) { return v.is_null() ? std::string() : v.dump(); };
  for (const json& p : r.at("points")) {
    out += cell(p.at("concurrency")) + "," + cell(p.at("request_rate")) + "," + cell(p.at("requests"));
    for (const char* d : {"ttft_s", "tpot_s", "itl_s", "e2e_s"})
      for (const char* k : {"mean", "p50", "p90", "p99"}) out += "," + cell(p.at(d).at(k));
    for (const char* k : {"output_tokens_per_s", "total_tokens_per_s", "requests_per_s", "goodput_requests_per_s",
                          "goodput_share", "mean_kv_utilization", "peak_kv_utilization", "mean_running", "preemptions",
                          "steps", "cache_hit_rate", "cached_prompt_tokens", "computed_prompt_tokens"})
      out += "," + cell(p.at(k));
    out += "\n";
  }
  return out;
}

std::string lengths(const json& v) {
  if (v.is_null()) return "from the trace";
  const auto a = v.at(0).get<std::int64_t>(), b = v.at(1).get<std::int64_t>();
  return a == b ? std::to_string(a) : fmt::format("{}-{} (uniform)", a, b);
}

// Expert parallelism / attention data parallelism: the layout and the first point's communication.
std::string layout_line(const json& r) {
  const json& s = r.at("settings");
  const auto ep = s.at("expert_parallel").get<std::int64_t>(),
             adp = s.at("attention_data_parallel").get<std::int64_t>();
  if (ep == 1 && adp == 1) return "";
  std::string out =
      fmt::format("  layout: TP {} x EP {} = {} GPUs, {} attention rank{} (each its own batch), expert imbalance {}\n",
                  s.at("tensor_parallel").get<std::int64_t>(), ep, r.at("gpus").get<std::int64_t>(), adp,
                  adp == 1 ? "" : "s", format_number(s.at("expert_imbalance").get<double>()));
  if (!r.at("points").empty()) {
    const json& p = r.at("points").at(0);
    out += fmt::format(
        "  per GPU: weights {}, KV {} per token; first point: all-to-all {} per step, communication {} per step\n",
        format_bytes(p.at("weights_per_gpu").get<double>()),
        format_bytes(p.at("kv_bytes_per_token_per_gpu").get<double>()),
        format_bytes(p.at("alltoall_bytes_per_step").get<double>()),
        format_seconds(p.at("communication_s_per_step").get<double>()));
  }
  return out;
}

// Disaggregated: the layout, then per point the pools, the transfer and the bottleneck.
std::string disaggregation_text(const json& r) {
  const json& l = r.at("disaggregation");
  const auto i = [](const json& v) { return v.get<std::int64_t>(); };
  const auto layout = [&](const std::string& pool) {
    std::string t = fmt::format("TP {}", i(l.at(pool + "_tensor_parallel")));
    if (i(l.at(pool + "_expert_parallel")) > 1) t += fmt::format(" x EP {}", i(l.at(pool + "_expert_parallel")));
    if (i(l.at(pool + "_attention_data_parallel")) > 1)
      t += fmt::format(", attention DP {}", i(l.at(pool + "_attention_data_parallel")));
    return t;
  };
  std::string out = fmt::format(
      "  disaggregated: {} prefill x {} GPUs ({}) + {} decode x {} GPUs ({}) = {} GPUs; KV link {} GB/s, {} latency\n"
      "    first token: {}\n",
      i(l.at("prefill_workers")), i(l.at("prefill_gpus_per_worker")), layout("prefill"), i(l.at("decode_workers")),
      i(l.at("decode_gpus_per_worker")), layout("decode"), i(l.at("gpus")),
      format_number(l.at("transfer_bandwidth_bytes_per_s").get<double>() / 1e9),
      format_seconds(l.at("transfer_latency_s").get<double>()), l.at("first_token").get<std::string>());
  out += fmt::format("{:>12} {:>10} {:>14} {:>14} {:>12} {:>12} {:>15}\n", "", "bottleneck", "prefill util",
                     "prefill queue", "decode util", "decode queue", "transfer mean");
  for (const json& p : r.at("points")) {
    const json& x = p.at("disaggregation");
    const std::string label = !p.at("concurrency").is_null()    ? p.at("concurrency").dump()
                              : !p.at("request_rate").is_null() ? format_number(p.at("request_rate").get<double>())
                                                                : std::string("point");
    out += fmt::format("{:>12} {:>10} {:>14} {:>14} {:>12} {:>12} {:>15}{}\n", label,
                       x.at("bottleneck").get<std::string>(),
                       format_percent(x.at("prefill").at("utilization").get<double>()),
                       format_seconds(x.at("prefill").at("mean_queue_s").get<double>()),
                       format_percent(x.at("decode").at("utilization").get<double>()),
                       format_seconds(x.at("decode").at("mean_queue_s").get<double>()),
                       format_seconds(x.at("transfer_s").at("mean").get<double>()),
                       x.at("converged").get<bool>()
                           ? ""
                           : "  (closed loop not converged after " + x.at("passes").dump() + " passes: approximate)");
  }
  return out;
}

std::string text(const json& r) {
  const json& w = r.at("workload");
  const json& k = r.at("scheduler");
  std::string out = fmt::format("flopcast serve: {} on {} x {} ({}), {} arrivals, {} requests, input {}, output {}\n",
                                r.at("model").get<std::string>(), r.at("gpus").get<std::int64_t>(),
                                r.at("gpu").get<std::string>(), r.at("precision").get<std::string>(),
                                w.at("arrivals").get<std::string>(), w.at("num_requests").get<std::int64_t>(),
                                lengths(w.at("input_tokens")), lengths(w.at("output_tokens")));
  out += fmt::format("  {}: {}\n", r.at("label").get<std::string>(), r.at("method").get<std::string>());
  out += fmt::format(
      "  scheduler: max_num_seqs {}, max_num_batched_tokens {}, chunked prefill {}, policy {}, KV {} blocks of {} "
      "tokens [{}]\n",
      k.at("max_num_seqs").get<std::int64_t>(), k.at("max_num_batched_tokens").get<std::int64_t>(),
      k.at("chunked_prefill").get<bool>() ? "on" : "off", k.at("policy").get<std::string>(),
      k.at("kv_blocks").get<std::int64_t>(), k.at("block_size").get<std::int64_t>(), k.at("source").get<std::string>());
  std::string shape;
  if (w.at("prefix_tokens").get<std::int64_t>() > 0)
    shape += fmt::format("shared prefix {} tokens", w.at("prefix_tokens").get<std::int64_t>());
  if (w.at("prompt_pool").get<std::int64_t>() > 0)
    shape += (shape.empty() ? "" : ", ") + fmt::format("pool of {} prompts", w.at("prompt_pool").get<std::int64_t>());
  if (w.at("turns").get<std::int64_t>() > 1)
    shape += (shape.empty() ? "" : ", ") + fmt::format("sessions of {} turns, think time {}",
                                                       w.at("turns").get<std::int64_t>(),
                                                       format_seconds(w.at("think_time_s").get<double>()));
  if (!w.at("dataset").is_null())
    shape += (shape.empty() ? "" : ", ") + std::string("lengths from ") + w.at("dataset").get<std::string>();
  if (!shape.empty()) out += "  workload: " + shape + "\n";
  const std::string cache = k.at("prefix_caching").get<std::string>();
  out += "  prefix caching: " +
         (cache == "off"     ? std::string("off")
          : cache == "radix" ? std::string("radix tree (SGLang), LRU leaves")
                             : std::string("hashed full blocks (vLLM, TensorRT-LLM), LRU")) +
         "\n";
  out += layout_line(r);
  std::string slo;
  if (!w.at("slo_ttft_s").is_null()) slo += "TTFT <= " + format_seconds(w.at("slo_ttft_s").get<double>());
  if (!w.at("slo_tpot_s").is_null())
    slo += (slo.empty() ? "" : ", ") + std::string("TPOT <= ") + format_seconds(w.at("slo_tpot_s").get<double>());
  out += "  goodput SLO: " + (slo.empty() ? std::string("none (every request counts)") : slo) + "\n";
  const std::string arrivals = w.at("arrivals").get<std::string>();
  const std::string key = arrivals == "closed_loop" ? "concurrency" : arrivals == "poisson" ? "rate req/s" : "point";
  out +=
      fmt::format("{:>12} {:>11} {:>11} {:>10} {:>10} {:>10} {:>13} {:>9} {:>18} {:>8}\n", key, "TTFT mean", "TTFT p99",
                  "TPOT mean", "TPOT p99", "ITL p99", "output tok/s", "req/s", "goodput req/s", "KV peak");
  for (const json& p : r.at("points")) {
    const std::string label = !p.at("concurrency").is_null()    ? p.at("concurrency").dump()
                              : !p.at("request_rate").is_null() ? format_number(p.at("request_rate").get<double>())
                                                                : arrivals;
    const auto dist = [&](const char* d, const char* q) { return format_seconds(p.at(d).at(q).get<double>()); };
    const auto number = [&](const char* k) { return format_number(p.at(k).get<double>()); };
    const auto percent = [&](const char* k) { return format_percent(p.at(k).get<double>()); };
    out += fmt::format("{:>12} {:>11} {:>11} {:>10} {:>10} {:>10} {:>13} {:>9} {:>9} ({:>6}) {:>8}\n", label,
                       dist("ttft_s", "mean"), dist("ttft_s", "p99"), dist("tpot_s", "mean"), dist("tpot_s", "p99"),
                       dist("itl_s", "p99"), number("output_tokens_per_s"), number("requests_per_s"),
                       number("goodput_requests_per_s"), percent("goodput_share"), percent("peak_kv_utilization"));
  }
  for (const json& p : r.at("points")) {
    if (p.at("prefix_cache").get<std::string>() == "off") continue;
    out += fmt::format(
        "  cache hit rate{}: {} ({} of {} prompt tokens from the cache, {} prefilled)\n",
        p.at("concurrency").is_null()
            ? (p.at("request_rate").is_null() ? std::string() : " at " + p.at("request_rate").dump() + " req/s")
            : " at concurrency " + p.at("concurrency").dump(),
        format_percent(p.at("cache_hit_rate").get<double>()), format_count(p.at("cached_prompt_tokens").get<double>()),
        format_count(p.at("prompt_tokens").get<double>()), format_count(p.at("computed_prompt_tokens").get<double>()));
  }
  if (r.contains("disaggregation")) out += disaggregation_text(r);
  bool ranged = false;
  for (const json& p : r.at("points")) {
    if (p.at("output_tokens_per_s_range").is_null() && p.at("ttft_s_range").is_null()) continue;
    if (!ranged) out += "  ranges (" + r.at("ranges_source").get<std::string>() + "):\n";
    ranged = true;
    const auto range = [&](const char* k, auto f) {
      const json& v = p.at(k);
      return v.is_null() ? std::string(none_text)
                         : fmt::format("[{} .. {}]", f(v.at(0).get<double>()), f(v.at(1).get<double>()));
    };
    const auto seconds = [](double v) { return format_seconds(v); };
    const auto rate = [](double v) { return format_number(v); };
    out += fmt::format("    {:>10}: TTFT {}  TPOT {}  output tok/s {}\n",
                       p.at("concurrency").is_null() ? p.at("request_rate").dump() : p.at("concurrency").dump(),
                       range("ttft_s_range", seconds), range("tpot_s_range", seconds),
                       range("output_tokens_per_s_range", rate));
  }
  if (r.contains("point_correction") && !r.at("point_correction").is_null())
    out += "  points " + r.at("point_correction").get<std::string>() + "\n";
  return out;
}

}  // namespace

serve_command add_serve_command(CLI::App& parent) {
  auto o = std::make_shared<request_options>();
  o->command = command_simulate;
  serve_command cmd;
  cmd.app = parent.add_subcommand(
      "serve",
      "Simulate serving (iteration-level continuous batching): TTFT, TPOT, ITL, tokens/s, goodput per "
      "concurrency or request rate");
  CLI::App& a = *cmd.app;
  a.add_option("MODEL", o->models, "Registry name or alias, or a path to a config.json")->required()->expected(1);
  add_request_options(a, *o);

  cmd.run = [o] {
    const simulation_request q = read_simulation_request(build_request(*o).dump());
    std::vector<simulation_result> results;
    std::vector<disaggregated_result> split;
    {
      progress bar(q);
      for (std::size_t i = 0; i < q.points.size(); ++i) {
        bar.begin(i);
        const auto step = [&bar](const step_record& r) { bar.step(r); };
        if (q.disaggregation) {
          split.push_back(q.run_disaggregated(i, step));
          results.push_back(split.back().total);
        } else {
          results.push_back(q.run(i, step));
        }
      }
    }
    const std::string out = simulation_to_json(q, results, 2, q.disaggregation ? &split : nullptr);
    if (o->json) {
      std::cout << out << "\n";
      return 0;
    }
    const json r = json::parse(out);
    std::cout << (o->csv ? csv(r) : text(r));
    return 0;
  };
  return cmd;
}

}  // namespace flopcast::cli
