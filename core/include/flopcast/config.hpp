#pragma once
// Reading model and hardware descriptions from JSON text.
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/calibration.hpp"
#include "flopcast/compare.hpp"
#include "flopcast/estimate.hpp"
#include "flopcast/hardware.hpp"
#include "flopcast/model.hpp"
#include "flopcast/serving.hpp"
#include "flopcast/training.hpp"

namespace flopcast {

// The model_types read_hf_config understands.
[[nodiscard]] const std::vector<std::string>& supported_model_types();

// Reads a Hugging Face config.json exactly as published. Errors name the field by its
// JSON pointer: "[flopcast.config.missing] (/hidden_size) expected a positive integer".
// `name` labels the model (defaults to _name_or_path, then model_type).
[[nodiscard]] model_spec read_hf_config(std::string_view json_text, std::string name = {});

// Reads one accelerator from a JSON object in data/gpus.json's record format.
[[nodiscard]] hardware_spec read_hardware(std::string_view json_text);

// A request as the WASM API and the shared test fixtures spell it: a JSON object whose
// fields are named like llm-flops' estimate() parameters (model, batch_size,
// sequence_length, num_generated_tokens, precision, kv_cache_precision, gpu, training,
// optimizer, gradient_checkpointing, causal, flash_attention, compute_efficiency,
// mem_efficiency, power_utilization, carbon_intensity, cost_per_hour). `model` is a
// registry name or a config.json object; `gpu` a name, a spec object, or null for none.
// With allow_lists, model, gpu, precision, batch_size, sequence_length and
// num_generated_tokens may also be arrays: the plan is their Cartesian product.
struct compare_request {
  std::deque<model_spec> inline_models;  // configs given inline (the plan points here)
  std::deque<hardware_spec> inline_gpus;
  compare_plan plan;
};
[[nodiscard]] compare_request read_compare_request(std::string_view json_text, bool allow_lists = true);

// A throughput request: an estimate request plus "serving": {prompt_tokens, output_tokens,
// concurrency, gpu_memory_utilization, paged, block_size, chunked_prefill_tokens, draft,
// speculative_tokens, acceptance_rate}.
struct serving_request {
  compare_request request;
  serving_settings serving;  // serving.base is the request's single point
  std::deque<model_spec> drafts;
};
[[nodiscard]] serving_request read_serving_request(std::string_view json_text);

// A training-analysis request: an estimate request plus "training_analysis" options.
struct training_request {
  compare_request request;
  training_settings training;
};
[[nodiscard]] training_request read_training_request(std::string_view json_text);

// A calibration request: an estimate request (the measurement's settings) plus "measured":
// {decode_tokens_per_second, time_to_first_token_s} and "all_models".
struct calibration_request {
  compare_request request;
  measurement measured;
  bool all_models = false;
};
[[nodiscard]] calibration_request read_calibration_request(std::string_view json_text);

// A calibration store: {"entries": [{model, gpu, precision, compute_efficiency,
// mem_efficiency, source}]} (or the bare array). `where` names the source in errors.
[[nodiscard]] std::vector<calibration_entry> read_calibration(std::string_view json_text,
                                                              const std::string& where = "");

}  // namespace flopcast
