#include "service/serving.h"

#include <dlfcn.h>
#include <unistd.h>

#include <cstdio>

#include "platform/config.h"
#include "platform/log.h"
#include "service/crash_report.h"
#include "service/output_capture.h"
#include "service/server.h"

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace ferry::service {
namespace {

void routeOutput(Server& server) {
  if (config().text(Knob::DeviceOutput) == "ordered") {
    auto capture = OutputCapture::start();
    if (capture) server.forwardOutput(std::move(capture.value()));
    else log::warn(log::Service, "device output goes to this process's stdout: %s", capture.status().message().c_str());
    return;
  }
  // Direct: stdout is the launcher's pipe, so stdio would write it in 4 KiB pieces that
  // split lines, and the launcher would splice other ranks' text into them. One write per
  // line keeps each line whole, as on a terminal.
  setvbuf(stdout, nullptr, _IOLBF, BUFSIZ);
}

// libomp registers each process in /dev/shm (__KMP_REGISTERED_LIB_<pid>_<uid>) and removes
// the entry in its exit handlers, which _exit skips: every serving rank left one behind. A
// hard pause (OpenMP 5.0) ends the runtime, entry included. Looked up, not linked: the
// service does not link libomp, which the program has loaded.
void shutDownOpenMpRuntime() {
  using PauseAll = int (*)(int);
  constexpr int kOmpPauseHard = 2;  // omp_pause_hard in omp.h
  if (auto pause = reinterpret_cast<PauseAll>(dlsym(RTLD_DEFAULT, "omp_pause_resource_all"))) pause(kOmpPauseHard);
}

}  // namespace

ServeOutcome serve(std::unique_ptr<comm::Transport> transport, std::vector<std::unique_ptr<LocalDevice>> devices,
                   std::vector<int> globalIds, uint64_t transferLimit, std::string limitSetting, bool sleepWhenIdle) {
  Server server(std::move(transport), std::move(devices));
  server.setGlobalIds(std::move(globalIds));
  server.setSleepWhenIdle(sleepWhenIdle);
  server.setTransferLimit(transferLimit, std::move(limitSetting));
  routeOutput(server);
  ServeOutcome out;
  out.status = server.run();
  out.lostIssuer = server.lostRank0();
  return out;  // the server goes (its receives withdrawn) before the caller ends MPI
}

ServerThread::ServerThread(std::unique_ptr<comm::Transport> transport,
                           std::vector<std::unique_ptr<LocalDevice>> devices, std::vector<int> globalIds,
                           EndJob endJob)
    : server_(std::make_unique<Server>(std::move(transport), std::move(devices))) {
  // A kernel of this process's own devices that calls exit() would have the image's
  // unregistration wait for the device running it: the report ends the process first.
  installExitReport("rank 0", true);
  server_->setGlobalIds(std::move(globalIds));
  thread_ = std::thread([this, endJob] {
    Status st = server_->run();
    if (st) return;
    log::error(log::Service, "rank 0's own device server stopped: %s", st.message().c_str());
    endJob();
  });
}

ServerThread::~ServerThread() { join(); }

void ServerThread::join() {
  if (thread_.joinable()) thread_.join();
  server_.reset();
}

[[noreturn]] void exitServingProcess(bool ok) {
  // A kernel's last line without a newline (direct output) is still in stdio's buffer.
  std::fflush(nullptr);
  shutDownOpenMpRuntime();
#if defined(__SANITIZE_ADDRESS__)
  // _exit skips LeakSanitizer's check at exit: the ASan build (FERRY_SANITIZE=address) runs it
  // here, so that a serving rank's leaks fail its job as rank 0's do.
  if (__lsan_do_recoverable_leak_check() != 0) _exit(1);
#endif
  _exit(ok ? 0 : 1);
}

}  // namespace ferry::service
