#include "service/worker.h"

#include "platform/trace.h"
#include "service/crash_report.h"

namespace ferry::service {

Worker::Worker() : thread_([this] { loop(); }) {}

Worker::~Worker() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  cv_.notify_one();
  thread_.join();
}

std::shared_ptr<Completion> Worker::submit(std::function<Status()> job) {
  auto c = std::make_shared<Completion>();
  {
    std::lock_guard lock(mutex_);
    jobs_.emplace_back(std::move(job), c);
  }
  cv_.notify_one();
  return c;
}

void Worker::loop() {
  trace::nameThread("device worker");
  CrashStack crashStack;  // this thread runs kernels
  std::unique_lock lock(mutex_);
  while (true) {
    cv_.wait(lock, [this] { return stop_ || !jobs_.empty(); });
    if (stop_ && jobs_.empty()) return;
    auto [job, completion] = std::move(jobs_.front());
    jobs_.pop_front();
    lock.unlock();
    completion->status = job();
    completion->done.store(true, std::memory_order_release);
    lock.lock();
  }
}

}  // namespace ferry::service
