// Issue 27, items 4-6: the checkpoint's own weight formats are the default precision; engines run
// only on the devices their docs list (refused elsewhere at /engine), an unfitted engine says so;
// a configuration that does not fit marks its speeds hypothetical and names the fewest GPUs that
// hold it.
#include <catch2/catch.hpp>
#include <set>
#include <string>

#include "flopcast/base/error.hpp"
#include "flopcast/io/plan_json.hpp"
#include "flopcast/serving/engine.hpp"
#include "helpers.hpp"

namespace {

using test::json;

std::set<std::string> ids_for(const std::string& gpu) {
  std::set<std::string> out;
  for (const flopcast::engine_profile* e : flopcast::engines_for(flopcast::find_gpu(gpu))) out.insert(e->id);
  return out;
}

// The error of an estimate request: code, pointer and message.
flopcast::error estimate_error(const json& request) {
  try {
    (void)flopcast::estimate_json(request.dump());
  } catch (const flopcast::error& e) {
    return e;
  }
  FAIL("expected an error for " << request.dump());
  return flopcast::error(flopcast::error_code::invalid_argument, "", "");
}

}  // namespace

TEST_CASE("issue 27 item 4: gpt-oss-120b defaults to its checkpoint's MXFP4 experts", "[defaults27]") {
  const json shipped = test::run({{"model", "gpt-oss-120b"}, {"gpu", "H100"}});
  const json spelled = test::run(
      {{"model", "gpt-oss-120b"}, {"gpu", "H100"}, {"precision", {{"default", "bf16"}, {"experts", "mxfp4"}}}});
  const json bf16 = test::run({{"model", "gpt-oss-120b"}, {"gpu", "H100"}, {"precision", "bf16"}});
  const json& m = shipped["details"]["memory"];
  CHECK(m["weights_precision_by_part"]["experts"] == "mxfp4");
  CHECK(shipped["details"]["settings"]["weight_formats_source"] == "checkpoint");
  CHECK(shipped["details"]["settings"]["weight_formats"] == "mxfp4 experts, bf16 rest");
  CHECK(shipped["details"]["config"]["checkpoint_formats"] == "mxfp4 experts, bf16 rest");
  CHECK(bf16["details"]["settings"]["weight_formats_source"] == "request");
  // The default is exactly the checkpoint's formats spelled out.
  CHECK(m["weights"].get<double>() == spelled["details"]["memory"]["weights"].get<double>());
  // The experts by hand (config.json of openai/gpt-oss-120b: 36 layers, 128 experts, hidden 2880,
  // intermediate 2880): 36 x 128 x (2880 x 5760 gate_up + 2880 x 2880 down) = 114,661,785,600
  // weights; MXFP4 = 4 bits + one 8-bit scale per 32 = 4.25 bits: 60,914,073,600 bytes (56.7 GiB).
  const double experts = m["weights_by_part"]["experts"].get<double>();
  const double expert_weights = 36.0 * 128 * (2880.0 * 5760 + 2880.0 * 2880);
  // The experts' biases (36 x 128 x (5760 + 2880) = 39,813,120) stay 16-bit: at most 80 MB more.
  CHECK(experts >= expert_weights * 4.25 / 8);
  CHECK(experts <= expert_weights * 4.25 / 8 + 36.0 * 128 * (5760 + 2880) * 2);
  // bf16 everywhere (the page's old default) is over 3.5 times larger: "needs 218 GiB".
  CHECK(bf16["details"]["memory"]["weights"].get<double>() > 3.5 * m["weights"].get<double>());
  CHECK(shipped["fits"] == true);
  CHECK(bf16["fits"] == false);
}

TEST_CASE("issue 27 item 4: DeepSeek-V3 defaults to its FP8 block-scaled checkpoint", "[defaults27]") {
  const json shipped = test::run({{"model", "deepseek-v3"}, {"gpu", "H200"}});
  const json spelled = test::run({{"model", "deepseek-v3"}, {"gpu", "H200"}, {"precision", "fp8_block"}});
  CHECK(shipped["precision"] == "fp8_block");
  CHECK(shipped["details"]["settings"]["weight_formats_source"] == "checkpoint");
  CHECK(shipped["details"]["memory"]["weights"].get<double>() == spelled["details"]["memory"]["weights"].get<double>());
  // About one byte per parameter (8 bits, a 32-bit scale per 128 x 128 block, bf16 embeddings and
  // head): between 1.0 and 1.02 bytes per parameter of the 671B.
  const double params = shipped["parameters"].get<double>();
  const double weights = shipped["details"]["memory"]["weights"].get<double>();
  CHECK(weights > params * 1.0);
  CHECK(weights < params * 1.02);
}

TEST_CASE("issue 27 item 5: engines run only where their docs say", "[defaults27]") {
  // vLLM (docs.vllm.ai installation: NVIDIA CUDA, AMD ROCm, Intel XPU, TPU, Gaudi, CPUs; Apple
  // silicon on its CPU only), TensorRT-LLM (NVIDIA only), MLX (Apple silicon), llama.cpp (every
  // GPU, SoC and CPU), transformers (wherever PyTorch runs).
  CHECK(ids_for("M3-Max-128GB") == std::set<std::string>{"llama.cpp", "mlx", "transformers"});
  CHECK(ids_for("H100") == std::set<std::string>{"llama.cpp", "sglang", "tensorrt-llm", "transformers", "vllm"});
  CHECK(ids_for("MI300X") == std::set<std::string>{"llama.cpp", "sglang", "transformers", "vllm"});
  CHECK(ids_for("TPU-v5e") == std::set<std::string>{"sglang", "transformers", "vllm"});
  CHECK(ids_for("EPYC-9654") == std::set<std::string>{"llama.cpp", "transformers", "vllm"});
  // Every engine runs somewhere in the database, and every profile cites its docs.
  for (const flopcast::engine_profile& e : flopcast::engine_records()) {
    INFO(e.id);
    CHECK(e.runs_on_source.url.rfind("https://", 0) == 0);
    bool somewhere = false;
    for (const flopcast::hardware_spec& g : flopcast::gpu_records()) somewhere = somewhere || e.runs_on_device(g);
    CHECK(somewhere);
  }
  // A custom device without a vendor is judged by its kind.
  flopcast::hardware_spec custom;
  custom.name = "my-gpu";
  CHECK(flopcast::find_engine("vllm").runs_on_device(custom));
  CHECK_FALSE(flopcast::find_engine("mlx").runs_on_device(custom));
}

TEST_CASE("issue 27 item 5: an engine on a device it does not run on is refused at /engine", "[defaults27]") {
  for (const char* engine : {"vllm", "tensorrt-llm", "sglang"}) {
    const flopcast::error e = estimate_error({{"model", "llama-3-8b"}, {"gpu", "M3-Max-128GB"}, {"engine", engine}});
    INFO(e.what());
    CHECK(e.code() == flopcast::error_code::invalid_argument);
    CHECK(e.pointer() == "/engine");
    CHECK(std::string(e.message()).find("does not run on M3-Max-128GB (Apple soc)") != std::string::npos);
    CHECK(std::string(e.message()).find(flopcast::find_engine(engine).runs_on_source.url) != std::string::npos);
    CHECK(std::string(e.message()).find("engines for this device: llama.cpp, mlx, transformers") != std::string::npos);
  }
  const flopcast::error mlx = estimate_error({{"model", "llama-3-8b"}, {"gpu", "H100"}, {"engine", "mlx"}});
  CHECK(mlx.pointer() == "/engine");
  CHECK(std::string(mlx.message()).find("Apple SoCs") != std::string::npos);
  // The simulation and the throughput paths refuse it the same way.
  try {
    (void)flopcast::simulate_json(json({{"model", "llama-3-8b"}, {"gpu", "M3-Max-128GB"}, {"engine", "vllm"}}).dump());
    FAIL("expected an error");
  } catch (const flopcast::error& e) {
    CHECK(e.pointer() == "/engine");
  }
}

TEST_CASE("issue 27 item 5: an unfitted engine is labelled as such", "[defaults27]") {
  // transformers: no campaign fits it (MLX was fitted in issue 24, to mlx-lm's BENCHMARKS.md).
  const json mlx = test::run({{"model", "llama-3-8b"}, {"gpu", "M3-Max-128GB"}, {"engine", "transformers"}});
  CHECK(mlx["details"]["settings"]["engine_basis"] == "unfitted (plain roofline plus the engine's scheduler defaults)");
  const json plain = test::run({{"model", "llama-3-8b"}, {"gpu", "M3-Max-128GB"}, {"engine", "none"}});
  CHECK(mlx["details"]["performance"]["decode_latency_per_token_s"] ==
        plain["details"]["performance"]["decode_latency_per_token_s"]);
  CHECK(plain["details"]["settings"]["engine_basis"].is_null());
  const json vllm = test::run({{"model", "llama-3-8b"}, {"gpu", "H100"}, {"engine", "vllm"}});
  CHECK(vllm["details"]["settings"]["engine_basis"].get<std::string>().rfind("fitted to ", 0) == 0);
  for (const flopcast::engine_profile& e : flopcast::engine_records())
    if (!e.efficiency_fitted) CHECK(e.basis().rfind("unfitted", 0) == 0);
}

TEST_CASE("issue 27 item 6: a configuration that does not fit marks its speeds and names the GPUs it needs",
          "[defaults27]") {
  const json request = {{"model", "llama-3.1-70b"}, {"gpu", "RTX-4090"}, {"precision", "int4"}};
  const json r = test::run(request);
  CHECK(r["fits"] == false);
  CHECK(r["performance_hypothetical"] == true);
  // The planner's answer for the same model, format, context and batch on this GPU.
  json plan_request = request;
  plan_request["batch_size"] = r["batch_size"];
  plan_request["sequence_length"] = r["sequence_length"];
  plan_request["num_generated_tokens"] = r["details"]["settings"]["num_generated_tokens"];
  const json plan = json::parse(flopcast::plan_json(plan_request.dump()));
  REQUIRE(plan["min_gpus"].get<int>() >= 2);
  CHECK(r["min_gpus_to_fit"] == plan["min_gpus"]);
  // int4 70B weights alone are more than 24 GiB (70.6e9 x 4.125 / 8 = 36.4 GB), so one GPU never holds it.
  CHECK(r["details"]["memory"]["weights"].get<double>() > 24.0 * 1073741824.0);
  const std::string advice = r["fit_advice"].get<std::string>();
  CHECK(advice.find("if it fitted") != std::string::npos);
  CHECK(advice.find("needs " + std::to_string(plan["min_gpus"].get<int>()) + " x RTX-4090") != std::string::npos);

  const json fits = test::run({{"model", "llama-3-8b"}, {"gpu", "H100"}});
  CHECK(fits["fits"] == true);
  CHECK(fits["performance_hypothetical"] == false);
  CHECK(fits["min_gpus_to_fit"].is_null());
  CHECK(fits["fit_advice"].is_null());
  const json no_gpu = test::run({{"model", "llama-3-8b"}, {"gpu", nullptr}});  // no GPU: no speeds at all
  CHECK(no_gpu["performance_hypothetical"].is_null());
}
