// `ferry serve`: the device service as a daemon that host programs reach over a channel
// instead of MPI (issue 28). The listener accepts connections and forks one worker process
// per connection, so that one client's crash or leak never touches another and everything a
// client held goes with its worker. A worker authenticates its client (comm/channel_auth.h),
// announces its devices, and runs service::serve() on a ChannelTransport: the same server the
// MPI ranks run.
#pragma once

#include <memory>
#include <string>

#include <CLI/CLI.hpp>

#include "platform/net_address.h"

namespace ferry::tools {

struct DaemonOptions {
  NetAddress listen;
  std::string tokenFile;
  bool allowRoot = false;
  bool background = false;  // --daemon: detach once listening; log to logFile
  std::string logFile;      // --log-file (background only; /dev/null when empty)
  std::string pidFile;      // --pid-file
  std::string tlsCert;      // --tls-cert: TLS on every connection (with --tls-key)
  std::string tlsKey;       // --tls-key
};

// Serves until SIGTERM or SIGINT; returns the exit status (0 after a signal, 1 when it could
// not start).
int runDaemon(const DaemonOptions& opt);

// The options of `ferry serve` and of the stand-alone ferry-serve (serve_options.cpp), and
// what runs once they are parsed: checks the address, then runDaemon().
struct ServeCommandLine {
  DaemonOptions options;
  std::string listen = "127.0.0.1:7010";
};
void addServeOptions(CLI::App& app, ServeCommandLine& line);
int startDaemon(ServeCommandLine& line);

}  // namespace ferry::tools
