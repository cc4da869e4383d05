#pragma once
// A CRI runtime whose every answer comes from the fuzz input, in call order.
//
// Input format (also written by fuzz_seeds, so seeds are real answers):
//   answer := code:u8 length:u16le message:bytes[length]
//   code < 0xC0 is OK; otherwise the gRPC code (code - 0xC0) % 17.
//   message is the answer's protobuf wire bytes (ListPodSandboxResponse,
//   ListContainersResponse, PodSandboxStatusResponse, ContainerStatusResponse,
//   VersionResponse, StatusResponse).
//   An event stream is: count:u8, then `count` answers whose messages are
//   ContainerEventResponse (their code byte is ignored), then one answer
//   whose code ends the stream.
// Once the input is used up every call answers OK with an empty message.
#include <cstdint>
#include <string>
#include <vector>

#include "cri/runtime_client.h"

namespace plegscope::fuzz {

inline constexpr uint8_t kErrorBase = 0xC0;

class InputReader {
 public:
  InputReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  bool empty() const { return pos_ >= size_; }
  uint8_t byte() { return empty() ? 0 : data_[pos_++]; }
  // The next answer: its gRPC code and message bytes.
  int answer(std::string& message) {
    uint8_t code = byte();
    size_t length = byte();
    length |= static_cast<size_t>(byte()) << 8;
    length = std::min(length, size_ - std::min(pos_, size_));
    message.assign(reinterpret_cast<const char*>(data_) + std::min(pos_, size_), length);
    pos_ += length;
    return code < kErrorBase ? 0 : (code - kErrorBase) % 17;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Builds inputs in the same format (for fuzz_seeds).
class InputWriter {
 public:
  void answer(const google::protobuf::Message& message, int code = 0) {
    bytes_.push_back(code == 0 ? 0 : static_cast<char>(kErrorBase + code));
    std::string wire = message.SerializeAsString();
    bytes_.push_back(static_cast<char>(wire.size() & 0xff));
    bytes_.push_back(static_cast<char>((wire.size() >> 8) & 0xff));
    bytes_ += wire;
  }
  void byte(uint8_t b) { bytes_.push_back(static_cast<char>(b)); }
  const std::string& bytes() const { return bytes_; }

 private:
  std::string bytes_;
};

class FuzzRuntime : public RuntimeClient {
 public:
  explicit FuzzRuntime(InputReader& input) : in_(input) {}

  CallResult<cri::VersionResponse> version() override { return next<cri::VersionResponse>(); }
  CallResult<cri::StatusResponse> status() override { return next<cri::StatusResponse>(); }
  CallResult<ListAnswer<cri::PodSandbox>> list_pod_sandboxes(
      const cri::PodSandboxFilter&) override {
    auto r = next<cri::ListPodSandboxResponse>();
    return {r.status, std::vector<cri::PodSandbox>(r.value.items().begin(), r.value.items().end())};
  }
  CallResult<ListAnswer<cri::Container>> list_containers(const cri::ContainerFilter&) override {
    auto r = next<cri::ListContainersResponse>();
    return {r.status,
            std::vector<cri::Container>(r.value.containers().begin(), r.value.containers().end())};
  }
  CallResult<cri::PodSandboxStatusResponse> pod_sandbox_status(const std::string&) override {
    return next<cri::PodSandboxStatusResponse>();
  }
  CallResult<cri::ContainerStatusResponse> container_status(const std::string&) override {
    return next<cri::ContainerStatusResponse>();
  }
  CallStatus watch_container_events(const ContainerEventHandler& handler) override {
    int count = in_.byte();
    bool more = true;
    for (int i = 0; i < count && more; ++i) more = handler(next<cri::ContainerEventResponse>().value);
    auto end = next<cri::StatusResponse>();
    // A stream that ends without an error still ends: the client sees it as UNAVAILABLE.
    return end.ok() ? CallStatus{GrpcCode::kUnavailable, "stream ended"} : end.status;
  }

 private:
  template <typename T>
  CallResult<T> next() {
    std::string message;
    CallResult<T> r;
    r.status.code = grpc_code(in_.answer(message));
    if (!r.ok()) {
      r.status.message = "fuzzed error";
      return r;
    }
    // What gRPC does with an answer it cannot decode.
    if (!r.value.ParseFromString(message)) r.status = {GrpcCode::kInternal, "failed to parse response"};
    return r;
  }

  InputReader& in_;
};

}  // namespace plegscope::fuzz
