// Types of flopcast's JavaScript API, hand-written part: what inspectCheckpoint() returns.
// tools/gen_dts.mjs includes this file verbatim in build-wasm/wasm/flopcast.d.ts, after the types it
// generates from the core's tables (PrecisionName, ComputeUnit, WeightComponent, Optimizer,
// RecomputePolicy, EngineId, ModelType, CompareRow, RowFieldKey, the request types, ...), which
// it uses by name. Edit it here and rebuild (npm run build:wasm); never edit the built file.
// These shapes come from the core's C++ JSON writers (code, not a table): tests/wasm/types.test.mjs
// compiles real results of every call against them with tsc --strict and fails on any drift
// (a key missing, extra, typed wrong, or typed loosely).

/** The config.json a GGUF header's keys imply (llama.cpp's key names mapped back; a type, so it is an HfConfig). */
export type GgufConfig = {
  model_type: string;
  hidden_size: number;
  num_hidden_layers: number;
  num_attention_heads: number;
  num_key_value_heads?: number;
  head_dim?: number;
  intermediate_size?: number;
  max_position_embeddings?: number;
  vocab_size: number;
  tie_word_embeddings: boolean;
  attention_bias?: boolean;
  hidden_act?: string;
  hidden_activation?: string;
  partial_rotary_factor?: number;
  sliding_window?: number;
  sliding_window_pattern?: number;
  num_local_experts?: number;
  num_experts?: number;
  num_experts_per_tok?: number;
  moe_intermediate_size?: number;
  shared_expert_intermediate_size?: number;
  decoder_sparse_step?: number;
  mlp_only_layers?: number[];
  q_lora_rank?: number;
  kv_lora_rank?: number;
  qk_nope_head_dim?: number;
  qk_rope_head_dim?: number;
  v_head_dim?: number;
  n_routed_experts?: number;
  n_shared_experts?: number;
  first_k_dense_replace?: number;
  moe_layer_freq?: number;
  /** general.name */
  _name_or_path?: string;
};

/** Tensors of one dtype (GGML type) or one component, with their exact bytes. */
export interface CheckpointTotal {
  name: string;
  tensors: number;
  elements: number;
  bytes: number;
  bits_per_weight: number;
}

/** inspectCheckpoint(): a checkpoint header's summary and the architecture it implies. */
export interface CheckpointSummary {
  format: 'safetensors' | 'safetensors index' | 'gguf';
  gguf_version: number | null;
  /** GGUF general.architecture. */
  architecture: string | null;
  /** GGUF general.name. */
  name: string | null;
  file_size: number | null;
  header_bytes: number;
  data_start: number;
  tensor_count: number;
  total_elements: number;
  /** Exact bytes of every tensor, from the dtypes / GGML block layouts. */
  total_bytes: number;
  bits_per_weight: number;
  /** The quantization mix: GGUF general.file_type ("Q4_K_M"), else the dtypes by bytes ("BF16 + F32"). */
  mix: string;
  /** The bytes an estimate's weight_bytes takes (null when unknown, e.g. an index without shards). */
  weight_bytes: number | null;
  declared_total_size: number | null;
  /** Sorted by bytes, largest first. */
  by_dtype: CheckpointTotal[];
  /** embedding, attention_q, ..., mlp, experts, norm, lm_head, other. */
  by_component: CheckpointTotal[];
  notes: string[];
  /** The config.json a GGUF's keys imply (estimate it as the request's model); null otherwise. */
  config: GgufConfig | null;
  /** Where the architecture checked came from: the GGUF keys, or the config passed in. */
  config_source: 'gguf' | 'config' | null;
  /** The tensors against flopcast's architecture count; null without an architecture. */
  architecture_check: {
    model_type: string;
    checkpoint_elements: number;
    architecture_parameters: number;
    matches: boolean;
    /** Tensors no architecture component holds (rope_freqs, ...). */
    unaccounted: string[];
    components: { component: string; checkpoint: number; architecture: number }[];
  } | null;
  /** Why there is no architecture (unsupported GGUF architecture, no config for safetensors). */
  architecture_error: string | null;
}
