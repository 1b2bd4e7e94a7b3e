#pragma once
// The one error type of flopcast. Every message names the offending field (a JSON
// pointer into the config or request, or a CLI option) and what was expected:
//   [flopcast.config.type] (/num_attention_heads) expected a positive integer, got "32"
#include <stdexcept>
#include <string>
#include <string_view>

namespace flopcast {

enum class error_code {
  config_missing,     // a required config.json field is absent
  config_type,        // a field has the wrong JSON type
  config_range,       // a field's value is out of range or inconsistent
  config_parse,       // the text is not JSON at all
  unsupported_model,  // model_type is not one flopcast knows
  unknown_model,      // registry lookup failed
  unknown_gpu,        // GPU lookup failed
  unknown_precision,  // precision name not recognised
  unknown_optimizer,  // optimizer name not recognised
  invalid_argument,   // a request/CLI value is out of range
  io,                 // a file could not be read or written
  limit,              // an input beyond a documented limit (size, nesting depth, memory)
};

[[nodiscard]] std::string_view to_string(error_code code) noexcept;

class error : public std::runtime_error {
 public:
  error(error_code code, std::string pointer, const std::string& message);

  [[nodiscard]] error_code code() const noexcept { return code_; }
  // JSON pointer (e.g. "/hidden_size") or option name; may be empty.
  [[nodiscard]] const std::string& pointer() const noexcept { return pointer_; }
  // The message without the "[flopcast.code] (pointer) " prefix.
  [[nodiscard]] const std::string& message() const noexcept { return message_; }

 private:
  error_code code_;
  std::string pointer_;
  std::string message_;
};

}  // namespace flopcast
