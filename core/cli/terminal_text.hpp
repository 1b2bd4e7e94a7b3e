#pragma once
// The one place where the CLI's output meets the terminal: everything written to std::cout and
// std::cerr passes a filter that writes control characters as visible escapes, so text from a
// file (a GGUF general.name, an ONNX node name, a config string, a name in an error message)
// can never move the cursor, retitle the window or hide what follows.
//   escaped  C0 (0x00-0x1f) but tab and newline, DEL (0x7f), and C1 (U+0080-U+009F, as UTF-8
//            C2 80..C2 9F, which includes the 8-bit CSI U+009B): "\x1b" in text, "\u001b" with
//            --json (a valid escape inside a JSON string; these never occur outside one)
//   kept     tab, newline and every other byte (UTF-8 text stays as it is)
#include <iosfwd>
#include <string>

namespace flopcast::cli {

// `text` with its control characters escaped (json: as \u00XX).
[[nodiscard]] std::string escape_controls(const std::string& text, bool json = false);

// Installs the filter on std::cout and std::cerr until destroyed (main holds one).
class terminal_filter {
 public:
  explicit terminal_filter(bool json);
  ~terminal_filter();
  terminal_filter(const terminal_filter&) = delete;
  terminal_filter& operator=(const terminal_filter&) = delete;

 private:
  struct impl;
  impl* out_;
  impl* err_;
};

}  // namespace flopcast::cli
