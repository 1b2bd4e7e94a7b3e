#pragma once
// A report's data: everything the report's and the page's charts draw, computed once by the
// core so the CLI's HTML file (flopcast report), the page's "Download report" and the page's
// charts card show the same numbers. The series are the estimate at the points below, one
// point varied at a time; points the core rejects (fp8 training, a context beyond the model's)
// are left out.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace flopcast {

// The x values of the latency-vs-batch and sequence-scaling series, and the concurrencies of
// the serving curve (report.serving).
[[nodiscard]] const std::vector<std::int64_t>& report_batch_sizes();
[[nodiscard]] const std::vector<std::int64_t>& report_sequence_lengths();
[[nodiscard]] const std::vector<std::int64_t>& report_concurrencies();

// An estimate request (request.hpp), plus an optional "report" part ({"serving": true} adds
// the serving curve). Returns {version, request, estimate (with layer_table), fields, row,
// series {batch_size, sequence_length, precision: {values, rows}}, roofline, serving}.
[[nodiscard]] std::string report_json(std::string_view request_json, int indent = -1);

}  // namespace flopcast
