#pragma once
// Pieces of result JSON that more than one document writes. Private to the core.
#include "base/json_out.hpp"

namespace flopcast::detail {

// The compare table's columns, [{key, header, kind}] in row_fields() order (defaults, report).
void write_row_fields(json_out& w);

}  // namespace flopcast::detail
