// The cgroup v2 witness's pure parsers, on text as the kernel writes it and
// on truncated or malformed text (nullopt, never a wrong value), and the
// names of kubepods' cgroups in both drivers' layouts.
#include <gtest/gtest.h>

#include "host/cgroup_events.h"
#include "host/cgroup_freeze.h"
#include "host/cgroup_psi.h"
#include "host/cgroup_stat.h"
#include "host/cgroup_v2_names.h"
#include "host/memory_events.h"
#include "host/pids_events.h"

namespace plegscope::host {
namespace {

TEST(CgroupEvents, PopulatedAndFrozen) {
  auto e = parse_cgroup_events("populated 1\nfrozen 1\n");
  ASSERT_TRUE(e);
  EXPECT_TRUE(e->populated);
  EXPECT_EQ(e->frozen, std::optional<bool>(true));
  e = parse_cgroup_events("populated 0\nfrozen 0\n");
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->populated);
  EXPECT_EQ(e->frozen, std::optional<bool>(false));
}

TEST(CgroupEvents, KernelWithoutTheFreezerHasNoFrozenKey) {
  auto e = parse_cgroup_events("populated 1\n");
  ASSERT_TRUE(e);
  EXPECT_FALSE(e->frozen.has_value());  // unavailable, not "not frozen"
}

TEST(CgroupEvents, MalformedIsNullopt) {
  for (const char* bad : {"", "frozen 1\n", "populated yes\n", "populated 2\n", "populated 1\nfrozen 7\n",
                          "populated\n", "populated 1\nfrozen -1\n"})
    EXPECT_FALSE(parse_cgroup_events(bad)) << bad;
}

TEST(CgroupFreeze, ZeroOneOnly) {
  EXPECT_EQ(parse_cgroup_freeze("1\n"), std::optional<bool>(true));
  EXPECT_EQ(parse_cgroup_freeze("0\n"), std::optional<bool>(false));
  for (const char* bad : {"", "2\n", "yes\n", "01\n", "1 1\n"}) EXPECT_FALSE(parse_cgroup_freeze(bad)) << bad;
}

TEST(CgroupStat, DyingDescendants) {
  auto s = parse_cgroup_stat("nr_descendants 312\nnr_dying_descendants 2400\n");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->nr_descendants, 312u);
  EXPECT_EQ(s->nr_dying_descendants, 2400u);
  EXPECT_FALSE(parse_cgroup_stat("nr_descendants 3\n"));
  EXPECT_FALSE(parse_cgroup_stat("nr_descendants 3\nnr_dying_descendants x\n"));
}

TEST(PidsEvents, MaxCount) {
  EXPECT_EQ(parse_pids_events_max("max 37\n"), std::optional<uint64_t>(37));
  EXPECT_EQ(parse_pids_events_max("max 0\n"), std::optional<uint64_t>(0));
  for (const char* bad : {"", "max\n", "max lots\n", "forks 3\n"}) EXPECT_FALSE(parse_pids_events_max(bad)) << bad;
}

TEST(MemoryEvents, HighAndOomKill) {
  auto m = parse_memory_events("low 0\nhigh 150\nmax 2\noom 1\noom_kill 1\noom_group_kill 0\n");
  ASSERT_TRUE(m);
  EXPECT_EQ(m->high, 150u);
  EXPECT_EQ(m->max, 2u);
  EXPECT_EQ(m->oom_kill, std::optional<uint64_t>(1));
  m = parse_memory_events("low 0\nhigh 0\nmax 0\noom 0\n");  // a kernel before oom_kill
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->oom_kill.has_value());
  EXPECT_FALSE(parse_memory_events("high 3\n"));
  EXPECT_FALSE(parse_memory_events("low 0\nhigh x\nmax 0\noom 0\n"));
}

TEST(PsiTotals, SomeAndFull) {
  auto p = parse_psi_totals(
      "some avg10=1.50 avg60=0.40 avg300=0.10 total=2000000\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=500\n");
  ASSERT_TRUE(p);
  EXPECT_EQ(p->some_us, 2000000u);
  EXPECT_EQ(p->full_us, std::optional<uint64_t>(500));
  p = parse_psi_totals("some avg10=0.00 avg60=0.00 avg300=0.00 total=12\n");  // cpu before 5.13
  ASSERT_TRUE(p);
  EXPECT_FALSE(p->full_us.has_value());
}

TEST(PsiTotals, MalformedIsNullopt) {
  for (const char* bad : {"", "some avg10=0.00 total=x\n", "most total=3\n", "some avg10=0.00 avg60=0.00\n",
                          "full avg10=0.00 avg60=0.00 avg300=0.00 total=5\n", "some avg10 total=5\n"})
    EXPECT_FALSE(parse_psi_totals(bad)) << bad;
}

TEST(CgroupV2Names, SystemdDriver) {
  auto n = classify_cgroup_name("kubepods-burstable-pod3a1f9c2e_5b7d_4e8f_9a0b_1c2d3e4f5a6b.slice");
  EXPECT_EQ(n.kind, CgroupName::Kind::kPod);
  EXPECT_EQ(n.pod_uid, "3a1f9c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b");
  n = classify_cgroup_name("kubepods-pod9e8d7c6b_5a4f_4e3d_8c2b_1a0f9e8d7c6b.slice");
  EXPECT_EQ(n.kind, CgroupName::Kind::kPod);
  EXPECT_EQ(n.pod_uid, "9e8d7c6b-5a4f-4e3d-8c2b-1a0f9e8d7c6b");
  EXPECT_EQ(classify_cgroup_name("kubepods-besteffort.slice").kind, CgroupName::Kind::kQos);
  const std::string id(64, 'a');
  n = classify_cgroup_name("cri-containerd-" + id + ".scope");
  EXPECT_EQ(n.kind, CgroupName::Kind::kContainer);
  EXPECT_EQ(n.container_id, id);
  EXPECT_EQ(classify_cgroup_name("crio-" + id + ".scope").container_id, id);
  EXPECT_EQ(classify_cgroup_name("crio-conmon-" + id + ".scope").kind, CgroupName::Kind::kConmon);
  EXPECT_EQ(classify_cgroup_name("docker-" + id + ".scope").container_id, id);
  EXPECT_EQ(classify_cgroup_name("session-3.scope").kind, CgroupName::Kind::kOther);
}

TEST(CgroupV2Names, CgroupfsDriver) {
  auto n = classify_cgroup_name("pod3a1f9c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b");
  EXPECT_EQ(n.kind, CgroupName::Kind::kPod);
  EXPECT_EQ(n.pod_uid, "3a1f9c2e-5b7d-4e8f-9a0b-1c2d3e4f5a6b");
  EXPECT_EQ(classify_cgroup_name("burstable").kind, CgroupName::Kind::kQos);
  const std::string id(64, 'b');
  EXPECT_EQ(classify_cgroup_name(id).container_id, id);
  EXPECT_EQ(classify_cgroup_name("crio-conmon-" + id).kind, CgroupName::Kind::kConmon);
  EXPECT_EQ(classify_cgroup_name("podnotauid").kind, CgroupName::Kind::kOther);
  EXPECT_EQ(classify_cgroup_name("system.slice").kind, CgroupName::Kind::kOther);
}

}  // namespace
}  // namespace plegscope::host
