// Types of flopcast's JavaScript API, hand-written part: the graph profiler's input (the neutral
// graph form of core/include/flopcast/profile/profile.hpp, read in code) and its result.
// tools/gen_dts.mjs includes this file verbatim in build-wasm/wasm/flopcast.d.ts, after the types it
// generates from the core's tables (PrecisionName, ComputeUnit, WeightComponent, Optimizer,
// RecomputePolicy, EngineId, ModelType, CompareRow, RowFieldKey, the request types, ...), which
// it uses by name. Edit it here and rebuild (npm run build:wasm); never edit the built file.
// These shapes come from the core's C++ JSON writers (code, not a table): tests/wasm/types.test.mjs
// compiles real results of every call against them with tsc --strict and fails on any drift
// (a key missing, extra, typed wrong, or typed loosely).

/** A tensor of the profiler's neutral graph (core/include/flopcast/profile/profile.hpp). */
export interface ProfileTensor {
  name: string;
  /** ONNX TensorProto.DataType code (1 float, 7 int64, 10 float16, 16 bfloat16, ...). */
  elem_type?: number;
  /** Sizes, symbolic names, or null for an unknown size. */
  dims?: (number | string | null)[];
  /** Values of small int tensors (shape operands), only. */
  values?: number[];
}

export type ProfileAttribute =
  { i: number } | { f: number } | { s: string } | { ints: number[] } | { floats: number[] } | { t: ProfileTensor };

export interface ProfileNode {
  name?: string;
  op_type: string;
  domain?: string;
  /** Tensor names; "" for an absent optional input. */
  inputs?: string[];
  outputs?: string[];
  attributes?: Record<string, ProfileAttribute>;
}

/** The graph profile() reads: an ONNX graph without its weights. */
export interface ProfileGraph {
  opset?: number;
  inputs?: ProfileTensor[];
  outputs?: ProfileTensor[];
  value_infos?: ProfileTensor[];
  initializers?: ProfileTensor[];
  nodes: ProfileNode[];
  /** Set by the native reader: ONNX shape inference ran. Ignored by the core. */
  shape_inference?: boolean;
}

export interface ProfileOptions {
  /** Symbolic dimension sizes; every symbolic dimension of a graph input needs one. */
  dims?: Record<string, number>;
  /** Device of the roofline (default H100). */
  gpu?: string;
  /** Bytes per element and compute rate; default: each tensor's own type. */
  precision?: string;
  /** Module-scope depth of by_scope (default 1). */
  depth?: number;
}

/** FLOPs (a multiply-add is 2), MACs, parameters, bytes (SI base units) and roofline time. */
export interface ProfileCosts {
  flops: number;
  macs: number;
  parameters: number;
  activation_bytes: number;
  weight_bytes: number;
  roofline_time_s: number;
}

export interface ProfileGroup extends ProfileCosts {
  nodes: number;
  /** Nodes without a rule or without input shapes: their costs are missing. */
  not_costed: number;
}

export interface ProfileNodeCost extends ProfileCosts {
  name: string;
  op_type: string;
  scope: string;
  status: 'ok' | 'unknown_op' | 'unknown_shape';
  arithmetic_intensity: number;
  bound: 'compute' | 'memory';
  /** One shape per output; [] where unknown. */
  output_shapes: number[][];
}

export interface ProfileResult {
  gpu: string;
  compute_precision: string;
  peak_flops_per_s: number;
  memory_bandwidth_bytes_per_s: number;
  total: ProfileGroup;
  /** Op types without a cost rule. */
  unknown_ops: string[];
  by_op_type: (ProfileGroup & { op_type: string })[];
  by_scope: (ProfileGroup & { scope: string })[];
  nodes: ProfileNodeCost[];
}
