#include "tools/ferry/daemon.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <set>

#include "comm/channel_auth.h"
#include "comm/channel_socket.h"
#include "comm/channel_tls.h"
#include "comm/channel_transport.h"
#include "platform/config.h"
#include "platform/log.h"
#include "platform/parse.h"
#include "platform/topology.h"
#include "service/announcement.h"
#include "service/discovery.h"
#include "service/serving.h"

namespace ferry::tools {
namespace {

std::atomic<bool> gStop{false};

void onStopSignal(int) { gStop.store(true); }

// Each client's CPU devices share FERRY_SERVE_MAX_MEMORY, or the machine's memory divided
// among FERRY_SERVE_MAX_CLIENTS: heaps are reserved without backing, so without a share each
// of several clients could be promised the whole machine, and the OOM killer would decide.
uint64_t clientMemoryPerDevice(const std::string& client) {
  uint64_t total = config().size(Knob::ServeMaxMemory);
  if (total == 0)
    total = nodeTopology().memoryBytes / static_cast<uint64_t>(config().integer(Knob::ServeMaxClients));
  const uint64_t devices = static_cast<uint64_t>(std::max<int64_t>(1, config().integer(Knob::DevicesPerRank)));
  log::info(log::Service, "client %s: %s of CPU device memory in all (FERRY_SERVE_MAX_MEMORY)", client.c_str(),
            parse::formatSize(total).c_str());
  return std::max<uint64_t>(total / devices, 1 << 20);
}

// One connection, in a process of its own: authenticate, announce, serve, exit.
[[noreturn]] void runWorker(int fd, const std::string& client, const comm::ChannelToken& token,
                            const DaemonOptions& opt) {
  static std::string label;  // log lines keep pointing at it: it lives as long as the worker
  label = "serve " + client;
  log::setLabel(label.c_str());
  std::signal(SIGTERM, SIG_DFL);
  std::signal(SIGINT, SIG_DFL);
  const double timeout = config().seconds(Knob::Timeout);
  comm::tuneChannelSocket(fd, timeout);
  auto io = opt.tlsCert.empty() ? Result<std::unique_ptr<comm::ChannelIo>>(comm::plainChannelIo(fd, "client " + client))
                                : comm::tlsAccept(fd, {opt.tlsCert, opt.tlsKey}, "client " + client, timeout);
  if (!io) {
    log::warn(log::Service, "refused client %s: %s", client.c_str(), io.status().message().c_str());
    _exit(1);
  }
  auto transport =
      std::make_unique<comm::ChannelTransport>(std::move(io.value()), 1, "daemon " + opt.listen.text, "client " + client);
  auto devices = service::discoverLocalDevices(1, clientMemoryPerDevice(client));
  if (!devices) {
    log::error(log::Service, "client %s: no devices to serve: %s", client.c_str(), devices.status().message().c_str());
    _exit(1);
  }
  auto announcement = service::encodeAnnouncement(service::describeDevices(*devices));
  if (Status st = comm::authenticateClient(*transport, token, announcement, timeout); !st) {
    log::warn(log::Service, "refused client %s: %s", client.c_str(), st.message().c_str());
    _exit(1);
  }
  log::info(log::Service, "client %s authenticated; serving %zu device(s)", client.c_str(), devices->size());
  std::vector<int> ids;
  for (size_t i = 0; i < devices->size(); ++i) ids.push_back(static_cast<int>(i));
  service::ServeOutcome out = service::serve(std::move(transport), std::move(devices.value()), std::move(ids),
                                             config().size(Knob::ServeMaxImage), "FERRY_SERVE_MAX_IMAGE");
  if (out.status.isOk()) log::info(log::Service, "client %s is done", client.c_str());
  else log::warn(log::Service, "client %s: serving ended: %s", client.c_str(), out.status.message().c_str());
  service::exitServingProcess(out.status.isOk());
}

void reapWorkers(std::set<pid_t>& workers) {
  int status = 0;
  for (pid_t pid; (pid = ::waitpid(-1, &status, WNOHANG)) > 0;) {
    workers.erase(pid);
    if (WIFSIGNALED(status))
      log::warn(log::Service, "worker %d ended by signal %d (its client's work is lost; others go on)",
                static_cast<int>(pid), WTERMSIG(status));
  }
}

void acceptClients(int listener, const DaemonOptions& opt, const comm::ChannelToken& token) {
  std::set<pid_t> workers;
  const size_t maxClients = static_cast<size_t>(config().integer(Knob::ServeMaxClients));
  while (!gStop.load()) {
    pollfd p{listener, POLLIN, 0};
    ::poll(&p, 1, 200);
    reapWorkers(workers);
    std::string client;
    auto fd = comm::acceptOne(listener, client);
    if (!fd) {
      log::error(log::Service, "%s", fd.status().message().c_str());
      continue;
    }
    if (*fd < 0) continue;
    if (workers.size() >= maxClients) {
      log::warn(log::Service, "refused client %s: %zu clients are served already (FERRY_SERVE_MAX_CLIENTS=%zu)",
                client.c_str(), workers.size(), maxClients);
      ::close(*fd);
      continue;
    }
    pid_t pid = ::fork();
    if (pid == 0) {
      ::close(listener);
      runWorker(*fd, client, token, opt);
    }
    ::close(*fd);
    if (pid < 0) log::error(log::Service, "cannot start a worker for client %s", client.c_str());
    else workers.insert(pid), log::info(log::Service, "client %s connected (worker %d)", client.c_str(), int(pid));
  }
  for (pid_t w : workers) ::kill(w, SIGTERM);
  while (!workers.empty() && ::wait(nullptr) > 0) reapWorkers(workers);
}

// --daemon: detached from the terminal once the socket listens, so that a start that fails
// (the address, the token) still fails in front of the user.
Status detach(const DaemonOptions& opt) {
  int log = ::open(opt.logFile.empty() ? "/dev/null" : opt.logFile.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                   0600);
  if (log < 0) return Status(Errc::InvalidArgument, "--log-file " + opt.logFile + ": " + std::strerror(errno));
  pid_t first = ::fork();
  if (first < 0) return Status(Errc::Internal, "fork failed");
  if (first > 0) _exit(0);
  ::setsid();
  pid_t second = ::fork();
  if (second > 0) _exit(0);
  int null = ::open("/dev/null", O_RDONLY);
  ::dup2(null, 0);
  ::dup2(log, 1);
  ::dup2(log, 2);
  ::close(null);
  ::close(log);
  if (!opt.pidFile.empty()) {
    FILE* f = std::fopen(opt.pidFile.c_str(), "w");
    if (!f) return Status(Errc::InvalidArgument, "--pid-file " + opt.pidFile + ": " + std::strerror(errno));
    std::fprintf(f, "%d\n", static_cast<int>(::getpid()));
    std::fclose(f);
  }
  if (::chdir("/") != 0) return Status(Errc::Internal, "chdir / failed");  // holds no file system busy
  return {};
}

}  // namespace

int runDaemon(const DaemonOptions& opt) {
  if (::geteuid() == 0 && !opt.allowRoot) {
    log::error(log::Service, "ferry serve runs code its clients send, and refuses to do so as root; run it as an "
                             "unprivileged user, or pass --allow-root where root is what you mean");
    return 1;
  }
  auto token = comm::readTokenFile(opt.tokenFile);
  if (!token) {
    log::error(log::Service, "%s", token.status().message().c_str());
    return 1;
  }
  if (!opt.tlsCert.empty())
    if (Status st = comm::checkTlsServerOptions({opt.tlsCert, opt.tlsKey}); !st) {
      log::error(log::Service, "%s", st.message().c_str());
      return 1;
    }
  auto listener = comm::listenOn(opt.listen);
  if (!listener) {
    log::error(log::Service, "%s", listener.status().message().c_str());
    return 1;
  }
  std::signal(SIGTERM, onStopSignal);
  std::signal(SIGINT, onStopSignal);
  std::signal(SIGPIPE, SIG_IGN);
  const bool loopback = opt.listen.kind == NetAddress::Kind::Unix || opt.listen.host == "127.0.0.1" ||
                        opt.listen.host == "::1" || opt.listen.host == "localhost";
  if (!loopback && opt.tlsCert.empty())
    log::warn(log::Service, "listening on %s without TLS: the token authenticates, but data and kernel arguments "
                            "travel in clear; give --tls-cert and --tls-key beyond a link you trust",
              opt.listen.text.c_str());
  std::fprintf(stderr, "ferry serve: listening on %s%s%s\n", opt.listen.text.c_str(),
               opt.tlsCert.empty() ? "" : " with TLS",
               opt.background ? (", in the background (log: " + (opt.logFile.empty() ? std::string("none") : opt.logFile) + ")").c_str() : "");
  if (opt.background)
    if (Status st = detach(opt); !st) {
      log::error(log::Service, "%s", st.message().c_str());
      return 1;
    }
  log::info(log::Service, "listening on %s", opt.listen.text.c_str());
  acceptClients(*listener, opt, *token);
  ::close(*listener);
  if (opt.listen.kind == NetAddress::Kind::Unix) ::unlink(opt.listen.path.c_str());
  return 0;
}

}  // namespace ferry::tools
