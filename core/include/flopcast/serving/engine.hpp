#pragma once
// Serving-engine profiles (data/engines/*.json), compiled into the library: each engine's
// scheduler and KV-cache defaults as its own documentation or argument parser states them, every
// value with its source, and the efficiency section tools/fit_engines.cpp fits to the validation
// table (data/measurements/, its fit part): step costs, efficiencies per device family and the
// residual bands that set the ranges. No constant here is tuned by hand.
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/estimate/estimate.hpp"
#include "flopcast/hardware/hardware.hpp"
#include "flopcast/serving/simulator.hpp"

namespace flopcast {

// How an engine batches requests: continuous (in-flight: requests join and leave every step) or
// static (one batch runs to its longest sequence).
enum class engine_batching { continuous, static_batch };
// How the KV cache is laid out: paged (fixed-size blocks), contiguous (one buffer per sequence or
// slot, allocated up front or grown in steps) or dynamic (grown by concatenation per step).
enum class engine_kv_cache { paged, contiguous, dynamic };

[[nodiscard]] std::string_view to_string(engine_batching b) noexcept;
[[nodiscard]] std::string_view to_string(engine_kv_cache k) noexcept;

// The physical envelope (issue 24): the bounds the engine fit (tools/fit_engines.cpp) searches
// within, and the multiple of the speed of light (performance::speed_of_light_*: every FLOP at the
// peak, every byte at the bandwidth, no fixed cost) no figure may exceed beyond the engine's own
// fixed step costs. Within these bounds a memory-bound figure is at most 1 / (0.2 x 0.5) = 10x its
// speed of light; compute efficiency is at least 0.1 (calculon-ai's A100 matrix-efficiency table
// reaches 0.1 only for near-empty GEMMs, shared/modeling-notes.md); and the GEMM curve reaches half
// its efficiency by 128 tokens, the M-tile of the common cuBLAS/CUTLASS Hopper and Ampere kernels
// (a GEMM of fewer rows still costs one tile). A sequence costs each step at most 100 us of fixed
// work (input preparation, sampling, output): about twice the per-request (4 us) and
// per-output-token (46 us) overheads BLIS (inference-sim/inference-sim) fitted, PR #448
// (shared/modeling-notes.md). tests/cpp/test_envelope.cpp sweeps every bundled model, device
// class, engine, batch and format and fails when a figure leaves the envelope.
struct engine_fit_bound {
  double lo, hi;
};
inline constexpr engine_fit_bound engine_fit_compute_efficiency{0.1, 1.0};
inline constexpr engine_fit_bound engine_fit_mem_efficiency{0.2, 1.0};
inline constexpr engine_fit_bound engine_fit_kv_read_efficiency{0.5, 1.0};
inline constexpr engine_fit_bound engine_fit_gemm_half_tokens{1.0, 128.0};
inline constexpr engine_fit_bound engine_fit_per_step_s{1e-6, 3e-2};
inline constexpr engine_fit_bound engine_fit_per_layer_s{1e-8, 1e-3};
inline constexpr engine_fit_bound engine_fit_per_sequence_s{1e-9, 1e-4};
inline constexpr double engine_envelope_slowdown = 10.0;

// Where a default is stated: a URL (a doc page or a source file at a commit), and, for a source
// file, its path in the repository, the commit (40 hex, when pinned) and the line as written.
struct engine_source {
  std::string url;
  std::string path;
  std::string commit;
  std::string quote;
};

// One default. kind null: the engine computes it at start-up (the note says from what).
struct engine_default {
  enum class kind { number, boolean, text, null };
  std::string key;
  kind type = kind::null;
  double number = 0;
  bool boolean = false;
  std::string text;
  engine_source source;
  std::string note;
};

// Achieved fractions of peak on one device family (vendor and memory type), fitted.
struct engine_family_fit {
  std::string family;  // "nvidia-hbm", "apple-lpddr", ..., or "all"
  double compute_efficiency = 0.5, mem_efficiency = 0.8;
  std::int64_t rows = 0;  // fit rows on this family
};

// Devices an engine runs on (data/engines/*.json "runs_on"): a vendor ("*": any) and the device
// kinds of that vendor; optionally the lowest NVIDIA compute capability and the AMD LLVM targets
// the engine's docs support. A device that does not state its compute capability or gfx target
// (a custom --gpu-file) is judged by vendor and kind alone.
struct engine_device_class {
  std::string vendor;
  std::vector<device_kind> kinds;
  double min_compute_capability = 0;  // 0 = no minimum
  std::vector<std::string> gfx;       // empty = any target
};

// How to start the engine's server (data/engines/*.json "launch"): the program, and each setting's
// flag as the engine's docs or argument parser spell it, with the line it is read from; settings
// only a config file takes (TensorRT-LLM's --extra_llm_api_options YAML), and those with no flag.
struct launch_flag {
  std::string setting;   // flopcast's name: tensor_parallel, max_num_seqs, kv_cache_dtype, ...
  std::string flag;      // as documented: "--tensor-parallel-size"
  std::string value;     // int, float, string, json, bool_switch, bool_negatable, or enum:a|b|c
  std::string off_flag;  // bool_negatable: the flag that turns it off
  engine_source source;
  std::string note;
};
struct launch_yaml_option {
  std::string setting, key, value;  // key: dotted path in the YAML file
  engine_source source;
  std::string note;
};
struct engine_launch {
  std::string program;     // "vllm serve", "python3 -m sglang.launch_server", ...
  std::string model_flag;  // empty: the model is the program's first positional argument
  std::string version, note;
  engine_source source;
  std::vector<launch_flag> flags;
  std::vector<launch_yaml_option> yaml;
  std::vector<std::pair<std::string, std::string>> not_expressible;  // setting, why
  [[nodiscard]] const launch_flag* flag(std::string_view setting) const noexcept;
  [[nodiscard]] const launch_yaml_option* yaml_option(std::string_view setting) const noexcept;
};

struct engine_profile {
  std::string id;  // "vllm", "sglang", "tensorrt-llm", "llama.cpp", "mlx", "transformers"
  std::string name;
  std::vector<std::string> aliases;
  std::string repository;  // owner/name on GitHub
  std::string version;
  std::string version_note;
  engine_batching batching = engine_batching::continuous;
  engine_kv_cache kv_cache = engine_kv_cache::paged;
  std::vector<engine_default> defaults;  // in the file's order
  // Where the engine runs, from its docs (runs_on_source); runs_on_note says what is left out.
  std::vector<engine_device_class> runs_on;
  engine_source runs_on_source;
  std::string runs_on_note;
  // The fit to data/measurements/ (tools/fit_engines.cpp); fitted == false: none, the engine's
  // figures are the plain roofline's.
  bool efficiency_fitted = false;
  std::string fitted_by;
  std::vector<std::string> fitted_to, held_out;  // measurement source ids
  step_costs costs;                              // shared by every device family
  std::vector<engine_family_fit> families;       // includes "all", the pooled fit
  engine_bands bands;                            // residual spread (fit and held-out rows)
  engine_launch launch;                          // how to start its server

  // The fitted efficiencies for a device: its family's (hardware_spec::family()), else "all";
  // nullptr when unfitted.
  [[nodiscard]] const engine_family_fit* fit_for(const hardware_spec& gpu) const noexcept;

  // Whether the engine runs on `gpu`: its kind under its vendor (case-insensitive) or "*". A device
  // with no vendor (a custom one) is judged by its kind alone.
  [[nodiscard]] bool runs_on_device(const hardware_spec& gpu) const noexcept;
  // "NVIDIA GPUs and SoCs, AMD GPUs, ... (<docs URL>)".
  [[nodiscard]] std::string runs_on_text() const;
  // The label of the engine's figures: "fitted to N measurements (step costs and efficiencies)",
  // or "unfitted (plain roofline plus the engine's scheduler defaults)".
  [[nodiscard]] std::string basis(const hardware_spec* gpu = nullptr) const;

  // The default named `key`, or nullptr.
  [[nodiscard]] const engine_default* find(std::string_view key) const noexcept;
  // The default named `key` as a number; throws flopcast::error when absent or not a number.
  [[nodiscard]] double number(std::string_view key) const;
};

// One profile as data/engines/*.json holds it. Bad fields throw flopcast::error naming the field
// by its JSON pointer ("/defaults/block_size/source/url").
[[nodiscard]] engine_profile parse_engine_profile(std::string_view json_text);

// A serving configuration as a launch command (issue 28): the settings that the command realises.
struct launch_settings {
  std::string model;                       // the checkpoint (a Hugging Face repository, or a GGUF file)
  precision weight = precision::bf16;      // the format served
  precision checkpoint = precision::bf16;  // the checkpoint's own format (a narrower served one: quantised online)
  precision kv = precision::bf16;
  std::int64_t tp = 1, ep = 1, attention_dp = 1;  // one replica: tp x ep GPUs (serving/simulator.hpp's layout)
  std::int64_t max_num_seqs = 256, max_num_batched_tokens = 8192;
  bool chunked_prefill = true;
  std::int64_t speculative_tokens = 0;  // MTP draft tokens; 0: off
  std::string role;                     // disaggregated serving: "prefill" or "decode"; empty: aggregated
};
struct launch_command {
  std::vector<std::string> args;      // the program's words, then each flag and its value
  std::vector<std::string> yaml;      // "key: value" lines of the config file the command names (if any)
  std::string yaml_file;              // its name in args; empty: none
  std::vector<std::string> left_out;  // "setting: why" for what the engine takes no flag for
  std::string version;                // the docs' version the flags were read at
  std::string text;                   // args joined, shell-quoted where needed
};
// The command that starts `e`'s server with `s`, every flag from e.launch (no flag is invented: a
// setting without one is listed in left_out).
[[nodiscard]] launch_command launch_for(const engine_profile& e, const launch_settings& s);

// Every bundled profile, sorted by id.
[[nodiscard]] const std::vector<engine_profile>& engine_records();

// Case-insensitive lookup by id or alias, ignoring '-', '_', '.' and spaces ("TensorRT_LLM",
// "trtllm", "llamacpp"). Unknown names throw flopcast::error(invalid_argument) listing the engines.
[[nodiscard]] const engine_profile& find_engine(std::string_view name);

// The engines that run on `gpu` (engine_profile::runs_on_device), sorted by id.
[[nodiscard]] std::vector<const engine_profile*> engines_for(const hardware_spec& gpu);

// The engine a request that names none runs on `gpu` (issue 24, "defaults that predict"): vLLM on
// data-centre accelerators (HBM memory, TPUs, NPUs, NVIDIA's data-centre GDDR cards and the RTX
// PRO server boards), llama.cpp on everything else (Apple silicon, consumer and workstation cards,
// SoCs, CPUs); the other of the two where the first does not run there; nullptr (the plain
// roofline) where neither does. `rule` says which and why, for the result's label.
struct default_engine {
  const engine_profile* engine = nullptr;
  std::string rule;
};
[[nodiscard]] default_engine default_engine_for(const hardware_spec& gpu);

// Throws flopcast::error(invalid_argument, "/engine") naming the device and where the engine runs
// when it does not run on `gpu`.
void check_engine_runs_on(const engine_profile& e, const hardware_spec& gpu);

// The engine's figures on a device (refused, check_engine_runs_on, where it does not run): s.engine = its id; when
// fitted, its step costs and bands, and its family's efficiencies where s's are defaults (explicit and calibrated
// efficiencies are kept; a calibration then sets the ranges). Unfitted: the plain roofline, labelled with the id.
void apply_engine(const engine_profile& e, const hardware_spec& gpu, settings& s);

// The scheduler an engine runs by default, as the serving simulator models it (from the profile's
// defaults; the mapping from each engine's options is in engine.cpp and the README).
struct engine_scheduler {
  std::int64_t max_num_seqs = 256;
  std::int64_t max_num_batched_tokens = 8192;
  bool chunked_prefill = true;
  bool prefill_first = false;  // a step that admits prefills runs no decodes
  std::int64_t block_size = 16;
  double gpu_memory_utilization = 0.9;
  prefix_cache_mode prefix_cache = prefix_cache_mode::off;  // the engine's default prefix caching
  // Hybrid (recurrent-state) models, where the running cap comes from memory (simulation_settings).
  double state_memory_ratio = 0;
  std::int64_t state_slots_per_sequence = 1;
};
// Throws flopcast::error(invalid_argument, "/engine") for an engine the simulator does not model
// (static batching: transformers' generate()).
[[nodiscard]] engine_scheduler scheduler_of(const engine_profile& e, const hardware_spec& gpu);

// Puts a scheduler into a simulation (max_num_seqs, token budget, chunking, policy, blocks; a
// gpu_memory_utilization already set is kept).
void apply_scheduler(const engine_scheduler& k, simulation_settings& s);
// A simulation with the engine's scheduler (scheduler_of, apply_scheduler) and apply_engine() on
// its base settings.
void apply_engine(const engine_profile& e, const hardware_spec& gpu, simulation_settings& s);

}  // namespace flopcast
