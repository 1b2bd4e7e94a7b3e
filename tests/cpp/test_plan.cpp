// "How many GPUs do I need?" (plan.hpp): the fewest GPUs against hand counts of the weights,
// every listed layout equal to estimate() at that layout, the marks consistent with the rows.
#include <catch2/catch.hpp>
#include <cmath>

#include "flopcast/io/plan_json.hpp"
#include "flopcast/plan/plan.hpp"
#include "helpers.hpp"

using flopcast::find_gpu;
using flopcast::plan_layout;
using flopcast::plan_result;

namespace {

flopcast::plan_settings fp16(std::int64_t batch = 1) {
  flopcast::plan_settings s;
  s.base.weight_precision = flopcast::precision::fp16;
  s.base.batch_size = batch;
  return s;
}

test::json plan_of(const test::json& request) { return test::json::parse(flopcast::plan_json(request.dump())); }

// The layout's settings as estimate() takes them.
flopcast::settings at(const flopcast::plan_settings& s, const plan_layout& x) {
  flopcast::settings out = s.base;
  out.parallel.tensor_parallel = x.tp;
  out.parallel.pipeline_parallel = x.pp;
  out.parallel.expert_parallel = x.ep;
  out.parallel.data_parallel = x.dp;
  out.batch_size = s.concurrency.value_or(s.base.batch_size);
  return out;
}

// Each listed layout is estimate() at it; the marks are each on exactly one fitting row, and are
// the lowest $/1M output tokens and the lowest TTFT + (N - 1) x TPOT of the rows.
void check_rows(const flopcast::model_spec& m, const flopcast::plan_settings& s, const flopcast::hardware_spec& gpu,
                const plan_result& r) {
  REQUIRE_FALSE(r.layouts.empty());
  int cheapest = 0, fastest = 0;
  double low_cost = INFINITY, low_latency = INFINITY;
  const double price = gpu.cost_per_hour_usd;
  const double n = static_cast<double>(s.base.num_generated_tokens);
  for (const plan_layout& x : r.layouts) {
    INFO("tp " << x.tp << " pp " << x.pp << " ep " << x.ep << " dp " << x.dp);
    CHECK(x.gpus == x.tp * x.pp * x.ep * x.dp);
    CHECK(x.gpus <= s.max_gpus);
    CHECK(x.tp * x.ep <= (gpu.interconnect_domain_size > 0 ? gpu.interconnect_domain_size : 1));
    const flopcast::estimate_result e = flopcast::estimate(m, at(s, x), &gpu);
    CHECK(x.per_gpu_memory_bytes == e.parallel.memory_per_gpu);
    CHECK(x.fits == e.parallel.fits_per_gpu);
    CHECK(x.fits);
    CHECK(x.per_gpu_memory_bytes <= x.usable_bytes);
    CHECK(x.cost_per_hour_usd == Approx(price * static_cast<double>(x.gpus)));
    CHECK(x.request_latency_s == Approx(x.ttft_s + (n - 1) * x.tpot_s));
    CHECK(x.usd_per_million_output_tokens == Approx(x.cost_per_hour_usd / 3600 / x.tokens_per_s * 1e6));
    if (!s.concurrency) {
      CHECK(x.ttft_s == e.parallel.prefill_latency_s);
      CHECK(x.tpot_s == e.parallel.decode_latency_per_token_s);
      CHECK(x.tokens_per_s == Approx(static_cast<double>(s.base.batch_size) * n / e.parallel.total_request_latency_s));
    }
    cheapest += x.cheapest ? 1 : 0;
    fastest += x.fastest ? 1 : 0;
    low_cost = std::min(low_cost, x.usd_per_million_output_tokens);
    low_latency = std::min(low_latency, x.request_latency_s);
  }
  CHECK(cheapest == 1);
  CHECK(fastest == 1);
  REQUIRE(r.cheapest);
  REQUIRE(r.fastest);
  CHECK(r.layouts[*r.cheapest].cheapest);
  CHECK(r.layouts[*r.fastest].fastest);
  CHECK(r.layouts[*r.cheapest].usd_per_million_output_tokens == low_cost);
  CHECK(r.layouts[*r.fastest].request_latency_s == low_latency);
  // Sorted by GPU count; the first rows are at the fewest that fit.
  for (std::size_t i = 1; i < r.layouts.size(); ++i) CHECK(r.layouts[i - 1].gpus <= r.layouts[i].gpus);
  CHECK(r.layouts.front().gpus == r.min_gpus);
}

}  // namespace

TEST_CASE("plan: Llama-2-70B in fp16 needs 2 A100-80GB, at TP=2 (hand count of the weights)", "[plan]") {
  const auto& m = test::model("meta-llama/Llama-2-70b-hf");
  const auto& a100 = find_gpu("A100-80GB-SXM");
  const auto s = fp16();
  const plan_result r = flopcast::plan(m, s, a100);
  // 68,976,648,192 weights (Touvron et al. 2023, the checkpoint's count) x 2 bytes = 137.95 GB;
  // usable: 80 GiB x 0.9 (vLLM's gpu_memory_utilization) = 77.31 GB: one GPU cannot hold it.
  const double weights = 68976648192.0 * 2, usable = 80.0 * 1073741824.0 * 0.9;
  CHECK(weights > usable);
  // KV cache: 80 layers x 8 KV heads x 128 x (K, V) x 2 bytes per token, 2048 + 128 tokens.
  const double kv = 80.0 * 8 * 128 * 2 * 2 * (2048 + 128);
  CHECK(r.min_gpus == 2);
  const plan_layout* tp2 = nullptr;
  for (const plan_layout& x : r.layouts)
    if (x.tp == 2 && x.gpus == 2) tp2 = &x;
  REQUIRE(tp2 != nullptr);
  // Half of the weights and of the cache per GPU, plus replicated norms and activations (< 1 GB).
  CHECK(tp2->per_gpu_memory_bytes > (weights + kv) / 2);
  CHECK(tp2->per_gpu_memory_bytes < (weights + kv) / 2 + 1e9);
  CHECK(tp2->usable_bytes == Approx(usable));
  CHECK(tp2->fits);
  CHECK_FALSE(tp2->spans_nodes);
  check_rows(m, s, a100, r);
}

TEST_CASE("plan: Llama-3-8B in bf16 fits on one GPU", "[plan]") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& a100 = find_gpu("A100-80GB-SXM");
  flopcast::plan_settings s;
  const plan_result r = flopcast::plan(m, s, a100);
  // 8.03e9 weights x 2 bytes = 16 GB of 77 GB.
  CHECK(r.min_gpus == 1);
  CHECK(r.layouts.front().gpus == 1);
  CHECK(r.layouts.front().tp == 1);
  check_rows(m, s, a100, r);
}

TEST_CASE("plan: Llama-3.1-405B in fp16 does not fit one 8-GPU H100 domain: PP across nodes", "[plan]") {
  const auto& m = test::model("meta-llama/Llama-3.1-405B");
  const auto& h100 = find_gpu("H100-SXM");
  const auto s = fp16();
  const plan_result r = flopcast::plan(m, s, h100);
  // 405.85e9 weights x 2 bytes = 811.7 GB; 8 x 80 GiB x 0.9 = 618.5 GB.
  CHECK(405.85e9 * 2 > 8 * 80.0 * 1073741824.0 * 0.9);
  CHECK(r.min_gpus > 8);
  for (const plan_layout& x : r.layouts) {
    CHECK(x.tp <= 8);
    CHECK(x.spans_nodes);
    if (x.gpus == r.min_gpus) CHECK(x.pp > 1);
    // Issue 27 item 11: the nodes it fills (8 GPUs per HGX baseboard: 9-16 GPUs are 2 nodes, 17-24
    // are 3, ...) and the link the traffic between them is charged at, with its words.
    CHECK(x.nodes == (x.gpus + 7) / 8);
    CHECK(x.nodes >= 2);
    REQUIRE(x.inter_node_bandwidth_bytes_per_s.has_value());
    if (x.tp * x.ep <= 8 && x.pp > 1) {
      // TP within the node: only pipeline sends cross nodes, at the GPU's own link (900 GB/s / 2).
      CHECK(*x.inter_node_bandwidth_bytes_per_s == Approx(450e9));
      CHECK(x.inter_node.find("pipeline sends") != std::string::npos);
    }
  }
  check_rows(m, s, h100, r);
}

TEST_CASE("plan: a concurrency target is the serving closed form at each layout", "[plan]") {
  const auto& m = test::model("mistralai/Mixtral-8x7B-v0.1");
  const auto& a100 = find_gpu("A100-80GB-SXM");
  flopcast::plan_settings s;
  s.concurrency = 32;
  s.max_gpus = 16;
  const plan_result r = flopcast::plan(m, s, a100);
  check_rows(m, s, a100, r);
  for (const plan_layout& x : r.layouts) {
    flopcast::serving_settings sv;
    sv.base = at(s, x);
    sv.prompt_tokens = s.base.sequence_length;
    sv.output_tokens = s.base.num_generated_tokens;
    sv.concurrency = 32;
    sv.paged = false;
    const flopcast::serving_result q = flopcast::serve(m, sv, a100);
    CHECK(q.fits);
    CHECK(x.tokens_per_s == q.output_tokens_per_second);
    CHECK(x.ttft_s == q.ttft_s);
    CHECK(x.tpot_s == q.tpot_s);
    // The nodes it fills (issue 27 item 11): a link between nodes only where there are several.
    CHECK(x.nodes == (x.gpus + r.domain_size - 1) / r.domain_size);
    CHECK(x.spans_nodes == (x.nodes > 1));
    CHECK(x.inter_node_bandwidth_bytes_per_s.has_value() == (x.nodes > 1));
    CHECK(x.inter_node.empty() == (x.nodes == 1));
  }
}

TEST_CASE("plan: nothing fits within max_gpus is a result with the closest layout, not an error", "[plan]") {
  const auto j = plan_of({{"model", "llama-3.1-405b"}, {"gpu", "A100-80GB-SXM"}, {"plan", {{"max_gpus", 4}}}});
  CHECK(j.at("fits") == false);
  CHECK(j.at("min_gpus").is_null());
  CHECK(j.at("layouts").empty());
  CHECK(j.at("cheapest").is_null());
  const auto& c = j.at("closest");
  CHECK(c.at("fits") == false);
  CHECK(c.at("gpus").get<int>() <= 4);
  // bf16 weights x 2 bytes over at most 4 GPUs > 77 GB each.
  CHECK(c.at("per_gpu_memory_bytes").get<double>() > 405.85e9 * 2 / 4);
  CHECK(c.at("per_gpu_memory_bytes").get<double>() > c.at("usable_bytes").get<double>());
}

TEST_CASE("plan: JSON has the configuration, the layouts and the marks", "[plan]") {
  const auto j = plan_of({{"model", "llama-2-70b"}, {"gpu", "A100-80GB-SXM"}, {"precision", "fp16"}});
  CHECK(j.at("model") == "meta-llama/Llama-2-70b-hf");
  CHECK(j.at("gpu") == "A100-80GB-SXM");
  CHECK(j.at("precision") == "fp16");
  CHECK(j.at("min_gpus") == 2);
  CHECK(j.at("max_gpus") == 64);
  CHECK(j.at("interconnect_domain_size") == 8);
  const auto& l = j.at("layouts");
  REQUIRE(l.size() >= 2);
  CHECK(l.at(j.at("cheapest").get<std::size_t>()).at("cheapest") == true);
  CHECK(l.at(j.at("fastest").get<std::size_t>()).at("fastest") == true);
  for (const char* key : {"tp", "pp", "ep", "dp", "gpus", "per_gpu_memory_bytes", "usable_bytes", "fits", "ttft_s",
                          "tpot_s", "tokens_per_s", "cost_per_hour_usd", "usd_per_million_output_tokens"})
    CHECK(l.at(0).contains(key));
}

TEST_CASE("plan: an unknown interconnect domain keeps TP at 1 and says so", "[plan]") {
  const auto j = plan_of({{"model", "llama-2-70b"}, {"gpu", "L40S"}, {"precision", "fp16"}});
  CHECK(j.at("interconnect_domain_size") == 1);
  for (const auto& x : j.at("layouts")) CHECK(x.at("tp") == 1);
  bool noted = false;
  for (const auto& n : j.at("notes"))
    noted = noted || n.get<std::string>().find("interconnect domain") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("plan: bad inputs are errors with a code and a pointer", "[plan]") {
  const auto fails = [](const test::json& request, flopcast::error_code code, const std::string& pointer) {
    INFO(request.dump());
    try {
      (void)flopcast::plan_json(request.dump());
      FAIL("no error");
    } catch (const flopcast::error& e) {
      CHECK(e.code() == code);
      CHECK(e.pointer() == pointer);
    }
  };
  using flopcast::error_code;
  fails({{"model", "llama-3-8b"}, {"gpu", nullptr}}, error_code::invalid_argument, "/gpu");
  fails({{"model", "llama-3-8b"}, {"plan", {{"max_gpus", 0}}}}, error_code::config_range, "/plan/max_gpus");
  fails({{"model", "llama-3-8b"}, {"plan", {{"max_gpus", 1025}}}}, error_code::config_range, "/plan/max_gpus");
  fails({{"model", "llama-3-8b"}, {"plan", {{"concurrency", 0}}}}, error_code::config_range, "/plan/concurrency");
  fails({{"model", "llama-3-8b"}, {"plan", {{"gpus", 0}}}}, error_code::config_range, "/plan/gpus");
  fails({{"model", "llama-3-8b"}, {"plan", {{"optimize", "speed"}}}}, error_code::config_range, "/plan/optimize");
  fails({{"model", "llama-3-8b"}, {"parallelism", {{"tensor_parallel", 2}}}}, error_code::invalid_argument,
        "/parallelism/tensor_parallel");
  // Training plans the step (issue 27); a serving concurrency does not apply to it.
  fails({{"model", "llama-3-8b"}, {"training", true}, {"plan", {{"concurrency", 4}}}}, error_code::invalid_argument,
        "/plan/concurrency");
  fails({{"model", "llama-3-8b"}, {"num_generated_tokens", 0}}, error_code::invalid_argument, "/num_generated_tokens");
  fails({{"model", "llama-3-8b"}, {"gpu", {{"name", "empty"}, {"memory_bytes", 0}}}}, error_code::config_range,
        "/gpu/memory_bytes");
  // The C++ API checks its settings as the request does.
  flopcast::plan_settings s;
  s.max_gpus = 0;
  try {
    (void)flopcast::plan(test::model("meta-llama/Meta-Llama-3-8B"), s, find_gpu("H100-SXM"));
    FAIL("no error");
  } catch (const flopcast::error& e) {
    CHECK(e.code() == error_code::config_range);
    CHECK(e.pointer() == "/plan/max_gpus");
  }
}
