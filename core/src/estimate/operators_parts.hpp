#pragma once
// details.operators of the estimate JSON (operators.cpp). Private to the core.
#include "base/json_out.hpp"
#include "flopcast/estimate/operators.hpp"

namespace flopcast::detail {

// Writes the operators object as the next value of `w`.
// gpu and resolve: the measured kernel curves of each row (operator_table); gpu null: none.
void write_operators(json_out& w, const model_spec& m, const settings& s, const estimate_result& r,
                     const hardware_spec* gpu = nullptr, const device_resolver& resolve = {});

}  // namespace flopcast::detail
