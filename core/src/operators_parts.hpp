#pragma once
// details.operators of the estimate JSON (operators.cpp). Private to the core.
#include <nlohmann/json.hpp>

#include "flopcast/operators.hpp"

namespace flopcast::detail {

[[nodiscard]] nlohmann::ordered_json operators_json(const model_spec& m, const settings& s, const estimate_result& r);

}  // namespace flopcast::detail
