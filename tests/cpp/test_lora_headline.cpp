// Issue 27, item 1: with LoRA or QLoRA in the request (training_analysis.fine_tuning), the
// estimate's headline (training memory, fit, step time) is the adapters' step, the same figures
// as the training analysis (train) and the plan of the same request; LoRA's default rank is the
// request table's (Hugging Face PEFT's LoraConfig r = 8).
#include <algorithm>
#include <catch2/catch.hpp>

#include "flopcast/io/plan_json.hpp"
#include "flopcast/io/result_json.hpp"
#include "helpers.hpp"

using test::json;

namespace {

// train() of an estimate request (training is implied there, so not a field of it).
json train(json request) {
  request.erase("training");
  return json::parse(flopcast::train_json(request.dump()));
}
json plan(const json& request) { return json::parse(flopcast::plan_json(request.dump())); }

// The adapters' parameters per unit of rank for Llama-3-8B on every linear layer: r x (in + out)
// over q (4096+4096), k (4096+1024), v (4096+1024), o (4096+4096), gate, up, down (4096+14336 each)
// = 8192 + 5120 + 5120 + 8192 + 3 x 18432 = 81,920 per layer, x 32 layers = 2,621,440.
constexpr double llama3_8b_lora_per_rank = 2621440;

}  // namespace

TEST_CASE("issue 27 item 1: the LoRA estimate's headline memory is the LoRA step's total", "[lora][training]") {
  const json req = {{"model", "llama-3-8b"},
                    {"gpu", "A100-80GB-SXM"},
                    {"training", true},
                    {"training_analysis", {{"fine_tuning", "lora"}, {"lora_rank", 16}}}};
  const json e = test::run(req);
  const json t = train(req);
  const json& m = e["details"]["memory"];
  CHECK(m["training"]["fine_tuning"] == "lora");
  CHECK(m["training"]["lora_rank"] == 16);
  // One figure: the headline total, the training part's total and the analysis' total.
  CHECK(m["total"].get<double>() == m["training"]["total"].get<double>());
  CHECK(m["training"]["total"].get<double>() == Approx(t["memory"]["total"].get<double>()).epsilon(1e-12));
  CHECK(m["fits_on_gpu"] == t["memory"]["fits_on_gpu"]);
  CHECK(m["fits_on_gpu"] == true);
  CHECK(e["details"]["performance"]["training_step_s"].get<double>() ==
        Approx(t["performance"]["step_time_s"].get<double>()).epsilon(1e-12));
  CHECK(t["parameters"]["trainable"].get<double>() == 16 * llama3_8b_lora_per_rank);
  // Before/after: full fine-tuning of the same request does not fit 80 GB (bf16 weights 16 GB,
  // gradients 16 GB, fp32 master 32 GB and Adam moments 64 GB: 128 GB before activations).
  json full = req;
  full.erase("training_analysis");
  const json f = test::run(full);
  CHECK(f["details"]["memory"]["training"]["fine_tuning"] == "full");
  CHECK(f["details"]["memory"]["fits_on_gpu"] == false);
  CHECK(m["training"]["total"].get<double>() < f["details"]["memory"]["training"]["total"].get<double>() / 4);
  // The recommendations of the LoRA analysis do not shard a step that fits one GPU.
  for (const auto& r : t["recommendations"]) CHECK_THAT(r["action"].get<std::string>(), !Catch::Contains("ZeRO"));
  // The plan of the same training request: one GPU, its memory the estimate's.
  const json p = plan(req);
  CHECK(p["training"] == true);
  CHECK(p["fine_tuning"] == "lora");
  REQUIRE(p["min_gpus"] == 1);
  const json& one = p["layouts"][0];
  CHECK(one["gpus"] == 1);
  CHECK(one["per_gpu_memory_bytes"].get<double>() == Approx(m["training"]["total"].get<double>()).epsilon(1e-9));
  CHECK(one["training_step_s"].get<double>() ==
        Approx(e["details"]["performance"]["training_step_s"].get<double>()).epsilon(1e-9));
}

TEST_CASE("issue 27 item 1: QLoRA Llama-3-8B fits a 24 GB RTX 4090 (hand count of the frozen base)",
          "[lora][training]") {
  const json req = {{"model", "llama-3-8b"},
                    {"gpu", "RTX-4090"},
                    {"training", true},
                    {"training_analysis", {{"fine_tuning", "qlora"}}}};
  const json e = test::run(req);
  const json t = train(req);
  const json& m = e["details"]["memory"]["training"];
  CHECK(m["fine_tuning"] == "qlora");
  // QLoRA's default rank is the QLoRA paper's r = 64 (Dettmers et al. 2023, arXiv:2305.14314).
  CHECK(m["lora_rank"] == 64);
  // Frozen base, hand count: the layers' linear weights, 32 x (2 x 4096x4096 + 2 x 4096x1024 +
  // 3 x 4096x14336) = 6,979,321,856 parameters in NF4 with double quantisation,
  // 4 + 8/64 + 32/(64 x 256) = 4.127197265625 bits each = 3,600,416,768 bytes; the rest, 8,030,261,248
  // - 6,979,321,856 = 1,050,939,392 (embeddings, lm_head, norms) in bf16 = 2,101,878,784 bytes;
  // in all 5,702,295,552 bytes (5.31 GiB).
  CHECK(t["lora"]["base_weight_bytes"].get<double>() == Approx(5702295552.0).epsilon(1e-12));
  // Adapters, r = 64: 64 x 2,621,440 = 167,772,160 trainable parameters.
  CHECK(t["parameters"]["trainable"].get<double>() == 64 * llama3_8b_lora_per_rank);
  // The headline is the QLoRA step: equal to the analysis, the parts add up, under 24 GiB usable.
  const double total = e["details"]["memory"]["total"].get<double>();
  CHECK(total == m["total"].get<double>());
  CHECK(total == Approx(t["memory"]["total"].get<double>()).epsilon(1e-12));
  CHECK(total == Approx(m["weights"].get<double>() + m["gradients"].get<double>() + m["optimizer_state"].get<double>() +
                        m["activations"].get<double>())
                     .epsilon(1e-12));
  CHECK(m["weights"].get<double>() >= 5702295552.0);
  CHECK(total < e["details"]["memory"]["usable_gpu_memory"].get<double>());
  CHECK(e["details"]["memory"]["fits_on_gpu"] == true);
  CHECK(e["details"]["performance"]["training_step_s"].get<double>() ==
        Approx(t["performance"]["step_time_s"].get<double>()).epsilon(1e-12));
  const json p = plan(req);
  CHECK(p["fine_tuning"] == "qlora");
  CHECK(p["min_gpus"] == 1);
}

TEST_CASE("issue 27 item 1: LoRA's default rank is the request table's (PEFT LoraConfig r = 8)", "[lora][training]") {
  const json d = json::parse(flopcast::defaults_json(-1));
  json rank;
  for (const auto& f : d["request_fields"])
    if (f["pointer"] == "/training_analysis/lora_rank") rank = f;
  REQUIRE(rank.is_object());
  // https://huggingface.co/docs/peft/package_reference/lora: LoraConfig r, default 8.
  CHECK(rank["default"] == 8);
  for (const char* c : {"estimate", "train", "plan"})
    CHECK(std::find(rank["commands"].begin(), rank["commands"].end(), c) != rank["commands"].end());
  const json req = {{"model", "llama-3-8b"},
                    {"gpu", "A100-80GB-SXM"},
                    {"training", true},
                    {"training_analysis", {{"fine_tuning", "lora"}}}};
  CHECK(test::run(req)["details"]["memory"]["training"]["lora_rank"] == 8);
  const json t = train(req);
  CHECK(t["settings"]["lora_rank"] == 8);
  CHECK(t["parameters"]["trainable"].get<double>() == 8 * llama3_8b_lora_per_rank);
  // A rank given wins; a rank alone still means LoRA (the CLI's --lora-rank).
  CHECK(train({{"model", "llama-3-8b"}, {"training_analysis", {{"lora_rank", 32}}}})["settings"]["lora_rank"] == 32);
  // Without the method nothing changes: full fine-tuning, as before.
  json full = req;
  full.erase("training_analysis");
  CHECK(test::run(full)["details"]["memory"]["training"]["lora_rank"] == 0);
}

TEST_CASE("issue 27 item 1: the fine-tuning method needs training and a consistent rank", "[lora][training]") {
  const auto fails = [](const json& request, const std::string& pointer) {
    INFO(request.dump());
    try {
      (void)flopcast::estimate_json(request.dump());
      FAIL("no error");
    } catch (const flopcast::error& e) {
      CHECK(e.code() == flopcast::error_code::invalid_argument);
      CHECK(e.pointer() == pointer);
    }
  };
  fails({{"model", "llama-3-8b"}, {"training_analysis", {{"fine_tuning", "lora"}}}}, "/training_analysis/fine_tuning");
  fails(
      {{"model", "llama-3-8b"}, {"training", true}, {"training_analysis", {{"fine_tuning", "lora"}, {"lora_rank", 0}}}},
      "/training_analysis/lora_rank");
  fails(
      {{"model", "llama-3-8b"}, {"training", true}, {"training_analysis", {{"fine_tuning", "full"}, {"lora_rank", 8}}}},
      "/training_analysis/lora_rank");
  fails(
      {{"model", "llama-3-8b"}, {"training", true}, {"training_analysis", {{"fine_tuning", "lora"}, {"qlora", true}}}},
      "/training_analysis/qlora");
  // Training-analysis-only options stay the train command's.
  fails({{"model", "llama-3-8b"}, {"training", true}, {"training_analysis", {{"tokens", 1e9}}}},
        "/training_analysis/tokens");
}
