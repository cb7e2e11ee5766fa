// FERRY_TRACE: a Chrome-trace timeline. Each rank records complete events (a name, a
// category, start and end on its steady clock, a few numeric arguments) in memory; at the
// end of the job comm/trace_merge gathers them on rank 0, shifted onto rank 0's clock, into
// one JSON file that Perfetto (ui.perfetto.dev) or chrome://tracing opens.
// When FERRY_TRACE is unset, recording costs one predictable branch.
#pragma once

#include <atomic>
#include <cstdint>
#include <initializer_list>
#include <string>

namespace ferry::trace {

namespace detail {
extern std::atomic<bool> gEnabled;
}

inline bool enabled() { return detail::gEnabled.load(std::memory_order_relaxed); }
// Turns recording on (FERRY_TRACE set); called once at start-up.
void enable();

struct Arg {
  const char* key;
  int64_t value;
};

// A complete event on the calling thread.
void record(const char* category, std::string name, uint64_t startNs, uint64_t endNs,
            std::initializer_list<Arg> args = {});
// Names the calling thread in the timeline ("main", "server", "worker 1").
void nameThread(const char* name);

// This rank's events as comma-separated Chrome-trace JSON objects, with `pid` = rank and
// timestamps moved onto the reference clock by `offsetNs` (reference = local - offset).
// Includes metadata naming the process and its threads. Empties the buffer.
std::string takeJson(int rank, int64_t offsetNs, const std::string& processName);

}  // namespace ferry::trace
