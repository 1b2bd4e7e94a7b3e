// Every record in data/ loads and passes invariants.
#include <catch2/catch.hpp>
#include <set>

#include "helpers.hpp"

TEST_CASE("model registry: at least 40 records across the required families") {
  const auto& records = flopcast::model_records();
  CHECK(records.size() >= 40);
  std::set<std::string> types, names;
  for (const auto& r : records) {
    INFO(r.id);
    types.insert(r.spec.model_type);
    CHECK(names.insert(r.id).second);
    for (const auto& a : r.aliases) CHECK(names.insert(a).second);  // ids and aliases are unique
    CHECK(!r.aliases.empty());
    CHECK(r.source.find("huggingface.co/") != std::string::npos);
    CHECK(&flopcast::find_model(r.id) == &r);
    for (const auto& a : r.aliases) CHECK(&flopcast::find_model(a) == &r);
    const auto& m = r.spec;
    CHECK(m.hidden_size > 0);
    CHECK(m.vocab_size > 0);
    std::int64_t layers = 0;
    for (const auto& g : m.groups) layers += g.count;
    CHECK(layers == m.num_layers + m.num_encoder_layers);
    CHECK(m.layer_group_of.size() == static_cast<std::size_t>(layers));
    // Attention-free models (Mamba, Mamba-2) have no heads.
    if (!m.attention.mla && m.attention.num_kv_heads > 0) CHECK(m.attention.num_heads % m.attention.num_kv_heads == 0);
  }
  for (const char* t :
       {"llama",  "mistral", "mixtral",  "qwen2", "qwen2_moe", "qwen3",       "qwen3_moe",   "gemma", "gemma2",  "phi3",
        "falcon", "gpt2",    "gpt_neox", "opt",   "bloom",     "deepseek_v2", "deepseek_v3", "bert",  "roberta", "t5"})
    CHECK(types.count(t) == 1);
}

TEST_CASE("GPU database: dense peaks, sources, the required accelerators") {
  const auto& gpus = flopcast::gpu_records();
  CHECK(gpus.size() >= 15);
  for (const char* name :
       {"A100-40GB-SXM", "A100-80GB-SXM", "A100-40GB-PCIe", "A100-80GB-PCIe", "H100-SXM", "H100-PCIe", "H200", "B200",
        "V100", "T4", "L4", "L40S", "A10G", "A6000", "RTX 4090", "RTX 3090", "MI300X"}) {
    INFO(name);
    CHECK_NOTHROW(flopcast::find_gpu(name));
  }
  CHECK(flopcast::find_gpu("A100").name == "A100-80GB-SXM");
  CHECK(flopcast::find_gpu("H100").name == "H100-SXM");
  CHECK(flopcast::find_gpu("h100 sxm").name == "H100-SXM");
  using flopcast::precision;
  for (const auto& g : gpus) {
    INFO(g.name);
    CHECK(g.memory_bytes > 1e9);
    CHECK(g.memory_bandwidth_bytes_per_s > 5e10);  // an M1's 68 GB/s is the slowest record
    CHECK(g.tdp_watts > 0);
    // 0 = no rental price known (consumer cards, Apple, CPUs); a price names its source.
    CHECK(g.cost_per_hour_usd >= 0);
    if (g.cost_per_hour_usd > 0) CHECK(g.source_note.find("cost_per_hour") != std::string::npos);
    // Accelerators sold for multi-device work name their link; SoCs and CPUs may have none.
    if (g.kind == flopcast::device_kind::gpu || g.kind == flopcast::device_kind::tpu ||
        g.kind == flopcast::device_kind::npu)
      CHECK(g.interconnect_bandwidth_bytes_per_s > 0);
    CHECK(g.source_note.find("memory") != std::string::npos);
    CHECK(g.source_note.find("peak_flops") != std::string::npos);
    // fp32 ends every fallback chain; TPUs and Gaudi publish no fp16 (their fp16 entry is absent).
    REQUIRE(g.peak(precision::fp32));
    const auto half = g.peak(precision::fp16) ? g.peak(precision::fp16) : g.peak(precision::bf16);
    // Tensor formats are never slower than fp32, and 8-bit never slower than 16-bit.
    if (half && g.peak(precision::fp32)) CHECK(*half >= *g.peak(precision::fp32));
    if (half && g.peak(precision::fp8)) CHECK(*g.peak(precision::fp8) >= *half);
    if (half && g.peak(precision::int8)) CHECK(*g.peak(precision::int8) >= *half);
    // Dense, not the 2:4-sparse headline: H100 SXM bf16 is 989.4 TFLOP/s, not 1979.
    if (half) CHECK(*half < 2.6e15);
  }
  CHECK(*flopcast::find_gpu("H100").peak(precision::bf16) == Approx(989.4e12).epsilon(0.001));
  CHECK(*flopcast::find_gpu("A100").peak(precision::bf16) == 312e12);
  CHECK_FALSE(flopcast::find_gpu("V100").peak(precision::bf16));
}

TEST_CASE("custom accelerator from JSON") {
  const auto g =
      flopcast::read_hardware(R"({"name": "MyChip", "memory_bytes": 64e9, "memory_bandwidth_bytes_per_s": 1e12,
      "tdp_watts": 300, "peak_flops": {"bfloat16": 400e12, "fp32": 50e12}})");
  CHECK(g.name == "MyChip");
  CHECK(*g.peak(flopcast::precision::bf16) == 400e12);
  CHECK_THROWS_WITH(
      flopcast::read_hardware(R"({"name": "X", "memory_bytes": 1e9, "memory_bandwidth_bytes_per_s": 1e9, "tdp_watts": 1,
      "peak_flops": {"fp64": 1e12}})"),
      Catch::Contains("(/peak_flops/fp64) unknown precision \"fp64\""));
  // Figures outside physical ranges are refused, so no device can make a result inf or NaN.
  CHECK_THROWS_WITH(
      flopcast::read_hardware(R"({"name": "X", "memory_bytes": 1e9, "memory_bandwidth_bytes_per_s": 1e-300,
      "tdp_watts": 1, "peak_flops": {"bf16": 1e12}})"),
      "[flopcast.config.range] (/memory_bandwidth_bytes_per_s) expected a number of bytes/s in [1000000, 1e+16], but "
      "got 1e-300");
  CHECK_THROWS_WITH(flopcast::read_hardware(R"({"name": "X", "memory_bytes": 1e30, "memory_bandwidth_bytes_per_s": 1e12,
      "tdp_watts": 1, "peak_flops": {"bf16": 1e12}})"),
                    Catch::Contains("(/memory_bytes) expected a number of bytes in [1000000, 1e+15], but got 1e+30"));
  CHECK_THROWS_WITH(flopcast::read_hardware(R"({"name": "X", "memory_bytes": 1e9, "memory_bandwidth_bytes_per_s": 1e12,
      "tdp_watts": 1, "peak_flops": {"bf16": 1e-310}})"),
                    Catch::Contains("(/peak_flops/bf16) expected a number of FLOP/s in [1000000, 1e+19], but got"));
}
