#pragma once
// The CLI's display formatting: flopcast/format.hpp's rules (the same as web/src/format.js), by
// their short names in flopcast::cli.
#include "flopcast/base/format.hpp"

namespace flopcast::cli {
using display::format_as;
using display::format_bandwidth;
using display::format_bits;
using display::format_bytes;
using display::format_count;
using display::format_flop_rate;
using display::format_flops;
using display::format_grams;
using display::format_integer;
using display::format_joules;
using display::format_number;
using display::format_per_second;
using display::format_percent;
using display::format_rate;
using display::format_seconds;
using display::format_si;
using display::format_usd;
using display::format_watts;
using display::format_wh;
using display::none_text;
using display::plural;
}  // namespace flopcast::cli
