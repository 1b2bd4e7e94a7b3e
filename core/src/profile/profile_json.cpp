// The profiler's graph JSON reader and result writer (the form is documented in
// flopcast/profile.hpp).
#include <limits>

#include "base/json_out.hpp"
#include "base/json_reader.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/catalog/registry.hpp"
#include "flopcast/profile/limits.hpp"
#include "flopcast/profile/profile.hpp"

namespace flopcast::profile {
namespace {

using detail::json;
constexpr std::int64_t big = std::numeric_limits<std::int64_t>::max();

[[noreturn]] void bad(const std::string& ptr, const std::string& what, const json& v) {
  throw error(error_code::config_type, ptr, "expected " + what + ", got " + detail::describe(v));
}

std::string text(const json& j, const char* key, const std::string& ptr) {
  if (!j.contains(key)) return {};
  const json& v = j.at(key);
  if (!v.is_string()) bad(ptr + "/" + key, "a string", v);
  return v.get<std::string>();
}

const json& array_at(const json& j, const char* key, const std::string& ptr) {
  static const json empty = json::array();
  if (!j.contains(key)) return empty;
  const json& v = j.at(key);
  if (!v.is_array()) bad(ptr + "/" + key, "an array", v);
  return v;
}

std::vector<std::int64_t> ints(const json& a, const std::string& ptr) {
  if (!a.is_array()) bad(ptr, "an array of integers", a);
  std::vector<std::int64_t> out;
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(detail::to_integer(a[i], ptr + "/" + std::to_string(i), -big, big, "an integer"));
  return out;
}

tensor_info tensor(const json& j, const std::string& ptr) {
  if (!j.is_object()) bad(ptr, "an object", j);
  tensor_info t;
  t.name = text(j, "name", ptr);
  if (j.contains("elem_type"))
    t.elem_type = static_cast<int>(detail::to_integer(j.at("elem_type"), ptr + "/elem_type", 0, 64, "an ONNX type"));
  if (j.contains("dims")) {
    t.has_shape = true;
    const json& d = array_at(j, "dims", ptr);
    for (std::size_t i = 0; i < d.size(); ++i) {
      dim x;
      if (d[i].is_string())
        x.symbol = d[i].get<std::string>();
      else if (!d[i].is_null())
        x.value = detail::to_integer(d[i], ptr + "/dims/" + std::to_string(i), 0, big, "a size or a name");
      t.dims.push_back(x);
    }
  }
  if (j.contains("values")) {
    t.values = ints(j.at("values"), ptr + "/values");
    t.has_values = true;
  }
  return t;
}

std::vector<tensor_info> tensors(const json& j, const char* key) {
  std::vector<tensor_info> out;
  const json& a = array_at(j, key, "");
  for (std::size_t i = 0; i < a.size(); ++i)
    out.push_back(tensor(a[i], "/" + std::string(key) + "/" + std::to_string(i)));
  return out;
}

std::vector<std::string> names(const json& j, const char* key, const std::string& ptr) {
  std::vector<std::string> out;
  const json& a = array_at(j, key, ptr);
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) bad(ptr + "/" + key + "/" + std::to_string(i), "a tensor name", a[i]);
    out.push_back(a[i].get<std::string>());
  }
  return out;
}

attribute read_attribute(const json& v, const std::string& ptr) {
  if (!v.is_object() || v.size() != 1) bad(ptr, "an object with one of i, f, s, ints, floats, t", v);
  attribute a;
  const auto it = v.begin();
  const std::string k = it.key();
  const json& x = it.value();
  const std::string p = ptr + "/" + k;
  if (k == "i") {
    a.type = attribute::kind::i;
    a.i = detail::to_integer(x, p, -big, big, "an integer");
  } else if (k == "f") {
    if (!x.is_number()) bad(p, "a number", x);
    a.type = attribute::kind::f;
    a.f = x.get<double>();
  } else if (k == "s") {
    if (!x.is_string()) bad(p, "a string", x);
    a.type = attribute::kind::s;
    a.s = x.get<std::string>();
  } else if (k == "ints") {
    a.type = attribute::kind::ints;
    a.ints = ints(x, p);
  } else if (k == "floats") {
    if (!x.is_array()) bad(p, "an array of numbers", x);
    a.type = attribute::kind::floats;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!x[i].is_number()) bad(p + "/" + std::to_string(i), "a number", x[i]);
      a.floats.push_back(x[i].get<double>());
    }
  } else if (k == "t") {
    a.type = attribute::kind::t;
    a.t = tensor(x, p);
  } else {
    bad(ptr, "one of i, f, s, ints, floats, t", v);
  }
  return a;
}

// The graph limits (flopcast/profile/limits.hpp) on the parsed JSON, before a graph is built: the
// same counts the native ONNX reader checks after decoding a file (the page's graphs, built by its
// own reader, are checked here).
void check_limits(const json& j) {
  const auto size_of = [](const json& o, const char* key) -> std::int64_t {
    if (!o.is_object()) return 0;
    const auto it = o.find(key);
    return it != o.end() && it->is_array() ? static_cast<std::int64_t>(it->size()) : 0;
  };
  const auto over = [](std::int64_t n, const char* ptr, const char* what, std::int64_t limit) {
    if (n > limit)
      throw error(error_code::limit, ptr,
                  "the graph has " + std::to_string(n) + " " + what + ": expected at most " + std::to_string(limit) +
                      " (the profiler's graph limit)");
  };
  over(size_of(j, "nodes"), "/nodes", "nodes", k_max_graph_nodes);
  std::int64_t tensors = 0, entries = 0;
  for (const char* key : {"inputs", "outputs", "value_infos", "initializers"}) {
    tensors += size_of(j, key);
    if (size_of(j, key))
      for (const auto& t : j.at(key)) entries += size_of(t, "dims");
  }
  over(tensors, "", "tensors (inputs, outputs, value_infos and initializers)", k_max_graph_tensors);
  if (size_of(j, "nodes"))
    for (const auto& n : j.at("nodes")) {
      entries += size_of(n, "inputs") + size_of(n, "outputs");
      if (n.is_object() && n.contains("attributes") && n.at("attributes").is_object())
        for (const auto& a : n.at("attributes"))
          entries += size_of(a, "ints") + size_of(a, "floats") +
                     (a.is_object() && a.contains("t") ? size_of(a.at("t"), "dims") : 0);
    }
  over(entries, "", "list entries (node inputs and outputs, attribute values, tensor dimensions)", k_max_graph_entries);
}

void write_costs(detail::json_out& w, const costs& c) {
  w.field("flops", c.flops)
      .field("macs", c.macs)
      .field("parameters", c.parameters)
      .field("activation_bytes", c.activation_bytes)
      .field("weight_bytes", c.weight_bytes)
      .field("roofline_time_s", c.time_s);
}

void write_groups(detail::json_out& w, std::string_view key, std::string_view name, const std::vector<group_cost>& gs) {
  w.array(key, [&] {
    for (const auto& g : gs) {
      w.begin_object().field(name, g.key).field("nodes", g.nodes).field("not_costed", g.not_costed);
      write_costs(w, g.c);
      w.end_object();
    }
  });
}

}  // namespace

graph read_graph_json(std::string_view text_in) {
  const json j = detail::parse_object(text_in, "the graph");
  check_limits(j);
  graph g;
  if (j.contains("opset")) g.opset = detail::to_integer(j.at("opset"), "/opset", 0, 1000, "an opset version");
  g.inputs = tensors(j, "inputs");
  g.outputs = tensors(j, "outputs");
  g.value_infos = tensors(j, "value_infos");
  g.initializers = tensors(j, "initializers");
  const json& ns = array_at(j, "nodes", "");
  for (std::size_t i = 0; i < ns.size(); ++i) {
    const std::string ptr = "/nodes/" + std::to_string(i);
    const json& n = ns[i];
    if (!n.is_object()) bad(ptr, "an object", n);
    node x;
    x.name = text(n, "name", ptr);
    x.op_type = text(n, "op_type", ptr);
    if (x.op_type.empty()) throw error(error_code::config_missing, ptr + "/op_type", "a node needs an op_type");
    x.domain = text(n, "domain", ptr);
    x.inputs = names(n, "inputs", ptr);
    x.outputs = names(n, "outputs", ptr);
    if (n.contains("attributes")) {
      const json& a = n.at("attributes");
      if (!a.is_object()) bad(ptr + "/attributes", "an object", a);
      for (const auto& [k, v] : a.items()) x.attributes[k] = read_attribute(v, ptr + "/attributes/" + k);
    }
    g.nodes.push_back(std::move(x));
  }
  return g;
}

void set_precision(options& o, precision p) {
  o.weights = p;
  const bool full = p == precision::fp32 || p == precision::tf32 || p == precision::fp16 || p == precision::bf16 ||
                    p == precision::fp8;
  o.activations = full ? p : precision::bf16;
}

options read_options_json(std::string_view text_in) {
  const json j = detail::parse_object(text_in, "the profile options");
  options o;
  for (const auto& [k, v] : j.items())
    if (k != "dims" && k != "gpu" && k != "precision" && k != "depth")
      throw error(error_code::invalid_argument, "/" + k, "unknown option (expected dims, gpu, precision, depth)");
  if (j.contains("dims")) {
    const json& d = j.at("dims");
    if (!d.is_object()) bad("/dims", "an object of sizes", d);
    for (const auto& [k, v] : d.items())
      o.dims[k] = detail::to_integer(v, "/dims/" + k, 1, k_max_dim, "a positive size");
  }
  if (j.contains("gpu")) o.gpu = &find_gpu(text(j, "gpu", ""));
  if (j.contains("precision")) set_precision(o, parse_precision(text(j, "precision", ""), "/precision"));
  if (j.contains("depth")) o.depth = static_cast<int>(detail::to_integer(j.at("depth"), "/depth", 1, 64, "a depth"));
  return o;
}

std::string profile_json(std::string_view graph, std::string_view opts) {
  return to_json(run(read_graph_json(graph), read_options_json(opts)));
}

std::string to_json(const result& r) {
  detail::json_out w;
  w.begin_object()
      .field("gpu", r.gpu)
      .field("compute_precision", to_string(r.compute_precision))
      .field("peak_flops_per_s", r.peak_flops_per_s)
      .field("memory_bandwidth_bytes_per_s", r.bandwidth_bytes_per_s);
  w.object("total", [&] {
    w.field("nodes", r.total.nodes).field("not_costed", r.total.not_costed);
    write_costs(w, r.total.c);
  });
  w.strings("unknown_ops", r.unknown_ops);
  write_groups(w, "by_op_type", "op_type", r.by_op);
  write_groups(w, "by_scope", "scope", r.by_scope);
  w.array("nodes", [&] {
    for (const auto& n : r.nodes) {
      w.begin_object()
          .field("name", n.name)
          .field("op_type", n.op_type)
          .field("scope", n.scope)
          .field("status", n.status);
      write_costs(w, n.c);
      w.field("arithmetic_intensity", n.intensity).field("bound", n.compute_bound ? "compute" : "memory");
      w.array("output_shapes", [&] {
        for (const auto& s : n.output_shapes) {
          w.begin_array();
          for (auto v : s) w.value(v);
          w.end_array();
        }
      });
      w.end_object();
    }
  });
  w.end_object();
  return w.take();
}

}  // namespace flopcast::profile
