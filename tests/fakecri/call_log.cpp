#include "call_log.h"

#include <algorithm>

namespace fakecri {

uint64_t CallLog::begin(Op op, TimePoint start) {
  std::lock_guard<std::mutex> lock(mu_);
  CallRecord r;
  r.seq = next_seq_++;
  r.op = op;
  r.start_unix = unix_seconds(start);
  records_.push_back(r);
  if (records_.size() > kMaxRecords) records_.pop_front();
  counts_[index(op)]++;
  in_flight_[index(op)]++;
  return r.seq;
}

void CallLog::unserved(const std::string& method_path, TimePoint start, grpc::StatusCode code) {
  std::lock_guard<std::mutex> lock(mu_);
  CallRecord r;
  r.seq = next_seq_++;
  r.served = false;
  r.unserved_method = method_path;
  r.start_unix = unix_seconds(start);
  r.code = code;
  records_.push_back(std::move(r));
  if (records_.size() > kMaxRecords) records_.pop_front();
  unserved_counts_[method_path]++;
}

void CallLog::end(uint64_t seq, grpc::StatusCode code, Duration took) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!records_.empty() && seq >= records_.front().seq) {
    CallRecord& r = records_[seq - records_.front().seq];
    if (!r.code && r.served) {
      r.code = code;
      r.duration_seconds = to_seconds(took);
      if (in_flight_[index(r.op)] > 0) in_flight_[index(r.op)]--;
    }
  }
  // else: trimmed while in flight (200k newer calls came first); nothing to do.
}

CallLogSnapshot CallLog::snapshot(uint64_t since_seq, std::optional<Op> op) const {
  std::lock_guard<std::mutex> lock(mu_);
  CallLogSnapshot s;
  s.counts = counts_;
  s.in_flight = in_flight_;
  s.unserved_counts = unserved_counts_;
  s.next_seq = next_seq_;
  size_t start = 0;
  since_seq = std::max(since_seq, floor_seq_);
  if (!records_.empty() && since_seq > records_.front().seq) {
    start = static_cast<size_t>(std::min<uint64_t>(since_seq - records_.front().seq, records_.size()));
  }
  for (size_t i = start; i < records_.size(); ++i) {
    if (!op || (records_[i].served && records_[i].op == *op)) s.calls.push_back(records_[i]);
  }
  return s;
}

void CallLog::clear() {
  std::lock_guard<std::mutex> lock(mu_);
  // Records stay contiguous by seq (end() indexes by offset), so calls still
  // in flight keep their slot; the floor hides everything older.
  floor_seq_ = next_seq_;
  while (!records_.empty() && records_.front().code) records_.pop_front();
  counts_ = {};
  unserved_counts_.clear();
}

}  // namespace fakecri
