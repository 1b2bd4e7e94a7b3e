#pragma once
// Every figure a measurement reports says where it comes from: MEASURED on this machine
// (timed, or counted by the kernels that ran), ESTIMATED by the analytical model (or from a
// placeholder input, said in the note), or unavailable (with the reason) when this machine
// cannot tell. Nothing is invented: a figure without a source is unavailable.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace flopcast::measure {

enum class source_label : std::uint8_t { measured, estimated, unavailable };
// "MEASURED", "ESTIMATED", "unavailable".
[[nodiscard]] std::string_view to_string(source_label l) noexcept;

struct figure {
  std::optional<double> value;  // empty when unavailable
  source_label label = source_label::unavailable;
  std::string note;  // the reason when unavailable; the caveat otherwise

  [[nodiscard]] static figure measured(double v, std::string note = {}) {
    return {v, source_label::measured, std::move(note)};
  }
  [[nodiscard]] static figure estimated(double v, std::string note = {}) {
    return {v, source_label::estimated, std::move(note)};
  }
  [[nodiscard]] static figure unavailable(std::string why) {
    return {std::nullopt, source_label::unavailable, std::move(why)};
  }
  [[nodiscard]] bool available() const noexcept { return value.has_value(); }
  [[nodiscard]] double value_or(double v) const noexcept { return value.value_or(v); }
};

}  // namespace flopcast::measure
