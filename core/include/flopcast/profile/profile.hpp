#pragma once
// The universal graph profiler: per-node FLOPs, MACs, parameters, bytes and roofline time of any
// ONNX-like graph, from a neutral graph description (below) that the native ONNX reader
// (core/onnx/) and the page's protobuf reader both produce. Shapes are propagated here, once.
//
// Counting conventions (those of core/src/estimate/flops.cpp):
// - a multiply-add is 2 FLOPs; MACs count the multiply-adds of matmul-like ops (Conv,
//   ConvTranspose, Gemm, MatMul, MatMulInteger, QLinearMatMul, Einsum, LSTM/GRU/RNN gates);
//   other ops have 0 MACs. A bias add is 1 FLOP per output element (Conv, Gemm's C).
// - elementwise ops and activations (Add, Mul, Relu, Gelu, Erf, Sqrt, Pow, Where, ...): 1 FLOP
//   per output element; Softmax / LogSoftmax 5 per element; LayerNormalization 7, RMS norms
//   (SimplifiedLayerNormalization, RMSNormalization) 4, BatchNormalization (inference) 2 per
//   element. An RMS norm written out as Pow/ReduceMean/Add/Sqrt/Div/Mul is counted op by op:
//   4 per element + 2 per row.
// - Reduce*: 1 per input element (ReduceSumSquare, ReduceL2: 2). MaxPool / AveragePool: one per
//   window element per output; GlobalAveragePool / GlobalMaxPool: 1 per input element.
// - Resize: nearest 0; linear 3 per output element per resized axis; cubic 8.
// - LSTM per time step, direction and sequence (H hidden, I input): MACs 4H(I+H), FLOPs
//   8H(I+H) + 13H (+8H with biases); GRU: MACs 3H(I+H), FLOPs 6H(I+H) + 11H (+6H); RNN:
//   MACs H(I+H), FLOPs 2H(I+H) + 2H (+2H).
// - data movement (Reshape, Transpose, Gather, Concat, Slice, Expand, Cast, Shape, ...): 0 FLOPs,
//   their bytes still count.
// - parameters: elements of floating-point initializers (integer ones are shapes and indices).
// - activation bytes of a node: its inputs and outputs that are not initializers; weight bytes:
//   its initializer inputs. Roofline time = max(FLOPs / peak, bytes / bandwidth).
// An op without a rule is "unknown_op"; a node whose input shapes are unknown is
// "unknown_shape". Neither is counted as zero: the totals say how many nodes were not costed.
//
// The graph's JSON form (what `profile(graphJson, options)` reads):
//   {"opset": 17,
//    "inputs" | "outputs" | "value_infos": [{"name", "elem_type" (ONNX TensorProto code),
//                                            "dims": [8, "seq", ...] (ints or symbolic names)}],
//    "initializers": [{"name", "elem_type", "dims", "values"?: [ints] (small int tensors only)}],
//    "nodes": [{"name", "op_type", "domain", "inputs": [...], "outputs": [...] ("" = absent),
//               "attributes": {"NAME": {"i": 1} | {"f": 0.5} | {"s": "text"} | {"ints": [..]}
//                              | {"floats": [..]} | {"t": TENSOR as an initializer}}}]}
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "flopcast/formats/precision.hpp"
#include "flopcast/hardware/hardware.hpp"
#include "flopcast/profile/limits.hpp"

namespace flopcast::profile {

struct dim {
  std::int64_t value = -1;  // >= 0 when known
  std::string symbol;       // the symbolic name otherwise (may be empty: unknown)
};

struct tensor_info {
  std::string name;
  int elem_type = 0;  // ONNX TensorProto.DataType
  std::vector<dim> dims;
  bool has_shape = false;
  std::vector<std::int64_t> values;  // small int tensors only
  bool has_values = false;
};

struct attribute {
  enum class kind { i, f, s, ints, floats, t } type = kind::i;
  std::int64_t i = 0;
  double f = 0;
  std::string s;
  std::vector<std::int64_t> ints;
  std::vector<double> floats;
  tensor_info t;
};

struct node {
  std::string name, op_type, domain;
  std::vector<std::string> inputs, outputs;
  std::map<std::string, attribute> attributes;
};

struct graph {
  std::int64_t opset = 0;
  std::vector<tensor_info> inputs, outputs, value_infos, initializers;
  std::vector<node> nodes;
};

// Reads the JSON form above; bad input throws flopcast::error at its JSON pointer.
[[nodiscard]] graph read_graph_json(std::string_view text);

struct options {
  std::map<std::string, std::int64_t> dims;  // symbolic dimension bindings (no defaults)
  const hardware_spec* gpu = nullptr;        // default: the registry's H100 entry
  std::optional<precision> weights;          // bytes per weight element; default: the tensor's type
  std::optional<precision> activations;      // bytes per activation element; default: the tensor's
  int depth = 1;                             // module-scope depth of the scope totals
};

struct costs {
  double flops = 0, macs = 0, parameters = 0, activation_bytes = 0, weight_bytes = 0, time_s = 0;
  void add(const costs& o);
};

struct node_cost {
  std::string name, op_type, scope;
  std::string status;  // "ok", "unknown_op", "unknown_shape"
  costs c;
  double intensity = 0;  // FLOPs per byte moved
  bool compute_bound = false;
  std::vector<std::vector<std::int64_t>> output_shapes;  // empty shape list when unknown
};

struct group_cost {
  std::string key;  // op type or scope
  std::int64_t nodes = 0, not_costed = 0;
  costs c;
};

struct result {
  std::string gpu;
  precision compute_precision = precision::fp32;
  double peak_flops_per_s = 0, bandwidth_bytes_per_s = 0;
  std::vector<node_cost> nodes;
  std::vector<group_cost> by_op, by_scope;  // sorted by FLOPs, descending
  group_cost total;
  std::vector<std::string> unknown_ops;  // distinct op types without a rule
};

// Propagates shapes and costs every node. An unbound symbolic dimension of a graph input, or a
// binding naming no dimension, throws flopcast::error(invalid_argument) naming it.
[[nodiscard]] result run(const graph& g, const options& o);
[[nodiscard]] std::string to_json(const result& r);
// Sets weight and activation bytes and the compute rate from one precision: the format itself
// for fp32, tf32, fp16, bf16 and fp8; weight-only formats (int8, int4, GGML, ...) keep bf16
// activations.
void set_precision(options& o, precision p);
// The options' JSON form: {"dims": {"batch": 8}, "gpu": "H100", "precision": "bf16", "depth": 2}
// (every key optional). Errors name the JSON pointer.
[[nodiscard]] options read_options_json(std::string_view text);
// run(read_graph_json(graph), read_options_json(options)) as JSON: what the page calls.
[[nodiscard]] std::string profile_json(std::string_view graph, std::string_view options);
// Bytes of one element of an ONNX data type (0: unknown / string).
[[nodiscard]] double element_bytes(int elem_type) noexcept;

}  // namespace flopcast::profile
