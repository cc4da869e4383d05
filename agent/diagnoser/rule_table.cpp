#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "diagnoser/rule.h"

namespace plegscope {

const std::vector<Rule>& rule_table() {
  static const std::vector<Rule> rules = {
#define PLEGSCOPE_CAUSE_ROW(id, name) {CauseId::id, judge_##name},
      PLEGSCOPE_CAUSES(PLEGSCOPE_CAUSE_ROW)
#undef PLEGSCOPE_CAUSE_ROW
  };
  return rules;
}

void throw_wrong_details(CauseId held, CauseId asked) {
  throw std::logic_error(std::string("a finding of ") + cause_name(held) + " was asked for " +
                         cause_name(asked) + "'s details");
}

Finding make_finding(CauseId id, Severity severity, double confidence, Form form) {
  constexpr double kMaxConfidence = 0.98;
  Finding f;
  f.id = id;
  f.severity = severity;
  f.confidence = std::round(std::clamp(confidence, 0.0, kMaxConfidence) * 100) / 100;
  f.form = form;
  return f;
}

}  // namespace plegscope
