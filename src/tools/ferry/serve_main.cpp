// ferry-serve: the device daemon alone, for a co-processor (a DPU's aarch64 cores) that runs
// no MPI and no offload plugin; the same daemon as `ferry serve` (docs/daemon.md).
#include "platform/init.h"
#include "platform/log.h"
#include "tools/ferry/daemon.h"

int main(int argc, char** argv) {
  CLI::App app{"ferry-serve: serve this machine's devices to Ferry host programs over a socket (a DPU's daemon)"};
  app.set_version_flag("--version", "ferry-serve " FERRY_VERSION);
  ferry::tools::ServeCommandLine line;
  ferry::tools::addServeOptions(app, line);
  CLI11_PARSE(app, argc, argv);
  ferry::log::setLabel("serve");
  (void)ferry::initPlatform();  // a bad FERRY_* value is reported by the registry, and defaults apply
  return ferry::tools::startDaemon(line);
}
