// The "simulation" part of a request (flopcast serve, simulate() in WASM): its defaults (the
// simulator's own initialisers), an engine's scheduler defaults applied before the request's
// explicit values, one point per concurrency or request-rate value, the JSON the core writes
// for it, and bad values failing at their JSON pointer.
#include <catch2/catch.hpp>
#include <string>

#include "flopcast/io/request.hpp"
#include "flopcast/serving/engine.hpp"
#include "helpers.hpp"

using flopcast::arrival_kind;
using flopcast::batching_policy;
using flopcast::read_simulation_request;
using flopcast::simulation_settings;

namespace {

flopcast::simulation_request read(const test::json& request) { return read_simulation_request(request.dump()); }

struct failure {
  std::string code, pointer, message;
};
failure fail(const test::json& request) {
  try {
    (void)flopcast::simulate_json(request.dump());
  } catch (const flopcast::error& e) {
    return {std::string(flopcast::to_string(e.code())), e.pointer(), e.message()};
  }
  return {"(none)", "(none)", ""};
}

// engine none: the simulator's own defaults (with no engine named the H100 would run vLLM's, issue 24).
test::json base() { return {{"model", "llama-3-8b"}, {"gpu", "H100"}, {"engine", "none"}}; }

}  // namespace

TEST_CASE("simulation request: defaults are the simulator's own, without an engine") {
  const auto q = read(base());
  const simulation_settings d;
  CHECK(q.simulation.arrivals == arrival_kind::batch);
  REQUIRE(q.points.size() == 1);
  CHECK_FALSE(q.points[0].concurrency);
  CHECK_FALSE(q.points[0].request_rate);
  CHECK(q.simulation.num_requests == d.num_requests);
  CHECK(q.simulation.input_tokens.min == d.input_tokens.min);
  CHECK(q.simulation.input_tokens.max == d.input_tokens.max);
  CHECK(q.simulation.output_tokens.min == d.output_tokens.min);
  CHECK(q.simulation.max_num_seqs == d.max_num_seqs);
  CHECK(q.simulation.max_num_batched_tokens == d.max_num_batched_tokens);
  CHECK(q.simulation.chunked_prefill == d.chunked_prefill);
  CHECK(q.simulation.policy == d.policy);
  CHECK(q.simulation.block_size == d.block_size);
  CHECK_FALSE(q.simulation.kv_blocks);
  CHECK(q.simulation.seed == d.seed);
  CHECK(q.simulation.base.engine.empty());
  CHECK(q.scheduler_source == "simulator defaults (vLLM-like)");
  CHECK(q.model->name == test::model("llama-3-8b").name);
  CHECK(q.gpu->name == flopcast::find_gpu("H100").name);

  // The arrivals follow what is given.
  test::json r = base();
  r["simulation"] = {{"concurrency", 8}};
  CHECK(read(r).simulation.arrivals == arrival_kind::closed_loop);
  r["simulation"] = {{"request_rate", 2.5}};
  CHECK(read(r).simulation.arrivals == arrival_kind::poisson);
  r["simulation"] = {{"trace", {{{"arrival_s", 0}, {"input_tokens", 10}, {"output_tokens", 3}}}}};
  const auto t = read(r);
  CHECK(t.simulation.arrivals == arrival_kind::trace);
  REQUIRE(t.simulation.trace.size() == 1);
  CHECK(t.simulation.trace[0].input_tokens == 10);
  CHECK(t.simulation.trace[0].output_tokens == 3);
}

TEST_CASE("simulation request: the values given reach the simulator") {
  test::json r = base();
  r["simulation"] = {{"num_requests", 37},
                     {"concurrency", 5},
                     {"input_tokens_range", {100, 300}},
                     {"output_tokens", 17},
                     {"seed", 42},
                     {"slo_ttft_s", 0.2},
                     {"slo_tpot_s", 0.03},
                     {"warmup_requests", 3},
                     {"max_num_seqs", 9},
                     {"max_num_batched_tokens", 2048},
                     {"chunked_prefill", false},
                     {"policy", "prefill_first"},
                     {"block_size", 32},
                     {"kv_blocks", 5000}};
  const auto q = read(r);
  const simulation_settings s = q.at(0);
  CHECK(s.arrivals == arrival_kind::closed_loop);
  CHECK(s.clients == 5);
  CHECK(s.num_requests == 37);
  CHECK(s.input_tokens.min == 100);
  CHECK(s.input_tokens.max == 300);
  CHECK(s.output_tokens.min == 17);
  CHECK(s.output_tokens.max == 17);
  CHECK(s.seed == 42);
  CHECK(*s.slo_ttft_s == 0.2);
  CHECK(*s.slo_tpot_s == 0.03);
  CHECK(s.warmup_requests == 3);
  CHECK(s.max_num_seqs == 9);
  CHECK(s.max_num_batched_tokens == 2048);
  CHECK_FALSE(s.chunked_prefill);
  CHECK(s.policy == batching_policy::prefill_first);
  CHECK(s.block_size == 32);
  CHECK(*s.kv_blocks == 5000);

  // simulate_json runs exactly these settings: its figures are simulate()'s.
  const auto j = test::json::parse(flopcast::simulate_json(r.dump()));
  const auto direct = flopcast::simulate(*q.model, s, *q.gpu);
  REQUIRE(j.at("points").size() == 1);
  const auto& p = j.at("points").at(0);
  CHECK(p.at("ttft_s").at("mean").get<double>() == direct.ttft.mean);
  CHECK(p.at("tpot_s").at("p99").get<double>() == direct.tpot.p99);
  CHECK(p.at("output_tokens_per_s").get<double>() == direct.output_tokens_per_s);
  CHECK(p.at("measured_requests").get<std::int64_t>() == 37 - 3);
  CHECK(p.at("steps").get<std::int64_t>() == direct.steps);
  CHECK(j.at("scheduler").at("kv_blocks").get<std::int64_t>() == 5000);
  CHECK(j.at("scheduler").at("kv_blocks_given").get<bool>());
  CHECK(j.at("workload").at("input_tokens") == test::json::array({100, 300}));
}

TEST_CASE("simulation request: an engine's scheduler defaults come first, then the request's values") {
  const auto& gpu = flopcast::find_gpu("H100");
  for (const char* name : {"vllm", "sglang", "tensorrt-llm"}) {
    INFO(name);
    const auto& e = flopcast::find_engine(name);
    const flopcast::engine_scheduler k = flopcast::scheduler_of(e, gpu);
    test::json r = base();
    r["engine"] = name;
    const auto q = read(r);
    CHECK(q.simulation.base.engine == e.id);
    // SGLang's limit is computed from memory at start-up: the simulator's largest, where the KV blocks bound it.
    CHECK(q.simulation.max_num_seqs == std::min(k.max_num_seqs, flopcast::max_simulation_requests));
    CHECK(q.simulation.max_num_batched_tokens == k.max_num_batched_tokens);
    CHECK(q.simulation.chunked_prefill == k.chunked_prefill);
    CHECK(q.simulation.block_size == k.block_size);
    CHECK((q.simulation.policy == batching_policy::prefill_first) == k.prefill_first);
    CHECK(q.scheduler_source == "engine " + e.id + " defaults");

    // Explicit values win over the engine's; the rest stay the engine's.
    r["simulation"] = {{"max_num_seqs", 3}, {"block_size", k.block_size + 1}};
    const auto o = read(r);
    CHECK(o.simulation.max_num_seqs == 3);
    CHECK(o.simulation.block_size == k.block_size + 1);
    CHECK(o.simulation.max_num_batched_tokens == k.max_num_batched_tokens);
    CHECK(o.scheduler_source == "engine " + e.id + " defaults; from the request: max_num_seqs, block_size");
  }
  // The engine's scheduler changes the result (vLLM's budget on an H100 differs from the plain default).
  const auto& vllm = flopcast::scheduler_of(flopcast::find_engine("vllm"), gpu);
  REQUIRE(vllm.max_num_seqs != simulation_settings{}.max_num_seqs);
  // An engine the simulator does not model (static batching) fails at /engine.
  test::json r = base();
  r["engine"] = "transformers";
  CHECK(fail(r).pointer == "/engine");
}

TEST_CASE("simulation request: a list of concurrency or request_rate values is one point each") {
  test::json r = base();
  r["simulation"] = {{"concurrency", {1, 4, 16}}, {"num_requests", 48}, {"input_tokens", 256}, {"output_tokens", 32}};
  const auto q = read(r);
  REQUIRE(q.points.size() == 3);
  CHECK(q.at(0).clients == 1);
  CHECK(q.at(1).clients == 4);
  CHECK(q.at(2).clients == 16);
  const auto j = test::json::parse(flopcast::simulate_json(r.dump()));
  REQUIRE(j.at("points").size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto& p = j.at("points").at(i);
    CHECK(p.at("concurrency").get<std::int64_t>() == q.at(i).clients);
    CHECK(p.at("request_rate").is_null());
    const auto direct = flopcast::simulate(*q.model, q.at(i), *q.gpu);
    CHECK(p.at("requests_per_s").get<double>() == direct.requests_per_s);
    CHECK(p.at("timeline").size() <= 200);
    CHECK(p.at("timeline").size() >= 2);
  }
  CHECK(j.at("label") == "ESTIMATED");
  CHECK(j.at("method") == "simulated: iteration-level continuous batching, plain roofline, no engine");
  CHECK(j.at("engine").is_null());
  CHECK(j.at("points").at(0).at("ttft_s_range").is_null());

  r["simulation"] = {{"request_rate", {0.5, 2}}, {"num_requests", 20}, {"output_tokens", 8}};
  const auto rates = read(r);
  REQUIRE(rates.points.size() == 2);
  CHECK(rates.simulation.arrivals == arrival_kind::poisson);
  CHECK(rates.at(0).rate_per_s == 0.5);
  CHECK(rates.at(1).rate_per_s == 2);
}

TEST_CASE("simulation request: the request table lists the simulation fields with their flags") {
  const auto d = test::json::parse(flopcast::defaults_json());
  std::map<std::string, test::json> by_pointer;
  for (const auto& f : d.at("request_fields")) by_pointer[f.at("pointer").get<std::string>()] = f;
  for (const char* p : {"/simulation/arrivals",
                        "/simulation/num_requests",
                        "/simulation/concurrency",
                        "/simulation/request_rate",
                        "/simulation/input_tokens",
                        "/simulation/output_tokens",
                        "/simulation/input_tokens_range",
                        "/simulation/output_tokens_range",
                        "/simulation/trace",
                        "/simulation/seed",
                        "/simulation/slo_ttft_s",
                        "/simulation/slo_tpot_s",
                        "/simulation/warmup_requests",
                        "/simulation/max_num_seqs",
                        "/simulation/max_num_batched_tokens",
                        "/simulation/chunked_prefill",
                        "/simulation/policy",
                        "/simulation/block_size",
                        "/simulation/kv_blocks",
                        "/engine",
                        "/gpu",
                        "/precision",
                        "/parallelism/tensor_parallel"}) {
    INFO(p);
    REQUIRE(by_pointer.count(p) == 1);
    const auto& f = by_pointer.at(p);
    CHECK(f.at("commands").dump().find("\"simulate\"") != std::string::npos);
    CHECK_FALSE(f.at("flag").get<std::string>().empty());
  }
  CHECK(by_pointer.at("/simulation/concurrency").at("listable").get<bool>());
  CHECK(by_pointer.at("/simulation/request_rate").at("listable").get<bool>());
  CHECK(by_pointer.at("/simulation/policy").at("choices") == test::json::array({"mixed", "prefill_first"}));
  CHECK(by_pointer.at("/simulation/num_requests").at("default").get<std::int64_t>() ==
        simulation_settings{}.num_requests);
  // The help's "else N" defaults are the simulator's initialisers (they cannot drift apart).
  const simulation_settings sim;
  const auto says = [&](const char* p, std::int64_t v) {
    INFO(p);
    CHECK(by_pointer.at(p).at("derived").get<std::string>().find("else " + std::to_string(v)) != std::string::npos);
  };
  says("/simulation/max_num_seqs", sim.max_num_seqs);
  says("/simulation/max_num_batched_tokens", sim.max_num_batched_tokens);
  says("/simulation/block_size", sim.block_size);
  CHECK(sim.policy == batching_policy::mixed);
  CHECK(sim.chunked_prefill);
  // The throughput-only "serving" part is not a simulation's.
  CHECK(by_pointer.at("/serving/concurrency").at("commands").dump().find("simulate") == std::string::npos);
  CHECK(by_pointer.at("/batch_size").at("commands").dump().find("simulate") == std::string::npos);
}

TEST_CASE("simulation request: bad values fail at their JSON pointer") {
  struct bad_case {
    test::json simulation;
    const char* code;
    const char* pointer;
  };
  const std::vector<bad_case> cases = {
      {{{"concurrency", {4, 0}}}, "config.range", "/simulation/concurrency/1"},
      {{{"concurrency", {"many"}}}, "config.type", "/simulation/concurrency/0"},
      {{{"concurrency", test::json::array()}}, "invalid_argument", "/simulation/concurrency"},
      {{{"concurrency", 2.5}}, "config.type", "/simulation/concurrency"},
      {{{"request_rate", 0}}, "config.range", "/simulation/request_rate"},
      {{{"request_rate", {1, -2}}}, "config.range", "/simulation/request_rate/1"},
      {{{"arrivals", "uniform"}}, "config.range", "/simulation/arrivals"},
      {{{"arrivals", "closed_loop"}}, "config.missing", "/simulation/concurrency"},
      {{{"arrivals", "poisson"}}, "config.missing", "/simulation/request_rate"},
      {{{"arrivals", "trace"}}, "config.missing", "/simulation/trace"},
      {{{"arrivals", "poisson"}, {"concurrency", 4}}, "invalid_argument", "/simulation/concurrency"},
      {{{"concurrency", 4}, {"request_rate", 1}}, "invalid_argument", "/simulation/request_rate"},
      {{{"num_requests", 0}}, "config.range", "/simulation/num_requests"},
      {{{"input_tokens", 0}}, "config.range", "/simulation/input_tokens"},
      {{{"input_tokens_range", {500, 100}}}, "config.range", "/simulation/input_tokens_range/1"},
      {{{"output_tokens_range", {0, 100}}}, "config.range", "/simulation/output_tokens_range/0"},
      {{{"output_tokens_range", 100}}, "config.type", "/simulation/output_tokens_range"},
      {{{"input_tokens", 100}, {"input_tokens_range", {1, 2}}}, "invalid_argument", "/simulation/input_tokens_range"},
      {{{"trace",
         {{{"arrival_s", 0}, {"input_tokens", 10}, {"output_tokens", 3}},
          {{"arrival_s", 1}, {"input_tokens", 0}, {"output_tokens", 3}}}}},
       "config.range",
       "/simulation/trace/1/input_tokens"},
      {{{"trace",
         {{{"arrival_s", 2}, {"input_tokens", 10}, {"output_tokens", 3}},
          {{"arrival_s", 1}, {"input_tokens", 10}, {"output_tokens", 3}}}}},
       "invalid_argument",
       "/simulation/trace/1/arrival_s"},
      {{{"trace", {{{"arrival_s", 0}, {"input_tokens", 10}}}}}, "config.missing", "/simulation/trace/0/output_tokens"},
      {{{"trace", {{{"arrival_s", 0}, {"input_tokens", 10}, {"output_tokens", 3}, {"user", 1}}}}},
       "invalid_argument",
       "/simulation/trace/0/user"},
      {{{"trace", test::json::array()}}, "invalid_argument", "/simulation/trace"},
      {{{"trace", {{{"arrival_s", 0}, {"input_tokens", 10}, {"output_tokens", 3}}}}, {"num_requests", 5}},
       "invalid_argument",
       "/simulation/num_requests"},
      {{{"slo_ttft_s", 0}}, "config.range", "/simulation/slo_ttft_s"},
      {{{"slo_tpot_s", "fast"}}, "config.type", "/simulation/slo_tpot_s"},
      {{{"policy", "fifo"}}, "config.range", "/simulation/policy"},
      {{{"chunked_prefill", 1}}, "config.type", "/simulation/chunked_prefill"},
      {{{"max_num_seqs", 0}}, "config.range", "/simulation/max_num_seqs"},
      {{{"block_size", 0}}, "config.range", "/simulation/block_size"},
      {{{"kv_blocks", 0}}, "config.range", "/simulation/kv_blocks"},
      {{{"seed", -1}}, "config.range", "/simulation/seed"},
      {{{"warmup", 1}}, "invalid_argument", "/simulation/warmup"},
      {{{"chunked_prefill", false}, {"input_tokens", 9000}}, "invalid_argument", "/simulation/max_num_batched_tokens"},
      {{{"kv_blocks", 10}}, "invalid_argument", "/simulation/input_tokens"},
  };
  for (const auto& c : cases) {
    test::json r = base();
    r["simulation"] = c.simulation;
    INFO(r.dump());
    const failure f = fail(r);
    CHECK(f.code == c.code);
    CHECK(f.pointer == c.pointer);
    CHECK_FALSE(f.message.empty());
  }
  std::vector<int> many(flopcast::max_simulation_points + 1, 1);
  test::json r = base();
  r["simulation"] = {{"concurrency", many}};
  CHECK(fail(r).pointer == "/simulation/concurrency");
  CHECK(fail(r).code == "limit");
  CHECK(fail({{"model", "llama-3-8b"}, {"gpu", nullptr}}).pointer == "/gpu");
  CHECK(fail({{"model", "bert-base"}, {"gpu", "H100"}}).pointer == "/model");
  CHECK(fail({{"model", "llama-3-8b"}, {"simulation", 3}}).pointer == "/simulation");
  CHECK(fail({{"model", "llama-3-8b"}, {"batch_size", 3}}).pointer == "/batch_size");
  CHECK(fail({{"model", "llama-3-8b"}, {"parallelism", {{"pipeline_parallel", 2}}}}).pointer.rfind("/parallelism", 0) ==
        0);
}
