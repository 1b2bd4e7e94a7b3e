// Which engines a device is offered: data/engines/*.json runs_on classes may name the lowest NVIDIA
// compute capability (vLLM 7.0, SGLang 7.5, TensorRT-LLM 8.0) and the AMD gfx targets (vLLM's
// ROCm list) the engine's docs support; data/gpus.json states each NVIDIA GPU's
// compute_capability and each AMD GPU's gfx target.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "flopcast/base/error.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/serving/engine.hpp"
#include "helpers.hpp"

namespace engine_device_support_test {

std::set<std::string> engine_ids(const flopcast::hardware_spec& gpu) {
  std::set<std::string> out;
  for (const flopcast::engine_profile* e : flopcast::engines_for(gpu)) out.insert(e->id);
  return out;
}
std::set<std::string> engine_ids(const char* gpu) { return engine_ids(flopcast::find_gpu(gpu)); }

// The test profile whose one NVIDIA GPU class carries `extra` fields.
test::json profile_with(const test::json& extra) {
  test::json p = test::engine_profile_fixture();
  auto& cls = p["runs_on"]["devices"][0];
  for (auto it = extra.begin(); it != extra.end(); ++it) cls[it.key()] = it.value();
  return p;
}

flopcast::hardware_spec custom_nvidia(const std::string& extra) {
  return flopcast::read_hardware(R"({"name": "X", "vendor": "NVIDIA", "memory_bytes": 24e9,
      "memory_bandwidth_bytes_per_s": 9e11, "tdp_watts": 300, "peak_flops": {"fp16": 1e14})" +
                                 extra + "}");
}

}  // namespace engine_device_support_test

TEST_CASE("devices: every NVIDIA GPU states its compute capability and every AMD GPU its gfx target", "[devices]") {
  for (const flopcast::hardware_spec& g : flopcast::gpu_records()) {
    if (g.kind != flopcast::device_kind::gpu) continue;
    INFO(g.name);
    if (g.vendor == "NVIDIA") {
      CHECK(g.compute_capability >= 6.0);
      CHECK(g.compute_capability <= 12.1);
      CHECK(g.source_note.find("compute_capability: ") != std::string::npos);
    }
    if (g.vendor == "AMD") {
      CHECK(g.gfx.rfind("gfx", 0) == 0);
      CHECK(g.source_note.find("gfx: ") != std::string::npos);
    }
  }
  // NVIDIA's CUDA GPUs page: Pascal GP102 6.1, Volta 7.0, Turing 7.5, GA10x 8.6, Ada 8.9, RTX Blackwell 12.0.
  CHECK(flopcast::find_gpu("P100").compute_capability == 6.0);
  CHECK(flopcast::find_gpu("P40").compute_capability == 6.1);
  CHECK(flopcast::find_gpu("V100").compute_capability == 7.0);
  CHECK(flopcast::find_gpu("2080ti").compute_capability == 7.5);
  CHECK(flopcast::find_gpu("3090").compute_capability == 8.6);
  CHECK(flopcast::find_gpu("4090").compute_capability == 8.9);
  CHECK(flopcast::find_gpu("5090").compute_capability == 12.0);
  CHECK(flopcast::find_gpu("MI100").gfx == "gfx908");
  CHECK(flopcast::find_gpu("MI300X").gfx == "gfx942");
}

TEST_CASE("engines: a device below an engine's minimum compute capability is not offered it", "[engines]") {
  using engine_device_support_test::engine_ids;
  // vLLM: compute capability 7.0 or higher, so Pascal (P100 6.0, P40 6.1) gets llama.cpp but not vLLM.
  const auto p100 = engine_ids("P100");
  CHECK(p100.count("llama.cpp") == 1);
  CHECK(p100.count("vllm") == 0);
  const auto p40 = engine_ids("P40");
  CHECK(p40.count("llama.cpp") == 1);
  CHECK(p40.count("transformers") == 1);
  CHECK(p40.count("vllm") == 0);
  CHECK(p40.count("sglang") == 0);
  CHECK(p40.count("tensorrt-llm") == 0);
  const auto rtx3090 = engine_ids("3090");
  CHECK(rtx3090.count("vllm") == 1);
  CHECK(rtx3090.count("sglang") == 1);
  CHECK(rtx3090.count("tensorrt-llm") == 1);
  // Volta (7.0): vLLM yes, SGLang (sm75+) and TensorRT-LLM (SM80+) no.
  const auto v100 = engine_ids("V100");
  CHECK(v100.count("vllm") == 1);
  CHECK(v100.count("sglang") == 0);
  CHECK(v100.count("tensorrt-llm") == 0);
  // V100S and TITAN V are Volta too.
  CHECK(engine_ids("V100S").count("vllm") == 1);
  CHECK(engine_ids("V100S").count("sglang") == 0);
  CHECK(engine_ids("TITAN V").count("tensorrt-llm") == 0);
  // The A2 (GA107, 8.6) and H200 NVL (9.0) get all three.
  CHECK(engine_ids("A2").count("tensorrt-llm") == 1);
  CHECK(engine_ids("H200-NVL").count("sglang") == 1);
  // Turing (7.5): SGLang yes, TensorRT-LLM no.
  CHECK(engine_ids("T4").count("sglang") == 1);
  CHECK(engine_ids("T4").count("tensorrt-llm") == 0);
  // The refusal names the minimum.
  try {
    flopcast::check_engine_runs_on(flopcast::find_engine("vllm"), flopcast::find_gpu("P40"));
    FAIL("vLLM on a P40 must be refused");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/engine");
    CHECK(std::string(e.message()).find("compute capability 7.0 or higher") != std::string::npos);
  }
}

TEST_CASE("engines: vLLM on AMD is offered on the gfx targets its ROCm page lists", "[engines]") {
  using engine_device_support_test::engine_ids;
  // MI100 is gfx908, not in vLLM's list: llama.cpp yes, vLLM no.
  const auto mi100 = engine_ids("MI100");
  CHECK(mi100.count("llama.cpp") == 1);
  CHECK(mi100.count("vllm") == 0);
  CHECK(engine_ids("MI300X").count("vllm") == 1);      // gfx942
  CHECK(engine_ids("MI210").count("vllm") == 1);       // gfx90a
  CHECK(engine_ids("7800 XT").count("vllm") == 1);     // gfx1101
  CHECK(engine_ids("RX-9070-XT").count("vllm") == 1);  // gfx1201
  CHECK(engine_ids("MI300A").count("vllm") == 1);      // gfx942, the MI300X's target
  CHECK(engine_ids("W7900").count("vllm") == 1);       // gfx1100
  // RX 6700 XT is gfx1031 (RDNA2), not in vLLM's list: llama.cpp yes, vLLM no.
  const auto rx6700xt = engine_ids("6700xt");
  CHECK(rx6700xt.count("llama.cpp") == 1);
  CHECK(rx6700xt.count("vllm") == 0);
  // MI50 and MI60 are gfx906 (Vega 20), also outside vLLM's list.
  CHECK(engine_ids("MI50").count("vllm") == 0);
  CHECK(engine_ids("MI50").count("llama.cpp") == 1);
  // SGLang names no AMD targets: the class is unchanged.
  CHECK(mi100.count("sglang") == 1);
}

TEST_CASE("engines: a custom device that states no compute capability is judged by vendor and kind", "[engines]") {
  using engine_device_support_test::custom_nvidia;
  using engine_device_support_test::engine_ids;
  CHECK(engine_ids(custom_nvidia("")).count("vllm") == 1);
  CHECK(engine_ids(custom_nvidia(R"(, "compute_capability": 6.0)")).count("vllm") == 0);
  CHECK(engine_ids(custom_nvidia(R"(, "compute_capability": 7)")).count("vllm") == 1);
  CHECK_THROWS_WITH(custom_nvidia(R"(, "compute_capability": 25)"),
                    Catch::Contains("[flopcast.config.range] (/compute_capability) expected a number in [1, 20]"));
  CHECK_THROWS_WITH(custom_nvidia(R"(, "gfx": "1100")"),
                    Catch::Contains("[flopcast.config.range] (/gfx) expected an LLVM AMDGPU target"));
  // list-gpus --json writes the fields back, so a --gpu-file copied from it keeps them.
  const std::string json = flopcast::hardware_to_json(flopcast::find_gpu("P40"), 0);
  const auto at = json.find("\"compute_capability\"");
  REQUIRE(at != std::string::npos);
  CHECK(json.find("6.1", at) != std::string::npos);
}

TEST_CASE("engines: bad min_compute_capability and gfx fields give specific errors", "[engines]") {
  using engine_device_support_test::profile_with;
  using flopcast::error_code;
  const auto ok = flopcast::parse_engine_profile(profile_with({{"min_compute_capability", 8.0}}).dump());
  REQUIRE(ok.runs_on.size() == 1);
  CHECK(ok.runs_on[0].min_compute_capability == 8.0);
  CHECK(ok.runs_on_text().find("compute capability 8.0 or higher") != std::string::npos);
  test::require_profile_error(profile_with({{"min_compute_capability", "7.0"}}), error_code::config_type,
                              "/runs_on/devices/0/min_compute_capability");
  test::require_profile_error(profile_with({{"min_compute_capability", 0.5}}), error_code::config_range,
                              "/runs_on/devices/0/min_compute_capability");
  test::require_profile_error(profile_with({{"gfx", test::json::array()}}), error_code::config_range,
                              "/runs_on/devices/0/gfx");
  test::require_profile_error(profile_with({{"gfx", {1100}}}), error_code::config_type, "/runs_on/devices/0/gfx/0");
  test::require_profile_error(profile_with({{"min_cc", 7.0}}), error_code::invalid_argument,
                              "/runs_on/devices/0/min_cc");
}
