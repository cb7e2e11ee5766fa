#include "comm/watchdog.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>

#include "platform/config.h"
#include "platform/log.h"
#include "platform/parse.h"

namespace ferry::comm {

double startUpSeconds() { return std::max(config().seconds(Knob::Timeout), 30.0); }

double endOfJobSeconds(int rank) { return config().seconds(Knob::Timeout) * (rank == 0 ? 1.0 : 1.5); }

Watchdog::Watchdog(std::string what, double seconds, int rank)
    : thread_([this, what = std::move(what), seconds, rank] {
        std::unique_lock lock(mutex_);
        if (done_.wait_for(lock, std::chrono::duration<double>(seconds), [this] { return finished_; })) return;
        log::error(log::Comm,
                   "%s on rank %d has not completed after %s: another rank is stopped or cannot be reached, or this "
                   "step is slower than FERRY_TIMEOUT allows; ending this process so that the launcher ends the job "
                   "(raise FERRY_TIMEOUT if the step is only slow)",
                   what.c_str(), rank, parse::formatSeconds(seconds).c_str());
        _exit(1);
      }) {}

Watchdog::~Watchdog() {
  {
    std::lock_guard lock(mutex_);
    finished_ = true;
  }
  done_.notify_one();
  thread_.join();
}

}  // namespace ferry::comm
