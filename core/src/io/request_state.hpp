#pragma once
// The request table's private side: where each field's value lives (request_state) and how
// it is stored and read back. Only the request table (request_fields.cpp, request_checks.cpp) and
// request_reader.cpp include this.
#include <nlohmann/json.hpp>

#include "flopcast/io/request.hpp"
#include "flopcast/plan/plan.hpp"

namespace flopcast::detail {

// Every part of every request, default-constructed: the defaults come from these structs.
struct request_state {
  settings base;
  serving_settings serving;
  training_settings training;
  measurement measured;
  bool all_models = false;
  bool qlora = false;
  std::string fine_tuning;  // "training_analysis.fine_tuning" as given ("": derived)
  // "training_analysis.lora_rank" (the default: Hugging Face PEFT's LoraConfig r); the adapters'
  // rank in base.lora and training.lora is read_fine_tuning's.
  std::int64_t lora_rank = 8;
  plan_settings plan;           // "plan": max_gpus, concurrency
  bool report_serving = false;  // "report": {"serving": true}
  // "simulation": what the request gave (unset: the engine's or the simulator's default).
  struct simulation_part {
    std::optional<arrival_kind> arrivals;
    std::int64_t num_requests = simulation_settings{}.num_requests;
    std::optional<std::int64_t> concurrency;
    std::optional<double> request_rate;
    std::int64_t input_tokens = simulation_settings{}.input_tokens.min;
    std::int64_t output_tokens = simulation_settings{}.output_tokens.min;
    std::optional<length_range> input_tokens_range, output_tokens_range;
    std::vector<trace_request> trace;
    std::uint64_t seed = simulation_settings{}.seed;
    std::optional<double> slo_ttft_s, slo_tpot_s;
    std::int64_t warmup_requests = simulation_settings{}.warmup_requests;
    std::optional<std::int64_t> max_num_seqs, max_num_batched_tokens, block_size, kv_blocks;
    std::optional<bool> chunked_prefill;
    std::optional<batching_policy> policy;
    std::optional<bool> prefix_caching;  // unset: the engine's default
    workload_settings workload;
    std::optional<double> range_ratio;
    std::optional<speculative_method> speculative;
    std::optional<std::int64_t> speculative_tokens;
    std::optional<double> acceptance_rate;  // one rate (a list: read_simulation_request)
    std::string harness = "none";
    std::optional<double> client_overhead_s;
  } simulation;
  // "disaggregation": the layout; on when the part is given, unless enabled is false.
  struct disaggregation_part {
    bool enabled = true;
    disaggregation_settings layout;
  } disaggregation;
};

struct field_access {
  const request_field* field;
  // Stores a value that has passed the type check for field->type (numbers as JSON numbers,
  // names as strings). Range checks are check_field's.
  void (*set)(request_state&, const nlohmann::json&);
  // The value as JSON (null: derived or absent).
  nlohmann::json (*get)(const request_state&);
  // The numeric value get() holds, without building JSON (nullptr: use get(); none: not a number).
  std::optional<double> (*number)(const request_state&);
};

// Every field's accessors, in table order (request_fields.cpp).
[[nodiscard]] const std::vector<field_access>& field_accesses();
// A token count: a number, or a string with a K, M, B (or G) or T suffix ("15T"); none if neither.
[[nodiscard]] std::optional<double> parse_tokens(const nlohmann::json& v);
// The weight component named `key` ("attention", "experts", ...); none for another name.
[[nodiscard]] std::optional<weight_component> component_named(std::string_view key);
// A choice field's names (request_field::choices split at commas).
[[nodiscard]] std::vector<std::string> choice_list(const request_field& f);

// The accessors of `pointer`'s field (nullptr: no scalar field there).
[[nodiscard]] const field_access* access(std::string_view pointer);

// Checks every numeric field of `parts` ("" top level and "parallelism": the estimate's
// settings; "serving"; "training_analysis") in `state` against the table's bounds.
void check_state(const request_state& state, std::initializer_list<std::string_view> parts);

// Type-checks `v` for `f` (the JSON type and, for integers, integrality and int64 range) and
// its bounds; errors at `pointer` (which may be a list element's).
void check_value(const request_field& f, const nlohmann::json& v, const std::string& pointer);

}  // namespace flopcast::detail

namespace flopcast::detail {
// Reads the top level and "parallelism" of a request for `command` into `state` and returns
// the plan; the caller reads its own part ("serving", ...) after.
[[nodiscard]] compare_request read_request(const nlohmann::json& j, bool allow_lists, std::uint32_t command,
                                           request_state& state);
}  // namespace flopcast::detail
