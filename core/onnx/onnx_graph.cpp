// libflopcast_onnx: reads an .onnx file with Debian's libonnx / libprotobuf and returns the
// profiler's neutral graph JSON (flopcast/profile.hpp). A separate shared module, dlopen'ed by
// `flopcast profile` (core/cli/inputs/onnx_library.cpp), so that the flopcast binary links neither
// library. Weights are never interpreted: initializers give their type and shape, and their
// values only for small int32 / int64 tensors (shape operands of Reshape, Expand, Slice, ...);
// external-data initializers are never opened.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "flopcast/profile/limits.hpp"
#include "flopcast_onnx.h"

namespace {

using nlohmann::json;
constexpr int max_values = 64;  // int tensors up to this many elements keep their values

json dims_of(const onnx::TensorShapeProto& s) {
  json d = json::array();
  for (const auto& x : s.dim()) {
    if (x.has_dim_value())
      d.push_back(x.dim_value());
    else if (x.has_dim_param() && !x.dim_param().empty())
      d.push_back(x.dim_param());
    else
      d.push_back(nullptr);
  }
  return d;
}

json value_info(const onnx::ValueInfoProto& v) {
  json j{{"name", v.name()}};
  if (v.type().has_tensor_type()) {
    const auto& t = v.type().tensor_type();
    j["elem_type"] = t.elem_type();
    if (t.has_shape()) j["dims"] = dims_of(t.shape());
  }
  return j;
}

json tensor(const onnx::TensorProto& t) {
  json j{{"name", t.name()}, {"elem_type", t.data_type()}};
  json d = json::array();
  std::int64_t n = 1;
  bool small = true;  // at most max_values elements (the product checked: dims are the file's)
  for (auto x : t.dims()) {
    d.push_back(x);
    small = small && x >= 0 && !__builtin_mul_overflow(n, x, &n) && n <= max_values;
  }
  j["dims"] = d;
  const bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
  const auto type = t.data_type();
  if (!external && small && (type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32)) {
    json v = json::array();
    if (type == onnx::TensorProto::INT64 && t.int64_data_size() == n)
      for (auto x : t.int64_data()) v.push_back(x);
    else if (type == onnx::TensorProto::INT32 && t.int32_data_size() == n)
      for (auto x : t.int32_data()) v.push_back(x);
    else if (t.has_raw_data()) {
      const std::string& raw = t.raw_data();
      const std::size_t w = type == onnx::TensorProto::INT64 ? 8 : 4;
      if (raw.size() == w * static_cast<std::size_t>(n))
        for (std::int64_t k = 0; k < n; ++k) {
          if (w == 8) {
            std::int64_t x;
            std::memcpy(&x, raw.data() + k * 8, 8);
            v.push_back(x);
          } else {
            std::int32_t x;
            std::memcpy(&x, raw.data() + k * 4, 4);
            v.push_back(x);
          }
        }
    }
    if (static_cast<std::int64_t>(v.size()) == n) j["values"] = v;
  }
  return j;
}

json attribute(const onnx::AttributeProto& a) {
  using A = onnx::AttributeProto;
  switch (a.type()) {
    case A::INT:
      return {{"i", a.i()}};
    case A::FLOAT:
      return {{"f", a.f()}};
    case A::STRING:
      return {{"s", a.s()}};
    case A::INTS: {
      json v = json::array();
      for (auto x : a.ints()) v.push_back(x);
      return {{"ints", v}};
    }
    case A::FLOATS: {
      json v = json::array();
      for (auto x : a.floats()) v.push_back(x);
      return {{"floats", v}};
    }
    case A::TENSOR:
      return {{"t", tensor(a.t())}};
    default:
      return nullptr;  // graphs, sparse tensors, strings lists: not used by the cost rules
  }
}

// Message nesting protobuf may follow while parsing: far past the subgraph limit (a subgraph level
// is 3 messages: NodeProto, AttributeProto, GraphProto), so that a file nested beyond that limit
// still parses and gets the specific error; protobuf's default is 100.
constexpr int parse_recursion = 1000;

std::string too_many_nodes(const std::string& path, std::int64_t n) {
  return path + " has " + std::to_string(n) + " nodes: expected at most " +
         std::to_string(flopcast::profile::k_max_graph_nodes) + " (flopcast profile's graph limit)";
}

// The nodes of the main graph (ModelProto field 7, GraphProto field 1), counted on the wire
// format before protobuf decodes the file (decoded, a node takes some 400 bytes: 300k nodes were
// 130 MB); -1 where the bytes are not a protobuf (the parse then says why). Reads through a
// 64 KiB window and skips every other field (initializer data included) with a seek.
std::int64_t main_graph_nodes(std::istream& f) {
  f.seekg(0, std::ios::end);
  const std::uint64_t size = static_cast<std::uint64_t>(f.tellg());
  std::vector<char> buf(64 << 10);
  std::uint64_t at = 0, len = 0, pos = 0;  // the window's file offset and length; the read position
  const auto byte = [&](std::uint8_t& b) {
    if (pos < at || pos >= at + len) {
      f.clear();
      f.seekg(static_cast<std::streamoff>(pos));
      f.read(buf.data(), static_cast<std::streamsize>(buf.size()));
      at = pos;
      len = static_cast<std::uint64_t>(f.gcount());
      if (len == 0) return false;
    }
    b = static_cast<std::uint8_t>(buf[pos - at]);
    ++pos;
    return true;
  };
  const auto varint = [&](std::uint64_t& v) {
    v = 0;
    std::uint8_t b = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (!byte(b)) return false;
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if (b < 0x80) return true;
    }
    return false;
  };
  // Walks the fields in [pos, end); `inner(field, length)` sees each length-delimited one and
  // returns whether it read it (else it is skipped).
  const auto fields = [&](std::uint64_t end, const auto& inner) {
    while (pos < end) {
      std::uint64_t tag = 0, n = 0;
      if (!varint(tag)) return false;
      switch (tag & 7) {
        case 0:
          if (!varint(n)) return false;
          break;
        case 1:
          pos += 8;
          break;
        case 2:
          if (!varint(n) || n > end - pos) return false;
          if (!inner(tag >> 3, pos + n)) pos += n;
          break;
        case 5:
          pos += 4;
          break;
        default:
          return false;  // groups: not in ONNX
      }
    }
    return pos == end;
  };
  std::int64_t nodes = 0;
  bool graphs_ok = true;
  const bool ok = fields(size, [&](std::uint64_t field, std::uint64_t end) {
    if (field != 7) return false;
    graphs_ok = graphs_ok && fields(end, [&](std::uint64_t g, std::uint64_t) {
                  nodes += g == 1 ? 1 : 0;
                  return false;
                });
    pos = end;
    return true;
  });
  f.clear();
  f.seekg(0);
  return ok && graphs_ok ? nodes : -1;
}

// The first limit of flopcast/profile/limits.hpp the decoded model breaks (the main graph and
// every subgraph counted together), or "" when it keeps them all. Runs before shape inference and
// before any JSON is written; iterative, so deep nesting cannot overflow the stack.
std::string over_limit(const onnx::ModelProto& m, const std::string& path) {
  using namespace flopcast::profile;
  std::int64_t nodes = 0, tensors = 0, entries = 0;
  int deepest = 0;
  const auto dims = [&](const onnx::ValueInfoProto& v) {
    if (v.type().has_tensor_type() && v.type().tensor_type().has_shape())
      entries += v.type().tensor_type().shape().dim_size();
  };
  std::vector<std::pair<const onnx::GraphProto*, int>> todo{{&m.graph(), 0}};
  while (!todo.empty()) {
    const auto [g, depth] = todo.back();
    todo.pop_back();
    deepest = std::max(deepest, depth);
    if (depth > k_max_subgraph_depth)
      return path + " nests subgraphs (If / Loop / Scan bodies) more than " + std::to_string(k_max_subgraph_depth) +
             " levels deep: expected at most " + std::to_string(k_max_subgraph_depth);
    nodes += g->node_size();
    tensors += g->input_size() + g->output_size() + g->value_info_size() + g->initializer_size();
    for (const auto* list : {&g->input(), &g->output(), &g->value_info()})
      for (const auto& v : *list) dims(v);
    for (const auto& t : g->initializer()) entries += t.dims_size();
    for (const auto& n : g->node()) {
      entries += n.input_size() + n.output_size();
      for (const auto& a : n.attribute()) {
        entries += a.ints_size() + a.floats_size() + a.t().dims_size();
        if (a.has_g()) todo.emplace_back(&a.g(), depth + 1);
        for (const auto& sub : a.graphs()) todo.emplace_back(&sub, depth + 1);
      }
    }
  }
  if (nodes > k_max_graph_nodes) return too_many_nodes(path, nodes);
  const auto over = [&](std::int64_t n, const char* what, std::int64_t limit) {
    return path + " has " + std::to_string(n) + " " + what + ": expected at most " + std::to_string(limit) +
           " (flopcast profile's graph limit)";
  };
  if (tensors > k_max_graph_tensors)
    return over(tensors, "tensors (inputs, outputs, value_infos and initializers)", k_max_graph_tensors);
  if (entries > k_max_graph_entries)
    return over(entries, "list entries (node inputs and outputs, attribute values, tensor dimensions)",
                k_max_graph_entries);
  return {};
}

char* copy(const std::string& s) {
  char* out = static_cast<char*>(std::malloc(s.size() + 1));
  if (out) std::memcpy(out, s.c_str(), s.size() + 1);
  return out;
}

}  // namespace

extern "C" char* flopcast_onnx_graph_json(const char* path, int* ok) {
  *ok = 0;
  try {
    std::ifstream f(path, std::ios::binary);
    if (!f) return copy(std::string("cannot open ") + path);
    if (const std::int64_t n = main_graph_nodes(f); n > flopcast::profile::k_max_graph_nodes) {
      *ok = -1;
      return copy(too_many_nodes(path, n));
    }
    onnx::ModelProto m;
    {
      google::protobuf::io::IstreamInputStream raw(&f);
      google::protobuf::io::CodedInputStream in(&raw);
      in.SetRecursionLimit(parse_recursion);
      in.SetTotalBytesLimit(INT_MAX);
      if (!m.ParseFromCodedStream(&in) || !in.ConsumedEntireMessage())
        return copy(std::string(path) +
                    " is not an ONNX model (the protobuf does not parse: truncated, or messages nested more than " +
                    std::to_string(parse_recursion) + " deep)");
    }
    if (!m.has_graph() || m.graph().node_size() == 0)
      return copy(std::string(path) + " is not an ONNX model (no graph with nodes)");
    if (const std::string why = over_limit(m, path); !why.empty()) {
      *ok = -1;
      return copy(why);
    }
    bool inferred = false;
    if (m.graph().value_info_size() == 0) {
      try {
        onnx::shape_inference::InferShapes(m);
        inferred = true;
      } catch (const std::exception& e) {
        return copy(std::string("ONNX shape inference failed on ") + path + ": " + e.what());
      }
    }
    const auto& g = m.graph();
    json j;
    std::int64_t opset = 0;
    for (const auto& o : m.opset_import())
      if (o.domain().empty() || o.domain() == "ai.onnx") opset = o.version();
    j["opset"] = opset;
    j["shape_inference"] = inferred;
    json& in = j["inputs"] = json::array();
    for (const auto& v : g.input()) in.push_back(value_info(v));
    json& out = j["outputs"] = json::array();
    for (const auto& v : g.output()) out.push_back(value_info(v));
    json& vi = j["value_infos"] = json::array();
    for (const auto& v : g.value_info()) vi.push_back(value_info(v));
    json& init = j["initializers"] = json::array();
    for (const auto& t : g.initializer()) init.push_back(tensor(t));
    json& nodes = j["nodes"] = json::array();
    for (const auto& n : g.node()) {
      json x{{"name", n.name()}, {"op_type", n.op_type()}, {"domain", n.domain()}};
      x["inputs"] = json::array();
      for (const auto& s : n.input()) x["inputs"].push_back(s);
      x["outputs"] = json::array();
      for (const auto& s : n.output()) x["outputs"].push_back(s);
      json a = json::object();
      for (const auto& at : n.attribute())
        if (json v = attribute(at); !v.is_null()) a[at.name()] = v;
      x["attributes"] = a;
      nodes.push_back(x);
    }
    *ok = 1;
    return copy(j.dump(-1, ' ', false, json::error_handler_t::replace));
  } catch (const std::exception& e) {
    return copy(std::string("cannot read ") + path + ": " + e.what());
  }
}

extern "C" void flopcast_onnx_free(char* p) { std::free(p); }
