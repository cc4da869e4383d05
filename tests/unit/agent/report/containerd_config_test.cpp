// containerd's metrics table by release: [metrics] before 2.3, the
// io.containerd.server.v1.metrics plugin from 2.3 (a [metrics] table in its
// version 4 file is ignored). Each snippet is, line for line, a block of
// docs/install.md, which tests/e2e/test_containerd_config.py feeds to the
// real containerd of that release.
#include "report/containerd_config.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "report/beside.h"
#include "source_tree.h"

namespace plegscope {
namespace {

RuntimeModel containerd(const std::string& version) { return runtime_model("containerd", version); }

std::string install_doc() {
  std::ifstream in(source_tree::root() + "/docs/install.md");
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The snippet as docs/install.md shows it: each line indented under a list item.
std::string as_in_docs(const std::string& snippet) {
  std::string out = "  ```toml\n";
  std::istringstream lines(snippet);
  for (std::string line; std::getline(lines, line);) out += "  " + line + "\n";
  return out + "  ```\n";
}

TEST(ContainerdConfig, TheMetricsTableMovesToItsPluginIn23) {
  for (const char* old : {"1.6.20~ds1", "1.7.27", "2.0.0", "2.2.1"}) {
    EXPECT_EQ(containerd_metrics_table(containerd(old)), "[metrics]") << old;
    EXPECT_EQ(containerd_metrics_snippet(containerd(old), "127.0.0.1:1338"),
              "[metrics]\n  address = \"127.0.0.1:1338\"\n")
        << old;
  }
  for (const char* v4 : {"v2.3.0", "2.3.7", "2.4.2", "3.0.0"}) {
    EXPECT_EQ(containerd_metrics_table(containerd(v4)), "[plugins.'io.containerd.server.v1.metrics']") << v4;
    EXPECT_EQ(containerd_metrics_snippet(containerd(v4), "127.0.0.1:1338"),
              "[plugins.'io.containerd.server.v1.metrics']\n  address = \"127.0.0.1:1338\"\n")
        << v4;
  }
  // Unknown: both tables named; the snippet is the newest's.
  const std::string both = containerd_metrics_table(containerd(""));
  EXPECT_NE(both.find("[metrics] before 2.3"), std::string::npos) << both;
  EXPECT_NE(both.find("server.v1.metrics']"), std::string::npos) << both;
}

TEST(ContainerdConfig, EachSnippetIsABlockOfTheInstallGuide) {
  const std::string doc = install_doc();
  ASSERT_FALSE(doc.empty()) << "cannot read docs/install.md";
  for (const char* v : {"1.6.20", "2.3.7"}) {
    const std::string block = as_in_docs(containerd_metrics_snippet(containerd(v), "127.0.0.1:1338"));
    EXPECT_NE(doc.find(block), std::string::npos) << "docs/install.md lacks, for containerd " << v << ":\n" << block;
  }
}

TEST(ContainerdConfig, AnOffReaderNamesTheTableOfTheNodesRelease) {
  Report::RuntimeMetrics off;
  const std::string v16 = runtime_metrics_error_words(off, containerd("1.6.20"));
  const std::string v23 = runtime_metrics_error_words(off, containerd("2.3.7"));
  const std::string crio = runtime_metrics_error_words(off, runtime_model("cri-o", "1.36.3"));
  EXPECT_NE(v16.find("containerd's [metrics] address"), std::string::npos) << v16;
  EXPECT_NE(v23.find("[plugins.'io.containerd.server.v1.metrics'] address"), std::string::npos) << v23;
  EXPECT_EQ(v23.find("[metrics] address"), std::string::npos) << v23;
  EXPECT_NE(crio.find("enable_metrics"), std::string::npos) << crio;
  EXPECT_EQ(crio.find("containerd"), std::string::npos) << crio;
}

}  // namespace
}  // namespace plegscope
