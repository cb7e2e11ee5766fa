// Collective parts of FERRY_TRACE: aligning every rank's clock with rank 0's at start-up,
// and gathering every rank's events into one file on rank 0 at the end.
#pragma once

#include <string>

#include "comm/world.h"
#include "platform/status.h"

namespace ferry::comm {

// Collective. Measures the clock offset from rank 0's of each rank on another physical node
// (a few timestamp exchanges, keeping the one with the shortest round trip) and keeps it
// for gatherTrace; ranks on rank 0's node share its clock (offset 0).
Status alignTraceClocks(World& world);
// Collective. Every rank's events, as one Chrome-trace document on rank 0 (empty on the
// others); `processName` labels this rank. Writing it is rank 0's alone (writeTraceFile),
// after the job's last collective: no rank waits for the file.
Result<std::string> gatherTrace(World& world, const std::string& processName);
Status writeTraceFile(const std::string& path, const std::string& document);

}  // namespace ferry::comm
