#include "comm/trace_merge.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

#include "comm/mpi_check.h"
#include "comm/watchdog.h"
#include "platform/clock.h"
#include "platform/config.h"
#include "platform/trace.h"

namespace ferry::comm {
namespace {
constexpr int kClockTag = 4;
constexpr int kRounds = 16;
int64_t gOffsetNs = 0;  // this rank's clock minus rank 0's
}  // namespace

// Ranks of rank 0's physical node read the same system-wide monotonic clock: their offset
// is exactly 0. Measuring it anyway only adds error: with ranks outnumbering cores (MPICH
// busy-polls), every round trip can wait a whole time slice, and a 1.5 ms error showed.
static bool sharesRank0Clock(const World& w, int r) { return w.peer(r).physNode == w.peer(0).physNode; }

Status alignTraceClocks(World& w) {
  if (w.rank() == 0) {
    for (int r = 1; r < w.size(); ++r) {
      if (sharesRank0Clock(w, r)) continue;
      int64_t best = INT64_MAX, offset = 0;
      for (int i = 0; i < kRounds; ++i) {
        int64_t t0 = static_cast<int64_t>(nowNs()), remote = 0;
        if (Status st = mpiStatus(MPI_Send(&t0, 1, MPI_INT64_T, r, kClockTag, w.comm()), "MPI_Send(clock)", r); !st)
          return st;
        if (Status st = mpiStatus(MPI_Recv(&remote, 1, MPI_INT64_T, r, kClockTag, w.comm(), MPI_STATUS_IGNORE),
                                  "MPI_Recv(clock)", r);
            !st)
          return st;
        int64_t t1 = static_cast<int64_t>(nowNs());
        if (t1 - t0 < best) {
          best = t1 - t0;
          offset = remote - (t0 + t1) / 2;  // the remote clock read half-way through the round trip
        }
      }
      if (Status st = mpiStatus(MPI_Send(&offset, 1, MPI_INT64_T, r, kClockTag, w.comm()), "MPI_Send(offset)", r); !st)
        return st;
    }
    return {};
  }
  if (sharesRank0Clock(w, w.rank())) return {};
  for (int i = 0; i < kRounds; ++i) {
    int64_t t0 = 0;
    if (Status st = mpiStatus(MPI_Recv(&t0, 1, MPI_INT64_T, 0, kClockTag, w.comm(), MPI_STATUS_IGNORE),
                              "MPI_Recv(clock)", 0);
        !st)
      return st;
    int64_t now = static_cast<int64_t>(nowNs());
    if (Status st = mpiStatus(MPI_Send(&now, 1, MPI_INT64_T, 0, kClockTag, w.comm()), "MPI_Send(clock)", 0); !st)
      return st;
  }
  return mpiStatus(MPI_Recv(&gOffsetNs, 1, MPI_INT64_T, 0, kClockTag, w.comm(), MPI_STATUS_IGNORE),
                   "MPI_Recv(offset)", 0);
}

Result<std::string> gatherTrace(World& w, const std::string& processName) {
  std::string mine = trace::takeJson(w.rank(), gOffsetNs, processName);
  int len = static_cast<int>(mine.size());
  std::vector<int> lens(w.size()), displs(w.size());
  std::string all;
  {
    // Every rank must reach the gathers: a stopped one would hold the job for ever.
    Watchdog watchdog("gathering the FERRY_TRACE timeline", endOfJobSeconds(w.rank()), w.rank());
    if (Status st = mpiStatus(MPI_Gather(&len, 1, MPI_INT, lens.data(), 1, MPI_INT, 0, w.comm()), "MPI_Gather(trace)");
        !st)
      return st;
    if (w.rank() == 0) {
      int total = 0;
      for (int r = 0; r < w.size(); ++r) {
        displs[r] = total;
        total += lens[r];
      }
      all.resize(static_cast<size_t>(total));
    }
    if (Status st = mpiStatus(MPI_Gatherv(mine.data(), len, MPI_CHAR, all.data(), lens.data(), displs.data(),
                                          MPI_CHAR, 0, w.comm()),
                              "MPI_Gatherv(trace)");
        !st)
      return st;
  }
  if (w.rank() != 0) return std::string();
  std::string doc = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  for (int r = 0; r < w.size(); ++r) {
    if (lens[r] == 0) continue;
    if (!first) doc += ",\n";
    doc.append(all, static_cast<size_t>(displs[r]), static_cast<size_t>(lens[r]));
    first = false;
  }
  return doc + "\n]}\n";
}

Status writeTraceFile(const std::string& path, const std::string& document) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return Status(Errc::InvalidArgument, "cannot write " + path + ": " + std::strerror(errno));
  bool written = std::fwrite(document.data(), 1, document.size(), f) == document.size();
  if (std::fclose(f) != 0 || !written)
    return Status(Errc::InvalidArgument, "writing " + path + " failed: " + std::strerror(errno));
  return {};
}

}  // namespace ferry::comm
