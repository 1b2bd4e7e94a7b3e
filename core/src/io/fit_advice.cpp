// A configuration that does not fit: its speeds are labelled hypothetical and the planner says
// the fewest GPUs of this kind that hold it (issue 27, item 6).
#include <cmath>
#include <string>

#include "base/detail.hpp"
#include "flopcast/base/error.hpp"
#include "flopcast/io/result_json.hpp"
#include "flopcast/plan/plan.hpp"

namespace flopcast {

namespace {
std::string gib(double bytes) { return detail::format_number(std::round(bytes / 1073741824.0 * 10) / 10) + " GiB"; }
std::string layout_text(const plan_layout& l) {
  std::string out;
  const auto add = [&](const char* name, std::int64_t v) {
    if (v > 1) out += (out.empty() ? "" : " ") + std::string(name) + "=" + std::to_string(v);
  };
  add("TP", l.tp);
  add("PP", l.pp);
  add("EP", l.ep);
  add("DP", l.dp);
  return out.empty() ? "one GPU" : out;
}
}  // namespace

fit_advice advise_fit(const estimate_context& c) {
  fit_advice out;
  const estimate_result& r = c.result;
  if (c.gpu == nullptr || !r.has_performance || r.memory.fits_on_gpu) return out;
  out.hypothetical = true;
  const settings& s = c.config;
  const double per_gpu = s.training ? r.memory.train_total : r.parallel.memory_per_gpu;
  out.excess_bytes = std::max(0.0, per_gpu - r.memory.usable_gpu_memory);
  const bool plannable = !s.training && s.num_generated_tokens >= 1 && c.model.arch != architecture::encoder;
  if (plannable) {
    plan_settings ps;
    ps.base = s;
    try {
      const plan_result p = plan(c.model, ps, *c.gpu);
      out.min_gpus = p.min_gpus;
      for (const plan_layout& l : p.layouts)
        if (l.gpus == p.min_gpus) {
          out.layout = layout_text(l);
          break;
        }
      if (p.min_gpus == 0) out.min_gpus = 0;
      const std::string at = std::to_string(r.parallel.total_gpus) + " x " + c.gpu->name;
      out.text = "Does not fit on " + at + " (" + gib(per_gpu) + " per GPU, " + gib(r.memory.usable_gpu_memory) +
                 " usable): the speeds are what it would run at if it fitted. ";
      if (p.min_gpus > 0)
        out.text += "It needs " + std::to_string(p.min_gpus) + " x " + c.gpu->name + " (" + out.layout +
                    "), or offloading " + gib(out.excess_bytes) + " per GPU to host memory.";
      else
        out.text += "No layout of up to " + std::to_string(p.max_gpus) + " x " + c.gpu->name +
                    " holds it; it needs offloading " + gib(out.excess_bytes) + " per GPU, or a larger GPU.";
      return out;
    } catch (const error&) {
      // The planner does not apply (its own limits): the sentence below, without a count.
    }
  }
  out.text = "Does not fit (" + gib(per_gpu) + " per GPU, " + gib(r.memory.usable_gpu_memory) +
             " usable): the speeds are what it would run at if it fitted; it needs " + gib(out.excess_bytes) +
             " more per GPU (more GPUs, offloading or a narrower format).";
  return out;
}

}  // namespace flopcast
