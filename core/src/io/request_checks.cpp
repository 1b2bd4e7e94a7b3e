// The request table's checks and texts (request_fields.cpp holds the table): a value's type and
// bounds (check_value, check_field, check_settings, ...), what a valid value is as messages say it
// (expected_text) and the defaults as JSON and help text.
#include <cmath>
#include <limits>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "estimate/rules.hpp"
#include "flopcast/serving/engine.hpp"
#include "io/request_state.hpp"

namespace flopcast {
namespace detail {
namespace {

std::string power_of_two(double v) {
  const double e = std::log2(v);
  if (v >= 1024 && std::floor(e) == e) return "2^" + std::to_string(static_cast<int>(e));
  return format_number(v);
}

bool is_integer_type(field_type t) { return t == field_type::integer; }

std::string value_text(const request_field& f, double v) {
  if (is_integer_type(f.type) && std::fabs(v) < 9.2e18) return std::to_string(static_cast<std::int64_t>(v));
  return format_number(v);
}

[[noreturn]] void type_error(const request_field& f, const json& v, const std::string& pointer) {
  throw error(error_code::config_type, pointer, "expected " + expected_text(f) + ", but got " + describe(v));
}

inline bool within_bounds(const request_field& f, double v) {
  return (f.min_open ? v > f.min : v >= f.min) && v <= f.max;
}
void check_bounds(const request_field& f, double v, std::string_view pointer) {
  if (!within_bounds(f, v))
    throw error(error_code::config_range, std::string(pointer),
                "expected " + expected_text(f) + ", but got " + value_text(f, v));
}

}  // namespace

std::vector<std::string> choice_list(const request_field& f) {
  std::vector<std::string> out;
  std::string_view rest = f.choices;
  while (!rest.empty()) {
    const std::size_t comma = rest.find(',');
    out.emplace_back(rest.substr(0, comma));
    rest = comma == std::string_view::npos ? std::string_view{} : rest.substr(comma + 1);
  }
  return out;
}

const field_access* access(std::string_view pointer) {
  for (const auto& a : field_accesses())
    if (a.field->pointer == pointer) return a.set ? &a : nullptr;
  return nullptr;
}

void check_value(const request_field& f, const json& v, const std::string& pointer) {
  switch (f.type) {
    case field_type::integer: {
      if (!v.is_number()) type_error(f, v, pointer);
      const double x = v.get<double>();
      if (!v.is_number_integer() && std::floor(x) != x) type_error(f, v, pointer);
      if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(f.max))
        throw error(error_code::config_range, pointer, "expected " + expected_text(f) + ", but got " + v.dump());
      check_bounds(f, v.is_number_integer() ? static_cast<double>(v.get<std::int64_t>()) : x, pointer);
      return;
    }
    case field_type::number:
      if (!v.is_number()) type_error(f, v, pointer);
      check_bounds(f, v.get<double>(), pointer);
      return;
    case field_type::tokens: {
      const auto x = parse_tokens(v);
      if (!x) type_error(f, v, pointer);
      check_bounds(f, *x, pointer);
      return;
    }
    case field_type::boolean:
      if (!v.is_boolean()) type_error(f, v, pointer);
      return;
    case field_type::precision:
      if (v.is_object() && f.key == "precision") {
        for (auto it = v.begin(); it != v.end(); ++it) {
          const std::string at = pointer + "/" + it.key();
          if (it.key() != "default" && !component_named(it.key())) {
            std::string names = "default";
            for (std::size_t i = 0; i < weight_component_count; ++i)
              names += ", " + std::string(to_string(static_cast<weight_component>(i)));
            throw error(error_code::config_range, at,
                        "expected a part of the model (" + names + "), but got \"" + it.key() + "\"");
          }
          if (!it.value().is_string())
            throw error(error_code::config_type, at, "expected a precision name, but got " + describe(it.value()));
          (void)parse_precision(it.value().get<std::string>(), at);
        }
        return;
      }
      if (!v.is_string()) type_error(f, v, pointer);
      (void)parse_precision(v.get<std::string>(), pointer);
      return;
    case field_type::optimizer:
      if (!v.is_string()) type_error(f, v, pointer);
      (void)parse_optimizer(v.get<std::string>(), pointer);
      return;
    case field_type::engine:
      if (!v.is_string()) type_error(f, v, pointer);
      if (v.get<std::string>() == "none") return;  // the plain roofline
      try {
        (void)find_engine(v.get<std::string>());
      } catch (const error& e) {
        throw error(e.code(), std::string(pointer), e.message());
      }
      return;
    case field_type::recompute:
      if (!v.is_string()) type_error(f, v, pointer);
      (void)parse_recompute_policy(v.get<std::string>(), pointer);
      return;
    case field_type::lora_targets:
      if (!v.is_string()) type_error(f, v, pointer);
      (void)parse_lora_targets(v.get<std::string>(), pointer);
      return;
    case field_type::choice: {
      if (!v.is_string()) type_error(f, v, pointer);
      for (const std::string& c : choice_list(f))
        if (c == v.get<std::string>()) return;
      throw error(error_code::config_range, pointer, "expected " + expected_text(f) + ", but got " + v.dump());
    }
    case field_type::token_range: {
      if (!v.is_array() || v.size() != 2) type_error(f, v, pointer);
      const auto lo = static_cast<std::int64_t>(f.min), hi = static_cast<std::int64_t>(f.max);
      const std::string what = "an integer in [" + format_number(f.min) + ", " + format_number(f.max) + "]";
      const std::int64_t a = to_integer(v[0], pointer + "/0", lo, hi, what.c_str());
      const std::int64_t b = to_integer(v[1], pointer + "/1", lo, hi, what.c_str());
      if (b < a)
        throw error(error_code::config_range, pointer + "/1",
                    "expected max >= min (" + std::to_string(a) + "), but got " + std::to_string(b));
      return;
    }
    case field_type::trace: {
      if (!v.is_array()) type_error(f, v, pointer);
      for (std::size_t i = 0; i < v.size(); ++i) {
        const std::string at = pointer + "/" + std::to_string(i);
        const json& item = v[i];
        if (!item.is_object())
          throw error(error_code::config_type, at,
                      "expected a request {arrival_s, input_tokens, output_tokens}, but got " + describe(item));
        const reader r(item, at);
        r.only({"arrival_s", "input_tokens", "output_tokens", "prefix_id", "session_id"}, "trace field");
        if (!r.has("arrival_s"))
          throw error(error_code::config_missing, r.ptr("arrival_s"),
                      "required field is missing: expected the arrival time in seconds");
        (void)r.number_or("arrival_s", 0, 0, 1e9);
        (void)r.integer("input_tokens", 1, 10000000, "an integer in [1, 10000000]");
        (void)r.integer("output_tokens", 1, 10000000, "an integer in [1, 10000000]");
        // Optional: the shared prefix and the session the request belongs to.
        if (r.has("prefix_id")) (void)r.integer("prefix_id", 0, 9007199254740992, "an integer in [0, 2^53]");
        if (r.has("session_id")) (void)r.integer("session_id", 0, 9007199254740992, "an integer in [0, 2^53]");
      }
      return;
    }
    case field_type::model:
    case field_type::gpu:
    case field_type::calibration:
    case field_type::part:
      return;  // the request reader resolves these
  }
}

namespace {
// The numeric fields of `parts`, in table order.
std::vector<const field_access*> numeric_accesses(std::initializer_list<std::string_view> parts) {
  std::vector<const field_access*> out;
  for (const auto& a : field_accesses()) {
    const request_field& f = *a.field;
    if (!a.get || (f.type != field_type::integer && f.type != field_type::number && f.type != field_type::tokens))
      continue;
    bool wanted = false;
    for (auto p : parts) wanted = wanted || f.part == p;
    if (wanted) out.push_back(&a);
  }
  return out;
}
void check_accesses(const request_state& state, const std::vector<const field_access*>& accesses) {
  for (const field_access* a : accesses) {
    if (a->number) {
      if (const std::optional<double> v = a->number(state); v && !within_bounds(*a->field, *v))
        check_bounds(*a->field, *v, a->field->pointer);
      continue;
    }
    const json v = a->get(state);
    if (v.is_number()) check_bounds(*a->field, v.get<double>(), a->field->pointer);
  }
}
}  // namespace

void check_state(const request_state& state, std::initializer_list<std::string_view> parts) {
  check_accesses(state, numeric_accesses(parts));
}

// On every estimate (and every sweep point): the field list is filtered once, and the settings go
// into a state kept for the thread (its other parts are never read by these fields).
void check_settings(const settings& s) {
  static const std::vector<const field_access*> accesses = numeric_accesses({"", "parallelism"});
  thread_local request_state state;
  state.base = s;
  check_accesses(state, accesses);
}
void check_serving(const serving_settings& s) {
  request_state state;
  state.serving = s;
  check_state(state, {"serving"});
}
void check_plan(const plan_settings& p) {
  request_state state;
  state.plan = p;
  check_state(state, {"plan"});
}
void check_training(const training_settings& t) {
  request_state state;
  state.training = t;
  state.lora_rank = t.lora.rank;
  check_state(state, {"training_analysis"});
}

}  // namespace detail

std::string_view arrival_name(arrival_kind k) noexcept {
  switch (k) {
    case arrival_kind::batch:
      return "batch";
    case arrival_kind::closed_loop:
      return "closed_loop";
    case arrival_kind::poisson:
      return "poisson";
    case arrival_kind::trace:
      return "trace";
  }
  return "batch";
}
std::string_view policy_name(batching_policy p) noexcept {
  return p == batching_policy::prefill_first ? "prefill_first" : "mixed";
}
std::string_view prefix_cache_name(prefix_cache_mode m) noexcept {
  return m == prefix_cache_mode::block ? "block" : m == prefix_cache_mode::radix ? "radix" : "off";
}

const request_field* find_request_field(std::string_view pointer) {
  for (const auto& f : request_fields()) {
    if (pointer == f.pointer) return &f;
    // A list element: "/batch_size/2".
    if (f.listable && pointer.size() > f.pointer.size() && pointer.substr(0, f.pointer.size()) == f.pointer &&
        pointer[f.pointer.size()] == '/')
      return &f;
  }
  return nullptr;
}

std::string expected_text(const request_field& f) {
  using detail::format_number;
  switch (f.type) {
    case field_type::integer:
      if (f.min == 1 && f.max >= 1024) return "a positive integer (at most " + detail::power_of_two(f.max) + ")";
      if (f.min == 0 && f.max >= 1024) return "a non-negative integer (at most " + detail::power_of_two(f.max) + ")";
      return "an integer in [" + format_number(f.min) + ", " + format_number(f.max) + "]";
    case field_type::number:
    case field_type::tokens: {
      std::string what = f.type == field_type::tokens ? "a number of tokens (or with a K/M/B/T suffix)" : "a number";
      if (!f.unit.empty() && f.unit != "1" && f.type == field_type::number)
        what += " of " + (f.unit == "s" ? std::string("seconds") : std::string(f.unit));
      return what + " in " + (f.min_open ? "(" : "[") + format_number(f.min) + ", " + format_number(f.max) + "]";
    }
    case field_type::boolean:
      return "true or false";
    case field_type::precision:
      return "a precision name";
    case field_type::optimizer:
      return "an optimizer name";
    case field_type::engine:
      return "an engine name";
    case field_type::recompute:
      return "a recompute policy (none, selective, full)";
    case field_type::lora_targets:
      return "LoRA targets (all, attention, mlp, or a list of q,k,v,o,gate,up,down)";
    case field_type::model:
      return "a model name or a config.json object";
    case field_type::gpu:
      return "a GPU name, a GPU object or null";
    case field_type::calibration:
      return "a calibration store";
    case field_type::part:
      return "an object";
    case field_type::choice: {
      std::string names;
      for (const std::string& c : detail::choice_list(f)) names += (names.empty() ? "" : ", ") + c;
      return "one of " + names;
    }
    case field_type::token_range:
      return "[min, max]: two integers in [" + format_number(f.min) + ", " + format_number(f.max) + "] with min <= max";
    case field_type::trace:
      return "an array of requests {arrival_s, input_tokens, output_tokens}";
  }
  return "a value";
}

std::string default_json(const request_field& f) {
  if (f.type == field_type::gpu) return "\"" + std::string(default_gpu_name) + "\"";
  const detail::field_access* a = detail::access(f.pointer);
  if (!a) return "null";
  return a->get(detail::request_state{}).dump();
}

std::string default_text(const request_field& f) {
  if (!f.derived.empty()) return std::string(f.derived);
  const nlohmann::json v = nlohmann::json::parse(default_json(f));
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "none";
  if (v.is_boolean()) return f.negated_flag ? (v.get<bool>() ? "off" : "on") : (v.get<bool>() ? "on" : "off");
  if (v.is_number() && f.flag_scale != 1) return detail::format_number(v.get<double>() / f.flag_scale);
  if (v.is_number_float()) return detail::format_number(v.get<double>());
  return v.dump();
}

void check_field(std::string_view pointer, double value) {
  const request_field* f = find_request_field(pointer);
  if (!f) throw error(error_code::invalid_argument, std::string(pointer), "not a request field");
  detail::check_bounds(*f, value, pointer);
}

}  // namespace flopcast
