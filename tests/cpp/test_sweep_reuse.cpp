// The sweep's fast path (compare.cpp: one validation per block of sizes, and what depends on the
// model and its weight formats kept from point to point, detail::estimate_reuse) against the plain
// path (compare_plan::at + estimate() per point): every figure the same, bit for bit; compare_rows
// (compare --json, the tables) takes the same path.
#include <catch2/catch.hpp>
#include <cstring>
#include <vector>

#include "../../core/src/estimate/estimate_parts.hpp"
#include "flopcast/flopcast.hpp"

namespace {

using namespace flopcast;

const std::vector<const model_spec*>& grid_models() {
  // Dense, MoE, sliding window, SSM hybrid, linear-attention hybrid, encoder, encoder-decoder, MLA,
  // chunked attention, a quantized checkpoint (its own format when no precision is named).
  static const std::vector<const model_spec*> k = [] {
    std::vector<const model_spec*> v;
    for (const char* name : {"llama-3-8b", "mixtral-8x7b", "gemma-2-9b", "jamba-v0.1", "qwen3-next-80b-a3b-instruct",
                             "bert-base", "t5-small", "deepseek-v3", "llama-4-scout-17b-16e-instruct", "gpt-oss-20b"})
      v.push_back(&find_model(name).spec);
    return v;
  }();
  return k;
}

compare_plan grid(std::vector<precision> precisions, const settings& base) {
  compare_plan plan;
  plan.models = grid_models();
  plan.precisions = std::move(precisions);
  plan.gpus = {&find_gpu("A100"), nullptr, &find_gpu("H100")};
  plan.batch_sizes = {1, 3, 8};
  plan.sequence_lengths = {1, 700, 4096};
  plan.generated_tokens = {0, 5};
  plan.base = base;
  return plan;
}

struct variant {
  const char* name;
  std::vector<precision> precisions;
  settings base;
  bool precision_given = true;
};

std::vector<variant> variants() {
  std::vector<variant> out;
  out.push_back({"defaults",
                 {precision::bf16, precision::fp8, precision::int4, precision::q4_k_m, precision::nvfp4},
                 settings{}});
  settings own;
  out.push_back({"each model's own format", {precision::bf16}, own, false});
  settings training;
  training.training = true;
  out.push_back({"training", {precision::bf16, precision::fp8, precision::nvfp4}, training});
  settings layout;
  layout.parallel.tensor_parallel = 2;
  out.push_back({"tp=2", {precision::bf16, precision::int8}, layout});
  settings stages;
  stages.parallel.pipeline_parallel = 2;
  stages.parallel.data_parallel = 1;
  out.push_back({"pp=2", {precision::fp16}, stages});
  settings engine;
  engine.engine = "vllm";
  out.push_back({"engine", {precision::bf16, precision::fp8}, engine});
  settings parts;
  parts.component_precision[static_cast<std::size_t>(weight_component::experts)] = precision::mxfp4;
  parts.kv_cache_precision = precision::fp8;
  out.push_back({"per-part formats, fp8 cache", {precision::bf16, precision::fp8}, parts});
  settings bytes;
  bytes.weight_bytes = 12.5e9;
  bytes.causal = true;
  bytes.layer_table = true;
  out.push_back({"exact weight bytes, causal", {precision::bf16, precision::q8_0}, bytes});
  return out;
}

}  // namespace

TEST_CASE("sweep: the fast path gives every figure of the plain path, bit for bit", "[sweep]") {
  const std::size_t fields = sweep_field_count();
  for (const variant& v : variants()) {
    INFO(v.name);
    compare_plan plan = grid(v.precisions, v.base);
    plan.precision_given = v.precision_given;
    const std::size_t n = plan.size();
    REQUIRE(n > 0);
    // The plain path: at() and estimate() per point, the row and the whole result.
    std::vector<double> expected(n * fields);
    std::vector<std::string> expected_json(n);
    std::vector<std::vector<field_value>> expected_rows(n);
    for (std::size_t i = 0; i < n; ++i) {
      const compare_plan::point p = plan.at(i);
      const estimate_result r = estimate(*p.model, p.config, p.gpu);
      REQUIRE(row_numbers({*p.model, p.config, p.gpu, r}, &expected[i * fields]) == fields);
      expected_json[i] = to_json({*p.model, p.config, p.gpu, r}, -1);
      expected_rows[i] = row_values({*p.model, p.config, p.gpu, r});
    }
    // compare_rows (compare --json, the table) takes the same path as the sweep.
    const auto rows = compare_rows(plan, n);
    REQUIRE(rows.size() == n);
    for (std::size_t i = 0; i < n; ++i) {
      INFO("row " << i);
      REQUIRE(rows[i].size() == expected_rows[i].size());
      for (std::size_t k = 0; k < rows[i].size(); ++k) {
        CHECK(rows[i][k].kind == expected_rows[i][k].kind);
        CHECK(rows[i][k].has_value == expected_rows[i][k].has_value);
        CHECK(std::memcmp(&rows[i][k].number, &expected_rows[i][k].number, sizeof(double)) == 0);
        CHECK(rows[i][k].text == expected_rows[i][k].text);
      }
    }
    // The sweep in chunks that start and end inside blocks of sizes.
    for (const std::size_t chunk : {std::size_t{7}, std::size_t{18}, n}) {
      std::vector<double> got(n * fields, -1.0);
      std::size_t done = 0;
      for (std::size_t at = 0; at < n; at += chunk) done += sweep(plan, at, chunk, &got[at * fields]);
      REQUIRE(done == n);
      for (std::size_t i = 0; i < n; ++i) {
        INFO("point " << i << ", chunk " << chunk);
        // memcmp: NaN (a figure that does not apply) must match NaN, and -0 must stay -0.
        CHECK(std::memcmp(&got[i * fields], &expected[i * fields], fields * sizeof(double)) == 0);
      }
    }
    // The whole result through the reuse the sweep keeps (one validation per block, the model's
    // parameters and weights carried over).
    detail::estimate_reuse reuse;
    for (std::size_t i = 0; i < n; ++i) {
      const compare_plan::point p = plan.at(i);
      if (i % (plan.batch_sizes.size() * plan.sequence_lengths.size() * plan.generated_tokens.size()) == 0) {
        validate(p.config);
        reuse.validated = true;
      }
      const estimate_result r = detail::estimate_with(*p.model, p.config, p.gpu, nullptr, nullptr, &reuse);
      INFO("point " << i);
      CHECK(to_json({*p.model, p.config, p.gpu, r}, -1) == expected_json[i]);
    }
  }
}

TEST_CASE("sweep: a bad size in a list is refused with its pointer, as estimate() refuses it", "[sweep]") {
  compare_plan plan = grid({precision::bf16}, settings{});
  plan.batch_sizes = {1, 0};
  std::vector<double> out(plan.size() * sweep_field_count());
  try {
    (void)sweep(plan, 0, plan.size(), out.data());
    FAIL("no error");
  } catch (const error& e) {
    CHECK(e.code() == error_code::config_range);
    CHECK(e.pointer() == "/batch_size");
  }
  // Settings the sizes do not touch are validated per block, with estimate()'s message.
  plan = grid({precision::bf16}, settings{});
  plan.base.mem_efficiency = 1.5;
  try {
    (void)sweep(plan, 0, plan.size(), out.data());
    FAIL("no error");
  } catch (const error& e) {
    CHECK(e.pointer() == "/mem_efficiency");
  }
  // Training in a format with no recipe: refused at the block of that precision.
  plan = grid({precision::bf16, precision::int4}, settings{});
  plan.base.training = true;
  try {
    (void)sweep(plan, 0, plan.size(), out.data());
    FAIL("no error");
  } catch (const error& e) {
    CHECK(e.pointer() == "/precision");
  }
}
