// The SLO search against published campaigns (issue 28): for each case of
// tests/fixtures/slo_campaigns.json (a publisher's sweep of one model on one GPU type, with the
// best throughput per GPU under a TPOT bound known from the validation table's rows), the search
// runs inside the publisher's space (its engines, TP sizes, aggregated, no EP, no MTP) on its
// GPUs, lengths and precision, and its best throughput per GPU within the bound is compared with
// the published best. Two checks: the search finds at least what the publisher's own sweep reaches
// under the same model (the search's part), and how many campaigns land within 15% of the published
// best (the model's part; the issue asks for five: see the ratchet below).
//
// The simulator draws request lengths and the search keeps the best configuration that meets the
// bound, so a campaign's ratio moves with the seed (by up to 4% here, more where a configuration
// sits on the bound). Each case therefore runs at five seeds and is judged by its median ratio.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <sstream>
#include <vector>

#include "flopcast/catalog/registry.hpp"
#include "flopcast/plan/slo_search.hpp"
#include "helpers.hpp"

using namespace flopcast;

namespace {

struct campaign_outcome {
  std::string id;
  bool recommended = false, found = false;
  double published = 0, searched = 0, ratio = 0;
  double replayed = 0;  // the best of the publisher's own points under flopcast's model, within the bound
  std::string best;
};

// The case's question: its model's precision, lengths, GPUs, engines and TP sizes, the bound.
search_settings question(const test::json& c) {
  search_settings s;
  s.sim.base.weight_precision = parse_precision(c.at("precision").get<std::string>());
  if (!c.at("kv_cache_precision").is_null())
    s.sim.base.kv_cache_precision = parse_precision(c.at("kv_cache_precision").get<std::string>());
  const auto& lengths = c.at("lengths");
  s.sim.input_tokens = {lengths.at("input_tokens")[0].get<std::int64_t>(),
                        lengths.at("input_tokens")[1].get<std::int64_t>()};
  s.sim.output_tokens = {lengths.at("output_tokens")[0].get<std::int64_t>(),
                         lengths.at("output_tokens")[1].get<std::int64_t>()};
  s.sim.arrivals = arrival_kind::batch;  // no traffic: each configuration at the loads it serves
  s.gpus = c.at("gpus").get<std::int64_t>();
  s.engines = c.at("engines").get<std::vector<std::string>>();
  s.formats = {s.sim.base.weight_precision};
  if (!c.at("tensor_parallel").is_null()) s.tensor_parallel = c.at("tensor_parallel").get<std::vector<std::int64_t>>();
  s.expert_parallel = false;
  s.speculative = false;
  s.disaggregated = false;
  s.slo.tpot_s = c.at("slo_tpot_s").get<double>();
  s.slo.percentile = 50;  // the median (InferenceX); the others state a mean, which the median stands in for
  return s;
}

double throughput(const test::json& c, const search_point& p) {
  return c.at("throughput_metric") == "total" ? p.total_tokens_per_s_per_gpu : p.output_tokens_per_s_per_gpu;
}

campaign_outcome run_case(const test::json& c, std::uint64_t seed) {
  campaign_outcome o;
  o.id = c.at("id").get<std::string>();
  o.recommended = c.at("recommended").get<bool>();
  const model_spec& m = test::model(c.at("model").get<std::string>());
  const hardware_spec& gpu = find_gpu(c.at("gpu").get<std::string>());
  search_settings s = question(c);
  s.sim.seed = seed;
  // The publisher's discrete sweep under flopcast's model: each published point (engine, TP, load)
  // as a one-replica search at that load; the best that meets the bound.
  for (const test::json& q : c.at("points")) {
    if (q.value("expert_parallel", 1) != 1 || q.value("attention_data_parallel", 1) != 1) continue;
    const std::string kind = q.at("load").at("kind").get<std::string>();
    if (kind == "max_throughput") continue;
    search_settings one = s;
    one.engines = {q.at("engine").get<std::string>()};
    one.tensor_parallel = {q.at("tensor_parallel").get<std::int64_t>()};
    one.gpus = one.tensor_parallel.front();
    if (kind == "concurrency") {
      one.sim.arrivals = arrival_kind::closed_loop;
      one.sim.clients = q.at("load").at("value").get<std::int64_t>();
      one.sim.num_requests = std::clamp<std::int64_t>(4 * one.sim.clients, 32, 1000);
    } else {
      one.sim.arrivals = arrival_kind::poisson;
      one.sim.rate_per_s = q.at("load").at("value").get<double>();
      one.sim.num_requests = 500;
    }
    const search_result r = search_configurations(m, one, gpu);
    if (!r.ranked.empty()) o.replayed = std::max(o.replayed, throughput(c, r.ranked.front()));
  }
  const search_result r = search_configurations(m, s, gpu);
  o.published = c.at("published_best").at("throughput_per_gpu").get<double>();
  if (r.ranked.empty()) return o;
  const search_point& b = r.ranked.front();
  o.found = true;
  o.searched = throughput(c, b);
  o.ratio = o.searched / o.published;
  std::ostringstream name;
  name << b.config.engine << " TP" << b.config.tp << " x" << b.config.replicas << " at " << b.concurrency
       << " clients, TPOT p50 " << b.tpot_s * 1e3 << " ms";
  o.best = name.str();
  return o;
}

}  // namespace

TEST_CASE("SLO search: the best within a published campaign's bound is within 15% of the published best") {
  const test::json fixture = test::json::parse(test::read_text("tests/fixtures/slo_campaigns.json"));
  int within = 0, recommended = 0;
  std::ostringstream table;
  constexpr std::uint64_t seeds[] = {0, 1, 2, 3, 4};  // 0: the search's default
  for (const test::json& c : fixture.at("cases")) {
    std::vector<campaign_outcome> runs;
    for (const std::uint64_t seed : seeds) {
      campaign_outcome o = run_case(c, seed);
      // Every case runs through the search and finds a configuration within the bound.
      CHECK(o.found);
      // The search finds at least what the publisher's own sweep reaches under the same model (a
      // rate-driven sweep is replayed as an open loop, the search runs closed loops: 5% allowed).
      CHECK(o.searched >= 0.95 * o.replayed);
      runs.push_back(std::move(o));
    }
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.ratio < b.ratio; });
    const campaign_outcome& o = runs[runs.size() / 2];  // the median seed's
    table << o.id << (o.recommended ? "" : " (not recommended)") << ": published " << o.published << ", searched "
          << o.searched << " (" << o.best << "), ratio " << o.ratio << " (seeds: " << runs.front().ratio << " to "
          << runs.back().ratio << "); the published sweep under the model " << o.replayed << "\n";
    if (!o.recommended) continue;
    ++recommended;
    if (o.found && std::abs(o.ratio - 1.0) <= 0.15) ++within;
  }
  WARN(table.str());
  CHECK(recommended >= 5);
  // The issue asks for five recommended campaigns within 15%, and five of the 13 are at their
  // median seed: TensorRT-LLM 0.14's Llama-3.1-70B 467/256 on H100 and H200 (1.11, 1.13: one
  // configuration at every seed) and InferenceX's DeepSeek-R1 on H200 at 1k/8k and 8k/1k and on B200
  // at 8k/1k (1.00, 1.14, 1.14; the last two within by about 1%, and over 15% at one seed in five).
  // The others miss by the serving model's error on those campaigns (DeepSeek-R1 on H200 at 1k/1k
  // too slow at the low-concurrency bound; on MI300X and MI355X too fast: SGLang's AMD efficiencies
  // are unfitted, its only AMD fit source being the one its trimmed mean leaves out; vLLM's
  // Nemotron-3-Nano on B200 too slow under its 5 ms bound since vLLM's fitted cost per sequence
  // reached its 100 us bound, driven by a 2024 ROCm source; dstack's early-2025 engines far slower
  // than today's profiles), which the search cannot correct. A ratchet: raise it as the model
  // improves, never lower it.
  CHECK(within >= 5);
}
