#pragma once
// The request readers on an already parsed nlohmann::json value (request.hpp has the text
// forms): for callers that build requests as JSON values, like the CLI, so nothing is
// serialised and parsed again. Needs nlohmann_json's headers.
#include <cstddef>
#include <nlohmann/json_fwd.hpp>

#include "flopcast/io/request.hpp"

namespace flopcast {

// Parses a JSON text with flopcast's limits (16 MiB, nesting at most 128 levels, no duplicate
// keys); errors are flopcast::error (config_parse, limit) naming `what`.
[[nodiscard]] nlohmann::json parse_json_text(std::string_view text, const char* what);
// parse_json_text's (and every request text's) size limit: 16 MiB.
inline constexpr std::size_t max_json_text_bytes = std::size_t{16} << 20;

[[nodiscard]] compare_request read_compare_request(const nlohmann::json& request, bool allow_lists);
[[nodiscard]] serving_request read_serving_request(const nlohmann::json& request);
[[nodiscard]] training_request read_training_request(const nlohmann::json& request);
[[nodiscard]] calibration_request read_calibration_request(const nlohmann::json& request);

}  // namespace flopcast
