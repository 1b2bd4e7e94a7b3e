// The accelerator database (data/gpus.json): invariants every record must satisfy, spot checks of
// named figures against the documents the records cite, and the reader's errors for bad records.
#include <catch2/catch.hpp>
#include <cctype>
#include <map>
#include <string>

#include "helpers.hpp"

namespace {
using flopcast::device_kind;
using flopcast::precision;

std::string squash(const std::string& s) {  // how find_gpu compares names: alphanumerics, lower case
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)))
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}
bool has_source(const flopcast::hardware_spec& g, const std::string& key) {
  return g.source_note.find(key + ": ") != std::string::npos;
}
const flopcast::hardware_spec& gpu(const char* name) { return flopcast::find_gpu(name); }
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

// A minimal valid record with `extra` spliced into the object.
flopcast::hardware_spec read_with(const std::string& extra, const std::string& peaks = R"("bf16": 100e12)") {
  return flopcast::read_hardware(R"({"name": "X", "memory_bytes": 64e9, "memory_bandwidth_bytes_per_s": 1e12,
      "tdp_watts": 300, "peak_flops": {)" +
                                 peaks + "}" + (extra.empty() ? "" : ", " + extra) + "}");
}
}  // namespace

TEST_CASE("devices: at least 95 records, every name and alias resolves to its own record") {
  const auto& gpus = flopcast::gpu_records();
  CHECK(gpus.size() >= 95);
  std::map<std::string, std::string> owner;  // squashed name -> record
  for (const auto& g : gpus) {
    INFO(g.name);
    CHECK(&flopcast::find_gpu(g.name) == &g);
    for (const auto& a : g.aliases) {
      INFO(a);
      CHECK(&flopcast::find_gpu(a) == &g);
      const auto [it, fresh] = owner.emplace(squash(a), g.name);
      if (!fresh) CHECK(it->second == g.name);  // no alias shared by two records
    }
    const auto [it, fresh] = owner.emplace(squash(g.name), g.name);
    if (!fresh) CHECK(it->second == g.name);
  }
  // The short names people type.
  for (const auto& [alias, name] :
       std::map<std::string, std::string>{{"gb200", "GB200"},
                                          {"b300", "B300"},
                                          {"gb300", "GB300"},
                                          {"dgx-spark", "GB10"},
                                          {"spark", "GB10"},
                                          {"gb10", "GB10"},
                                          {"thor", "Jetson-AGX-Thor"},
                                          {"orin", "Jetson-AGX-Orin-64GB"},
                                          {"m3-max", "M3-Max-128GB"},
                                          {"m4-max", "M4-Max-128GB"},
                                          {"m2 ultra", "M2-Ultra-192GB"},
                                          {"mi355x", "MI355X"},
                                          {"mi325x", "MI325X"},
                                          {"v5e", "TPU-v5e"},
                                          {"v6e", "TPU-v6e"},
                                          {"trillium", "TPU-v6e"},
                                          {"ironwood", "TPU-v7"},
                                          {"rtx-5090", "RTX-5090"},
                                          {"5090", "RTX-5090"},
                                          {"4090", "RTX-4090"},
                                          {"gh200", "GH200-96GB"},
                                          {"h20", "H20"},
                                          {"gaudi3", "Gaudi3"},
                                          {"rtx pro 6000", "RTX-PRO-6000-Blackwell"},
                                          {"2080ti", "RTX-2080-Ti"},
                                          {"rtx-3090-ti", "RTX-3090-Ti"},
                                          {"3080 12GB", "RTX-3080-12GB"},
                                          {"NVIDIA GeForce RTX 4070 Ti SUPER", "RTX-4070-Ti-Super"},
                                          {"4080 super", "RTX-4080-Super"},
                                          {"5060 Ti", "RTX-5060-Ti-16GB"},
                                          {"p40", "Tesla-P40"},
                                          {"AMD Radeon RX 7900 XT", "RX-7900-XT"},
                                          {"AMD Radeon RX 7900 XTX", "RX-7900-XTX"},
                                          {"9070xt", "RX-9070-XT"},
                                          {"r9700", "Radeon-AI-PRO-R9700"},
                                          {"mi250", "MI250"},
                                          {"b60", "Arc-Pro-B60"},
                                          {"h200-nvl", "H200-NVL"},
                                          {"mi300a", "MI300A"},
                                          {"6700xt", "RX-6700-XT"},
                                          {"a770", "Arc-A770-16GB"},
                                          {"a750", "Arc-A750"},
                                          {"v100s", "V100S-PCIe"},
                                          {"rtx 5000 ada", "RTX-5000-Ada"},
                                          {"w7900", "Radeon-PRO-W7900"},
                                          {"titan v", "TITAN-V"},
                                          {"nvidia a2", "A2"},
                                          {"a580", "Arc-A580"},
                                          {"b570", "Arc-B570"},
                                          {"w7800", "Radeon-PRO-W7800"},
                                          {"mi50", "MI50-32GB"},
                                          {"mi60", "MI60"},
                                          {"7600xt", "RX-7600-XT"},
                                          {"6950xt", "RX-6950-XT"},
                                          {"6750xt", "RX-6750-XT"}}) {
    INFO(alias);
    CHECK(flopcast::find_gpu(alias).name == name);
  }
}

TEST_CASE("devices: dense peaks are ordered, figures are physical and every figure has a source") {
  for (const auto& g : flopcast::gpu_records()) {
    INFO(g.name);
    const auto p = [&](precision x) { return g.peak(x); };
    // fp32 ends every precision's fallback chain, so any precision runs on any device (TPUs list
    // the 6-pass bf16 emulation, Gaudi its vector rate).
    CHECK(p(precision::fp32));
    if (p(precision::bf16) && p(precision::fp32)) CHECK(*p(precision::bf16) >= *p(precision::fp32));
    if (p(precision::fp16) && p(precision::fp32)) CHECK(*p(precision::fp16) >= *p(precision::fp32));
    if (p(precision::fp8) && p(precision::bf16)) CHECK(*p(precision::fp8) >= *p(precision::bf16));
    if (p(precision::fp8) && p(precision::fp16)) CHECK(*p(precision::fp8) >= *p(precision::fp16));
    if (g.peak_fp6 && p(precision::fp8)) CHECK(*g.peak_fp6 >= *p(precision::fp8));
    if (g.peak_fp4 && p(precision::fp8)) CHECK(*g.peak_fp4 >= *p(precision::fp8));
    if (g.peak_fp4 && g.peak_fp6) CHECK(*g.peak_fp4 >= *g.peak_fp6);
    if (g.peak_fp16_acc16) {
      // GeForce: FP16 accumulate runs at exactly twice the FP32-accumulate rate stored as fp16.
      REQUIRE(p(precision::fp16));
      CHECK(*g.peak_fp16_acc16 >= *p(precision::fp16));
      CHECK(*g.peak_fp16_acc16 == Approx(2 * *p(precision::fp16)).epsilon(0.01));
    }
    // Dense, not sparse: no single device reaches 3 PFLOP/s dense bf16 or 16 PFLOP/s dense fp4.
    if (p(precision::bf16)) CHECK(*p(precision::bf16) < 3e15);
    if (g.peak_fp4) CHECK(*g.peak_fp4 < 16e15);
    // Physical ranges: 4 GiB (the consumer cards people run llama.cpp on have 8-11 GB: RTX 4060,
    // 3070, 2080 Ti) to 1 TiB (a CPU socket); 50 GB/s to 10 TB/s.
    CHECK(g.memory_bytes >= 4 * GiB);
    CHECK(g.memory_bytes <= 1024 * GiB);
    CHECK(g.memory_bandwidth_bytes_per_s >= 5e10);
    CHECK(g.memory_bandwidth_bytes_per_s <= 1e13);
    CHECK(g.tdp_watts >= 10);
    CHECK(g.tdp_watts <= 2000);
    CHECK(g.usable_memory_fraction > 0);
    CHECK(g.usable_memory_fraction <= 1);
    // Only unified-memory systems share their RAM with an OS.
    if (g.kind != device_kind::soc) CHECK(g.usable_memory_fraction == 1);
    if (g.kind == device_kind::soc) CHECK(has_source(g, "usable_memory"));
    if (g.interconnect_domain_size > 0) CHECK(g.interconnect_bandwidth_bytes_per_s > 0);
    if (g.kind == device_kind::gpu || g.kind == device_kind::tpu || g.kind == device_kind::npu)
      CHECK(g.interconnect_bandwidth_bytes_per_s > 0);
    for (const char* key : {"memory", "memory_bandwidth", "peak_flops", "tdp", "cost_per_hour"}) {
      INFO(key);
      CHECK(has_source(g, key));
    }
    if (g.interconnect_bandwidth_bytes_per_s > 0) CHECK(has_source(g, "interconnect"));
    CHECK(g.cost_per_hour_usd >= 0);
  }
}

TEST_CASE("devices: figures match the vendor documents the records cite") {
  // NVIDIA H100 architecture whitepaper: 989.4 TFLOPS dense BF16 (1,979 is the sparse headline).
  CHECK(*gpu("H100").peak(precision::bf16) == Approx(989.4e12).epsilon(1e-4));
  // NVIDIA HGX B200 datasheet: 180 GB HBM3e, 7.7 TB/s per GPU (DGX B200 launch material: 8 TB/s);
  // FP4 18 PF sparse = 9 PF dense, FP8/FP6 4.5 PF dense.
  const auto& b200 = gpu("B200");
  CHECK(b200.memory_bytes == 180 * GiB);
  CHECK(b200.memory_bandwidth_bytes_per_s == 7.7e12);
  CHECK(*b200.peak_fp4 == 9e15);
  CHECK(*b200.peak_fp6 == 4.5e15);
  CHECK(b200.interconnect_generation == "NVLink 5");
  CHECK(b200.interconnect_domain_size == 8);
  // NVIDIA GB200 NVL72: 72 GPUs in one NVLink domain; 10 PF dense FP4 per GPU (40 PF sparse per superchip).
  CHECK(gpu("gb200").interconnect_domain_size == 72);
  CHECK(*gpu("gb200").peak_fp4 == 10e15);
  // GB300 NVL72: 1,080 PF dense FP4 per 72 GPUs = 15 PF.
  CHECK(*gpu("gb300").peak_fp4 == Approx(1080e15 / 72));
  // Apple M4 Max (40-core GPU): 546 GB/s, up to 128 GB; macOS lets the GPU wire 3/4 of it.
  const auto& m4 = gpu("m4-max");
  CHECK(m4.memory_bandwidth_bytes_per_s == 546e9);
  CHECK(m4.memory_bytes == 128 * GiB);
  CHECK(m4.kind == device_kind::soc);
  CHECK(m4.usable_memory_fraction == 0.75);
  CHECK(m4.usable_memory_bytes() == 96 * GiB);
  // llama.cpp logs recommendedMaxWorkingSetSize 10922.67 MB on a 16 GB Mac: 2/3.
  CHECK(gpu("M1").usable_memory_bytes() / (1024.0 * 1024.0) == Approx(10922.67).epsilon(1e-5));
  // Apple M1 Max newsroom: 10.4 teraflops.
  CHECK(*gpu("m1-max").peak(precision::fp32) == Approx(10.4e12).epsilon(0.01));
  // AMD MI355X: 288 GB HBM3E, 8 TB/s; MXFP4 10.1 PF dense (20.1 PF is the sparse headline).
  const auto& mi355 = gpu("mi355x");
  CHECK(mi355.memory_bytes == 288 * GiB);
  CHECK(mi355.memory_bandwidth_bytes_per_s == 8e12);
  CHECK(*mi355.peak_fp4 == Approx(10.1e15).epsilon(0.005));
  CHECK(*mi355.peak(precision::bf16) == Approx(2.5e15).epsilon(0.01));
  // NVIDIA Ada whitepaper, RTX 4090: FP16 tensor 330.3 with FP16 accumulate, 165.2 with FP32.
  CHECK(*gpu("4090").peak_fp16_acc16 == 330.3e12);
  CHECK(*gpu("4090").peak(precision::fp16) == 165.2e12);
  // RTX 5090 spec page: 3,352 AI TOPS = FP4 with sparsity -> 1,676 dense.
  CHECK(*gpu("5090").peak_fp4 == Approx(3352e12 / 2).epsilon(0.001));
  CHECK(gpu("5090").memory_bytes == 32 * GiB);
  // DGX Spark: 1 PFLOP FP4 with sparsity, 128 GB, 273 GB/s.
  CHECK(*gpu("spark").peak_fp4 == 500e12);
  CHECK(gpu("spark").memory_bandwidth_bytes_per_s == 273e9);
  // Cloud TPU docs: v5e 197 TFLOPs bf16, 16 GB, 819 GBps, 256-chip pod; TPU7x 2307 bf16 / 4614 fp8, 192 GiB.
  const auto& v5e = gpu("v5e");
  CHECK(v5e.kind == device_kind::tpu);
  CHECK(*v5e.peak(precision::bf16) == 197e12);
  CHECK(v5e.memory_bytes == 16 * GiB);
  CHECK(v5e.memory_bandwidth_bytes_per_s == 819e9);
  CHECK(v5e.interconnect_domain_size == 256);
  CHECK(*gpu("ironwood").peak(precision::bf16) == 2307e12);
  CHECK(*gpu("ironwood").peak(precision::fp8) == 4614e12);
  CHECK(gpu("ironwood").memory_bytes == 192 * GiB);
  CHECK(gpu("trillium").memory_bandwidth_bytes_per_s == 1638e9);
  // Intel Gaudi 3 (Hot Chips 2024): 1,835 TFLOPS BF16 and FP8 matrix, 128 GB, 3.67 TB/s.
  CHECK(*gpu("gaudi3").peak(precision::bf16) == 1835e12);
  CHECK(gpu("gaudi3").memory_bandwidth_bytes_per_s == 3.67e12);
  // CPUs: EPYC 9654 460.8 GB/s (12 x DDR5-4800); Ryzen 9 9950X 89.6 GB/s (2 x DDR5-5600).
  CHECK(gpu("EPYC 9654").kind == device_kind::cpu);
  CHECK(gpu("EPYC 9654").memory_bandwidth_bytes_per_s == Approx(12 * 8 * 4800e6));
  CHECK(gpu("9950X").memory_bandwidth_bytes_per_s == Approx(2 * 8 * 5600e6));
  // Records without a kind are GPUs with all their memory usable.
  CHECK(gpu("A100").kind == device_kind::gpu);
  CHECK(gpu("A100").usable_memory_fraction == 1);
  CHECK_FALSE(gpu("H100").peak_fp4);
}

TEST_CASE("devices: the issue-25 additions match the documents they cite") {
  // NVIDIA H200 datasheet, NVL column: 141GB HBM3e, 4.8 TB/s, FP8 3,341 TFLOPS with sparsity -> 1,670.5
  // dense, up to 600 W, a 2- or 4-way NVLink bridge at 900 GB/s per GPU.
  const auto& nvl = gpu("h200-nvl");
  CHECK(nvl.memory_bytes == 141 * GiB);
  CHECK(nvl.memory_bandwidth_bytes_per_s == 4.8e12);
  CHECK(*nvl.peak(precision::fp8) == Approx(3341e12 / 2));
  CHECK(*nvl.peak(precision::bf16) == Approx(1671e12 / 2).epsilon(0.001));
  CHECK(nvl.tdp_watts == 600);
  CHECK(nvl.interconnect_bandwidth_bytes_per_s == 900e9);
  CHECK(nvl.interconnect_domain_size == 4);
  // The H200 NVL is the H100 NVL's GH100 configuration with more, faster memory: same dense peaks.
  CHECK(*nvl.peak(precision::bf16) == *gpu("H100-NVL").peak(precision::bf16));
  // AMD MI300A: 228 CUs at 2.1 GHz, FP16 980.6 TFLOPS = 228 x 2.1e9 x 2048; 128 GB HBM3 at 5.3 TB/s;
  // four APUs per node, each linked to its 3 peers at 256 GB/s.
  const auto& mi300a = gpu("mi300a");
  CHECK(*mi300a.peak(precision::fp16) == Approx(228 * 2.1e9 * 2048).epsilon(1e-4));
  CHECK(mi300a.memory_bytes == 128 * GiB);
  CHECK(mi300a.memory_bandwidth_bytes_per_s == 5.3e12);
  CHECK(mi300a.interconnect_bandwidth_bytes_per_s == 3 * 256e9);
  CHECK(mi300a.gfx == "gfx942");
  // RX 6700 XT: 2,560 stream processors at 2,581 MHz = 13.21 TFLOPS FP32, 12 GB at 384 GB/s, gfx1031.
  const auto& rx6700xt = gpu("6700xt");
  CHECK(*rx6700xt.peak(precision::fp32) == Approx(2560 * 2 * 2.581e9).epsilon(1e-3));
  CHECK(rx6700xt.memory_bytes == 12 * GiB);
  CHECK(rx6700xt.gfx == "gfx1031");
  // Arc A770: 32 Xe-cores x 16 XMX engines x 128 FP16 ops per clock x 2.1 GHz; INT8 at twice that.
  const auto& a770 = gpu("a770");
  CHECK(*a770.peak(precision::fp16) == Approx(32 * 16 * 128 * 2.1e9).epsilon(1e-3));
  CHECK(*a770.peak(precision::int8) == Approx(2 * *a770.peak(precision::fp16)).epsilon(1e-3));
  CHECK(a770.memory_bandwidth_bytes_per_s == 560e9);
  // V100S PCIe (NVIDIA V100 datasheet): 16.4 TFLOPS FP32, 130 tensor TFLOPS, 1,134 GB/s.
  CHECK(*gpu("v100s").peak(precision::fp16) == 130e12);
  CHECK(gpu("v100s").memory_bandwidth_bytes_per_s == 1134e9);
  // RTX 5000 Ada: 100 SMs x 2.55 GHz x 1024 dense FP16 FLOP per clock, the RTX 6000 Ada's per-SM rate.
  CHECK(*gpu("rtx 5000 ada").peak(precision::fp16) == Approx(100 * 2.55e9 * 1024).epsilon(1e-3));
  // A2 (GA107): 18.13 TFLOPS dense FP16 tensor (36.25 sparse), 60 W, PCIe 4.0 x8.
  CHECK(*gpu("nvidia a2").peak(precision::fp16) == Approx(36.25e12 / 2).epsilon(1e-3));
  CHECK(gpu("nvidia a2").compute_capability == 8.6);
  // Arc B570: Intel's 203 peak INT8 TOPS; XMX FP16 at half that, as the B580 record.
  CHECK(*gpu("b570").peak(precision::int8) == 203e12);
  CHECK(*gpu("b570").peak(precision::fp16) == Approx(203e12 / 2));
}

TEST_CASE("devices: the new record fields are read and bounded") {
  const auto g = read_with(R"("kind": "TPU", "usable_memory_fraction": 0.5,
      "interconnect": {"name": "ICI", "bandwidth_bytes_per_s": 4e11, "generation": "ICI v5e", "domain_size": 256})",
                           R"("bf16": 197e12, "fp4": 800e12, "fp6": 400e12, "fp16_acc16": 300e12)");
  CHECK(g.kind == device_kind::tpu);
  CHECK(g.usable_memory_fraction == 0.5);
  CHECK(g.usable_memory_bytes() == 32e9);
  CHECK(g.interconnect_generation == "ICI v5e");
  CHECK(g.interconnect_domain_size == 256);
  CHECK(*g.peak_fp4 == 800e12);
  CHECK(*g.peak_fp6 == 400e12);
  CHECK(*g.peak_fp16_acc16 == 300e12);
  CHECK_FALSE(g.peak(precision::fp8));  // the extras do not leak into the precision table
  const auto plain = read_with("");
  CHECK(plain.kind == device_kind::gpu);
  CHECK(plain.usable_memory_fraction == 1);
  CHECK(plain.interconnect_domain_size == 0);
  CHECK_FALSE(plain.peak_fp4);
  for (device_kind k : {device_kind::gpu, device_kind::tpu, device_kind::npu, device_kind::cpu, device_kind::soc})
    CHECK(read_with(R"("kind": ")" + std::string(flopcast::to_string(k)) + "\"").kind == k);
}

TEST_CASE("devices: bad records get a specific error naming the field") {
  CHECK_THROWS_WITH(read_with("", R"("bf16": 1e12, "fp4": -1e15)"),
                    "[flopcast.config.range] (/peak_flops/fp4) expected a number of FLOP/s in [1000000, 1e+19], but "
                    "got -1e+15");
  CHECK_THROWS_WITH(read_with("", R"("bf16": 1e12, "fp16_acc16": "fast")"),
                    Catch::Contains("(/peak_flops/fp16_acc16) expected a number, but got"));
  CHECK_THROWS_WITH(read_with("", R"("fp4": 1e15)"),
                    Catch::Contains("(/peak_flops) expected at least one of fp32, tf32, fp16, bf16"));
  CHECK_THROWS_WITH(read_with(R"("kind": "fpga")"),
                    "[flopcast.config.range] (/kind) unknown device kind \"fpga\": expected one of \"gpu\", \"tpu\", "
                    "\"npu\", \"cpu\", \"soc\"");
  CHECK_THROWS_WITH(read_with(R"("kind": 3)"), Catch::Contains("[flopcast.config.type] (/kind) expected one of"));
  CHECK_THROWS_WITH(read_with(R"("usable_memory_fraction": 0)"),
                    "[flopcast.config.range] (/usable_memory_fraction) expected a fraction of memory_bytes in [0.01, "
                    "1], but got 0");
  CHECK_THROWS_WITH(read_with(R"("usable_memory_fraction": 1.5)"),
                    "[flopcast.config.range] (/usable_memory_fraction) expected a fraction of memory_bytes in [0.01, "
                    "1], but got 1.5");
  CHECK_THROWS_WITH(read_with(R"("usable_memory_fraction": "most")"),
                    Catch::Contains("[flopcast.config.type] (/usable_memory_fraction)"));
  CHECK_THROWS_WITH(
      read_with(R"("interconnect": {"name": "NVLink", "bandwidth_bytes_per_s": 9e11, "domain_size": 0})"),
      "[flopcast.config.range] (/interconnect/domain_size) expected a positive number of devices (at most "
      "2^20), but got 0");
  CHECK_THROWS_WITH(read_with(R"("interconnect": {"name": "NVLink", "domain_size": 7.5})"),
                    Catch::Contains("(/interconnect/domain_size) expected a positive number of devices"));
}

TEST_CASE("devices: a peak under a storage format's name is refused, not stored out of range") {
  // fuzz_hardware found this: "q4_k_m" parses as a precision but no device lists a rate for it.
  CHECK_THROWS_WITH(flopcast::read_hardware(R"({"name": "X", "memory_bytes": 1e9, "memory_bandwidth_bytes_per_s": 1e11,
                                                "tdp_watts": 100, "peak_flops": {"fp16": 1e14, "q4_k_m": 1e14}})"),
                    Catch::Contains("(/peak_flops/q4_k_m) expected a device rate"));
}
