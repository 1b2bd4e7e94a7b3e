#pragma once
// libflopcast_onnx (core/onnx/), loaded with dlopen when `flopcast profile` reads an .onnx file:
// libonnx and libprotobuf are not linked into the flopcast binary (its start-up budget).
#include <string>

namespace flopcast::cli {

// The neutral graph JSON of an .onnx file (flopcast/profile.hpp). A missing module, or a file
// that is not ONNX, throws flopcast::error(io) at `option`; a file over a graph limit
// (flopcast/profile/limits.hpp, checked before shape inference) throws error(limit) there.
std::string onnx_graph_json(const std::string& path, const std::string& option);

}  // namespace flopcast::cli
