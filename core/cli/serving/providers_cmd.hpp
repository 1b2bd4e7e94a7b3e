#pragma once
// `flopcast providers [--model M] [--json|--csv] [--compare -g GPU ...]`: the hosted-provider
// catalog (data/providers/), and API price vs self-hosted cost per 1M tokens. The estimate's
// text report of a model named by a provider id ends with provider_text().
#include <CLI/CLI.hpp>
#include <functional>
#include <string>

#include "flopcast/catalog/providers.hpp"

namespace flopcast::cli {

struct providers_command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};
providers_command add_providers_command(CLI::App& parent);

// The provider's published figures, as lines under the estimate's report.
[[nodiscard]] std::string provider_text(const provider_entry& e);

}  // namespace flopcast::cli
