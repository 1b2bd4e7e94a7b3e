#pragma once
// The building blocks of the config.json readers (hf_config.cpp), shared with the files that add
// model families: a family reader fills a model_spec from one config object. To add a family,
// write its reader (often read_llama_family plus the family's own fields) and register its
// model_type in families() in hf_config.cpp.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "base/json_reader.hpp"
#include "flopcast/model/model.hpp"

namespace flopcast::detail {

using family_reader = void (*)(const reader&, model_spec&);

// One layer before grouping into layer_groups (layers of the same shape share a group).
// The fields mean what layer_group's do.
struct layer_desc {
  bool encoder = false, cross = false, moe = false;
  std::int64_t window = 0;
  mixer_kind mixer = mixer_kind::attention;
  bool parallel_ssm = false, mlp = true, nope = false;
  std::int64_t chunk = 0;
  std::int64_t norms = -1;
  std::optional<attention_spec> attention;
  std::int64_t intermediate_size = 0;  // the layer's own dense MLP width (layer_group::intermediate_size)
  bool rwkv_first = false;             // layer_group::rwkv_first
  [[nodiscard]] auto key() const {
    return std::tie(encoder, cross, moe, window, mixer, parallel_ssm, mlp, nope, chunk, norms, attention,
                    intermediate_size, rwkv_first);
  }
  bool operator<(const layer_desc& o) const { return key() < o.key(); }
};
void set_layers(model_spec& m, const std::vector<layer_desc>& layers);
// Heads and head size of standard (non-MLA) attention.
void read_heads(const reader& r, model_spec& m, std::string_view heads_key, std::string_view kv_key,
                std::int64_t kv_default);
// "layer_types": one "sliding_attention" or "full_attention" per layer (empty when absent).
std::vector<std::string> window_layer_kinds(const reader& r, std::int64_t layers);
// What most decoder configs spell alike: a decoder of hidden_size, num_hidden_layers layers,
// vocab_size tokens and max_position_embeddings positions (0 when absent), with RMSNorm.
void read_decoder_basics(const reader& r, model_spec& m);
// Pre-norm RMSNorm decoders with rotary positions and gated MLPs (Llama, Mistral, Qwen, Gemma,
// Phi-3, DeepSeek), dispatching on m.model_type for each family's details.
void read_llama_family(const reader& r, model_spec& m);
// Single-stack multi-head attention with LayerNorm (GPT-2, NeoX, OPT, BLOOM, BERT).
void read_mha_stack(const reader& r, model_spec& m, architecture arch, std::string_view hidden, std::string_view layers,
                    std::string_view heads);
// Every layer alike (encoder layers for encoder-only models).
void uniform_layers(model_spec& m);
// "expected at most the number of experts (E), but got k" at `key` when top-k exceeds the experts.
void check_top_k(const reader& r, std::string_view key, const moe_spec& e);
// A per-layer list must name every layer.
void check_list_length(const reader& r, std::string_view key, std::size_t size, std::int64_t layers);

// hf_granite_olmoe_cohere_mpt.cpp
void read_granite(const reader& r, model_spec& m);
void read_granitemoe(const reader& r, model_spec& m);
void read_olmoe(const reader& r, model_spec& m);
void read_cohere(const reader& r, model_spec& m);
void read_mpt(const reader& r, model_spec& m);

// hf_gptoss_llama4_glm4moe_minimax.cpp
void read_gpt_oss(const reader& r, model_spec& m);
void read_llama4_text(const reader& r, model_spec& m);
void read_glm4_moe(const reader& r, model_spec& m);
void read_minimax_m2(const reader& r, model_spec& m);
// hf_ernie_deepseekv32_kimi_cohere2_exaone_internlm2.cpp
void read_ernie4_5(const reader& r, model_spec& m);
void read_ernie4_5_moe(const reader& r, model_spec& m);
void read_deepseek_v32(const reader& r, model_spec& m);
void read_kimi_k2(const reader& r, model_spec& m);
void read_cohere2(const reader& r, model_spec& m);
void read_exaone(const reader& r, model_spec& m);
void read_internlm2(const reader& r, model_spec& m);

// hf_glmmoedsa_glm4moelite_deepseek_minicpm3.cpp
// Which layers are MoE: mlp_layer_types ("dense"/"sparse") when present, otherwise every layer
// from first_k_dense_replace (default_first_dense when absent) on.
[[nodiscard]] std::vector<bool> mlp_layer_types_or_first_dense(const reader& r, std::int64_t layers,
                                                               std::int64_t default_first_dense);
// Groups the layers by that pattern; reads intermediate_size only when a dense layer exists.
void set_moe_pattern(const reader& r, model_spec& m, const std::vector<bool>& moe);
void read_glm_moe_dsa(const reader& r, model_spec& m);
void read_glm4_moe_lite(const reader& r, model_spec& m);
void read_deepseek(const reader& r, model_spec& m);
void read_minicpm3(const reader& r, model_spec& m);

// hf_phimoe_dbrx_hunyuanv1moe_bailingmoe.cpp
void read_phimoe(const reader& r, model_spec& m);
void read_dbrx(const reader& r, model_spec& m);
void read_hunyuan_v1_moe(const reader& r, model_spec& m);
void read_bailing_moe(const reader& r, model_spec& m);  // bailing_moe, bailing_moe_v2

// hf_dots1_arctic_flexolmo_granitemoeshared.cpp
void read_dots1(const reader& r, model_spec& m);
void read_arctic(const reader& r, model_spec& m);
void read_flex_olmo(const reader& r, model_spec& m);
void read_granitemoeshared(const reader& r, model_spec& m);

// hf_smallthinker_afmoe.cpp
void read_smallthinker(const reader& r, model_spec& m);
void read_afmoe(const reader& r, model_spec& m);

// hf_cohere2moe.cpp
void read_cohere2_moe(const reader& r, model_spec& m);

// hf_longcatflash.cpp
void read_longcat_flash(const reader& r, model_spec& m);

// hf_qwen3next_mamba_jamba_falconh1_nemotronh.cpp: hybrid and state-space models
void read_qwen3_next(const reader& r, model_spec& m);  // qwen3_next, qwen3_5_text, qwen3_5_moe_text
void read_mamba(const reader& r, model_spec& m);       // mamba, falcon_mamba
void read_mamba2(const reader& r, model_spec& m);
void read_jamba(const reader& r, model_spec& m);
void read_falcon_h1(const reader& r, model_spec& m);
void read_nemotron_h(const reader& r, model_spec& m);
// hf_gptj_gptbigcode_stablelm_chatglm_glm_glm4.cpp
void read_gptj(const reader& r, model_spec& m);
void read_gpt_bigcode(const reader& r, model_spec& m);
void read_stablelm(const reader& r, model_spec& m);  // stablelm, stablelm_epoch
void read_chatglm(const reader& r, model_spec& m);
void read_glm(const reader& r, model_spec& m);
void read_glm4(const reader& r, model_spec& m);
// hf_baichuan_qwen_olmo_internlm3_minicpm_nemotron.cpp
void read_baichuan(const reader& r, model_spec& m);
void read_qwen(const reader& r, model_spec& m);
void read_olmo(const reader& r, model_spec& m);
void read_internlm3(const reader& r, model_spec& m);
void read_minicpm(const reader& r, model_spec& m);
void read_nemotron(const reader& r, model_spec& m);
// hf_orion_xverse_jais2_codeshell.cpp
void read_orion(const reader& r, model_spec& m);
void read_xverse(const reader& r, model_spec& m);
void read_jais2(const reader& r, model_spec& m);
void read_codeshell(const reader& r, model_spec& m);
// hf_lfm2_granitemoehybrid.cpp: LFM2 and LFM2-MoE (short conv + attention), Granite 4.0 hybrids
void read_lfm2(const reader& r, model_spec& m);
void read_granitemoehybrid(const reader& r, model_spec& m);
// hf_dream_llada_rnd1.cpp: masked-diffusion decoders
void read_dream(const reader& r, model_spec& m);  // model_type "Dream"
void read_llada(const reader& r, model_spec& m);
void read_rnd1(const reader& r, model_spec& m);
// hf_qwen3vl.cpp: qwen3_vl_text, qwen3_vl_moe_text (the Qwen3-VL wrappers' text_config)
void read_qwen3_vl_text(const reader& r, model_spec& m);
// hf_bitnet.cpp: BitNet b1.58 (Llama with attention and MLP sub-norms)
void read_bitnet(const reader& r, model_spec& m);
// hf_seed_oss_smollm3_olmo3_exaone4.cpp
void read_seed_oss(const reader& r, model_spec& m);
void read_smollm3(const reader& r, model_spec& m);
void read_olmo3(const reader& r, model_spec& m);
void read_exaone4(const reader& r, model_spec& m);
// hf_vaultgemma_cwm.cpp
void read_vaultgemma(const reader& r, model_spec& m);
void read_cwm(const reader& r, model_spec& m);
// hf_mellum.cpp
void read_mellum(const reader& r, model_spec& m);
// hf_apertus.cpp
void read_apertus(const reader& r, model_spec& m);
// hf_mimo.cpp
void read_mimo(const reader& r, model_spec& m);
// hf_pangu_embedded.cpp
void read_pangu_embedded(const reader& r, model_spec& m);
// hf_telechat3.cpp
void read_telechat3(const reader& r, model_spec& m);
// hf_olmo2_starcoder2_phi_gemma3.cpp (read_olmo3 starts from it)
void read_olmo2(const reader& r, model_spec& m);

// hf_telechat.cpp
void read_telechat(const reader& r, model_spec& m);
// vision.cpp
// The vision tower and projector of a multimodal wrapper (its vision_config, by vision
// model_type, and the wrapper's model_type for the projector), into m.vision_parameters and
// m.vision_model_type. Call after the text model is read (projectors end at m.hidden_size).
// An unknown tower, or a known tower under a wrapper whose projector is unknown, leaves
// vision_parameters 0 with vision_model_type naming the tower (not counted). No vision_config:
// nothing changes.
void read_vision_tower(const reader& wrapper, model_spec& m);
// The wrapper's text config under `key`, with what the wrapper's configuration class supplies
// when the checkpoint leaves it out (the text model_type; LlamaConfig's sizes for LLaVA).
[[nodiscard]] json wrapper_text_config(const reader& wrapper, std::string_view key);
// qwen2_vl, qwen2_5_vl: a Qwen2 text model at the top level, then the vision tower.
void read_qwen2_vl(const reader& r, model_spec& m);

// quantization_config.cpp: config.json's quantization_config into m.quantization (the default
// precision of an estimate that names none).
void read_quantization_config(const reader& top, model_spec& m);
// max_position_embeddings and a YaRN / dynamic / longrope rope_scaling into m.context_length.
void read_context_length(const reader& r, model_spec& m);

// hf_hunyuandense_arcee.cpp
void read_hunyuan_v1_dense(const reader& r, model_spec& m);
void read_arcee(const reader& r, model_spec& m);

// hf_grok1_exaonemoe_panguultramoe_mistral4_axk1_sarvammla.cpp
void read_grok1(const reader& r, model_spec& m);
void read_exaone_moe(const reader& r, model_spec& m);
void read_pangu_ultra_moe(const reader& r, model_spec& m);
void read_mistral4(const reader& r, model_spec& m);
void read_axk1(const reader& r, model_spec& m);
void read_sarvam_mla(const reader& r, model_spec& m);

// hf_mimov2flash_hyv3.cpp
void read_mimo_v2_flash(const reader& r, model_spec& m);
void read_hy_v3(const reader& r, model_spec& m);

// hf_solar_step1_jais_iquestcoder_maincoder_refact_teleflm.cpp
void read_solar(const reader& r, model_spec& m);
void read_step1(const reader& r, model_spec& m);
void read_jais(const reader& r, model_spec& m);
void read_iquestcoder(const reader& r, model_spec& m);
void read_maincoder(const reader& r, model_spec& m);
void read_gpt_refact(const reader& r, model_spec& m);
void read_teleflm(const reader& r, model_spec& m);  // model_type "TeleFLM"

// hf_dotsocr_paddleocrvl_plamo.cpp
void read_dots_ocr(const reader& r, model_spec& m);
void read_paddleocr_vl(const reader& r, model_spec& m);
void read_plamo(const reader& r, model_spec& m);
// hf_olmohybrid.cpp
void read_olmo_hybrid(const reader& r, model_spec& m);
// hf_hunyuanvl.cpp
void read_hunyuan_vl(const reader& r, model_spec& m);
// hf_kimilinear.cpp: Kimi Linear (Kimi Delta Attention beside MLA, DeepSeek-V3-style MoE)
void read_kimi_linear(const reader& r, model_spec& m);

// hf_plamo2.cpp
void read_plamo2(const reader& r, model_spec& m);

// hf_openelm_nemotronnas.cpp
void read_openelm(const reader& r, model_spec& m);
void read_nemotron_nas(const reader& r, model_spec& m);  // model_type "nemotron-nas"

// hf_rwkv.cpp
void read_rwkv6(const reader& r, model_spec& m);
void read_rwkv7(const reader& r, model_spec& m);

}  // namespace flopcast::detail
