// The SLO search (issue 28, plan/slo_search.hpp): what it ranks first meets every SLO when the same
// settings are simulated directly; what it rejects misses one; tightening an SLO never raises the
// best goodput; its Pareto front is non-dominated.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>

#include "flopcast/catalog/registry.hpp"
#include "flopcast/plan/slo_search.hpp"
#include "helpers.hpp"

using namespace flopcast;

namespace {

search_settings question(std::int64_t gpus, std::optional<double> ttft, std::optional<double> tpot) {
  search_settings s;
  s.sim.input_tokens = {1024, 1024};
  s.sim.output_tokens = {256, 256};
  s.gpus = gpus;
  s.slo.ttft_s = ttft;
  s.slo.tpot_s = tpot;
  return s;
}

double percentile(const distribution& x, std::int64_t p) { return p == 50 ? x.p50 : p == 99 ? x.p99 : x.p90; }

// The point's settings simulated afresh, shown as `serve` shows them.
simulation_result rerun(const model_spec& m, const search_point& p, const hardware_spec& gpu) {
  return corrected(simulate(m, p.sim, gpu), corrections_for(m, p.sim, gpu));
}

}  // namespace

TEST_CASE("SLO search: the first-ranked meets every SLO in a direct run; the rejected miss one") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& gpu = find_gpu("H100");
  const search_settings s = question(8, 0.5, 0.020);
  const auto t0 = std::chrono::steady_clock::now();
  const search_result r = search_configurations(m, s, gpu);
  WARN("llama-3-8b, 8 x H100, TTFT p90 <= 0.5 s, TPOT p90 <= 20 ms: "
       << r.configurations << " configurations, " << r.closed_form_points << " closed-form points, " << r.simulations
       << " simulations in " << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s");
  REQUIRE_FALSE(r.ranked.empty());
  REQUIRE_FALSE(r.rejected.empty());
  const search_point& best = r.ranked.front();
  CHECK(best.meets);
  const simulation_result direct = rerun(m, best, gpu);
  CHECK(percentile(direct.ttft, 90) == Approx(best.ttft_s));
  CHECK(percentile(direct.tpot, 90) == Approx(best.tpot_s));
  CHECK(percentile(direct.ttft, 90) <= *s.slo.ttft_s);
  CHECK(percentile(direct.tpot, 90) <= *s.slo.tpot_s);
  for (const search_point& p : r.rejected) {
    const simulation_result again = rerun(m, p, gpu);
    CHECK((percentile(again.ttft, 90) > *s.slo.ttft_s || percentile(again.tpot, 90) > *s.slo.tpot_s));
  }
  // Ranked best first by output tokens/s per GPU, each meeting both limits.
  for (std::size_t i = 1; i < r.ranked.size(); ++i)
    CHECK(r.ranked[i - 1].output_tokens_per_s_per_gpu >= r.ranked[i].output_tokens_per_s_per_gpu);
  CHECK_FALSE(r.why.empty());
}

TEST_CASE("SLO search: tightening an SLO never raises the best goodput") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& gpu = find_gpu("H100");
  double last = 1e300;
  for (const double tpot : {0.1, 0.04, 0.02, 0.012, 0.008, 0.005}) {
    const search_result r = search_configurations(m, question(8, 2.0, tpot), gpu);
    const double best = r.ranked.empty() ? 0.0 : r.ranked.front().output_tokens_per_s_per_gpu;
    CHECK(best <= last);
    last = best;
  }
  last = 1e300;
  for (const double ttft : {5.0, 1.0, 0.3, 0.1, 0.05}) {
    const search_result r = search_configurations(m, question(8, ttft, 0.05), gpu);
    const double best = r.ranked.empty() ? 0.0 : r.ranked.front().output_tokens_per_s_per_gpu;
    CHECK(best <= last);
    last = best;
  }
  CHECK(last < 1e300);
}

TEST_CASE("SLO search: the Pareto front is non-dominated, pairwise") {
  const auto& m = test::model("Qwen/Qwen3-30B-A3B");
  const auto& gpu = find_gpu("H100");
  const search_result r = search_configurations(m, question(8, 1.0, 0.03), gpu);
  REQUIRE(r.pareto.size() >= 2);
  for (const search_point& a : r.pareto)
    for (const search_point& b : r.pareto) {
      if (&a == &b) continue;
      const bool dominates = a.output_tokens_per_s_per_gpu >= b.output_tokens_per_s_per_gpu &&
                             a.tokens_per_s_per_user >= b.tokens_per_s_per_user &&
                             (a.output_tokens_per_s_per_gpu > b.output_tokens_per_s_per_gpu ||
                              a.tokens_per_s_per_user > b.tokens_per_s_per_user);
      CHECK_FALSE(dominates);
    }
}

TEST_CASE("SLO search: a fixed concurrency is dealt over replicas; bad settings name their field") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& gpu = find_gpu("H100");
  search_settings s = question(8, 1.0, 0.03);
  s.sim.arrivals = arrival_kind::closed_loop;
  s.sim.clients = 64;
  s.sim.num_requests = 256;
  s.objective = search_objective::gpus;
  const search_result r = search_configurations(m, s, gpu);
  REQUIRE_FALSE(r.ranked.empty());
  for (const search_point& p : r.ranked) {
    CHECK(p.concurrency == 64);
    CHECK(p.sim.clients == (64 + p.config.replicas - 1) / p.config.replicas);
    CHECK(p.config.gpus() <= 8);
  }
  for (std::size_t i = 1; i < r.ranked.size(); ++i) CHECK(r.ranked[i - 1].config.gpus() <= r.ranked[i].config.gpus());
  search_settings bad = s;
  bad.gpus = 0;
  CHECK_THROWS_WITH(search_configurations(m, bad, gpu), Catch::Contains("/plan/gpus"));
  bad = s;
  bad.slo.percentile = 95;
  CHECK_THROWS_WITH(search_configurations(m, bad, gpu), Catch::Contains("/plan/slo_percentile"));
  bad = s;
  bad.slo.tpot_s = -1;
  CHECK_THROWS_WITH(search_configurations(m, bad, gpu), Catch::Contains("/plan/slo_tpot_s"));
}

TEST_CASE("launch commands: attention DP, expert parallelism and MTP as each engine spells them") {
  launch_settings s;
  s.model = "deepseek-ai/DeepSeek-V3";
  s.weight = s.checkpoint = parse_precision("fp8_block");
  s.kv = precision::fp8;
  s.tp = 1;
  s.ep = 8;
  s.attention_dp = 8;
  s.max_num_seqs = 256;
  s.max_num_batched_tokens = 4096;
  s.speculative_tokens = 3;
  const auto has = [](const launch_command& c, std::vector<std::string> run) {
    return std::search(c.args.begin(), c.args.end(), run.begin(), run.end()) != c.args.end();
  };
  // vLLM: DP attention is --data-parallel-size with --enable-expert-parallel (EP = TP x DP).
  const launch_command v = launch_for(find_engine("vllm"), s);
  CHECK(v.args.front() == "vllm");
  CHECK(has(v, {"--tensor-parallel-size", "1"}));
  CHECK(has(v, {"--data-parallel-size", "8"}));
  CHECK(has(v, {"--enable-expert-parallel"}));
  CHECK(has(v, {"--kv-cache-dtype", "fp8"}));
  CHECK(has(v, {"--speculative-config", "{\"method\":\"mtp\",\"num_speculative_tokens\":3}"}));
  CHECK(v.text.find("'{\"method\":\"mtp\",\"num_speculative_tokens\":3}'") != std::string::npos);
  // SGLang: --tp-size is the world, with --ep-size, --enable-dp-attention --dp-size; MTP as EAGLE.
  const launch_command g = launch_for(find_engine("sglang"), s);
  CHECK(has(g, {"--tensor-parallel-size", "8"}));
  CHECK(has(g, {"--expert-parallel-size", "8"}));
  CHECK(has(g, {"--enable-dp-attention"}));
  CHECK(has(g, {"--data-parallel-size", "8"}));
  CHECK(has(g, {"--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3"}));
  // TensorRT-LLM: attention DP, the KV format and MTP only in the --extra_llm_api_options YAML.
  const launch_command t = launch_for(find_engine("tensorrt-llm"), s);
  CHECK(has(t, {"--tp_size", "8", "--ep_size", "8"}));
  CHECK(has(t, {"--extra_llm_api_options", "extra_llm_api_options.yaml"}));
  CHECK(std::find(t.yaml.begin(), t.yaml.end(), "enable_attention_dp: true") != t.yaml.end());
  const auto spec = std::find(t.yaml.begin(), t.yaml.end(), "speculative_config:");
  REQUIRE(spec != t.yaml.end());
  CHECK(std::find(spec, t.yaml.end(), "  decoding_type: MTP") != t.yaml.end());
  // A served format narrower than the checkpoint that the engine only reads from a checkpoint.
  s.checkpoint = precision::bf16;
  s.weight = precision::nvfp4;
  const launch_command t4 = launch_for(find_engine("tensorrt-llm"), s);
  REQUIRE_FALSE(t4.left_out.empty());
  CHECK(t4.left_out.back().find("reads the format from the checkpoint") != std::string::npos);
}
