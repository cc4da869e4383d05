// The runtime Status probe's flag: where the runtime's CNI configuration is,
// so that a plugin that answers STATUS unhealthy is named.
#include "common/flag_binding.h"
#include "cri/runtime_status_probe.h"

namespace plegscope {

void add_flags(CLI::App& app, RuntimeStatusOptions& options) {
  add_text_flag(app, "--cni-conf-dir", options.cni_conf_dir,
                "the runtime's CNI configuration directory, read while the runtime says NetworkReady=false to name "
                "the network and the plugin whose STATUS fails (default /etc/cni/net.d; /host/etc/cni/net.d in the "
                "DaemonSet)");
}

}  // namespace plegscope
