// The command line of the device daemon, shared by `ferry serve` (the CLI of a host with
// MPI) and ferry-serve (the stand-alone binary a co-processor runs: serve_main.cpp).
#include <cstdio>

#include "tools/ferry/daemon.h"

namespace ferry::tools {

void addServeOptions(CLI::App& app, ServeCommandLine& line) {
  DaemonOptions& opt = line.options;
  app.add_option("--listen", line.listen,
                 "HOST:PORT or unix:PATH to listen on (loopback unless an address is given: the daemon runs the code "
                 "its clients send)")
      ->capture_default_str();
  app.add_option("--token-file", opt.tokenFile,
                 "the shared secret clients must prove they hold (mode 600; `openssl rand -hex 32 > FILE`)")
      ->required();
  app.add_flag("--allow-root", opt.allowRoot, "run as root (refused otherwise)");
  app.add_flag("--daemon", opt.background, "detach once listening (default: stay in the foreground, as systemd wants)");
  app.add_option("--log-file", opt.logFile, "with --daemon: where the log goes (appended; none when not given)");
  app.add_option("--pid-file", opt.pidFile, "with --daemon: write the daemon's process id here");
  app.add_option("--tls-cert", opt.tlsCert,
                 "PEM certificate (chain) to speak TLS with on every connection, for channels beyond loopback; "
                 "clients set FERRY_REMOTE_TLS=1 and check it against FERRY_REMOTE_TLS_CA")
      ->needs(app.add_option("--tls-key", opt.tlsKey, "the PEM private key of --tls-cert"));
  app.footer("Each client gets a worker process of its own; FERRY_SERVE_MAX_CLIENTS limits them. Host programs "
             "find the daemon's devices with FERRY_REMOTE=ADDRESS and FERRY_REMOTE_TOKEN_FILE=FILE. Runs in the "
             "foreground unless --daemon; under systemd see docs/daemon.md.");
}

int startDaemon(ServeCommandLine& line) {
  auto addr = parseNetAddress(line.listen);
  if (!addr) {
    std::fprintf(stderr, "ferry serve: %s\n", addr.status().message().c_str());
    return 2;
  }
  line.options.listen = *addr;
  return runDaemon(line.options);
}

}  // namespace ferry::tools
