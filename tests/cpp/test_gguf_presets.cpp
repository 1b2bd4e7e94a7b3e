// llama.cpp quantization presets (core/src/checkpoint/gguf_presets.hpp): the per-tensor type rules of
// ggml-org/llama.cpp src/llama-quant.cpp on named tensors, the fallback for rows that are not
// whole blocks, and the bytes against published GGUF files and llama.cpp's own table.
#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <set>

#include "../../core/src/checkpoint/gguf_presets.hpp"
#include "helpers.hpp"

namespace {

using flopcast::detail::find_gguf_preset;
using flopcast::detail::gguf_plan;
using flopcast::detail::gguf_plan_options;
using flopcast::detail::plan_gguf;

const flopcast::detail::gguf_preset_info& preset(const char* name) {
  const auto* p = find_gguf_preset(name);
  if (p == nullptr) throw std::runtime_error(std::string("no preset ") + name);
  return *p;
}

gguf_plan plan(const char* model, const char* p, bool rope_freqs = false, int imatrix = -1) {
  gguf_plan_options o;
  o.rope_freqs = rope_freqs;
  if (imatrix >= 0) o.imatrix = imatrix == 1;
  return plan_gguf(test::model(model), preset(p), o);
}

std::string type_of(const gguf_plan& g, const std::string& name) {
  const auto* t = g.find(name);
  return t == nullptr ? std::string("(absent)") : t->type;
}

std::string blk(int i, const char* rest) { return "blk." + std::to_string(i) + "." + rest; }

using test::error_of;

const char* const llama31_8b = "meta-llama/Llama-3.1-8B-Instruct";

}  // namespace

TEST_CASE("GGUF presets: the list and the lookup") {
  std::set<std::string> names;
  for (const auto& p : flopcast::detail::gguf_presets()) {
    INFO(p.name);
    CHECK(names.insert(std::string(p.name)).second);
    for (char c : p.name) CHECK_FALSE((c >= 'A' && c <= 'Z'));
    bool known = false;  // the base type is one of the GGML types read_gguf knows
    for (const auto& t : flopcast::ggml_types()) known = known || t.name == p.base_type;
    CHECK(known);
  }
  // The presets the llama-quantize README and help list (llama_ftype values from include/llama.h).
  for (const char* n : {"q2_k",    "q3_k_s", "q3_k_m", "q3_k_l", "q4_0",   "q4_1",     "q4_k_s",  "q4_k_m",
                        "q5_0",    "q5_1",   "q5_k_s", "q5_k_m", "q6_k",   "q8_0",     "iq2_xxs", "iq2_xs",
                        "iq3_xxs", "iq3_s",  "iq3_m",  "iq4_nl", "iq4_xs", "mxfp4_moe"})
    CHECK(names.count(n) == 1);
  CHECK(preset("Q4_K_M").ftype == 15);
  CHECK(preset("q4_k_m").base_type == "Q4_K");
  CHECK(preset("Q8_0").ftype == 7);
  CHECK(preset("MXFP4_MOE").ftype == 38);
  CHECK(preset("iq3_m").base_type == "IQ3_S");
  CHECK(preset("iq2_s").base_type == "IQ2_XS");  // llama_ftype_get_default_type: IQ2_S files are mostly IQ2_XS
  CHECK(&preset("q4_k") == &preset("q4_k_m"));   // llama-quantize's aliases
  CHECK(&preset("Q3_K") == &preset("q3_k_m"));
  CHECK(find_gguf_preset("q4_k_xl") == nullptr);
  CHECK(find_gguf_preset("") == nullptr);
  CHECK(preset("iq2_xxs").requires_imatrix);
  CHECK_FALSE(preset("q4_k_m").requires_imatrix);
}

TEST_CASE("GGUF presets: Q4_K_M on a 32-layer Llama (Llama 3.1 8B)") {
  const gguf_plan g = plan(llama31_8b, "q4_k_m", true);
  CHECK(g.architecture == "llama");
  // use_more_bits(i, 32): the first and last 4 layers and every third between (6, 9, ..., 27).
  CHECK(type_of(g, blk(0, "attn_v.weight")) == "Q6_K");
  CHECK(type_of(g, blk(3, "attn_v.weight")) == "Q6_K");
  CHECK(type_of(g, blk(4, "attn_v.weight")) == "Q4_K");
  CHECK(type_of(g, blk(6, "attn_v.weight")) == "Q6_K");
  CHECK(type_of(g, blk(16, "attn_v.weight")) == "Q4_K");
  CHECK(type_of(g, blk(27, "attn_v.weight")) == "Q6_K");
  CHECK(type_of(g, blk(28, "attn_v.weight")) == "Q6_K");
  CHECK(type_of(g, blk(0, "ffn_down.weight")) == "Q6_K");
  CHECK(type_of(g, blk(5, "ffn_down.weight")) == "Q4_K");
  CHECK(type_of(g, blk(9, "ffn_down.weight")) == "Q6_K");
  CHECK(type_of(g, blk(0, "attn_q.weight")) == "Q4_K");
  CHECK(type_of(g, blk(0, "attn_k.weight")) == "Q4_K");
  CHECK(type_of(g, blk(0, "attn_output.weight")) == "Q4_K");
  CHECK(type_of(g, blk(0, "ffn_gate.weight")) == "Q4_K");
  CHECK(type_of(g, blk(31, "ffn_up.weight")) == "Q4_K");
  CHECK(type_of(g, "output.weight") == "Q6_K");
  CHECK(type_of(g, "token_embd.weight") == "Q4_K");  // untied: the base type
  CHECK(type_of(g, "output_norm.weight") == "F32");
  CHECK(type_of(g, blk(0, "attn_norm.weight")) == "F32");
  CHECK(type_of(g, blk(31, "ffn_norm.weight")) == "F32");
  CHECK(type_of(g, "rope_freqs.weight") == "F32");
  int q6 = 0;
  for (const auto& t : g.tensors) q6 += t.type == "Q6_K";
  CHECK(q6 == 16 + 16 + 1);  // attn_v, ffn_down, output
  CHECK(g.tensors.size() == 3 + 1 + 32 * 9);
  CHECK(g.fallbacks == 0);
  // Exact bytes: rows x blocks per row x block bytes (Q6_K: 256 weights in 210 bytes).
  const auto* out = g.find("output.weight");
  REQUIRE(out != nullptr);
  CHECK(out->shape == std::vector<std::int64_t>{4096, 128256});
  CHECK(out->bytes == 128256LL * (4096 / 256) * 210);
  CHECK(out->component == flopcast::tensor_component::lm_head);
  // The order llama-quantize visits: tensors outside the blocks, then block 0, 1, ... (not
  // "blk.10" before "blk.2").
  CHECK(g.tensors.front().name.rfind("blk.", 0) == std::string::npos);
  CHECK(g.tensors.back().name.rfind("blk.31.", 0) == 0);
}

TEST_CASE("GGUF presets: the other mixtures on Llama 3.1 8B") {
  SECTION("Q4_K_S: attn_v and ffn_down of the first 4 layers in Q5_K") {
    const gguf_plan g = plan(llama31_8b, "q4_k_s");
    CHECK(type_of(g, blk(3, "attn_v.weight")) == "Q5_K");
    CHECK(type_of(g, blk(4, "attn_v.weight")) == "Q4_K");
    CHECK(type_of(g, blk(3, "ffn_down.weight")) == "Q5_K");
    CHECK(type_of(g, blk(4, "ffn_down.weight")) == "Q4_K");
    CHECK(type_of(g, blk(31, "ffn_down.weight")) == "Q4_K");
    CHECK(type_of(g, "output.weight") == "Q6_K");
  }
  SECTION("Q3_K_M: attn_v of 2 layers and ffn_down of n/16 layers in Q5_K, attn_output Q4_K") {
    const gguf_plan g = plan(llama31_8b, "q3_k_m");
    CHECK(type_of(g, blk(1, "attn_v.weight")) == "Q5_K");
    CHECK(type_of(g, blk(2, "attn_v.weight")) == "Q4_K");
    CHECK(type_of(g, blk(1, "ffn_down.weight")) == "Q5_K");
    CHECK(type_of(g, blk(2, "ffn_down.weight")) == "Q4_K");  // not Falcon: Q4_K for the rest
    CHECK(type_of(g, blk(7, "attn_output.weight")) == "Q4_K");
    CHECK(type_of(g, blk(7, "attn_q.weight")) == "Q3_K");
    CHECK(type_of(g, "token_embd.weight") == "Q3_K");
  }
  SECTION("Q3_K_L and Q2_K") {
    const gguf_plan l = plan(llama31_8b, "q3_k_l");
    CHECK(type_of(l, blk(10, "attn_v.weight")) == "Q5_K");
    CHECK(type_of(l, blk(10, "ffn_down.weight")) == "Q5_K");
    CHECK(type_of(l, blk(10, "attn_output.weight")) == "Q5_K");
    const gguf_plan k = plan(llama31_8b, "q2_k");
    CHECK(type_of(k, blk(10, "attn_v.weight")) == "Q4_K");  // n_gqa = 32 / 8 >= 4
    CHECK(type_of(k, blk(10, "ffn_down.weight")) == "Q3_K");
    CHECK(type_of(k, blk(10, "attn_output.weight")) == "Q3_K");
    CHECK(type_of(k, blk(10, "ffn_up.weight")) == "Q2_K");
  }
  SECTION("Q8_0, Q6_K and the legacy types") {
    const gguf_plan g = plan(llama31_8b, "q8_0");
    for (const auto& t : g.tensors) CHECK(t.type == (t.shape.size() == 1 ? "F32" : "Q8_0"));
    CHECK(type_of(plan(llama31_8b, "q6_k"), "output.weight") == "Q6_K");
    const gguf_plan q40 = plan(llama31_8b, "q4_0", false, 0);
    CHECK(type_of(q40, "output.weight") == "Q6_K");
    CHECK(type_of(q40, blk(0, "ffn_down.weight")) == "Q4_0");
    // With an importance matrix the first n/8 ffn_down go to Q4_1 (Q5_0: Q5_1).
    const gguf_plan q40i = plan(llama31_8b, "q4_0", false, 1);
    CHECK(type_of(q40i, blk(3, "ffn_down.weight")) == "Q4_1");
    CHECK(type_of(q40i, blk(4, "ffn_down.weight")) == "Q4_0");
    CHECK(type_of(plan(llama31_8b, "q5_0", false, 1), blk(0, "ffn_down.weight")) == "Q5_1");
  }
  SECTION("i-quants") {
    const gguf_plan xs = plan(llama31_8b, "iq4_xs", false, 0);
    CHECK(type_of(xs, blk(9, "attn_v.weight")) == "Q5_K");    // n_gqa >= 4
    CHECK(type_of(xs, blk(3, "ffn_down.weight")) == "Q5_K");  // first n/8 without an imatrix
    CHECK(type_of(xs, blk(4, "ffn_down.weight")) == "IQ4_XS");
    CHECK(type_of(plan(llama31_8b, "iq4_xs", false, 1), blk(3, "ffn_down.weight")) == "IQ4_XS");
    const gguf_plan xxs = plan(llama31_8b, "iq2_xxs");  // the imatrix it requires
    CHECK(type_of(xxs, "token_embd.weight") == "Q2_K");
    CHECK(type_of(xxs, "output.weight") == "Q5_K");
    CHECK(type_of(xxs, blk(5, "attn_v.weight")) == "Q4_K");
    CHECK(type_of(xxs, blk(3, "ffn_down.weight")) == "Q2_K");  // i_ffn_down < n/8
    CHECK(type_of(xxs, blk(4, "ffn_down.weight")) == "IQ2_XXS");
    const gguf_plan i3 = plan(llama31_8b, "iq3_xxs");
    CHECK(type_of(i3, "token_embd.weight") == "IQ3_S");
    CHECK(type_of(i3, blk(0, "attn_q.weight")) == "IQ2_S");
    CHECK(type_of(i3, blk(0, "attn_k.weight")) == "IQ2_S");
    CHECK(type_of(i3, blk(0, "attn_output.weight")) == "IQ3_S");
    const gguf_plan m = plan(llama31_8b, "iq3_m");
    CHECK(type_of(m, blk(20, "attn_v.weight")) == "Q4_K");
    CHECK(type_of(m, blk(3, "ffn_down.weight")) == "Q4_K");
    CHECK(type_of(m, blk(4, "ffn_down.weight")) == "IQ3_S");
    CHECK(type_of(m, blk(4, "attn_output.weight")) == "Q4_K");
  }
  SECTION("F16 and BF16 leave 1-D tensors in F32") {
    const gguf_plan g = plan(llama31_8b, "f16");
    CHECK(type_of(g, "output.weight") == "F16");
    CHECK(type_of(g, blk(0, "attn_norm.weight")) == "F32");
    CHECK(g.bytes == 2 * (g.elements - (32 * 2 + 1) * 4096) + 4 * (32 * 2 + 1) * 4096);
  }
}

TEST_CASE("GGUF presets: attn_v depends on grouped-query attention") {
  // Llama 2 7B has 32 KV heads (n_gqa 1): no n_gqa >= 4 promotions.
  const char* mha = "meta-llama/Llama-2-7b-hf";
  CHECK(type_of(plan(mha, "q2_k"), blk(10, "attn_v.weight")) == "Q3_K");
  CHECK(type_of(plan(mha, "iq4_nl"), blk(10, "attn_v.weight")) == "IQ4_NL");
  CHECK(type_of(plan(llama31_8b, "iq4_nl"), blk(10, "attn_v.weight")) == "Q5_K");
  CHECK(type_of(plan(mha, "iq3_xxs", false, 0), blk(10, "attn_v.weight")) == "IQ3_S");
  CHECK(type_of(plan(mha, "iq3_xxs", false, 1), blk(10, "attn_v.weight")) == "IQ3_XXS");
  CHECK(type_of(plan(mha, "iq2_xs"), blk(10, "attn_v.weight")) == "Q2_K");
}

TEST_CASE("GGUF presets: 80-layer Llama and Qwen2 are LLM_TYPE_70B") {
  // attn_v that would be Q3_K or Q4_K becomes Q5_K.
  const gguf_plan l = plan("meta-llama/Llama-3.1-70B", "q3_k_m");
  CHECK(type_of(l, blk(1, "attn_v.weight")) == "Q5_K");
  CHECK(type_of(l, blk(40, "attn_v.weight")) == "Q5_K");
  CHECK(type_of(l, blk(40, "attn_q.weight")) == "Q3_K");
  const gguf_plan m = plan("meta-llama/Llama-3.1-70B", "q4_k_m");
  CHECK(type_of(m, blk(40, "attn_v.weight")) == "Q5_K");  // not a use_more_bits layer
  CHECK(type_of(m, blk(39, "attn_v.weight")) == "Q6_K");  // (39 - 10) % 3 == 2
  CHECK(type_of(plan("Qwen/Qwen2-72B", "q4_k_m"), blk(40, "attn_v.weight")) == "Q5_K");
  // 32 layers: no promotion.
  CHECK(type_of(plan(llama31_8b, "q3_k_m"), blk(40 / 2, "attn_v.weight")) == "Q4_K");
}

TEST_CASE("GGUF presets: tied embeddings quantize token_embd as the output") {
  const char* tied = "meta-llama/Llama-3.2-1B";
  REQUIRE(test::model(tied).tie_word_embeddings);
  const gguf_plan g = plan(tied, "q4_k_m");
  CHECK(g.find("output.weight") == nullptr);
  CHECK(type_of(g, "token_embd.weight") == "Q6_K");
  CHECK(type_of(plan(tied, "q8_0"), "token_embd.weight") == "Q8_0");
  CHECK(type_of(plan(tied, "iq2_xs"), "token_embd.weight") == "Q5_K");
  CHECK(type_of(plan(tied, "mxfp4_moe"), "token_embd.weight") == "Q8_0");
}

TEST_CASE("GGUF presets: rows that are not whole blocks fall back") {
  SECTION("hidden 4000: a multiple of 32, not of 256") {
    auto cfg = test::llama_config(8);
    cfg["hidden_size"] = 4000;
    cfg["head_dim"] = 128;
    cfg["intermediate_size"] = 11008;  // 43 x 256: ffn_down rows stay k-quants
    const auto m = test::spec(cfg);
    const gguf_plan g = plan_gguf(m, preset("q4_k_m"));
    const auto* q = g.find(blk(5, "attn_q.weight"));
    REQUIRE(q != nullptr);
    CHECK(q->type == "Q5_0");  // Q4_K -> Q5_0
    CHECK(q->fallback);
    CHECK(q->bytes == 4096LL * (4000 / 32) * 22);
    CHECK(type_of(g, blk(0, "attn_v.weight")) == "Q8_0");  // Q6_K -> Q8_0
    CHECK(type_of(g, "output.weight") == "Q8_0");          // the output rule itself picks Q8_0
    CHECK_FALSE(g.find("output.weight")->fallback);
    CHECK(type_of(g, blk(5, "ffn_down.weight")) == "Q4_K");     // its rows are 11008 long
    CHECK(type_of(g, blk(0, "attn_output.weight")) == "Q4_K");  // rows of 32 x 128
    CHECK(g.fallbacks > 0);
    const gguf_plan k5 = plan_gguf(m, preset("q5_k_s"));
    CHECK(type_of(k5, blk(5, "attn_q.weight")) == "Q5_1");  // Q5_K -> Q5_1
    const gguf_plan i4 = plan_gguf(m, preset("iq4_xs"));
    CHECK(type_of(i4, blk(5, "attn_q.weight")) == "IQ4_NL");  // i-quants -> IQ4_NL
    const gguf_plan k3 = plan_gguf(m, preset("q3_k_s"));
    CHECK(type_of(k3, blk(5, "attn_q.weight")) == "Q4_0");  // Q2_K, Q3_K -> Q4_0
  }
  SECTION("intermediate 11000: not even a multiple of 32") {
    auto cfg = test::llama_config(8);
    cfg["intermediate_size"] = 11000;
    const auto m = test::spec(cfg);
    const gguf_plan g = plan_gguf(m, preset("q4_k_m"));
    CHECK(type_of(g, blk(5, "ffn_down.weight")) == "F16");  // Q4_K -> Q5_0 -> F16
    CHECK(type_of(g, blk(0, "ffn_down.weight")) == "F16");  // Q6_K -> Q8_0 -> F16
    CHECK(type_of(g, blk(5, "ffn_up.weight")) == "Q4_K");   // rows of 4096
    // Q8_0 has no fallback: llama-quantize refuses the tensor.
    const auto e = error_of([&] { (void)plan_gguf(m, preset("q8_0")); });
    CHECK(e.code() == flopcast::error_code::config_range);
    CHECK_THAT(e.message(), Catch::Contains("11000") && Catch::Contains("Q8_0"));
    CHECK(e.pointer() == "/tensors/blk.0.ffn_down.weight/shape");
  }
}

TEST_CASE("GGUF presets: mixture of experts") {
  SECTION("Mixtral 8x7B (n_expert == 8)") {
    const gguf_plan g = plan("mistralai/Mixtral-8x7B-v0.1", "q4_k_m");
    CHECK(type_of(g, blk(0, "attn_v.weight")) == "Q8_0");
    CHECK(type_of(g, blk(0, "attn_k.weight")) == "Q8_0");
    CHECK(type_of(g, blk(0, "attn_output.weight")) == "Q5_K");
    CHECK(type_of(g, blk(0, "attn_q.weight")) == "Q4_K");
    CHECK(type_of(g, blk(0, "ffn_gate_inp.weight")) == "F32");  // the router is never quantized
    CHECK(type_of(g, blk(0, "ffn_down_exps.weight")) == "Q6_K");
    CHECK(type_of(g, blk(4, "ffn_down_exps.weight")) == "Q4_K");
    CHECK(type_of(g, blk(4, "ffn_up_exps.weight")) == "Q4_K");
    const auto* e = g.find(blk(0, "ffn_down_exps.weight"));
    REQUIRE(e != nullptr);
    CHECK(e->shape == std::vector<std::int64_t>{14336, 4096, 8});
    CHECK(e->component == flopcast::tensor_component::experts);
    // IQ3_M: ffn_down of the use_more_bits layers in Q4_K for 8 experts.
    CHECK(type_of(plan("mistralai/Mixtral-8x7B-v0.1", "iq3_m"), blk(6, "ffn_down_exps.weight")) == "Q4_K");
    CHECK(type_of(plan("mistralai/Mixtral-8x7B-v0.1", "iq2_xxs"), blk(6, "attn_k.weight")) == "Q4_K");
  }
  SECTION("MXFP4_MOE: experts in MXFP4, the rest Q8_0") {
    const gguf_plan g = plan("Qwen/Qwen3-30B-A3B", "mxfp4_moe");
    CHECK(g.architecture == "qwen3moe");
    CHECK(type_of(g, blk(3, "ffn_up_exps.weight")) == "MXFP4");
    CHECK(type_of(g, blk(3, "ffn_down_exps.weight")) == "MXFP4");
    CHECK(type_of(g, blk(3, "attn_q.weight")) == "Q8_0");
    CHECK(type_of(g, blk(3, "attn_q_norm.weight")) == "F32");
    CHECK(type_of(g, blk(3, "ffn_gate_inp.weight")) == "F32");
    CHECK(type_of(g, "token_embd.weight") == "Q8_0");
    CHECK(type_of(g, "output.weight") == "Q8_0");
  }
  SECTION("Qwen1.5-MoE: shared experts") {
    const gguf_plan g = plan("Qwen/Qwen1.5-MoE-A2.7B", "q4_k_m");
    CHECK(type_of(g, blk(0, "ffn_up_shexp.weight")) == "Q4_K");
    CHECK(type_of(g, blk(0, "ffn_down_shexp.weight")) == "Q6_K");
    CHECK(type_of(g, blk(0, "ffn_gate_inp_shexp.weight")) == "BF16");  // [hidden, 1]: 1-D to ggml
    CHECK(type_of(g, blk(0, "attn_q.bias")) == "F32");
  }
}

TEST_CASE("GGUF presets: Falcon rules") {
  const auto& m40 = test::model("tiiuae/falcon-40b");
  const gguf_plan g = plan("tiiuae/falcon-40b", "q4_k_m");
  CHECK(g.architecture == "falcon");
  // The output (or the tied embedding) is always Q8_0 for Falcon.
  CHECK(type_of(g, m40.tie_word_embeddings ? "token_embd.weight" : "output.weight") == "Q8_0");
  // Q4_K_M ffn_down: Q6_K below n/16, Q5_K on use_more_bits layers, else Q4_K (60 layers).
  CHECK(type_of(g, blk(2, "ffn_down.weight")) == "Q6_K");
  CHECK(type_of(g, blk(3, "ffn_down.weight")) == "Q5_K");
  CHECK(type_of(g, blk(10, "ffn_down.weight")) == "Q4_K");
  CHECK(type_of(g, blk(12, "ffn_down.weight")) == "Q5_K");  // (12 - 7) % 3 == 2
  // The fused qkv counts as attn_v (category_is_attn_v).
  CHECK(type_of(g, blk(0, "attn_qkv.weight")) == "Q6_K");
  CHECK(type_of(g, blk(10, "attn_qkv.weight")) == "Q4_K");
  CHECK(type_of(plan("tiiuae/falcon-40b", "q3_k_l"), blk(10, "attn_output.weight")) == "Q4_K");
  CHECK(type_of(plan("tiiuae/falcon-40b", "q3_k_l"), blk(10, "ffn_down.weight")) == "Q4_K");
  CHECK(type_of(plan("tiiuae/falcon-40b", "q3_k_m"), blk(10, "ffn_down.weight")) == "Q3_K");
  CHECK(type_of(plan("tiiuae/falcon-40b", "q4_k_s"), blk(0, "ffn_down.weight")) == "Q4_K");
  CHECK(type_of(g, blk(0, "attn_norm.bias")) == "F32");
}

TEST_CASE("GGUF presets: the planned tensors hold every parameter of the text model") {
  int planned = 0;
  for (const auto& rec : flopcast::model_records()) {
    bool supported = true;
    try {
      (void)flopcast::detail::gguf_architecture(rec.spec);
    } catch (const flopcast::error& e) {
      CHECK(e.code() == flopcast::error_code::unsupported_model);
      supported = false;
    }
    if (!supported) continue;
    for (const char* p : {"q4_k_m", "q8_0", "iq4_xs"}) {
      INFO(rec.id << " " << p);
      const auto c = flopcast::count_parameters(rec.spec);
      const gguf_plan g = plan_gguf(rec.spec, preset(p));
      CHECK(g.elements == c.total - c.vision);  // the vision tower goes to the mmproj file
      std::int64_t bytes = 0;
      for (const auto& t : g.tensors) bytes += t.bytes;
      CHECK(bytes == g.bytes);
      CHECK(g.bits_per_weight() > 4.0);
      CHECK(g.bits_per_weight() < 9.0);
    }
    ++planned;
  }
  CHECK(planned >= 40);
}

TEST_CASE("GGUF presets: errors") {
  using flopcast::error_code;
  for (const char* name :
       {"openai-community/gpt2", "state-spaces/mamba-130m-hf", "deepseek-ai/DeepSeek-V3", "google-t5/t5-small"}) {
    INFO(name);
    const auto e = error_of([&] { (void)plan(name, "q4_k_m"); });
    CHECK(e.code() == error_code::unsupported_model);
    CHECK(e.pointer() == "/model_type");
  }
  gguf_plan_options o;
  o.source_type = "FP8";
  const auto e = error_of([&] { (void)plan_gguf(test::model(llama31_8b), preset("q4_k_m"), o); });
  CHECK(e.code() == error_code::invalid_argument);
}

TEST_CASE("GGUF presets: bits per weight of llama.cpp's Llama 3.1 8B table") {
  // ggml-org/llama.cpp tools/quantize/README.md, "meta-llama/Llama-3.1-8B" table (bits/weight
  // to 4 decimals, llama-bench's model size x 8 / parameters). IQ2_*/IQ1_*/IQ3_XXS/IQ3_XS need an
  // importance matrix; the IQ4 rows match without one.
  struct row {
    const char* preset;
    double bpw;
    int imatrix;
  };
  const row rows[] = {
      {"iq1_s", 2.0042, 1},  {"iq1_m", 2.1460, 1},  {"iq2_xxs", 2.3824, 1}, {"iq2_xs", 2.5882, 1},
      {"iq2_s", 2.7403, 1},  {"iq2_m", 2.9294, 1},  {"iq3_xxs", 3.2548, 1}, {"iq3_xs", 3.4977, 1},
      {"iq3_s", 3.6606, 0},  {"iq3_m", 3.7628, 0},  {"iq4_xs", 4.4597, 0},  {"iq4_nl", 4.6818, 0},
      {"q2_k_s", 2.9697, 1}, {"q2_k", 3.1593, 0},   {"q3_k_s", 3.6429, 0},  {"q3_k_l", 4.2979, 0},
      {"q4_k_s", 4.6672, 0}, {"q4_k_m", 4.8944, 0}, {"q5_k_s", 5.5704, 0},  {"q5_k_m", 5.7036, 0},
      {"q6_k", 6.5633, 0},   {"q8_0", 8.5008, 0},   {"f16", 16.0005, 0},
  };
  for (const row& r : rows) {
    INFO(r.preset);
    const double bpw = plan("meta-llama/Llama-3.1-8B", r.preset, true, r.imatrix).bits_per_weight();
    CHECK(std::fabs(bpw - r.bpw) <= 0.00005 + 1e-9);
  }
}

TEST_CASE("GGUF presets: tensor bytes of published Llama 3.1 GGUF files") {
  // Exact file sizes (the Git LFS pointers' "size") of one uploader's Llama 3.1 8B Instruct
  // quants, all made with an importance matrix from the same F16 conversion:
  // https://huggingface.co/ThomasBaruzier/Meta-Llama-3.1-8B-Instruct-GGUF, commits
  // 26106330 (Q8_0), 38dc4bde (Q5_0, the earlier pointer), 057ffac6 (Q4_0), cd25e5e4 (Q3_K_M),
  // 701b807f (Q3_K_S), 9a4f6c46 (Q3_K_L), 410153e1 (Q5_1), 5694c913 (IQ3_M), 97e38f0a (IQ1_S),
  // ff60c9ce (Q4_K_M). A file is its header (metadata, the tokenizer's 128256 tokens and 280147
  // merges, the tensor infos), padded to 32 bytes, then the tensors, each padded to 32 bytes
  // (all of these are whole multiples of 32 already). The header is the same for every quant of
  // one conversion, so file size - planned tensor bytes must be one constant: any tensor typed
  // wrong shifts its file by at least a few hundred KB.
  struct file {
    const char* preset;
    std::int64_t size;
  };
  const file files[] = {
      {"q8_0", 8540771552},   {"q5_0", 5613974752},   {"q4_0", 4675892448}, {"q3_k_m", 4018918624},
      {"q3_k_s", 3664499936}, {"q3_k_l", 4321957088}, {"q5_1", 6068335840}, {"iq3_m", 3784824032},
      {"iq1_s", 2019628256},  {"q4_k_m", 4920734944},
  };
  std::set<std::int64_t> headers;
  for (const file& f : files) {
    const gguf_plan g = plan(llama31_8b, f.preset, true, 1);
    INFO(f.preset << ": file " << f.size << ", tensors " << g.bytes << ", header " << f.size - g.bytes);
    headers.insert(f.size - g.bytes);
    CHECK(g.bytes % 32 == 0);
  }
  CHECK(headers.size() == 1);
  const std::int64_t header = *headers.begin();
  CHECK(header > 4000000);  // the tokenizer alone is several MB
  CHECK(header < 12000000);
  CHECK(header % 32 == 0);

  // Llama 3.1 70B Instruct from the same uploader (commits 4ee2a2f0 Q3_K_M, 71e6f936 Q4_1): the
  // 70B rule (attn_v Q4_K -> Q5_K) is in the Q3_K_M file.
  const std::int64_t q3 = 34267499104, q41 = 44313594464;
  const std::int64_t d70 = q41 - q3;
  CHECK(plan("meta-llama/Llama-3.1-70B", "q4_1", true, 1).bytes -
            plan("meta-llama/Llama-3.1-70B", "q3_k_m", true, 1).bytes ==
        d70);
}

TEST_CASE("GGUF presets: tensor bytes of published Mixtral 8x7B GGUF files") {
  // https://huggingface.co/Artefact2/Mixtral-8x7B-v0.1-GGUF, commits b9d0f88f (Q4_K_M),
  // 03bfdc56 (Q4_K_S), 634eb97c (Q5_K_M), 35885ca7 (Q6_K), c9c24ff9 (IQ4_XS, imatrix). These were
  // converted before convert_hf_to_gguf.py wrote the routers (ffn_gate_inp) in F32 (they hold
  // them in F16, 2 MiB less), so the header is not the only constant: compare differences
  // between the files, which hold every expert, attention and output rule for n_expert == 8.
  struct file {
    const char* preset;
    std::int64_t size;
  };
  const file files[] = {
      {"q4_k_s", 26743522688}, {"q5_k_m", 33227523456}, {"q6_k", 38378759552}, {"iq4_xs", 25078482304}};
  const std::int64_t q4km = 28446410112;
  const std::int64_t base = plan("mistralai/Mixtral-8x7B-v0.1", "q4_k_m", false, 1).bytes;
  for (const file& f : files) {
    INFO(f.preset);
    CHECK(plan("mistralai/Mixtral-8x7B-v0.1", f.preset, false, 1).bytes - base == f.size - q4km);
  }
}

TEST_CASE("GGUF presets: tensor bytes of published Qwen2.5 7B Instruct GGUF files") {
  // https://huggingface.co/bartowski/Qwen2.5-7B-Instruct-GGUF, the pointers' sizes after commits
  // c4d0b0e0 (Q4_K_M), d105b7cc (Q3_K_M) and e3139f50 (Q5_K_M), all from one re-upload. Qwen2
  // has q/k/v biases (F32) and 28 layers with 4 KV heads (n_gqa 7); Qwen/Qwen2.5-7B is the same
  // architecture as the instruct model. Again one header for all three files.
  const std::int64_t sizes[] = {4683074048, 3808391680, 5444831744};
  const char* presets[] = {"q4_k_m", "q3_k_m", "q5_k_m"};
  std::set<std::int64_t> headers;
  for (int i = 0; i < 3; ++i) headers.insert(sizes[i] - plan("Qwen/Qwen2.5-7B", presets[i], false, 1).bytes);
  CHECK(headers.size() == 1);
  CHECK(*headers.begin() > 3000000);  // 152064 tokens and 151387 merges
  CHECK(*headers.begin() < 12000000);
}
