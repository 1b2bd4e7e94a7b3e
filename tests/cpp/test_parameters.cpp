// Parameter counts: integer-exact against published counts.
#include <catch2/catch.hpp>
#include <cmath>

#include "helpers.hpp"

using flopcast::count_parameters;

TEST_CASE("published exact counts named in the foundation issue") {
  struct ref {
    const char* name;
    std::int64_t params;
  };
  // Sources: model cards / safetensors metadata on the Hugging Face Hub; the data/ records
  // carry each source.
  const ref refs[] = {
      {"meta-llama/Llama-2-7b-hf", 6738415616},
      {"meta-llama/Meta-Llama-3-8B", 8030261248},
      {"mistralai/Mistral-7B-v0.1", 7241732096},
      {"mistralai/Mixtral-8x7B-v0.1", 46702792704},
      {"gpt2", 124439808},
      {"EleutherAI/gpt-neox-20b", 20554567680},
      {"bigscience/bloom-7b1", 7069016064},
  };
  for (const auto& r : refs) {
    INFO(r.name);
    CHECK(count_parameters(test::model(r.name)).total == r.params);
  }
}

TEST_CASE("every bundled model matches its published count") {
  int exact = 0;
  for (const auto& rec : flopcast::model_records()) {
    if (rec.published_parameters <= 0) continue;
    const std::int64_t ours = count_parameters(rec.spec).total;
    INFO(rec.id << ": ours " << ours << ", published " << rec.published_parameters << " (" << rec.published_text << ", "
                << rec.published_source << ")");
    if (rec.published_significant_digits == 0) {
      CHECK(ours == rec.published_parameters);
      ++exact;
    } else {
      // A figure like "7.24B" promises half a unit in its last digit.
      const double p = static_cast<double>(rec.published_parameters);
      const double unit = std::pow(10.0, std::floor(std::log10(p)) - rec.published_significant_digits + 1);
      CHECK(std::fabs(static_cast<double>(ours) - p) <= 0.5 * unit);
    }
  }
  CHECK(exact >= 10);
}

TEST_CASE("active parameters of MoE models use only the routed experts") {
  const auto p = count_parameters(test::model("mistralai/Mixtral-8x7B-v0.1"));
  // 6 of 8 experts idle in each of 32 layers, each expert 3 x 4096 x 14336.
  CHECK(p.total - p.active == std::int64_t{6} * 32 * 3 * 4096 * 14336);
  const auto dense = count_parameters(test::model("meta-llama/Meta-Llama-3-8B"));
  CHECK(dense.active == dense.total);
}

TEST_CASE("breakdown components sum to the total") {
  for (const auto& rec : flopcast::model_records()) {
    const auto p = count_parameters(rec.spec);
    INFO(rec.id);
    CHECK(p.embedding + p.attention + p.mlp + p.norm + p.output_head + p.mixer + p.vision == p.total);
    CHECK(p.active <= p.total);
    CHECK(p.active > 0);
  }
}

TEST_CASE("config fields that change the count are honoured") {
  const auto base = count_parameters(test::spec(test::llama_config())).total;
  SECTION("tie_word_embeddings removes the head") {
    auto c = test::llama_config();
    c["tie_word_embeddings"] = true;
    CHECK(base - count_parameters(test::spec(c)).total == 32000 * 4096);
  }
  SECTION("GQA shrinks k and v") {
    CHECK(base - count_parameters(test::spec(test::llama_config(8))).total ==
          std::int64_t{32} * 2 * 4096 * (4096 - 1024));
  }
  SECTION("attention_bias adds q, k, v and o biases") {
    auto c = test::llama_config();
    c["attention_bias"] = true;
    CHECK(count_parameters(test::spec(c)).total - base == 32 * 4 * 4096);
  }
  SECTION("explicit head_dim different from hidden/heads") {
    auto c = test::llama_config();
    c["head_dim"] = 256;
    CHECK(count_parameters(test::spec(c)).total - base == std::int64_t{32} * 4 * 4096 * (8192 - 4096));
  }
  SECTION("Qwen2 has q/k/v biases but no o bias") {
    auto c = test::llama_config();
    c["model_type"] = "qwen2";
    CHECK(count_parameters(test::spec(c)).total - base == 32 * 3 * 4096);
  }
}

TEST_CASE("Falcon multi_query means one K/V head") {
  const test::json falcon = {{"model_type", "falcon"},    {"hidden_size", 4544}, {"num_hidden_layers", 32},
                             {"num_attention_heads", 71}, {"vocab_size", 65024}, {"multi_query", true},
                             {"parallel_attn", true},     {"bias", false}};
  CHECK(count_parameters(test::spec(falcon)).total == 6921720704);  // tiiuae/falcon-7b
  auto mha = falcon;
  mha["multi_query"] = false;
  CHECK(count_parameters(test::spec(mha)).total - 6921720704 == std::int64_t{32} * 4544 * (2 * 4544 - 128));
}

TEST_CASE("encoder and encoder-decoder counts") {
  const test::json bert = {{"model_type", "bert"},           {"hidden_size", 768},        {"num_hidden_layers", 12},
                           {"num_attention_heads", 12},      {"intermediate_size", 3072}, {"vocab_size", 30522},
                           {"max_position_embeddings", 512}, {"type_vocab_size", 2}};
  CHECK(count_parameters(test::spec(bert)).total == 109482240);  // bert-base-uncased BertModel
  const test::json t5 = {{"model_type", "t5"}, {"d_model", 768},  {"d_kv", 64},          {"d_ff", 3072},
                         {"num_layers", 12},   {"num_heads", 12}, {"vocab_size", 32128}, {"feed_forward_proj", "relu"}};
  CHECK(count_parameters(test::spec(t5)).total == 222903552);  // t5-base
}

TEST_CASE("a multimodal wrapper is estimated by its language model") {
  // LLaVA-1.5-style: {"model_type": "llava", "text_config": {...llama...}, "vision_config": {...}}.
  test::json inner = test::llama_config(8);
  test::json wrapper = {{"model_type", "llava"},
                        {"_name_or_path", "llava-hf/llava-1.5-7b-hf"},
                        {"text_config", inner},
                        {"vision_config", {{"model_type", "clip_vision_model"}, {"hidden_size", 1024}}}};
  const auto wrapped = flopcast::read_hf_config(wrapper.dump());
  const auto plain = flopcast::read_hf_config(inner.dump());
  const auto wp = flopcast::count_parameters(wrapped);
  CHECK(wp.total - wp.vision == flopcast::count_parameters(plain).total);
  CHECK(wp.vision > 0);  // the CLIP tower and LLaVA's projector, counted apart
  CHECK(wrapped.name == "llava-hf/llava-1.5-7b-hf");
  // Errors inside it keep the full pointer; a wrapper around nothing known is still refused.
  wrapper["text_config"]["hidden_size"] = "4096";
  CHECK_THROWS_WITH(flopcast::read_hf_config(wrapper.dump()), Catch::Contains("(/text_config/hidden_size)"));
  CHECK_THROWS_WITH(flopcast::read_hf_config(R"({"model_type": "llava", "text_config": {"model_type": "rwkv"}})"),
                    Catch::Contains("(/text_config/model_type) unsupported model_type \"rwkv\""));
  CHECK_THROWS_WITH(flopcast::read_hf_config(R"({"model_type": "llava"})"),
                    Catch::Contains("(/model_type) unsupported model_type \"llava\""));
}
