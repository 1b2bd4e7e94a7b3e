// Workloads (shared prefix, prompt pool, sessions, length presets) and prefix caching in the
// serving simulator: exact hand counts of cached and prefilled tokens, block against radix
// granularity, LRU eviction, the feature-off path equal to the simulator without it, invariants.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "flopcast/serving/simulator.hpp"
#include "flopcast/serving/workload.hpp"
#include "helpers.hpp"

using flopcast::arrival_kind;
using flopcast::prefix_cache_mode;
using flopcast::simulate;
using flopcast::simulation_result;
using flopcast::simulation_settings;

namespace {

// One client sending requests one after another (each sees the cache the previous ones left).
simulation_settings sequential(std::int64_t requests, std::int64_t input, std::int64_t output) {
  simulation_settings s;
  s.arrivals = arrival_kind::closed_loop;
  s.clients = 1;
  s.num_requests = requests;
  s.input_tokens = {input, input};
  s.output_tokens = {output, output};
  s.block_size = 16;
  s.keep_requests = true;
  return s;
}

void same_figures(const simulation_result& a, const simulation_result& b) {
  const auto eq = [](double x, double y) { CHECK(std::abs(x - y) <= 1e-9 * std::max(1.0, std::abs(x))); };
  CHECK(a.steps == b.steps);
  CHECK(a.preemptions == b.preemptions);
  eq(a.makespan_s, b.makespan_s);
  for (const auto& [x, y] : {std::pair{a.ttft, b.ttft}, {a.tpot, b.tpot}, {a.itl, b.itl}, {a.e2e, b.e2e}}) {
    eq(x.mean, y.mean);
    eq(x.p50, y.p50);
    eq(x.p99, y.p99);
  }
  eq(a.output_tokens_per_s, b.output_tokens_per_s);
  eq(a.mean_kv_utilization, b.mean_kv_utilization);
  eq(a.mean_in_system, b.mean_in_system);
  CHECK(a.computed_prompt_tokens == b.computed_prompt_tokens);
}

}  // namespace

TEST_CASE("prefix cache: a repeated prompt prefills only its uncached tail (hashed blocks)", "[prefix_cache]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s = sequential(10, 1000, 20);
  s.workload.prompt_pool = 1;
  s.prefix_cache = prefix_cache_mode::block;
  const simulation_result r = simulate(m, s, gpu);
  // The first request prefills all 1000 tokens. Each later one may take at most 999 tokens from
  // the cache (the last prompt token is always recomputed): floor(999 / 16) = 62 full blocks =
  // 992 tokens, and prefills 1000 - 992 = 8.
  REQUIRE(r.requests_detail.size() == 10);
  CHECK(r.requests_detail[0].prefill_tokens == 1000);
  CHECK(r.requests_detail[0].cached_tokens == 0);
  for (std::size_t i = 1; i < 10; ++i) {
    CHECK(r.requests_detail[i].cached_tokens == 992);
    CHECK(r.requests_detail[i].prefill_tokens == 8);
  }
  CHECK(r.prompt_tokens == 10000);
  CHECK(r.cached_prompt_tokens == 9 * 992);           // 8928
  CHECK(r.computed_prompt_tokens == 1000 + 9 * 8);    // 1072
  CHECK(r.cache_hit_rate == Approx(8928.0 / 10000));  // 0.8928
  CHECK(r.timeline.back().cache_hit_rate > 0.85);
  CHECK(r.prefix_cache == prefix_cache_mode::block);

  // The hits make the later requests' first token faster than the first one's.
  CHECK(r.requests_detail[5].first_token_s - r.requests_detail[5].arrival_s <
        r.requests_detail[0].first_token_s - r.requests_detail[0].arrival_s);
}

TEST_CASE("prefix cache: radix tree matches token by token, blocks in whole blocks", "[prefix_cache]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  SECTION("a pool of one prompt") {
    simulation_settings s = sequential(10, 1000, 20);
    s.workload.prompt_pool = 1;
    s.prefix_cache = prefix_cache_mode::radix;
    s.block_size = 1;  // SGLang's page_size
    const simulation_result r = simulate(m, s, gpu);
    // Radix: 999 of 1000 tokens from the cache (the last is recomputed): 1 prefilled.
    CHECK(r.cached_prompt_tokens == 9 * 999);
    CHECK(r.computed_prompt_tokens == 1000 + 9 * 1);
  }
  SECTION("a shared system prompt before unique prompts") {
    simulation_settings s = sequential(5, 1000, 20);
    s.workload.prefix_tokens = 500;
    s.prefix_cache = prefix_cache_mode::radix;
    s.block_size = 1;
    const simulation_result radix = simulate(m, s, gpu);
    // Radix: the 500 prefix tokens; the unique rest is prefilled (500 each).
    CHECK(radix.cached_prompt_tokens == 4 * 500);
    CHECK(radix.computed_prompt_tokens == 1000 + 4 * 500);
    s.prefix_cache = prefix_cache_mode::block;
    s.block_size = 16;
    const simulation_result block = simulate(m, s, gpu);
    // Blocks of 16: floor(500 / 16) = 31 blocks = 496 tokens; block 31 holds the prefix's last
    // 4 tokens and 12 unique ones, so it never matches: 504 prefilled.
    CHECK(block.cached_prompt_tokens == 4 * 496);
    CHECK(block.computed_prompt_tokens == 1000 + 4 * 504);
  }
}

TEST_CASE("prefix cache: multi-turn sessions reuse the conversation so far", "[prefix_cache]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s = sequential(3, 100, 50);
  s.workload.turns = 3;
  s.workload.think_time_s = 1;
  s.prefix_cache = prefix_cache_mode::radix;
  s.block_size = 1;
  const simulation_result r = simulate(m, s, gpu);
  REQUIRE(r.requests_detail.size() == 3);
  // Prompts: 100; 100 + 50 + 100 = 250; 250 + 50 + 100 = 400.
  CHECK(r.requests_detail[0].input_tokens == 100);
  CHECK(r.requests_detail[1].input_tokens == 250);
  CHECK(r.requests_detail[2].input_tokens == 400);
  // A turn arrives think_time_s after the previous one's last token.
  CHECK(r.requests_detail[1].arrival_s == Approx(r.requests_detail[0].finish_s + 1).epsilon(1e-12));
  CHECK(r.requests_detail[2].arrival_s == Approx(r.requests_detail[1].finish_s + 1).epsilon(1e-12));
  // The cache holds what was computed: prompt + output - 1 (the last output token is never fed
  // back): 149 tokens of turn 1, 299 of turn 2.
  CHECK(r.requests_detail[1].cached_tokens == 149);
  CHECK(r.requests_detail[2].cached_tokens == 299);
  CHECK(r.computed_prompt_tokens == 100 + (250 - 149) + (400 - 299));

  s.prefix_cache = prefix_cache_mode::block;
  s.block_size = 16;
  const simulation_result b = simulate(m, s, gpu);
  // Whole blocks of 16: floor(149 / 16) = 9 blocks = 144; floor(299 / 16) = 18 blocks = 288.
  CHECK(b.requests_detail[1].cached_tokens == 144);
  CHECK(b.requests_detail[2].cached_tokens == 288);
}

TEST_CASE("prefix cache: a trace names prefixes and sessions", "[prefix_cache]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings s;
  s.arrivals = arrival_kind::trace;
  s.keep_requests = true;
  s.workload.prefix_tokens = 64;
  s.prefix_cache = prefix_cache_mode::block;
  s.block_size = 16;
  // Row 1 continues row 0's session (history 100 + 50 = 150 tokens, 149 computed); rows 2 and 3
  // share prefix 7 (64 tokens = 4 blocks), row 2 first.
  s.trace = {{0, 100, 50, -1, 3}, {100, 200, 10, -1, 3}, {200, 300, 10, 7, -1}, {300, 300, 10, 7, -1}};
  const simulation_result r = simulate(m, s, gpu);
  CHECK(r.requests_detail[1].cached_tokens == 144);  // floor(149 / 16) = 9 blocks
  CHECK(r.requests_detail[2].cached_tokens == 0);    // prefix 7 is new (rows 0-1 have prefix 0)
  CHECK(r.requests_detail[3].cached_tokens == 64);   // prefix 7's 4 blocks
}

TEST_CASE("prefix cache: LRU eviction under a small KV pool evicts the least recently used prompt", "[prefix_cache]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  // Prompts A, B, C, A, B (a pool of 3, cycled) of 160 tokens = 10 blocks, 1 output token (the
  // prompt's 160 tokens are all computed: 10 full blocks cached per request); 25 blocks in all.
  simulation_settings s = sequential(5, 160, 1);
  s.workload.prompt_pool = 3;
  s.kv_blocks = 25;
  s.prefix_cache = prefix_cache_mode::block;
  const simulation_result r = simulate(m, s, gpu);
  // A: 10 blocks cached. B: 10 more (20). C needs 10 with 5 empty: evicts the 5 least recently
  // freed, A's last 5 (A was freed first, its last block first). The second A then finds its
  // first 5 blocks (80 tokens; at most floor(159 / 16) = 9 could match), needs 5 blocks for the
  // rest with none empty, and evicts B's last 5 (B: freed before C). The second B finds 5 blocks.
  const std::vector<std::int64_t> cached = {0, 0, 0, 80, 80};
  for (std::size_t i = 0; i < 5; ++i) CHECK(r.requests_detail[i].cached_tokens == cached[i]);
  CHECK(r.evicted_blocks == 15);  // 5 + 5 + 5 (the second B evicts C's last 5)

  // With room for all three prompts and one block more, nothing is evicted: 9 blocks (144
  // tokens) hit each time, the 10th block of the prompt is computed in the spare block (and
  // found already cached when it is committed, so the spare block is free again).
  s.kv_blocks = 31;
  const simulation_result roomy = simulate(m, s, gpu);
  CHECK(roomy.requests_detail[3].cached_tokens == 144);
  CHECK(roomy.requests_detail[4].cached_tokens == 144);
  CHECK(roomy.evicted_blocks == 0);
}

TEST_CASE("prefix cache: off, or nothing to share, gives the simulator's figures without it", "[prefix_cache]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  simulation_settings plain;
  plain.arrivals = arrival_kind::closed_loop;
  plain.clients = 16;
  plain.num_requests = 400;
  plain.input_tokens = {1000, 1000};
  plain.output_tokens = {200, 200};
  const simulation_result today = simulate(m, plain, gpu);
  CHECK(today.cached_prompt_tokens == 0);
  CHECK(today.prefix_cache == prefix_cache_mode::off);

  // A pool of one prompt with caching off: the same requests, the same figures.
  simulation_settings pooled = plain;
  pooled.workload.prompt_pool = 1;
  pooled.workload.prefix_tokens = 300;
  same_figures(simulate(m, pooled, gpu), today);
  // Caching on with unique prompts and no preemption: nothing hits, nothing changes.
  simulation_settings unique = plain;
  unique.prefix_cache = prefix_cache_mode::block;
  const simulation_result u = simulate(m, unique, gpu);
  CHECK(u.preemptions == 0);
  same_figures(u, today);
  unique.prefix_cache = prefix_cache_mode::radix;
  same_figures(simulate(m, unique, gpu), today);
  // Poisson arrivals with uniform lengths draw the same random numbers with a pool of zero.
  plain.arrivals = arrival_kind::poisson;
  plain.rate_per_s = 5;
  plain.input_tokens = {100, 2000};
  simulation_settings p2 = plain;
  p2.workload.prefix_tokens = 50;
  same_figures(simulate(m, p2, gpu), simulate(m, plain, gpu));
}

TEST_CASE("prefix cache: invariants hold with the cache on", "[prefix_cache]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  for (const prefix_cache_mode mode : {prefix_cache_mode::block, prefix_cache_mode::radix}) {
    simulation_settings s;
    s.arrivals = arrival_kind::poisson;
    s.rate_per_s = 20;
    s.num_requests = 1500;
    s.input_tokens = {200, 3000};
    s.output_tokens = {20, 400};
    s.workload.prompt_pool = 50;
    s.workload.prefix_tokens = 256;
    s.prefix_cache = mode;
    s.block_size = mode == prefix_cache_mode::radix ? 1 : 16;
    s.kv_blocks = mode == prefix_cache_mode::radix ? 40000 : 2000;  // small: preemption and eviction
    s.max_num_batched_tokens = 2048;                                // long prompts run in several chunks
    s.seed = 5;
    s.keep_requests = true;
    const simulation_result r = simulate(m, s, gpu);
    // Little's law over the whole run.
    CHECK(r.mean_in_system == Approx(r.arrival_rate_all * r.mean_latency_all_s).epsilon(1e-9));
    // Tokens conserved: every output emitted; prompt tokens = cached + prefilled.
    std::int64_t cached = 0, computed = 0;
    for (const auto& q : r.requests_detail) {
      CHECK(q.emitted_tokens == q.output_tokens);
      cached += q.cached_tokens;
      computed += q.prefill_tokens;
    }
    CHECK(cached == r.cached_prompt_tokens);
    CHECK(computed == r.computed_prompt_tokens);
    CHECK(cached + computed == r.prompt_tokens);
    CHECK(r.cache_hit_rate > 0.2);
    CHECK(r.evicted_blocks > 0);
    CHECK(r.preemptions > 0);
    CHECK(r.peak_kv_utilization <= 1.0);
    // Same seed, same result.
    const simulation_result again = simulate(m, s, gpu);
    same_figures(again, r);
    CHECK(again.cached_prompt_tokens == r.cached_prompt_tokens);
  }
}

TEST_CASE("workload: length presets follow data/workloads.json and its published means", "[prefix_cache]") {
  const auto file = test::json::parse(test::read_text("data/workloads.json"));
  const auto& presets = flopcast::length_presets();
  REQUIRE(file.at("presets").size() == presets.size());
  for (const auto& p : presets) {
    const auto& f = file.at("presets").at(std::string(p.name));
    for (const auto& [side, d] : {std::pair{"input", p.input}, {"output", p.output}}) {
      const auto& x = f.at(side);
      // mu = ln(mean) - sigma^2 / 2: the log-normal's mean is the published one.
      CHECK(d.mu == Approx(std::log(x.at("published_mean").get<double>()) - d.sigma * d.sigma / 2).epsilon(1e-12));
      CHECK(d.sigma == x.at("sigma").get<double>());
      CHECK(d.min == x.at("min").get<std::int64_t>());
      CHECK(d.max == x.at("max").get<std::int64_t>());
    }
    CHECK(p.max_total == f.at("max_total").get<std::int64_t>());
    CHECK(!f.at("source").at("url").get<std::string>().empty());
  }
  // Unclipped, the draws' mean is the published mean (161.31 for ShareGPT's prompts).
  flopcast::lognormal_lengths wide = flopcast::find_length_preset("sharegpt")->input;
  wide.min = 1;
  wide.max = 100000000;
  double sum = 0;
  const int n = 200000;
  for (int i = 0; i < n; ++i)
    sum += static_cast<double>(flopcast::lognormal_length(wide, (i + 0.5) / n, std::fmod(i * 0.6180339887498949, 1.0)));
  CHECK(sum / n == Approx(161.31).epsilon(0.03));

  // The simulator draws from the preset, within its bounds (vLLM's filter: total <= 2048).
  const auto& m = test::model("llama-3-8b");
  simulation_settings s;
  s.num_requests = 500;
  s.workload.dataset = "sharegpt";
  s.keep_requests = true;
  const auto r = simulate(m, s, flopcast::find_gpu("H100"));
  double in = 0;
  for (const auto& q : r.requests_detail) {
    CHECK(q.input_tokens >= 4);
    CHECK(q.input_tokens <= 1024);
    CHECK(q.input_tokens + q.output_tokens <= 2048);
    in += static_cast<double>(q.input_tokens);
  }
  CHECK(in / 500 > 80);
  CHECK(in / 500 < 250);
}

TEST_CASE("workload: nonsense is rejected with the field named", "[prefix_cache]") {
  const auto& m = test::model("llama-3-8b");
  const auto& gpu = flopcast::find_gpu("H100");
  const auto with = [&](auto&& f) {
    simulation_settings s;
    s.num_requests = 10;
    f(s);
    return test::pointer_of([&] { (void)simulate(m, s, gpu); });
  };
  CHECK(with([](simulation_settings& s) { s.workload.prefix_tokens = -1; }) == "/simulation/prefix_tokens");
  CHECK(with([](simulation_settings& s) { s.workload.prompt_pool = -3; }) == "/simulation/prompt_pool");
  CHECK(with([](simulation_settings& s) { s.workload.turns = 0; }) == "/simulation/turns");
  CHECK(with([](simulation_settings& s) { s.workload.think_time_s = -1; }) == "/simulation/think_time_s");
  CHECK(with([](simulation_settings& s) { s.workload.dataset = "nope"; }) == "/simulation/dataset");
  CHECK(with([](simulation_settings& s) {
          s.workload.turns = 10000;
          s.input_tokens = {5000, 5000};
        }) == "/simulation/turns");
  CHECK(with([](simulation_settings& s) {
          s.arrivals = arrival_kind::trace;
          s.trace = {{0, 10, 10, 2, -1}};
        }) == "/simulation/trace/0/prefix_id");
  CHECK(with([](simulation_settings& s) {
          s.arrivals = arrival_kind::trace;
          s.trace = {{0, 10, 10, -1, -1}};
          s.workload.prompt_pool = 4;
        }) == "/simulation/prompt_pool");
}

TEST_CASE("prefix cache: engines' defaults and the request's switch reach the simulation", "[prefix_cache]") {
  const auto run = [](const std::string& engine, const test::json& extra) {
    test::json req = {
        {"model", "llama-3-8b"},
        {"gpu", "H100"},
        {"simulation", {{"concurrency", 1}, {"num_requests", 5}, {"input_tokens", 1000}, {"output_tokens", 10}}}};
    if (!engine.empty()) req["engine"] = engine;
    for (const auto& [k, v] : extra.items()) req["simulation"][k] = v;
    return test::json::parse(flopcast::simulate_json(req.dump()));
  };
  const test::json pool = {{"prompt_pool", 1}};
  // vLLM (enable_prefix_caching true, 16-token blocks): 4 x 992 of 5 x 1000 prompt tokens.
  auto r = run("vllm", pool);
  CHECK(r.at("scheduler").at("prefix_caching") == "block");
  CHECK(r.at("points").at(0).at("cached_prompt_tokens") == 4 * 992);
  CHECK(r.at("points").at(0).at("cache_hit_rate").get<double>() == Approx(4 * 992 / 5000.0));
  CHECK(r.at("points").at(0).at("timeline").back().contains("cache_hit_rate"));
  // SGLang (radix cache on, 1-token pages): 4 x 999.
  r = run("sglang", pool);
  CHECK(r.at("scheduler").at("prefix_caching") == "radix");
  CHECK(r.at("points").at(0).at("cached_prompt_tokens") == 4 * 999);
  // TensorRT-LLM (enable_block_reuse true, 32-token blocks): floor(999 / 32) = 31 blocks = 992.
  r = run("tensorrt-llm", pool);
  CHECK(r.at("scheduler").at("prefix_caching") == "block");
  CHECK(r.at("points").at(0).at("cached_prompt_tokens") == 4 * 992);
  // No engine (none: the plain roofline): off unless asked; prefix_caching false turns an engine's off.
  CHECK(run("none", pool).at("scheduler").at("prefix_caching") == "off");
  CHECK(run("none", {{"prompt_pool", 1}, {"prefix_caching", true}}).at("points").at(0).at("cached_prompt_tokens") ==
        4 * 992);
  r = run("vllm", {{"prompt_pool", 1}, {"prefix_caching", false}});
  CHECK(r.at("scheduler").at("prefix_caching") == "off");
  CHECK(r.at("points").at(0).at("cached_prompt_tokens") == 0);
  // range_ratio: vLLM's random dataset spread, [int(L (1 - r)), int(L (1 + r))].
  r = run("", {{"range_ratio", 0.5}});
  CHECK(r.at("workload").at("input_tokens") == test::json::array({500, 1500}));
  CHECK(r.at("workload").at("output_tokens") == test::json::array({5, 15}));
}
