#pragma once
// Serves a gRPC service on a unix socket and can take the socket away and
// bring it back (phase "socket": "down"/"up"), the way a restarting runtime
// does. Thread-safe.
#include <grpcpp/grpcpp.h>

#include <functional>
#include <memory>
#include <mutex>
#include <string>

namespace fakecri {

class SocketControl {
 public:
  virtual ~SocketControl() = default;
  // Returns false (and says why) if the socket could not be served.
  virtual bool set_serving(bool up, std::string* error) = 0;
  virtual bool serving() const = 0;
};

// What answers calls to methods the service lacks, bound to one server.
class CatchAll {
 public:
  virtual ~CatchAll() = default;
  virtual void add_to(grpc::ServerBuilder& builder) = 0;  // before the server starts
  virtual void start() = 0;                               // once it has started
  virtual void stop() = 0;                                // once it is shut down
};

class GrpcEndpoint final : public SocketControl {
 public:
  // Makes the catch-all for calls to methods `service` lacks: gRPC binds a
  // generic service to one server, and each time the socket comes up is a
  // new server.
  using UnservedFactory = std::function<std::unique_ptr<CatchAll>()>;
  GrpcEndpoint(std::string socket_path, grpc::Service& service, UnservedFactory make_unserved = {});
  ~GrpcEndpoint() override;

  bool set_serving(bool up, std::string* error) override;
  bool serving() const override;
  const std::string& socket_path() const { return path_; }

 private:
  bool start_locked(std::string* error);
  void stop_locked();

  const std::string path_;
  grpc::Service& service_;
  UnservedFactory make_unserved_;
  std::unique_ptr<CatchAll> unserved_;  // outlives server_
  mutable std::mutex mu_;
  std::unique_ptr<grpc::Server> server_;
};

}  // namespace fakecri
