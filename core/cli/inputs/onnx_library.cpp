#include "inputs/onnx_library.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <climits>
#include <cstdlib>
#include <vector>

#include "flopcast/base/error.hpp"

namespace flopcast::cli {
namespace {

using graph_fn = char* (*)(const char*, int*);
using free_fn = void (*)(char*);
constexpr const char* module_name = "libflopcast_onnx.so";

// Where to look: $FLOPCAST_ONNX_LIBRARY, else beside the executable, else ../lib/flopcast/.
std::vector<std::string> candidates() {
  if (const char* chosen = std::getenv("FLOPCAST_ONNX_LIBRARY"); chosen && *chosen) return {chosen};
  std::vector<std::string> out;
  char buf[PATH_MAX];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n > 0) {
    std::string dir(buf, static_cast<std::size_t>(n));
    dir = dir.substr(0, dir.find_last_of('/') + 1);
    out.push_back(dir + module_name);
    out.push_back(dir + "../lib/flopcast/" + module_name);
  }
  return out;
}

}  // namespace

std::string onnx_graph_json(const std::string& path, const std::string& option) {
  static void* handle = nullptr;
  static std::string failure;
  if (!handle && failure.empty()) {
    for (const auto& c : candidates()) {
      handle = ::dlopen(c.c_str(), RTLD_NOW | RTLD_LOCAL);
      if (handle) break;
      const char* why = ::dlerror();
      failure += (failure.empty() ? "" : "; ") + c + (why ? std::string(" (") + why + ")" : std::string());
    }
    if (handle) failure.clear();
  }
  if (!handle)
    throw error(error_code::io, option,
                "cannot load the ONNX reader: " + failure +
                    ". It is built with the CLI when Debian's libonnx-dev and libprotobuf-dev are installed "
                    "(apt-get install libonnx-dev libprotobuf-dev; FLOPCAST_ONNX_LIBRARY names another copy)");
  auto graph = reinterpret_cast<graph_fn>(::dlsym(handle, "flopcast_onnx_graph_json"));
  auto release = reinterpret_cast<free_fn>(::dlsym(handle, "flopcast_onnx_free"));
  if (!graph || !release) throw error(error_code::io, option, "the loaded ONNX reader lacks flopcast_onnx_graph_json");
  int ok = 0;
  char* text = graph(path.c_str(), &ok);
  if (!text) throw error(error_code::io, option, "the ONNX reader ran out of memory");
  std::string out(text);
  release(text);
  if (ok < 0) throw error(error_code::limit, option, out);  // a graph limit, checked before any work
  if (!ok) throw error(error_code::io, option, out);
  return out;
}

}  // namespace flopcast::cli
