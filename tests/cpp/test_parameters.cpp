// Parameter counts: integer-exact against published counts.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

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
  int exact = 0, active = 0;
  for (const auto& rec : flopcast::model_records()) {
    if (rec.published_parameters <= 0) continue;
    const auto ours = flopcast::counts_for_published(rec);
    INFO(rec.id << ": ours " << ours.total << " (active " << ours.active << "), published " << rec.published_parameters
                << " (" << rec.published_text << ", " << rec.published_source << "), scope "
                << flopcast::to_string(rec.published_scope));
    CHECK(flopcast::matches_published(ours.total, rec.published_parameters, rec.published_significant_digits));
    if (rec.published_significant_digits == 0) ++exact;
    if (rec.published_active > 0) {
      INFO("published active " << rec.published_active << " to " << rec.published_active_significant_digits
                               << " significant digits");
      CHECK(flopcast::matches_published(ours.active, rec.published_active, rec.published_active_significant_digits));
      ++active;
    }
  }
  CHECK(exact >= 10);
  CHECK(active >= 3);
}

TEST_CASE("published figures compare exactly or to their significant digits") {
  using flopcast::matches_published;
  CHECK(matches_published(7241732096, 7241732096, 0));
  CHECK_FALSE(matches_published(7241732097, 7241732096, 0));
  // "7.24B" covers 7.235B to 7.245B.
  CHECK(matches_published(7241732096, 7240000000, 3));
  CHECK(matches_published(7245000000, 7240000000, 3));
  CHECK_FALSE(matches_published(7245000001, 7240000000, 3));
  CHECK_FALSE(matches_published(7234999999, 7240000000, 3));
  // "22B" to two digits: 21.5B to 22.5B.
  CHECK(matches_published(22190763520, 22000000000, 2));
  CHECK_FALSE(matches_published(22600000000, 22000000000, 2));
  CHECK_FALSE(matches_published(1, 0, 2));
}

namespace {
std::string record_with(const std::string& published) {
  return R"({"id": "test/tiny", "aliases": ["tiny"], "family": "llama", "source": "https://huggingface.co/test/tiny",
             "published": )" +
         published + R"(, "config": )" + test::llama_config().dump() + "}";
}
}  // namespace

TEST_CASE("record published scope and active count") {
  SECTION("defaults: the whole checkpoint, no active figure") {
    const auto r = flopcast::parse_model_record(record_with(R"({"parameters": 1000, "significant_digits": 1})"));
    CHECK(r.published_scope == flopcast::publication_scope::all);
    CHECK(r.published_active == 0);
    CHECK(r.published_parameters == 1000);
    CHECK(r.published_significant_digits == 1);
  }
  SECTION("scope text and an active count with its own precision") {
    const auto r = flopcast::parse_model_record(
        record_with(R"({"parameters": 1000, "significant_digits": 3, "scope": "text", "active": 200,
                        "active_significant_digits": 1})"));
    CHECK(r.published_scope == flopcast::publication_scope::text);
    CHECK(flopcast::to_string(r.published_scope) == "text");
    CHECK(r.published_active == 200);
    CHECK(r.published_active_significant_digits == 1);
    // A text-only figure is compared with the total less the vision tower (none here).
    const auto p = flopcast::count_parameters(r.spec);
    CHECK(flopcast::counts_for_published(r).total == p.total - p.vision);
    CHECK(flopcast::counts_for_published(r).active == p.active - p.vision);
  }
  SECTION("the active figure inherits the total's precision") {
    const auto r =
        flopcast::parse_model_record(record_with(R"({"parameters": 1000, "significant_digits": 2, "active": 100})"));
    CHECK(r.published_active_significant_digits == 2);
  }
  SECTION("bad values are refused with the field named") {
    auto fails = [](const std::string& published, const char* pointer, const char* what) {
      try {
        (void)flopcast::parse_model_record(record_with(published));
        FAIL("accepted " << published);
      } catch (const flopcast::error& e) {
        CHECK(e.pointer() == pointer);
        CHECK_THAT(e.what(), Catch::Contains(what) && Catch::Contains("test/tiny"));
      }
    };
    fails(R"({"parameters": 1000, "scope": "vision"})", "/published/scope",
          R"(expected "all" (the whole checkpoint), "text" (the language model only) or "non_embedding" )"
          R"((without the input embedding table), got "vision")");
    fails(R"({"parameters": 1000, "scope": 1})", "/published/scope", "expected a string");
    fails(R"({"parameters": 1000, "active": 2000})", "/published/active", "at most the published total 1000");
    fails(R"({"parameters": 1000, "active": 0})", "/published/active", "a positive integer");
    fails(R"({"parameters": 1000, "active": "12B"})", "/published/active", "a positive integer");
    fails(R"({"parameters": 1000, "active_significant_digits": 2})", "/published/active", "without the active count");
    fails(R"({"parameters": -1})", "/published/parameters", "a non-negative integer");
    fails(R"({"parameters": 1000, "significant_digits": 40})", "/published/significant_digits", "0 (exact) to 16");
    fails(R"({"parameters": 1000, "actve": 10})", "/published/actve", "unknown published");
  }
  SECTION("a bad config names the record and the full pointer") {
    auto cfg = test::llama_config();
    cfg["hidden_size"] = "4096";
    const std::string text = R"({"id": "test/tiny", "config": )" + cfg.dump() + "}";
    CHECK_THROWS_WITH(flopcast::parse_model_record(text),
                      Catch::Contains("(/config/hidden_size)") && Catch::Contains("test/tiny"));
    CHECK_THROWS_WITH(flopcast::parse_model_record(R"({"aliases": []})"), Catch::Contains("(/id)"));
  }
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
