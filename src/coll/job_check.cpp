#include "coll/job_check.h"

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "coll/allreduce.h"
#include "coll/comm_context.h"
#include "coll/settings.h"
#include "comm/mpi_check.h"
#include "platform/config.h"
#include "platform/log.h"

namespace ferry::coll {
namespace {

std::atomic<bool> gAgreed{true};

// What must be equal on every process: the build, whether its settings are valid, and the
// decision inputs among them (Settings::fingerprint()). Compared by lowest and highest.
struct Identity {
  int64_t version = 0;
  int64_t valid = 0;
  int64_t settings = 0;
};

Identity mine() {
  Identity id;
  id.version = announcedProtocolVersion();
  id.valid = ensureStarted() ? 1 : 0;
  id.settings = id.valid ? static_cast<int64_t>(settings().fingerprint() >> 2) : 0;
  return id;
}

bool operator==(const Identity& a, const Identity& b) {
  return a.version == b.version && a.valid == b.valid && a.settings == b.settings;
}

// The FERRY_COLL* and FERRY_VIRTUAL_NODES values this process sets, from the registry:
// where the settings the check compares come from.
std::string collSettingsText(const Identity& id) {
  if (!id.valid) return "an invalid FERRY_* setting (its log says which)";
  std::string text;
  for (const KnobSpec& k : knobTable()) {
    bool coll = std::string_view(k.name).starts_with("FERRY_COLL") || k.key == Knob::VirtualNodes;
    if (coll && config().isSet(k.key))
      text += (text.empty() ? "" : " ") + std::string(k.name) + "=" + config().text(k.key);
  }
  return text.empty() ? "no FERRY_COLL* or FERRY_VIRTUAL_NODES set" : text;
}

std::string whatDiffers(const Identity& me, const Identity& root) {
  if (me.version != root.version)
    return "this rank runs another build of Ferry (collectives protocol version " + std::to_string(me.version) +
           ", rank 0's " + std::to_string(root.version) + "); load the same libferry-pmpi on every node";
  if (me.valid != root.valid)
    return me.valid ? "rank 0 has an invalid FERRY_* setting (its log says which)"
                    : "this rank has an invalid FERRY_* setting (see the error above)";
  return "this rank's FERRY_COLL* or FERRY_VIRTUAL_NODES settings differ from rank 0's (this rank has " +
         collSettingsText(me) + "); give every rank the same values";
}

// The check's collectives run on MPI_COMM_WORLD right after MPI_Init, whose error handler is
// then MPI_ERRORS_ARE_FATAL: a failure normally ends the job inside the library. Should one
// return (a program that set MPI_ERRORS_RETURN through an MPI_T or tool hook), the job's
// agreement is unknown, and collectives that may not agree are the hazard the check is for:
// they go off on this process, with the reason.
bool checked(int rc, const char* call) {
  Status st = comm::mpiStatus(rc, call);
  if (st) return true;
  gAgreed.store(false, std::memory_order_relaxed);
  log::error(log::Coll, "Ferry's collectives are off for this process, and the MPI library runs every allreduce: "
                        "the job-wide check of Ferry's build and settings failed: %s", st.message().c_str());
  return false;
}

}  // namespace

bool jobAgreed() { return gAgreed.load(std::memory_order_relaxed); }

void agreeAcrossJob() {
  Identity id = mine();
  int64_t ends[6] = {id.version, -id.version, id.valid, -id.valid, id.settings, -id.settings}, low[6] = {};
  if (!checked(PMPI_Allreduce(ends, low, 6, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD), "PMPI_Allreduce(job check)")) return;
  if (low[0] == -low[1] && low[2] == -low[3] && low[4] == -low[5]) return;
  // They differ somewhere: every process turns the collectives off. Rank 0 says which ranks
  // differ from it, and each of those says how.
  gAgreed.store(false, std::memory_order_relaxed);
  int rank = 0, size = 1;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  PMPI_Comm_size(MPI_COMM_WORLD, &size);
  Identity root = id;
  if (!checked(PMPI_Bcast(&root, 3, MPI_INT64_T, 0, MPI_COMM_WORLD), "PMPI_Bcast(job check)")) return;
  int differs = id == root ? 0 : 1;
  std::vector<int> all(rank == 0 ? static_cast<size_t>(size) : 0);
  if (!checked(PMPI_Gather(&differs, 1, MPI_INT, all.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "PMPI_Gather(job check)"))
    return;
  const char* off = "Ferry's collectives are off for this job and the MPI library runs every allreduce";
  if (rank == 0) {
    constexpr int kNamed = 8;  // a long list helps no one: the first few, and how many more
    std::string ranks;
    int total = 0;
    for (int r = 0; r < size; ++r) {
      if (!all[static_cast<size_t>(r)]) continue;
      if (++total <= kNamed) ranks += (ranks.empty() ? "" : ", ") + std::to_string(r);
    }
    if (total > kNamed) ranks += " and " + std::to_string(total - kNamed) + " more";
    log::error(log::Coll, "%s: %s %s from rank 0 in Ferry's build or FERRY_* settings, which must be the same on "
                          "every rank (%s says how; rank 0 has %s)",
               off, total == 1 ? "rank" : "ranks", (ranks + (total == 1 ? " differs" : " differ")).c_str(),
               total == 1 ? "its log line" : "their log lines", collSettingsText(id).c_str());
  } else if (differs) {
    log::error(log::Coll, "%s: %s", off, whatDiffers(id, root).c_str());
  }
}

}  // namespace ferry::coll
