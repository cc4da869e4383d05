#pragma once
// A ring buffer of the last relists: the measured history every diagnosis
// rests on.
#include <deque>
#include <mutex>
#include <vector>

#include "pleg/relist_record.h"

namespace plegscope {

// Thread-safe.
class RelistRecorder {
 public:
  explicit RelistRecorder(size_t capacity = 600) : capacity_(capacity) {}

  void add(RelistRecord record) {
    std::lock_guard<std::mutex> lock(mu_);
    records_.push_back(std::move(record));
    while (records_.size() > capacity_) records_.pop_front();
  }
  // Oldest first.
  std::vector<RelistRecord> snapshot() const {
    std::lock_guard<std::mutex> lock(mu_);
    return {records_.begin(), records_.end()};
  }
  size_t capacity() const { return capacity_; }

 private:
  const size_t capacity_;
  mutable std::mutex mu_;
  std::deque<RelistRecord> records_;
};

}  // namespace plegscope
