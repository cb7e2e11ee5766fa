#include "platform/thread_report.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <thread>

#include "platform/binding.h"

namespace ferry {
namespace {

struct TaskStat {
  std::string name;
  int cpu = -1;
  bool runnable = false;  // state R: running, or waiting for a CPU
};

// /proc/PID/task/TID/stat: "tid (comm) state ..." with the state the 3rd field and the last
// CPU the 39th; comm may hold spaces and parentheses.
bool readStat(pid_t pid, int tid, TaskStat& out) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  size_t open = text.find('('), close = text.rfind(')');
  if (open == std::string::npos || close == std::string::npos) return false;
  out.name = text.substr(open + 1, close - open - 1);
  std::istringstream rest(text.substr(close + 2));
  std::vector<std::string> fields{std::istream_iterator<std::string>(rest), std::istream_iterator<std::string>()};
  // fields[0] is the 3rd field (state): field k is fields[k - 3].
  if (fields.size() < 37) return false;
  out.runnable = fields[0] == "R";
  out.cpu = std::stoi(fields[36]);
  return true;
}

std::vector<int> allowedOf(pid_t pid, int tid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/task/" + std::to_string(tid) + "/status");
  for (std::string line; std::getline(f, line);)
    if (line.rfind("Cpus_allowed_list:", 0) == 0) {
      auto l = parseCpuList(line.substr(line.find_first_not_of(" \t", 18)));
      if (l) return l.value();
    }
  return {};
}

std::vector<int> tasksOf(pid_t pid) {
  std::vector<int> tids;
  DIR* d = opendir(("/proc/" + std::to_string(pid) + "/task").c_str());
  if (!d) return tids;
  while (dirent* e = readdir(d))
    if (e->d_name[0] != '.') tids.push_back(std::atoi(e->d_name));
  closedir(d);
  return tids;
}

struct Tracked {
  std::string name;
  std::set<int> cpus;
  int samples = 0, runnable = 0;
};

}  // namespace

// Busy is the share of samples that found the thread runnable, not its CPU time: two threads
// piled on one core get half of it each (less on a loaded machine), yet both want a core all
// the time, which is what the report must show.
std::vector<ThreadRecord> sampleThreads(pid_t pid, double seconds, double interval) {
  std::map<int, Tracked> tracked;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  while (elapsed < seconds && kill(pid, 0) == 0) {
    for (int tid : tasksOf(pid)) {
      TaskStat st;
      if (!readStat(pid, tid, st)) continue;
      Tracked& t = tracked[tid];
      t.name = st.name;
      ++t.samples;
      t.runnable += st.runnable;
      t.cpus.insert(st.cpu);
    }
    std::this_thread::sleep_for(std::chrono::duration<double>(interval));
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  std::vector<ThreadRecord> out;
  for (auto& [tid, t] : tracked) {
    ThreadRecord r{tid, t.name, allowedOf(pid, tid), std::vector<int>(t.cpus.begin(), t.cpus.end()), 0};
    r.busy = t.samples ? static_cast<double>(t.runnable) / t.samples : 0;
    out.push_back(std::move(r));
  }
  return out;
}

namespace {

std::map<int, int> coreOfPu(const NodeLayout& node) {
  std::map<int, int> core;
  for (size_t c = 0; c < node.cores.size(); ++c)
    for (int pu : node.cores[c].pus) core[pu] = static_cast<int>(c);
  return core;
}

// Busy threads of a rank that ran on fewer cores than there are of them, while cores of the
// node no busy thread of any rank ran on stayed idle.
void warnPiled(const RankThreads& r, const std::map<int, int>& core, const std::set<int>& idleCores,
               std::vector<std::string>& out) {
  std::set<int> cores, pus;
  int busy = 0;
  for (const ThreadRecord& t : r.threads) {
    if (t.busy < kBusyShare) continue;
    ++busy;
    for (int pu : t.ranOn) {
      pus.insert(pu);
      if (auto it = core.find(pu); it != core.end()) cores.insert(it->second);
    }
  }
  if (busy <= static_cast<int>(cores.size()) || idleCores.empty()) return;
  out.push_back("rank " + std::to_string(r.rank) + " on " + r.host + ": its " + std::to_string(busy) +
                " busy threads ran on " + std::to_string(cores.size()) + " core(s) (CPUs " + cpuList({pus.begin(), pus.end()}) + ", allowed " +
                cpuList(r.allowed) + ") while " + std::to_string(idleCores.size()) +
                " other core(s) of the node ran none of the job's busy threads: the launcher bound the rank to fewer cores than it runs threads. "
                "Give each rank as many cores as threads: ferry run does (FERRY_BIND=auto), or mpirun --map-by "
                "slot:PE=" + std::to_string(busy) + " --bind-to core, mpiexec.mpich -bind-to core:" +
                std::to_string(busy) + ", srun -c " + std::to_string(busy));
}

void warnSpans(const RankThreads& r, const NodeLayout& node, const std::map<int, int>& core,
               std::vector<std::string>& out) {
  std::set<int> domains;
  for (int pu : r.allowed)
    if (auto it = core.find(pu); it != core.end()) domains.insert(node.cores[static_cast<size_t>(it->second)].numa);
  bool wholeNode = static_cast<int>(r.allowed.size()) >= node.pus();
  if (domains.size() > 1 && !wholeNode)
    out.push_back("rank " + std::to_string(r.rank) + " on " + r.host + " is bound across " +
                  std::to_string(domains.size()) + " NUMA domains (CPUs " + cpuList(r.allowed) +
                  "): its threads reach part of its memory remotely; bind it within one (ferry run does)");
}

void warnOverlaps(const std::vector<RankThreads>& ranks, int nodePus, std::vector<std::string>& out) {
  for (size_t a = 0; a < ranks.size(); ++a)
    for (size_t b = a + 1; b < ranks.size(); ++b) {
      const auto &x = ranks[a].allowed, &y = ranks[b].allowed;
      if (static_cast<int>(x.size()) >= nodePus || static_cast<int>(y.size()) >= nodePus) continue;  // unbound
      std::vector<int> both;
      std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
      if (!both.empty())
        out.push_back("ranks " + std::to_string(ranks[a].rank) + " and " + std::to_string(ranks[b].rank) + " on " +
                      ranks[a].host + " are bound to overlapping CPUs (" + cpuList(both) +
                      "): their threads compete for them; give each rank cores of its own (ferry run does)");
    }
}

}  // namespace

std::vector<std::string> bindingWarnings(const std::vector<RankThreads>& ranks, const NodeLayout& node) {
  auto core = coreOfPu(node);
  std::set<int> idle;
  for (size_t c = 0; c < node.cores.size(); ++c) idle.insert(static_cast<int>(c));
  for (const RankThreads& r : ranks)
    for (const ThreadRecord& t : r.threads)
      if (t.busy >= kBusyShare)
        for (int pu : t.ranOn)
          if (auto it = core.find(pu); it != core.end()) idle.erase(it->second);
  std::vector<std::string> out;
  for (const RankThreads& r : ranks) {
    warnPiled(r, core, idle, out);
    warnSpans(r, node, core, out);
  }
  warnOverlaps(ranks, node.pus(), out);
  return out;
}

std::string reportLine(int rank, const ThreadRecord& t) {
  char busy[16];
  std::snprintf(busy, sizeof busy, "%.0f%%", t.busy * 100);
  return "binding: rank " + std::to_string(rank) + " thread " + std::to_string(t.tid) + " (" + t.name + ") allowed " +
         cpuList(t.allowed) + " ran on " + cpuList(t.ranOn) + " busy " + busy;
}

bool parseReportLine(const std::string& line, int& rank, ThreadRecord& t) {
  static const std::regex re(R"(binding: rank (\d+) thread (\d+) \((.*)\) allowed ([0-9,-]*) ran on ([0-9,-]*) busy (\d+)%)");
  std::smatch m;
  if (!std::regex_search(line, m, re)) return false;
  auto allowed = parseCpuList(m[4]), ran = parseCpuList(m[5]);
  if (!allowed || !ran) return false;
  rank = std::stoi(m[1]);
  t = ThreadRecord{std::stoi(m[2]), m[3], allowed.value(), ran.value(), std::stoi(m[6]) / 100.0};
  return true;
}

}  // namespace ferry
