// embind bindings: the only file that includes Emscripten. Every call takes and returns
// plain values (JSON text in, a {ok, text} status out) so C++ exceptions never cross into
// JS and nothing needs .delete(); the JS wrapper (flopcast.js) turns !ok into an Error.
// A result's JSON does not travel in the status: it stays in one buffer here, and the wrapper
// decodes it with TextDecoder off a view of the module's memory (resultView), which is several
// times faster than embind's std::string conversion (a JS loop over every byte).
#include <emscripten/bind.h>
#include <emscripten/val.h>
#include <malloc.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "flopcast/catalog/providers.hpp"
#include "flopcast/flopcast.hpp"
#include "flopcast/io/plan_json.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/plan/plan.hpp"
#include "flopcast/plan/price_comparison.hpp"
#include "flopcast/profile/profile.hpp"

namespace {

struct status {
  bool ok = true;
  std::string text;  // the error message (empty on success: the result is in result_text())
  double count = 0;  // sweep: points written
};

std::string& result_text() {
  static std::string text;
  return text;
}
// A successful call's result JSON, kept for resultView() until the next call.
status ok(std::string json, double count = 0) {
  result_text() = std::move(json);
  return status{true, std::string(), count};
}
// A view of the last result's UTF-8 bytes (valid until the next call; the wrapper decodes it at once).
emscripten::val result_view() {
  const std::string& t = result_text();
  return emscripten::val(emscripten::typed_memory_view(t.size(), reinterpret_cast<const unsigned char*>(t.data())));
}

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
  return guarded([&] {
    std::string text = flopcast::estimate_json(request);
    // count: the byte offset of the top-level ,"details": (its last key; a JSON string cannot
    // hold that sequence, its quotes would be escaped), so that the wrapper parses the headline
    // at once and the details only when they are read.
    const std::size_t at = text.find(",\"details\":");
    return ok(std::move(text), at == std::string::npos ? 0 : static_cast<double>(at));
  });
}
status compare(const std::string& request) {
  return guarded([&] { return ok(flopcast::compare_json(request), 0); });
}
status throughput(const std::string& request) {
  return guarded([&] { return ok(flopcast::throughput_json(request), 0); });
}
status simulate(const std::string& request) {
  return guarded([&] { return ok(flopcast::simulate_json(request), 0); });
}
status plan(const std::string& request) {
  return guarded([&] { return ok(flopcast::plan_json(request), 0); });
}
// The same with the SLO search's progress: `on_progress(share)` (a JS function, share 0..1) is
// called as the search goes; it returning false cancels the search (the core's error "limit" at
// /plan). It must not throw: a JS exception would unwind the core's frames without their
// destructors (the wrapper, flopcast.js, catches it, cancels and rethrows it after the call).
status plan_progress(const std::string& request, emscripten::val on_progress) {
  return guarded([&] {
    const std::function<bool(double)> progress = [&on_progress](double share) {
      return !on_progress(share).strictlyEquals(emscripten::val(false));
    };
    return ok(flopcast::plan_json(request, progress), 0);
  });
}
status train(const std::string& request) {
  return guarded([&] { return ok(flopcast::train_json(request), 0); });
}
status report_data(const std::string& request) {
  return guarded([&] { return ok(flopcast::report_json(request), 0); });
}
status calibrate(const std::string& request) {
  return guarded([&] { return ok(flopcast::calibrate_json(request), 0); });
}
status profile(const std::string& graph, const std::string& options) {
  return guarded([&] { return ok(flopcast::profile::profile_json(graph, options), 0); });
}
status list_models() {
  return guarded([] { return ok(flopcast::models_to_json(-1), 0); });
}
status list_gpus() {
  return guarded([] { return ok(flopcast::gpus_to_json(-1), 0); });
}
status list_engines() {
  return guarded([] { return ok(flopcast::engines_to_json(-1), 0); });
}
// The engines that run on a device: a registry name or alias, or a GPU object as JSON text.
status list_engines_for(const std::string& gpu) {
  return guarded([&] {
    if (!gpu.empty() && gpu.front() == '{') {
      const flopcast::hardware_spec h = flopcast::read_hardware(gpu);
      return ok(flopcast::engines_to_json(-1, &h), 0);
    }
    return ok(flopcast::engines_to_json(-1, &flopcast::find_gpu(gpu)), 0);
  });
}
status defaults() {
  return guarded([] { return ok(flopcast::defaults_json(-1), 0); });
}
// The hosted-provider catalog: the entries serving `model` ("" : all), and API price vs self-hosted cost.
status providers(const std::string& model) {
  return guarded([&] { return ok(flopcast::providers_json(model, -1), 0); });
}
status price_comparison(const std::string& request) {
  return guarded([&] { return ok(flopcast::price_comparison_json(std::string_view(request), -1), 0); });
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
    return ok(flopcast::inspect_checkpoint_json(bytes, static_cast<std::int64_t>(file_size), config), 0);
  });
}

double heap_used() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(flopcast) {
  emscripten::value_object<status>("Status")
      .field("ok", &status::ok)
      .field("text", &status::text)
      .field("count", &status::count);
  emscripten::function("resultView", &result_view);
  emscripten::function("estimate", &estimate);
  emscripten::function("compare", &compare);
  emscripten::function("throughput", &throughput);
  emscripten::function("simulate", &simulate);
  emscripten::function("plan", &plan);
  emscripten::function("planProgress", &plan_progress);
  emscripten::function("calibrate", &calibrate);
  emscripten::function("train", &train);
  emscripten::function("profile", &profile);
  emscripten::function("reportData", &report_data);
  emscripten::function("listModels", &list_models);
  emscripten::function("listGpus", &list_gpus);
  emscripten::function("listEngines", &list_engines);
  emscripten::function("listEnginesFor", &list_engines_for);
  emscripten::function("defaults", &defaults);
  emscripten::function("version", &version);
  emscripten::function("providers", &providers);
  emscripten::function("priceComparison", &price_comparison);
  emscripten::function("sweepSize", &sweep_size);
  emscripten::function("sweepChunk", &sweep_chunk);
  emscripten::function("sweepValues", &sweep_values);
  emscripten::function("heapUsed", &heap_used);
  emscripten::function("checkpointHeaderBytes", &checkpoint_header_bytes);
  emscripten::function("inspectCheckpoint", &inspect_checkpoint);
}
