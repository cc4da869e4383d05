#include "host/cmdline_reader.h"

#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <utility>

#include "host/host_files.h"
#include "common/thread_name.h"

namespace plegscope::host {

using Key = std::pair<int64_t, uint64_t>;
using SteadyClock = std::chrono::steady_clock;

static CmdlineAnswer blocked_answer() {
  CmdlineAnswer a;
  a.status = CmdlineAnswer::Status::kBlocked;
  return a;
}

struct CmdlineReader::State {
  std::string proc_path;
  Options options;
  std::mutex mu;
  std::condition_variable changed;
  std::deque<CmdlineRequest> queue;
  std::set<Key> queued;
  std::map<Key, CmdlineAnswer> answers;
  // The worker of the current generation; older ones are abandoned (stuck).
  uint64_t generation = 0;
  int live_workers = 0;
  bool reading = false;
  Key reading_key{};
  SteadyClock::time_point reading_since{};
  bool stopping = false;
  bool active = true;  // a worker not stuck serves the queue

  // Whether a worker of the current generation is alive. A worker exits once
  // the queue is empty: helpers are read once each (the answers are kept),
  // so on a steady node no thread waits for work that comes only when a
  // new shim or conmon starts.
  bool serving = false;

  void start_worker(std::shared_ptr<State> self) {
    ++live_workers;
    serving = true;
    uint64_t mine = generation;
    std::thread([self, mine] { self->work(mine); }).detach();
  }

  void work(uint64_t mine) {
    name_this_thread("cmdline-read");
    std::unique_lock<std::mutex> lock(mu);
    while (!stopping && generation == mine && !queue.empty()) {
      CmdlineRequest request = queue.front();
      queue.pop_front();
      Key key{request.pid, request.starttime};
      queued.erase(key);
      reading = true;
      reading_key = key;
      reading_since = SteadyClock::now();
      lock.unlock();
      FileText file = read_small_file(proc_path + "/" + std::to_string(request.pid) + "/cmdline", 16 * 1024);
      CmdlineAnswer answer;
      if (!file.ok) {
        answer.status = CmdlineAnswer::Status::kUnreadable;
      } else if (auto owner = parse_helper_owner(file.text, request.role)) {
        answer.status = CmdlineAnswer::Status::kKnown;
        answer.owner_id = *owner;
      } else {
        answer.status = CmdlineAnswer::Status::kNoOwner;
      }
      if (file.ok && request.role == RuntimeRole::kShim) {
        answer.address = parse_shim_address(file.text).value_or("");
        answer.name_space = parse_shim_namespace(file.text).value_or("");
      }
      lock.lock();
      if (generation != mine) break;  // declared stuck meanwhile: its answer stays "blocked"
      reading = false;
      answers[key] = answer;
      changed.notify_all();
    }
    if (generation == mine) serving = false;
    --live_workers;
  }
};

CmdlineReader::CmdlineReader(std::string proc_path, Options options) : state_(std::make_shared<State>()) {
  state_->proc_path = std::move(proc_path);
  state_->options = options;
}

CmdlineReader::~CmdlineReader() {
  std::lock_guard<std::mutex> lock(state_->mu);
  state_->stopping = true;
  state_->changed.notify_all();
}

std::vector<CmdlineAnswer> CmdlineReader::resolve(const std::vector<CmdlineRequest>& requests) {
  State& s = *state_;
  auto deadline = SteadyClock::now() + s.options.wait;
  std::unique_lock<std::mutex> lock(s.mu);
  auto check_stuck = [&] {
    if (!s.reading || SteadyClock::now() - s.reading_since < s.options.stuck_after) return;
    s.answers[s.reading_key] = blocked_answer();
    s.reading = false;
    ++s.generation;  // abandon the stuck worker
    s.changed.notify_all();
    // Every live worker is now a stuck one.
    s.serving = false;
    s.active = s.live_workers < s.options.max_stuck_workers && !s.stopping;
    if (s.active && !s.queue.empty()) s.start_worker(state_);
  };
  check_stuck();
  bool can_read = s.active;
  for (const auto& r : requests) {
    Key key{r.pid, r.starttime};
    if (s.answers.count(key) || s.queued.count(key) || (s.reading && s.reading_key == key)) continue;
    if (!can_read) {
      s.answers[key] = blocked_answer();
      continue;
    }
    s.queue.push_back(r);
    s.queued.insert(key);
  }
  if (!s.queue.empty() && !s.serving && s.active) s.start_worker(state_);
  s.changed.notify_all();
  auto all_answered = [&] {
    for (const auto& r : requests)
      if (!s.answers.count({r.pid, r.starttime})) return false;
    return true;
  };
  s.changed.wait_until(lock, deadline, all_answered);
  check_stuck();
  std::vector<CmdlineAnswer> out;
  out.reserve(requests.size());
  for (const auto& r : requests) {
    auto it = s.answers.find({r.pid, r.starttime});
    out.push_back(it == s.answers.end() ? CmdlineAnswer{} : it->second);
  }
  return out;
}

void CmdlineReader::retain(const std::vector<CmdlineRequest>& alive) {
  std::set<Key> keep;
  for (const auto& r : alive) keep.insert({r.pid, r.starttime});
  std::lock_guard<std::mutex> lock(state_->mu);
  for (auto it = state_->answers.begin(); it != state_->answers.end();)
    it = keep.count(it->first) ? std::next(it) : state_->answers.erase(it);
}

}  // namespace plegscope::host
