// The transport's own limit, measured with raw MPI between two ranks on Ferry's
// communicator: OSU-style ping-pong latency and windowed bandwidth. Benchmarks report
// Ferry's figures as ratios to these, measured in the same run between the same ranks.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>

#include "comm/baseline_spec.h"
#include "platform/status.h"

namespace ferry::comm {

// Both ranks call it, one as the initiator. Returns the initiator's seconds for `iters`
// timed iterations (a round trip each for ping-pong; `window` messages plus an ack each
// for bandwidth). The responder returns 0.
Result<double> runBaseline(MPI_Comm comm, int peer, bool initiator, const BaselineSpec& spec);

}  // namespace ferry::comm
