#pragma once
// Reading model and hardware descriptions from JSON text.
#include <string>
#include <string_view>
#include <vector>

#include <optional>

#include "flopcast/estimate.hpp"
#include "flopcast/hardware.hpp"
#include "flopcast/model.hpp"

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
struct request {
  std::string model_name;           // set when model is a name
  std::optional<model_spec> model;  // set when model is an inline config
  settings config;
  std::string gpu_name = "A100";    // empty: no GPU
  std::optional<hardware_spec> gpu; // set when gpu is an inline spec
};
[[nodiscard]] request read_request(std::string_view json_text);

}  // namespace flopcast
