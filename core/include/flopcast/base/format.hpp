#pragma once
// Display formatting of numbers for people, in ONE place for C++: the CLI's text (core/cli) and the
// few sentences the core writes itself (training recommendations). The same rules as
// web/src/format.js (the page and the widget), checked against the same table
// (tests/fixtures/format_cases.json) by tests/cpp/test_format.cpp and tests/cli/format.test.mjs.
// The rules are listed at the top of web/src/format.js: three significant digits, grouped integer
// parts, SI prefixes (binary for memory), sensible time units, "–" for missing values and zero
// times, never "-0". Results stay in SI base units: this is for text only.
#include <string>
#include <string_view>

namespace flopcast::display {

inline constexpr std::string_view none_text = "–";  // a missing, NaN or infinite value

[[nodiscard]] std::string format_number(double v, int digits = 3);  // 0.329, 123,000
[[nodiscard]] std::string format_integer(double n);                 // 8,192 (exact, grouped)
[[nodiscard]] std::string format_count(double n);                   // 8,192; 8.03B
[[nodiscard]] std::string format_si(double v, std::string_view unit, int digits = 3, bool small = true);
[[nodiscard]] std::string format_flops(double flops);                          // 1.23 TFLOP
[[nodiscard]] std::string format_flop_rate(double flops_per_s);                // 989 TFLOP/s
[[nodiscard]] std::string format_bandwidth(double bytes_per_s);                // 3.35 TB/s
[[nodiscard]] std::string format_bytes(double bytes);                          // 16.5 GiB
[[nodiscard]] std::string format_joules(double j);                             // 1.23 kJ
[[nodiscard]] std::string format_wh(double wh);                                // 300 µWh
[[nodiscard]] std::string format_watts(double w);                              // 700 W
[[nodiscard]] std::string format_grams(double g);                              // 8,280 t
[[nodiscard]] std::string format_per_second(double v, std::string_view unit);  // 2.5 req/s
[[nodiscard]] std::string format_rate(double tokens_per_s);                    // 11.8 tok/s
[[nodiscard]] std::string format_percent(double fraction);                     // 32.9 %
[[nodiscard]] std::string format_seconds(double s);                            // 496 ms, 6,260 years; 0 -> –
[[nodiscard]] std::string format_usd(double usd);                              // $1.50, $0.00123
[[nodiscard]] std::string format_bits(double bits);                            // 4.84 bits
// "1 GPU", "4 GPUs": an integer and the word that goes with it (`many` defaults to one + "s").
[[nodiscard]] std::string plural(double n, std::string_view one, std::string_view many = {});

// A rule by its name in tests/fixtures/format_cases.json (web/src/format.js formatAs): count, int,
// flops, flops/s, bytes, bytes/s, seconds, rate, joules, wh, watts, grams, usd, percent, bits,
// number, per_second (unit: the event), plural (unit: the word), boolean, bound. Unknown kinds
// throw std::invalid_argument.
[[nodiscard]] std::string format_as(std::string_view kind, double v, std::string_view unit = {});

}  // namespace flopcast::display
