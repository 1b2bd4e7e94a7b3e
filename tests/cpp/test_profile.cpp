// The graph profiler's rules on hand-built graphs (flopcast/profile.hpp): shape propagation and
// FLOP/MAC counts against hand arithmetic, and its errors.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "flopcast/base/error.hpp"
#include "flopcast/profile/profile.hpp"

namespace {

using nlohmann::json;
namespace pf = flopcast::profile;

// A graph's inputs or initializers: a list of tensors. (Not a json parameter: `{tensor(...)}` for a
// json is a one-element array under GCC but a copy of the tensor under Clang, CWG 1467.)
using tensors = std::vector<json>;

json tensor(const std::string& name, json dims, int type = 1) {
  return {{"name", name}, {"elem_type", type}, {"dims", std::move(dims)}};
}

// One node over graph inputs `inputs` and initializers `inits`.
pf::result one(const std::string& op, tensors inputs, tensors inits, json attributes, std::vector<std::string> in,
               std::size_t outputs = 1, pf::options o = {}) {
  json outs = json::array();
  for (std::size_t k = 0; k < outputs; ++k) outs.push_back("y" + std::to_string(k));
  json g{{"opset", 17},
         {"inputs", json(std::move(inputs))},
         {"initializers", json(std::move(inits))},
         {"nodes", json::array({{{"name", "/m/n"},
                                 {"op_type", op},
                                 {"inputs", in},
                                 {"outputs", outs},
                                 {"attributes", std::move(attributes)}}})}};
  return pf::run(pf::read_graph_json(g.dump()), o);
}

const pf::node_cost& first(const pf::result& r) { return r.nodes.at(0); }

}  // namespace

TEST_CASE("profile: batched, broadcasting MatMul", "[profile]") {
  // [2,1,4,8] x [3,8,5] -> batch [2,3], 4 x 5 outputs, K 8: 2*3*4*5*8 = 960 MACs.
  const auto r =
      one("MatMul", {tensor("a", {2, 1, 4, 8}), tensor("b", {3, 8, 5})}, json::array(), json::object(), {"a", "b"});
  CHECK(first(r).output_shapes == std::vector<std::vector<std::int64_t>>{{2, 3, 4, 5}});
  CHECK(first(r).c.macs == 960);
  CHECK(first(r).c.flops == 1920);
  // A vector on the left: [8] x [8,5] -> [5], 40 MACs.
  const auto v = one("MatMul", {tensor("a", {8}), tensor("b", {8, 5})}, json::array(), json::object(), {"a", "b"});
  CHECK(first(v).output_shapes.at(0) == std::vector<std::int64_t>{5});
  CHECK(first(v).c.macs == 40);
}

TEST_CASE("profile: Conv with dilation, SAME_UPPER padding and groups; ConvTranspose", "[profile]") {
  // X [1,8,10,10], W [6,4,3,3] (group 2), stride 2, SAME_UPPER: out ceil(10/2) = 5 -> [1,6,5,5];
  // 150 outputs x (4 x 9 = 36) = 5400 MACs; no bias.
  const auto r =
      one("Conv", {tensor("x", {1, 8, 10, 10})}, {tensor("w", {6, 4, 3, 3})},
          {{"group", {{"i", 2}}}, {"strides", {{"ints", {2, 2}}}}, {"auto_pad", {{"s", "SAME_UPPER"}}}}, {"x", "w"});
  CHECK(first(r).output_shapes.at(0) == std::vector<std::int64_t>{1, 6, 5, 5});
  CHECK(first(r).c.macs == 5400);
  CHECK(first(r).c.parameters == 216);
  // Dilation 2, no pad: effective kernel 5, out 10 - 5 + 1 = 6.
  const auto d = one("Conv", {tensor("x", {1, 8, 10, 10})}, {tensor("w", {6, 4, 3, 3})},
                     {{"group", {{"i", 2}}}, {"dilations", {{"ints", {2, 2}}}}}, {"x", "w"});
  CHECK(first(d).output_shapes.at(0) == std::vector<std::int64_t>{1, 6, 6, 6});
  // ConvTranspose: X [1,4,5,5], W [4,3,2,2], stride 2 -> out 2*(5-1) + 2 = 10: [1,3,10,10];
  // each of the 100 input elements per channel x 4 channels scatters 3 x 4 MACs: 1200.
  const auto t = one("ConvTranspose", {tensor("x", {1, 4, 5, 5})}, {tensor("w", {4, 3, 2, 2})},
                     {{"strides", {{"ints", {2, 2}}}}}, {"x", "w"});
  CHECK(first(t).output_shapes.at(0) == std::vector<std::int64_t>{1, 3, 10, 10});
  CHECK(first(t).c.macs == 1200);
}

TEST_CASE("profile: Reshape with 0 and -1, Slice with negative bounds, Gemm with transA", "[profile]") {
  json shape = tensor("s", {3}, 7);
  shape["values"] = {0, -1, 4};
  const auto r = one("Reshape", {tensor("x", {2, 3, 8})}, {shape}, json::object(), {"x", "s"});
  CHECK(first(r).output_shapes.at(0) == std::vector<std::int64_t>{2, 6, 4});
  CHECK(first(r).c.flops == 0);
  CHECK(first(r).c.activation_bytes == 2 * 48 * 4);  // 48 floats in, 48 out
  CHECK(first(r).c.parameters == 0);                 // an int64 initializer is not a parameter
  json st = tensor("st", {1}, 7), en = tensor("en", {1}, 7), ax = tensor("ax", {1}, 7);
  st["values"] = {-3};
  en["values"] = {-1};
  ax["values"] = {1};
  const auto s = one("Slice", {tensor("x", {2, 10})}, {st, en, ax}, json::object(), {"x", "st", "en", "ax"});
  CHECK(first(s).output_shapes.at(0) == std::vector<std::int64_t>{2, 2});
  // Gemm A^T: A [16, 4] transA -> M 4, K 16; B [16, 8]: 4 x 8 x 16 = 512 MACs + C 32.
  const auto g = one("Gemm", {tensor("a", {16, 4})}, {tensor("b", {16, 8}), tensor("c", {8})}, {{"transA", {{"i", 1}}}},
                     {"a", "b", "c"});
  CHECK(first(g).output_shapes.at(0) == std::vector<std::int64_t>{4, 8});
  CHECK(first(g).c.flops == 2 * 512 + 32);
}

TEST_CASE("profile: Einsum, Softmax, LayerNormalization, ReduceMean, pooling, RNN", "[profile]") {
  // bhid,bhjd->bhij with b 2, h 3, i 4, j 5, d 6: 2*3*4*5*6 = 720 MACs.
  const auto e = one("Einsum", {tensor("q", {2, 3, 4, 6}), tensor("k", {2, 3, 5, 6})}, json::array(),
                     {{"equation", {{"s", "bhid,bhjd->bhij"}}}}, {"q", "k"});
  CHECK(first(e).output_shapes.at(0) == std::vector<std::int64_t>{2, 3, 4, 5});
  CHECK(first(e).c.macs == 720);
  CHECK(first(one("Softmax", {tensor("x", {4, 10})}, json::array(), json::object(), {"x"})).c.flops == 5 * 40);
  CHECK(first(one("LayerNormalization", {tensor("x", {4, 10})}, {tensor("g", {10})}, json::object(), {"x", "g"}))
            .c.flops == 7 * 40);
  const auto m = one("ReduceMean", {tensor("x", {4, 10})}, json::array(),
                     {{"axes", {{"ints", {-1}}}}, {"keepdims", {{"i", 0}}}}, {"x"});
  CHECK(first(m).output_shapes.at(0) == std::vector<std::int64_t>{4});
  CHECK(first(m).c.flops == 40);
  // AveragePool 3x3 stride 1 pad 1 on 6x6: 36 outputs x 2 channels x 9.
  const auto p = one("AveragePool", {tensor("x", {1, 2, 6, 6})}, json::array(),
                     {{"kernel_shape", {{"ints", {3, 3}}}}, {"pads", {{"ints", {1, 1, 1, 1}}}}}, {"x"});
  CHECK(first(p).output_shapes.at(0) == std::vector<std::int64_t>{1, 2, 6, 6});
  CHECK(first(p).c.flops == 72 * 9);
  // RNN, H 4, I 3, seq 2, batch 1, no bias: per step MACs 4 x 7 = 28, FLOPs 56 + 2H = 64.
  const auto n = one("RNN", {tensor("x", {2, 1, 3})}, {tensor("w", {1, 4, 3}), tensor("r", {1, 4, 4})},
                     {{"hidden_size", {{"i", 4}}}}, {"x", "w", "r"}, 2);
  CHECK(first(n).c.macs == 2 * 28);
  CHECK(first(n).c.flops == 2 * 64);
}

TEST_CASE("profile: symbolic dimensions, unknown ops, unknown shapes", "[profile]") {
  pf::options o;
  o.dims["n"] = 3;
  const auto r = one("Relu", {tensor("x", {"n", 5})}, json::array(), json::object(), {"x"}, 1, o);
  CHECK(r.total.c.flops == 15);
  CHECK_THROWS_WITH(one("Relu", {tensor("x", {"n", 5})}, json::array(), json::object(), {"x"}),
                    Catch::Contains("unbound symbolic dimension \"n\" of graph input \"x\""));
  o.dims["m"] = 2;
  CHECK_THROWS_WITH(one("Relu", {tensor("x", {"n", 5})}, json::array(), json::object(), {"x"}, 1, o),
                    Catch::Contains("named \"m\""));
  // An op without a rule: listed, not costed; what follows it has no shape either.
  json g{{"inputs", {tensor("x", {4})}},
         {"nodes",
          {{{"name", "a"}, {"op_type", "Mystery"}, {"inputs", {"x"}}, {"outputs", {"y"}}},
           {{"name", "b"}, {"op_type", "Relu"}, {"inputs", {"y"}}, {"outputs", {"z"}}}}}};
  const auto u = pf::run(pf::read_graph_json(g.dump()), {});
  CHECK(u.unknown_ops == std::vector<std::string>{"Mystery"});
  CHECK(u.total.not_costed == 2);
  CHECK(u.nodes.at(1).status == "unknown_shape");
  // With the stored shape of y, the Relu is costed.
  g["value_infos"] = json::array({tensor("y", {4})});
  const auto k = pf::run(pf::read_graph_json(g.dump()), {});
  CHECK(k.total.not_costed == 1);
  CHECK(k.total.c.flops == 4);
}

TEST_CASE("profile: bad graph JSON and bad shapes are errors with a pointer", "[profile]") {
  const auto code_at = [](const std::string& text) {
    try {
      (void)pf::run(pf::read_graph_json(text), {});
    } catch (const flopcast::error& e) {
      return e.pointer();
    }
    return std::string("no error");
  };
  CHECK(code_at(R"({"nodes": [{"name": "a"}]})") == "/nodes/0/op_type");
  CHECK(code_at(R"({"nodes": [{"op_type": "Relu", "attributes": {"x": {"q": 1}}}]})") == "/nodes/0/attributes/x");
  CHECK(code_at(R"({"inputs": [{"name": "x", "dims": [2, -3]}]})") == "/inputs/0/dims/1");
  CHECK(code_at(R"({"inputs": [{"name": "a", "dims": [2, 3]}, {"name": "b", "dims": [4, 5]}],
                    "nodes": [{"op_type": "MatMul", "inputs": ["a", "b"], "outputs": ["y"]}]})") == "/nodes/0");
  CHECK(code_at("[1]") == "");
}

TEST_CASE("profile: malformed nodes are errors naming the node, never a crash or a negative count", "[profile]") {
  const auto message = [](const std::string& op, tensors inputs, tensors inits, json attributes,
                          std::vector<std::string> in) {
    try {
      (void)one(op, std::move(inputs), std::move(inits), std::move(attributes), std::move(in));
    } catch (const flopcast::error& e) {
      return e.pointer() + " " + e.message();
    }
    return std::string("no error");
  };
  // A negative kernel size, an axis past the rank, a transpose permutation naming axis 5, a
  // reshape to a negative size, a ConvTranspose on a 1-D input.
  CHECK_THAT(
      message("MaxPool", {tensor("x", {1, 2, 6, 6})}, json::array(), {{"kernel_shape", {{"ints", {2, -5}}}}}, {"x"}),
      Catch::Contains("/nodes/0 node \"/m/n\" (MaxPool): kernel sizes"));
  CHECK_THAT(message("Concat", {tensor("x", {2, 3})}, json::array(), {{"axis", {{"i", 4}}}}, {"x"}),
             Catch::Contains("axis is out of range"));
  CHECK_THAT(message("Transpose", {tensor("x", {2, 3})}, json::array(), {{"perm", {{"ints", {5, 0}}}}}, {"x"}),
             Catch::Contains("out of range"));
  json shape = tensor("s", {2}, 7);
  shape["values"] = {-6, -1};
  CHECK_THAT(message("Reshape", {tensor("x", {2, 3})}, {shape}, json::object(), {"x", "s"}),
             Catch::Contains("(Reshape)"));
  CHECK_THAT(message("ConvTranspose", {tensor("x", {4})}, {tensor("w", {4})}, json::object(), {"x", "w"}),
             Catch::Contains("expected X [N, C, ...]"));
}
