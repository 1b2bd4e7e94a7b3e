// Fuzz target: the graph profiler, flopcast::profile (the neutral graph JSON the page sends and
// the native ONNX reader writes). A graph it accepts must give finite, non-negative costs for
// every node and total, with and without symbolic dimensions bound. Seed corpus
// (tests/fuzz/corpus/fuzz_profile/): `flopcast profile FILE.onnx --graph` of the fixtures of
// tests/fixtures/onnx/make_fixtures.py.
#include "flopcast/profile/profile.hpp"
#include "fuzz_check.hpp"

namespace {

void check(const flopcast::profile::costs& c, const char* what) {
  for (const double v : {c.flops, c.macs, c.parameters, c.activation_bytes, c.weight_bytes, c.time_s}) {
    fuzz::finite(v, what);
    if (v < 0) {
      std::fprintf(stderr, "fuzz: negative cost in %s: %g\n", what, v);
      std::abort();
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace p = flopcast::profile;
  p::graph g;
  try {
    g = p::read_graph_json(fuzz::text_of(data, size));
  } catch (const flopcast::error&) {
    return 0;
  }
  for (int bound = 0; bound < 2; ++bound) {
    p::options o;
    if (bound) o.dims = {{"batch", 3}, {"seq", 7}};
    o.depth = 1 + bound * 3;
    try {
      const p::result r = p::run(g, o);
      check(r.total.c, "total");
      for (const auto& n : r.nodes) check(n.c, "node");
      for (const auto& s : r.by_scope) check(s.c, "scope");
      (void)p::to_json(r);
    } catch (const flopcast::error&) {
    }
  }
  return 0;
}
