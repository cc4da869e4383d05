#pragma once
// Every RPC the fake receives: method, start time, final status code and
// duration. Calls are logged when they start (so a hung call is visible as
// in flight) and completed when they end. Keeps the newest kMaxRecords
// records; counts are never trimmed. Calls to methods the fake does not
// serve (other RuntimeService methods, the ImageService, anything) are
// logged too, by their full gRPC path, so a read-only check sees every call.
// Thread-safe.
#include <grpcpp/support/status.h>

#include <cstdint>
#include <deque>
#include <mutex>
#include <map>
#include <optional>
#include <string>

#include "clock.h"
#include "operations.h"

namespace fakecri {

struct CallRecord {
  uint64_t seq = 0;  // 0, 1, 2, ... in arrival order
  Op op = Op::Version;            // meaningful only when `served`
  bool served = true;
  std::string unserved_method;    // full path, e.g. "/runtime.v1.ImageService/ListImages"
  double start_unix = 0;
  std::optional<grpc::StatusCode> code;  // nullopt while in flight
  double duration_seconds = 0;
};

struct CallLogSnapshot {
  std::vector<CallRecord> calls;  // filtered, oldest first
  PerOp<uint64_t> counts{};       // calls received, all time
  PerOp<uint64_t> in_flight{};
  std::map<std::string, uint64_t> unserved_counts;  // by full path, all time
  uint64_t next_seq = 0;
};

class CallLog {
 public:
  static constexpr size_t kMaxRecords = 200'000;

  uint64_t begin(Op op, TimePoint start);
  void end(uint64_t seq, grpc::StatusCode code, Duration took);
  // A call to a method the fake does not serve, answered at once with `code`.
  void unserved(const std::string& method_path, TimePoint start, grpc::StatusCode code);

  // Records with seq >= since_seq, optionally only those of `op`.
  CallLogSnapshot snapshot(uint64_t since_seq = 0, std::optional<Op> op = std::nullopt) const;
  void clear();  // hides older records, zeroes counts; seq keeps growing

 private:
  mutable std::mutex mu_;
  std::deque<CallRecord> records_;
  uint64_t next_seq_ = 0;
  uint64_t floor_seq_ = 0;  // clear() hides records below this
  PerOp<uint64_t> counts_{};
  PerOp<uint64_t> in_flight_{};
  std::map<std::string, uint64_t> unserved_counts_;
};

}  // namespace fakecri
