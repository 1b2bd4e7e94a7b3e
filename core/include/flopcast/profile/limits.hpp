#pragma once
// The graph profiler's limits, in one place: what the native ONNX reader (core/onnx/) checks
// before shape inference and before writing any graph JSON (the main graph's node count on the
// wire format, before protobuf decodes the file; the rest right after); what read_graph_json
// checks before building a graph (the page's graphs, built by its own reader, arrive that way);
// and the sizes shape propagation takes. A dependency-free header: the dlopened ONNX module
// includes it too.
#include <cstdint>

namespace flopcast::profile {

// The largest dimension and the largest element count of any tensor: a graph's own sizes, a
// --dim binding (`dims` of the options) and every size shape propagation derives. 2^40 elements
// is 2 TiB of bf16 in one tensor, beyond any accelerator; every count below it is exact in a
// double, and products of two of them stay far from the int64 range.
inline constexpr std::int64_t k_max_dim = std::int64_t{1} << 40;
// The largest rank of a tensor (numpy 2's NPY_MAXDIMS is 64:
// https://numpy.org/doc/stable/release/2.0.0-notes.html).
inline constexpr std::int64_t k_max_rank = 64;
// Nodes of a graph. A graph JSON node takes at least ~70 bytes, so the 16 MiB limit on the JSON
// text (base/json_reader.hpp) allowed at most ~240k; the largest exported LLMs have a few tens of
// thousands (80 layers x ~150 nodes).
inline constexpr std::int64_t k_max_graph_nodes = std::int64_t{1} << 17;  // 131,072
// Tensors described by a graph: inputs, outputs, value_infos and initializers together.
inline constexpr std::int64_t k_max_graph_tensors = std::int64_t{1} << 18;  // 262,144
// Entries of a graph's lists together: node inputs and outputs, attribute ints and floats, and
// the dimensions of every tensor (each at least 2 bytes of graph JSON).
inline constexpr std::int64_t k_max_graph_entries = std::int64_t{1} << 22;  // 4,194,304
// Subgraphs (If / Loop / Scan bodies) nested in subgraphs. The profiler costs the main graph
// only; exporters nest a few levels. (protobuf's default recursion limit of 100 messages
// stopped files at about this depth.)
inline constexpr int k_max_subgraph_depth = 32;

}  // namespace flopcast::profile
