#pragma once
// Reading model and hardware descriptions from JSON text (requests: request.hpp).
#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/calibration.hpp"
#include "flopcast/compare.hpp"
#include "flopcast/estimate.hpp"
#include "flopcast/hardware.hpp"
#include "flopcast/model.hpp"
#include "flopcast/request.hpp"
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

}  // namespace flopcast
