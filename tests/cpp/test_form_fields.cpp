// The result fields the page's form and memory bar read: the usable bytes the fit is checked
// against, the fp32 master copy inside the optimizer state, the engine whose fit the ranges use,
// and the parts a precision object may name. Reference values are hand counts from the public
// specs (A100 80 GB = 80 GiB; Llama 3 8B's published shapes), not the core's output.
#include <catch2/catch.hpp>

#include "helpers.hpp"

using namespace flopcast;
using test::json;

namespace {
constexpr double gib80 = 80.0 * 1024 * 1024 * 1024;  // A100-80GB: 85,899,345,920 bytes
constexpr double llama3_8b_params = 8030261248.0;    // Meta-Llama-3-8B, model card / safetensors total
// LoRA rank 16 on every projection of Llama 3 8B: r x (in + out) per matrix, hidden 4096, KV 1024,
// MLP 14336, 32 layers: q, o 8192; k, v 5120; gate, up, down 18432 each.
constexpr double lora16_all = 16.0 * (2 * 8192 + 2 * 5120 + 3 * 18432) * 32;  // 41,943,040

json train(const json& request) { return json::parse(flopcast::train_json(request.dump())); }
}  // namespace

TEST_CASE("form fields: usable_gpu_memory is what the fit compares with", "[form]") {
  SECTION("inference: 0.9 of the card (vLLM's default utilization)") {
    const json r = test::run({{"model", "llama-3-8b"}, {"gpu", "A100-80GB-SXM"}});
    const json& m = r["details"]["memory"];
    CHECK(m["usable_gpu_memory"].get<double>() == Approx(gib80 * 0.9));
    CHECK(m["fits_on_gpu"].get<bool>() == (m["total"].get<double>() <= m["usable_gpu_memory"].get<double>()));
  }
  SECTION("utilization and a reserve") {
    const json r = test::run({{"model", "llama-3-8b"},
                              {"gpu", "A100-80GB-SXM"},
                              {"gpu_memory_utilization", 0.5},
                              {"gpu_memory_reserve_bytes", 2e9}});
    CHECK(r["details"]["memory"]["usable_gpu_memory"].get<double>() == Approx(gib80 * 0.5 - 2e9));
  }
  SECTION("llama-2-70b fp16 does not fit one A100-80GB: its weights alone pass the usable bytes") {
    const json r = test::run({{"model", "llama-2-70b"}, {"gpu", "A100-80GB-SXM"}, {"precision", "fp16"}});
    const json& m = r["details"]["memory"];
    CHECK_FALSE(m["fits_on_gpu"].get<bool>());
    CHECK(m["weights"].get<double>() > m["usable_gpu_memory"].get<double>());
  }
  SECTION("training: the whole card; train() reports the same") {
    const json req = {{"model", "llama-3-8b"}, {"gpu", "A100-80GB-SXM"}, {"training", true}};
    CHECK(test::run(req)["details"]["memory"]["usable_gpu_memory"].get<double>() == Approx(gib80));
    CHECK(train({{"model", "llama-3-8b"}, {"gpu", "A100-80GB-SXM"}})["memory"]["usable_gpu_memory"].get<double>() ==
          Approx(gib80));
  }
  SECTION("no GPU: null") {
    CHECK(test::run({{"model", "llama-3-8b"}, {"gpu", "none"}})["details"]["memory"]["usable_gpu_memory"].is_null());
  }
}

TEST_CASE("form fields: the fp32 master copy is labelled apart from the optimizer's moments", "[form]") {
  const auto memory = [](const char* optimizer, const char* precision) {
    return test::run({{"model", "llama-3-8b"},
                      {"gpu", "A100-80GB-SXM"},
                      {"training", true},
                      {"optimizer", optimizer},
                      {"precision", precision}})["details"]["memory"]["training"];
  };
  SECTION("optimizer none, bf16: the optimizer state is only the fp32 master copy (4 bytes each)") {
    const json m = memory("none", "bf16");
    CHECK(m["master_weights"].get<double>() == Approx(4 * llama3_8b_params));
    CHECK(m["optimizer_moments"].get<double>() == 0);
    CHECK(m["optimizer_state"].get<double>() == Approx(4 * llama3_8b_params));
  }
  SECTION("adam, bf16: master 4 + moments 8 bytes each") {
    const json m = memory("adam", "bf16");
    CHECK(m["master_weights"].get<double>() == Approx(4 * llama3_8b_params));
    CHECK(m["optimizer_moments"].get<double>() == Approx(8 * llama3_8b_params));
  }
  SECTION("fp32 weights keep no master copy") {
    const json m = memory("sgd", "fp32");
    CHECK(m["master_weights"].get<double>() == 0);
    CHECK(m["optimizer_moments"].get<double>() == Approx(4 * llama3_8b_params));
  }
  SECTION("QLoRA: master and moments for the adapters only") {
    const json r = train({{"model", "llama-3-8b"},
                          {"gpu", "A100-80GB-SXM"},
                          {"training_analysis", {{"lora_rank", 16}, {"qlora", true}}}});
    CHECK(r["parameters"]["trainable"].get<double>() == lora16_all);
    CHECK(r["memory"]["master_weights"].get<double>() == Approx(4 * lora16_all));
    CHECK(r["memory"]["optimizer_moments"].get<double>() == Approx(8 * lora16_all));
  }
}

TEST_CASE("form fields: details.settings.engine names the engine whose fit the figures use", "[form]") {
  // No engine named: the device class's (vLLM on an H100, issue 24); "none": the plain roofline.
  CHECK(test::run({{"model", "llama-3-8b"}, {"gpu", "H100-SXM"}})["details"]["settings"]["engine"] == "vllm");
  CHECK(test::run({{"model", "llama-3-8b"}, {"gpu", "H100-SXM"}, {"engine", "none"}})["details"]["settings"]["engine"]
            .is_null());
  const json r = test::run({{"model", "llama-3-8b"}, {"gpu", "H100-SXM"}, {"engine", "vllm"}});
  CHECK(r["details"]["settings"]["engine"] == "vllm");
  CHECK_THAT(r["details"]["performance"]["ranges"]["source"].get<std::string>(), Catch::Contains("vllm"));
}

TEST_CASE("form fields: defaults list the parts a precision object may name", "[form]") {
  const json d = json::parse(flopcast::defaults_json(-1));
  // The parts of a model a precision object may name (precision.hpp, weight_component), in order.
  CHECK(d["weight_components"] ==
        json::array({"embedding", "attention", "mlp", "experts", "lm_head", "mixer", "vision"}));
  for (const auto& c : d["weight_components"]) {
    const json r =
        test::run({{"model", "llama-3-8b"}, {"gpu", "none"}, {"precision", {{c.get<std::string>(), "int8"}}}});
    CHECK(r["details"]["memory"]["weights_precision_by_part"][c.get<std::string>()] == "int8");
  }
  CHECK_THROWS_AS(test::run({{"model", "llama-3-8b"}, {"precision", {{"router", "int8"}}}}), flopcast::error);
}
