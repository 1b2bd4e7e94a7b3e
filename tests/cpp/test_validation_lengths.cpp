// The validation table's `lengths` column (data/measurements/README.md): a row whose harness drew
// each request's prompt and output uniformly from a range is predicted over that range (the
// simulator draws it; a closed form takes its mean), not at the stated lengths.
#include <catch2/catch.hpp>

#include "helpers.hpp"
#include "measure/validation.hpp"

using flopcast::validation::model_choice;
using flopcast::validation::predictor;
using test::json;

namespace {

// A closed-loop run of a bundled model with vLLM's fitted profile; SGLang bench_serving's random
// dataset is the harness the column was written for.
json row(const std::string& metric, const std::string& load = "concurrency") {
  return json{{"id", "lengths-" + metric},
              {"engine", "vllm"},
              {"model", "meta-llama/Llama-3.1-8B-Instruct"},
              {"gpu", "H100-SXM"},
              {"num_gpus", 1},
              {"tensor_parallel", 1},
              {"precision", "bf16"},
              {"input_tokens", 2048},
              {"output_tokens", 256},
              {"load", {{"kind", load}, {"value", 16}}},
              {"num_requests", 64},
              {"metric", metric},
              {"statistic", "mean"},
              {"value", 1.0},
              {"per", "system"}};
}

double predicted(json r) {
  predictor predict;
  const auto p = predict(r, model_choice{});
  REQUIRE(p.value);
  return *p.value;
}

}  // namespace

TEST_CASE("validation rows: a stated length range is what the prediction draws") {
  // A range of one length is the stated length: the same figure to the last bit.
  json same = row("ttft_s");
  same["lengths"] = {{"input_tokens", {2048, 2048}}, {"output_tokens", {256, 256}}};
  CHECK(predicted(same) == predicted(row("ttft_s")));

  // SGLang's default range ratio 0: prompts uniform over [1, 2048], a mean of about 1024 tokens.
  // Shorter prompts prefill sooner: the mean TTFT falls. A range above the stated length raises it.
  json ranged = row("ttft_s");
  ranged["lengths"] = {{"input_tokens", {1, 2048}}, {"output_tokens", {1, 256}}};
  const double full = predicted(row("ttft_s"));
  CHECK(predicted(ranged) < 0.8 * full);
  json longer = row("ttft_s");
  longer["lengths"] = {{"input_tokens", {2048, 4096}}};
  CHECK(predicted(longer) > 1.2 * full);

  // The steady state (max_throughput: serve()'s closed form) runs at the range's mean.
  json steady = row("output_tokens_per_s", "max_throughput");
  steady["lengths"] = {{"input_tokens", {1, 2048}}, {"output_tokens", {1, 256}}};
  json at_mean = row("output_tokens_per_s", "max_throughput");
  at_mean["input_tokens"] = 1025;
  at_mean["output_tokens"] = 129;
  CHECK(predicted(steady) == predicted(at_mean));
}

TEST_CASE("validation rows: a malformed length range is skipped with its reason, never predicted") {
  for (const json& bad : {json{{"input_tokens", {10, 5}}}, json{{"input_tokens", {0, 5}}}, json{{"output_tokens", {1}}},
                          json{{"output_tokens", "1-5"}}, json{{"input_tokens", {1.5, 5}}}}) {
    json r = row("ttft_s");
    r["lengths"] = bad;
    predictor predict;
    const auto p = predict(r, model_choice{});
    INFO(bad.dump());
    CHECK_FALSE(p.value);
    CHECK(p.why == "a length range that is not [min, max] with 1 <= min <= max");
  }
}
