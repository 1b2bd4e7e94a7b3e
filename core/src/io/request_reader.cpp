// Reads requests (request.hpp) and calibration stores. Which fields a request may hold, their
// types, bounds and messages come from the request table (request_fields.cpp); this file
// resolves the values that are not scalars (models, GPUs, calibration stores) and the lists
// of a comparison.
#include <algorithm>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/io/plan_json.hpp"
#include "flopcast/io/request_json.hpp"
#include "flopcast/plan/plan.hpp"
#include "flopcast/serving/engine.hpp"
#include "flopcast/serving/harness.hpp"
#include "flopcast/serving/work_bound.hpp"
#include "hardware/hardware_reader.hpp"
#include "io/request_state.hpp"
#include "model/hf_reader.hpp"

namespace flopcast {
namespace detail {
namespace {

std::string part_base(std::string_view part) { return part.empty() ? "" : "/" + std::string(part); }

std::vector<std::string_view> known_keys(std::string_view part, std::uint32_t command) {
  std::vector<std::string_view> out;
  for (const auto& f : request_fields())
    if (f.part == part && (f.commands & command)) out.push_back(f.key);
  return out;
}

// A part's object ({} when absent); anything else is a type error at its pointer.
const json& part_object(const json& j, std::string_view part) {
  static const json empty = json::object();
  if (part.empty()) return j;
  const auto it = j.find(std::string(part));
  if (it == j.end() || it->is_null()) return empty;
  if (!it->is_object()) {
    std::string keys;
    for (auto k : known_keys(part, ~0u)) keys += (keys.empty() ? "" : ", ") + std::string(k);
    throw error(error_code::config_type, part_base(part),
                "expected an object {" + keys + "}, but got " + describe(*it));
  }
  return *it;
}

// Reads one part's scalar fields into `state`: unknown keys are errors, each value is type-
// and range-checked by the table. List-valued fields (when lists are allowed) are the
// caller's; so are models, GPUs and calibration stores.
void read_scalars(const json& obj, std::string_view part, std::uint32_t command, request_state& state,
                  bool allow_lists) {
  const reader r(obj, part_base(part));
  r.only(known_keys(part, command), part.empty() ? "request field" : "field");
  for (const auto& f : request_fields()) {
    if (f.part != part || !(f.commands & command) || !r.has(f.key)) continue;
    const field_access* a = access(f.pointer);
    if (!a) continue;
    const json& v = r.at(f.key);
    if (f.listable && v.is_array()) {
      if (allow_lists) continue;
      throw error(error_code::invalid_argument, std::string(f.pointer),
                  "expected one value, but got a list " + describe(v) + " (a comparison takes lists)");
    }
    check_value(f, v, std::string(f.pointer));
    a->set(state, v);
  }
}

// Calls read(value, pointer) for a scalar, or for each element of an array when lists are allowed.
template <class F>
void each(const json& j, const request_field& f, bool allow_lists, F&& read) {
  const json& v = j.at(std::string(f.key));
  const std::string ptr(f.pointer);
  if (v.is_array() && allow_lists && f.listable) {
    if (v.empty()) throw error(error_code::invalid_argument, ptr, "expected a non-empty list");
    for (std::size_t i = 0; i < v.size(); ++i) read(v[i], ptr + "/" + std::to_string(i));
  } else {
    read(v, ptr);
  }
}

const request_field& field(std::string_view pointer) { return *find_request_field(pointer); }

// A registry name or an inline config; errors of a name lookup take the name's pointer.
const model_spec& resolve_model(const json& v, const std::string& ptr, std::deque<model_spec>& inline_models) {
  if (v.is_string()) {
    try {
      return find_model(v.get<std::string>()).spec;
    } catch (const error& e) {
      throw error(e.code(), ptr, e.message());
    }
  }
  if (v.is_object()) {
    inline_models.push_back(nested(ptr, [&] { return read_hf_config(v); }));
    return inline_models.back();
  }
  throw error(error_code::config_type, ptr, "expected a model name or a config.json object, but got " + describe(v));
}

const hardware_spec* resolve_gpu(const json& v, const std::string& ptr, std::deque<hardware_spec>& inline_gpus) {
  if (v.is_null()) return nullptr;
  if (v.is_string()) {
    if (lower(v.get<std::string>()) == "none") return nullptr;
    try {
      return &find_gpu(v.get<std::string>());
    } catch (const error& e) {
      throw error(e.code(), ptr, e.message());
    }
  }
  if (v.is_object()) {
    inline_gpus.push_back(nested(ptr, [&] { return read_hardware(v); }));
    return &inline_gpus.back();
  }
  throw error(error_code::config_type, ptr, "expected a GPU name, a GPU object or null, but got " + describe(v));
}

std::vector<calibration_entry> read_calibration_value(const json& j, const std::string& where) {
  const json* list = &j;
  std::string base;
  if (j.is_object()) {
    if (!j.contains("entries"))
      throw error(error_code::config_missing, "/entries",
                  "required field is missing: expected an array of calibration entries");
    list = &j.at("entries");
    base = "/entries";
  }
  if (!list->is_array())
    throw error(error_code::config_type, base, "expected an array of calibration entries, but got " + describe(*list));
  std::vector<calibration_entry> out;
  for (std::size_t i = 0; i < list->size(); ++i) {
    const json& item = (*list)[i];
    const std::string ptr = base + "/" + std::to_string(i);
    if (!item.is_object())
      throw error(error_code::config_type, ptr, "expected a calibration entry object, but got " + describe(item));
    const reader r(item, ptr);
    calibration_entry e;
    e.model = r.string_or("model", "*");
    e.gpu = r.string_or("gpu", "");
    if (e.gpu.empty())
      throw error(error_code::config_missing, ptr + "/gpu", "required field is missing: expected a GPU name");
    e.precision = r.string_or("precision", "*");
    if (e.precision != "*") e.precision = std::string(to_string(parse_precision(e.precision, ptr + "/precision")));
    for (const char* key : {"compute_efficiency", "mem_efficiency"}) {
      if (!r.has(key)) continue;
      const double v = r.number_or(key, 0, -1e300, 1e300);
      if (!(v > 0 && v <= 1))
        throw error(error_code::config_range, r.ptr(key),
                    "expected a number in (0, 1], but got " + format_number(v) + (where.empty() ? "" : " in " + where));
      (std::string(key) == "compute_efficiency" ? e.compute_efficiency : e.mem_efficiency) = v;
    }
    e.source = r.string_or("source", "");
    out.push_back(std::move(e));
  }
  return out;
}

// The request's one point, which needs a GPU (`needs`: what for, in the message).
// A simulation part's dataset gives the requests' lengths: no lengths beside it.
void refuse_lengths_with_dataset(const reader& r) {
  if (!r.has("dataset")) return;
  for (const char* key : {"input_tokens", "output_tokens", "input_tokens_range", "output_tokens_range", "range_ratio"})
    if (r.has(key))
      throw error(error_code::invalid_argument, r.ptr(key),
                  "the dataset gives the lengths: expected no " + std::string(key) + " with it");
}

compare_plan::point point_with_gpu(const compare_request& q, const std::string& needs) {
  const compare_plan::point p = q.plan.at(0);
  if (p.gpu == nullptr) throw error(error_code::invalid_argument, "/gpu", "expected a GPU: " + needs);
  return p;
}

// "training_analysis"'s fine-tuning method and adapters (when the command takes them), into
// state.base.lora and state.training.lora: the method (fine_tuning; qlora; a lora_rank > 0 alone
// means lora), the rank (lora_rank, default the table's; 64 with qlora unless given) and, for
// qlora, the int4 base unless base_precision says int8. An estimate or plan takes them with
// training only.
void read_fine_tuning(const json& j, std::uint32_t command, request_state& state) {
  if (!(command & field("/training_analysis").commands)) return;
  const json& part = part_object(j, "training_analysis");
  read_scalars(part, "training_analysis", command, state, false);
  const reader r(part, "/training_analysis");
  lora_settings& l = state.training.lora;
  const bool given_rank = r.has("lora_rank");
  std::string method = state.fine_tuning;
  if (method.empty()) method = state.qlora ? "qlora" : given_rank && state.lora_rank > 0 ? "lora" : "full";
  if (state.qlora && method != "qlora")
    throw error(error_code::invalid_argument, "/training_analysis/qlora",
                "qlora is fine_tuning \"qlora\": expected no qlora with fine_tuning \"" + method + "\"");
  if (method == "full") {
    if (r.has("fine_tuning") && given_rank && state.lora_rank > 0)
      throw error(error_code::invalid_argument, "/training_analysis/lora_rank",
                  "a LoRA rank applies to LoRA: expected fine_tuning \"lora\" or \"qlora\" with lora_rank " +
                      std::to_string(state.lora_rank));
    l.rank = 0;
    if (r.has("lora_targets"))
      throw error(error_code::invalid_argument, "/training_analysis/lora_targets",
                  "LoRA targets apply to LoRA only: expected lora_rank > 0 (or qlora) with them");
  } else {
    l.rank = given_rank || method == "lora" ? state.lora_rank : 64;  // 64: the QLoRA paper's rank
    if (l.rank == 0)
      throw error(error_code::invalid_argument, "/training_analysis/lora_rank",
                  method + " trains LoRA adapters: expected a rank > 0, but got 0");
  }
  if (method == "qlora") {
    if (l.base_precision && !is_weight_only(*l.base_precision))
      throw error(error_code::invalid_argument, "/training_analysis/base_precision",
                  "qlora quantises the frozen base: expected int8 or int4, but got \"" +
                      std::string(to_string(*l.base_precision)) + "\"");
    if (!l.base_precision) l.base_precision = precision::int4;
  }
  if (command != command_train && !state.base.training && !part.empty())
    throw error(error_code::invalid_argument, "/training_analysis/" + part.begin().key(),
                "the fine-tuning method applies to training: expected training true with it");
  state.base.lora = l;
}

}  // namespace

compare_request read_request(const json& j, bool allow_lists, std::uint32_t command, request_state& state) {
  if (!j.is_object())
    throw error(error_code::config_type, "", "expected the request to be a JSON object, but got " + describe(j));
  compare_request q;
  compare_plan& plan = q.plan;
  read_scalars(j, "", command, state, allow_lists);
  if (j.contains("parallelism") && (command & field("/parallelism").commands))
    read_scalars(part_object(j, "parallelism"), "parallelism", command, state, false);

  const reader r(j);
  if (!r.has("model"))
    throw error(error_code::config_missing, "/model",
                "required field is missing: expected a model name or a config.json object");
  each(j, field("/model"), allow_lists,
       [&](const json& v, const std::string& ptr) { plan.models.push_back(&resolve_model(v, ptr, q.inline_models)); });
  if (state.base.weight_bytes && plan.models.size() > 1)
    throw error(error_code::invalid_argument, "/weight_bytes",
                "weight_bytes is one checkpoint's exact size: expected one model, but got " +
                    std::to_string(plan.models.size()));
  // The swept dimensions: a list, or the one value read_scalars stored.
  const auto sweep = [&](std::string_view pointer, auto&& push) {
    const request_field& f = field(pointer);
    if (!r.has(f.key) || !j.at(std::string(f.key)).is_array() || !allow_lists) return push(state);
    each(j, f, allow_lists, [&](const json& v, const std::string& ptr) {
      check_value(f, v, ptr);
      request_state one;
      access(f.pointer)->set(one, v);
      push(one);
    });
  };
  sweep("/batch_size", [&](const request_state& s) { plan.batch_sizes.push_back(s.base.batch_size); });
  sweep("/sequence_length", [&](const request_state& s) { plan.sequence_lengths.push_back(s.base.sequence_length); });
  sweep("/num_generated_tokens",
        [&](const request_state& s) { plan.generated_tokens.push_back(s.base.num_generated_tokens); });
  sweep("/precision", [&](const request_state& s) { plan.precisions.push_back(s.base.weight_precision); });
  if (r.has("compute_efficiency")) state.base.compute_efficiency_origin = efficiency_origin::explicit_value;
  if (r.has("mem_efficiency")) state.base.mem_efficiency_origin = efficiency_origin::explicit_value;

  if (!j.contains("gpu")) {
    plan.gpus.push_back(&find_gpu(default_gpu_name));
  } else {
    each(j, field("/gpu"), allow_lists,
         [&](const json& v, const std::string& ptr) { plan.gpus.push_back(resolve_gpu(v, ptr, q.inline_gpus)); });
  }
  if (r.has("calibration")) {
    plan.calibrations = nested("/calibration", [&] { return read_calibration_value(j.at("calibration"), ""); });
    const json& c = j.at("calibration");
    plan.calibration_store = c.is_object() && c.contains("origin") && c.at("origin").is_string()
                                 ? c.at("origin").get<std::string>()
                                 : "request";
  }

  read_fine_tuning(j, command, state);
  plan.precision_given = r.has("precision");
  plan.base = state.base;
  settings& s = plan.base;
  s.batch_size = plan.batch_sizes.front();
  s.sequence_length = plan.sequence_lengths.front();
  s.num_generated_tokens = plan.generated_tokens.front();
  s.weight_precision = plan.precisions.front();
  validate(s);
  return q;
}

}  // namespace detail

compare_request read_compare_request(const nlohmann::json& j, bool allow_lists) {
  detail::request_state state;
  return detail::read_request(j, allow_lists, allow_lists ? command_compare : command_estimate, state);
}
compare_request read_compare_request(std::string_view json_text, bool allow_lists) {
  return read_compare_request(detail::parse_object(json_text, "the request"), allow_lists);
}
serving_request read_serving_request(std::string_view json_text) {
  return read_serving_request(detail::parse_object(json_text, "the request"));
}
simulation_request read_simulation_request(const nlohmann::json& j);
simulation_request read_simulation_request(std::string_view json_text) {
  return read_simulation_request(detail::parse_object(json_text, "the request"));
}
training_request read_training_request(std::string_view json_text) {
  return read_training_request(detail::parse_object(json_text, "the request"));
}
calibration_request read_calibration_request(std::string_view json_text) {
  return read_calibration_request(detail::parse_object(json_text, "the request"));
}

serving_request read_serving_request(const nlohmann::json& j) {
  using namespace detail;
  request_state state;
  serving_request q;
  q.request = read_request(j, false, command_throughput, state);
  if (q.request.plan.gpus.front() == nullptr)
    throw error(error_code::invalid_argument, "/gpu", "expected a GPU: serving throughput needs one");
  const json& part = part_object(j, "serving");
  read_scalars(part, "serving", command_throughput, state, false);
  serving_settings& s = q.serving;
  s = state.serving;
  s.base = q.request.plan.at(0).config;
  if (reader(part).has("draft")) {
    const json& d = part.at("draft");
    if (d.is_string() || d.is_object()) {
      s.draft = &resolve_model(d, "/serving/draft", q.drafts);
    } else {
      throw error(error_code::config_type, "/serving/draft",
                  "expected a model name or a config.json object, but got " + describe(d));
    }
  }
  return q;
}

plan_request read_plan_request(std::string_view json_text) {
  using namespace detail;
  json j = parse_object(json_text, "the request");
  request_state state;
  plan_request q;
  // Several GPUs ("gpu": a list) are compared by the SLO search: the first is the plan's, the
  // others are read here.
  std::vector<json> listed;
  if (const auto it = j.find("gpu"); it != j.end() && it->is_array()) {
    constexpr std::size_t most = 16;
    if (it->empty() || it->size() > most)
      throw error(error_code::invalid_argument, "/gpu",
                  "expected 1 to " + std::to_string(most) + " GPUs to compare, but got " + std::to_string(it->size()));
    listed.assign(it->begin(), it->end());
    j["gpu"] = listed.front();
  }
  q.request = read_request(j, false, command_plan, state);
  const compare_plan::point p = point_with_gpu(q.request, "a plan lays the model out on one kind of GPU");
  q.model = p.model;
  q.gpu = p.gpu;
  q.gpus.push_back(q.gpu);
  for (std::size_t i = 1; i < listed.size(); ++i) {
    const hardware_spec* g = resolve_gpu(listed[i], "/gpu/" + std::to_string(i), q.request.inline_gpus);
    if (g == nullptr)
      throw error(error_code::invalid_argument, "/gpu/" + std::to_string(i), "expected a GPU, but got null");
    for (const hardware_spec* h : q.gpus)
      if (h->name == g->name)
        throw error(error_code::invalid_argument, "/gpu/" + std::to_string(i),
                    "expected distinct GPUs to compare, but " + g->name + " is listed twice");
    q.gpus.push_back(g);
  }
  read_scalars(part_object(j, "plan"), "plan", command_plan, state, false);
  // The SLO search's workload: the simulation part's fields a plan takes (request_fields.cpp).
  read_scalars(part_object(j, "simulation"), "simulation", command_plan, state, false);
  q.plan = state.plan;
  q.plan.base = p.config;
  q.plan.input_tokens_range = state.simulation.input_tokens_range;
  q.plan.output_tokens_range = state.simulation.output_tokens_range;
  q.plan.workload = state.simulation.workload;
  q.plan.seed = state.simulation.seed;
  if (q.gpus.size() > 1 && !q.plan.searches())
    throw error(error_code::invalid_argument, "/gpu",
                "a layout plan is for one kind of GPU: expected one, but got " + std::to_string(q.gpus.size()) +
                    " (the SLO search compares several: give an SLO, a request rate or an objective)");
  refuse_lengths_with_dataset(reader(part_object(j, "simulation"), "/simulation"));
  // The SLO search tries the engine the request names, else every one that runs on the device.
  if (const auto it = j.find("engine"); it != j.end() && it->is_string() && !p.config.engine.empty())
    q.engines.push_back(p.config.engine);
  return q;
}

simulation_settings simulation_request::at(std::size_t i) const {
  simulation_settings s = simulation;
  const simulation_point& p = points.at(i);
  if (p.concurrency) s.clients = *p.concurrency;
  if (p.request_rate) s.rate_per_s = *p.request_rate;
  return s;
}

simulation_result simulation_request::run(std::size_t i, const std::function<void(const step_record&)>& on_step) const {
  if (!on_step) return simulate(*model, at(i), *gpu);
  simulation_settings s = at(i);
  s.on_step = on_step;
  return simulate(*model, s, *gpu);
}

disaggregated_result simulation_request::run_disaggregated(
    std::size_t i, const std::function<void(const step_record&)>& on_step) const {
  simulation_settings s = at(i);
  s.on_step = on_step;
  return simulate_disaggregated(*model, s, disaggregation.value_or(disaggregation_settings{}), *gpu);
}

static_assert(max_json_text_bytes == detail::k_max_text_bytes, "request_json.hpp states the JSON reader's limit");

namespace {

// "speculative", "draft", "speculative_tokens", "acceptance_rate" (one rate or one per position).
void read_speculative(const nlohmann::json& part, const detail::reader& r,
                      const detail::request_state::simulation_part& in, simulation_request& q) {
  using namespace detail;
  speculative_settings& sp = q.simulation.speculative;
  if (r.has("draft")) sp.draft = &resolve_model(part.at("draft"), "/simulation/draft", q.drafts);
  sp.method = in.speculative.value_or(sp.draft ? speculative_method::draft_model : speculative_method::off);
  if (sp.draft && sp.method != speculative_method::draft_model)
    throw error(error_code::invalid_argument, "/simulation/draft",
                "a draft model drafts for speculative \"draft_model\": expected no draft with speculative \"" +
                    std::string(to_string(sp.method)) + "\"");
  sp.tokens = in.speculative_tokens.value_or(0);
  if (r.has("acceptance_rate"))
    each(part, field("/simulation/acceptance_rate"), true, [&](const json& x, const std::string& ptr) {
      check_value(field("/simulation/acceptance_rate"), x, ptr);
      sp.acceptance.push_back(x.get<double>());
    });
  if (sp.method == speculative_method::off)
    for (const char* key : {"speculative_tokens", "acceptance_rate"})
      if (r.has(key))
        throw error(
            error_code::invalid_argument, r.ptr(key),
            "expected speculative decoding on (speculative draft_model, mtp or eagle3) with " + std::string(key));
  sp = resolve_speculative(sp);
}

}  // namespace

simulation_request read_simulation_request(const nlohmann::json& j) {
  using namespace detail;
  request_state state;
  simulation_request q;
  q.request = read_request(j, false, command_simulate, state);
  const compare_plan::point p = point_with_gpu(q.request, "the serving simulation needs one");
  q.model = p.model;
  q.gpu = p.gpu;
  const json& part = part_object(j, "simulation");
  read_scalars(part, "simulation", command_simulate, state, true);
  const reader r(part, "/simulation");
  const auto& in = state.simulation;

  // The swept values: concurrency (closed loop) or request_rate (Poisson), one value or a list.
  std::vector<simulation_point> clients, rates;
  const auto sweep = [&](std::string_view pointer, std::vector<simulation_point>& out, auto&& put) {
    const request_field& f = field(pointer);
    if (!r.has(f.key)) return;
    const json& v = part.at(std::string(f.key));
    if (v.is_array() && v.size() > max_simulation_points)
      throw error(
          error_code::limit, std::string(f.pointer),
          "expected at most " + std::to_string(max_simulation_points) + " values, but got " + std::to_string(v.size()));
    each(part, f, true, [&](const json& x, const std::string& ptr) {
      check_value(f, x, ptr);
      request_state one;
      access(f.pointer)->set(one, x);
      out.push_back(put(one.simulation));
    });
  };
  sweep("/simulation/concurrency", clients, [](const request_state::simulation_part& x) {
    return simulation_point{x.concurrency, std::nullopt};
  });
  sweep("/simulation/request_rate", rates, [](const request_state::simulation_part& x) {
    return simulation_point{std::nullopt, x.request_rate};
  });

  simulation_settings& s = q.simulation;
  s.base = p.config;
  s.max_samples = 200;
  if (!s.base.engine.empty()) {
    const engine_profile& e = find_engine(s.base.engine);
    apply_engine(e, *p.gpu, s);
    q.scheduler_source = "engine " + e.id + " defaults";
  } else {
    q.scheduler_source = "simulator defaults (vLLM-like)";
  }
  std::string overrides;
  const auto over = [&](const auto& value, auto& member, const char* key) {
    if (!value) return;
    member = *value;
    overrides += (overrides.empty() ? "" : ", ") + std::string(key);
  };
  over(in.max_num_seqs, s.max_num_seqs, "max_num_seqs");
  over(in.max_num_batched_tokens, s.max_num_batched_tokens, "max_num_batched_tokens");
  over(in.chunked_prefill, s.chunked_prefill, "chunked_prefill");
  over(in.policy, s.policy, "policy");
  over(in.block_size, s.block_size, "block_size");
  if (in.prefix_caching) {
    // On: the engine's kind of cache (a radix tree for SGLang), hashed blocks otherwise.
    s.prefix_cache = !*in.prefix_caching                        ? prefix_cache_mode::off
                     : s.prefix_cache != prefix_cache_mode::off ? s.prefix_cache
                                                                : prefix_cache_mode::block;
    overrides += (overrides.empty() ? "" : ", ") + std::string("prefix_caching");
  }
  if (in.kv_blocks) {
    s.kv_blocks = *in.kv_blocks;
    overrides += (overrides.empty() ? "" : ", ") + std::string("kv_blocks");
  }
  if (!overrides.empty()) q.scheduler_source += "; from the request: " + overrides;

  const bool has_trace = r.has("trace");
  s.arrivals = in.arrivals.value_or(has_trace          ? arrival_kind::trace
                                    : !clients.empty() ? arrival_kind::closed_loop
                                    : !rates.empty()   ? arrival_kind::poisson
                                                       : arrival_kind::batch);
  const std::string arrivals = "\"" + std::string(arrival_name(s.arrivals)) + "\"";
  if (!clients.empty() && s.arrivals != arrival_kind::closed_loop)
    throw error(
        error_code::invalid_argument, "/simulation/concurrency",
        "concurrency is the number of closed-loop clients: expected arrivals \"closed_loop\" with it, but got " +
            arrivals);
  if (!rates.empty() && s.arrivals != arrival_kind::poisson)
    throw error(
        error_code::invalid_argument, "/simulation/request_rate",
        "request_rate is the rate of Poisson arrivals: expected arrivals \"poisson\" with it, but got " + arrivals);
  if (has_trace && s.arrivals != arrival_kind::trace)
    throw error(error_code::invalid_argument, "/simulation/trace",
                "a trace replays its own arrivals: expected arrivals \"trace\" with it, but got " + arrivals);
  if (s.arrivals == arrival_kind::closed_loop && clients.empty())
    throw error(error_code::config_missing, "/simulation/concurrency",
                "required field is missing: closed_loop arrivals need the number of clients (or a list of them)");
  if (s.arrivals == arrival_kind::poisson && rates.empty())
    throw error(error_code::config_missing, "/simulation/request_rate",
                "required field is missing: poisson arrivals need a request rate in requests/s (or a list of them)");
  if (s.arrivals == arrival_kind::trace && !has_trace)
    throw error(error_code::config_missing, "/simulation/trace",
                "required field is missing: trace arrivals need the trace's requests");
  if (has_trace)
    for (const char* key :
         {"num_requests", "input_tokens", "output_tokens", "input_tokens_range", "output_tokens_range"})
      if (r.has(key))
        throw error(
            error_code::invalid_argument, r.ptr(key),
            "a trace gives every request's lengths and their number: expected no " + std::string(key) + " with it");
  for (const char* key : {"input_tokens", "output_tokens"})
    if (r.has(key) && r.has(std::string(key) + "_range"))
      throw error(
          error_code::invalid_argument, r.ptr(std::string(key) + "_range"),
          "expected " + std::string(key) + " (a fixed length) or " + key + "_range (uniform lengths), not both");

  refuse_lengths_with_dataset(r);
  if (r.has("range_ratio"))
    for (const char* key : {"input_tokens_range", "output_tokens_range"})
      if (r.has(key))
        throw error(error_code::invalid_argument, r.ptr("range_ratio"),
                    "expected " + std::string(key) +
                        " or range_ratio (a spread around input_tokens and "
                        "output_tokens), not both");
  if (has_trace && r.has("range_ratio"))
    throw error(error_code::invalid_argument, r.ptr("range_ratio"),
                "a trace gives every request's lengths: expected no range_ratio with it");

  s.num_requests = in.num_requests;
  s.input_tokens = in.input_tokens_range.value_or(length_range{in.input_tokens, in.input_tokens});
  s.output_tokens = in.output_tokens_range.value_or(length_range{in.output_tokens, in.output_tokens});
  if (in.range_ratio) {
    // vLLM's RandomDataset: uniform on [int(L (1 - r)), int(L (1 + r))] (at least 1 token).
    const auto spread = [&](std::int64_t len) {
      const double x = static_cast<double>(len);
      return length_range{std::max<std::int64_t>(1, static_cast<std::int64_t>(x * (1 - *in.range_ratio))),
                          static_cast<std::int64_t>(x * (1 + *in.range_ratio))};
    };
    s.input_tokens = spread(in.input_tokens);
    s.output_tokens = spread(in.output_tokens);
  }
  s.workload = in.workload;
  s.trace = in.trace;
  s.seed = in.seed;
  s.slo_ttft_s = in.slo_ttft_s;
  s.slo_tpot_s = in.slo_tpot_s;
  s.warmup_requests = in.warmup_requests;
  read_speculative(part, r, in, q);
  // The harness's conventions and client term (harness.hpp); none: the engine's own figures.
  if (in.harness != "none") {
    q.harness = &find_harness(in.harness);
    q.client_overhead_s = in.client_overhead_s.value_or(q.harness->client_overhead_s);
  } else if (in.client_overhead_s) {
    throw error(error_code::invalid_argument, "/simulation/client_overhead_s",
                "the client term belongs to a harness: expected a harness (vllm, sglang, aiperf, trtllm-bench, "
                "inference-perf) with client_overhead_s");
  }
  q.points = s.arrivals == arrival_kind::closed_loop ? clients
             : s.arrivals == arrival_kind::poisson   ? rates
                                                     : std::vector<simulation_point>{simulation_point{}};
  validate(*q.model, q.at(0));
  // Disaggregated: the part given (and not "enabled": false).
  const json& disagg = part_object(j, "disaggregation");
  read_scalars(disagg, "disaggregation", command_simulate, state, false);
  if (j.contains("disaggregation") && !j.at("disaggregation").is_null() && state.disaggregation.enabled)
    q.disaggregation = state.disaggregation.layout;
  // Every run the request asks for, bounded before any runs (work_bound.hpp).
  check_simulation_work(q.at(0), q.points.size(), q.disaggregation ? &*q.disaggregation : nullptr);
  return q;
}

training_request read_training_request(const nlohmann::json& j) {
  using namespace detail;
  request_state state;
  training_request q;
  q.request = read_request(j, false, command_train, state);  // with "training_analysis" (read_fine_tuning)
  training_settings& t = q.training;
  t = state.training;
  t.base = q.request.plan.at(0).config;
  t.base.training = true;
  return q;
}

calibration_request read_calibration_request(const nlohmann::json& j) {
  using namespace detail;
  request_state state;
  calibration_request q;
  q.request = read_request(j, false, command_calibrate, state);
  q.request.plan.use_default_engine = false;  // calibrate fits the plain roofline unless an engine is named
  if (q.request.plan.gpus.front() == nullptr)
    throw error(error_code::invalid_argument, "/gpu", "expected the GPU the measurement ran on");
  const json& part = part_object(j, "measured");
  if (part.empty())
    throw error(error_code::config_missing, "/measured",
                "expected {decode_tokens_per_second, time_to_first_token_s} with at least one measured figure");
  read_scalars(part, "measured", command_calibrate, state, false);
  q.measured = state.measured;
  q.all_models = state.all_models;
  return q;
}

std::vector<calibration_entry> read_calibration(std::string_view json_text, const std::string& where) {
  const std::string what = where.empty() ? std::string("the calibration store") : "the calibration store " + where;
  return detail::read_calibration_value(detail::parse_json(json_text, what.c_str()), where);
}

}  // namespace flopcast
