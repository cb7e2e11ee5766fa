// A serving process's life around its Server: the start (the server on its transport, the
// job-wide device numbers, where kernels' output goes), the serving itself, and the end of a
// process that never ran main. The same for every transport: a serving MPI rank and a
// daemon's worker differ only in the transport they pass in and in what they do after.
#pragma once

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "comm/transport.h"
#include "platform/status.h"
#include "service/local_device.h"

namespace ferry::service {

class Server;

struct ServeOutcome {
  Status status;            // why serving stopped early; OK after a Shutdown
  bool lostIssuer = false;  // the issuer (rank 0) stopped answering its liveness probes
};

// Serves `devices` (numbered `globalIds` in the job's table) over `transport` until the
// issuer sends Shutdown. Kernels' stdout goes to the issuer in order with the replies
// (FERRY_DEVICE_OUTPUT=ordered) or straight to this process's stdout, a line at a time.
// `transferLimit`: the largest image or transfer a client may send (0: none), named by
// `limitSetting` in the error (a daemon's FERRY_SERVE_MAX_IMAGE).
// `sleepWhenIdle`: Server::setSleepWhenIdle.
ServeOutcome serve(std::unique_ptr<comm::Transport> transport, std::vector<std::unique_ptr<LocalDevice>> devices,
                   std::vector<int> globalIds, uint64_t transferLimit = 0, std::string limitSetting = {},
                   bool sleepWhenIdle = true);

// A server on a thread of a process that runs main too (rank 0's own devices,
// FERRY_RANK0_DEVICES). A server that stops with an error calls `endJob` (which does not
// return): main's waits could not finish without it, and only the caller knows how its job
// ends (MPI: MPI_Abort).
class ServerThread {
 public:
  using EndJob = void (*)();
  ServerThread(std::unique_ptr<comm::Transport> transport, std::vector<std::unique_ptr<LocalDevice>> devices,
               std::vector<int> globalIds, EndJob endJob);
  ~ServerThread();
  // Waits for the server to finish (after the issuer sent it Shutdown) and destroys it, so
  // that no receive of its stays posted.
  void join();

 private:
  std::unique_ptr<Server> server_;
  std::thread thread_;
};

// The end of a process that served and never ran main: its streams flushed, the OpenMP
// runtime ended (its /dev/shm entry removed), the leak check of sanitized builds, then
// _exit, so that no destructor of the application runs.
[[noreturn]] void exitServingProcess(bool ok);

}  // namespace ferry::service
