#include "common/periodic_tasks.h"

#include <gtest/gtest.h>

#include <atomic>
#include <vector>

#include "fake_clock.h"
#include "pipe_task.h"

namespace plegscope {
namespace {

using namespace std::chrono_literals;
using testing::FakeClock;
using testing::PipeTask;

TEST(PeriodicTasks, EachJobRunsOnItsOwnInterval) {
  FakeClock clock;
  PeriodicTasks tasks("test-timers", clock);
  std::vector<int> runs;
  tasks.every(1s, [&] { runs.push_back(1); });
  tasks.every(3s, [&] { runs.push_back(3); });
  const MonoTime start = clock.monotonic();
  EXPECT_EQ(tasks.run_due(), start + 1s) << "both run at once, the next is due in 1 s";
  EXPECT_EQ(runs, (std::vector<int>{1, 3}));
  clock.step(1s);
  EXPECT_EQ(tasks.run_due(), start + 2s);
  clock.step(1s);
  tasks.run_due();
  clock.step(1s);
  tasks.run_due();
  EXPECT_EQ(runs, (std::vector<int>{1, 3, 1, 1, 1, 3}));
}

TEST(PeriodicTasks, ASlowJobDelaysOnlyItsOwnNextRun) {
  FakeClock clock;
  PeriodicTasks tasks("test-timers", clock);
  int slow = 0, fast = 0;
  tasks.every(1s, [&] { ++fast; });
  tasks.every(1s, [&] {
    ++slow;
    clock.step(5s);  // the job took 5 s
  });
  const MonoTime start = clock.monotonic();
  EXPECT_EQ(tasks.run_due(), start + 1s) << "the fast job ran before the slow one and is due first";
  EXPECT_EQ(tasks.run_due(), start + 6s) << "one run of each missed interval is not stacked";
  EXPECT_EQ(fast, 2);
  EXPECT_EQ(slow, 1);
}

TEST(PeriodicTasks, TheThreadRunsJobsAndStopsAtOnce) {
  FakeClock clock;
  PeriodicTasks tasks("test-timers", clock);
  std::atomic<int> runs{0};
  tasks.every(1h, [&] { ++runs; });
  size_t waits = clock.waits();
  tasks.start();
  ASSERT_TRUE(clock.wait_for_waits(waits + 1)) << "the thread ran the job and sleeps until the next";
  EXPECT_EQ(runs, 1);
  waits = clock.waits();
  clock.step(1h);
  ASSERT_TRUE(clock.wait_for_waits(waits + 1));
  EXPECT_EQ(runs, 2);
  tasks.stop();  // the next run is an hour away: stop() wakes the thread
  EXPECT_EQ(runs, 2);
}

TEST(PeriodicTasks, NoJobNoThread) {
  FakeClock clock;
  PeriodicTasks tasks("test-timers", clock);
  EXPECT_TRUE(tasks.empty());
  tasks.start();
  tasks.stop();
}

TEST(PeriodicTasks, TheThreadServesItsTaskWhenItsFdTurnsReadable) {
  FakeClock clock;
  PeriodicTasks tasks("test-readers", clock);
  PipeTask task;
  std::atomic<int> runs{0};
  tasks.every(1h, [&] { ++runs; });
  tasks.serve(task);
  tasks.start();
  task.poke();
  ASSERT_TRUE(task.wait_runs(1)) << "the thread, an hour from its next job, woke for the task's fd";
  task.poke();
  ASSERT_TRUE(task.wait_runs(2));
  tasks.stop();  // the job and the task are an hour away: stop() wakes the wait at once
  EXPECT_EQ(runs, 1);
  EXPECT_EQ(task.runs(), 2) << "the task ran when its fd was readable, never otherwise";
}

TEST(PeriodicTasks, ATaskThatComesDueRunsWithoutItsFd) {
  FakeClock clock;
  PeriodicTasks tasks("test-readers", clock);
  PipeTask task;
  task.due_now = true;
  tasks.serve(task);  // a task alone is enough for a thread
  tasks.start();
  ASSERT_TRUE(task.wait_runs(1));
  tasks.stop();
  EXPECT_EQ(task.runs(), 1) << "once run, it is an hour away again";
}

TEST(PeriodicTasks, ATaskNeverRunsInsideItself) {
  FakeClock clock;
  PeriodicTasks tasks("test-readers", clock);
  PipeTask task;
  std::atomic<bool> nested{false};
  // A wait inside the task's own run() that would serve it (due at once).
  std::atomic<int> depth{0};
  task.on_run = [&] {
    if (++depth == 1) {
      task.due_now = true;
      serve_task_if_ready(task, nullptr);
      task.due_now = false;
    } else {
      nested = true;
    }
    --depth;
  };
  tasks.serve(task);
  tasks.start();
  task.poke();
  ASSERT_TRUE(task.wait_runs(1));
  tasks.stop();
  EXPECT_FALSE(nested) << "while it runs, a wait of its own must not serve it again";
}

}  // namespace
}  // namespace plegscope
