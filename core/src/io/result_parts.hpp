#pragma once
// Pieces of result JSON that more than one document writes (defined in result_json.cpp, and
// write_row_fields in api.cpp). Private to io and report.
#include <string_view>

#include "base/json_out.hpp"
#include "flopcast/estimate/estimate.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast::detail {

// "decoder", "encoder", "encoder-decoder" (result_json.cpp).
[[nodiscard]] std::string_view arch_name(architecture a);
// Where an efficiency came from: "default", "explicit", "calibrated", "fitted".
[[nodiscard]] const char* origin_name(efficiency_origin o);
// A low-high range as [low, high].
void write_range(json_out& w, std::string_view key, const figure_range& x);

// The compare table's columns, [{key, header, kind}] in row_fields() order (defaults, report).
void write_row_fields(json_out& w);

}  // namespace flopcast::detail
