#pragma once
// Human-readable output of the CLI: display formatting only (units chosen here, values
// computed by the core).
#include <string>
#include <vector>

#include "flopcast/io/result_json.hpp"
#include "format.hpp"

namespace flopcast::cli {

// A row field's value by its kind (format.hpp's rules; web/src/format.js formatByKind).
[[nodiscard]] std::string format_value(const field_value& v);

// The estimate report.
[[nodiscard]] std::string report(const estimate_context& c);
// A table of rows restricted to `columns`, headers from row_fields().
[[nodiscard]] std::string table(const std::vector<std::vector<field_value>>& rows,
                                const std::vector<std::size_t>& columns);

}  // namespace flopcast::cli
