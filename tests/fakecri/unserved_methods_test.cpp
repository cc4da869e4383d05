// Calls to methods fakecri does not serve are logged, not lost: a method of
// the ImageService (in our proto subset) and one of the real CRI
// RuntimeService that our subset lacks (ExecSync), sent as raw bytes.
#include <gtest/gtest.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <filesystem>

#include "fake_runtime.h"
#include "scenario_loader.h"

namespace fakecri {
namespace {

class UnservedMethodsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    spdlog::set_level(spdlog::level::err);
    char tmpl[] = "/tmp/fakecri-unserved-XXXXXX";
    dir_ = mkdtemp(tmpl);
    rt_ = std::make_unique<FakeRuntime>(parse_scenario(R"({"node": {"pods": 1}})"), dir_ + "/cri.sock", clock_);
    std::string error;
    ASSERT_TRUE(rt_->start(&error)) << error;
    channel_ = grpc::CreateChannel("unix:" + dir_ + "/cri.sock", grpc::InsecureChannelCredentials());
  }
  void TearDown() override {
    rt_->shutdown();
    std::filesystem::remove_all(dir_);
  }

  // A unary call to `method` with an empty request, through the generic stub.
  grpc::Status raw_call(const std::string& method) {
    grpc::GenericStub stub(channel_);
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    grpc::CompletionQueue cq;
    grpc::ByteBuffer request, response;
    grpc::Slice empty("");
    request = grpc::ByteBuffer(&empty, 1);
    auto call = stub.PrepareUnaryCall(&ctx, method, request, &cq);
    call->StartCall();
    grpc::Status status;
    call->Finish(&response, &status, reinterpret_cast<void*>(1));
    void* tag = nullptr;
    bool ok = false;
    EXPECT_TRUE(cq.Next(&tag, &ok));
    return status;
  }

  SystemClock clock_;
  std::string dir_;
  std::unique_ptr<FakeRuntime> rt_;
  std::shared_ptr<grpc::Channel> channel_;
};

TEST_F(UnservedMethodsTest, ImageServiceAndUnknownRuntimeMethodsAreLoggedAndRefused) {
  auto images = cri::ImageService::NewStub(channel_);
  grpc::ClientContext ctx;
  cri::ListImagesResponse listed;
  EXPECT_EQ(images->ListImages(&ctx, cri::ListImagesRequest(), &listed).error_code(),
            grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(raw_call("/runtime.v1.RuntimeService/ExecSync").error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(raw_call("/runtime.v1.RuntimeService/ExecSync").error_code(), grpc::StatusCode::UNIMPLEMENTED);

  auto log = rt_->calls().snapshot();
  EXPECT_EQ(log.unserved_counts["/runtime.v1.ImageService/ListImages"], 1u);
  EXPECT_EQ(log.unserved_counts["/runtime.v1.RuntimeService/ExecSync"], 2u);
  ASSERT_EQ(log.calls.size(), 3u);
  EXPECT_FALSE(log.calls[0].served);
  EXPECT_EQ(log.calls[0].unserved_method, "/runtime.v1.ImageService/ListImages");
  EXPECT_EQ(log.calls[2].code, grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(UnservedMethodsTest, StillLoggedAfterTheSocketWentDownAndUp) {
  // Each time the socket comes back is a new gRPC server, with its own catch-all.
  std::string error;
  for (int restart = 0; restart < 2; ++restart) {
    ASSERT_TRUE(rt_->endpoint().set_serving(false, &error)) << error;
    ASSERT_TRUE(rt_->endpoint().set_serving(true, &error)) << error;
  }
  channel_ = grpc::CreateChannel("unix:" + dir_ + "/cri.sock", grpc::InsecureChannelCredentials());
  EXPECT_EQ(raw_call("/runtime.v1.RuntimeService/ExecSync").error_code(), grpc::StatusCode::UNIMPLEMENTED);
  EXPECT_EQ(rt_->calls().snapshot().unserved_counts["/runtime.v1.RuntimeService/ExecSync"], 1u);
}

TEST_F(UnservedMethodsTest, ServedMethodsStillReachTheRuntimeService) {
  auto runtime = cri::RuntimeService::NewStub(channel_);
  grpc::ClientContext ctx;
  cri::VersionResponse version;
  ASSERT_TRUE(runtime->Version(&ctx, cri::VersionRequest(), &version).ok());
  auto log = rt_->calls().snapshot();
  EXPECT_EQ(log.counts[index(Op::Version)], 1u);
  EXPECT_TRUE(log.unserved_counts.empty());
}

}  // namespace
}  // namespace fakecri
