#pragma once
// The provider entry's fields into an open JSON object (providers.cpp), for the estimate result.
#include "base/json_out.hpp"
#include "flopcast/catalog/providers.hpp"

namespace flopcast::detail {
void write_provider_entry(json_out& w, const provider_entry& e);
}  // namespace flopcast::detail
