// The fake as a client sees it: a real gRPC channel to the in-process fake on
// a temporary unix socket. Checks lists, filters, latency, hangs and
// release, injected errors, the socket going away, events and streaming.
// Time checks are lower bounds (a latency was at least applied), never
// upper bounds on speed.
#include <gtest/gtest.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <thread>

#include "fake_runtime.h"
#include "scenario_loader.h"

namespace fakecri {
namespace {

using std::chrono::milliseconds;
using Steady = std::chrono::steady_clock;

constexpr int kKubeletMaxMessage = 16 << 20;  // the kubelet's CRI client limit

class FakeCriTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spdlog::set_level(spdlog::level::warn);
    char tmpl[] = "/tmp/fakecri-test-XXXXXX";
    dir_ = mkdtemp(tmpl);
    socket_ = dir_ + "/cri.sock";
  }
  void TearDown() override {
    if (rt_) rt_->shutdown();
    rt_.reset();
    std::filesystem::remove_all(dir_);
  }

  void start(const std::string& scenario_json) {
    rt_ = std::make_unique<FakeRuntime>(parse_scenario(scenario_json), socket_, clock_);
    std::string error;
    ASSERT_TRUE(rt_->start(&error, milliseconds(10))) << error;
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(kKubeletMaxMessage);
    channel_ = grpc::CreateCustomChannel("unix:" + socket_, grpc::InsecureChannelCredentials(), args);
    stub_ = cri::RuntimeService::NewStub(channel_);
  }

  std::unique_ptr<grpc::ClientContext> ctx(milliseconds deadline = milliseconds(10000)) {
    auto c = std::make_unique<grpc::ClientContext>();
    c->set_deadline(std::chrono::system_clock::now() + deadline);
    return c;
  }

  grpc::Status list_containers(cri::ListContainersResponse* resp, const cri::ContainerFilter* filter = nullptr,
                               milliseconds deadline = milliseconds(10000)) {
    cri::ListContainersRequest req;
    if (filter) *req.mutable_filter() = *filter;
    auto c = ctx(deadline);
    return stub_->ListContainers(c.get(), req, resp);
  }

  uint64_t count(Op op) { return rt_->calls().snapshot().counts[index(op)]; }

  SystemClock clock_;
  std::string dir_, socket_;
  std::unique_ptr<FakeRuntime> rt_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<cri::RuntimeService::Stub> stub_;
};

TEST_F(FakeCriTest, VersionAndStatus) {
  start(R"({"runtime": {"name": "containerd", "version": "1.6.20"}, "node": {"pods": 1}})");
  cri::VersionResponse v;
  auto c = ctx();
  ASSERT_TRUE(stub_->Version(c.get(), cri::VersionRequest(), &v).ok());
  EXPECT_EQ(v.runtime_name(), "containerd");
  EXPECT_EQ(v.runtime_version(), "1.6.20");
  EXPECT_EQ(v.runtime_api_version(), "v1");
  cri::StatusResponse s;
  c = ctx();
  ASSERT_TRUE(stub_->Status(c.get(), cri::StatusRequest(), &s).ok());
  EXPECT_EQ(s.status().conditions_size(), 2);
}

TEST_F(FakeCriTest, ListsAndKubeletStyleFilters) {
  start(R"({"node": {"pods": 10, "containers_per_pod": 2, "exited_per_pod": 1}})");
  cri::ListPodSandboxResponse sandboxes;
  auto c = ctx();
  ASSERT_TRUE(stub_->ListPodSandbox(c.get(), cri::ListPodSandboxRequest(), &sandboxes).ok());
  ASSERT_EQ(sandboxes.items_size(), 10);
  const auto& sb = sandboxes.items(4);
  EXPECT_EQ(sb.state(), cri::SANDBOX_READY);
  EXPECT_EQ(sb.labels().at("io.kubernetes.pod.uid"), sb.metadata().uid());

  cri::ListContainersResponse all;
  ASSERT_TRUE(list_containers(&all).ok());
  EXPECT_EQ(all.containers_size(), 30);

  // GetPodStatus pattern: ListPodSandbox and ListContainers by pod uid label.
  cri::ListPodSandboxRequest by_uid;
  (*by_uid.mutable_filter()->mutable_label_selector())["io.kubernetes.pod.uid"] = sb.metadata().uid();
  cri::ListPodSandboxResponse one;
  c = ctx();
  ASSERT_TRUE(stub_->ListPodSandbox(c.get(), by_uid, &one).ok());
  ASSERT_EQ(one.items_size(), 1);
  EXPECT_EQ(one.items(0).id(), sb.id());

  cri::ContainerFilter f;
  (*f.mutable_label_selector())["io.kubernetes.pod.uid"] = sb.metadata().uid();
  cri::ListContainersResponse pod;
  ASSERT_TRUE(list_containers(&pod, &f).ok());
  ASSERT_EQ(pod.containers_size(), 3);
  for (const auto& ct : pod.containers()) {
    EXPECT_EQ(ct.pod_sandbox_id(), sb.id());
    EXPECT_EQ(ct.labels().at("io.kubernetes.pod.name"), sb.metadata().name());
    EXPECT_TRUE(ct.labels().count("io.kubernetes.container.name"));
  }
  f.mutable_state()->set_state(cri::CONTAINER_EXITED);
  cri::ListContainersResponse exited;
  ASSERT_TRUE(list_containers(&exited, &f).ok());
  ASSERT_EQ(exited.containers_size(), 1);

  cri::ContainerFilter by_sandbox;
  by_sandbox.set_pod_sandbox_id(sb.id());
  cri::ListContainersResponse in_sandbox;
  ASSERT_TRUE(list_containers(&in_sandbox, &by_sandbox).ok());
  EXPECT_EQ(in_sandbox.containers_size(), 3);

  cri::ContainerStatusRequest sreq;
  sreq.set_container_id(exited.containers(0).id());
  cri::ContainerStatusResponse status;
  c = ctx();
  ASSERT_TRUE(stub_->ContainerStatus(c.get(), sreq, &status).ok());
  EXPECT_EQ(status.status().state(), cri::CONTAINER_EXITED);
  EXPECT_GT(status.status().finished_at(), status.status().started_at());
  EXPECT_GT(status.status().started_at(), status.status().created_at());
  EXPECT_FALSE(status.status().reason().empty());

  cri::PodSandboxStatusRequest preq;
  preq.set_pod_sandbox_id(sb.id());
  cri::PodSandboxStatusResponse pstatus;
  c = ctx();
  ASSERT_TRUE(stub_->PodSandboxStatus(c.get(), preq, &pstatus).ok());
  EXPECT_EQ(pstatus.status().metadata().uid(), sb.metadata().uid());

  sreq.set_container_id("does-not-exist");
  c = ctx();
  EXPECT_EQ(stub_->ContainerStatus(c.get(), sreq, &status).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(FakeCriTest, LatencyFixedPerItemAndUnfilteredOnly) {
  start(R"({"node": {"pods": 10, "containers_per_pod": 2},
            "phases": [{"latency": {"ListContainers": {"fixed": "150ms", "per_item": "5ms", "unfiltered_only": true},
                                    "Version": "100ms"}}]})");
  auto t0 = Steady::now();
  cri::ListContainersResponse all;
  ASSERT_TRUE(list_containers(&all).ok());
  EXPECT_GE(Steady::now() - t0, milliseconds(150 + 20 * 5));
  t0 = Steady::now();
  cri::VersionResponse v;
  auto c = ctx();
  ASSERT_TRUE(stub_->Version(c.get(), cri::VersionRequest(), &v).ok());
  EXPECT_GE(Steady::now() - t0, milliseconds(100));
  // A filtered list is not slowed by an unfiltered_only latency.
  cri::ContainerFilter f;
  f.set_pod_sandbox_id(all.containers(0).pod_sandbox_id());
  t0 = Steady::now();
  cri::ListContainersResponse pod;
  ASSERT_TRUE(list_containers(&pod, &f).ok());
  EXPECT_LT(Steady::now() - t0, milliseconds(150));
}

TEST_F(FakeCriTest, HangUntilReleasedThenHealthyForTheRestOfThePhase) {
  start(R"({"node": {"pods": 2}, "phases": [{"name": "hang", "hangs": {"ListContainers": true}}]})");
  auto hung = std::async(std::launch::async, [&] {
    cri::ListContainersResponse r;
    return list_containers(&r).error_code();
  });
  for (int i = 0; i < 200 && rt_->faults().hanging() == 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  ASSERT_EQ(rt_->faults().hanging(), 1u);
  EXPECT_EQ(hung.wait_for(milliseconds(300)), std::future_status::timeout);
  // The log shows it in flight.
  EXPECT_EQ(rt_->calls().snapshot().in_flight[index(Op::ListContainers)], 1u);
  EXPECT_EQ(rt_->faults().release(), 1u);
  EXPECT_EQ(hung.get(), grpc::StatusCode::OK);
  cri::ListContainersResponse r;
  EXPECT_TRUE(list_containers(&r).ok());  // disarmed until the phase is entered again
  rt_->simulator().jump("hang", false);
  EXPECT_EQ(list_containers(&r, nullptr, milliseconds(300)).error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
}

TEST_F(FakeCriTest, AHangAimedAtOnePodLeavesTheOthersAndTheListsAnswering) {
  start(R"({"node": {"pods": 6}, "phases": [{"name": "stuck", "hangs": {"PodSandboxStatus": {"pods": [4]}}}]})");
  std::vector<std::string> sandboxes;  // by ordinal
  for (const auto& pod : rt_->node().pods()) sandboxes.push_back(pod.sandbox_ids.at(0));
  ASSERT_EQ(sandboxes.size(), 6u);
  auto status_of = [&](int ordinal, milliseconds deadline) {
    cri::PodSandboxStatusRequest req;
    req.set_pod_sandbox_id(sandboxes[ordinal]);
    cri::PodSandboxStatusResponse resp;
    auto c = ctx(deadline);
    return stub_->PodSandboxStatus(c.get(), req, &resp).error_code();
  };
  auto hung = std::async(std::launch::async, [&] { return status_of(4, milliseconds(30000)); });
  for (int i = 0; i < 200 && rt_->faults().hanging() == 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  ASSERT_EQ(rt_->faults().hanging(), 1u);
  // While pod 4's call hangs, the same call for every other pod and the lists answer.
  for (int ordinal : {0, 1, 2, 3, 5}) EXPECT_EQ(status_of(ordinal, milliseconds(2000)), grpc::StatusCode::OK) << ordinal;
  cri::ListContainersResponse containers;
  EXPECT_TRUE(list_containers(&containers, nullptr, milliseconds(2000)).ok());
  cri::ListPodSandboxResponse listed;
  auto c = ctx(milliseconds(2000));
  EXPECT_TRUE(stub_->ListPodSandbox(c.get(), cri::ListPodSandboxRequest(), &listed).ok());
  EXPECT_EQ(listed.items_size(), 6);
  EXPECT_EQ(hung.wait_for(milliseconds(100)), std::future_status::timeout);
  EXPECT_EQ(rt_->faults().hanging(), 1u);
  EXPECT_EQ(rt_->faults().release(), 1u);
  EXPECT_EQ(hung.get(), grpc::StatusCode::OK);
  EXPECT_EQ(status_of(4, milliseconds(2000)), grpc::StatusCode::OK);  // released: disarmed for the phase
}

TEST_F(FakeCriTest, HangWithDurationAndClientDeadline) {
  start(R"({"node": {"pods": 1}, "phases": [{"hangs": {"ListPodSandbox": {"duration": "300ms"}}}]})");
  auto t0 = Steady::now();
  cri::ListPodSandboxResponse r;
  auto c = ctx();
  EXPECT_TRUE(stub_->ListPodSandbox(c.get(), cri::ListPodSandboxRequest(), &r).ok());
  EXPECT_GE(Steady::now() - t0, milliseconds(300));
  c = ctx(milliseconds(100));
  EXPECT_EQ(stub_->ListPodSandbox(c.get(), cri::ListPodSandboxRequest(), &r).error_code(),
            grpc::StatusCode::DEADLINE_EXCEEDED);
  // The server notices the cancellation and logs the call as CANCELLED.
  for (int i = 0; i < 100 && rt_->calls().snapshot().in_flight[index(Op::ListPodSandbox)]; ++i) {
    std::this_thread::sleep_for(milliseconds(10));
  }
  auto calls = rt_->calls().snapshot(0, Op::ListPodSandbox).calls;
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].code, grpc::StatusCode::OK);
  EXPECT_EQ(calls[1].code, grpc::StatusCode::CANCELLED);
}

TEST_F(FakeCriTest, InjectedErrorsByRateAndByPod) {
  start(R"({"node": {"pods": 4, "containers_per_pod": 1},
            "phases": [{"errors": {"ListPodSandbox": {"code": "UNAVAILABLE"},
                                   "ContainerStatus": {"code": "UNKNOWN", "pods": 2, "message": "inspect failed"},
                                   "ListContainers": {"code": "RESOURCE_EXHAUSTED", "rate": 0.5}}}]})");
  cri::ListPodSandboxResponse sandboxes;
  auto c = ctx();
  auto st = stub_->ListPodSandbox(c.get(), cri::ListPodSandboxRequest(), &sandboxes);
  EXPECT_EQ(st.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(st.error_message(), "fakecri: injected UNAVAILABLE");

  int failures = 0;
  std::vector<std::string> ids;
  for (int i = 0; i < 200; ++i) {
    cri::ListContainersResponse r;
    auto s = list_containers(&r);
    if (!s.ok()) {
      EXPECT_EQ(s.error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
      ++failures;
    } else if (ids.empty()) {
      for (const auto& ct : r.containers()) ids.push_back(ct.id());
    }
  }
  EXPECT_GT(failures, 50);
  EXPECT_LT(failures, 150);
  ASSERT_EQ(ids.size(), 4u);  // listed in pod order
  for (size_t i = 0; i < ids.size(); ++i) {
    cri::ContainerStatusRequest req;
    req.set_container_id(ids[i]);
    cri::ContainerStatusResponse resp;
    c = ctx();
    auto s = stub_->ContainerStatus(c.get(), req, &resp);
    if (i < 2) {
      EXPECT_EQ(s.error_code(), grpc::StatusCode::UNKNOWN) << i;
      EXPECT_EQ(s.error_message(), "inspect failed");
    } else {
      EXPECT_TRUE(s.ok()) << i;
    }
  }
}

TEST_F(FakeCriTest, SocketGoesAwayAndComesBack) {
  start(R"({"node": {"pods": 1}, "loop": true,
            "phases": [{"name": "up", "duration": "1h"}, {"name": "down", "duration": "1h", "socket": "down"}]})");
  cri::VersionResponse v;
  auto c = ctx();
  ASSERT_TRUE(stub_->Version(c.get(), cri::VersionRequest(), &v).ok());
  ASSERT_TRUE(rt_->simulator().jump("down", false));
  struct stat st {};
  EXPECT_NE(::stat(socket_.c_str(), &st), 0) << "socket file still there";
  c = ctx(milliseconds(500));
  EXPECT_EQ(stub_->Version(c.get(), cri::VersionRequest(), &v).error_code(), grpc::StatusCode::UNAVAILABLE);
  ASSERT_TRUE(rt_->simulator().jump("up", false));
  EXPECT_EQ(::stat(socket_.c_str(), &st), 0);
  // A fresh channel connects at once (the agent caps its own back-off).
  channel_ = grpc::CreateChannel("unix:" + socket_, grpc::InsecureChannelCredentials());
  stub_ = cri::RuntimeService::NewStub(channel_);
  c = ctx(milliseconds(2000));
  c->set_wait_for_ready(true);
  EXPECT_TRUE(stub_->Version(c.get(), cri::VersionRequest(), &v).ok());
}

TEST_F(FakeCriTest, EventsAndStreamingAreUnimplementedByDefault) {
  start(R"({"node": {"pods": 1}})");
  auto c = ctx();
  auto reader = stub_->GetContainerEvents(c.get(), cri::GetEventsRequest());
  cri::ContainerEventResponse e;
  EXPECT_FALSE(reader->Read(&e));
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNIMPLEMENTED);
  c = ctx();
  auto streamed = stub_->StreamContainers(c.get(), cri::StreamContainersRequest());
  cri::StreamContainersResponse item;
  EXPECT_FALSE(streamed->Read(&item));
  EXPECT_EQ(streamed->Finish().error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(count(Op::GetContainerEvents), 1u);
  EXPECT_EQ(count(Op::StreamContainers), 1u);
}

// RuntimeConfig answers by default (containerd 2.x, CRI-O); a scenario's
// runtime_config false makes it the UNIMPLEMENTED of containerd 1.6 and 1.7.
TEST_F(FakeCriTest, RuntimeConfigAnswersByDefault) {
  start(R"({"node": {"pods": 1}})");
  cri::RuntimeConfigResponse config;
  auto c = ctx();
  ASSERT_TRUE(stub_->RuntimeConfig(c.get(), cri::RuntimeConfigRequest(), &config).ok());
  EXPECT_EQ(config.linux().cgroup_driver(), cri::SYSTEMD);
}

TEST_F(FakeCriTest, RuntimeConfigUnimplementedOnAnOldRuntime) {
  start(R"({"node": {"pods": 1}, "runtime": {"runtime_config": false}})");
  cri::RuntimeConfigResponse config;
  auto c = ctx();
  EXPECT_EQ(stub_->RuntimeConfig(c.get(), cri::RuntimeConfigRequest(), &config).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(count(Op::RuntimeConfig), 1u);
}

TEST_F(FakeCriTest, ContainerEventsCarryThePodAndBreakAfterK) {
  start(R"({"node": {"pods": 3, "containers_per_pod": 2}, "runtime": {"container_events": true},
            "phases": [{"name": "ok", "duration": "1h"}, {"name": "broken", "events": {"break_after": 2, "code": "UNAVAILABLE"}}]})");
  auto c = ctx();
  auto reader = stub_->GetContainerEvents(c.get(), cri::GetEventsRequest());
  for (int i = 0; i < 200 && rt_->events().subscribers() == 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  auto pod = rt_->node().pods()[1];
  ASSERT_EQ(rt_->node().kill_pod(pod.uid, 2, false), 2u);
  cri::ContainerEventResponse e;
  ASSERT_TRUE(reader->Read(&e));
  EXPECT_EQ(e.container_event_type(), cri::CONTAINER_STOPPED_EVENT);
  EXPECT_EQ(e.pod_sandbox_status().metadata().uid(), pod.uid);
  EXPECT_EQ(e.containers_statuses_size(), 2);
  EXPECT_GT(e.created_at(), 0);
  bool found = false;
  for (const auto& s : e.containers_statuses()) {
    if (s.id() == e.container_id()) {
      found = true;
      EXPECT_EQ(s.state(), cri::CONTAINER_EXITED);
      EXPECT_EQ(s.exit_code(), 2);
    }
  }
  EXPECT_TRUE(found);
  ASSERT_TRUE(reader->Read(&e));
  c->TryCancel();
  reader->Finish();
  // The server notices the cancellation within its poll interval; the next
  // stream must not be mistaken for this one.
  for (int i = 0; i < 200 && rt_->events().subscribers() != 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  ASSERT_EQ(rt_->events().subscribers(), 0u);

  rt_->simulator().jump("broken", true);
  c = ctx();
  reader = stub_->GetContainerEvents(c.get(), cri::GetEventsRequest());
  for (int i = 0; i < 200 && rt_->events().subscribers() == 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  rt_->node().kill_pod(rt_->node().pods()[2].uid, 1, true);  // 2 x (stopped, created, started)
  int n = 0;
  while (reader->Read(&e)) ++n;
  EXPECT_EQ(n, 2);
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::UNAVAILABLE);
}

TEST_F(FakeCriTest, UnaryListPastSixteenMiBFailsButStreamingWorks) {
  start(R"({"node": {"pods": 1000, "containers_per_pod": 4}, "runtime": {"list_streaming": true},
            "phases": [{"pad_bytes": 4608}]})");
  cri::ListContainersResponse r;
  EXPECT_EQ(list_containers(&r).error_code(), grpc::StatusCode::RESOURCE_EXHAUSTED);
  auto c = ctx();
  auto stream = stub_->StreamContainers(c.get(), cri::StreamContainersRequest());
  cri::StreamContainersResponse batch;
  size_t messages = 0, n = 0, bytes = 0;
  while (stream->Read(&batch)) {
    ++messages;
    n += static_cast<size_t>(batch.containers_size());
    bytes += batch.ByteSizeLong();
  }
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(n, 4000u);
  EXPECT_EQ(messages, 2u) << "lists of up to 3,000 items per message, as CRI-O 1.36 sends";
  EXPECT_GT(bytes, size_t{16} << 20);
  c = ctx();
  auto sandboxes = stub_->StreamPodSandboxes(c.get(), cri::StreamPodSandboxesRequest());
  cri::StreamPodSandboxesResponse sb;
  messages = n = 0;
  while (sandboxes->Read(&sb)) {
    ++messages;
    n += static_cast<size_t>(sb.pod_sandboxes_size());
  }
  EXPECT_TRUE(sandboxes->Finish().ok());
  EXPECT_EQ(n, 1000u);
  EXPECT_EQ(messages, 1u);
}

TEST_F(FakeCriTest, StreamedBatchesHoldTheConfiguredItemCount) {
  start(R"({"node": {"pods": 10, "containers_per_pod": 3},
            "runtime": {"list_streaming": true, "list_stream_batch": 7}})");
  auto c = ctx();
  auto stream = stub_->StreamContainers(c.get(), cri::StreamContainersRequest());
  cri::StreamContainersResponse batch;
  std::vector<int> sizes;
  while (stream->Read(&batch)) sizes.push_back(batch.containers_size());
  EXPECT_TRUE(stream->Finish().ok());
  EXPECT_EQ(sizes, (std::vector<int>{7, 7, 7, 7, 2}));
}

TEST_F(FakeCriTest, TenThousandContainersList) {
  start(R"({"node": {"pods": 1000, "containers_per_pod": 10}})");
  auto t0 = Steady::now();
  cri::ListContainersResponse r;
  ASSERT_TRUE(list_containers(&r).ok());
  EXPECT_EQ(r.containers_size(), 10000);
  // A figure for the log, not an assertion (tests never assert speed).
  std::printf("listed 10,000 containers (%zu bytes) in %.3fs\n", r.ByteSizeLong(),
              std::chrono::duration<double>(Steady::now() - t0).count());
}

TEST_F(FakeCriTest, MutatingCallsWorkAndAreLogged) {
  start(R"({"node": {"pods": 0}})");
  cri::RunPodSandboxRequest run;
  run.mutable_config()->mutable_metadata()->set_name("web");
  run.mutable_config()->mutable_metadata()->set_uid("uid-web");
  run.mutable_config()->mutable_metadata()->set_namespace_("default");
  cri::RunPodSandboxResponse sb;
  auto c = ctx();
  ASSERT_TRUE(stub_->RunPodSandbox(c.get(), run, &sb).ok());
  cri::CreateContainerRequest create;
  create.set_pod_sandbox_id(sb.pod_sandbox_id());
  create.mutable_config()->mutable_metadata()->set_name("nginx");
  (*create.mutable_config()->mutable_labels())["io.kubernetes.pod.uid"] = "uid-web";
  cri::CreateContainerResponse ct;
  c = ctx();
  ASSERT_TRUE(stub_->CreateContainer(c.get(), create, &ct).ok());
  cri::StartContainerRequest start_req;
  start_req.set_container_id(ct.container_id());
  cri::StartContainerResponse started;
  c = ctx();
  ASSERT_TRUE(stub_->StartContainer(c.get(), start_req, &started).ok());
  cri::ContainerFilter f;
  (*f.mutable_label_selector())["io.kubernetes.pod.uid"] = "uid-web";
  f.mutable_state()->set_state(cri::CONTAINER_RUNNING);
  cri::ListContainersResponse r;
  ASSERT_TRUE(list_containers(&r, &f).ok());
  EXPECT_EQ(r.containers_size(), 1);
  EXPECT_EQ(count(Op::RunPodSandbox), 1u);
  EXPECT_EQ(count(Op::CreateContainer), 1u);
  EXPECT_EQ(count(Op::StartContainer), 1u);
}

TEST_F(FakeCriTest, ShutdownEndsHungCallsPromptly) {
  start(R"({"node": {"pods": 1}, "phases": [{"hangs": {"*": true}}]})");
  auto hung = std::async(std::launch::async, [&] {
    cri::ListContainersResponse r;
    return list_containers(&r).error_code();
  });
  for (int i = 0; i < 200 && rt_->faults().hanging() == 0; ++i) std::this_thread::sleep_for(milliseconds(10));
  auto t0 = Steady::now();
  rt_->shutdown();
  EXPECT_LT(Steady::now() - t0, std::chrono::seconds(2));
  EXPECT_EQ(hung.wait_for(std::chrono::seconds(2)), std::future_status::ready);
  EXPECT_NE(hung.get(), grpc::StatusCode::OK);
}

}  // namespace
}  // namespace fakecri
