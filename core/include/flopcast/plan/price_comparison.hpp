#pragma once
// Hosted API price against self-hosting the same model (the providers catalog, providers.hpp, and
// the serving model, serving.hpp).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace flopcast {

// API price vs self-hosted cost per 1M tokens for one model: the serving model (serving.hpp
// serve()) on `gpu` at a tensor-parallel degree (0: the smallest power of two up to 8 whose
// layout fits), at `utilization`: the share of the hours paid for in which the deployment runs
// at its serving throughput (the rest idle but paid).
struct price_comparison_request {
  std::string model;
  std::string gpu = "H100";
  std::int64_t tensor_parallel = 0;
  std::string precision = "bf16";
  double utilization = 0.5;
  std::int64_t prompt_tokens = 512;
  std::int64_t output_tokens = 256;
  std::optional<double> cost_per_hour_usd;  // one GPU; default: the GPU's (data/gpus.json)
};
[[nodiscard]] std::string price_comparison_json(const price_comparison_request& q, int indent = 2);
// The same with the self-hosted side as a whole serving request (`model` on `gpu` with settings
// `s`, as the throughput command reads them): its figures are serve()'s for exactly that request,
// so the price comparison and the throughput command agree; q's model names the providers' model
// (`model` must be it), q's utilization applies on top, q's gpu/precision/tokens are taken from s.
struct model_spec;
struct serving_settings;
struct hardware_spec;
[[nodiscard]] std::string price_comparison_json(price_comparison_request q, const model_spec& model,
                                                const serving_settings& s, const hardware_spec& gpu, int indent);
// The JSON entry point (io/api.cpp, declared in io/result_json.hpp) reads either form.

}  // namespace flopcast
