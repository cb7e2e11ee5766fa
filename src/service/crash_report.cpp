#include "service/crash_report.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>

#include "platform/log.h"

namespace ferry::service {
namespace {

// Fixed buffers: the handler may only use async-signal-safe calls.
std::atomic<const char*> gActivity{nullptr};
char gPrefix[256];

void onFatal(int sig) {
  char line[1024];
  const char* what = gActivity.load();
  int n = std::snprintf(line, sizeof line, "%s%s (signal %d) %s%s\n", gPrefix, strsignal(sig), sig,
                        what ? "while running " : "while idle", what ? what : "");
  if (n > 0) (void)!write(STDERR_FILENO, line, static_cast<size_t>(n));
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void installCrashReport() {
  std::snprintf(gPrefix, sizeof gPrefix, "%sserving rank crashed: ",
                log::linePrefix(log::Level::Error, log::Service).c_str());
  struct sigaction sa {};
  sa.sa_handler = onFatal;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
}

void setActivity(const char* what) { gActivity.store(what, std::memory_order_relaxed); }

void clearActivity() { gActivity.store(nullptr, std::memory_order_relaxed); }

}  // namespace ferry::service
