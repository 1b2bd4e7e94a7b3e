#pragma once
// The accelerator record reader on a parsed value (the registry's records, inline request GPUs).
// The text entry point is read_hardware in flopcast/hardware/hardware.hpp.
#include "base/json_reader.hpp"
#include "flopcast/hardware/hardware.hpp"

namespace flopcast::detail {
[[nodiscard]] hardware_spec read_hardware(const json& j);
}  // namespace flopcast::detail
