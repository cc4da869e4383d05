// Every old -> new pair of the kubelet's relist state machine.
#include "pleg/transitions.h"

#include <gtest/gtest.h>

#include <string>

namespace plegscope {
namespace {

using T = PodLifecycleEventType;
struct Case {
  PlegState old_state;
  PlegState new_state;
  std::vector<T> expected;
};

class TransitionTable : public ::testing::TestWithParam<Case> {};

TEST_P(TransitionTable, GeneratesTheKubeletsEvents) {
  const Case& c = GetParam();
  auto events = generate_events("uid-1", "cid-1", c.old_state, c.new_state);
  std::vector<T> types;
  for (const auto& e : events) {
    EXPECT_EQ(e.pod_uid, "uid-1");
    EXPECT_EQ(e.container_id, "cid-1");
    types.push_back(e.type);
  }
  EXPECT_EQ(types, c.expected) << pleg_state_name(c.old_state) << " -> "
                               << pleg_state_name(c.new_state);
}

constexpr auto R = PlegState::Running;
constexpr auto E = PlegState::Exited;
constexpr auto U = PlegState::Unknown;
constexpr auto N = PlegState::NonExistent;

INSTANTIATE_TEST_SUITE_P(
    AllSixteenPairs, TransitionTable,
    ::testing::Values(
        Case{R, R, {}}, Case{R, E, {T::ContainerDied}}, Case{R, U, {T::ContainerChanged}},
        Case{R, N, {T::ContainerDied, T::ContainerRemoved}},
        Case{E, R, {T::ContainerStarted}}, Case{E, E, {}}, Case{E, U, {T::ContainerChanged}},
        Case{E, N, {T::ContainerRemoved}},
        Case{U, R, {T::ContainerStarted}}, Case{U, E, {T::ContainerDied}}, Case{U, U, {}},
        Case{U, N, {T::ContainerDied, T::ContainerRemoved}},
        Case{N, R, {T::ContainerStarted}}, Case{N, E, {T::ContainerDied}},
        Case{N, U, {T::ContainerChanged}}, Case{N, N, {}}),
    // Named by the pair, so that a test's name is the same in every build
    // (gtest would otherwise name it by the bytes of the case).
    [](const ::testing::TestParamInfo<Case>& info) {
      std::string name = std::string(pleg_state_name(info.param.old_state)) + "_to_" +
                         pleg_state_name(info.param.new_state);
      for (char& ch : name)
        if (ch == '-') ch = '_';
      return name;
    });

TEST(StateConversion, CreatedIsUnknownAsInTheKubelet) {
  EXPECT_EQ(to_pleg_state(RuntimeState::Created), PlegState::Unknown);
  EXPECT_EQ(to_pleg_state(RuntimeState::Unknown), PlegState::Unknown);
  EXPECT_EQ(to_pleg_state(RuntimeState::Running), PlegState::Running);
  EXPECT_EQ(to_pleg_state(RuntimeState::Exited), PlegState::Exited);
}

TEST(StateConversion, SandboxReadyIsRunningNotReadyIsExited) {
  EXPECT_EQ(from_cri(cri::SANDBOX_READY), RuntimeState::Running);
  EXPECT_EQ(from_cri(cri::SANDBOX_NOTREADY), RuntimeState::Exited);
}

TEST(StateIn, AbsentPodOrIdIsNonExistent) {
  RuntimePod pod;
  pod.containers.push_back({"c1", "app", RuntimeState::Running});
  pod.sandboxes.push_back({"s1", "pod", RuntimeState::Exited});
  EXPECT_EQ(state_in(nullptr, "c1"), PlegState::NonExistent);
  EXPECT_EQ(state_in(&pod, "c1"), PlegState::Running);
  EXPECT_EQ(state_in(&pod, "s1"), PlegState::Exited);
  EXPECT_EQ(state_in(&pod, "zz"), PlegState::NonExistent);
}

}  // namespace
}  // namespace plegscope
