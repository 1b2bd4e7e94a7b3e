#pragma once
// The request schema, declared once (core/src/io/request_fields.cpp): every request field's
// JSON pointer, CLI flag, kind, unit, bounds, default and help. The JSON readers, validate(),
// the CLI's options and help, the error mapping and the page's forms all come from it.
//
// A request is a JSON object whose fields are named like llm-flops' estimate() parameters,
// with nested parts for layouts ("parallelism"), serving ("serving"), the training analysis
// ("training_analysis") and calibration measurements ("measured"). Values are SI base units.
#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/estimate/calibration.hpp"
#include "flopcast/estimate/estimate.hpp"
#include "flopcast/io/compare.hpp"
#include "flopcast/serving/disaggregated.hpp"
#include "flopcast/serving/harness.hpp"
#include "flopcast/serving/serving.hpp"
#include "flopcast/serving/simulator.hpp"
#include "flopcast/training/training.hpp"

namespace flopcast {

// The GPU a request without "gpu" runs on (the CLI's -g default, the page's first choice).
inline constexpr std::string_view default_gpu_name = "A100";

// The entry points a field belongs to.
enum request_command : std::uint32_t {
  command_estimate = 1u << 0,
  command_compare = 1u << 1,
  command_throughput = 1u << 2,
  command_train = 1u << 3,
  command_calibrate = 1u << 4,
  command_simulate = 1u << 5,
  command_report = 1u << 6,  // only the report part: a report takes the estimate's fields besides
  command_plan = 1u << 7,    // flopcast plan: the layouts that fit (plan.hpp)
};

enum class field_type : std::uint8_t {
  integer,       // an integer (integral floats accepted)
  number,        // a finite number
  boolean,       // true or false
  precision,     // a precision name (precision.hpp)
  optimizer,     // an optimizer name
  recompute,     // none, selective, full
  lora_targets,  // all, attention, mlp, or a list of q,k,v,o,gate,up,down
  tokens,        // a number of tokens, or a string with a K/M/B/T suffix ("15T")
  model,         // a registry name or a config.json object
  gpu,           // a GPU name, a GPU object, or null for none
  engine,        // a serving-engine name (engine.hpp): its fitted costs and ranges
  choice,        // one of the names in request_field::choices
  token_range,   // [min, max] tokens, a uniform length (the CLI: MIN:MAX)
  trace,         // a request trace: [{arrival_s, input_tokens, output_tokens}, ...] (the CLI: a CSV file)
  calibration,   // a calibration store ({"entries": [...]} or the bare array)
  part,          // a nested object of fields (parallelism, serving, ...)
};

struct request_field {
  std::string_view key;         // JSON key within its part
  std::string_view part;        // "" (top level), or the nested part's key
  std::string_view pointer;     // full JSON pointer: "/batch_size", "/serving/prompt_tokens"
  std::string_view flag;        // CLI long flag ("--batch"); empty: none
  std::string_view short_flag;  // CLI short flag ("-b"); empty: none
  std::string_view attribute;   // the page's query name and the widget's attribute; empty: none
  field_type type;
  std::string_view unit;  // unit of the JSON value: "tokens", "s", "bytes/s", "1" (a fraction)...
  double min;             // numeric bounds: [min, max], with min excluded when min_open
  double max;
  bool min_open;
  bool listable;               // compare and sweeps accept a list of values
  bool negated_flag;           // the CLI flag sets false ("--no-checkpointing" for gradient_checkpointing)
  double flag_scale;           // the CLI's value times this is the JSON value (GB/s -> bytes/s); 1 otherwise
  std::string_view flag_unit;  // the CLI value's unit when scaled ("GB/s")
  std::string_view derived;    // for fields whose default depends on others: what it is
  std::uint32_t commands;      // request_command bits
  std::string_view help;
  std::string_view choices;  // choice: the accepted names, comma-separated ("mixed,prefill_first")
};

// The request names of the simulator's enums ("closed_loop", "prefill_first").
[[nodiscard]] std::string_view arrival_name(arrival_kind k) noexcept;
[[nodiscard]] std::string_view policy_name(batching_policy p) noexcept;
[[nodiscard]] std::string_view prefix_cache_name(prefix_cache_mode m) noexcept;  // "off", "block", "radix"

// Every request field, in help order.
[[nodiscard]] const std::vector<request_field>& request_fields();
// The field whose pointer is `pointer` or a list element of it ("/batch_size/2"); nullptr: none.
[[nodiscard]] const request_field* find_request_field(std::string_view pointer);
// What a valid value is, as messages say it: "a positive integer (at most 2^40)".
[[nodiscard]] std::string expected_text(const request_field& f);
// The default as JSON text ("1", "\"bf16\"", "null" where derived), taken from the settings
// structs' own initialisers.
[[nodiscard]] std::string default_json(const request_field& f);
// The default for a help text: "1", "bf16", or the `derived` description.
[[nodiscard]] std::string default_text(const request_field& f);

// Range checks from the table (code config_range, the field's pointer, "expected <what>, but
// got <value>"): the C++ API, the JSON readers and the CLI share these messages.
void check_field(std::string_view pointer, double value);

// ---- Requests -------------------------------------------------------------------------
// The readers parse the text once. `model` is a registry name or a config.json object; `gpu`
// a name, a spec object, or null for none; with lists allowed (compare), model, gpu,
// precision, batch_size, sequence_length and num_generated_tokens may be arrays: the plan
// is their Cartesian product.
struct compare_request {
  std::deque<model_spec> inline_models;  // configs given inline (the plan points here)
  std::deque<hardware_spec> inline_gpus;
  compare_plan plan;
};
[[nodiscard]] compare_request read_compare_request(std::string_view json_text, bool allow_lists = true);

// An estimate request plus "serving": {prompt_tokens, output_tokens, concurrency, ...}.
struct serving_request {
  compare_request request;
  serving_settings serving;  // serving.base is the request's single point
  std::deque<model_spec> drafts;
};
[[nodiscard]] serving_request read_serving_request(std::string_view json_text);

// A serving simulation (simulator.hpp): an estimate request plus "simulation": {arrivals,
// num_requests, concurrency, request_rate, input_tokens, output_tokens, *_range, trace, seed,
// slo_ttft_s, slo_tpot_s, warmup_requests, and the scheduler: max_num_seqs,
// max_num_batched_tokens, chunked_prefill, policy, block_size, kv_blocks}. With "engine" its
// scheduler defaults (apply_engine) come first, then the request's explicit values. A list of
// concurrency (closed loop) or request_rate (Poisson) values is one simulation per value.
struct simulation_point {
  std::optional<std::int64_t> concurrency;  // closed loop: clients
  std::optional<double> request_rate;       // Poisson: requests/s
};
struct simulation_request {
  compare_request request;
  const model_spec* model = nullptr;
  const hardware_spec* gpu = nullptr;
  simulation_settings simulation;  // every point's settings but its arrivals value
  std::vector<simulation_point> points;
  std::deque<model_spec> drafts;  // an inline draft model (simulation.speculative.draft points here)
  // The benchmark client's conventions (null: none, the engine's own figures) and its term.
  const harness_profile* harness = nullptr;
  double client_overhead_s = 0;
  // The scheduler's origin: "engine <id> defaults" (with "; request overrides: ..."), or
  // "simulator defaults (vLLM-like)".
  std::string scheduler_source;
  // "disaggregation" (disaggregated.hpp): set when the request serves with separate prefill and
  // decode workers; run_disaggregated() then simulates the points.
  std::optional<disaggregation_settings> disaggregation;
  // The settings of point i (concurrency or request_rate set).
  [[nodiscard]] simulation_settings at(std::size_t i) const;
  // Simulates point i (simulate() with at(i)); on_step, when given, is called after every step.
  [[nodiscard]] simulation_result run(std::size_t i, const std::function<void(const step_record&)>& on_step = {}) const;
  // Point i disaggregated (simulate_disaggregated() with at(i) and *disaggregation).
  [[nodiscard]] disaggregated_result run_disaggregated(
      std::size_t i, const std::function<void(const step_record&)>& on_step = {}) const;
};
// The most points (concurrency or request_rate values) one request may list.
inline constexpr std::size_t max_simulation_points = 64;
[[nodiscard]] simulation_request read_simulation_request(std::string_view json_text);

// An estimate request plus "training_analysis": {recompute, tokens, lora_rank, qlora, ...}.
struct training_request {
  compare_request request;
  training_settings training;
};
[[nodiscard]] training_request read_training_request(std::string_view json_text);

// An estimate request (the measurement's settings) plus "measured":
// {decode_tokens_per_second, time_to_first_token_s} and "all_models".
struct calibration_request {
  compare_request request;
  measurement measured;
  bool all_models = false;
};
[[nodiscard]] calibration_request read_calibration_request(std::string_view json_text);

// A calibration store: {"entries": [{model, gpu, precision, compute_efficiency,
// mem_efficiency, source}]} (or the bare array). `where` names the source in errors.
[[nodiscard]] std::vector<calibration_entry> read_calibration(std::string_view json_text,
                                                              const std::string& where = "");

}  // namespace flopcast
