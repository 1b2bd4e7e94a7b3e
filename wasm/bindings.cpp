// embind bindings: the only file that includes Emscripten. Every call takes and returns
// plain values (JSON text in, a {ok, text} status out) so C++ exceptions never cross into
// JS and nothing needs .delete(); the JS wrapper (flopcast.js) turns !ok into an Error.
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "flopcast/flopcast.hpp"
#include "flopcast/plan.hpp"

namespace {

struct status {
  bool ok = true;
  std::string text;  // the result JSON, or the error message
  double count = 0;  // sweep: points written
};

template <class F>
status guarded(F&& f) {
  try {
    return f();
  } catch (const flopcast::error& e) {
    return {false, e.what(), 0};
  } catch (const std::exception& e) {
    return {false, std::string("[flopcast.internal] ") + e.what(), 0};
  }
}

status estimate(const std::string& request) {
  return guarded([&] { return status{true, flopcast::estimate_json(request), 1}; });
}
status compare(const std::string& request) {
  return guarded([&] { return status{true, flopcast::compare_json(request), 0}; });
}
status throughput(const std::string& request) {
  return guarded([&] { return status{true, flopcast::throughput_json(request), 0}; });
}
status simulate(const std::string& request) {
  return guarded([&] { return status{true, flopcast::simulate_json(request), 0}; });
}
status plan(const std::string& request) {
  return guarded([&] { return status{true, flopcast::plan_json(request), 0}; });
}
status train(const std::string& request) {
  return guarded([&] { return status{true, flopcast::train_json(request), 0}; });
}
status report_data(const std::string& request) {
  return guarded([&] { return status{true, flopcast::report_json(request), 0}; });
}
status calibrate(const std::string& request) {
  return guarded([&] { return status{true, flopcast::calibrate_json(request), 0}; });
}
status list_models() {
  return guarded([] { return status{true, flopcast::models_to_json(-1), 0}; });
}
status list_gpus() {
  return guarded([] { return status{true, flopcast::gpus_to_json(-1), 0}; });
}
status list_engines() {
  return guarded([] { return status{true, flopcast::engines_to_json(-1), 0}; });
}
status defaults() {
  return guarded([] { return status{true, flopcast::defaults_json(-1), 0}; });
}
std::string version() { return flopcast::version(); }

// Sweep: each chunk names its request; the last request read is kept (by its text) for the next
// chunk of the same sweep, so no handle outlives a call and a chunk does not re-read it.
std::vector<double>& sweep_buffer() {
  static std::vector<double> buffer;  // grows to the largest chunk, never shrinks (no refill per chunk)
  return buffer;
}
std::size_t& sweep_values_count() {
  static std::size_t n = 0;
  return n;
}
const flopcast::compare_request& sweep_request(const std::string& request) {
  static std::string text;
  static std::unique_ptr<flopcast::compare_request> read;
  if (!read || text != request) {
    read.reset();
    read = std::make_unique<flopcast::compare_request>(flopcast::read_compare_request(request, true));
    text = request;
  }
  return *read;
}
status sweep_size(const std::string& request) {
  return guarded([&] { return status{true, "", static_cast<double>(sweep_request(request).plan.size())}; });
}
status sweep_chunk(const std::string& request, double offset, double count) {
  return guarded([&] {
    if (!(offset >= 0 && count >= 0 && offset < 9e15 && count <= 1e7 && std::floor(offset) == offset &&
          std::floor(count) == count))
      throw flopcast::error(flopcast::error_code::invalid_argument, "/offset",
                            "expected whole numbers offset >= 0 and 0 <= count <= 1e7");
    const auto& q = sweep_request(request);
    auto& buffer = sweep_buffer();
    const std::size_t fields = flopcast::sweep_field_count(), wanted = static_cast<std::size_t>(count) * fields;
    if (buffer.size() < wanted) buffer.resize(wanted);
    sweep_values_count() = 0;
    const std::size_t n =
        flopcast::sweep(q.plan, static_cast<std::size_t>(offset), static_cast<std::size_t>(count), buffer.data());
    sweep_values_count() = n * fields;
    return status{true, "", static_cast<double>(n)};
  });
}
// A view of the last chunk's values; the caller copies it before the next call.
emscripten::val sweep_values() {
  return emscripten::val(emscripten::typed_memory_view(sweep_values_count(), sweep_buffer().data()));
}

// Checkpoint headers. `bytes` arrives from a Uint8Array (embind copies it verbatim into the string).
// A file that is neither GGUF nor safetensors is refused from its first bytes (as the CLI does),
// before its first 8 bytes are taken for a header length.
status checkpoint_header_bytes(const std::string& prefix) {
  return guarded([&] {
    if (prefix.size() >= 9) {
      const auto f = flopcast::detect_checkpoint_format(prefix);
      if (f == flopcast::checkpoint_format::safetensors_index)
        throw flopcast::error(flopcast::error_code::config_parse, "",
                              "a model.safetensors.index.json only lists shards: give one shard's .safetensors file");
      if (f != flopcast::checkpoint_format::gguf && f != flopcast::checkpoint_format::safetensors)
        throw flopcast::error(flopcast::error_code::config_parse, "",
                              "not a checkpoint: expected a GGUF file (magic \"GGUF\") or a safetensors file (8-byte "
                              "header length, then '{')");
    }
    return status{true, "", static_cast<double>(flopcast::checkpoint_header_bytes(prefix))};
  });
}
status inspect_checkpoint(const std::string& bytes, double file_size, const std::string& config) {
  return guarded([&] {
    if (!(file_size >= -1 && file_size <= 9007199254740992.0 && std::floor(file_size) == file_size))
      throw flopcast::error(flopcast::error_code::invalid_argument, "/file_size",
                            "expected the file's size in bytes (a whole number, or -1 for unknown)");
    return status{true, flopcast::inspect_checkpoint_json(bytes, static_cast<std::int64_t>(file_size), config), 0};
  });
}

double heap_used() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(flopcast) {
  emscripten::value_object<status>("Status")
      .field("ok", &status::ok)
      .field("text", &status::text)
      .field("count", &status::count);
  emscripten::function("estimate", &estimate);
  emscripten::function("compare", &compare);
  emscripten::function("throughput", &throughput);
  emscripten::function("simulate", &simulate);
  emscripten::function("plan", &plan);
  emscripten::function("calibrate", &calibrate);
  emscripten::function("train", &train);
  emscripten::function("reportData", &report_data);
  emscripten::function("listModels", &list_models);
  emscripten::function("listGpus", &list_gpus);
  emscripten::function("listEngines", &list_engines);
  emscripten::function("defaults", &defaults);
  emscripten::function("version", &version);
  emscripten::function("sweepSize", &sweep_size);
  emscripten::function("sweepChunk", &sweep_chunk);
  emscripten::function("sweepValues", &sweep_values);
  emscripten::function("heapUsed", &heap_used);
  emscripten::function("checkpointHeaderBytes", &checkpoint_header_bytes);
  emscripten::function("inspectCheckpoint", &inspect_checkpoint);
}
