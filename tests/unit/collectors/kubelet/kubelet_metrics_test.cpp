#include "kubelet/kubelet_metrics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>

#include "fixture.h"
#include "kubelet/kubelet_state.h"

namespace plegscope {
namespace {

using std::chrono::seconds;

TEST(KubeletMetrics, ReadsTheKubeletsPlegFamilies) {
  KubeletSample s = parse_kubelet_metrics(read_fixture("kubelet/kubelet-1.30.txt"));
  EXPECT_EQ(s.malformed_lines, 0u) << s.parse_error;
  ASSERT_TRUE(s.pleg_last_seen_seconds);
  EXPECT_NEAR(*s.pleg_last_seen_seconds, 1732460000.1234567, 1e-6);
  ASSERT_TRUE(s.relist_duration);
  EXPECT_EQ(s.relist_duration->count, 9088);
  EXPECT_EQ(s.relist_duration->buckets.back().second, 9088);
  ASSERT_TRUE(s.relist_interval);
  EXPECT_FALSE(s.pod_relist_duration);  // 1.30 has none
  EXPECT_EQ(s.pleg_discard_events, 0);
  ASSERT_EQ(s.runtime_operations_duration.count("run_podsandbox"), 1u);
  EXPECT_EQ(s.runtime_operations_duration.at("run_podsandbox").count, 41);
  EXPECT_EQ(s.runtime_operations_errors.at("container_status"), 3);
  EXPECT_EQ(s.running_pods, 12);
  EXPECT_EQ(s.evented_pleg_connection_errors, 0);
  EXPECT_EQ(s.evented_pleg_gate, false);
  EXPECT_FALSE(s.cri_list_streaming_gate);  // no such gate before 1.36
  ASSERT_TRUE(s.version);
  EXPECT_EQ(s.version->minor, 30);
  EXPECT_EQ(s.version->git_version, "v1.30.2");
}

TEST(KubeletMetrics, NewerSpellingsAndMissingFamilies) {
  std::string text =
      "# TYPE kubelet_pleg_discard_events_total counter\n"
      "kubelet_pleg_discard_events_total 9\n"
      "kubelet_evented_pleg_connection_error_total 2\n"
      "kubelet_pleg_pod_relist_duration_seconds_bucket{le=\"+Inf\"} 4\n"
      "kubelet_pleg_pod_relist_duration_seconds_count 4\n";
  KubeletSample s = parse_kubelet_metrics(text);
  EXPECT_EQ(s.pleg_discard_events, 9);
  EXPECT_EQ(s.evented_pleg_connection_errors, 2);
  ASSERT_TRUE(s.pod_relist_duration);
  EXPECT_EQ(s.pod_relist_duration->count, 4);
  EXPECT_FALSE(s.relist_duration);
  EXPECT_FALSE(s.version);
  EXPECT_EQ(s.families_found, 3u);
}

// The kubelet registers kubelet_cri_losing_support only when the runtime
// answered RuntimeConfig UNIMPLEMENTED at its start (1.37 names 1.38.0); a
// sample without the family, after a restart beside an upgraded runtime,
// clears what the view says.
TEST(KubeletMetrics, LosingSupportNamesTheReleaseUntilASampleLacksIt) {
  const std::string losing =
      "# HELP kubelet_cri_losing_support [ALPHA] the Kubernetes version that the currently running CRI "
      "implementation will lose support on if not upgraded.\n"
      "# TYPE kubelet_cri_losing_support gauge\n"
      "kubelet_cri_losing_support{version=\"1.38.0\"} 1\n";
  KubeletSample s = parse_kubelet_metrics(losing);
  ASSERT_TRUE(s.cri_losing_support);
  EXPECT_EQ(*s.cri_losing_support, "1.38.0");
  EXPECT_FALSE(parse_kubelet_metrics("kubelet_running_pods 3\n").cri_losing_support);
  KubeletState state;
  const auto t0 = std::chrono::steady_clock::time_point(seconds(100));
  state.observe(s, t0, TimePoint(seconds(1'800'000'000)));
  ASSERT_TRUE(state.view(t0).cri_losing_support);
  state.observe(parse_kubelet_metrics("kubelet_running_pods 3\n"), t0 + seconds(10),
                TimePoint(seconds(1'800'000'010)));
  EXPECT_FALSE(state.view(t0 + seconds(10)).cri_losing_support);
}

TEST(KubeletMetrics, GarbageIsNoFamilyAndAnError) {
  KubeletSample s = parse_kubelet_metrics("<html><body>Unauthorized</body></html>\n");
  EXPECT_EQ(s.families_found, 0u);
  EXPECT_FALSE(s.parse_error.empty());
}

TEST(KubeletVersion, Parses) {
  EXPECT_EQ(parse_kubelet_version("v1.36.0-alpha.1+abc")->minor, 36);
  EXPECT_EQ(parse_kubelet_version("1.29.4")->major, 1);
  EXPECT_FALSE(parse_kubelet_version("v1"));
  EXPECT_FALSE(parse_kubelet_version("banana"));
  EXPECT_FALSE(parse_kubelet_version(""));
}

TEST(PlegModel, FollowsTheKubeletVersionAndGate) {
  auto v = [](int minor) { return KubeletVersion{1, minor, ""}; };
  auto old_evented = pleg_model_for(v(30), true);
  EXPECT_EQ(old_evented.kind, PlegModelKind::evented_legacy);
  EXPECT_EQ(old_evented.relist_period_seconds, 300);
  EXPECT_EQ(old_evented.relist_threshold_seconds, 600);
  auto hint = pleg_model_for(v(37), true);
  EXPECT_EQ(hint.kind, PlegModelKind::evented_hint);
  EXPECT_EQ(hint.relist_period_seconds, 1);
  EXPECT_EQ(hint.relist_threshold_seconds, 180);
  auto generic = pleg_model_for(v(30), false);
  EXPECT_EQ(generic.kind, PlegModelKind::generic);
  EXPECT_EQ(generic.source, ModelSource::read);
  auto v136_evented = pleg_model_for(v(36), true);
  EXPECT_EQ(v136_evented.kind, PlegModelKind::evented_legacy) << "1.36 still slows the relist with the gate";
}

// Per release, as each release's generic.go, evented.go and
// kuberuntime_manager.go say.
TEST(PlegModel, BehaviourPerRelease) {
  auto b = [](int minor) { return pleg_model_for(KubeletVersion{1, minor, ""}, false).behaviour; };
  for (int minor : {30, 34, 35}) {
    EXPECT_TRUE(b(minor).status_lists) << minor;
    EXPECT_FALSE(b(minor).pod_relists) << minor;
    EXPECT_FALSE(b(minor).pod_sync_after_reinspection) << minor;
    EXPECT_FALSE(b(minor).evented_hint) << minor;
  }
  EXPECT_FALSE(b(36).status_lists);
  EXPECT_TRUE(b(36).pod_relists);
  EXPECT_TRUE(b(36).pod_sync_after_reinspection);
  EXPECT_FALSE(b(36).evented_hint);
  EXPECT_FALSE(b(37).status_lists);
  EXPECT_TRUE(b(37).pod_relists);
  EXPECT_TRUE(b(37).evented_hint);
  EXPECT_EQ(b(34).minor, 34);
}

TEST(PlegModel, WithoutAVersionTheNewestReleasedKubeletIsAssumed) {
  auto m = assumed_pleg_model(false);
  EXPECT_EQ(m.source, ModelSource::assumed);
  EXPECT_EQ(m.kind, PlegModelKind::generic) << "EventedPLEG is off by default on every release";
  EXPECT_EQ(m.relist_period_seconds, 1);
  EXPECT_EQ(m.behaviour, newest_kubelet_model());
  EXPECT_EQ(m.behaviour.minor, 37);
  EXPECT_EQ(assumed_pleg_model(true).kind, PlegModelKind::evented_hint) << "1.37 never relists every 300 s";

  KubeletState state;
  KubeletView v = state.view(MonotonicTime{});
  EXPECT_FALSE(v.version);
  EXPECT_EQ(v.model.source, ModelSource::assumed);
  EXPECT_EQ(v.model.behaviour.minor, 37);
}

KubeletSample sample_with(double relist_count, std::vector<std::pair<double, double>> buckets,
                          double last_seen) {
  KubeletSample s;
  Histogram h;
  h.count = relist_count;
  h.buckets = std::move(buckets);
  s.relist_duration = h;
  s.pleg_last_seen_seconds = last_seen;
  return s;
}

TEST(KubeletState, FrozenRelistCountAgesWhileAdvancingResets) {
  KubeletState state(seconds(60));
  MonotonicTime t0{};
  TimePoint wall0 = TimePoint(seconds(1'800'000'000));
  state.observe(sample_with(100, {{0.1, 100}, {HUGE_VAL, 100}}, 1'800'000'000), t0, wall0);
  state.observe(sample_with(110, {{0.1, 110}, {HUGE_VAL, 110}}, 1'800'000'010), t0 + seconds(10),
                wall0 + seconds(10));
  KubeletView v = state.view(t0 + seconds(10));
  EXPECT_EQ(v.seconds_since_relist_advanced, 0);
  EXPECT_NEAR(*v.relists_per_minute, 60, 1e-9);
  EXPECT_NEAR(*v.last_seen_age_seconds, 0, 1e-9);
  // The kubelet's relist stops: count and last-seen freeze for 4 minutes.
  for (int k = 1; k <= 24; ++k) {
    state.observe(sample_with(110, {{0.1, 110}, {HUGE_VAL, 110}}, 1'800'000'010),
                  t0 + seconds(10 + 10 * k), wall0 + seconds(10 + 10 * k));
  }
  v = state.view(t0 + seconds(250));
  EXPECT_NEAR(*v.seconds_since_relist_advanced, 240, 1e-9);
  EXPECT_NEAR(*v.last_seen_age_seconds, 240, 1e-9);
  EXPECT_NEAR(*v.relists_per_minute, 0, 1e-9);
  EXPECT_FALSE(v.relist_p99_seconds);  // no relist finished in the window
}

TEST(KubeletState, P99FromBucketDeltasNotFromTheWholeHistory) {
  KubeletState state(seconds(60));
  MonotonicTime t0{};
  TimePoint wall = TimePoint(seconds(1'800'000'000));
  // A long fast history, then 60 s of relists that all take 1-5 s.
  state.observe(sample_with(10000, {{0.1, 10000}, {1, 10000}, {5, 10000}, {HUGE_VAL, 10000}}, 0), t0, wall);
  state.observe(sample_with(10020, {{0.1, 10000}, {1, 10000}, {5, 10020}, {HUGE_VAL, 10020}}, 0),
                t0 + seconds(60), wall);
  KubeletView v = state.view(t0 + seconds(60));
  ASSERT_TRUE(v.relist_p99_seconds);
  EXPECT_GT(*v.relist_p99_seconds, 1);
  EXPECT_LE(*v.relist_p99_seconds, 5);
  EXPECT_FALSE(v.last_seen_age_seconds);  // 0 means never seen
}

TEST(KubeletState, KubeletRestartStartsOver) {
  KubeletState state;
  MonotonicTime t0{};
  TimePoint wall = TimePoint(seconds(1'800'000'000));
  state.observe(sample_with(500, {{HUGE_VAL, 500}}, 0), t0, wall);
  state.observe(sample_with(3, {{HUGE_VAL, 3}}, 0), t0 + seconds(5), wall);
  KubeletView v = state.view(t0 + seconds(5));
  EXPECT_EQ(v.relist_count, 3);
  EXPECT_EQ(v.seconds_since_relist_advanced, 0);
  EXPECT_FALSE(v.relists_per_minute);  // one point since the restart
}

TEST(KubeletMetrics, TheListStreamingGateSaysWhetherTheKubeletStreams) {
  const std::string gates =
      "# TYPE kubernetes_feature_enabled gauge\n"
      "kubernetes_feature_enabled{name=\"CRIListStreaming\",stage=\"ALPHA\"} %d\n"
      "kubernetes_feature_enabled{name=\"EventedPLEG\",stage=\"ALPHA\"} 0\n";
  for (int on : {0, 1}) {
    char text[256];
    std::snprintf(text, sizeof text, gates.c_str(), on);
    KubeletSample s = parse_kubelet_metrics(text);
    ASSERT_TRUE(s.cri_list_streaming_gate);
    EXPECT_EQ(*s.cri_list_streaming_gate, on == 1);
    EXPECT_EQ(s.evented_pleg_gate, false);
    KubeletState state;
    state.observe(s, MonotonicTime{}, TimePoint{});
    EXPECT_EQ(state.view(MonotonicTime{}).cri_list_streaming_gate, on == 1);
  }
}

TEST(KubeletState, VersionOverrideAndGateSetTheModel) {
  KubeletState state;
  KubeletSample s;
  s.version = KubeletVersion{1, 31, "v1.31.0"};
  s.evented_pleg_gate = true;
  state.observe(s, MonotonicTime{}, TimePoint{});
  EXPECT_EQ(state.view(MonotonicTime{}).model.kind, PlegModelKind::evented_legacy);
  state.set_version_override(KubeletVersion{1, 37, "v1.37.0"});
  KubeletView v = state.view(MonotonicTime{});
  EXPECT_TRUE(v.version_overridden);
  EXPECT_EQ(v.model.kind, PlegModelKind::evented_hint);
  EXPECT_EQ(v.model.source, ModelSource::flag);
  EXPECT_FALSE(v.relist_count);  // no relist family seen
}

}  // namespace
}  // namespace plegscope
