#include "bench_common.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <ctime>
#include <fstream>

#include "coll/comm_context.h"
#include "coll/copy_probe.h"
#include "coll/settings.h"
#include "coll/stats.h"
#include "comm/cma.h"
#include "platform/copy.h"
#include "platform/parse.h"
#include "platform/spread.h"
#include "platform/topology.h"
#include "tools/ferry/ferry_build_info.h"

extern char** environ;

namespace ferry::bench {
namespace {

constexpr size_t kSmall = 8192;  // OSU's small-message limit
constexpr long kMinIterations = 10;
constexpr int kPilotBatch = 3;
constexpr double kPilotShare = 0.03;
constexpr long kIterationScale = 10;

struct OsuIterations {
  long warmup, timed;
};
OsuIterations osuIterations(size_t bytes) { return bytes <= kSmall ? OsuIterations{1000, 10000} : OsuIterations{100, 1000}; }

std::string loadAverage() {
  std::ifstream in("/proc/loadavg");
  std::string one, five, fifteen;
  in >> one >> five >> fifteen;
  return one + " " + five + " " + fifteen;
}

int worldRank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

}  // namespace

std::vector<size_t> powersOfTwo(size_t lo, size_t hi) {
  std::vector<size_t> v;
  for (size_t s = std::max<size_t>(lo, 1); s <= hi; s *= 2) v.push_back(s);
  return v;
}

Ratio pairedRatio(const std::vector<LatencyStats>& base, const std::vector<LatencyStats>& variant) {
  std::vector<double> r;
  for (size_t i = 0; i < std::min(base.size(), variant.size()); ++i)
    if (variant[i].avgUs > 0) r.push_back(base[i].avgUs / variant[i].avgUs);
  if (r.empty()) return {};
  Spread s = spreadOf(r);
  return {s.median, s.min, s.max};
}

LatencyStats timeCollective(size_t bytes, double budgetSeconds, const std::function<void()>& op) {
  // A pilot tells how many iterations fit in the budget; all ranks use the slowest rank's
  // estimate so that they run the same number of collectives. It runs for a few percent of
  // the budget (rank 0's clock decides when to stop): a pilot of a fixed 3 calls was
  // sometimes 10x off for sub-microsecond calls, and the timed loop with it.
  OsuIterations osu = osuIterations(bytes);
  MPI_Barrier(MPI_COMM_WORLD);
  double t0 = MPI_Wtime();
  long pilotCalls = 0;
  for (int more = 1; more;) {
    for (int i = 0; i < kPilotBatch; ++i) op();
    pilotCalls += kPilotBatch;
    more = pilotCalls < osu.timed * kIterationScale && MPI_Wtime() - t0 < budgetSeconds * kPilotShare;
    PMPI_Bcast(&more, 1, MPI_INT, 0, MPI_COMM_WORLD);
  }
  double pilot = (MPI_Wtime() - t0) / static_cast<double>(pilotCalls), slowest = 0;
  PMPI_Allreduce(&pilot, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  long fit = static_cast<long>(budgetSeconds / std::max(slowest, 1e-9));
  // Up to 10x OSU's count where the budget allows: a sub-microsecond call timed 10,000 times
  // takes 4 ms, short enough for one scheduler tick to move its ratio by 5%.
  long timed = std::clamp(fit * 10 / 11, kMinIterations, osu.timed * kIterationScale);
  long warmup = std::min(osu.warmup, std::max<long>(1, timed / 10));

  for (long i = 0; i < warmup; ++i) op();
  MPI_Barrier(MPI_COMM_WORLD);
  t0 = MPI_Wtime();
  for (long i = 0; i < timed; ++i) op();
  double mine = (MPI_Wtime() - t0) / static_cast<double>(timed) * 1e6;
  double lo = 0, hi = 0, sum = 0;
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  PMPI_Allreduce(&mine, &lo, 1, MPI_DOUBLE, MPI_MIN, MPI_COMM_WORLD);
  PMPI_Allreduce(&mine, &hi, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  PMPI_Allreduce(&mine, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return {sum / ranks, lo, hi, timed};
}

Table::Table(bool print, const std::string& csvPath) : print_(print) {
  if (print_ && !csvPath.empty()) {
    csv_ = std::fopen(csvPath.c_str(), "w");
    if (!csv_) std::fprintf(stderr, "cannot write %s: %s\n", csvPath.c_str(), std::strerror(errno));
  }
}

Table::~Table() {
  if (csv_) std::fclose(csv_);
}

void Table::header(int ranks, const std::vector<std::string>& variants) {
  variants_ = variants;
  if (!print_) return;
  std::printf("\n# %d ranks; latency in us (median over repetitions of the average across ranks); "
              "speed-up = %s / variant (median over repetitions of the ratio within each, where they ran back to "
              "back)\n",
              ranks, variants[0].c_str());
  std::printf("%12s", "bytes");
  for (size_t i = 0; i < variants.size(); ++i) {
    std::printf(" %12s", variants[i].c_str());
    if (i > 0) std::printf(" %9s", ("x" + variants[i]).c_str());
  }
  std::printf(" %8s\n", "iters");
  if (csv_) {
    std::fprintf(csv_, "bytes");
    for (const auto& v : variants)
      std::fprintf(csv_, ",%s_avg_us,%s_min_us,%s_max_us,%s_iters", v.c_str(), v.c_str(), v.c_str(), v.c_str());
    for (size_t i = 1; i < variants.size(); ++i) std::fprintf(csv_, ",speedup_%s", variants[i].c_str());
    for (size_t i = 1; i < variants.size(); ++i)
      std::fprintf(csv_, ",speedup_%s_min,speedup_%s_max", variants[i].c_str(), variants[i].c_str());
    std::fprintf(csv_, "\n");
  }
}

void Table::row(size_t bytes, const std::vector<std::vector<LatencyStats>>& samples) {
  if (!print_) return;
  std::vector<LatencyStats> med(samples.size());
  for (size_t i = 0; i < samples.size(); ++i) {
    std::vector<double> avg, lo, hi;
    for (const auto& s : samples[i]) {
      avg.push_back(s.avgUs);
      lo.push_back(s.minUs);
      hi.push_back(s.maxUs);
    }
    med[i] = {spreadOf(avg).median, spreadOf(lo).median, spreadOf(hi).median, samples[i].empty() ? 0 : samples[i][0].iterations};
  }
  std::vector<Ratio> ratios;
  for (size_t i = 1; i < samples.size(); ++i) ratios.push_back(pairedRatio(samples[0], samples[i]));
  // A variant not timed at this size (no samples) prints "-" and leaves its CSV fields empty.
  auto ran = [&](size_t i) { return !samples[i].empty(); };
  std::printf("%12zu", bytes);
  for (size_t i = 0; i < med.size(); ++i) {
    if (ran(i)) std::printf(" %12.2f", med[i].avgUs);
    else std::printf(" %12s", "-");
    if (i > 0 && ran(i)) std::printf(" %9.2f", ratios[i - 1].median);
    else if (i > 0) std::printf(" %9s", "-");
  }
  std::printf(" %8ld\n", med[0].iterations);
  std::fflush(stdout);
  if (csv_) {
    std::fprintf(csv_, "%zu", bytes);
    for (size_t i = 0; i < med.size(); ++i) {
      const LatencyStats& m = med[i];
      if (ran(i)) std::fprintf(csv_, ",%.3f,%.3f,%.3f,%ld", m.avgUs, m.minUs, m.maxUs, m.iterations);
      else std::fprintf(csv_, ",,,,");
    }
    for (size_t i = 1; i < med.size(); ++i)
      if (ran(i)) std::fprintf(csv_, ",%.4f", ratios[i - 1].median);
      else std::fprintf(csv_, ",");
    for (size_t i = 1; i < med.size(); ++i)
      if (ran(i)) std::fprintf(csv_, ",%.4f,%.4f", ratios[i - 1].lowest, ratios[i - 1].highest);
      else std::fprintf(csv_, ",,");
    std::fprintf(csv_, "\n");
    std::fflush(csv_);
  }
}

void printPreamble(int argc, char** argv, const std::string& buffers) {
  if (worldRank() != 0) return;
  char lib[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(lib, &len);
  std::string libLine(lib, strcspn(lib, "\n"));
  int ranks = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  std::printf("# command:");
  for (char** e = environ; *e; ++e)
    if (std::strncmp(*e, "FERRY_", 6) == 0) std::printf(" %s", *e);
  std::printf(" mpiexec -n %d", ranks);
  for (int i = 0; i < argc; ++i) std::printf(" %s", argv[i]);
  std::printf("\n# MPI: %s\n# compiler: g++ %s; Ferry %s, commit %s\n", libLine.c_str(), __VERSION__,
              FERRY_BENCH_VERSION, FERRY_BUILD_COMMIT);
  const NodeTopology& topo = nodeTopology();
  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S", std::localtime(&now));
  std::printf("# host: %d cores, %d hardware threads, %s; %s; load average %s\n# buffers: %s; MPI_CHAR, MPI_SUM\n",
              topo.cores, topo.pus, parse::formatSize(topo.memoryBytes).c_str(), date, loadAverage().c_str(),
              buffers.c_str());
  // The column `ferry` hands calls below this to the library (auto mode).
  const coll::Settings& s = coll::settings();
  std::printf("# Ferry: FERRY_COLL=%s, crossover %llu B (FERRY_COLL_MIN_SIZE%s)\n", coll::modeName(s.mode),
              static_cast<unsigned long long>(s.minSize),
              config().isSet(Knob::CollMinSize) ? "" : " unset: this library's default");
  std::fflush(stdout);
}

namespace {

using coll::kCopyProbeBytes;
constexpr int kCopyProbeTries = 20;

// process_vm_readv of 256 KiB by rank 0 of `host` from rank 1's buffer, into `dst` (rank 0's,
// page-aligned: the fast case). Collective over `host`; the text is rank 0's.
std::string cmaSpeed(MPI_Comm host, uint8_t* dst) {
  int hostRank = 0, hostSize = 1;
  MPI_Comm_rank(host, &hostRank);
  MPI_Comm_size(host, &hostSize);
  if (hostSize < 2) return "not measured (no other rank on this host)";
  PageBytes data;  // rank 1's, alive until rank 0 has read it (the barrier below)
  int64_t where[2] = {0, 0};
  if (hostRank == 1) {
    data = allocatePages(kCopyProbeBytes);
    std::memset(data.get(), 1, kCopyProbeBytes);
    where[0] = getpid();
    where[1] = static_cast<int64_t>(reinterpret_cast<uintptr_t>(data.get()));
  }
  MPI_Bcast(where, 2, MPI_INT64_T, 1, host);
  std::string text;
  if (hostRank == 0) {
    Status st;
    double gbs = coll::bestCopyGBs(kCopyProbeBytes, kCopyProbeTries, [&] {
      st = comm::cmaRead(static_cast<pid_t>(where[0]), static_cast<uint64_t>(where[1]), dst, kCopyProbeBytes);
      return st.isOk();
    });
    char figure[32];
    std::snprintf(figure, sizeof figure, "%.1f GB/s", gbs);
    text = st ? std::string(figure) : "refused (" + st.message() + ")";
  }
  MPI_Barrier(host);
  return text;
}

}  // namespace

void printCopySpeeds() {
  // A peer on the same host (a virtual node is not a host): its pid means nothing elsewhere.
  // World rank 0 is rank 0 of its host's communicator (key 0 keeps the world's order).
  MPI_Comm host;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &host);
  PageBytes src, dst;
  double same = 0, shifted = 0;
  if (worldRank() == 0) {
    src = allocatePages(kCopyProbeBytes);
    dst = allocatePages(kCopyProbeBytes + kCopyPage);
    std::memset(src.get(), 2, kCopyProbeBytes);
    std::memset(dst.get(), 0, kCopyProbeBytes + kCopyPage);
    same = coll::bestCopyGBs(kCopyProbeBytes, kCopyProbeTries, [&] {
      std::memcpy(dst.get(), src.get(), kCopyProbeBytes);
      return true;
    });
    shifted = coll::bestCopyGBs(kCopyProbeBytes, kCopyProbeTries, [&] {
      std::memcpy(dst.get() + 16, src.get(), kCopyProbeBytes);
      return true;
    });
  }
  std::string cma = cmaSpeed(host, dst.get());
  MPI_Comm_free(&host);
  if (worldRank() != 0) return;
  std::printf("# copies of 256 KiB by rank 0 (best of %d): memcpy %.1f GB/s at the same page offset, %.1f GB/s 16 "
              "bytes past it; process_vm_readv from a rank of this host: %s (docs/performance.md, \"Copies\")\n",
              kCopyProbeTries, same, shifted, cma.c_str());
  std::fflush(stdout);
}

void printCounters(MPI_Comm comm) {
  coll::StatsSnapshot s = coll::stats().snapshot();
  uint64_t mine[] = {s.ferryCalls, s.libraryCalls, s.bytesCma, s.bytesMapped, s.bytesStaged, s.interChunks,
                     s.regHits,    s.regMisses,    s.regInvalidations};
  uint64_t sum[std::size(mine)] = {};
  PMPI_Reduce(mine, sum, static_cast<int>(std::size(mine)), MPI_UINT64_T, MPI_SUM, 0, comm);
  coll::CommContext* ctx = coll::existingContext(comm);
  if (worldRank() != 0) return;
  std::printf("\n# load average at the end (this run's ranks included): %s\n", loadAverage().c_str());
  std::printf("# data path: %s\n", ctx ? ctx->describe().c_str() : "Ferry never set up this communicator");
  std::printf("# counters summed over ranks: calls ferry=%llu library=%llu; bytes cma=%s mapped=%s staged=%s; "
              "inter-node chunks=%llu; registration cache hits=%llu misses=%llu invalidations=%llu\n",
              static_cast<unsigned long long>(sum[0]), static_cast<unsigned long long>(sum[1]),
              parse::formatSize(sum[2]).c_str(), parse::formatSize(sum[3]).c_str(), parse::formatSize(sum[4]).c_str(),
              static_cast<unsigned long long>(sum[5]), static_cast<unsigned long long>(sum[6]),
              static_cast<unsigned long long>(sum[7]), static_cast<unsigned long long>(sum[8]));
}

}  // namespace ferry::bench
