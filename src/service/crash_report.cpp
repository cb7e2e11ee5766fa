#include "service/crash_report.h"

#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <new>

#include "platform/log.h"
#include "platform/main_thread.h"
#include "platform/omp_registry.h"
#include "platform/signals.h"
#include "service/output_capture.h"

namespace ferry::service {
namespace {

// Fixed buffers: the handler may only use async-signal-safe calls.
std::atomic<const char*> gActivity{nullptr};
char gPrefix[256];
const char* gWho = "serving rank";
std::atomic<bool> gExitReport{false};
std::once_flag gExitOnce;
// rank 0's kernels run on its local server's threads, never on its main thread: an exit
// there is main returning, even while one of its devices runs a kernel (a nowait region).
std::atomic<bool> gKernelsOffMainThread{false};
constexpr size_t kCrashStackBytes = 64 * 1024;  // the report formats in buffers on it
// A CrashStack's first bytes, below where the handler's frames can reach: the lowest address
// of the thread's own stack, so that a fault just below it is told as the stack overflowing.
// Read through sigaltstack(), as thread-local storage in a dlopened plugin is not safe to
// touch in a signal handler (its first use may allocate).
struct CrashStackHeader {
  uintptr_t threadStackLow;
};
constexpr size_t kHeaderBytes = 64;
static_assert(sizeof(CrashStackHeader) <= kHeaderBytes);

uintptr_t stackLowOfThisThread() {
  pthread_attr_t attr;
  void* low = nullptr;
  size_t size = 0;
  if (pthread_getattr_np(pthread_self(), &attr) != 0) return 0;
  pthread_attr_getstack(&attr, &low, &size);
  pthread_attr_destroy(&attr);
  return reinterpret_cast<uintptr_t>(low);
}

bool overflowedStack(const void* address) {
  stack_t cur{};
  if (sigaltstack(nullptr, &cur) != 0 || !(cur.ss_flags & SS_ONSTACK)) return false;
  auto* header = reinterpret_cast<const CrashStackHeader*>(static_cast<const char*>(cur.ss_sp) - kHeaderBytes);
  uintptr_t low = header->threadStackLow, a = reinterpret_cast<uintptr_t>(address);
  return low && a < low + 4096 && a + 1024 * 1024 > low;  // guard pages and a little below
}

// A kernel that faults on memory most often dereferenced a pointer whose target no map
// clause gave the device; the address and where to read about it save the user a debugger.
void onFatal(int sig, siginfo_t* info, void*) {
  char line[1400];
  const char* what = gActivity.load();
  bool memory = (sig == SIGSEGV || sig == SIGBUS) && info;
  bool kernel = what && strncmp(what, "kernel ", 7) == 0;
  bool overflow = memory && overflowedStack(info->si_addr);
  char at[64] = "";
  if (memory) std::snprintf(at, sizeof at, " at address %p", info->si_addr);
  int n = std::snprintf(line, sizeof line, "%sserving rank crashed: %s (signal %d)%s %s%s%s\n", gPrefix,
                        strsignal(sig), sig, at, what ? "while running " : "while idle", what ? what : "",
                        overflow ? "; that is past the end of the thread's stack: the kernel overflowed it (deep "
                                   "recursion, large local arrays). Raise the serving ranks' stack limit to a larger "
                                   "finite value (ulimit -s before the launcher; unlimited gives threads 2 MiB), and "
                                   "OMP_STACKSIZE for a kernel's parallel threads"
                        : memory && kernel ? "; a kernel faults so when it dereferences memory that no map clause "
                                             "gave the device (docs/user-guide.md, \"Host memory a kernel was never "
                                             "given\")"
                                           : "");
  if (n > 0) log::writeRaw(line, std::min(static_cast<size_t>(n), sizeof line - 1));
  salvageCapturedOutput();  // what the kernel printed before it crashed
  removeOpenMpRegistrations();
  signal(sig, SIG_DFL);
  raise(sig);
}

// exit() from a kernel ends this rank, which the launcher reports only as a rank that ended
// early. Say which kernel did it, keep what it printed, and end with a failure status even
// for exit(0) (or 256): a serving rank never ends on its own, and one that does without
// MPI_Finalize would leave MPICH's other ranks waiting. _exit, because the remaining exit
// handlers would wait for the device that runs this very kernel (rank 0's own devices) and
// destructors would run under the server's other threads. Any thread's exit counts: a
// kernel's parallel regions run on libomp's threads, and Ferry's own exits (at start-up,
// after serving) never happen while a kernel runs.
void onExit(int status, void*) {
  const char* what = gActivity.load();
  if (!what) return;  // the rank's own end
  if (gKernelsOffMainThread.load() && onMainThread()) return;  // rank 0's main returned
  int code = (status & 0xff) ? (status & 0xff) : 1;
  char line[1400];
  int n = std::snprintf(line, sizeof line,
                        "%s%s ended: exit(%d) was called while running %s; a target region cannot end the program "
                        "(on a GPU it could not call exit), so the job ends (status %d)\n",
                        gPrefix, gWho, status, what, code);
  if (n > 0) log::writeRaw(line, std::min(static_cast<size_t>(n), sizeof line - 1));
  salvageCapturedOutput();
  _exit(code);
}

// The launcher ends the job (a rank died, scancel, Ctrl-C): this rank dies of the signal, as
// it would have, with libomp's entries removed first (platform/omp_registry.h).
void onTerminated(int sig) {
  removeOpenMpRegistrations();
  signal(sig, SIG_DFL);
  raise(sig);
}

}  // namespace

void installExitReport(const char* who, bool kernelsOffMainThread) {
  gWho = who;
  gKernelsOffMainThread.store(kernelsOffMainThread);
  std::snprintf(gPrefix, sizeof gPrefix, "%s", log::linePrefix(log::Level::Error, log::Service).c_str());
  gExitReport.store(true);
}

CrashStack::CrashStack() {
  void* p = mmap(nullptr, kCrashStackBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return;  // the report then needs room on the thread's own stack
  static_cast<CrashStackHeader*>(p)->threadStackLow = stackLowOfThisThread();
  stack_t ss{};
  ss.ss_sp = static_cast<char*>(p) + kHeaderBytes;
  ss.ss_size = kCrashStackBytes - kHeaderBytes;
  if (sigaltstack(&ss, nullptr) != 0) {
    munmap(p, kCrashStackBytes);
    return;
  }
  stack_ = p;
}

CrashStack::~CrashStack() {
  if (!stack_) return;
  stack_t off{};
  off.ss_flags = SS_DISABLE;
  sigaltstack(&off, nullptr);
  munmap(stack_, kCrashStackBytes);
}

void installCrashReport() {
  installExitReport("serving rank", false);
  // The thread that serves keeps its alternate stack for the process's life: built in static
  // storage, never destroyed. A `static CrashStack* = new CrashStack()` that nothing read was
  // optimised away, leaving an object nothing pointed at (LeakSanitizer, at each serving
  // rank's end).
  alignas(CrashStack) static unsigned char mainThreadStorage[sizeof(CrashStack)];
  [[maybe_unused]] static CrashStack* mainThread = new (mainThreadStorage) CrashStack();
  struct sigaction sa {};
  sa.sa_sigaction = onFatal;
  sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
  sigemptyset(&sa.sa_mask);
  for (int sig : {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT}) sigaction(sig, &sa, nullptr);
  // Only where nothing else handles them (an MPI library may): Ferry's handler changes no
  // behaviour, it only cleans up before the default action.
  struct sigaction term {};
  term.sa_handler = onTerminated;
  sigemptyset(&term.sa_mask);
  for (int sig : {SIGTERM, SIGINT, SIGHUP}) handleIfDefault(sig, term);
}

void setActivity(const char* what) {
  // The exit handler is registered at the first kernel, not at start-up: the plugin starts
  // inside libomptarget's constructor, before the C library registers _dl_fini, which would
  // then run first, and with it the image's unregistration, which waits for the devices.
  if (gExitReport.load(std::memory_order_relaxed)) std::call_once(gExitOnce, [] { on_exit(onExit, nullptr); });
  gActivity.store(what, std::memory_order_relaxed);
}

void clearActivity() { gActivity.store(nullptr, std::memory_order_relaxed); }

}  // namespace ferry::service
