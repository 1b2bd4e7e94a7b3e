#pragma once
// Human-readable output of the CLI: display formatting only (units chosen here, values
// computed by the core).
#include <string>
#include <vector>

#include "flopcast/result_json.hpp"

namespace flopcast::cli {

[[nodiscard]] std::string format_value(const field_value& v);
[[nodiscard]] std::string format_flops(double flops);
[[nodiscard]] std::string format_bytes(double bytes);
[[nodiscard]] std::string format_bandwidth(double bytes_per_s);
[[nodiscard]] std::string format_seconds(double s);
[[nodiscard]] std::string format_count(double n);  // 8.03B

// The estimate report.
[[nodiscard]] std::string report(const estimate_context& c);
// A table of rows restricted to `columns`, headers from row_fields().
[[nodiscard]] std::string table(const std::vector<std::vector<field_value>>& rows,
                                const std::vector<std::size_t>& columns);

}  // namespace flopcast::cli
