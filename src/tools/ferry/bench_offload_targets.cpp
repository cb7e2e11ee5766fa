#include "tools/ferry/bench_offload_targets.h"

#include <algorithm>

#include "tools/ferry/bench_report.h"

namespace ferry::tools::bench {
namespace {

constexpr uint64_t kLarge = 1 << 20;  // bandwidth targets hold at >= 1 MiB

std::string times(double v) { return number(v) + "x"; }

// The smallest median ratio over sizes >= 1 MiB, and where it was.
struct Worst {
  double ratio = NAN;
  uint64_t size = 0;
  int sizes = 0;
};

template <typename RatioOf>
Worst worstLarge(const std::vector<DerivedRow>& rows, const std::string& test, RatioOf ratioOf) {
  Worst w;
  for (const auto& r : rows) {
    if (test != r.spec->test || r.size < kLarge) continue;
    double v = ratioOf(r);
    if (std::isnan(v)) continue;
    ++w.sizes;
    if (std::isnan(w.ratio) || v < w.ratio) w.ratio = v, w.size = r.size;
  }
  return w;
}

std::string worstText(const Worst& w, const std::string& against) {
  return "worst " + times(w.ratio) + " " + against + " at " + bytesLabel(w.size) + " (of " + std::to_string(w.sizes) +
         (w.sizes == 1 ? " size" : " sizes") + " >= 1 MiB)";
}

TargetResult emptyRegion(const std::vector<DerivedRow>& rows) {
  TargetResult t{"empty region round trip <= 1.2x the MPI round trip", "not measured"};
  const DerivedRow* r = rowOf(rows, "empty", 0);
  if (!r || !r->ratioMpi.valid()) return t;
  t.measuredAtAll = true;
  t.met = r->ratioMpi.median <= 1.2;
  t.measured = times(r->ratioMpi.median) + " (" + spreadLabel(r->ratioMpi) + " over repetitions); Ferry/floor " +
               times(r->ratioFloor.median);
  return t;
}

// `tests` are the same direction with the host data at several page offsets (the first:
// page-aligned); the target holds for the worst of them.
// Issue 31: a region against its floor, the stock plugin's in-process region plus the raw
// MPI round trip of the same run (`test` at its smallest measured size).
TargetResult againstFloor(const std::vector<DerivedRow>& rows, const char* test, const char* what, double limit) {
  TargetResult t{std::string(what) + " <= " + number(limit) + "x the floor (stock region + MPI round trip)",
                 "not measured"};
  const DerivedRow* smallest = nullptr;
  for (const auto& r : rows)
    if (test == std::string(r.spec->test) && r.ratioFloor.valid() && (!smallest || r.size < smallest->size)) smallest = &r;
  if (!smallest) return t;
  t.measuredAtAll = true;
  t.met = smallest->ratioFloor.median <= limit;
  t.measured = times(smallest->ratioFloor.median) + " at " + (smallest->size ? bytesLabel(smallest->size) : "-") + " (" +
               spreadLabel(smallest->ratioFloor) + " over repetitions)";
  return t;
}

TargetResult nowaitRate(const std::vector<DerivedRow>& rows) {
  TargetResult t{"nowait regions, 64 in flight, >= 0.5x the stock plugin's rate", "not measured"};
  const DerivedRow* r = rowOf(rows, "nowait_rate", 0);
  if (!r || !r->ratioStock.valid()) return t;
  t.measuredAtAll = true;
  t.met = r->ratioStock.median >= 0.5;
  t.measured = times(r->ratioStock.median) + " (" + spreadLabel(r->ratioStock) + " over repetitions)";
  return t;
}

TargetResult mapBandwidth(const std::vector<DerivedRow>& rows, const std::vector<std::string>& tests,
                          const char* what) {
  TargetResult t{std::string(what) + " bandwidth >= 90% of MPI bandwidth at >= 1 MiB, host data page-aligned or not",
                 "not measured"};
  Worst worst;
  std::string where;
  for (const auto& test : tests) {
    Worst w = worstLarge(rows, test, [](const DerivedRow& r) { return r.ratioMpi.median; });
    if (w.sizes == 0) continue;
    worst.sizes += w.sizes;
    if (std::isnan(worst.ratio) || w.ratio < worst.ratio) worst.ratio = w.ratio, worst.size = w.size, where = test;
  }
  if (worst.sizes == 0) return t;
  t.measuredAtAll = true;
  t.met = worst.ratio >= 0.9;
  t.measured = worstText(worst, "MPI") + " in " + where;
  return t;
}

TargetResult remoteCopy(const std::vector<DerivedRow>& rows, const std::vector<Pair>& reps) {
  TargetResult t{"remote device-to-device copy >= 90% of MPI bandwidth, zero bytes through rank 0", "not measured"};
  Worst w = worstLarge(rows, "d2d_cross_bw", [](const DerivedRow& r) { return r.ratioMpi.median; });
  long long relayed = bytesThroughRank0(reps, "d2d_cross_bw");
  if (w.sizes == 0) return t;
  t.measuredAtAll = true;
  t.met = w.ratio >= 0.9 && relayed == 0;
  t.measured = worstText(w, "MPI") + "; bytes through rank 0: " + (relayed < 0 ? "not counted" : std::to_string(relayed));
  return t;
}

// Ferry's MPI path is the cross-node copy of the same run: on this machine both pairs share
// one physical node, so the path is the only difference.
TargetResult sameNodeCopy(const std::vector<DerivedRow>& rows, const std::vector<Pair>& reps) {
  TargetResult t{"same-node device-to-device copy >= 2x the MPI path", "not measured"};
  Worst vsPath;
  for (const auto& r : rows) {
    if (std::string("d2d_same_bw") != r.spec->test || r.size < kLarge) continue;
    std::vector<double> ratios;
    for (const auto& p : reps) ratios.push_back(p.ferry->value("d2d_same_bw", r.size) / p.ferry->value("d2d_cross_bw", r.size));
    double m = spreadOf(ratios).median;
    if (std::isnan(m)) continue;
    ++vsPath.sizes;
    if (std::isnan(vsPath.ratio) || m < vsPath.ratio) vsPath.ratio = m, vsPath.size = r.size;
  }
  Worst vsMpi = worstLarge(rows, "d2d_same_bw", [](const DerivedRow& r) { return r.ratioMpi.median; });
  if (vsPath.sizes == 0) return t;
  t.measuredAtAll = true;
  t.met = vsPath.ratio >= 2.0;
  t.measured = worstText(vsPath, "Ferry's MPI path (the cross-node copy)") + "; against raw MPI between the same ranks " +
               worstText(vsMpi, "MPI");
  return t;
}

// Issue 31 item 6: the node's second device gets its bytes on the node.
TargetResult oneTransferPerNode(const std::vector<Pair>& reps) {
  TargetResult t{"one transfer per node: an array mapped to a remote node's 2 devices crosses the network once "
                 "(network bytes <= 0.5x the bytes mapped, >= 1 MiB)",
                 "not measured"};
  NodeTraffic traffic = nodeTraffic(reps);
  if (traffic.mapped == 0) return t;
  double r = static_cast<double>(traffic.network) / static_cast<double>(traffic.mapped);
  t.measuredAtAll = true;
  t.met = r <= 0.5;
  t.measured = number(r) + "x: " + std::to_string(traffic.network) + " of " + std::to_string(traffic.mapped) +
               " bytes mapped crossed the network";
  return t;
}

}  // namespace

NodeTraffic nodeTraffic(const std::vector<Pair>& reps) {
  NodeTraffic t;
  for (const auto& p : reps) {
    auto net = p.ferry->counters.find({"map_node_bw", "network_bytes_large"});
    auto mapped = p.ferry->counters.find({"map_node_bw", "mapped_bytes_large"});
    if (net == p.ferry->counters.end() || mapped == p.ferry->counters.end()) continue;
    t.network += net->second;
    t.mapped += mapped->second;
  }
  return t;
}

long long bytesThroughRank0(const std::vector<Pair>& reps, const std::string& test) {
  long long sum = -1;
  for (const auto& p : reps) {
    auto it = p.ferry->counters.find({test, "bytes_through_rank0"});
    if (it == p.ferry->counters.end()) continue;
    sum = std::max(sum, 0LL) + static_cast<long long>(it->second);
  }
  return sum;
}

std::vector<TargetResult> evaluateTargets(const std::vector<DerivedRow>& rows, const std::vector<Pair>& reps) {
  return {emptyRegion(rows),
          againstFloor(rows, "empty", "empty region", 1.3),
          againstFloor(rows, "map_tofrom_lat", "small map(tofrom) region", 1.5),
          nowaitRate(rows),
          mapBandwidth(rows, {"map_to_bw", "map_to_bw_at16", "map_to_bw_at1001"}, "map(to)"),
          mapBandwidth(rows, {"map_from_bw", "map_from_bw_at16", "map_from_bw_at1001"}, "map(from)"),
          remoteCopy(rows, reps), sameNodeCopy(rows, reps), oneTransferPerNode(reps)};
}

}  // namespace ferry::tools::bench
