// The journal's flags: where it is, and which units are the kubelet's and
// the runtime's.
#include <algorithm>

#include "common/flag_binding.h"
#include "journal/journal_follower.h"

namespace plegscope {
namespace {

std::vector<std::string> split_units(const std::string& flag, const std::string& text) {
  std::vector<std::string> units;
  for (size_t from = 0; from <= text.size();) {
    size_t comma = std::min(text.find(',', from), text.size());
    std::string unit = text.substr(from, comma - from);
    if (unit.empty() || unit.find_first_of(" \t\n") != std::string::npos)
      throw UsageError{flag + ": invalid value \"" + text +
                       "\" (expected unit names separated by commas, such as containerd.service,crio.service)"};
    units.push_back(unit);
    from = comma + 1;
  }
  return units;
}

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ",") + p;
  return out;
}

}  // namespace

void add_flags(CLI::App& app, JournalFollowerOptions& journal) {
  add_text_flag(app, "--journal-path", journal.journal_path,
                "systemd journal directory for the kubelet's and the runtime's log marks "
                "(default: /var/log/journal, then /run/log/journal)");
  app.add_option_function<std::string>(
         "--journal-kubelet-unit",
         [&journal](const std::string& unit) {
           if (unit.empty() || unit.find_first_of(" ,\t\n") != std::string::npos)
             throw UsageError{"--journal-kubelet-unit: invalid value \"" + unit +
                              "\" (expected one systemd unit name such as kubelet.service)"};
           journal.units.kubelet_unit = unit;
         },
         "the kubelet's systemd unit in the journal")
      ->envname(flag_env("--journal-kubelet-unit"))
      ->default_str(journal.units.kubelet_unit);
  app.add_option_function<std::string>(
         "--journal-runtime-units",
         [&journal](const std::string& units) {
           journal.units.runtime_units = split_units("--journal-runtime-units", units);
         },
         "the runtime's systemd units, comma-separated")
      ->envname(flag_env("--journal-runtime-units"))
      ->default_str(join(journal.units.runtime_units));
}

}  // namespace plegscope
