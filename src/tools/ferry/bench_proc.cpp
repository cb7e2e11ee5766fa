#include "tools/ferry/bench_proc.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <deque>
#include <fstream>
#include <thread>

#include "tools/ferry/stop_signals.h"

extern char** environ;

namespace ferry::tools::bench {
namespace {

// The child leads a process group of its own, so that a timeout can end the launcher and
// its ranks together; but then neither the terminal's Ctrl-C nor a signal sent to `ferry
// bench` reaches them. These pass SIGINT, SIGTERM and SIGHUP on to the running child's group,
// and `ferry bench` stops once it has ended.
volatile sig_atomic_t gChildGroup = 0;
volatile sig_atomic_t gStopSignal = 0;
constexpr double kStopGraceSeconds = 10;  // then SIGKILL: a launcher may wait on a stuck rank

void onStopSignal(int sig, siginfo_t*, void*) {
  gStopSignal = sig;
  if (gChildGroup > 0) {
    kill(-static_cast<pid_t>(gChildGroup), sig);
    return;
  }
  signal(sig, SIG_DFL);  // no child runs: stop now
  raise(sig);
}

void forwardStopSignals() {
  static const bool installed = [] {
    handleStopSignals(onStopSignal);
    return true;
  }();
  (void)installed;
}

// After the child a stop signal ended: this process ends of the same signal, as a shell's
// foreground job would, so that scripts see it; nothing more is started.
void stopIfSignalled(const std::string& logPath) {
  int sig = gStopSignal;
  if (!sig) return;
  std::fprintf(stderr, "ferry bench: stopped by %s; the run in progress was ended (its output: %s)\n", strsignal(sig),
               logPath.c_str());
  dieOfSignal(sig);
}

std::vector<std::string> childEnvironment(const std::map<std::string, std::optional<std::string>>& changes) {
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry(*e);
    std::string name = entry.substr(0, entry.find('='));
    if (!changes.count(name)) env.push_back(entry);
  }
  for (const auto& [name, value] : changes)
    if (value) env.push_back(name + "=" + *value);
  return env;
}

std::vector<char*> cStrings(std::vector<std::string>& v) {
  std::vector<char*> out;
  for (auto& s : v) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Waits for `pid` up to `timeout`; kills its process group when the time is up.
ChildResult waitFor(pid_t pid, double timeout) {
  using Clock = std::chrono::steady_clock;
  auto start = Clock::now();
  ChildResult r;
  int status = 0;
  std::optional<Clock::time_point> stopAsked;
  bool killed = false;
  for (;;) {
    pid_t done = waitpid(pid, &status, WNOHANG);
    if (done == pid) break;
    if (done < 0 && errno != EINTR) break;
    auto now = Clock::now();
    double elapsed = std::chrono::duration<double>(now - start).count();
    if (gStopSignal && !stopAsked) stopAsked = now;
    bool stopOverdue = stopAsked && std::chrono::duration<double>(now - *stopAsked).count() > kStopGraceSeconds;
    if (!killed && (elapsed > timeout || stopOverdue)) {
      r.timedOut = !stopAsked;
      killed = true;
      kill(-pid, SIGKILL);  // the child leads its own group: this ends the launcher and its ranks
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - start).count();
  r.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

}  // namespace

Result<ChildResult> runChild(const ChildSpec& spec) {
  std::vector<std::string> argv = spec.argv;
  std::vector<std::string> env = childEnvironment(spec.env);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, spec.logPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  // Stop signals stay blocked from before the spawn until the child's group is recorded, so
  // that none can arrive in between and leave the child running; the child starts with this
  // process's mask as it was.
  forwardStopSignals();
  StopSignalsHeld held;
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setsigmask(&attr, &held.callersMask());
  std::vector<char*> cargv = cStrings(argv), cenv = cStrings(env);
  pid_t pid = -1;
  int rc = posix_spawnp(&pid, argv[0].c_str(), &files, &attr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc == 0) gChildGroup = pid;
  held.release();
  if (rc != 0) return Status(Errc::NotFound, "cannot start " + argv[0] + ": " + std::strerror(rc));
  ChildResult result = waitFor(pid, spec.timeoutSeconds);
  gChildGroup = 0;
  stopIfSignalled(spec.logPath);
  return result;
}

std::string tailOf(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(line);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += "    " + l + "\n";
  return out;
}

std::string withoutPathEntry(const std::string& path, const std::string& dir) {
  std::string out;
  size_t start = 0;
  while (start <= path.size()) {
    size_t end = path.find(':', start);
    std::string part = path.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!part.empty() && part != dir) out += (out.empty() ? "" : ":") + part;
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace ferry::tools::bench
