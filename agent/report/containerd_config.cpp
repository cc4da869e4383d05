#include "report/containerd_config.h"

namespace plegscope {
namespace {

constexpr const char* kTopLevelTable = "[metrics]";
constexpr const char* kPluginTable = "[plugins.'io.containerd.server.v1.metrics']";

// containerd 2.3 is the first whose configuration is version 4.
bool server_tables_are_plugins(const RuntimeVersion& v) { return v[0] > 2 || (v[0] == 2 && v[1] >= 3); }

}  // namespace

std::string containerd_metrics_table(const RuntimeModel& runtime) {
  if (!runtime.version) return std::string(kTopLevelTable) + " before 2.3, " + kPluginTable + " from 2.3";
  return server_tables_are_plugins(*runtime.version) ? kPluginTable : kTopLevelTable;
}

std::string containerd_metrics_snippet(const RuntimeModel& runtime, const std::string& address) {
  const bool plugin = !runtime.version || server_tables_are_plugins(*runtime.version);
  return std::string(plugin ? kPluginTable : kTopLevelTable) + "\n  address = \"" + address + "\"\n";
}

}  // namespace plegscope
