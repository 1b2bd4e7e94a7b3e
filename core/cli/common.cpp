#include "common.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace flopcast::cli {

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string item;
  while (std::getline(ss, item, ',')) out.push_back(item);
  if (out.empty()) out.push_back("");
  return out;
}

[[noreturn]] void bad(const std::string& option, const std::string& message) {
  throw error(error_code::invalid_argument, option, message);
}

std::int64_t parse_int(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::out_of_range&) {
    bad(option, "expected an integer, but got \"" + text + "\" (out of range)");
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size()) bad(option, "expected an integer, but got \"" + text + "\"");
  return v;
}

double parse_number(const std::string& text, const std::string& option) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size() || !std::isfinite(v)) bad(option, "expected a number, but got \"" + text + "\"");
  return v;
}

std::string read_file(const std::string& path, const std::string& option) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw error(error_code::io, option, "cannot read \"" + path + "\": " + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {
bool looks_like_path(const std::string& s) {
  std::ifstream probe(s);
  return probe.good() || (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
}
}  // namespace

// A model by registry name or config.json path. Loaded specs outlive the call.
const model_spec& resolve_model(const std::string& name, owned_specs& specs, const std::string& option) {
  auto& owned = specs.models;
  if (!looks_like_path(name)) {
    try {
      return find_model(name).spec;
    } catch (const error& e) {
      throw error(e.code(), option, e.message());
    }
  }
  const std::string text = read_file(name, option);
  try {
    std::string label = name;
    const auto slash = label.find_last_of('/');
    if (slash != std::string::npos && label.substr(slash + 1) == "config.json" && slash > 0)
      label = label.substr(0, slash);
    owned.push_back(std::make_unique<model_spec>(read_hf_config(text, label)));
  } catch (const error& e) {
    throw error(e.code(), e.pointer(), e.message() + " in " + name);
  }
  return *owned.back();
}

std::vector<const hardware_spec*> resolve_gpus(const options& o, owned_specs& specs) {
  auto& owned = specs.gpus;
  std::vector<const hardware_spec*> out;
  if (!o.gpu_file.empty()) {
    const std::string text = read_file(o.gpu_file, "--gpu-file");
    try {
      owned.push_back(std::make_unique<hardware_spec>(read_hardware(text)));
    } catch (const error& e) {
      throw error(e.code(), e.pointer(), e.message() + " in " + o.gpu_file);
    }
    out.push_back(owned.back().get());
    return out;
  }
  for (const auto& g : split(o.gpu)) {
    std::string lower = g;
    for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    out.push_back(lower == "none" ? nullptr : &find_gpu(g));
  }
  return out;
}

settings base_settings(const options& o) {
  settings s;
  s.kv_cache_precision = o.kv_precision.empty()
                             ? std::nullopt
                             : std::optional<precision>(parse_precision(o.kv_precision, "--kv-precision"));
  s.training = o.training;
  s.optim = parse_optimizer(o.optimizer, "--optimizer");
  s.gradient_checkpointing = !o.no_checkpointing;
  s.causal = o.causal;
  s.flash_attention = !o.no_flash;
  if (!o.compute_eff.empty()) {
    s.compute_efficiency = parse_number(o.compute_eff, "--compute-efficiency");
    s.compute_efficiency_origin = efficiency_origin::explicit_value;
  }
  if (!o.mem_eff.empty()) {
    s.mem_efficiency = parse_number(o.mem_eff, "--mem-efficiency");
    s.mem_efficiency_origin = efficiency_origin::explicit_value;
  }
  parallel_layout& l = s.parallel;
  l.tensor_parallel = parse_int(o.tp, "--tp");
  l.pipeline_parallel = parse_int(o.pp, "--pp");
  l.data_parallel = parse_int(o.dp, "--dp");
  l.expert_parallel = parse_int(o.ep, "--ep");
  l.num_microbatches = parse_int(o.microbatches, "--microbatches");
  l.sequence_parallel = o.sequence_parallel;
  if (!o.interconnect.empty()) {
    const double gb = parse_number(o.interconnect, "--interconnect");
    if (!(gb > 0))
      bad("--interconnect", "expected a positive bandwidth in GB/s per direction, but got " + o.interconnect);
    l.interconnect_bandwidth_bytes_per_s = gb * 1e9;
  }
  if (!o.link_latency.empty()) {
    const double us = parse_number(o.link_latency, "--link-latency");
    if (!(us >= 0 && us < 1e6)) bad("--link-latency", "expected microseconds in [0, 1e6), but got " + o.link_latency);
    l.link_latency_s = us * 1e-6;
  }
  if (!o.power_util.empty()) s.power_utilization = parse_number(o.power_util, "--power-utilization");
  if (!o.carbon.empty()) s.carbon_intensity_g_per_kwh = parse_number(o.carbon, "--carbon-intensity");
  if (!o.cost.empty()) s.cost_per_hour_usd = parse_number(o.cost, "--cost-per-hour");
  return s;
}

// Rewrites the core's request-field pointer into the CLI option the user typed.
error as_cli_error(const error& e) {
  static const std::pair<const char*, const char*> k[] = {
      {"/batch_size", "--batch"},
      {"/sequence_length", "--seq-len"},
      {"/num_generated_tokens", "--gen-tokens"},
      {"/precision", "--precision"},
      {"/compute_efficiency", "--compute-efficiency"},
      {"/mem_efficiency", "--mem-efficiency"},
      {"/power_utilization", "--power-utilization"},
      {"/carbon_intensity", "--carbon-intensity"},
      {"/cost_per_hour", "--cost-per-hour"},
      {"/gpu", "--gpu"},
      {"/model", "MODEL"},
      {"/parallelism/tensor_parallel", "--tp"},
      {"/parallelism/pipeline_parallel", "--pp"},
      {"/parallelism/data_parallel", "--dp"},
      {"/parallelism/expert_parallel", "--ep"},
      {"/parallelism/num_microbatches", "--microbatches"},
      {"/parallelism/interconnect_bandwidth_bytes_per_s", "--interconnect"},
      {"/parallelism/link_latency_s", "--link-latency"},
      {"/prompt_tokens", "--prompt"},
      {"/output_tokens", "--output"},
      {"/concurrency", "--concurrency"},
      {"/gpu_memory_utilization", "--gpu-memory-utilization"},
      {"/block_size", "--block-size"},
      {"/chunked_prefill_tokens", "--chunked-prefill"},
      {"/speculative_tokens", "--speculative-tokens"},
      {"/acceptance_rate", "--acceptance"},
      {"/draft", "--draft"},
  };
  for (const auto& [field, option] : k)
    if (e.pointer() == field) return error(e.code(), option, e.message());
  return e;
}

// The comparison the options describe (a single point for estimate).
compare_plan make_plan(const options& o, bool allow_lists, owned_specs& owned) {
  const auto list = [&](const std::string& v, const char* option) {
    auto items = split(v);
    if (!allow_lists && items.size() > 1)
      bad(option, "expected one value, but got a list \"" + v + "\" (use flopcast compare)");
    return items;
  };
  compare_plan plan;
  plan.base = base_settings(o);
  for (const auto& b : list(o.batch, "--batch")) plan.batch_sizes.push_back(parse_int(b, "--batch"));
  for (const auto& q : list(o.seq, "--seq-len")) plan.sequence_lengths.push_back(parse_int(q, "--seq-len"));
  for (const auto& n : list(o.gen, "--gen-tokens")) plan.generated_tokens.push_back(parse_int(n, "--gen-tokens"));
  for (const auto& p : list(o.precision, "--precision")) plan.precisions.push_back(parse_precision(p, "--precision"));
  (void)list(o.gpu, "--gpu");
  plan.gpus = resolve_gpus(o, owned);
  for (const auto& name : o.models) plan.models.push_back(&resolve_model(name, owned));
  if (!o.no_calibration) plan.calibrations = load_calibration();
  return plan;
}

void add_estimate_options(CLI::App& cmd, options& o, bool lists, bool output_flags) {
  const std::string l = lists ? " (comma list)" : "";
  cmd.add_option("-b,--batch", o.batch, "Batch size" + l + " [1]");
  cmd.add_option("-s,--seq-len", o.seq, "Prompt / input length in tokens" + l + " [2048]");
  cmd.add_option("-n,--gen-tokens", o.gen, "Generated tokens" + l + " [128]");
  cmd.add_flag("--training", o.training, "Report training memory and step time");
  cmd.add_option("--optimizer", o.optimizer, "adam, adamw, sgd (with momentum), none [adam]");
  cmd.add_flag("--no-checkpointing", o.no_checkpointing, "Training without activation checkpointing");
  cmd.add_flag("--causal", o.causal, "Count only the attention pairs a causal mask keeps");
  cmd.add_flag("--no-flash-attention", o.no_flash, "Activation estimate with materialised attention scores");
  add_hardware_options(cmd, o, lists);
  if (output_flags) {
    auto* j = cmd.add_flag("--json", o.json, "Print JSON (SI units)");
    auto* c = cmd.add_flag("--csv", o.csv, "Print CSV (SI units)");
    j->excludes(c);
  }
}

void add_hardware_options(CLI::App& cmd, options& o, bool lists) {
  const std::string l = lists ? " (comma list)" : "";
  cmd.add_option("-p,--precision", o.precision, "fp32, tf32, fp16, bf16, fp8, int8, int4 (aliases ok)" + l + " [bf16]");
  cmd.add_option("--kv-precision", o.kv_precision, "KV-cache precision [weights', fp16 for int8/int4]");
  cmd.add_option("-g,--gpu", o.gpu, "GPU name or alias" + std::string(lists ? ", or none" : "") + l + " [A100]");
  cmd.add_option("--gpu-file", o.gpu_file, "Custom accelerator JSON (data/gpus.json record format)");
  cmd.add_option("--compute-efficiency", o.compute_eff,
                 "Fraction of peak FLOP/s achieved, (0,1] [calibrated, else 0.5]");
  cmd.add_option("--mem-efficiency", o.mem_eff, "Fraction of peak bandwidth achieved, (0,1] [calibrated, else 0.8]");
  cmd.add_option("--power-utilization", o.power_util, "Mean power as a fraction of TDP, (0,1] [0.85]");
  cmd.add_option("--carbon-intensity", o.carbon, "Grid carbon intensity, g CO2 per kWh [400]");
  cmd.add_option("--cost-per-hour", o.cost, "USD per GPU-hour [the GPU's default]");
  cmd.add_option("--tp", o.tp, "Tensor-parallel ranks [1]");
  cmd.add_option("--pp", o.pp, "Pipeline-parallel stages [1]");
  cmd.add_option("--dp", o.dp, "Data-parallel replicas [1]");
  cmd.add_option("--ep", o.ep, "Expert-parallel ranks (MoE) [1]");
  cmd.add_flag("--sp", o.sequence_parallel, "Sequence parallelism (training activations)");
  cmd.add_option("--microbatches", o.microbatches, "Pipeline microbatches per training step [1]");
  cmd.add_option("--interconnect", o.interconnect,
                 "GPU-to-GPU bandwidth, GB/s per direction [half the GPU's listed total]");
  cmd.add_option("--link-latency", o.link_latency, "Latency per ring step or send, microseconds [2]");
  cmd.add_flag("--no-calibration", o.no_calibration, "Ignore the calibration store");
}

std::string calibration_path() {
  if (const char* f = std::getenv("FLOPCAST_CALIBRATION_FILE"); f && *f) return f;
  if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x) return std::string(x) + "/flopcast/calibration.json";
  if (const char* h = std::getenv("HOME"); h && *h) return std::string(h) + "/.config/flopcast/calibration.json";
  return ".flopcast-calibration.json";
}

std::vector<calibration_entry> load_calibration() {
  const std::string path = calibration_path();
  std::ifstream probe(path);
  if (!probe) return {};
  const std::string text = read_file(path, "--calibration");
  try {
    return read_calibration(text, path);
  } catch (const error& e) {
    throw error(e.code(), e.pointer(), e.message() + " in " + path + " (flopcast calibrate reset clears it)");
  }
}

void save_calibration(const std::vector<calibration_entry>& entries) {
  const std::filesystem::path path = calibration_path();
  std::error_code ec;
  if (path.has_parent_path()) std::filesystem::create_directories(path.parent_path(), ec);
  const std::filesystem::path tmp = path.string() + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw error(error_code::io, "--calibration", "cannot write \"" + tmp.string() + "\": " + std::strerror(errno));
    out << calibration_to_json(entries) << "\n";
  }
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw error(error_code::io, "--calibration", "cannot write \"" + path.string() + "\": " + ec.message());
}

}  // namespace flopcast::cli
