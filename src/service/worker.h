// A thread that runs one device's heavy work (kernels, image loads) when a rank serves
// several devices, so that their kernels overlap. It spins briefly after each job, then
// sleeps on a condition variable, so an idle device costs no core.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <thread>

#include "platform/status.h"

namespace ferry::service {

struct Completion {
  std::atomic<bool> done{false};
  Status status;  // valid once done
};

class Worker {
 public:
  Worker();
  ~Worker();
  std::shared_ptr<Completion> submit(std::function<Status()> job);

 private:
  void loop();
  std::mutex mutex_;
  std::condition_variable cv_;
  std::deque<std::pair<std::function<Status()>, std::shared_ptr<Completion>>> jobs_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace ferry::service
