#include "terminal_text.hpp"

#include <cstdio>
#include <iostream>
#include <streambuf>

namespace flopcast::cli {
namespace {

void escape_byte(std::string& out, unsigned char c, bool json) {
  static const char* hex = "0123456789abcdef";
  out += json ? "\\u00" : "\\x";
  out += hex[c >> 4];
  out += hex[c & 15];
}

bool is_c0_or_del(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n') || c == 0x7f; }

}  // namespace

std::string escape_controls(const std::string& text, bool json) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (is_c0_or_del(c)) {
      escape_byte(out, c, json);
    } else if (c == 0xc2 && i + 1 < text.size() && static_cast<unsigned char>(text[i + 1]) >= 0x80 &&
               static_cast<unsigned char>(text[i + 1]) <= 0x9f) {
      escape_byte(out, static_cast<unsigned char>(text[++i]), json);  // C1, U+0080..U+009F
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

// A stream buffer that escapes what passes through it into the original buffer. A 0xC2 at the
// end of a write is held until the next byte tells whether it starts a C1 character.
struct terminal_filter::impl : std::streambuf {
  impl(std::streambuf* to, bool json) : to_(to), json_(json) {}
  std::streambuf* to_;
  bool json_;
  bool held_c2_ = false;

  void put(const std::string& s) { to_->sputn(s.data(), static_cast<std::streamsize>(s.size())); }

  std::streamsize xsputn(const char* s, std::streamsize n) override {
    std::string text;
    if (held_c2_) text += '\xc2';
    held_c2_ = false;
    text.append(s, static_cast<std::size_t>(n));
    if (!text.empty() && static_cast<unsigned char>(text.back()) == 0xc2) {
      held_c2_ = true;
      text.pop_back();
    }
    put(escape_controls(text, json_));
    return n;
  }
  int_type overflow(int_type c) override {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    xsputn(&ch, 1);
    return c;
  }
  int sync() override {
    if (held_c2_) put("\xc2");
    held_c2_ = false;
    return to_->pubsync();
  }
};

terminal_filter::terminal_filter(bool json)
    : out_(new impl(std::cout.rdbuf(), json)), err_(new impl(std::cerr.rdbuf(), false)) {
  std::cout.rdbuf(out_);
  std::cerr.rdbuf(err_);
}

terminal_filter::~terminal_filter() {
  std::cout.flush();
  std::cerr.flush();
  std::cout.rdbuf(out_->to_);
  std::cerr.rdbuf(err_->to_);
  delete out_;
  delete err_;
}

}  // namespace flopcast::cli
