#pragma once
// The config.json reader on a parsed value, for the rooms that hold a config inside a larger
// document (the registry's records, checkpoint headers, inline request models). The text entry
// point is read_hf_config in flopcast/model/config.hpp.
#include <string>

#include "base/json_reader.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast::detail {
[[nodiscard]] model_spec read_hf_config(const json& j, std::string name = {});
}  // namespace flopcast::detail
