#include "offload/wait_report.h"

#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>

#include "platform/log.h"
#include "platform/omp_registry.h"
#include "platform/signals.h"

namespace ferry::offload {
namespace {

// Set up once, read by the handler; the handler may only use async-signal-safe calls (it
// also uses snprintf into a local buffer, which glibc makes safe for these conversions).
std::atomic<const char*> gWhat{nullptr};
std::atomic<int> gDevice{-1};
std::vector<std::string>* gWhere = nullptr;
char gPrefix[256];
char gAbortAfterFailure[512];
char gAbortOwn[768];
std::atomic<bool> gFailed{false};

// Rank 0 dies of the signal it got: the launcher then ends the job (and a serving rank that
// outlives it notices within FERRY_TIMEOUT), and the job's status reports the crash.
void onAbort(int sig) {
  const char* note = gFailed.load() ? gAbortAfterFailure : gAbortOwn;
  log::writeRaw(note, std::strlen(note));
  removeOpenMpRegistrations();
  signal(sig, SIG_DFL);
  raise(sig);
}

void onTermination(int sig) {
  const char* what = gWhat.load();
  int device = gDevice.load();
  if (what) {
    const char* where = gWhere && device >= 0 && device < static_cast<int>(gWhere->size()) ? (*gWhere)[device].c_str() : "";
    char line[1400];
    int n = std::snprintf(line, sizeof line,
                          "%sterminated by signal %d while waiting for %s%s%s; the launcher sends it when the job "
                          "is stopped or when a rank has died (its message then says which)\n",
                          gPrefix, sig, what, *where ? " on " : "", where);
    if (n > 0) log::writeRaw(line, static_cast<size_t>(n));
  }
  removeOpenMpRegistrations();
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void noteWait(const char* what, int device) {
  gDevice.store(device, std::memory_order_relaxed);
  gWhat.store(what, std::memory_order_relaxed);
}

void clearWait() { gWhat.store(nullptr, std::memory_order_relaxed); }

void noteOffloadFailure() { gFailed.store(true); }

void installTerminationReport(const std::string& devices, std::vector<std::string> where) {
  gWhere = new std::vector<std::string>(std::move(where));
  std::snprintf(gPrefix, sizeof gPrefix, "%s", log::linePrefix(log::Level::Error, log::Offload).c_str());
  std::snprintf(gAbortAfterFailure, sizeof gAbortAfterFailure,
                "%srank 0 aborted after the failed offload operation above; this job has %s (`ferry info` prints "
                "the table, FERRY_LOG=debug,offload shows each operation)\n",
                gPrefix, devices.c_str());
  std::snprintf(gAbortOwn, sizeof gAbortOwn,
                "%srank 0 aborted (SIGABRT), and no offload operation had failed: the program or a library it "
                "calls aborted (an assert, abort(), or libomptarget on a device number the job lacks: this job has %s; "
                "more ranks, or FERRY_DEVICES_PER_RANK, give it more devices)\n",
                gPrefix, devices.c_str());
  struct sigaction sa {};
  sa.sa_handler = onTermination;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) handleUnlessIgnored(sig, sa);
  struct sigaction ab {};
  ab.sa_handler = onAbort;
  sigemptyset(&ab.sa_mask);
  sigaction(SIGABRT, &ab, nullptr);
}

}  // namespace ferry::offload
