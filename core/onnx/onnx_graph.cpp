// libflopcast_onnx: reads an .onnx file with Debian's libonnx / libprotobuf and returns the
// profiler's neutral graph JSON (flopcast/profile.hpp). A separate shared module, dlopen'ed by
// `flopcast profile` (core/cli/inputs/onnx_library.cpp), so that the flopcast binary links neither
// library. Weights are never interpreted: initializers give their type and shape, and their
// values only for small int32 / int64 tensors (shape operands of Reshape, Expand, Slice, ...);
// external-data initializers are never opened.
#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

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
  for (auto x : t.dims()) {
    d.push_back(x);
    n *= x;
  }
  j["dims"] = d;
  const bool external = t.data_location() == onnx::TensorProto::EXTERNAL;
  const auto type = t.data_type();
  if (!external && n <= max_values && (type == onnx::TensorProto::INT64 || type == onnx::TensorProto::INT32)) {
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
    onnx::ModelProto m;
    if (!m.ParseFromIstream(&f))
      return copy(std::string(path) + " is not an ONNX model (the protobuf does not parse; truncated?)");
    if (!m.has_graph() || m.graph().node_size() == 0)
      return copy(std::string(path) + " is not an ONNX model (no graph with nodes)");
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
