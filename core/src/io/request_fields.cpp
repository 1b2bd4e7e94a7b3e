// The request table: every request field declared once. To add a field, add one row here
// (where its value lives, its pointer, flag, bounds and help) and use the value in the
// formula; the readers, validate(), the CLI and the page pick it up from this table.
#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <type_traits>

#include "base/detail.hpp"
#include "base/json_reader.hpp"
#include "estimate/rules.hpp"
#include "flopcast/serving/engine.hpp"
#include "io/request_state.hpp"

namespace flopcast {
namespace detail {
namespace {

constexpr double k_inf = std::numeric_limits<double>::infinity();
constexpr double p2_30 = 1073741824.0;     // 2^30
constexpr double p2_40 = 1099511627776.0;  // 2^40
constexpr auto k_sim_requests = static_cast<double>(max_simulation_requests);
constexpr std::uint32_t k_all =
    command_estimate | command_compare | command_throughput | command_train | command_calibrate | command_simulate;
constexpr std::uint32_t k_est = command_estimate | command_compare;
constexpr std::uint32_t k_layout = command_estimate | command_compare | command_throughput | command_train;
// The fine-tuning method and its adapters: the training analysis, and a training estimate and plan.
constexpr std::uint32_t k_ft = command_train | k_est | command_plan;

// Stores and reads back the member a row names, for each member type the table uses.
void assign(std::int64_t& m, const json& v) {
  m = v.is_number_integer() ? v.get<std::int64_t>() : static_cast<std::int64_t>(v.get<double>());
}
void assign(std::optional<std::int64_t>& m, const json& v) { assign(m.emplace(), v); }
void assign(double& m, const json& v) { m = v.get<double>(); }
void assign(std::optional<double>& m, const json& v) { m = v.get<double>(); }
void assign(bool& m, const json& v) { m = v.get<bool>(); }
void assign(std::optional<precision>& m, const json& v) { m = parse_precision(v.get<std::string>()); }
void assign(optimizer& m, const json& v) { m = parse_optimizer(v.get<std::string>()); }
// An engine by id or alias; "none" (the plain roofline) is kept as written (compare_plan::at).
void assign(std::string& m, const json& v) {
  const std::string name = v.get<std::string>();
  m = name == "none" ? name : find_engine(name).id;
}
void assign(std::optional<recompute_policy>& m, const json& v) { m = parse_recompute_policy(v.get<std::string>()); }
void assign(std::optional<bool>& m, const json& v) { m = v.get<bool>(); }
void assign(std::uint64_t& m, const json& v) {
  m = v.is_number_integer() ? v.get<std::uint64_t>() : static_cast<std::uint64_t>(v.get<double>());
}
void assign(std::optional<length_range>& m, const json& v) {
  m = length_range{v.at(0).get<std::int64_t>(), v.at(1).get<std::int64_t>()};
}
void assign(std::optional<arrival_kind>& m, const json& v) {
  for (const arrival_kind k :
       {arrival_kind::batch, arrival_kind::closed_loop, arrival_kind::poisson, arrival_kind::trace})
    if (arrival_name(k) == v.get<std::string>()) m = k;
}
void assign(std::optional<batching_policy>& m, const json& v) {
  for (const batching_policy k : {batching_policy::mixed, batching_policy::prefill_first})
    if (policy_name(k) == v.get<std::string>()) m = k;
}
void assign(std::optional<speculative_method>& m, const json& v) {
  for (const speculative_method k :
       {speculative_method::off, speculative_method::draft_model, speculative_method::mtp, speculative_method::eagle3})
    if (to_string(k) == v.get<std::string>()) m = k;
}
// A trace that has passed check_value.
void assign(std::vector<trace_request>& m, const json& v) {
  m.clear();
  m.reserve(v.size());
  const auto id = [](const json& r, const char* key) {
    return r.contains(key) ? static_cast<std::int64_t>(r.at(key).get<double>()) : std::int64_t{-1};
  };
  for (const json& r : v)
    m.push_back({r.at("arrival_s").get<double>(), static_cast<std::int64_t>(r.at("input_tokens").get<double>()),
                 static_cast<std::int64_t>(r.at("output_tokens").get<double>()), id(r, "prefix_id"),
                 id(r, "session_id")});
}

// "precision": a format name, or an object of parts ({"default": ..., "experts": ...}).
void set_precision(request_state& s, const json& v) {
  if (!v.is_object()) {
    s.base.weight_precision = parse_precision(v.get<std::string>());
    return;
  }
  for (auto it = v.begin(); it != v.end(); ++it) {
    const precision p = parse_precision(it.value().get<std::string>(), "/precision/" + it.key());
    if (it.key() == "default")
      s.base.weight_precision = p;
    else
      s.base.component_precision[static_cast<std::size_t>(*component_named(it.key()))] = p;
  }
}
json get_precision(const request_state& s) {
  json parts = json::object();
  for (std::size_t i = 0; i < weight_component_count; ++i)
    if (const auto& p = s.base.component_precision[i])
      parts[std::string(to_string(static_cast<weight_component>(i)))] = to_string(*p);
  if (parts.empty()) return to_string(s.base.weight_precision);
  parts["default"] = to_string(s.base.weight_precision);
  return parts;
}

json value_of(std::int64_t v) { return v; }
json value_of(double v) { return v; }
json value_of(bool v) { return v; }
json value_of(precision v) { return to_string(v); }
json value_of(optimizer v) { return to_string(v); }
json value_of(const std::string& v) { return v.empty() ? json(nullptr) : json(v); }
template <class T>
json value_of(const std::optional<T>& v) {
  return v ? value_of(*v) : json(nullptr);
}
json value_of(const std::optional<recompute_policy>& v) { return v ? json(to_string(*v)) : json(nullptr); }
json value_of(std::uint64_t v) { return v; }
json value_of(const std::optional<length_range>& v) { return v ? json::array({v->min, v->max}) : json(nullptr); }
json value_of(const std::optional<arrival_kind>& v) { return v ? json(arrival_name(*v)) : json(nullptr); }
json value_of(const std::optional<batching_policy>& v) { return v ? json(policy_name(*v)) : json(nullptr); }
json value_of(const std::optional<speculative_method>& v) { return v ? json(to_string(*v)) : json(nullptr); }
json value_of(const std::vector<trace_request>& v) { return v.empty() ? json(nullptr) : json(v.size()); }

// The numeric value a bounds check reads (the getter's JSON number, without building one): a
// member that is not a number has none.
template <class T>
std::optional<double> number_of(const T& v) {
  if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>)
    return static_cast<double>(v);
  else
    return std::nullopt;
}
template <class T>
std::optional<double> number_of(const std::optional<T>& v) {
  return v ? number_of(*v) : std::nullopt;
}

#define FLOPCAST_MEMBER(member)                                        \
  [](request_state& s, const json& v) { assign(member, v); },          \
      [](const request_state& s) -> json { return value_of(member); }, \
      [](const request_state& s) -> std::optional<double> { return number_of(member); }

struct row {
  request_field f;
  void (*set)(request_state&, const json&);
  json (*get)(const request_state&);
  std::optional<double> (*number)(const request_state&);
};

// Fluent construction of a row; only this file builds them.
struct def {
  row r{};
  def(std::string_view key, field_type t) {
    r.f.key = key;
    r.f.type = t;
    r.f.min = -k_inf;
    r.f.max = k_inf;
    r.f.flag_scale = 1;
    r.f.commands = k_all;
  }
  def& part(std::string_view p) { return r.f.part = p, *this; }
  def& flag(std::string_view f, std::string_view s = {}) { return r.f.flag = f, r.f.short_flag = s, *this; }
  def& attr(std::string_view a) { return r.f.attribute = a, *this; }
  def& unit(std::string_view u) { return r.f.unit = u, *this; }
  def& range(double lo, double hi, bool lo_open = false) {
    return r.f.min = lo, r.f.max = hi, r.f.min_open = lo_open, *this;
  }
  def& list() { return r.f.listable = true, *this; }
  def& negated() { return r.f.negated_flag = true, *this; }
  def& scaled(double s, std::string_view u) { return r.f.flag_scale = s, r.f.flag_unit = u, *this; }
  def& derived(std::string_view d) { return r.f.derived = d, *this; }
  def& commands(std::uint32_t c) { return r.f.commands = c, *this; }
  def& help(std::string_view h) { return r.f.help = h, *this; }
  def& choices(std::string_view c) { return r.f.choices = c, *this; }
  def& access(void (*set)(request_state&, const json&), json (*get)(const request_state&),
              std::optional<double> (*number)(const request_state&) = nullptr) {
    return r.set = set, r.get = get, r.number = number, *this;
  }
};

using T = field_type;

// clang-format off
std::vector<row> make_rows() {
  std::vector<def> d = {
    def("model", T::model).attr("model").list()
        .help("Registry name or alias, or a config.json object (the CLI: a path to one)"),
    def("batch_size", T::integer).flag("--batch", "-b").attr("batch").unit("sequences").range(1, p2_40).list()
        .commands(k_est | command_train | command_calibrate).help("Batch size")
        .access(FLOPCAST_MEMBER(s.base.batch_size)),
    def("sequence_length", T::integer).flag("--seq-len", "-s").attr("seq").unit("tokens").range(1, p2_40).list()
        .commands(k_est | command_train | command_calibrate).help("Prompt / input length in tokens")
        .access(FLOPCAST_MEMBER(s.base.sequence_length)),
    def("num_generated_tokens", T::integer).flag("--gen-tokens", "-n").attr("gen").unit("tokens").range(0, p2_40).list()
        .commands(k_est | command_calibrate).help("Generated tokens")
        .access(FLOPCAST_MEMBER(s.base.num_generated_tokens)),
    def("precision", T::precision).flag("--precision", "-p").attr("precision").list()
        .derived("the checkpoint's formats (config.json's quantization_config, shown as details.config.checkpoint_formats), else bf16")
        .help("Number format of the weights: fp32, tf32, fp16, bf16, fp8, fp8_block, mxfp8, mxfp6, mxfp4, nvfp4 (fp4), "
              "int8/int4 (GPTQ/AWQ g128), nf4, a GGML type (q8_0, q4_k, ...) or a llama.cpp preset (q4_k_m, ...); "
              "per part: {\"default\": \"bf16\", \"experts\": \"mxfp4\"} (CLI: experts=mxfp4,attention=bf16). "
              "Narrow formats leave the embedding, the LM head and a vision tower in bf16")
        .access(set_precision, get_precision),
    def("kv_cache_precision", T::precision).flag("--kv-precision").attr("kv-precision")
        .commands(k_est | command_throughput | command_calibrate).derived("the weights' (fp8 for nvfp4, fp16 for weight-only and other sub-8-bit formats)")
        .help("KV-cache precision").access(FLOPCAST_MEMBER(s.base.kv_cache_precision)),
    def("gpu", T::gpu).flag("--gpu", "-g").attr("gpu").list()
        .help("GPU name or alias, a GPU object (the CLI: --gpu-file), or none"),
    def("engine", T::engine).flag("--engine").attr("engine").commands(k_layout)
        .derived("the device class's engine: vLLM on data-centre accelerators, llama.cpp on Apple silicon, "
                 "consumer and workstation cards, SoCs and CPUs (none: the plain roofline)")
        .help("Serving engine (vllm, sglang, tensorrt-llm, llama.cpp, mlx, transformers): its step costs and "
              "efficiencies fitted to published measurements, and ranges from their residuals")
        .access(FLOPCAST_MEMBER(s.base.engine)),
    def("training", T::boolean).flag("--training").attr("training").commands(k_est)
        .help("Report training memory and step time").access(FLOPCAST_MEMBER(s.base.training)),
    def("optimizer", T::optimizer).flag("--optimizer").attr("optimizer").commands(k_est | command_train)
        .help("adam, adamw, sgd (with momentum), none").access(FLOPCAST_MEMBER(s.base.optim)),
    def("gradient_checkpointing", T::boolean).flag("--no-checkpointing").negated().attr("checkpointing")
        .commands(k_est | command_train).help("Activation checkpointing in training (the flag turns it off)")
        .access(FLOPCAST_MEMBER(s.base.gradient_checkpointing)),
    def("causal", T::boolean).flag("--causal").attr("causal").commands(k_est | command_train | command_calibrate)
        .help("Count only the attention pairs a causal mask keeps").access(FLOPCAST_MEMBER(s.base.causal)),
    def("flash_attention", T::boolean).flag("--no-flash-attention").negated().attr("flash-attention")
        .commands(k_est | command_train).help("Activation estimate without the score matrix (the flag: with it)")
        .access(FLOPCAST_MEMBER(s.base.flash_attention)),
    def("compute_efficiency", T::number).flag("--compute-efficiency").attr("compute-efficiency").unit("1").range(0, 1, true)
        .commands(k_layout).derived("calibrated, else 0.5").help("Fraction of peak FLOP/s achieved")
        .access(FLOPCAST_MEMBER(s.base.compute_efficiency)),
    def("mem_efficiency", T::number).flag("--mem-efficiency").attr("mem-efficiency").unit("1").range(0, 1, true)
        .commands(k_layout).derived("calibrated, else 0.8").help("Fraction of peak memory bandwidth achieved")
        .access(FLOPCAST_MEMBER(s.base.mem_efficiency)),
    def("power_utilization", T::number).flag("--power-utilization").attr("power-utilization").unit("1").range(0, 1, true)
        .commands(k_est | command_train).help("Mean power as a fraction of TDP")
        .access(FLOPCAST_MEMBER(s.base.power_utilization)),
    def("carbon_intensity", T::number).flag("--carbon-intensity").attr("carbon-intensity").unit("g/kWh").range(0, 1e6)
        .commands(k_est | command_train).help("Grid carbon intensity, g CO2 per kWh")
        .access(FLOPCAST_MEMBER(s.base.carbon_intensity_g_per_kwh)),
    def("cost_per_hour", T::number).flag("--cost-per-hour").attr("cost-per-hour").unit("USD/h").range(0, 1e9)
        .commands(k_layout).derived("the GPU's").help("USD per GPU-hour")
        .access(FLOPCAST_MEMBER(s.base.cost_per_hour_usd)),
    def("gpu_memory_utilization", T::number).flag("--gpu-memory-utilization").attr("gpu-memory-utilization").unit("1")
        .range(0, 1, true).commands(k_layout).derived("0.9 for inference (vLLM's default), 1 for training")
        .help("Share of each GPU's usable memory the engine takes (vLLM's gpu_memory_utilization); the fit of "
              "weights, cache and activations is checked against it")
        .access(FLOPCAST_MEMBER(s.base.gpu_memory_utilization)),
    def("gpu_memory_reserve_bytes", T::number).flag("--gpu-memory-reserve").attr("gpu-memory-reserve").unit("bytes")
        .range(0, 1e15).commands(k_layout).help("Memory kept free on each GPU for the runtime (CUDA context, workspace)")
        .access(FLOPCAST_MEMBER(s.base.gpu_memory_reserve_bytes)),
    def("weight_bytes", T::number).flag("--weight-bytes").attr("weight-bytes").unit("bytes").range(0, 1e16, true)
        .commands(k_est).derived("parameters x bytes per weight")
        .help("Exact bytes of the stored weights (a checkpoint's tensors, from its header): the weights' memory and "
              "traffic, instead of parameters x bytes per weight")
        .access(FLOPCAST_MEMBER(s.base.weight_bytes)),
    def("layer_table", T::boolean).flag("--layer-table").attr("layer-table").commands(k_est)
        .help("Include the per-layer table, details.flops.layers (otherwise null: output size is independent of depth)")
        .access(FLOPCAST_MEMBER(s.base.layer_table)),
    def("operator_table", T::boolean).flag("--operators").attr("operators").commands(k_est)
        .help("Include the per-operator tables of the prefill and one decode step (FLOPs, bytes, arithmetic "
              "intensity, bound, roofline time), details.operators (otherwise null)")
        .access(FLOPCAST_MEMBER(s.base.operator_table)),
    def("calibration", T::calibration).commands(k_layout | command_calibrate)
        .help("A calibration store applied where efficiencies are not explicit (the CLI: --calibration FILE)"),
    def("parallelism", T::part).commands(k_layout).help("A multi-GPU layout"),
    def("tensor_parallel", T::integer).part("parallelism").flag("--tp").attr("tp").unit("GPUs").range(1, 65536)
        .commands(k_layout).help("Tensor-parallel ranks").access(FLOPCAST_MEMBER(s.base.parallel.tensor_parallel)),
    def("pipeline_parallel", T::integer).part("parallelism").flag("--pp").attr("pp").unit("GPUs").range(1, 65536)
        .commands(k_layout).help("Pipeline-parallel stages").access(FLOPCAST_MEMBER(s.base.parallel.pipeline_parallel)),
    def("data_parallel", T::integer).part("parallelism").flag("--dp").attr("dp").unit("GPUs").range(1, 65536)
        .commands(k_layout).help("Data-parallel replicas").access(FLOPCAST_MEMBER(s.base.parallel.data_parallel)),
    def("expert_parallel", T::integer).part("parallelism").flag("--ep").attr("ep").unit("GPUs").range(1, 65536)
        .commands(k_layout).help("Expert-parallel ranks (MoE)").access(FLOPCAST_MEMBER(s.base.parallel.expert_parallel)),
    def("attention_data_parallel", T::integer).part("parallelism").flag("--attention-dp").attr("attention-dp")
        .unit("ranks").range(1, 65536).commands(k_est | command_throughput)
        .help("Attention data-parallel ranks (MoE serving, as SGLang's --enable-dp-attention and TensorRT-LLM's "
              "enable_attention_dp): the tensor_parallel x expert_parallel GPUs form this many attention ranks, each "
              "with the attention and dense parts sharded by tensor_parallel and its own batch; the experts stay "
              "spread over expert_parallel. A divisor of expert_parallel; adds no GPUs (--tp 1 --ep 8 "
              "--attention-dp 8: 8 GPUs)")
        .access(FLOPCAST_MEMBER(s.base.parallel.attention_data_parallel)),
    def("expert_imbalance", T::number).part("parallelism").flag("--expert-imbalance").attr("expert-imbalance")
        .range(1, 65536).commands(k_est | command_throughput)
        .help("Routing imbalance with expert parallelism: the busiest rank's routed tokens over the mean (1 = uniform "
              "routing; at most expert_parallel). The busiest rank sets the step time")
        .access(FLOPCAST_MEMBER(s.base.parallel.expert_imbalance)),
    def("sequence_parallel", T::boolean).part("parallelism").flag("--sp").attr("sp").commands(k_layout)
        .help("Sequence parallelism (training activations)").access(FLOPCAST_MEMBER(s.base.parallel.sequence_parallel)),
    def("num_microbatches", T::integer).part("parallelism").flag("--microbatches").attr("microbatches").range(1, 65536)
        .commands(k_layout).help("Pipeline microbatches per training step")
        .access(FLOPCAST_MEMBER(s.base.parallel.num_microbatches)),
    def("interconnect_bandwidth_bytes_per_s", T::number).part("parallelism").flag("--interconnect").attr("interconnect")
        .unit("bytes/s").range(0, 1e15, true).scaled(1e9, "GB/s").commands(k_layout)
        .derived("half the GPU's listed total").help("GPU-to-GPU bandwidth per direction")
        .access(FLOPCAST_MEMBER(s.base.parallel.interconnect_bandwidth_bytes_per_s)),
    def("link_latency_s", T::number).part("parallelism").flag("--link-latency").attr("link-latency").unit("s").range(0, 1)
        .scaled(1e-6, "us").commands(k_layout).help("Latency per ring step or send")
        .access(FLOPCAST_MEMBER(s.base.parallel.link_latency_s)),
    def("report", T::part).commands(command_report).help("What a report (flopcast report, reportData) adds to the estimate"),
    def("serving", T::boolean).part("report").flag("--serving").commands(command_report)
        .help("Add the serving curve: a closed-loop simulation over concurrency (TTFT, TPOT against tokens/s)")
        .access(FLOPCAST_MEMBER(s.report_serving)),
    def("serving", T::part).commands(command_throughput).help("Serving settings"),
    def("prompt_tokens", T::integer).part("serving").flag("--prompt").unit("tokens").range(1, p2_30)
        .commands(command_throughput).help("Prompt tokens per request").access(FLOPCAST_MEMBER(s.serving.prompt_tokens)),
    def("output_tokens", T::integer).part("serving").flag("--output").unit("tokens").range(1, p2_30)
        .commands(command_throughput).help("Output tokens per request").access(FLOPCAST_MEMBER(s.serving.output_tokens)),
    def("concurrency", T::integer).part("serving").flag("--concurrency").unit("sequences").range(1, p2_30)
        .commands(command_throughput).derived("the most the KV budget holds").help("Concurrent sequences")
        .access(FLOPCAST_MEMBER(s.serving.concurrency)),
    def("paged", T::boolean).part("serving").flag("--no-paged").negated().commands(command_throughput)
        .help("Paged KV cache (the flag: contiguous)").access(FLOPCAST_MEMBER(s.serving.paged)),
    def("block_size", T::integer).part("serving").flag("--block-size").unit("tokens").range(1, 65536)
        .commands(command_throughput).help("Paged KV block size").access(FLOPCAST_MEMBER(s.serving.block_size)),
    def("chunked_prefill_tokens", T::integer).part("serving").flag("--chunked-prefill").unit("tokens").range(0, p2_30)
        .commands(command_throughput).help("Prefill tokens per step (chunked prefill), 0 = off")
        .access(FLOPCAST_MEMBER(s.serving.chunked_prefill_tokens)),
    def("draft", T::model).part("serving").flag("--draft").commands(command_throughput)
        .help("Draft model for speculative decoding"),
    def("speculative_tokens", T::integer).part("serving").flag("--speculative-tokens").unit("tokens").range(1, 64)
        .commands(command_throughput).help("Draft tokens per verification")
        .access(FLOPCAST_MEMBER(s.serving.speculative_tokens)),
    def("acceptance_rate", T::number).part("serving").flag("--acceptance").unit("1").range(0, 1)
        .commands(command_throughput).help("Acceptance rate of a draft token")
        .access(FLOPCAST_MEMBER(s.serving.acceptance_rate)),
    def("simulation", T::part).commands(command_simulate | command_plan).help("Serving simulation settings (flopcast serve)"),
    def("arrivals", T::choice).part("simulation").flag("--arrivals").choices("batch,closed_loop,poisson,trace")
        .commands(command_simulate).derived("trace with a trace, closed_loop with concurrency, poisson with request_rate, else batch")
        .help("How requests arrive: batch (all at t = 0), closed_loop (each of `concurrency` clients sends its next "
              "request when its previous finishes), poisson (open loop at request_rate), trace")
        .access(FLOPCAST_MEMBER(s.simulation.arrivals)),
    def("num_requests", T::integer).part("simulation").flag("--num-requests").unit("requests").range(1, k_sim_requests)
        .commands(command_simulate).help("Requests simulated per point (a trace: its length)")
        .access(FLOPCAST_MEMBER(s.simulation.num_requests)),
    def("concurrency", T::integer).part("simulation").flag("--concurrency").unit("clients").range(1, k_sim_requests).list()
        .commands(command_simulate).derived("none (closed_loop needs it)")
        .help("Closed-loop clients; a list is one simulation per value (the latency-throughput curve)")
        .access(FLOPCAST_MEMBER(s.simulation.concurrency)),
    def("request_rate", T::number).part("simulation").flag("--request-rate").unit("requests/s").range(0, 1e9, true).list()
        .commands(command_simulate).derived("none (poisson needs it)")
        .help("Poisson arrival rate; a list is one simulation per value")
        .access(FLOPCAST_MEMBER(s.simulation.request_rate)),
    def("input_tokens", T::integer).part("simulation").flag("--isl").unit("tokens").range(1, 1e7)
        .commands(command_simulate).help("Input (prompt) tokens per request")
        .access(FLOPCAST_MEMBER(s.simulation.input_tokens)),
    def("output_tokens", T::integer).part("simulation").flag("--osl").unit("tokens").range(1, 1e7)
        .commands(command_simulate).help("Output tokens per request")
        .access(FLOPCAST_MEMBER(s.simulation.output_tokens)),
    def("input_tokens_range", T::token_range).part("simulation").flag("--isl-range").unit("tokens").range(1, 1e7)
        .commands(command_simulate | command_plan).derived("input_tokens, fixed")
        .help("Input tokens uniform on [min, max] (the CLI: MIN:MAX); instead of input_tokens")
        .access(FLOPCAST_MEMBER(s.simulation.input_tokens_range)),
    def("output_tokens_range", T::token_range).part("simulation").flag("--osl-range").unit("tokens").range(1, 1e7)
        .commands(command_simulate | command_plan).derived("output_tokens, fixed")
        .help("Output tokens uniform on [min, max] (the CLI: MIN:MAX); instead of output_tokens")
        .access(FLOPCAST_MEMBER(s.simulation.output_tokens_range)),
    def("range_ratio", T::number).part("simulation").flag("--range-ratio").unit("1").range(0, 0.999999)
        .commands(command_simulate).derived("none: fixed lengths")
        .help("Lengths uniform on [L(1 - r), L(1 + r)] around input_tokens and output_tokens (vLLM bench's "
              "--random-range-ratio)").access(FLOPCAST_MEMBER(s.simulation.range_ratio)),
    def("dataset", T::choice).part("simulation").flag("--dataset").choices("sharegpt,alpaca")
        .commands(command_simulate | command_plan).derived("none: input_tokens and output_tokens")
        .help("Lengths drawn from a dataset's published statistics (data/workloads.json: a log-normal per side "
              "with the published mean; sharegpt as vLLM's benchmark filters it)")
        .access([](request_state& s, const json& v) { s.simulation.workload.dataset = v.get<std::string>(); },
                [](const request_state& s) -> json {
                  return s.simulation.workload.dataset.empty() ? json(nullptr) : json(s.simulation.workload.dataset);
                }),
    def("prefix_tokens", T::integer).part("simulation").flag("--prefix-tokens").unit("tokens").range(0, 1e7)
        .commands(command_simulate | command_plan).help("A shared system prompt: the first tokens of every prompt (within input_tokens)")
        .access(FLOPCAST_MEMBER(s.simulation.workload.prefix_tokens)),
    def("prompt_pool", T::integer).part("simulation").flag("--prompt-pool").unit("prompts").range(0, k_sim_requests)
        .commands(command_simulate | command_plan)
        .help("Distinct prompts the requests cycle through, as benchmark harnesses reuse theirs (0: every prompt unique)")
        .access(FLOPCAST_MEMBER(s.simulation.workload.prompt_pool)),
    def("turns", T::integer).part("simulation").flag("--turns").unit("requests").range(1, 10000)
        .commands(command_simulate | command_plan)
        .help("Turns per session: each turn's prompt is the conversation so far plus input_tokens new tokens; the next "
              "turn is sent think_time_s after the previous one finishes")
        .access(FLOPCAST_MEMBER(s.simulation.workload.turns)),
    def("think_time_s", T::number).part("simulation").flag("--think-time").unit("s").range(0, 1e9)
        .commands(command_simulate | command_plan).help("Sessions: time between a turn's last token and the next turn")
        .access(FLOPCAST_MEMBER(s.simulation.workload.think_time_s)),
    def("trace", T::trace).part("simulation").flag("--trace").commands(command_simulate)
        .help("The requests to replay: [{arrival_s, input_tokens, output_tokens}, ...] in arrival order, optionally "
              "with prefix_id and session_id (the CLI: a CSV file with the header arrival_s,input_tokens,output_tokens"
              "[,prefix_id][,session_id])")
        .access(FLOPCAST_MEMBER(s.simulation.trace)),
    def("seed", T::integer).part("simulation").flag("--seed").range(0, 9007199254740992.0).commands(command_simulate | command_plan)
        .help("Random seed of arrival times and uniform lengths (the same seed, the same result)")
        .access(FLOPCAST_MEMBER(s.simulation.seed)),
    def("slo_ttft_s", T::number).part("simulation").flag("--slo-ttft").unit("s").range(0, 1e6, true)
        .commands(command_simulate).derived("none").help("Goodput: time-to-first-token limit")
        .access(FLOPCAST_MEMBER(s.simulation.slo_ttft_s)),
    def("slo_tpot_s", T::number).part("simulation").flag("--slo-tpot").unit("s").range(0, 1e6, true)
        .commands(command_simulate).derived("none").help("Goodput: time-per-output-token limit")
        .access(FLOPCAST_MEMBER(s.simulation.slo_tpot_s)),
    def("warmup_requests", T::integer).part("simulation").flag("--warmup").unit("requests").range(0, k_sim_requests)
        .commands(command_simulate).help("First requests simulated but left out of the statistics")
        .access(FLOPCAST_MEMBER(s.simulation.warmup_requests)),
    def("max_num_seqs", T::integer).part("simulation").flag("--max-num-seqs").unit("sequences").range(1, k_sim_requests)
        .commands(command_simulate).derived("the engine's, else 256 (vLLM's)")
        .help("Most sequences running at once (vLLM max_num_seqs)").access(FLOPCAST_MEMBER(s.simulation.max_num_seqs)),
    def("max_num_batched_tokens", T::integer).part("simulation").flag("--max-num-batched-tokens").unit("tokens")
        .range(1, 1e8).commands(command_simulate).derived("the engine's, else 8192")
        .help("Tokens per engine step (vLLM max_num_batched_tokens; with chunked prefill the chunk budget)")
        .access(FLOPCAST_MEMBER(s.simulation.max_num_batched_tokens)),
    def("chunked_prefill", T::boolean).part("simulation").flag("--no-chunked-prefill").negated()
        .commands(command_simulate).derived("the engine's, else on")
        .help("Split prompts into chunks that fill the step's token budget (the flag turns it off)")
        .access(FLOPCAST_MEMBER(s.simulation.chunked_prefill)),
    def("policy", T::choice).part("simulation").flag("--policy").choices("mixed,prefill_first")
        .commands(command_simulate).derived("the engine's, else mixed")
        .help("mixed: decodes first, prefill chunks fill the budget (vLLM V1); prefill_first: a step with prefills "
              "runs no decodes (vLLM V0, SGLang)").access(FLOPCAST_MEMBER(s.simulation.policy)),
    def("block_size", T::integer).part("simulation").flag("--block-size").unit("tokens").range(1, 1048576)
        .commands(command_simulate).derived("the engine's, else 16").help("Paged KV block size")
        .access(FLOPCAST_MEMBER(s.simulation.block_size)),
    def("kv_blocks", T::integer).part("simulation").flag("--kv-blocks").unit("blocks").range(1, p2_40)
        .commands(command_simulate).derived("what the GPU memory left after weights and activations holds")
        .help("KV cache blocks").access(FLOPCAST_MEMBER(s.simulation.kv_blocks)),
    def("prefix_caching", T::boolean).part("simulation").flag("--prefix-caching").commands(command_simulate)
        .derived("the engine's (vLLM, SGLang, TensorRT-LLM: on), else off")
        .help("Prefix caching: a prompt's cached blocks skip prefill (vLLM, TensorRT-LLM: hashed blocks; SGLang: radix "
              "tree); the CLI also takes --no-prefix-caching").access(FLOPCAST_MEMBER(s.simulation.prefix_caching)),
    def("disaggregation", T::part).commands(command_simulate)
        .help("Disaggregated serving (flopcast serve --disagg): prefill and decode workers, each its own layout, "
              "and the KV transfer between them"),
    def("enabled", T::boolean).part("disaggregation").flag("--disagg").commands(command_simulate)
        .derived("true when the part is given")
        .help("Serve with separate prefill and decode workers (Dynamo, SGLang PD, vLLM disaggregated prefill, "
              "TensorRT-LLM disagg)").access(FLOPCAST_MEMBER(s.disaggregation.enabled)),
    def("prefill_workers", T::integer).part("disaggregation").flag("--prefill-workers").unit("workers")
        .range(1, 65536).commands(command_simulate).help("Prefill workers (replicas)")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.prefill_workers)),
    def("decode_workers", T::integer).part("disaggregation").flag("--decode-workers").unit("workers")
        .range(1, 65536).commands(command_simulate).help("Decode workers (replicas)")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.decode_workers)),
    def("prefill_tensor_parallel", T::integer).part("disaggregation").flag("--prefill-tp").unit("GPUs")
        .range(1, 65536).commands(command_simulate).derived("the layout's tensor_parallel")
        .help("Tensor-parallel GPUs of each prefill worker")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.prefill_tensor_parallel)),
    def("decode_tensor_parallel", T::integer).part("disaggregation").flag("--decode-tp").unit("GPUs")
        .range(1, 65536).commands(command_simulate).derived("the layout's tensor_parallel")
        .help("Tensor-parallel GPUs of each decode worker")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.decode_tensor_parallel)),
    def("prefill_expert_parallel", T::integer).part("disaggregation").flag("--prefill-ep").unit("GPUs")
        .range(1, 65536).commands(command_simulate).derived("the layout's expert_parallel")
        .help("Expert-parallel ranks of each prefill worker (a worker is tensor_parallel x expert_parallel GPUs)")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.prefill_expert_parallel)),
    def("decode_expert_parallel", T::integer).part("disaggregation").flag("--decode-ep").unit("GPUs")
        .range(1, 65536).commands(command_simulate).derived("the layout's expert_parallel")
        .help("Expert-parallel ranks of each decode worker (a worker is tensor_parallel x expert_parallel GPUs)")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.decode_expert_parallel)),
    def("prefill_attention_data_parallel", T::integer).part("disaggregation").flag("--prefill-attention-dp")
        .unit("ranks").range(1, 65536).commands(command_simulate).derived("the layout's attention_data_parallel")
        .help("Attention data-parallel ranks of each prefill worker (a divisor of its expert_parallel)")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.prefill_attention_data_parallel)),
    def("decode_attention_data_parallel", T::integer).part("disaggregation").flag("--decode-attention-dp")
        .unit("ranks").range(1, 65536).commands(command_simulate).derived("the layout's attention_data_parallel")
        .help("Attention data-parallel ranks of each decode worker (a divisor of its expert_parallel)")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.decode_attention_data_parallel)),
    def("prefill_max_num_seqs", T::integer).part("disaggregation").flag("--prefill-max-num-seqs").unit("sequences")
        .range(1, k_sim_requests).commands(command_simulate).derived("the simulation's max_num_seqs")
        .help("max_num_seqs of a prefill worker")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.prefill_max_num_seqs)),
    def("prefill_max_num_batched_tokens", T::integer).part("disaggregation").flag("--prefill-max-num-batched-tokens")
        .unit("tokens").range(1, 1e8).commands(command_simulate).derived("the simulation's max_num_batched_tokens")
        .help("max_num_batched_tokens of a prefill worker")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.prefill_max_num_batched_tokens)),
    def("decode_max_num_seqs", T::integer).part("disaggregation").flag("--decode-max-num-seqs").unit("sequences")
        .range(1, k_sim_requests).commands(command_simulate).derived("the simulation's max_num_seqs")
        .help("max_num_seqs of a decode worker")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.decode_max_num_seqs)),
    def("decode_max_num_batched_tokens", T::integer).part("disaggregation").flag("--decode-max-num-batched-tokens")
        .unit("tokens").range(1, 1e8).commands(command_simulate).derived("the simulation's max_num_batched_tokens")
        .help("max_num_batched_tokens of a decode worker")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.decode_max_num_batched_tokens)),
    def("transfer_bandwidth_bytes_per_s", T::number).part("disaggregation").flag("--transfer-bandwidth")
        .unit("bytes/s").range(0, 1e15, true).scaled(1e9, "GB/s").commands(command_simulate)
        .derived("per GPU: half the GPU's listed interconnect when the deployment fits its NVLink domain, else "
                 "50 GB/s (scale-out); times min(prefill TP, decode TP)")
        .help("KV transfer bandwidth from a prefill worker to a decode worker, in all")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.transfer_bandwidth_bytes_per_s)),
    def("transfer_latency_s", T::number).part("disaggregation").flag("--transfer-latency").unit("s").range(0, 1)
        .scaled(1e-6, "us").commands(command_simulate).derived("the layout's link_latency_s")
        .help("Latency of one request's KV transfer")
        .access(FLOPCAST_MEMBER(s.disaggregation.layout.transfer_latency_s)),
    def("speculative", T::choice).part("simulation").flag("--speculative").choices("off,draft_model,mtp,eagle3")
        .commands(command_simulate).derived("draft_model with a draft, else off")
        .help("Speculative decoding: a draft model, the model's MTP heads (DeepSeek-V3/R1, GLM-4.5, Qwen3.5) or an "
              "EAGLE-3 head proposes tokens the target verifies in one pass")
        .access(FLOPCAST_MEMBER(s.simulation.speculative)),
    def("draft", T::model).part("simulation").flag("--draft").commands(command_simulate)
        .help("Draft model for speculative decoding (speculative draft_model)"),
    def("speculative_tokens", T::integer).part("simulation").flag("--speculative-tokens").unit("tokens").range(1, 64)
        .commands(command_simulate).derived("the method's: 4 draft_model, 1 mtp, 3 eagle3 (ESTIMATED)")
        .help("Draft tokens verified per step (num_speculative_tokens)")
        .access(FLOPCAST_MEMBER(s.simulation.speculative_tokens)),
    def("acceptance_rate", T::number).part("simulation").flag("--acceptance").unit("1").range(0, 1).list()
        .commands(command_simulate).derived("the method's: 0.7 draft_model and eagle3, 0.85 mtp (ESTIMATED)")
        .help("Acceptance of a draft token given the earlier ones were accepted: one rate, or a list, one per draft "
              "position (the last repeats)")
        .access(FLOPCAST_MEMBER(s.simulation.acceptance_rate)),
    def("harness", T::choice).part("simulation").flag("--harness")
        .choices("none,vllm,sglang,aiperf,trtllm-bench,inference-perf").commands(command_simulate)
        .derived("none: the engine's own figures, no client term")
        .help("The benchmark client whose conventions the figures follow (data/harnesses.json): its ITL "
              "definition and its client term on TTFT and end-to-end latency")
        .access([](request_state& s, const json& v) { s.simulation.harness = v.get<std::string>(); },
                [](const request_state& s) -> json { return s.simulation.harness; }),
    def("client_overhead_s", T::number).part("simulation").flag("--client-overhead").unit("s").range(0, 10)
        .scaled(1e-3, "ms").commands(command_simulate).derived("the harness's (ESTIMATED 20 ms), 0 without one")
        .help("The client's own time on every request (send, tokenisation, streaming, detokenisation), added to "
              "TTFT and end-to-end latency")
        .access(FLOPCAST_MEMBER(s.simulation.client_overhead_s)),
    def("plan", T::part).commands(command_plan).help("Layout search settings (flopcast plan)"),
    def("max_gpus", T::integer).part("plan").flag("--max-gpus").unit("GPUs").range(1, 1024).commands(command_plan)
        .help("The most GPUs a layout may use").access(FLOPCAST_MEMBER(s.plan.max_gpus)),
    def("concurrency", T::integer).part("plan").flag("--concurrency").unit("sequences").range(1, p2_30)
        .commands(command_plan).derived("none: the batch runs at once")
        .help("Concurrent sequences to serve (the serving closed form) instead of one batch")
        .access(FLOPCAST_MEMBER(s.plan.concurrency)),
    def("slo_ttft_s", T::number).part("plan").flag("--slo-ttft").unit("s").range(0, 86400, true)
        .commands(command_plan).derived("none")
        .help("The SLO search: time to first token at slo_percentile must be at most this")
        .access(FLOPCAST_MEMBER(s.plan.slo.ttft_s)),
    def("slo_tpot_s", T::number).part("plan").flag("--slo-tpot").unit("s").range(0, 3600, true)
        .commands(command_plan).derived("none")
        .help("The SLO search: time per output token at slo_percentile must be at most this")
        .access(FLOPCAST_MEMBER(s.plan.slo.tpot_s)),
    def("slo_e2e_s", T::number).part("plan").flag("--slo-e2e").unit("s").range(0, 86400, true)
        .commands(command_plan).derived("none")
        .help("The SLO search: end-to-end latency at slo_percentile must be at most this")
        .access(FLOPCAST_MEMBER(s.plan.slo.e2e_s)),
    def("slo_percentile", T::integer).part("plan").flag("--slo-percentile").range(50, 99).commands(command_plan)
        .help("The percentile the SLOs apply to: 50, 90 or 99").access(FLOPCAST_MEMBER(s.plan.slo.percentile)),
    def("request_rate", T::number).part("plan").flag("--rate").unit("requests/s").range(0, 1e6, true)
        .commands(command_plan).derived("none: the concurrency, else each configuration at the most load it serves")
        .help("The SLO search's traffic: Poisson arrivals at this rate for the whole deployment")
        .access(FLOPCAST_MEMBER(s.plan.request_rate)),
    def("optimize", T::choice).part("plan").flag("--optimize").choices("goodput,cost,gpus").commands(command_plan)
        .derived("goodput")
        .help("What the SLO search ranks by: output tokens/s per GPU within the SLOs (goodput), USD per million "
              "output tokens (cost), or fewest GPUs (gpus)")
        .access([](request_state& s, const json& v) { s.plan.optimize = parse_search_objective(v.get<std::string>()); },
                [](const request_state& s) -> json {
                  return s.plan.optimize ? json(to_string(*s.plan.optimize)) : json(nullptr);
                }),
    def("gpus", T::integer).part("plan").flag("--gpus").unit("GPUs").range(1, 1024).commands(command_plan)
        .help("The SLO search: the most GPUs a configuration may use").access(FLOPCAST_MEMBER(s.plan.search_gpus)),
    def("budget_usd_per_hour", T::number).part("plan").flag("--budget").unit("USD/h").range(0, 1e9, true)
        .commands(command_plan).derived("none")
        .help("The SLO search: the most a configuration's GPUs may cost per hour")
        .access(FLOPCAST_MEMBER(s.plan.budget_usd_per_hour)),
    def("training_analysis", T::part).commands(command_train | k_est | command_plan)
        .help("Training-step analysis options (the estimate and the plan take its fine-tuning method)"),
    def("recompute", T::recompute).part("training_analysis").flag("--recompute").commands(command_train)
        .derived("full with checkpointing, else none").help("Activation recompute: none, selective, full")
        .access(FLOPCAST_MEMBER(s.training.recompute)),
    def("virtual_pipeline", T::integer).part("training_analysis").flag("--virtual-pipeline").unit("chunks")
        .range(1, 1024).commands(command_train)
        .help("Model chunks per pipeline GPU: Megatron-Core's interleaved 1F1B schedule "
              "(--num-layers-per-virtual-pipeline-stage); the bubble is (pp - 1) / (chunks x microbatches) of the "
              "ideal step")
        .access(FLOPCAST_MEMBER(s.training.virtual_pipeline)),
    def("context_parallel", T::integer).part("training_analysis").flag("--cp").unit("GPUs").range(1, 65536)
        .commands(command_train)
        .help("Context-parallel ranks (Megatron-Core --context-parallel-size): they split every sequence of a "
              "replica (ring attention), divide its activations and multiply the layout's GPUs; with a multi-GPU "
              "layout (tensor, pipeline, data or expert parallel above 1)")
        .access(FLOPCAST_MEMBER(s.training.context_parallel)),
    def("gradient_clipping", T::boolean).part("training_analysis").flag("--no-clip").negated()
        .commands(command_train).help("Gradient clipping (the flag turns it off)")
        .access(FLOPCAST_MEMBER(s.training.gradient_clipping)),
    def("fused_optimizer", T::boolean).part("training_analysis").flag("--fused-optimizer").commands(command_train)
        .help("The optimizer runs as one fused kernel").access(FLOPCAST_MEMBER(s.training.fused_optimizer)),
    def("tokens", T::tokens).part("training_analysis").flag("--tokens").unit("tokens").range(0, 1e18, true)
        .commands(command_train).derived("20 per parameter (Chinchilla)")
        .help("Token budget D, a number or with a K/M/B/T suffix (15T)")
        .access([](request_state& s, const json& v) { s.training.tokens = parse_tokens(v); },
                [](const request_state& s) { return value_of(s.training.tokens); }),
    def("mfu", T::number).part("training_analysis").flag("--mfu").unit("1").range(0, 1, true)
        .commands(command_train).derived("the compute efficiency")
        .help("Model FLOPs utilisation for the budget's time").access(FLOPCAST_MEMBER(s.training.mfu)),
    def("gpus", T::integer).part("training_analysis").flag("--gpus").unit("GPUs").range(1, 16777216)
        .commands(command_train).help("Data-parallel GPUs for the budget and ZeRO sizing")
        .access(FLOPCAST_MEMBER(s.training.gpus)),
    // The method of a training estimate: what the headline memory, fit and step time are for.
    def("fine_tuning", T::choice).part("training_analysis").flag("--fine-tuning").choices("full,lora,qlora")
        .commands(k_ft).derived("qlora with qlora, lora with lora_rank > 0, else full")
        .help("Fine-tuning method: full (every weight trains), lora (adapters of rank lora_rank on a frozen base) "
              "or qlora (the same on an int4 NF4 base)")
        .access([](request_state& s, const json& v) { s.fine_tuning = v.get<std::string>(); },
                [](const request_state& s) -> json { return value_of(s.fine_tuning); }),
    // The default rank r = 8 is Hugging Face PEFT's LoraConfig default
    // (https://huggingface.co/docs/peft/package_reference/lora: "r (int) - Lora attention dimension
    // (the rank)", default 8); QLoRA's 64 is the QLoRA paper's (Dettmers et al. 2023, arXiv:2305.14314).
    def("lora_rank", T::integer).part("training_analysis").flag("--lora-rank").range(0, 1048576)
        .commands(k_ft).derived("64 with qlora (the QLoRA paper)")
        .help("LoRA rank r: 8 by default (Hugging Face PEFT's LoraConfig), 64 with qlora; 0: full fine-tuning")
        .access(FLOPCAST_MEMBER(s.lora_rank)),
    def("lora_targets", T::lora_targets).part("training_analysis").flag("--lora-targets").commands(k_ft)
        .help("all, attention, mlp, or a list of q,k,v,o,gate,up,down")
        .access([](request_state& s, const json& v) { s.training.lora.targets = parse_lora_targets(v.get<std::string>()); },
                [](const request_state& s) -> json { return lora_targets_name(s.training.lora.targets); }),
    def("qlora", T::boolean).part("training_analysis").flag("--qlora").commands(k_ft)
        .help("QLoRA: frozen base in int4 (NF4), rank 64 unless lora_rank").access(FLOPCAST_MEMBER(s.qlora)),
    def("base_precision", T::precision).part("training_analysis").flag("--base-precision").commands(k_ft)
        .derived("the training precision (int4 with qlora)").help("Frozen LoRA base: int8, int4, or a 16/32-bit format")
        .access(FLOPCAST_MEMBER(s.training.lora.base_precision)),
    def("measured", T::part).commands(command_calibrate).help("The measured figures"),
    def("decode_tokens_per_second", T::number).part("measured").flag("--decode-tps").unit("tokens/s")
        .range(0, 1e12, true).commands(command_calibrate).help("Measured decode tokens/s (whole batch)")
        .access(FLOPCAST_MEMBER(s.measured.decode_tokens_per_second)),
    def("time_to_first_token_s", T::number).part("measured").flag("--ttft").unit("s").range(0, 1e6, true)
        .commands(command_calibrate).help("Measured time to first token (prefill latency)")
        .access(FLOPCAST_MEMBER(s.measured.time_to_first_token_s)),
    def("all_models", T::boolean).flag("--all-models").commands(command_calibrate)
        .help("Store for every model on this GPU and precision (model \"*\")").access(FLOPCAST_MEMBER(s.all_models)),
  };
  std::vector<row> out;
  for (auto& x : d) {
    // A calibration request is an estimate request (the measurement's settings) plus "measured".
    if (x.r.f.commands & command_estimate) x.r.f.commands |= command_calibrate;
    // A simulation runs on the serving layout: the top-level and "parallelism" fields throughput takes.
    if ((x.r.f.commands & command_throughput) && x.r.f.part != "serving" && x.r.f.key != "serving")
      x.r.f.commands |= command_simulate;
    // A plan estimates inference (or training) at the layouts it chooses: the estimate's fields but
    // the ranks, with the layout's link figures.
    static constexpr std::string_view not_planned[] = {"layer_table", "power_utilization", "carbon_intensity"};
    const bool link = x.r.f.key == "parallelism" || x.r.f.key == "interconnect_bandwidth_bytes_per_s" ||
                      x.r.f.key == "link_latency_s";
    if ((x.r.f.commands & command_estimate) && (x.r.f.part.empty() || link) &&
        std::find(std::begin(not_planned), std::end(not_planned), x.r.f.key) == std::end(not_planned))
      x.r.f.commands |= command_plan;
    out.push_back(x.r);
  }
  return out;
}
// clang-format on
#undef FLOPCAST_MEMBER

struct table {
  std::vector<row> rows;
  std::vector<request_field> fields;
  std::deque<std::string> pointers;  // storage for the fields' pointer views
  std::vector<field_access> accesses;
};

const table& the_table() {
  static const table t = [] {
    table out;
    out.rows = make_rows();
    for (row& r : out.rows) {
      out.pointers.push_back((r.f.part.empty() ? "" : "/" + std::string(r.f.part)) + "/" + std::string(r.f.key));
      r.f.pointer = out.pointers.back();
      out.fields.push_back(r.f);
    }
    for (std::size_t i = 0; i < out.rows.size(); ++i)
      out.accesses.push_back({&out.fields[i], out.rows[i].set, out.rows[i].get, out.rows[i].number});
    return out;
  }();
  return t;
}

}  // namespace

const std::vector<field_access>& field_accesses() { return the_table().accesses; }

std::optional<weight_component> component_named(std::string_view key) {
  for (std::size_t i = 0; i < weight_component_count; ++i)
    if (to_string(static_cast<weight_component>(i)) == key) return static_cast<weight_component>(i);
  return std::nullopt;
}

// A token count: a number, or a string with a K, M, B (or G) or T suffix ("15T", "2e12").
std::optional<double> parse_tokens(const json& v) {
  if (v.is_number()) return v.get<double>();
  if (!v.is_string()) return std::nullopt;
  std::string text = v.get<std::string>();
  if (text.empty()) return std::nullopt;
  double scale = 1;
  switch (text.back()) {
    case 'k':
    case 'K':
      scale = 1e3;
      break;
    case 'm':
    case 'M':
      scale = 1e6;
      break;
    case 'b':
    case 'B':
    case 'g':
    case 'G':
      scale = 1e9;
      break;
    case 't':
    case 'T':
      scale = 1e12;
      break;
    default:
      break;
  }
  if (scale != 1) text.pop_back();
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || !std::isfinite(x)) return std::nullopt;
  return x * scale;
}

}  // namespace detail

const std::vector<request_field>& request_fields() { return detail::the_table().fields; }

}  // namespace flopcast
