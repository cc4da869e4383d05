// Node pressure: the pure parsers, and the reader against real /proc trees
// under tests/fixtures/proc (node_exporter style).
#include <gtest/gtest.h>

#include <filesystem>

#include "host/node_pressure.h"
#include "source_tree.h"

namespace plegscope {
namespace {

const std::string kFixtures = source_tree::fixtures() + "/proc/";

TEST(ParsePsi, SomeAndFull) {
  auto psi = parse_psi(
      "some avg10=62.35 avg60=48.10 avg300=21.77 total=912345678\n"
      "full avg10=41.02 avg60=30.55 avg300=12.40 total=612345678\n");
  ASSERT_TRUE(psi);
  ASSERT_TRUE(psi->some);
  EXPECT_DOUBLE_EQ(psi->some->avg10, 62.35);
  EXPECT_DOUBLE_EQ(psi->some->avg60, 48.10);
  EXPECT_DOUBLE_EQ(psi->some->avg300, 21.77);
  EXPECT_EQ(psi->some->total, 912345678u);
  ASSERT_TRUE(psi->full);
  EXPECT_DOUBLE_EQ(psi->full->avg10, 41.02);
}

TEST(ParsePsi, CpuWithoutFullLine) {
  auto psi = parse_psi("some avg10=0.12 avg60=0.08 avg300=0.05 total=1234567\n");
  ASSERT_TRUE(psi && psi->some);
  EXPECT_FALSE(psi->full);
}

TEST(ParsePsi, GarbageIsNoData) {
  EXPECT_FALSE(parse_psi(""));
  EXPECT_FALSE(parse_psi("hello world\n"));
  EXPECT_FALSE(parse_psi("some avg10=x avg60=1 avg300=1 total=1\n"));
  EXPECT_FALSE(parse_psi("some avg300=1 total=1\n"));  // avg10/avg60 missing
}

TEST(ParseLoadavg, AllFields) {
  auto load = parse_loadavg("14.85 12.02 8.44 5/2210 99812\n");
  ASSERT_TRUE(load);
  EXPECT_DOUBLE_EQ(load->load1, 14.85);
  EXPECT_DOUBLE_EQ(load->load15, 8.44);
  EXPECT_EQ(load->runnable, 5);
  EXPECT_EQ(load->tasks, 2210);
  EXPECT_EQ(load->last_pid, 99812);
  EXPECT_FALSE(parse_loadavg("1.0 2.0 3.0\n"));
  EXPECT_FALSE(parse_loadavg("1.0 2.0 3.0 5-2210 1\n"));
}

TEST(ParseSingleInt, PidMax) {
  EXPECT_EQ(parse_single_int("4194304\n"), 4194304);
  EXPECT_FALSE(parse_single_int(""));
  EXPECT_FALSE(parse_single_int("12 13"));
  EXPECT_FALSE(parse_single_int("-1"));
  EXPECT_FALSE(parse_single_int("12abc"));
}

TEST(ParseStatCpus, CountsPerCpuLines) {
  EXPECT_EQ(parse_stat_cpus("cpu  1 2 3\ncpu0 1 2\ncpu1 1 2\nintr 0\n"), 2);
  EXPECT_FALSE(parse_stat_cpus("intr 0\n"));
}

TEST(NodePressureReader, Healthy) {
  NodePressure p = NodePressureReader(kFixtures + "healthy").read();
  EXPECT_TRUE(p.psi_available());
  EXPECT_DOUBLE_EQ(*p.cpu_some_avg10, 0.12);
  EXPECT_DOUBLE_EQ(*p.io_some_avg10, 0.0);
  EXPECT_DOUBLE_EQ(*p.memory_some_avg10, 0.0);
  EXPECT_DOUBLE_EQ(*p.load1, 0.52);
  EXPECT_EQ(*p.cpus, 4);
  EXPECT_EQ(*p.pids, 1234);
  EXPECT_FALSE(p.processes);  // loadavg holds the count: /proc is not walked
  EXPECT_EQ(*p.pid_max, 4194304);
  EXPECT_EQ(*p.threads_max, 253444);
}

TEST(NodePressureReader, WithoutLoadavgTheProcessesAreCounted) {
  const std::string dir = ::testing::TempDir() + "/proc-without-loadavg";
  std::filesystem::remove_all(dir);
  for (const char* entry : {"1", "42", "977", "self", "sys"}) std::filesystem::create_directories(dir + "/" + entry);
  NodePressure p = NodePressureReader(dir).read();
  ASSERT_TRUE(p.processes);
  EXPECT_EQ(*p.processes, 3);
  EXPECT_EQ(*p.pids, 3);
  std::filesystem::remove_all(dir);
}

TEST(NodePressureReader, IoPressure) {
  NodePressure p = NodePressureReader(kFixtures + "io_pressure").read();
  EXPECT_DOUBLE_EQ(*p.io_some_avg10, 62.35);
  EXPECT_DOUBLE_EQ(*p.io_some_avg60, 48.10);
  EXPECT_DOUBLE_EQ(*p.load1, 14.85);
}

TEST(NodePressureReader, KernelWithoutPsiGivesNulls) {
  NodePressure p = NodePressureReader(kFixtures + "no_psi").read();
  EXPECT_FALSE(p.psi_available());
  EXPECT_FALSE(p.cpu_some_avg10);
  EXPECT_FALSE(p.io_some_avg10);
  EXPECT_FALSE(p.memory_some_avg10);
  // The rest is still read.
  EXPECT_DOUBLE_EQ(*p.load1, 0.31);
  EXPECT_EQ(*p.pid_max, 32768);
}

TEST(NodePressureReader, PidExhaustion) {
  NodePressure p = NodePressureReader(kFixtures + "pid_exhaustion").read();
  EXPECT_EQ(*p.pids, 32711);
  EXPECT_EQ(*p.pid_max, 32768);
  EXPECT_GT(static_cast<double>(*p.pids) / *p.pid_max, 0.99);
}

TEST(NodePressureReader, MissingProcIsAllNullNotAnError) {
  NodePressure p = NodePressureReader("/nonexistent/proc").read();
  EXPECT_FALSE(p.psi_available());
  EXPECT_FALSE(p.load1);
  EXPECT_FALSE(p.pids);
  EXPECT_FALSE(p.pid_max);
}

}  // namespace
}  // namespace plegscope
