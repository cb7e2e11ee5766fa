// ferry doctor --binding. Each rank's `ferry bind --report` samples its own threads and
// prints one line per thread (platform/thread_report.h); this gathers them from the
// launcher's output, so that what only a view of the whole node shows is said too: ranks
// whose bindings overlap, and cores that stayed idle while another rank's threads shared one.
#include "tools/ferry/doctor_binding.h"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <regex>
#include <string>

#include "platform/binding.h"
#include "platform/log.h"
#include "platform/thread_report.h"

namespace ferry::tools {
namespace {

using HostRanks = std::map<std::string, std::map<int, RankThreads>>;  // host -> rank -> threads

// One line of the launcher's output: a report line is kept, anything else passed through.
void takeLine(const std::string& line, HostRanks& hosts) {
  int rank = -1;
  ThreadRecord t;
  if (!parseReportLine(line, rank, t)) {
    std::fputs(line.c_str(), stdout);
    return;
  }
  static const std::regex hostRe(R"(host=(\S+))");
  std::smatch m;
  std::string host = std::regex_search(line, m, hostRe) ? m[1].str() : "?";
  RankThreads& r = hosts[host][rank];
  r.rank = rank;
  r.host = host;
  if (r.threads.empty()) r.allowed = t.allowed;  // the main thread is reported first
  r.threads.push_back(std::move(t));
}

// Runs argv with its stdout and stderr read here, line by line; returns its wait status.
int runCapturing(const std::vector<std::string>& argv, HostRanks& hosts) {
  int fds[2];
  if (pipe(fds) != 0) return -1;
  pid_t child = fork();
  if (child < 0) return -1;
  if (child == 0) {
    dup2(fds[1], STDOUT_FILENO);
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    close(fds[1]);
    Status st = execCommand(argv);
    std::fprintf(stderr, "ferry doctor: %s\n", st.message().c_str());
    _exit(127);
  }
  close(fds[1]);
  FILE* in = fdopen(fds[0], "r");
  char* buf = nullptr;
  size_t cap = 0;
  while (getline(&buf, &cap, in) > 0) takeLine(buf, hosts);
  std::free(buf);
  std::fclose(in);
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return status;
}

void printTable(const HostRanks& hosts) {
  std::printf("\nBinding report (each rank's threads sampled for a second, a second after it started)\n");
  std::printf("  %-5s %-16s %-8s %-16s %-12s %-12s %s\n", "rank", "host", "thread", "name", "allowed", "ran on", "busy");
  for (const auto& [host, ranks] : hosts)
    for (const auto& [rank, r] : ranks)
      for (const ThreadRecord& t : r.threads)
        std::printf("  %-5d %-16s %-8d %-16s %-12s %-12s %3.0f%%\n", rank, host.c_str(), t.tid, t.name.c_str(),
                    cpuList(t.allowed).c_str(), cpuList(t.ranOn).c_str(), t.busy * 100);
}

// The warnings of each host's ranks together. Another host is judged with this host's
// layout (a cluster's nodes are alike as a rule), and said to be.
void printWarnings(const HostRanks& hosts, const NodeLayout& here) {
  int count = 0;
  std::printf("\nWarnings\n");
  for (const auto& [host, ranks] : hosts) {
    std::vector<RankThreads> list;
    for (const auto& [rank, r] : ranks) list.push_back(r);
    bool same = host == log::hostName();
    for (const std::string& w : bindingWarnings(list, here)) {
      std::printf("  %s%s\n", w.c_str(), same ? "" : " (judged with this host's layout)");
      ++count;
    }
  }
  if (count == 0) std::printf("  none: every busy thread had a core of its own, and no two ranks shared one\n");
}

}  // namespace

int bindingDoctor(LaunchSpec spec) {
  auto here = loadNodeLayout();
  if (!here) {
    std::fprintf(stderr, "ferry doctor --binding: %s\n", here.status().message().c_str());
    return 1;
  }
  spec.bindReport = true;
  auto argv = launcherCommand(spec);
  if (!argv) {
    std::fprintf(stderr, "ferry doctor --binding: %s\n", argv.status().message().c_str());
    return 1;
  }
  HostRanks hosts;
  int status = runCapturing(*argv, hosts);
  std::fflush(stdout);
  size_t reported = 0;
  for (const auto& [host, ranks] : hosts) reported += ranks.size();
  if (reported == 0) {
    std::fprintf(stderr,
                 "ferry doctor --binding: no rank reported its threads: the program ended within the first "
                 "second, before they were sampled; give it work that lasts two seconds or more\n");
    return 1;
  }
  printTable(hosts);
  if (reported < static_cast<size_t>(spec.ranks))
    std::printf("  (%zu of %d ranks reported: the others ended within the first second)\n", reported, spec.ranks);
  printWarnings(hosts, here.value());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace ferry::tools
