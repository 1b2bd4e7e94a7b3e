// Memory: KV cache, weights by precision, training state.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"

using flopcast::kv_cache_bytes;
using flopcast::precision;

TEST_CASE("KV cache: 2 x batch x tokens x layers x kv_heads x head_dim x bytes") {
  CHECK(kv_cache_bytes(test::model("meta-llama/Meta-Llama-3-8B"), 4, 2048, precision::bf16, 0) == 1073741824.0);
  CHECK(kv_cache_bytes(test::model("meta-llama/Llama-2-7b-hf"), 1, 1, precision::fp16, 0) == 524288.0);
}

TEST_CASE("GQA cache = MHA cache x kv_heads / heads") {
  const auto mha = test::spec(test::llama_config(32)), gqa = test::spec(test::llama_config(8)),
             mqa = test::spec(test::llama_config(1));
  const double full = kv_cache_bytes(mha, 3, 777, precision::bf16, 0);
  CHECK(kv_cache_bytes(gqa, 3, 777, precision::bf16, 0) == full * 8 / 32);
  CHECK(kv_cache_bytes(mqa, 3, 777, precision::bf16, 0) == full / 32);
}

TEST_CASE("sliding window caps the cache, Gemma-2 only on its sliding layers") {
  const auto& mistral = test::model("mistralai/Mistral-7B-v0.1");
  CHECK(kv_cache_bytes(mistral, 1, 100000, precision::bf16, 0) == kv_cache_bytes(mistral, 1, 4096, precision::bf16, 0));
  const auto& gemma2 = test::model("google/gemma-2-9b");
  const double at8k = kv_cache_bytes(gemma2, 1, 8192, precision::bf16, 0);
  const double at4k = kv_cache_bytes(gemma2, 1, 4096, precision::bf16, 0);
  CHECK(at8k == Approx(at4k * 1.5));  // half the layers stop growing at 4096
}

TEST_CASE("no KV cache for encoders, cross-attention cache for encoder-decoder") {
  CHECK(kv_cache_bytes(test::model("bert-base-uncased"), 8, 512, precision::fp16, 0) == 0);
  const auto& t5 = test::model("google-t5/t5-base");
  // 12 decoder layers x (self: tokens, cross: encoder tokens) x 2 x 12 heads x 64 x 2 bytes
  CHECK(kv_cache_bytes(t5, 1, 10, precision::fp16, 512) == 12.0 * (10 + 512) * 2 * 768 * 2);
}

TEST_CASE("weights by precision: narrow formats quantize the linear layers, int8/int4 keep an fp16 cache") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  flopcast::settings s;
  s.num_generated_tokens = 0;
  const double params = 8030261248.0;
  const auto p = flopcast::count_parameters(m);
  // Llama-3-8B: an untied 128256 x 4096 embedding and head, 65 RMSNorms of 4096.
  const double table = 128256.0 * 4096, norms = 65.0 * 4096;
  REQUIRE(static_cast<double>(p.embedding) == table);
  REQUIRE(static_cast<double>(p.output_head) == table);
  REQUIRE(static_cast<double>(p.norm) == norms);
  const double linear = params - 2 * table - norms;
  // Bits per weight with scales: fp8 8; int8 (GPTQ g128) 8 + 16/128 + 8/128; int4 (AWQ/GPTQ
  // g128) 4 + 16/128 + 4/128; the embedding, the head and the norms stay 16-bit ("Only the
  // weights of the linear operators within transformers blocks are quantized": the model card of
  // RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16, group size 128).
  const std::pair<precision, double> bits[] = {{precision::fp8, 8.0},      {precision::int8, 8.1875},
                                               {precision::int4, 4.15625}, {precision::nvfp4, 4.5},
                                               {precision::mxfp4, 4.25},   {precision::nf4, 4.126953125}};
  for (const auto& [f, b] : bits) {
    INFO(flopcast::to_string(f));
    CHECK(flopcast::bits_per_weight(f) == b);
    s.weight_precision = f;
    const auto r = flopcast::estimate(m, s, nullptr);
    CHECK(r.memory.weights == Approx(linear * b / 8 + (2 * table + norms) * 2).epsilon(1e-12));
  }
  // Plain formats store everything alike.
  for (const auto& [f, b] : {std::pair{precision::fp32, 4.0}, {precision::tf32, 4.0}, {precision::bf16, 2.0}}) {
    s.weight_precision = f;
    CHECK(flopcast::estimate(m, s, nullptr).memory.weights == params * b);
  }
  const double kv16 = kv_cache_bytes(m, 1, 2048, precision::fp16, 0);
  for (precision f : {precision::int8, precision::int4}) {
    s.weight_precision = f;
    CHECK(flopcast::estimate(m, s, nullptr).memory.kv_cache == kv16);
  }
  s.weight_precision = precision::int4;
  s.kv_cache_precision = precision::fp8;
  CHECK(flopcast::estimate(m, s, nullptr).memory.kv_cache == kv16 / 2);
  s.kv_cache_precision = precision::q8_0;  // llama.cpp --cache-type-k/v q8_0: 34 bytes per 32
  CHECK(flopcast::estimate(m, s, nullptr).memory.kv_cache == Approx(kv16 * 8.5 / 16).epsilon(1e-12));
  // A precision per part: the experts of nothing change nothing here, the attention does.
  s.kv_cache_precision.reset();
  s.weight_precision = precision::bf16;
  s.component_precision[static_cast<std::size_t>(flopcast::weight_component::experts)] = precision::mxfp4;
  CHECK(flopcast::estimate(m, s, nullptr).memory.weights == params * 2);
  s.component_precision[static_cast<std::size_t>(flopcast::weight_component::attention)] = precision::fp8;
  CHECK(flopcast::estimate(m, s, nullptr).memory.weights ==
        Approx(params * 2 - static_cast<double>(p.attention)).epsilon(1e-12));
}

TEST_CASE("the cache at the end of the request includes the generated tokens") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  flopcast::settings s;
  s.sequence_length = 1000;
  s.num_generated_tokens = 24;
  const auto r = flopcast::estimate(m, s, nullptr);
  CHECK(r.memory.kv_cache == kv_cache_bytes(m, 1, 1024, precision::bf16, 0));
  CHECK(r.memory.kv_cache_prompt == kv_cache_bytes(m, 1, 1000, precision::bf16, 0));
}

TEST_CASE("training memory: 16 bytes/param for mixed-precision Adam, 12 for SGD") {
  const auto& m = test::model("meta-llama/Llama-2-7b-hf");
  flopcast::settings s;
  s.training = true;
  const double P = 6738415616.0;
  auto r = flopcast::estimate(m, s, nullptr);
  CHECK(r.memory.train_weights + r.memory.train_gradients + r.memory.train_optimizer_state == 16 * P);
  s.optim = flopcast::optimizer::sgd;
  r = flopcast::estimate(m, s, nullptr);
  CHECK(r.memory.train_weights + r.memory.train_gradients + r.memory.train_optimizer_state == 12 * P);
  s.optim = flopcast::optimizer::adamw;
  s.weight_precision = precision::fp32;
  r = flopcast::estimate(m, s, nullptr);
  CHECK(r.memory.train_weights + r.memory.train_gradients + r.memory.train_optimizer_state == 16 * P);
  // Checkpointing trades stored activations for recompute.
  s.weight_precision = precision::bf16;
  const double with = flopcast::estimate(m, s, nullptr).memory.train_activations;
  s.gradient_checkpointing = false;
  const double without = flopcast::estimate(m, s, nullptr).memory.train_activations;
  CHECK(without > 3 * with);
}

TEST_CASE("activation estimate grows without FlashAttention") {
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  flopcast::settings s;
  const double flash = flopcast::estimate(m, s, nullptr).memory.activations;
  s.flash_attention = false;
  const double eager = flopcast::estimate(m, s, nullptr).memory.activations;
  CHECK(eager - flash == 2048.0 * 32 * 2048 * 2);  // one layer's S x S scores per head, fp16
}

TEST_CASE("memory is monotonic in batch and sequence") {
  const auto& m = test::model("mistralai/Mixtral-8x7B-v0.1");
  flopcast::settings s;
  double prev = 0;
  for (int b : {1, 2, 7, 64}) {
    s.batch_size = b;
    const double mem = flopcast::estimate(m, s, nullptr).memory.total;
    CHECK(mem > prev);
    prev = mem;
  }
  s.batch_size = 1;
  prev = 0;
  for (int q : {1, 100, 4096, 65536}) {
    s.sequence_length = q;
    const double mem = flopcast::estimate(m, s, nullptr).memory.total;
    CHECK(mem > prev);
    prev = mem;
  }
}

TEST_CASE("a GPU memory reserve is subtracted in the one fit check") {
  // Llama-3-8B bf16 at batch 1 x 2048 (+128) needs about 16.9 GB: it fits a 24 GB card with
  // nothing reserved and not once the runtime keeps 8 GB (the estimate, the layout and training agree).
  const auto& m = test::model("meta-llama/Meta-Llama-3-8B");
  const auto& gpu = flopcast::find_gpu("L4");
  flopcast::settings s;
  const auto free = flopcast::estimate(m, s, &gpu);
  REQUIRE(free.memory.total < gpu.memory_bytes);
  CHECK(free.memory.fits_on_gpu);
  CHECK(free.parallel.fits_per_gpu);
  s.gpu_memory_reserve_bytes = gpu.memory_bytes - free.memory.total + 1;
  const auto reserved = flopcast::estimate(m, s, &gpu);
  CHECK_FALSE(reserved.memory.fits_on_gpu);
  CHECK_FALSE(reserved.parallel.fits_per_gpu);
  CHECK(reserved.memory.total == free.memory.total);  // only the fit changes
  s.gpu_memory_reserve_bytes = -1;
  CHECK_THROWS_WITH(flopcast::estimate(m, s, &gpu),
                    "[flopcast.config.range] (/gpu_memory_reserve_bytes) expected a number of bytes in [0, 1e+15], "
                    "but got -1");
}

TEST_CASE("encoder-decoder with no generated tokens: the end-of-request cache is the prompt's") {
  const auto& m = test::model("t5-small");
  flopcast::settings s;
  for (std::int64_t n : {0, 1, 2, 64}) {
    s.num_generated_tokens = n;
    const auto r = flopcast::estimate(m, s, nullptr);
    INFO("generated tokens " << n);
    CHECK(r.memory.kv_cache >= r.memory.kv_cache_prompt);
    if (n <= 1) CHECK(r.memory.kv_cache == r.memory.kv_cache_prompt);
  }
}
