// A bound on a wait that involves every rank of the job (start-up, the end), where a rank
// that is stopped (SIGSTOP, a debugger, a hung node) neither answers nor dies, so the
// launcher never ends the job. Past the bound this process says what did not complete and
// exits, which the launcher does act on.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace ferry::comm {

// The bound of the start-up's waits: FERRY_TIMEOUT, but at least 30 s. A timeout lowered
// for fast fault detection while the job runs must not cut a start that is only slow (a
// GPU's initialisation, a loaded node).
double startUpSeconds();
// The bound of the end's waits (the FERRY_TRACE gather, MPI_Finalize): FERRY_TIMEOUT on rank
// 0, half as long again on the others. Rank 0 is where the user reads the job's report, and
// its bound starts later than theirs (it finishes main first): with equal bounds a serving
// rank's watchdog could end the job before rank 0 said what it waited for.
double endOfJobSeconds(int rank);

class Watchdog {
 public:
  // `what` completes in this object's lifetime, or after `seconds` the process ends with
  // "<what> on rank <rank> has not completed after <seconds> s: ...".
  Watchdog(std::string what, double seconds, int rank);
  ~Watchdog();
  Watchdog(const Watchdog&) = delete;
  Watchdog& operator=(const Watchdog&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable done_;
  bool finished_ = false;
  std::thread thread_;  // last: starts once the members above exist
};

}  // namespace ferry::comm
