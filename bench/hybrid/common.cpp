// Helpers every study shares: clock, thread lists, the binding report, cache size, hashing.
#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>

#include "hybrid.h"
#include "platform/parse.h"

namespace hybrid {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

int defaultThreads() {
  int places = omp_get_num_places();
  return places > 0 ? places : omp_get_num_procs();
}

std::vector<int> parseList(const std::string& text, const char* what) {
  std::vector<int> out;
  auto bad = [&](const std::string& why) {
    return std::invalid_argument(std::string(what) + ": '" + text + "' " + why);
  };
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    size_t dash = item.find('-', 1);  // "1-8"; a leading '-' is a negative number, refused below
    auto lo = ferry::parse::integer(item.substr(0, dash));
    auto hi = dash == std::string::npos ? lo : ferry::parse::integer(item.substr(dash + 1));
    if (!lo || !hi || *lo < 1 || *hi > 4096 || *lo > *hi)
      throw bad("is no list of counts from 1 to 4096 (like 1,2,4 or 1-8)");
    for (int64_t v = *lo; v <= *hi; ++v) out.push_back(static_cast<int>(v));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

namespace {

// "0-3+8" for {0,1,2,3,8}: ranges, '+' between them (a comma would split the CSV cell).
std::string cpuList(const cpu_set_t& set) {
  std::string out;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (!CPU_ISSET(c, &set)) continue;
    int last = c;
    while (last + 1 < CPU_SETSIZE && CPU_ISSET(last + 1, &set)) ++last;
    if (!out.empty()) out += '+';
    out += std::to_string(c);
    if (last > c) out += "-" + std::to_string(last);
    c = last;
  }
  return out.empty() ? "?" : out;
}

std::string readLine(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::string line;
  std::getline(f, line);
  return line;
}

}  // namespace

std::string bindingOf(int threads) {
  std::vector<std::string> masks(threads, "-");  // "-": a thread the team did not get
#pragma omp parallel num_threads(threads)
  {
    cpu_set_t set;
    CPU_ZERO(&set);
    // The thread's own mask: libgomp binds each thread to its place after the fork.
    if (pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0) masks[omp_get_thread_num()] = cpuList(set);
  }
  std::string out;
  for (const auto& m : masks) out += (out.empty() ? "" : ";") + m;
  return out;
}

void printPreamble(const char* study, const std::string& what, int threads) {
  auto env = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(name) + "=" + (v ? v : "(unset)");
  };
  std::printf("# hybrid_bench %s: %s\n", study, what.c_str());
  std::printf("# %s %s %s %s; %d places, %d processors\n", env("OMP_NUM_THREADS").c_str(), env("OMP_PLACES").c_str(),
              env("OMP_PROC_BIND").c_str(), env("OMP_SCHEDULE").c_str(), omp_get_num_places(), omp_get_num_procs());
  std::printf("# binding at %d threads (CPUs each thread may run on): %s\n", threads, bindingOf(threads).c_str());
}

uint64_t lastLevelCacheBytes() {
  namespace fs = std::filesystem;
  std::set<std::string> seen;  // one entry per cache instance (its shared_cpu_list)
  uint64_t total = 0;
  int topLevel = 0;
  std::error_code ec;
  for (const auto& cpu : fs::directory_iterator("/sys/devices/system/cpu", ec)) {
    for (const auto& idx : fs::directory_iterator(cpu.path() / "cache", ec)) {
      auto level = ferry::parse::integer(readLine(idx.path() / "level"));
      auto size = ferry::parse::size(readLine(idx.path() / "size"));  // "32768K"
      if (!level || !size || readLine(idx.path() / "type") == "Instruction" || *level < topLevel) continue;
      if (*level > topLevel) topLevel = static_cast<int>(*level), total = 0, seen.clear();
      if (seen.insert(readLine(idx.path() / "shared_cpu_list")).second) total += *size;
    }
  }
  return total > 0 ? total : 32ull << 20;  // no sysfs: assume a 32 MiB L3
}

uint64_t hashWords(const double* data, size_t n) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (size_t i = 0; i < n; ++i) {
    uint64_t w;
    std::memcpy(&w, &data[i], sizeof w);
    h = (h ^ w) * 0x100000001b3ull;
  }
  return h;
}

}  // namespace hybrid
