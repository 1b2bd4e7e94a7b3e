#pragma once
// Umbrella header: every public header of the core, room by room (ARCHITECTURE.md), but
// flopcast/io/request_json.hpp, which needs nlohmann_json's headers (the umbrella needs nothing
// beyond the core: the WebAssembly bindings and an installed flopcast::core use it).
#include "flopcast/base/error.hpp"
#include "flopcast/base/format.hpp"
#include "flopcast/catalog/providers.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/checkpoint/checkpoint.hpp"
#include "flopcast/estimate/calibration.hpp"
#include "flopcast/estimate/estimate.hpp"
#include "flopcast/estimate/operators.hpp"
#include "flopcast/formats/ggml_types.hpp"
#include "flopcast/formats/precision.hpp"
#include "flopcast/hardware/hardware.hpp"
#include "flopcast/io/compare.hpp"
#include "flopcast/io/plan_json.hpp"
#include "flopcast/io/request.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/model/config.hpp"
#include "flopcast/model/model.hpp"
#include "flopcast/plan/plan.hpp"
#include "flopcast/plan/price_comparison.hpp"
#include "flopcast/profile/profile.hpp"
#include "flopcast/report/report.hpp"
#include "flopcast/serving/disaggregated.hpp"
#include "flopcast/serving/engine.hpp"
#include "flopcast/serving/serving.hpp"
#include "flopcast/serving/simulator.hpp"
#include "flopcast/serving/work_bound.hpp"
#include "flopcast/training/training.hpp"

namespace flopcast {
[[nodiscard]] inline const char* version() noexcept { return FLOPCAST_VERSION; }
}  // namespace flopcast
