#include "report/json.h"

#include <cmath>
#include <optional>
#include <stdexcept>

#include "diagnoser/culprit.h"
#include "report/json_values.h"
#include "report/sections/section.h"

namespace plegscope {

namespace {

// Microseconds are enough for latencies and keep the wire short; a NaN or
// infinity (a ratio over nothing) is 0.
void round_numbers(json& j) {
  if (j.is_number_float()) {
    double v = j.get<double>();
    j = std::isfinite(v) ? std::round(v * 1e6) / 1e6 : 0.0;
  } else if (j.is_structured()) {
    for (auto& child : j) round_numbers(child);
  }
}

// nlohmann converts a float to an integer field with a bare cast, undefined
// when the value does not fit: every integer field is at least 32 bits wide
// and signed, so floats outside that range are refused before any field is
// read.
void check_number_ranges(const json& j, const std::string& where) {
  constexpr double kLimit = 2147483648.0;  // 2^31
  if (j.is_number_float()) {
    double v = j.get<double>();
    if (!(v > -kLimit && v < kLimit))
      throw std::invalid_argument("number " + j.dump() + " at " + (where.empty() ? "/" : where) +
                                  " is out of range");
  } else if (j.is_object()) {
    for (const auto& [key, child] : j.items()) check_number_ranges(child, where + "/" + key);
  } else if (j.is_array()) {
    for (size_t i = 0; i < j.size(); ++i) check_number_ranges(j[i], where + "/" + std::to_string(i));
  }
}

}  // namespace

json culprit_json(const Culprit& c) {
  json j = json::object();
  if (!c.op.empty()) j["operation"] = c.op;
  if (!c.pod.empty()) j["pod"] = c.pod;
  if (!c.container.empty()) j["container"] = c.container;
  if (!c.sandbox_id.empty()) j["sandbox_id"] = c.sandbox_id;
  if (c.pid != 0) {
    j["pid"] = c.pid;
    j["comm"] = c.comm;
    if (!c.wchan.empty()) j["wchan"] = c.wchan;
  }
  if (!j.empty() && c.seconds > 0) j["seconds"] = c.seconds;
  return j;
}

json report_to_json(const Report& r) {
  if (needs_words(r)) return report_to_json(worded(r));
  json j = json::object();
  for (const report::Section* section : report::all_sections()) section->write_json(r, j);
  round_numbers(j);
  return j;
}

Report report_from_json(const json& j) {
  if (!j.is_object() || !j.contains("status") || !j.contains("causes"))
    throw std::invalid_argument("not a plegscope /diagnose report (no status or causes)");
  check_number_ranges(j, "");
  Report r;
  for (const report::Section* section : report::all_sections()) section->read_json(j, r);
  return r;
}

}  // namespace plegscope
