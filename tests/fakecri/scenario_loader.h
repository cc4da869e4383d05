#pragma once
// Scenario JSON -> Scenario. Strict: unknown keys, bad durations, bad code
// names and out-of-range numbers are errors naming the JSON path, so a typo
// in a scenario fails loudly instead of silently testing nothing.
#include <stdexcept>
#include <string>

#include "scenario.h"

namespace fakecri {

class ScenarioError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

Scenario parse_scenario(const std::string& json_text);  // throws ScenarioError
Scenario load_scenario_file(const std::string& path);    // throws ScenarioError

}  // namespace fakecri
