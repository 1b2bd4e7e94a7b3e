#pragma once
// `flopcast estimate MODEL --operators`: the per-operator tables of the prefill and one decode
// step (figures from the core's operator_table; display formatting only).
#include <string>

#include "flopcast/io/result_json.hpp"

namespace flopcast::cli {

[[nodiscard]] std::string operators_report(const estimate_context& c);

}  // namespace flopcast::cli
