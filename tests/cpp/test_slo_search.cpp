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
  const simulation_result raw =
      p.disaggregation ? simulate_disaggregated(m, p.sim, *p.disaggregation, gpu).total : simulate(m, p.sim, gpu);
  return corrected(raw, corrections_for(m, p.sim, gpu));
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

TEST_CASE("SLO search: disaggregated prefill and decode workers are candidates and rerun as simulated") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& gpu = find_gpu("H100");
  search_settings s = question(8, 0.5, 0.020);
  s.engines = {"vllm", "sglang"};
  const search_result r = search_configurations(m, s, gpu);
  const auto split =
      std::find_if(r.ranked.begin(), r.ranked.end(), [](const search_point& p) { return p.config.disaggregated; });
  REQUIRE(split != r.ranked.end());
  const search_config& c = split->config;
  REQUIRE(split->disaggregation);
  CHECK(split->disaggregation->prefill_workers == c.prefill_workers);
  CHECK(split->disaggregation->decode_workers == c.decode_workers);
  CHECK(c.gpus() == c.prefill_workers * c.prefill_tp + c.decode_workers * c.tp * c.ep);
  CHECK(c.gpus() <= 8);
  CHECK(c.replicas == 1);
  // The direct run of the same pools: the same figures, within the SLOs.
  const disaggregated_result direct = simulate_disaggregated(m, split->sim, *split->disaggregation, gpu);
  CHECK(direct.gpus == c.gpus());
  const simulation_result shown = rerun(m, *split, gpu);
  CHECK(percentile(shown.ttft, 90) == Approx(split->ttft_s));
  CHECK(percentile(shown.tpot, 90) == Approx(split->tpot_s));
  CHECK(split->ttft_s <= 0.5);
  CHECK(split->tpot_s <= 0.020);
  CHECK(split->output_tokens_per_s_per_gpu == Approx(shown.output_tokens_per_s / static_cast<double>(c.gpus())));
  // Two commands: each pool's server with its role as the engine spells it.
  REQUIRE(split->launch);
  REQUIRE(split->prefill_launch);
  const auto has = [](const launch_command& l, std::vector<std::string> run) {
    return std::search(l.args.begin(), l.args.end(), run.begin(), run.end()) != l.args.end();
  };
  if (c.engine == "sglang") {
    CHECK(has(*split->prefill_launch, {"--disaggregation-mode", "prefill"}));
    CHECK(has(*split->launch, {"--disaggregation-mode", "decode"}));
  } else {
    CHECK(has(*split->launch, {"--kv-transfer-config"}));
  }
  // Turned off, or on one GPU: none.
  s.disaggregated = false;
  for (const search_point& p : search_configurations(m, s, gpu).ranked) CHECK_FALSE(p.config.disaggregated);
  s.disaggregated = true;
  s.gpus = 1;
  for (const search_point& p : search_configurations(m, s, gpu).ranked) CHECK_FALSE(p.config.disaggregated);
}

TEST_CASE("launch commands: a disaggregated worker's role as each engine spells it") {
  launch_settings s;
  s.model = "meta-llama/Llama-3.1-8B";
  const auto has = [](const launch_command& c, std::vector<std::string> run) {
    return std::search(c.args.begin(), c.args.end(), run.begin(), run.end()) != c.args.end();
  };
  for (const auto& [engine, prefill, decode] :
       {std::tuple{"sglang", "prefill", "decode"}, std::tuple{"tensorrt-llm", "context", "generation"},
        std::tuple{"vllm", R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})",
                   R"({"kv_connector":"NixlConnector","kv_role":"kv_both"})"}}) {
    const engine_profile& e = find_engine(engine);
    const std::string flag = e.launch.flag("disaggregated_role")->flag;
    s.role = "prefill";
    const launch_command p = launch_for(e, s);
    s.role = "decode";
    const launch_command dcmd = launch_for(e, s);
    s.role.clear();
    const launch_command agg = launch_for(e, s);
    CHECK(has(p, {flag, prefill}));
    CHECK(has(dcmd, {flag, decode}));
    CHECK(std::find(agg.args.begin(), agg.args.end(), flag) == agg.args.end());
    CHECK(std::any_of(p.left_out.begin(), p.left_out.end(),
                      [](const std::string& x) { return x.find("router") != std::string::npos; }));
  }
  // llama.cpp has no disaggregation: the search never offers it there.
  CHECK(find_engine("llama.cpp").launch.flag("disaggregated_role") == nullptr);
}

TEST_CASE("SLO search: a MoE model too big for one node is served with expert parallelism across nodes") {
  // DeepSeek-R1 in FP8 (about 671 GB of weights) does not fit 8 H100s (640 GB): the search finds
  // nothing on 8, and on 16 finds wide-EP layouts over two NVLink domains.
  const auto& m = test::model("deepseek-r1");
  const auto& gpu = find_gpu("H100");
  REQUIRE(gpu.interconnect_domain_size == 8);
  search_settings s = question(8, 2.0, 0.05);
  s.sim.base.weight_precision = precision::fp8;
  s.formats = {precision::fp8};
  CHECK(search_configurations(m, s, gpu).ranked.empty());
  s.gpus = 16;
  const search_result r = search_configurations(m, s, gpu);
  REQUIRE_FALSE(r.ranked.empty());
  for (const search_point& p : r.ranked) {
    CHECK(p.config.tp * p.config.ep == 16);
    CHECK(p.config.ep == 16);
    CHECK(p.meets);
  }
}

TEST_CASE("SLO search: several devices, one search each, merged by the objective with one progress") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  search_settings s = question(4, 0.5, 0.020);
  s.objective = search_objective::cost;
  std::vector<double> seen;
  s.progress = [&](double f) {
    seen.push_back(f);
    return true;
  };
  const std::vector<const hardware_spec*> gpus{&find_gpu("H100"), &find_gpu("L40S")};
  const search_result r = search_configurations(m, s, gpus);
  REQUIRE_FALSE(r.ranked.empty());
  for (std::size_t i = 1; i < seen.size(); ++i) CHECK(seen[i] >= seen[i - 1]);
  CHECK(seen.back() == Approx(1.0));
  for (std::size_t i = 1; i < r.ranked.size(); ++i)
    CHECK(r.ranked[i - 1].usd_per_million_output_tokens <= r.ranked[i].usd_per_million_output_tokens);
  // Each device's own best is in the merged list (or the list is full of cheaper ones).
  s.progress = nullptr;
  for (const hardware_spec* g : gpus) {
    const search_result alone = search_configurations(m, s, *g);
    if (alone.ranked.empty()) continue;
    const auto mine =
        std::find_if(r.ranked.begin(), r.ranked.end(), [&](const search_point& p) { return p.gpu == g->name; });
    if (mine == r.ranked.end()) {
      CHECK(r.ranked.size() == s.top);
      CHECK(r.ranked.back().usd_per_million_output_tokens <= alone.ranked.front().usd_per_million_output_tokens);
    } else {
      CHECK(mine->usd_per_million_output_tokens == alone.ranked.front().usd_per_million_output_tokens);
    }
  }
  CHECK(r.why.find("Best on each GPU: H100-SXM: ") != std::string::npos);
}

TEST_CASE(
    "SLO search: an engine without chunked prefill gets a token budget that admits its longest prompt beside "
    "every running decode") {
  // TensorRT-LLM runs a prompt whole; its scheduler holds a prompt back while the step's decodes
  // leave less than the prompt of max_num_tokens (as the simulator does), so a budget of the
  // longest prompt alone would serialise long prompts. Deployments size it as the longest prompt
  // plus the running sequences (InferenceX: max_num_tokens = CONC + ISL + 64).
  const model_spec& m = test::model("llama-3-8b");
  const hardware_spec& gpu = find_gpu("H100");
  search_settings s = question(1, std::nullopt, 0.05);
  s.engines = {"tensorrt-llm"};
  s.sim.input_tokens = {7000, 8192};
  s.sim.arrivals = arrival_kind::batch;
  const search_result r = search_configurations(m, s, gpu);
  REQUIRE_FALSE(r.ranked.empty());
  for (const search_point& p : r.ranked) {
    CHECK_FALSE(p.config.chunked_prefill);
    CHECK(p.config.max_num_batched_tokens >= 8192 + p.config.max_num_seqs);
    CHECK(p.sim.max_num_batched_tokens == p.config.max_num_batched_tokens);
  }
}
