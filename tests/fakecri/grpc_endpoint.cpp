#include "grpc_endpoint.h"

#include <spdlog/spdlog.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <climits>

namespace fakecri {

namespace {
// Hung handlers poll for cancellation, so a short grace period is enough
// for Shutdown() to cancel them and return.
constexpr auto kShutdownGrace = std::chrono::milliseconds(200);
}  // namespace

GrpcEndpoint::GrpcEndpoint(std::string socket_path, grpc::Service& service, UnservedFactory make_unserved)
    : path_(std::move(socket_path)), service_(service), make_unserved_(std::move(make_unserved)) {}

GrpcEndpoint::~GrpcEndpoint() {
  std::lock_guard<std::mutex> lock(mu_);
  stop_locked();
}

bool GrpcEndpoint::set_serving(bool up, std::string* error) {
  std::lock_guard<std::mutex> lock(mu_);
  if (up && !server_) return start_locked(error);
  if (!up && server_) stop_locked();
  return true;
}

bool GrpcEndpoint::serving() const {
  std::lock_guard<std::mutex> lock(mu_);
  return server_ != nullptr;
}

bool GrpcEndpoint::start_locked(std::string* error) {
  struct stat st {};
  if (::lstat(path_.c_str(), &st) == 0) {
    if (!S_ISSOCK(st.st_mode)) {
      if (error) *error = "--socket " + path_ + ": exists and is not a socket";
      return false;
    }
    ::unlink(path_.c_str());  // stale socket from a previous run or phase
  }
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort("unix:" + path_, grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(&service_);
  if (make_unserved_) {
    unserved_ = make_unserved_();
    unserved_->add_to(builder);
  }
  // Answers may exceed the client's 16 MiB limit on purpose (message_too_large).
  builder.SetMaxSendMessageSize(INT_MAX);
  builder.SetMaxReceiveMessageSize(64 << 20);
  server_ = builder.BuildAndStart();
  if (!server_) {
    unserved_.reset();
    if (error) *error = "--socket " + path_ + ": cannot listen (does the directory exist and is it writable?)";
    return false;
  }
  if (unserved_) unserved_->start();
  spdlog::info("serving CRI on unix:{}", path_);
  return true;
}

void GrpcEndpoint::stop_locked() {
  if (!server_) return;
  server_->Shutdown(std::chrono::system_clock::now() + kShutdownGrace);
  if (unserved_) unserved_->stop();  // its queue is shut down after the server, as gRPC requires
  server_->Wait();
  server_.reset();
  unserved_.reset();
  ::unlink(path_.c_str());
  spdlog::info("socket {} removed", path_);
}

}  // namespace fakecri
