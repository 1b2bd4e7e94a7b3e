#pragma once
// Reading a Hugging Face config.json into a model description (hf_config.cpp and the family
// readers in core/src/model/). Accelerator records: read_hardware (hardware.hpp); requests:
// request.hpp.
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/model/model.hpp"

namespace flopcast {

// The model_types read_hf_config understands.
[[nodiscard]] const std::vector<std::string>& supported_model_types();

// Reads a Hugging Face config.json exactly as published. Errors name the field by its
// JSON pointer: "[flopcast.config.missing] (/hidden_size) expected a positive integer".
// `name` labels the model (defaults to _name_or_path, then model_type).
[[nodiscard]] model_spec read_hf_config(std::string_view json_text, std::string name = {});

}  // namespace flopcast
