#pragma once
// The engine fit (issue 12, issue 24): each engine profile's efficiency section (data/engines/*.json)
// fitted to the fit part of the validation table, by a bounded pattern search in log space within
// the physical envelope's bounds (serving/engine.hpp). tools/fit_engines.cpp (npm run fit) writes
// the sections; `flopcast validate --loco` refits with one campaign left out at a time and
// predicts that campaign, so a constant that only fits one table shows it.
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "measure/validation.hpp"

namespace flopcast::validation {

// The rows the engine constants and bands are fitted to: every row but those that state a
// serving feature (uses_features), which check the features instead.
[[nodiscard]] std::vector<row> fit_table(std::vector<row> rows);

// Engine `id`'s efficiency section fitted to the rows of `rows` that are not held out, with
// bands from all of the engine's rows. {"fitted": false} with fewer than five predicted fit rows.
// Progress goes to `log` when given. Deterministic.
[[nodiscard]] nlohmann::ordered_json fit_engine(const std::string& id, const std::vector<row>& rows,
                                                std::ostream* log = nullptr);

// The prediction choice an efficiency section gives a row on a device of `family`: its costs and
// the family's efficiencies (else the pooled "all"); nullopt when the section is not fitted.
[[nodiscard]] std::optional<model_choice> choice_from(const nlohmann::json& efficiency, const std::string& family);

}  // namespace flopcast::validation
