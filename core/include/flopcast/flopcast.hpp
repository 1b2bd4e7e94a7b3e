#pragma once
// Umbrella header.
#include "flopcast/checkpoint.hpp"
#include "flopcast/compare.hpp"
#include "flopcast/config.hpp"
#include "flopcast/error.hpp"
#include "flopcast/estimate.hpp"
#include "flopcast/hardware.hpp"
#include "flopcast/model.hpp"
#include "flopcast/operators.hpp"
#include "flopcast/precision.hpp"
#include "flopcast/registry.hpp"
#include "flopcast/report.hpp"
#include "flopcast/result_json.hpp"
#include "flopcast/serving.hpp"
#include "flopcast/simulator.hpp"
#include "flopcast/training.hpp"

namespace flopcast {
[[nodiscard]] inline const char* version() noexcept { return FLOPCAST_VERSION; }
}  // namespace flopcast
