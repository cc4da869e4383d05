// A cause worded for the runtime the agent reads: on a CRI-O node no cause,
// in any of its forms, names containerd, its shims, `ctr` or its status
// lock; on a containerd node none names CRI-O or conmon. And the advice that
// differs says what that runtime needs.
#include "report/runtime_words.h"

#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "report/remedy.h"
#include "report/wording.h"

namespace plegscope {
namespace {

constexpr Form kLastForm = Form::kPluginUnhealthy;

// The figures a cause's words may print, in the details that cause keeps.
void fill_details(Finding& f) {
  constexpr double kThreshold = 10, kWindow = 60, kLists = 2, kShare = 0.8;
  constexpr int kRelists = 3, kObjects = 110;
  const std::string method = "UpdateContainerResources";
  switch (f.id) {
    case CauseId::kRuntimeUnavailable: {
      auto& d = f.details<RuntimeUnavailableDetails>();
      d.window_seconds = kWindow;
      d.relists = kRelists;
      break;
    }
    case CauseId::kRuntimeHung: {
      auto& d = f.details<RuntimeHungDetails>();
      d.threshold_seconds = kThreshold;
      d.window_seconds = kWindow;
      d.list_seconds = kLists;
      d.relists = kRelists;
      break;
    }
    case CauseId::kRuntimeSlow: {
      auto& d = f.details<RuntimeSlowDetails>();
      d.threshold_seconds = kThreshold;
      d.objects = kObjects;
      break;
    }
    case CauseId::kMessageTooLarge: {
      auto& d = f.details<MessageTooLargeDetails>();
      d.share = kShare;
      d.bytes = 15e6;
      d.limit_bytes = 16 * 1024 * 1024;
      break;
    }
    case CauseId::kTooManyContainers: {
      auto& d = f.details<TooManyContainersDetails>();
      d.list_seconds = kLists;
      d.objects = kObjects;
      break;
    }
    case CauseId::kEventStorm: f.details<EventStormDetails>().share = kShare; break;
    case CauseId::kPodStatusSlow: f.details<PodStatusSlowDetails>().threshold_seconds = kThreshold; break;
    case CauseId::kReinspectBacklog: f.details<ReinspectBacklogDetails>().relists = kRelists; break;
    case CauseId::kNodePressure: break;
    case CauseId::kKubeletInternal: f.details<KubeletInternalDetails>().threshold_seconds = kThreshold; break;
    case CauseId::kContainerLockStall: {
      auto& d = f.details<ContainerLockStallDetails>();
      d.threshold_seconds = kThreshold;
      d.method = method;
      break;
    }
    case CauseId::kCniSlow: {
      auto& d = f.details<CniSlowDetails>();
      d.threshold_seconds = kThreshold;
      d.list_seconds = kLists;
      d.method = method;
      break;
    }
    case CauseId::kNriStall: {
      auto& d = f.details<NriStallDetails>();
      d.threshold_seconds = kThreshold;
      d.window_seconds = kWindow;
      d.method = method;
      break;
    }
    case CauseId::kRuntimeStatusHung: {
      auto& d = f.details<RuntimeStatusHungDetails>();
      d.threshold_seconds = kThreshold;
      d.list_seconds = kLists;
      break;
    }
    case CauseId::kRuntimeNotReady: f.details<RuntimeNotReadyDetails>().threshold_seconds = kThreshold; break;
    case CauseId::kRuntimeNetworkNotReady: break;
    case CauseId::kShimHung: {
      auto& d = f.details<ShimHungDetails>();
      d.threshold_seconds = kThreshold;
      d.relists = kRelists;
      break;
    }
    case CauseId::kShimLost: {
      auto& d = f.details<ShimLostDetails>();
      d.objects = kObjects;
      d.current = 100;
      break;
    }
    case CauseId::kContainerFrozen: f.details<ContainerFrozenDetails>().threshold_seconds = kThreshold; break;
    case CauseId::kSystemdBusStalled:
      f.details<SystemdBusStalledDetails>().threshold_seconds = kThreshold;
      break;
    case CauseId::kDefunctProcesses: {
      auto& d = f.details<DefunctProcessesDetails>();
      d.objects = kObjects;
      d.zombies = 150;
      break;
    }
    case CauseId::kPidExhaustion: {
      auto& d = f.details<PidExhaustionDetails>();
      d.share = kShare;
      d.limit_scope = "runtime";
      d.current = 100;
      d.maximum = 100;
      break;
    }
    case CauseId::kRuntimeDiskSlow: {
      auto& d = f.details<RuntimeDiskSlowDetails>();
      d.device = "sda";
      d.mount = "/var/lib/containers";
      break;
    }
    case CauseId::kRuntimeLosingSupport: break;
  }
  // The forms named after the rules, whichever cause they name.
  f.attribution.period_seconds = 1;
  f.attribution.share = kShare;
  f.attribution.list_seconds = kLists;
  f.attribution.objects = kObjects;
}

// A finding of `id` in `form` with every field its words may print filled.
Cause full_finding(CauseId id, Form form, const std::string& helper) {
  Finding f;
  f.id = id;
  f.form = form;
  f.op = "list_containers";
  f.seconds = 12;
  fill_details(f);
  PodRef pod{"default", "web-0", "1f2e3d4c", "4c5d6e7f", "app"};
  f.pods = {pod};
  Finding::HostProcess p;
  p.pid = 4242;
  p.comm = helper;
  p.wchan = "do_freezer_trap";
  p.seconds = 30;
  p.count = 1;
  p.sandbox_id = pod.sandbox_id;
  f.processes = {p};
  f.evidence = {{"relist_in_progress_seconds", 12, 10}};
  return Cause(f);
}

Report worded_on(const std::string& runtime, const std::string& endpoint, CauseId id, Form form,
                 const std::string& version = "") {
  Report r;
  r.runtime.name = runtime;
  r.runtime.version = version;
  r.runtime.endpoint = endpoint;
  r.status = Status::kUnhealthy;
  r.health_message = "PLEG is not healthy";
  r.causes = {full_finding(id, form, runtime_family(runtime, endpoint) == RuntimeFamily::kCrio ? "conmon"
                                                                                              : "containerd-shim")};
  word(r);
  return r;
}

void expect_no_foreign_words(const Report& r, RuntimeFamily family) {
  const Cause& c = r.causes.front();
  for (const std::string* text : {&c.reason, &c.action, &c.summary, &c.remedy, &r.summary})
    for (const char* const* w = foreign_runtime_words(family); *w; ++w)
      EXPECT_EQ(text->find(*w), std::string::npos) << "\"" << *w << "\" in: " << *text;
}

// Every cause in every form, on releases either side of each version the
// words depend on (CRI-O's watchdog since 1.32, containerd's go-cni deadlock
// in 2.0.1-2.0.2), and before Version answers (the socket alone).
TEST(RuntimeWords, NoContainerdWordsOnACrioNodeForAnyCauseFormOrVersion) {
  for (const char* version : {"", "1.31.4", "1.34.0"})
    for (CauseId id : kAllCauses)
      for (int form = 0; form <= static_cast<int>(kLastForm); ++form) {
        SCOPED_TRACE(std::string(cause_name(id)) + " form " + std::to_string(form) + " CRI-O " + version);
        expect_no_foreign_words(
            worded_on(*version ? "cri-o" : "", "unix:///var/run/crio/crio.sock", id, static_cast<Form>(form), version),
            RuntimeFamily::kCrio);
      }
}

TEST(RuntimeWords, NoCrioWordsOnAContainerdNodeForAnyCauseFormOrVersion) {
  for (const char* version : {"", "v1.7.24", "v2.0.2", "v2.1.4"})
    for (CauseId id : kAllCauses)
      for (int form = 0; form <= static_cast<int>(kLastForm); ++form) {
        SCOPED_TRACE(std::string(cause_name(id)) + " form " + std::to_string(form) + " containerd " + version);
        expect_no_foreign_words(worded_on(*version ? "containerd" : "", "unix:///run/containerd/containerd.sock", id,
                                          static_cast<Form>(form), version),
                                RuntimeFamily::kContainerd);
      }
}

TEST(RuntimeWords, ACrioBeforeTheWatchdogIsRestartedByHand) {
  const Report old = worded_on("cri-o", "unix:///var/run/crio/crio.sock", CauseId::kRuntimeHung, Form::kCallHung,
                               "1.31.4");
  const Cause& c = old.causes.front();
  EXPECT_EQ(c.action.find("watchdog will restart"), std::string::npos) << c.action;
  EXPECT_NE(c.action.find("restart CRI-O"), std::string::npos) << c.action;
  EXPECT_NE(c.remedy.find("systemctl restart crio"), std::string::npos) << c.remedy;
  EXPECT_EQ(c.remedy.find("watchdog will restart"), std::string::npos) << c.remedy;
}

TEST(RuntimeWords, TheGoCniUpgradeIsAdvisedOnlyWhereItApplies) {
  const std::string advice = "upgrade to 2.0.3";
  for (const auto& [version, said] : std::vector<std::pair<std::string, bool>>{
           {"v2.0.2", true}, {"", true}, {"v1.7.24", false}, {"v2.1.4", false}}) {
    const Report r = worded_on("containerd", "unix:///run/containerd/containerd.sock", CauseId::kRuntimeStatusHung,
                               Form::kStatusWhileListsAnswer, version);
    EXPECT_EQ(r.causes.front().remedy.find(advice) != std::string::npos, said) << version;
  }
}

TEST(RuntimeWords, AHungCrioIsLeftToItsWatchdogAndConmonIsLookedAt) {
  const Report crio = worded_on("cri-o", "unix:///var/run/crio/crio.sock", CauseId::kRuntimeHung, Form::kCallHung);
  const Cause& c = crio.causes.front();
  EXPECT_NE(c.action.find("CRI-O's watchdog will restart it"), std::string::npos) << c.action;
  EXPECT_NE(c.action.find("conmon"), std::string::npos) << c.action;
  EXPECT_NE(c.remedy.find("systemctl restart crio"), std::string::npos) << c.remedy;
  EXPECT_NE(c.remedy.find("/tmp/crio-goroutine-stacks-"), std::string::npos) << c.remedy;
  const Report ctd =
      worded_on("containerd", "unix:///run/containerd/containerd.sock", CauseId::kRuntimeHung, Form::kCallHung);
  EXPECT_NE(ctd.causes.front().action.find("then restart it"), std::string::npos) << ctd.causes.front().action;
  EXPECT_NE(ctd.causes.front().remedy.find("systemctl restart containerd"), std::string::npos);
  EXPECT_NE(ctd.causes.front().remedy.find("kill that shim"), std::string::npos);
}

TEST(RuntimeWords, TheStuckHelperIsConmonOnCrioAndTheShimOnContainerd) {
  const Report crio = worded_on("cri-o", "", CauseId::kShimHung, Form::kBehindHungCall);
  EXPECT_NE(crio.causes.front().summary.find("conmon"), std::string::npos) << crio.causes.front().summary;
  const Report ctd = worded_on("containerd", "", CauseId::kShimHung, Form::kBehindHungCall);
  EXPECT_NE(ctd.causes.front().summary.find("shim"), std::string::npos) << ctd.causes.front().summary;
}

TEST(RuntimeWords, TheFamilyComesFromVersionThenFromTheSocket) {
  EXPECT_EQ(runtime_family("cri-o"), RuntimeFamily::kCrio);
  EXPECT_EQ(runtime_family("containerd"), RuntimeFamily::kContainerd);
  EXPECT_EQ(runtime_family("", "unix:///var/run/crio/crio.sock"), RuntimeFamily::kCrio);
  EXPECT_EQ(runtime_family("", "unix:///run/containerd/containerd.sock"), RuntimeFamily::kContainerd);
  EXPECT_EQ(runtime_family("docker", "unix:///run/cri-dockerd.sock"), RuntimeFamily::kOther);
  // A runtime the agent does not know keeps the words that name both.
  const RuntimeModel other = runtime_model("docker", "24", "unix:///run/cri-dockerd.sock");
  for (CauseId id : kAllCauses) {
    EXPECT_STREQ(cause_text(id, other).confirm, cause_text(id).confirm) << cause_name(id);
    EXPECT_STREQ(cause_text(id, other).fix, cause_text(id).fix) << cause_name(id);
    EXPECT_STREQ(cause_text(id, other).never, cause_text(id).never) << cause_name(id);
  }
}

}  // namespace
}  // namespace plegscope
