// Hostile graphs for the profiler (issue 26, item 4): sizes that overflowed int64 in shape
// propagation (undefined behaviour, silently wrong totals), dimensions past the 2^40 the options'
// `dims` allow, and graphs over the graph limits, each built here. Every one is refused with a
// coded error naming the node (or tensor) and the bound, or answered exactly (hand arithmetic in
// the comments).
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>

#include "flopcast/base/error.hpp"
#include "flopcast/profile/limits.hpp"
#include "flopcast/profile/profile.hpp"

namespace {

using nlohmann::json;
namespace pf = flopcast::profile;
using flopcast::error_code;

constexpr std::int64_t p62 = std::int64_t{1} << 62;
constexpr std::int64_t i64max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t i64min = -i64max;  // the most negative integer the graph JSON takes

// A graph's inputs or initializers: a list of tensors. (Not a json parameter: `{tensor(...)}` for a
// json is a one-element array under GCC but a copy of the tensor under Clang, CWG 1467.)
using tensors = std::vector<json>;

json tensor(const std::string& name, json dims, int type = 1) {
  return {{"name", name}, {"elem_type", type}, {"dims", std::move(dims)}};
}
json ints(const std::string& name, json values) {
  json t = tensor(name, {values.size()}, 7);
  t["values"] = std::move(values);
  return t;
}

// One node "/m/n" over graph inputs and initializers (as test_profile.cpp builds them).
json graph1(const std::string& op, tensors inputs, tensors inits, json attributes, std::vector<std::string> in) {
  return {{"opset", 17},
          {"inputs", json(std::move(inputs))},
          {"initializers", json(std::move(inits))},
          {"nodes", json::array({{{"name", "/m/n"},
                                  {"op_type", op},
                                  {"inputs", in},
                                  {"outputs", {"y"}},
                                  {"attributes", attributes.is_null() ? json::object() : std::move(attributes)}}})}};
}

pf::result run(const json& g, pf::options o = {}) { return pf::run(pf::read_graph_json(g.dump()), o); }

// The error of profiling `g`, as "code pointer message", or "no error".
std::string refusal(const json& g, pf::options o = {}) {
  try {
    (void)run(g, o);
  } catch (const flopcast::error& e) {
    return std::string(flopcast::to_string(e.code())) + " " + e.pointer() + " " + e.message();
  }
  return "no error";
}

using Catch::Contains;

}  // namespace

TEST_CASE("hostile profile: Tile by [2^62, 2^62] is refused; a tile to exactly 2^40 elements is exact", "[hostile]") {
  // The 103-byte reproducer: a 4x4 tensor tiled [2^62, 2^62]; 4 x 2^62 = 2^64 wrapped to 0 and
  // reported 64 B of activations and 0 FLOPs.
  const std::string r = refusal(graph1("Tile", {tensor("x", {4, 4})}, {ints("r", {p62, p62})}, {}, {"x", "r"}));
  CHECK_THAT(r, Contains("config.range /nodes/0 node \"/m/n\" (Tile): a size overflows 64-bit integers"));
  CHECK_THAT(r, Contains("at most 1099511627776 (2^40, as --dim)"));
  // [4, 4] x [2^20, 2^20] = [2^22, 2^22]: 2^44 elements, past 2^40 although no int64 overflows.
  CHECK_THAT(refusal(graph1("Tile", {tensor("x", {4, 4})}, {ints("r", {1 << 20, 1 << 20})}, {}, {"x", "r"})),
             Contains("(Tile): output 0 (\"y\") would have more than 2^40 elements (4194304 x 4194304)"));
  // [4, 4] x [2^18, 2^18] = [2^20, 2^20]: 2^40 elements exactly, within the bound. Bytes: the
  // fp32 input 16 x 4 + the output 2^40 x 4; the repeats are an int64 initializer, 2 x 8.
  const auto ok = run(graph1("Tile", {tensor("x", {4, 4})}, {ints("r", {1 << 18, 1 << 18})}, {}, {"x", "r"}));
  CHECK(ok.nodes.at(0).output_shapes.at(0) == std::vector<std::int64_t>{1 << 20, 1 << 20});
  CHECK(ok.total.c.activation_bytes == 64.0 + 4.0 * static_cast<double>(pf::k_max_dim));
  CHECK(ok.total.c.weight_bytes == 16);
  CHECK(ok.total.c.flops == 0);
}

TEST_CASE("hostile profile: Conv dilations and pads that overflow are refused", "[hostile]") {
  const json x = tensor("x", {1, 1, 8, 8}), w = tensor("w", {1, 1, 3, 3});
  // Effective kernel dilation x (3 - 1) + 1 = 2^62 x 2 overflows.
  CHECK_THAT(
      refusal(graph1("Conv", {x}, {w}, {{"dilations", {{"ints", {p62, 1}}}}}, {"x", "w"})),
      Contains(
          "config.range /nodes/0 node \"/m/n\" (Conv): a size overflows 64-bit integers (4611686018427387904 x 2)"));
  // Padded span 8 + 2^62 + 2^62 overflows.
  CHECK_THAT(refusal(graph1("Conv", {x}, {w}, {{"pads", {{"ints", {p62, 0, p62, 0}}}}}, {"x", "w"})),
             Contains("(Conv): a size overflows 64-bit integers"));
  // Pads 2^40 on each side: 8 + 2^41 - 3 + 1 = 2^41 + 6 rows, past 2^40.
  CHECK_THAT(
      refusal(graph1("Conv", {x}, {w}, {{"pads", {{"ints", {pf::k_max_dim, 0, pf::k_max_dim, 0}}}}}, {"x", "w"})),
      Contains("(Conv): output 0 (\"y\") would have a dimension of 2199023255558: expected at most"));
  // A stride of INT64_MAX with ceil_mode (span + stride - 1 overflowed): ceil((8 - 3) / stride)
  // + 1 = 2 rows, as ONNX's ceil((in - kernel) / stride + 1); (8 - 3) / 1 + 1 = 6 columns.
  const auto r = run(graph1(
      "MaxPool", {x}, {},
      {{"kernel_shape", {{"ints", {3, 3}}}}, {"strides", {{"ints", {i64max, 1}}}}, {"ceil_mode", {{"i", 1}}}}, {"x"}));
  CHECK(r.nodes.at(0).output_shapes.at(0) == std::vector<std::int64_t>{1, 1, 2, 6});
  // ceil((8 - 3) / INT64_MAX) + 1 = 2 rows: 2 x 6 outputs x 9 window elements.
  CHECK(r.nodes.at(0).c.flops == 2 * 6 * 9);
}

TEST_CASE("hostile profile: ConvTranspose strides, group and pads that overflow are refused", "[hostile]") {
  const json x = tensor("x", {1, 4, 5, 5}), w = tensor("w", {4, 3, 2, 2});
  // 2^62 x (5 - 1) overflows.
  CHECK_THAT(refusal(graph1("ConvTranspose", {x}, {w}, {{"strides", {{"ints", {p62, 1}}}}}, {"x", "w"})),
             Contains("(ConvTranspose): a size overflows 64-bit integers (4611686018427387904 x 4)"));
  // Output channels 3 x group 2^62 overflows.
  CHECK_THAT(refusal(graph1("ConvTranspose", {x}, {w}, {{"group", {{"i", p62}}}}, {"x", "w"})),
             Contains("(ConvTranspose): a size overflows 64-bit integers (3 x 4611686018427387904)"));
  // A pad of -(2^63 - 1): 6 - pad overflows.
  CHECK_THAT(refusal(graph1("ConvTranspose", {x}, {w}, {{"pads", {{"ints", {i64min, 0, 0, 0}}}}}, {"x", "w"})),
             Contains("(ConvTranspose): a size overflows 64-bit integers"));
  // SAME_UPPER: 5 x 2^40 = 2^40 + 2^42, past the bound (no overflow).
  CHECK_THAT(
      refusal(graph1("ConvTranspose", {x}, {w},
                     {{"auto_pad", {{"s", "SAME_UPPER"}}}, {"strides", {{"ints", {pf::k_max_dim, 1}}}}}, {"x", "w"})),
      Contains("would have a dimension of 5497558138880"));
}

TEST_CASE("hostile profile: Slice with extreme steps is exact", "[hostile]") {
  const auto len = [](std::int64_t start, std::int64_t end, std::int64_t step) {
    const auto r = run(graph1("Slice", {tensor("x", {10})},
                              {ints("s", {start}), ints("e", {end}), ints("a", {0}), ints("t", {step})}, {},
                              {"x", "s", "e", "a", "t"}));
    return r.nodes.at(0).output_shapes.at(0).at(0);
  };
  CHECK(len(0, 10, 3) == 4);             // 0, 3, 6, 9
  CHECK(len(9, -11, -3) == 4);           // 9, 6, 3, 0 (end -11 clamps to -1)
  CHECK(len(0, i64max, i64max) == 1);    // element 0 (overflowed in e - s + step - 1)
  CHECK(len(9, i64min, i64min) == 1);    // element 9 (-step - 1 + span overflowed)
  CHECK(len(i64min, i64max, 1) == 10);   // the whole axis
  CHECK(len(i64max, i64min, -1) == 10);  // the whole axis, reversed
  CHECK(len(5, 2, i64max) == 0);         // empty
  CHECK(len(2, 5, i64min) == 0);         // empty
}

TEST_CASE("hostile profile: Pad that overflows is refused, negative pads are exact", "[hostile]") {
  CHECK_THAT(refusal(graph1("Pad", {tensor("x", {4, 4})}, {ints("p", {p62, 0, p62, 0})}, {}, {"x", "p"})),
             Contains("config.range /nodes/0 node \"/m/n\" (Pad): a size overflows 64-bit integers"));
  // 4 - 2 - 1 = 1 rows, 4 columns.
  const auto r = run(graph1("Pad", {tensor("x", {4, 4})}, {ints("p", {-2, 0, -1, 0})}, {}, {"x", "p"}));
  CHECK(r.nodes.at(0).output_shapes.at(0) == std::vector<std::int64_t>{1, 4});
}

TEST_CASE("hostile profile: MatMul of 2^62 dimensions is refused; 2^20 dimensions are exact", "[hostile]") {
  // It gave 1.96e56 FLOPs.
  CHECK_THAT(
      refusal(graph1("MatMul", {tensor("a", {p62, p62}), tensor("b", {p62, p62})}, json::array(), {}, {"a", "b"})),
      Contains("config.range /inputs/0 graph input \"a\" has a dimension of 4611686018427387904: expected at "
               "most 1099511627776 (2^40, as --dim)"));
  // [2^20, 2^20] x [2^20, 2^20]: 2^60 MACs, 2^61 FLOPs (powers of two: exact in a double).
  const auto r = run(graph1("MatMul", {tensor("a", {1 << 20, 1 << 20}), tensor("b", {1 << 20, 1 << 20})}, json::array(),
                            {}, {"a", "b"}));
  CHECK(r.total.c.macs == std::ldexp(1.0, 60));
  CHECK(r.total.c.flops == std::ldexp(1.0, 61));
  // A symbolic dimension bound to 2^40 (the most --dim takes) over 4096 columns: 2^52 elements.
  pf::options o;
  o.dims = {{"batch", pf::k_max_dim}};
  CHECK_THAT(refusal(graph1("Relu", {tensor("x", {"batch", 4096})}, json::array(), {}, {"x"}), o),
             Contains("/inputs/0 graph input \"x\" has more than 2^40 elements (1099511627776 x 4096)"));
  // Initializers, value_infos and ranks past 64 are bounded the same way.
  CHECK_THAT(refusal(graph1("Relu", json::array(), {tensor("w", {p62})}, {}, {"w"})),
             Contains("/initializers/0 initializer \"w\" has a dimension of"));
  json g = graph1("Relu", {tensor("x", {2})}, json::array(), {}, {"x"});
  g["value_infos"] = json::array({tensor("y", {p62})});
  CHECK_THAT(refusal(g), Contains("/value_infos/0 value_info \"y\" has a dimension of"));
  CHECK_THAT(refusal(graph1("Relu", {tensor("x", json(std::vector<int>(65, 1)))}, json::array(), {}, {"x"})),
             Contains("/inputs/0 graph input \"x\" has rank 65: expected at most 64"));
}

TEST_CASE("hostile profile: shape arithmetic on constants, Range and Concat chains", "[hostile]") {
  // Mul of constant shapes 2^62 x 4 overflows; Sub of -(2^63 - 1) - 2 too.
  CHECK_THAT(refusal(graph1("Mul", json::array(), {ints("a", {p62}), ints("b", {4})}, {}, {"a", "b"})),
             Contains("(Mul): a size overflows 64-bit integers (4611686018427387904 x 4)"));
  CHECK_THAT(refusal(graph1("Sub", json::array(), {ints("a", {i64min}), ints("b", {2})}, {}, {"a", "b"})),
             Contains("(Sub): a size overflows 64-bit integers"));
  // Range from -(2^63 - 1) to 2^63 - 1: the length overflows; 0 to 2^41 by 1 is past the bound.
  CHECK_THAT(refusal(graph1("Range", json::array(), {ints("s", {i64min}), ints("e", {i64max}), ints("d", {1})}, {},
                            {"s", "e", "d"})),
             Contains("(Range): a size overflows"));
  CHECK_THAT(refusal(graph1("Range", json::array(), {ints("s", {0}), ints("e", {pf::k_max_dim * 2}), ints("d", {1})},
                            {}, {"s", "e", "d"})),
             Contains("(Range): the range would have more than 2^40 elements: expected at most"));
  // 30 Concats, each of the previous output with itself: a [1] constant doubles to [2^30]. The
  // constant values are dropped past 1024 (they doubled to 2^30 values, 8 GiB, before).
  json g{{"opset", 17}, {"initializers", {ints("c0", {7})}}, {"nodes", json::array()}};
  for (int k = 0; k < 30; ++k) {
    const std::string a = "c" + std::to_string(k), b = "c" + std::to_string(k + 1);
    g["nodes"].push_back(
        {{"op_type", "Concat"}, {"inputs", {a, a}}, {"outputs", {b}}, {"attributes", {{"axis", {{"i", 0}}}}}});
  }
  const auto t0 = std::chrono::steady_clock::now();
  const auto r = run(g);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK(r.nodes.back().output_shapes.at(0) == std::vector<std::int64_t>{std::int64_t{1} << 30});
  CHECK(s < 15);  // generous: milliseconds now; memory ran out before
  WARN("30 doubling Concats: " << s << " s");
}

TEST_CASE("hostile profile: graphs over the graph limits are refused before they are built", "[hostile]") {
  // k_max_graph_nodes + 1 Relu nodes (what the page's reader would send for a 10 MB file).
  json g{{"nodes", json::array()}};
  for (std::int64_t k = 0; k <= pf::k_max_graph_nodes; ++k) g["nodes"].push_back({{"op_type", "Relu"}});
  const std::string text = g.dump();
  try {
    (void)pf::read_graph_json(text);
    FAIL("no error");
  } catch (const flopcast::error& e) {
    CHECK(e.code() == error_code::limit);
    CHECK(e.pointer() == "/nodes");
    CHECK(e.message() == "the graph has 131073 nodes: expected at most 131072 (the profiler's graph limit)");
  }
  // One attribute of 2^22 + 1 ints (8 MiB of JSON) is over the entries limit.
  json big{
      {"nodes",
       {{{"op_type", "Relu"}, {"attributes", {{"a", {{"ints", std::vector<int>(pf::k_max_graph_entries + 1, 1)}}}}}}}}};
  CHECK_THAT(refusal(big), Contains("limit  the graph has 4194305 list entries"));
  // Tensors: inputs and value_infos together.
  json many{{"inputs", json::array()}, {"value_infos", json::array()}, {"nodes", json::array()}};
  for (std::int64_t k = 0; k <= pf::k_max_graph_tensors / 2; ++k) {
    many["inputs"].push_back({{"name", "i"}});
    many["value_infos"].push_back({{"name", "v"}});
  }
  CHECK_THAT(refusal(many), Contains("the graph has 262146 tensors"));
}
