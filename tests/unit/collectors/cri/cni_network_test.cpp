// The node's CNI configuration as the runtimes load it, and the two shapes of
// their NetworkReady=false message (no configuration, or a configured
// plugin's answer to CNI STATUS), on the captured trees in tests/fixtures/cni.
#include "cri/cni_network.h"

#include <gtest/gtest.h>
#include "source_tree.h"

namespace plegscope {
namespace {

const std::string kFixtures = source_tree::fixtures() + "/cni";

TEST(CniNetwork, ParsesANetworkListAndASingleNetwork) {
  auto list = parse_cni_network("10-a.conflist",
                                R"({"cniVersion":"1.1.0","name":"a","plugins":[{"type":"x"},{"type":"y"}]})");
  ASSERT_TRUE(list);
  EXPECT_EQ(list->name, "a");
  EXPECT_EQ(list->plugins, (std::vector<std::string>{"x", "y"}));
  EXPECT_TRUE(list->status_called);
  auto single = parse_cni_network("10-b.conf", R"({"cniVersion":"1.0.0","name":"b","type":"bridge"})");
  ASSERT_TRUE(single);
  EXPECT_EQ(single->plugins, std::vector<std::string>{"bridge"});
  EXPECT_FALSE(single->status_called) << "STATUS is only called on CNI 1.1.0 and later";
  EXPECT_FALSE(parse_cni_network("c.conflist", R"({"cniVersion":"1.1.0","name":"c","plugins":[]})"));
  EXPECT_FALSE(parse_cni_network("d.conf", "{\"cniVersion\": \"1.1.0\", \"na"));
  EXPECT_FALSE(parse_cni_network("e.conf", "[1, 2]"));
}

TEST(CniNetwork, VersionsCompareByNumber) {
  EXPECT_TRUE(cni_version_at_least("1.1.0", 1, 1));
  EXPECT_TRUE(cni_version_at_least("1.10.0", 1, 1));
  EXPECT_TRUE(cni_version_at_least("2.0.0", 1, 1));
  EXPECT_FALSE(cni_version_at_least("1.0.0", 1, 1));
  EXPECT_FALSE(cni_version_at_least("0.4.0", 1, 1));
  EXPECT_FALSE(cni_version_at_least("", 1, 1));
  EXPECT_FALSE(cni_version_at_least("v1.1", 1, 1));
}

// The first file by name that loads: a half-written file before it is
// skipped, as containerd and CRI-O skip it; files of other names are none.
TEST(CniNetwork, TheFirstLoadableFileByName) {
  CniNetworkRead read = read_cni_network(kFixtures + "/net.d");
  EXPECT_TRUE(read.error.empty()) << read.error;
  EXPECT_EQ(read.files, 3);
  ASSERT_TRUE(read.network);
  EXPECT_EQ(read.network->file, "10-calico.conflist");
  EXPECT_EQ(read.network->name, "k8s-pod-network");
  EXPECT_EQ(read.network->plugins, (std::vector<std::string>{"calico", "bandwidth", "portmap"}));
  EXPECT_TRUE(read.network->status_called);

  CniNetworkRead old = read_cni_network(kFixtures + "/old.d");
  ASSERT_TRUE(old.network);
  EXPECT_EQ(old.network->name, "cbr0");
  EXPECT_FALSE(old.network->status_called);

  CniNetworkRead missing = read_cni_network(kFixtures + "/no-such.d");
  EXPECT_FALSE(missing.network);
  EXPECT_EQ(missing.error, "cannot read " + kFixtures + "/no-such.d");
}

// The runtimes' own words (containerd 2.3 internal/cri/server/status.go and
// go-cni; CRI-O 1.36 server/runtime_status.go and ocicni).
TEST(CniNetwork, NoConfigurationOnEitherRuntime) {
  for (const char* m : {"Network plugin returns error: cni plugin not initialized",
                        "Network plugin returns error: no CNI configuration file in /etc/cni/net.d/. Has your "
                        "network provider started?",
                        "cni config load failed: no network config found in /etc/cni/net.d: cni plugin not "
                        "initialized: failed to load cni config"}) {
    NetworkMessage said = read_network_message(m);
    EXPECT_EQ(said.kind, NetworkMessageKind::kNoConfig) << m;
    EXPECT_EQ(said.plugin_error, "") << m;
  }
}

TEST(CniNetwork, APluginsStatusErrorOnEitherRuntime) {
  // Code 50, the plugin's message only; code 51, with its details after "; ".
  NetworkMessage said = read_network_message("Network plugin returns error: datastore not ready");
  EXPECT_EQ(said.kind, NetworkMessageKind::kPluginError);
  EXPECT_EQ(said.plugin_error, "datastore not ready");
  said = read_network_message(
      "Network plugin returns error: plugin not available; existing containers in the network may have limited "
      "connectivity");
  EXPECT_EQ(said.kind, NetworkMessageKind::kPluginError);
  EXPECT_EQ(said.plugin_error,
            "plugin not available; existing containers in the network may have limited connectivity");
  EXPECT_EQ(read_network_message("").kind, NetworkMessageKind::kUnknown);
  EXPECT_EQ(read_network_message("Network plugin returns error: ").kind, NetworkMessageKind::kUnknown);
  EXPECT_EQ(read_network_message("network is down").kind, NetworkMessageKind::kUnknown);
}

TEST(CniNetwork, ThePluginTheErrorBelongsTo) {
  const CniNetwork chain = *read_cni_network(kFixtures + "/net.d").network;
  EXPECT_EQ(plugin_named(chain, "calico: datastore not ready"), "calico");
  EXPECT_EQ(plugin_named(chain, "failed to find plugin \"portmap\" in path [/opt/cni/bin]"), "portmap");
  EXPECT_EQ(plugin_named(chain, "Bandwidth shaping unavailable"), "bandwidth");
  // "calicoctl" is not the plugin calico; a chain of three and no name: none.
  EXPECT_EQ(plugin_named(chain, "calicoctl says plugin not available"), "");
  EXPECT_EQ(plugin_named(chain, "plugin not available"), "");
  CniNetwork one = chain;
  one.plugins = {"cilium-cni"};
  EXPECT_EQ(plugin_named(one, "plugin not available"), "cilium-cni");
}

}  // namespace
}  // namespace plegscope
