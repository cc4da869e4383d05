// The diagnoser's rules, each put just below and just above its thresholds,
// plus status, ordering, forecast and summary. Snapshots are built by hand:
// the diagnoser is a pure function, no clock or runtime needed.
#include "snapshot_builder.h"
#include "diagnoser/interactions.h"

#include "report/json.h"
#include "report/text.h"

namespace plegscope {
namespace {

using namespace plegscope::testing;
using std::chrono::seconds;

// ----------------------------------------------------------------- healthy

TEST(Diagnoser, HealthyNodeHasNoCauses) {
  Report r = Builder().report();
  EXPECT_EQ(r.status, Status::kHealthy);
  EXPECT_TRUE(r.causes.empty());
  EXPECT_FALSE(r.seconds_to_unhealthy);
  EXPECT_EQ(r.summary.rfind("PLEG is healthy", 0), 0u) << r.summary;
}

TEST(Diagnoser, FirstRelistFindingEveryPodIsNotAStorm) {
  Builder b;
  b.s.timeline.clear();
  RelistRecord warmup = storm_relist(200, 0.5);  // every pod is new
  warmup.start = kNow - seconds(5);
  warmup.initial = true;
  b.s.timeline.push_back(warmup);
  for (int i = 4; i >= 1; --i) {
    RelistRecord r = relist();
    r.start = kNow - seconds(i);
    b.s.timeline.push_back(r);
  }
  EXPECT_FALSE(find(b.report(), CauseId::kEventStorm));
}

TEST(Diagnoser, ConfidencesCoverEveryId) {
  auto all = cause_confidences(Builder().report());
  EXPECT_EQ(all.size(), std::size(kAllCauses));
  for (CauseId id : kAllCauses) EXPECT_EQ(all.at(id), 0) << cause_name(id);
}

// ------------------------------------------------------ runtime_unavailable

TEST(RuntimeUnavailable, NoFailedRelistIsNoCause) {
  EXPECT_FALSE(find(Builder().report(), CauseId::kRuntimeUnavailable));
}

TEST(RuntimeUnavailable, LastRelistFailingIsCritical) {
  Builder b;
  RelistRecord failed = relist();
  failed.error_code = GrpcCode::kUnavailable;
  failed.start = kNow;
  b.s.timeline.push_back(failed);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeUnavailable);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kCritical);
  EXPECT_GE(c->confidence, 0.6);
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeUnavailable);
  EXPECT_NE(c->remedy.find("systemctl status containerd"), std::string::npos);
}

TEST(RuntimeUnavailable, MissingSocketRaisesConfidence) {
  Builder b;
  RelistRecord failed = relist();
  failed.error_code = GrpcCode::kUnavailable;
  b.relists(5, failed);
  double with_socket = find(b.report(), CauseId::kRuntimeUnavailable)->confidence;
  b.s.socket_present = false;
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kRuntimeUnavailable);
  EXPECT_GT(c->confidence, with_socket);
  EXPECT_NE(c->summary.find("does not exist"), std::string::npos);
}

TEST(RuntimeUnavailable, FlappingIsAWarningBelowTheCriticalOne) {
  Builder b;
  RelistRecord failed = relist();
  failed.error_code = GrpcCode::kUnavailable;
  failed.start = kNow - seconds(10);
  b.s.timeline.insert(b.s.timeline.end() - 5, failed);
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kRuntimeUnavailable);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_LT(c->confidence, 0.6);
}

TEST(RuntimeUnavailable, OnAndOffIsFlappingEvenWhenTheNewestFailed) {
  Builder b;
  for (size_t i = 2; i < b.s.timeline.size(); i += 2) b.s.timeline[i].error_code = GrpcCode::kUnavailable;
  ASSERT_TRUE(b.s.timeline.back().error_code);
  Report flapping = b.report();
  const Cause* c = find(flapping, CauseId::kRuntimeUnavailable);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  // A whole window failing in a row is down again.
  for (size_t i = b.s.timeline.size() - 3; i < b.s.timeline.size(); ++i)
    b.s.timeline[i].error_code = GrpcCode::kUnavailable;
  Report down = b.report();
  c = find(down, CauseId::kRuntimeUnavailable);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kCritical);
}

// A blind agent: its connect() to the socket says the problem is its own.
// The PLEG it keeps is unhealthy (no relist ever succeeded), every relist
// failed UNAVAILABLE, and the socket may be absent: all of that would be a
// critical runtime_unavailable with restart-runtime advice if it were the
// node's. It is not: at risk, one warning, advice none, no other cause, the
// summary says blind, why and the agent's fix.
Builder blind_agent(ConnectProblem why, bool socket_present) {
  Builder b;
  b.s.endpoint = "unix:///run/containerd/containerd.sock";
  b.s.healthy = false;
  b.s.health_message = "pleg has yet to be successful";
  b.s.last_seen.reset();
  RelistRecord failed = relist();
  failed.error_code = GrpcCode::kUnavailable;
  b.relists(10, failed);
  b.s.socket_present = socket_present;
  b.s.unreachable = why;
  return b;
}

void expect_blind(const Report& r, const std::string& reason, const std::string& fix_part) {
  SCOPED_TRACE(reason);
  EXPECT_EQ(r.status, Status::kAtRisk);
  ASSERT_TRUE(r.blind);
  EXPECT_EQ(r.blind->reason, reason);
  EXPECT_EQ(r.blind->endpoint, "unix:///run/containerd/containerd.sock");
  EXPECT_NE(r.blind->fix.find(fix_part), std::string::npos) << r.blind->fix;
  ASSERT_EQ(r.causes.size(), 1u);
  const Cause& c = r.causes.front();
  EXPECT_EQ(c.id, CauseId::kRuntimeUnavailable);
  EXPECT_EQ(c.severity, Severity::kWarning);
  EXPECT_EQ(c.advice, Advice::kNone);
  EXPECT_EQ(r.summary.rfind("plegscope is blind: ", 0), 0u) << r.summary;
  EXPECT_NE(r.summary.find(fix_part), std::string::npos) << r.summary;
  EXPECT_EQ(r.summary.find("restart"), std::string::npos) << r.summary;
  EXPECT_FALSE(r.seconds_to_unhealthy);
  // No reckoning of what the kubelet says from calls that never answered.
  EXPECT_EQ(r.runtime_status.not_ready_path, "none");
  EXPECT_TRUE(r.runtime_status.kubelet_errors.empty());
  EXPECT_EQ(render_text(r).find("KUBELET:"), std::string::npos);
}

TEST(RuntimeUnavailable, PermissionDeniedIsTheAgentsBlindnessNotTheNodes) {
  expect_blind(blind_agent(ConnectProblem::kPermissionDenied, true).report(), "permission_denied", "spc_t");
}

TEST(RuntimeUnavailable, NoSocketWhereTheAgentLooksIsBlindness) {
  expect_blind(blind_agent(ConnectProblem::kNoSuchSocket, false).report(), "no_such_socket",
               "/run/k3s/containerd/containerd.sock");
  expect_blind(blind_agent(ConnectProblem::kNotASocket, false).report(), "not_a_socket",
               "--container-runtime-endpoint");
}

TEST(RuntimeUnavailable, APeerThatIsNoCriRuntimeIsBlindness) {
  expect_blind(blind_agent(ConnectProblem::kNotCri, true).report(), "not_cri", "--container-runtime-endpoint");
}

TEST(RuntimeUnavailable, BlindnessDropsCausesThatRestOnTheMissingView) {
  Builder b = blind_agent(ConnectProblem::kPermissionDenied, true);
  RelistRecord hung = relist();
  hung.error_code = GrpcCode::kDeadlineExceeded;
  b.relists(5, hung);  // would be runtime_hung with restart-runtime advice
  Report r = b.report();
  ASSERT_EQ(r.causes.size(), 1u);
  EXPECT_EQ(r.causes.front().advice, Advice::kNone);
}

TEST(RuntimeUnavailable, ARefusingOrRemovedSocketIsStillTheNodes) {
  for (ConnectProblem p : {ConnectProblem::kConnectionRefused, ConnectProblem::kSocketRemoved}) {
    Report r = blind_agent(p, p == ConnectProblem::kConnectionRefused).report();
    SCOPED_TRACE(connect_problem_name(p));
    EXPECT_FALSE(r.blind);
    EXPECT_EQ(r.status, Status::kUnhealthy);
    const Cause* c = find(r, CauseId::kRuntimeUnavailable);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->severity, Severity::kCritical);
    EXPECT_EQ(c->advice, Advice::kRestartRuntime);
  }
}

TEST(RuntimeUnavailable, BlindReportRoundTripsThroughJson) {
  Report r = blind_agent(ConnectProblem::kNotCri, true).report();
  const nlohmann::json j = report_to_json(r);
  ASSERT_TRUE(j.at("blind").is_object());
  EXPECT_EQ(j.at("blind").at("reason"), "not_cri");
  EXPECT_EQ(j.at("status"), "at_risk");
  Report back = report_from_json(j);
  ASSERT_TRUE(back.blind);
  EXPECT_EQ(back.blind->fix, r.blind->fix);
  EXPECT_TRUE(report_to_json(Builder().report()).at("blind").is_null());
}

// ------------------------------------------------------------ runtime_hung

TEST(RuntimeHung, AtTheThresholdIsNotHung) {
  Builder b;
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 10.0;
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeHung));
}

TEST(RuntimeHung, JustPastTheThresholdIsHung) {
  Builder b;
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 10.1;
  b.s.relist_in_progress_since = kNow - secs(10.1);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_GE(c->confidence, 0.8);
  EXPECT_EQ(c->severity, Severity::kCritical);
  EXPECT_TRUE(has_evidence(*c, "oldest_in_flight_seconds{list_containers}"));
  EXPECT_EQ(r.status, Status::kAtRisk);
  EXPECT_NE(r.summary.find("ListContainers has been in flight"), std::string::npos) << r.summary;
  EXPECT_EQ(c->remedy.find("reboot the node"), std::string::npos);
}

TEST(RuntimeHung, ConfidenceGrowsWithAge) {
  Builder b;
  b.s.operations[op::kContainerStatus].in_flight = 1;
  b.s.operations[op::kContainerStatus].oldest_in_flight_seconds = 11;
  double early = find(b.report(), CauseId::kRuntimeHung)->confidence;
  b.s.operations[op::kContainerStatus].oldest_in_flight_seconds = 60;
  double late = find(b.report(), CauseId::kRuntimeHung)->confidence;
  EXPECT_GT(late, early);
  EXPECT_LE(late, 1.0);
}

TEST(RuntimeHung, AnOpenEventStreamIsNotAHang) {
  Builder b;
  b.s.operations[op::kGetContainerEvents].in_flight = 1;
  b.s.operations[op::kGetContainerEvents].oldest_in_flight_seconds = 3600;
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeHung));
}

TEST(RuntimeHung, HangThresholdComesFromTheFlag) {
  Builder b;
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 5.5;
  DiagnoserThresholds t;
  EXPECT_FALSE(find(b.report(t), CauseId::kRuntimeHung));
  t.hang_seconds = 5;
  EXPECT_TRUE(find(b.report(t), CauseId::kRuntimeHung));
}

TEST(RuntimeHung, DeadlineExceededRelistsCount) {
  Builder b;
  RelistRecord failed = relist(120, 120, 0);
  failed.error_code = GrpcCode::kDeadlineExceeded;
  failed.start = kNow - seconds(2);
  b.s.timeline.push_back(failed);
  EXPECT_TRUE(find(b.report(), CauseId::kRuntimeHung));
}

TEST(RuntimeHung, DeadlineExceededSinceTheLastGoodRelistIsCriticalWithAForecast) {
  Builder b;
  RelistRecord failed = relist(0.01, 0.01, 0);
  failed.error_code = GrpcCode::kDeadlineExceeded;
  for (int i = 0; i < 2; ++i) {
    b.s.timeline[b.s.timeline.size() - 1 - i] = failed;
    b.s.timeline[b.s.timeline.size() - 1 - i].start = kNow - seconds(1 + i);
  }
  b.s.last_seen = kNow - seconds(3);
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kCritical);
  ASSERT_TRUE(rep.seconds_to_unhealthy);
  EXPECT_EQ(*rep.seconds_to_unhealthy, 177);
}

// Half the relists fail, good ones between them: PLEG is seen every second or
// two, so it is not heading for the threshold, and the runtime has not stopped.
TEST(RuntimeHung, DeadlineExceededOnAndOffIsAWarningWithoutAForecast) {
  Builder b;
  for (size_t i = 2; i < b.s.timeline.size(); i += 2) b.s.timeline[i].error_code = GrpcCode::kDeadlineExceeded;
  ASSERT_TRUE(b.s.timeline.back().error_code) << "the newest relist failed";
  b.s.last_seen = kNow - seconds(2);
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kRuntimeHung);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_NE(c->summary.find("on and off"), std::string::npos) << c->summary;
  EXPECT_LT(c->confidence, 0.6) << "10 of 20 relists failed";
  EXPECT_FALSE(rep.seconds_to_unhealthy) << *rep.seconds_to_unhealthy;
}

TEST(Forecast, OnAndOffFailuresCountOnceAWholeWindowFailsInARow) {
  Builder b;
  for (size_t i = 1; i < b.s.timeline.size(); i += 2) b.s.timeline[i].error_code = GrpcCode::kUnavailable;
  for (size_t i = b.s.timeline.size() - 3; i < b.s.timeline.size(); ++i)
    b.s.timeline[i].error_code = GrpcCode::kUnavailable;
  b.s.last_seen = kNow - seconds(4);
  Report rep = b.report();
  ASSERT_TRUE(rep.seconds_to_unhealthy);
  EXPECT_EQ(*rep.seconds_to_unhealthy, 176);
}

// ------------------------------------------------------------ runtime_slow

TEST(RuntimeSlow, JustBelowTheListThreshold) {
  Builder b;
  b.relists(20, relist(0.5, 0.49, 0.001));
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeSlow));
}

TEST(RuntimeSlow, AtTheListThreshold) {
  Builder b;
  b.relists(20, relist(0.52, 0.5, 0.001));
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kRuntimeSlow);
  ASSERT_TRUE(c);
  EXPECT_GE(c->confidence, 0.6);
  EXPECT_TRUE(has_evidence(*c, "list_seconds_per_object"));
}

TEST(RuntimeSlow, SlowButExplainedByCountIsNotRuntimeSlow) {
  Builder b;
  RelistRecord r = relist(0.8, 0.8, 0.0);
  r.containers = 1200;  // 0.8 s / 1210 objects < 1 ms each
  b.relists(20, r);
  Report report = b.report();
  EXPECT_FALSE(find(report, CauseId::kRuntimeSlow));
  EXPECT_TRUE(find(report, CauseId::kTooManyContainers));
}

// One slow relist is a blip; two are a slow runtime (the calls themselves
// are judged too: see the slow-relist tests).
TEST(RuntimeSlow, OneSlowRelistIsABlip) {
  Builder b;
  b.relists(20, relist());
  RelistRecord slow = relist(2, 2, 0);
  slow.start = kNow - seconds(1);
  b.s.timeline.back() = slow;
  EXPECT_FALSE(find(b.report(), CauseId::kRuntimeSlow));
  b.relists(2, relist(2, 2, 0));
  EXPECT_TRUE(find(b.report(), CauseId::kRuntimeSlow));
}

// ------------------------------------------------------- message_too_large

constexpr double kMiB = 1024.0 * 1024.0;

TEST(MessageTooLarge, JustBelowTheWarning) {
  Builder b;
  b.s.operations[op::kListContainers].last_list_bytes = static_cast<uint64_t>(0.749 * 16 * kMiB);
  EXPECT_FALSE(find(b.report(), CauseId::kMessageTooLarge));
}

TEST(MessageTooLarge, WarnsBeforeTheCliff) {
  Builder b;
  b.s.operations[op::kListContainers].last_list_bytes = static_cast<uint64_t>(0.75 * 16 * kMiB);
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kMessageTooLarge);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kWarning);
  EXPECT_GE(c->confidence, 0.6);
  EXPECT_TRUE(has_evidence(*c, "list_response_bytes{list_containers}"));
  b.s.operations[op::kListContainers].last_list_bytes = static_cast<uint64_t>(0.95 * 16 * kMiB);
  EXPECT_GT(find(b.report(), CauseId::kMessageTooLarge)->confidence, c->confidence);
}

TEST(MessageTooLarge, ResourceExhaustedIsCritical) {
  Builder b;
  RelistRecord failed = relist();
  failed.error_code = GrpcCode::kResourceExhausted;
  b.relists(5, failed);
  b.s.operations[op::kListContainers].errors_by_code[GrpcCode::kResourceExhausted] = 5;
  Report r = b.report();
  const Cause* c = find(r, CauseId::kMessageTooLarge);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kCritical);
  EXPECT_GE(c->confidence, 0.9);
  EXPECT_EQ(r.causes.front().id, CauseId::kMessageTooLarge);
  // Over the limit, the cleanup lists a slice the runtime filters, never the whole list.
  EXPECT_NE(c->remedy.find("--state exited --label io.kubernetes.pod.namespace=<namespace> -q | xargs -r crictl"),
            std::string::npos)
      << c->remedy;
}

// ------------------------------------------------------ too_many_containers

TEST(TooManyContainers, JustBelow) {
  Builder b;
  RelistRecord r = relist();
  r.sandboxes = 100;
  r.containers = 899;
  b.relists(20, r);
  EXPECT_FALSE(find(b.report(), CauseId::kTooManyContainers));
}

TEST(TooManyContainers, AtTheThresholdAndMostlyExited) {
  Builder b;
  RelistRecord r = relist(0.3, 0.25, 0.01);
  r.sandboxes = 100;
  r.containers = 900;
  r.exited_containers = 700;
  b.relists(20, r);
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kTooManyContainers);
  ASSERT_TRUE(c);
  EXPECT_GE(c->confidence, 0.6);
  EXPECT_TRUE(has_evidence(*c, "exited_share"));
}

// 300 pods x 4 running containers listed in 13 ms: a big node, not a cause.
TEST(TooManyContainers, ManyRunningWithFastListsIsNoCause) {
  Builder b;
  RelistRecord r = relist(0.015, 0.013, 0.0);
  r.sandboxes = 300;
  r.containers = r.running_containers = 1200;
  b.relists(20, r);
  EXPECT_FALSE(find(b.report(), CauseId::kTooManyContainers));
}

TEST(TooManyContainers, ManyRunningWithSlowListsIsACause) {
  Builder b;
  RelistRecord r = relist(0.7, 0.7, 0.0);
  r.sandboxes = 1000;
  r.containers = r.running_containers = 4000;
  b.relists(20, r);
  Report rep = b.report();  // the cause points into it
  const Cause* c = find(rep, CauseId::kTooManyContainers);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->details<TooManyContainersDetails>().exited, 0);
  EXPECT_EQ(c->action.find("exited"), std::string::npos) << c->action;
  EXPECT_NE(c->action.find("maxPods"), std::string::npos) << c->action;
}

// ------------------------------------------------------------- event_storm


TEST(EventStorm, JustBelow) {
  Builder b;
  b.relists(20, storm_relist(9));
  EXPECT_FALSE(find(b.report(), CauseId::kEventStorm));
}

TEST(EventStorm, AtTheThreshold) {
  Builder b;
  b.relists(20, storm_relist(10));
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kEventStorm);
  ASSERT_TRUE(c);
  EXPECT_GE(c->confidence, 0.6);
  EXPECT_TRUE(has_evidence(*c, "pods_with_events_per_relist"));
}

TEST(EventStorm, DiscardsAloneAreAStorm) {
  Builder b;
  RelistRecord r = storm_relist(2);
  r.events_discarded = 3;
  b.relists(20, r);
  EXPECT_TRUE(find(b.report(), CauseId::kEventStorm));
}

// A storm whose evidence ended is no cause, not the second cause a minute later.
TEST(EventStorm, CalmRelistsAfterItEndIt) {
  Builder b;
  b.relists(20, storm_relist(25));
  // The last three relists (the window's count) found no change.
  for (size_t i = b.s.timeline.size() - 3; i < b.s.timeline.size(); ++i) b.s.timeline[i].pods_with_events = 0;
  EXPECT_FALSE(find(b.report(), CauseId::kEventStorm));
  // The newest two stormy again: still on.
  b.s.timeline[b.s.timeline.size() - 2].pods_with_events = 25;
  b.s.timeline.back().pods_with_events = 25;
  EXPECT_TRUE(find(b.report(), CauseId::kEventStorm));
}

TEST(EventStorm, ANewerHangKeepsNoEndedStormAlive) {
  // The storm's relists ended 40 s ago and nothing completed since (a hang
  // took the relist that followed): its evidence is older than the window.
  Builder b;
  b.relists(20, storm_relist(25));
  for (auto& r : b.s.timeline) r.start -= seconds(40);
  EXPECT_FALSE(find(b.report(), CauseId::kEventStorm));
  // 20 s ago: still within the window, still named.
  for (auto& r : b.s.timeline) r.start += seconds(20);
  EXPECT_TRUE(find(b.report(), CauseId::kEventStorm));
}

// --------------------------------------------------------- pod_status_slow

TEST(PodStatusSlow, JustBelow) {
  Builder b;
  b.s.operations[op::kContainerStatus] = op_stats(0.1, 0.49);
  EXPECT_FALSE(find(b.report(), CauseId::kPodStatusSlow));
}

TEST(PodStatusSlow, AtTheThreshold) {
  Builder b;
  b.s.operations[op::kPodSandboxStatus] = op_stats(0.1, 0.5);
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kPodStatusSlow);
  ASSERT_TRUE(c);
  EXPECT_GE(c->confidence, 0.6);
  EXPECT_NE(c->summary.find("PodSandboxStatus"), std::string::npos);
}

// ------------------------------------------------------- reinspect_backlog

Builder with_backlog(int relists_in_a_row) {
  Builder b;
  for (int i = 0; i < relists_in_a_row; ++i) {
    auto& r = b.s.timeline[b.s.timeline.size() - 1 - i];
    r.pods_to_reinspect = 3;
    r.inspection_failures = 3;
  }
  b.s.pods_to_reinspect = 3;
  return b;
}

TEST(ReinspectBacklog, TwoRelistsIsTransient) {
  EXPECT_FALSE(find(with_backlog(2).report(), CauseId::kReinspectBacklog));
}

TEST(ReinspectBacklog, ThreeRelistsInARow) {
  const Cause* c = nullptr;
  Report r = with_backlog(3).report();
  c = find(r, CauseId::kReinspectBacklog);
  ASSERT_TRUE(c);
  EXPECT_GE(c->confidence, 0.6);
  EXPECT_TRUE(has_evidence(*c, "pods_to_reinspect"));
}

TEST(ReinspectBacklog, ClearedBacklogIsNoCause) {
  Builder b = with_backlog(10);
  b.s.pods_to_reinspect = 0;
  EXPECT_FALSE(find(b.report(), CauseId::kReinspectBacklog));
}

// Half the relists fail DEADLINE_EXCEEDED; the pods' inspections fail in
// their filtered list calls the same way, and no status call fails.
Builder backlog_beside_failing_lists() {
  Builder b = with_backlog(10);
  for (size_t i = b.s.timeline.size() - 10; i < b.s.timeline.size(); i += 2)
    b.s.timeline[i].error_code = GrpcCode::kDeadlineExceeded;
  return b;
}

TEST(ReinspectBacklog, BesideFailingListsItIsTheirConsequence) {
  Report r = backlog_beside_failing_lists().report();
  const Cause* backlog = find(r, CauseId::kReinspectBacklog);
  const Cause* hung = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(backlog);
  ASSERT_TRUE(hung);
  EXPECT_LT(backlog->confidence, hung->confidence);
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung);
  EXPECT_NE(backlog->summary.find("see runtime_hung"), std::string::npos) << backlog->summary;
}

TEST(ReinspectBacklog, FailingStatusCallsKeepItsOwnRank) {
  Builder b = backlog_beside_failing_lists();
  b.s.operations[op::kContainerStatus].recent.push_back({kNow - seconds(2), 0.001, GrpcCode::kUnknown, {}});
  Report r = b.report();
  const Cause* backlog = find(r, CauseId::kReinspectBacklog);
  ASSERT_TRUE(backlog);
  EXPECT_GE(backlog->confidence, 0.6);
  EXPECT_EQ(backlog->summary.find("see runtime_hung"), std::string::npos) << backlog->summary;
}

// ----------------------------------------------------------- node_pressure

TEST(NodePressureRule, JustBelowEveryThreshold) {
  Builder b;
  b.s.pressure->cpu_some_avg10 = 39.9;
  b.s.pressure->io_some_avg10 = 24.9;
  b.s.pressure->memory_some_avg10 = 9.9;
  b.s.pressure->load1 = 7.9;  // 4 CPUs
  b.s.pressure->pids = 3773873;  // 0.8998 of pid_max
  b.s.pressure->threads_max = 4194304 * 2;
  EXPECT_FALSE(find(b.report(), CauseId::kNodePressure));
}

TEST(NodePressureRule, IoAtTheThresholdWithoutSlowCallsIsLowConfidence) {
  Builder b;
  b.s.pressure->io_some_avg10 = 25;
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kNodePressure);
  ASSERT_TRUE(c);
  EXPECT_LT(c->confidence, 0.5);
  EXPECT_EQ(c->severity, Severity::kInfo);
  // Listed, but a busy node whose calls and relists are fast is not at risk.
  EXPECT_EQ(rep.status, Status::kHealthy);
}

TEST(NodePressureRule, CoincidingWithSlowCallsRanksFirst) {
  Builder b;
  b.s.pressure->io_some_avg10 = 62;
  b.relists(20, relist(0.85, 0.8, 0.01));
  b.s.operations[op::kListContainers] = op_stats(0.4, 0.8);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kNodePressure);
  ASSERT_TRUE(c);
  EXPECT_GE(c->confidence, 0.6);
  EXPECT_EQ(r.causes.front().id, CauseId::kNodePressure);
  // The slow runtime is still listed, as the symptom.
  ASSERT_TRUE(find(r, CauseId::kRuntimeSlow));
  EXPECT_LT(find(r, CauseId::kRuntimeSlow)->confidence, c->confidence);
}

// A runtime stopped on a saturated node (every list hung past the
// threshold, CPU pressure severe): the hang is the cause, ranked first;
// the pressure stays named as what may slow the runtime.
Builder hung_lists_under_cpu_pressure() {
  Builder b;
  b.s.pressure->cpu_some_avg10 = 75;  // past 1.5x its 40% threshold: strong
  b.s.operations[op::kListPodSandbox].in_flight = 1;
  b.s.operations[op::kListPodSandbox].oldest_in_flight_seconds = 10.5;
  b.s.relist_in_progress_since = kNow - secs(10.5);
  return b;
}

TEST(NodePressureRule, BesideAHungCallTheHangRanksFirst) {
  Builder b = hung_lists_under_cpu_pressure();
  Report r = b.report();
  const Cause* pressure = find(r, CauseId::kNodePressure);
  const Cause* hung = find(r, CauseId::kRuntimeHung);
  ASSERT_TRUE(pressure && hung) << r.summary;
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung) << r.summary;
  EXPECT_LT(pressure->confidence, hung->confidence);
  EXPECT_NE(pressure->summary.find("may be slowing the runtime"), std::string::npos) << pressure->summary;
}

TEST(NodePressureRule, StrongPressureHoldingTheRuntimeInTheKernelKeepsItsRank) {
  Builder b = hung_lists_under_cpu_pressure();
  Report before = b.report();
  const double capped = find(before, CauseId::kNodePressure)->confidence;
  host::HostEvidence h;
  h.processes.blocked.push_back({1001, 1007, "containerd", "daemon", 'D', "folio_wait_bit", 12, "", ""});
  b.s.host = h;
  Report r = b.report();
  const Cause* pressure = find(r, CauseId::kNodePressure);
  ASSERT_TRUE(pressure) << r.summary;
  // The daemon waits in the kernel under strong pressure: the pressure
  // keeps its own confidence, not capped below the hang.
  EXPECT_GT(pressure->confidence, capped);
  EXPECT_GT(pressure->confidence, find(r, CauseId::kRuntimeHung)->confidence);
  EXPECT_EQ(r.causes.front().id, CauseId::kNodePressure) << r.summary;
}

// A frozen shim thawed on a busy node: the list call it held returned
// after 55 s, the newest calls are fast again. That call was a hang, not
// pressure slowing calls: the pressure is listed at info, the node healthy.
TEST(NodePressureRule, AHeldCallThatReturnedIsNoSlowCall) {
  Builder b;
  b.s.pressure->cpu_some_avg10 = 75;
  b.s.operations[op::kListContainers] = op_stats(0.002, 55);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kNodePressure);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kInfo) << c->summary;
  EXPECT_EQ(r.status, Status::kHealthy) << r.summary;
  // The same call slowed, not held (under the hang threshold): warning.
  b.s.operations[op::kListContainers] = op_stats(0.002, 5);
  EXPECT_EQ(find(b.report(), CauseId::kNodePressure)->severity, Severity::kWarning);
}

// A runtime stopped on a busy node, 5 s in: one list call in flight past the
// slow threshold, every call before it fast. Not yet a hang, and not
// pressure slowing calls either: the pressure stays at info.
TEST(NodePressureRule, ALoneCallInFlightAmongFastOnesIsNoSlowCall) {
  Builder b;
  b.s.pressure->cpu_some_avg10 = 75;
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 5;
  b.s.relist_in_progress_since = kNow - secs(5);
  Report r = b.report();
  const Cause* c = find(r, CauseId::kNodePressure);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->severity, Severity::kInfo) << c->summary;
}

// The same, as the agent sees it: its relist in progress waits on that call,
// 5 s so far, on a saturated node. The relist is held, not slowed: only the
// completed relists, fast, say whether pressure slows them. Relists that
// completed slowly before the call was held still make it a warning.
TEST(NodePressureRule, ARelistHeldByALoneCallIsNoSlowRelist) {
  Builder b;
  b.s.pressure->cpu_some_avg10 = 98;
  b.s.pressure->load1 = 60;
  b.call_in_flight(op::kListPodSandbox, 5);
  RelistRecord running = relist(5, 0, 0);
  running.start = kNow - secs(5);
  running.lists_done = 0;
  b.s.in_progress = running;
  b.s.relist_in_progress_since = running.start;
  Report r = b.report();
  const Cause* c = find(r, CauseId::kNodePressure);
  ASSERT_TRUE(c) << r.summary;
  EXPECT_EQ(c->severity, Severity::kInfo) << c->summary;
  EXPECT_EQ(r.status, Status::kHealthy) << r.summary;
  b.relists(20, relist(1.2, 1.1, 0.05));
  b.s.timeline.back().start = kNow - secs(6.3);  // the last one completed before the held one began
  EXPECT_EQ(find(b.report(), CauseId::kNodePressure)->severity, Severity::kWarning);
}

// An at-risk report heads with what it is at risk for: pressure at info
// (no call measured slow with it) ranks below a warning of lower confidence.
TEST(NodePressureRule, AtInfoItRanksBelowAWarning) {
  std::vector<Finding> f;
  f.push_back(make_finding(CauseId::kNodePressure, Severity::kInfo, 0.45, Form::kCallsNotSlowYet));
  f.push_back(make_finding(CauseId::kRuntimeUnavailable, Severity::kWarning, 0.43));
  f.push_back(make_finding(CauseId::kDefunctProcesses, Severity::kWarning, 0.55));
  rank(f, 0.3);
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[0].id, CauseId::kDefunctProcesses);
  EXPECT_EQ(f[1].id, CauseId::kRuntimeUnavailable);
  EXPECT_EQ(f[2].id, CauseId::kNodePressure);
}

// PID limits are pid_exhaustion's (host_rules_test.cpp), judged
// from the host evidence; node_pressure no longer names them.
TEST(NodePressureRule, PidsNearPidMaxAreNotNodePressure) {
  Builder b;
  b.s.pressure->pids = 32711;
  b.s.pressure->pid_max = 32768;
  b.s.pressure->io_some_avg10 = 30;  // IO pressure alone is what it names
  Report rep = b.report();
  const Cause* c = find(rep, CauseId::kNodePressure);
  ASSERT_TRUE(c);
  EXPECT_FALSE(has_evidence(*c, "pids_over_pid_max"));
  EXPECT_TRUE(has_evidence(*c, "io_some_avg10"));
}

TEST(NodePressureRule, NoPsiNoCauseNoCrash) {
  Builder b;
  b.s.pressure = NodePressure{};
  EXPECT_FALSE(find(b.report(), CauseId::kNodePressure));
  b.s.pressure.reset();
  EXPECT_FALSE(find(b.report(), CauseId::kNodePressure));
}

// ----------------------------------------------- status, order, forecast

TEST(Diagnoser, CausesSortedByConfidence) {
  Builder b;
  b.relists(20, storm_relist(25, 0.6));
  b.s.operations[op::kContainerStatus] = op_stats(0.1, 0.6);
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 40;
  Report r = b.report();
  ASSERT_GE(r.causes.size(), 3u);
  for (size_t i = 1; i < r.causes.size(); ++i)
    EXPECT_GE(r.causes[i - 1].confidence, r.causes[i].confidence);
  EXPECT_EQ(r.causes.front().id, CauseId::kRuntimeHung);
}

TEST(Diagnoser, UnhealthyStatusAndForecastZero) {
  Builder b;
  b.s.healthy = false;
  b.s.health_message = "pleg was last seen active 3m5s ago; threshold is 3m0s";
  b.s.last_seen = kNow - seconds(185);
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 184;
  Report r = b.report();
  EXPECT_EQ(r.status, Status::kUnhealthy);
  EXPECT_FALSE(r.healthy);
  ASSERT_TRUE(r.seconds_to_unhealthy);
  EXPECT_EQ(*r.seconds_to_unhealthy, 0);
  EXPECT_EQ(r.summary.rfind("PLEG is not healthy because", 0), 0u) << r.summary;
}

TEST(Forecast, HangCountsDownToTheThreshold) {
  Builder b;
  b.s.last_seen = kNow - seconds(31);
  b.s.relist_in_progress_since = kNow - seconds(30);
  b.s.operations[op::kListContainers].in_flight = 1;
  b.s.operations[op::kListContainers].oldest_in_flight_seconds = 30;
  Report r = b.report();
  ASSERT_TRUE(r.seconds_to_unhealthy);
  EXPECT_NEAR(*r.seconds_to_unhealthy, 149, 0.01);
}

TEST(Forecast, GrowingRelistDurationIsExtrapolated) {
  Builder b;
  b.s.timeline.resize(1);
  // Grows 1 s per second: 10 s now, so 170 s to the 180 s threshold.
  for (int i = 0; i <= 10; ++i) {
    RelistRecord r = relist(i, 0.001, 0);
    r.start = kNow - seconds(10 - i);
    b.s.timeline.push_back(r);
  }
  Report r = b.report();
  ASSERT_TRUE(r.seconds_to_unhealthy);
  EXPECT_NEAR(*r.seconds_to_unhealthy, 170, 1);
  EXPECT_EQ(r.status, Status::kAtRisk);
}

TEST(Forecast, AStepUpIsNotATrend) {
  Builder b;
  b.relists(20, relist(0.005));
  for (size_t i = b.s.timeline.size() - 12; i < b.s.timeline.size(); ++i) b.s.timeline[i].duration = secs(1.5);
  EXPECT_FALSE(b.report().seconds_to_unhealthy);
}

TEST(Forecast, FlatDurationsHaveNoForecast) {
  Builder b;
  b.relists(30, relist(0.005));
  EXPECT_FALSE(b.report().seconds_to_unhealthy);
}

TEST(Report, FiguresFromTheTimeline) {
  Builder b;
  RelistRecord r = storm_relist(3);
  r.top_pods = {PodEventCount::of("uid-1", "web-1", "shop", 4), PodEventCount::of("uid-2", "db-0", "payments", 2)};
  b.relists(10, r);
  b.s.events_discarded_total = 7;
  b.s.pods_to_reinspect = 1;
  Report report = b.report();
  EXPECT_EQ(report.pods.sandboxes, 10);
  EXPECT_EQ(report.pods.containers, 20);
  EXPECT_EQ(report.pods.pods_to_reinspect, 1);
  EXPECT_EQ(report.events.discarded_total, 7u);
  ASSERT_EQ(report.events.top_pods.size(), 2u);
  EXPECT_EQ(report.events.top_pods[0].name, "web-1");
  EXPECT_EQ(report.events.top_pods[0].events, 40);
  EXPECT_EQ(report.events.by_type.at("ContainerStarted"), 30u);
  EXPECT_EQ(report.timeline.size(), 11u);
  EXPECT_NEAR(report.relist.seconds_since_last_seen.value(), 1, 1e-9);
  EXPECT_FALSE(report.relist.in_progress_seconds);
}

}  // namespace
}  // namespace plegscope
