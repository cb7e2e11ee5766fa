// `ferry bench offload`: what each row of the report is, and how it is derived from the
// repetitions. A repetition is one stock run and one Ferry run, started back to back; the
// Ferry run also holds the raw MPI figures between the same ranks, measured next to each
// Ferry figure. Ratios are taken within a repetition, then the median over repetitions.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "tools/ferry/bench_records.h"
#include "platform/spread.h"

namespace ferry::tools::bench {

enum class Kind { Latency, Bandwidth, Rate };

// How the MPI figure that a Ferry figure is compared with comes from the raw MPI records.
enum class MpiRef {
  RoundTrip,  // ping-pong of 1 B
  OneWay,     // n bytes one way and an acknowledgement: (ping-pong(n) + ping-pong(1 B)) / 2
  PingPong,   // n bytes each way
  BwHost,     // OSU bandwidth, rank 0 -> the device's rank
  BwCross,    // OSU bandwidth between the two serving ranks of the cross-node pair
  BwSame,     // ... of the same-node pair
  MsgRate,    // OSU windowed 1 B messages per second
  BwNode,     // OSU bandwidth, rank 0 -> the rank of the first of a remote node's two devices
};

struct RowSpec {
  const char* test;      // the record the Ferry and stock runs write
  const char* title;
  Kind kind;
  MpiRef ref;
  const char* refText;   // what the MPI column is, for the reader
};

const std::vector<RowSpec>& offloadRows();
const char* unitOf(Kind kind);

struct Pair {
  const RunRecords* stock;
  const RunRecords* ferry;
};

struct DerivedRow {
  const RowSpec* spec = nullptr;
  uint64_t size = 0;
  Spread ferry, mpi, stock, floor;            // floor: latency only (stock + MPI)
  Spread ratioMpi, ratioStock, ratioFloor;    // per repetition, then spread
  uint64_t ferryOps = 0;                      // timed operations of the first repetition
};

// One row per (test, size) that the Ferry runs measured, in spec order, then by size.
std::vector<DerivedRow> deriveRows(const std::vector<Pair>& reps);

// A raw-MPI latency baseline that cannot be right: in repetition `rep` (from 1), a ping-pong
// of `bytes` took more than twice as long as the one of `largerBytes`, and 5 us more, which
// only a disturbed measurement does (another process, a frequency change). Ratios against
// it mean nothing; medians over 3 or more repetitions outvote one such figure.
struct SuspectBaseline {
  int rep = 0;
  uint64_t bytes = 0;
  double us = 0;
  uint64_t largerBytes = 0;
  double largerUs = 0;
};
std::vector<SuspectBaseline> suspectBaselines(const std::vector<Pair>& reps);

// The figure of a test at one size, or nullptr.
const DerivedRow* rowOf(const std::vector<DerivedRow>& rows, const std::string& test, uint64_t size);

}  // namespace ferry::tools::bench
