#include "flopcast/base/error.hpp"

namespace flopcast {

std::string_view to_string(error_code code) noexcept {
  switch (code) {
    case error_code::config_missing:
      return "config.missing";
    case error_code::config_type:
      return "config.type";
    case error_code::config_range:
      return "config.range";
    case error_code::config_parse:
      return "config.parse";
    case error_code::unsupported_model:
      return "config.unsupported_model_type";
    case error_code::unknown_model:
      return "unknown_model";
    case error_code::unknown_gpu:
      return "unknown_gpu";
    case error_code::unknown_precision:
      return "unknown_precision";
    case error_code::unknown_optimizer:
      return "unknown_optimizer";
    case error_code::invalid_argument:
      return "invalid_argument";
    case error_code::io:
      return "io";
    case error_code::limit:
      return "limit";
  }
  return "error";
}

namespace {
std::string format_message(error_code code, const std::string& pointer, const std::string& message) {
  std::string out = "[flopcast.";
  out += to_string(code);
  out += "] ";
  if (!pointer.empty()) {
    out += '(';
    out += pointer;
    out += ") ";
  }
  out += message;
  return out;
}
}  // namespace

error::error(error_code code, std::string pointer, const std::string& message)
    : std::runtime_error(format_message(code, pointer, message)),
      code_(code),
      pointer_(std::move(pointer)),
      message_(message) {}

}  // namespace flopcast
