// Issue 27, items 2 and 3: every ranged figure lies inside its own range, and the time to first
// token under load is never below the same prompt's idle prefill, across models x devices x
// engines x concurrencies, read from the JSON documents the CLI, the WASM API and the page show.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "flopcast/serving/engine.hpp"
#include "helpers.hpp"

namespace {

using test::json;

// Every "<name>_range" / ranges.<name> pair in a document: lo <= point <= hi (relative slack 1e-9
// for rounding). `where` names the figure in a failure.
void check_pair(double point, const json& range, const std::string& where, int& checked) {
  REQUIRE(range.is_array());
  const double lo = range.at(0).get<double>(), hi = range.at(1).get<double>();
  INFO(where << ": point " << point << ", range [" << lo << ", " << hi << "]");
  CHECK(lo <= hi);
  CHECK(lo <= point * (1 + 1e-9));
  CHECK(point <= hi * (1 + 1e-9));
  ++checked;
}

// Ranges are written as {"low": .., "high": ..} objects or [lo, hi] pairs; accept both.
json as_pair(const json& r) {
  if (r.is_array()) return r;
  return json::array({r.at("low"), r.at("high")});
}

const std::vector<std::string> k_models = {"llama-3-8b", "qwen2.5-7b", "mixtral-8x7b"};
const std::vector<std::string> k_gpus = {"A100", "H100", "L40S"};
const std::vector<std::string> k_engines = {"", "vllm", "tensorrt-llm", "sglang", "llama.cpp"};
const std::vector<std::int64_t> k_concurrency = {1, 8, 64};

}  // namespace

TEST_CASE("issue 27: every ranged figure lies inside its range; TTFT under load >= the idle prefill",
          "[ranges][serving][throughput]") {
  int checked = 0, ttft_checked = 0;
  for (const auto& model : k_models)
    for (const auto& gpu : k_gpus)
      for (const auto& engine : k_engines) {
        json base = {{"model", model}, {"gpu", gpu}};
        if (!engine.empty()) base["engine"] = engine;
        const std::string label = model + " on " + gpu + " engine " + (engine.empty() ? "(none)" : engine);
        // The idle prefill of the same prompt on the same engine profile (estimate's TTFT).
        json est = base;
        est["sequence_length"] = 1024;
        est["num_generated_tokens"] = 1024;
        json e;
        try {
          e = json::parse(flopcast::estimate_json(est.dump()));
        } catch (const flopcast::error&) {
          continue;  // an engine the device does not run
        }
        const json& perf = e.at("details").at("performance");
        const double idle_prefill = perf.at("prefill_latency_s").get<double>();
        for (const auto& [key, range] : perf.at("ranges").items()) {
          if (!range.is_object() && !range.is_array()) continue;
          if (!perf.contains(key) || !perf.at(key).is_number()) continue;
          check_pair(perf.at(key).get<double>(), as_pair(range), label + " estimate " + key, checked);
        }
        for (const std::int64_t c : k_concurrency) {
          const std::string at = label + " concurrency " + std::to_string(c);
          // The closed form (flopcast throughput).
          json tq = base;
          tq["serving"] = {{"prompt_tokens", 1024}, {"output_tokens", 1024}, {"concurrency", c}};
          json t;
          try {
            t = json::parse(flopcast::throughput_json(tq.dump()));
          } catch (const flopcast::error&) {
            continue;
          }
          if (t.at("fits").get<bool>()) {
            const json& r = t.at("ranges");
            check_pair(t.at("tokens_per_second").get<double>(), as_pair(r.at("tokens_per_second")),
                       at + " throughput tokens/s", checked);
            check_pair(t.at("ttft_s").get<double>(), as_pair(r.at("ttft_s")), at + " throughput TTFT", checked);
            check_pair(t.at("tpot_s").get<double>(), as_pair(r.at("tpot_s")), at + " throughput TPOT", checked);
            INFO(at << " throughput: TTFT " << t.at("ttft_s").get<double>() << " vs idle prefill " << idle_prefill);
            // TTFT under load, corrected or not, is at least the prompt's idle prefill (item 2).
            CHECK(t.at("ttft_s").get<double>() >= idle_prefill * (1 - 1e-9));
            ++ttft_checked;
          }
          // The simulator (flopcast serve), a closed loop of c clients.
          if (engine == "transformers") continue;
          json sq = base;
          sq["simulation"] = {{"input_tokens", 1024},
                              {"output_tokens", 256},
                              {"concurrency", {c}},
                              {"num_requests", 3 * c + 4},
                              {"warmup_requests", 0}};
          json sim;
          try {
            sim = json::parse(flopcast::simulate_json(sq.dump()));
          } catch (const flopcast::error&) {
            continue;
          }
          for (const json& p : sim.at("points")) {
            for (const char* k : {"ttft_s", "tpot_s", "itl_s"})
              if (!p.at(std::string(k) + "_range").is_null())
                check_pair(p.at(k).at("mean").get<double>(), p.at(std::string(k) + "_range"), at + " serve " + k,
                           checked);
            for (const char* k : {"output_tokens_per_s", "total_tokens_per_s", "requests_per_s"})
              if (!p.at(std::string(k) + "_range").is_null())
                check_pair(p.at(k).get<double>(), p.at(std::string(k) + "_range"), at + " serve " + k, checked);
            if (c == 1) {
              INFO(at << " serve: TTFT mean " << p.at("ttft_s").at("mean").get<double>() << " vs idle prefill "
                      << idle_prefill);
              CHECK(p.at("ttft_s").at("mean").get<double>() >= idle_prefill * (1 - 1e-9));
              ++ttft_checked;
            }
          }
        }
      }
  INFO("ranged figures checked: " << checked << ", TTFT checks: " << ttft_checked);
  CHECK(checked > 500);
  CHECK(ttft_checked > 60);
}

TEST_CASE("issue 27 item 3: a biased band corrects the point by its median, the range stays around the model",
          "[ranges][serving][throughput]") {
  const auto& m = test::model("llama-3-8b");
  const auto& a100 = flopcast::find_gpu("A100");
  flopcast::settings s;
  s.sequence_length = 1024;
  s.num_generated_tokens = 128;
  s.compute_efficiency_origin = s.mem_efficiency_origin = flopcast::efficiency_origin::fitted;
  const auto plain = flopcast::estimate(m, s, &a100).perf;  // no band rows: the model's figures
  // Every measured prefill 60-80% of the model's (p50 70%), every decode 110-130% (p50 120%).
  s.bands.prefill = {0.6, 0.8, 10, 0.7};
  s.bands.decode = {1.1, 1.3, 10, 1.2};
  const auto p = flopcast::estimate(m, s, &a100).perf;
  CHECK(p.prefill_latency_s == Approx(plain.prefill_latency_s * 0.7).epsilon(1e-12));
  CHECK(p.prefill_latency_range.low == Approx(plain.prefill_latency_s * 0.6).epsilon(1e-12));
  CHECK(p.prefill_latency_range.high == Approx(plain.prefill_latency_s * 0.8).epsilon(1e-12));
  CHECK(p.decode_latency_per_token_s == Approx(plain.decode_latency_per_token_s * 1.2).epsilon(1e-12));
  CHECK(p.decode_tokens_per_second == Approx(plain.decode_tokens_per_second / 1.2).epsilon(1e-12));
  // total = prefill + 127 decode steps, each part corrected by its own band.
  CHECK(p.total_request_latency_s ==
        Approx(plain.prefill_latency_s * 0.7 + (plain.total_request_latency_s - plain.prefill_latency_s) * 1.2)
            .epsilon(1e-9));
  CHECK(std::string(p.range_source).find("corrected by the engine's fitted median residual") != std::string::npos);
  // A band that contains 1 corrects nothing.
  s.bands.prefill = {0.9, 1.1, 10, 0.95};
  s.bands.decode = {0.9, 1.1, 10, 1.05};
  const auto q = flopcast::estimate(m, s, &a100).perf;
  CHECK(q.prefill_latency_s == plain.prefill_latency_s);
  CHECK(q.decode_latency_per_token_s == plain.decode_latency_per_token_s);
  CHECK(std::string(q.range_source).find("corrected") == std::string::npos);

  // The closed form: a TTFT band below 1 corrects TTFT by its median, but never below the idle
  // prefill; the range reaches the point.
  flopcast::serving_settings v;
  v.base = s;
  v.base.bands = {};
  v.prompt_tokens = 1024;
  v.output_tokens = 1024;
  v.concurrency = 64;
  const auto raw = flopcast::serve(m, v, a100);
  v.base.bands.ttft_load = {0.7, 0.8, 5, 0.75};
  const auto fixed = flopcast::serve(m, v, a100);
  CHECK(fixed.ttft_s == Approx(std::max(raw.ttft_s * 0.75, raw.prefill_s)).epsilon(1e-12));
  CHECK(fixed.ttft_range.low <= fixed.ttft_s);
  CHECK(fixed.ttft_s <= fixed.ttft_range.high);
  CHECK_FALSE(fixed.point_correction.empty());
  CHECK(fixed.output_tokens_per_second == raw.output_tokens_per_second);  // its band has no rows
}

TEST_CASE("issue 27 item 2: chunked prefill's TTFT holds the whole prompt, not one decode step",
          "[serving][throughput]") {
  const auto& m = test::model("llama-3-8b");
  const auto& a100 = flopcast::find_gpu("A100");
  flopcast::serving_settings v;
  v.prompt_tokens = 1024;
  v.output_tokens = 1024;
  v.concurrency = 1;
  v.chunked_prefill_tokens = 2048;  // vLLM's budget: the prompt is one chunk
  const auto r = flopcast::serve(m, v, a100);
  // One chunk of 1024 prompt tokens in one step: at least the prompt's prefill, and far above a
  // decode step (the bug: TTFT = TPOT = one step of 1 decode + 1024/1024 prefill tokens).
  CHECK(r.ttft_s >= r.prefill_s);
  CHECK(r.ttft_s > 5 * r.tpot_s);
  // Chunks of 256: four steps, each at least a quarter of the prompt's prefill FLOPs.
  v.chunked_prefill_tokens = 256;
  const auto four = flopcast::serve(m, v, a100);
  CHECK(four.ttft_s >= four.prefill_s);
  // More concurrent sequences only add work to the prompt's steps.
  v.chunked_prefill_tokens = 2048;
  v.concurrency = 64;
  CHECK(flopcast::serve(m, v, a100).ttft_s >= r.ttft_s);
}
