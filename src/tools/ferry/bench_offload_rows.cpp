#include "tools/ferry/bench_offload_rows.h"

#include <map>
#include <set>

namespace ferry::tools::bench {
namespace {

const char* kOneWay = "MPI: half a ping-pong of n bytes + half a 1 B ping-pong (n bytes out, an acknowledgement back)";
const char* kPingPong = "MPI: ping-pong of n bytes (n bytes each way)";
const char* kBwHost = "MPI: OSU bandwidth (window 64), rank 0 to the device's rank";

double mpiReference(const RunRecords& f, MpiRef ref, uint64_t n) {
  switch (ref) {
    case MpiRef::RoundTrip: return f.value("mpi_rtt", 1);
    case MpiRef::OneWay: return 0.5 * (f.value("mpi_pingpong", n) + f.value("mpi_rtt", 1));
    case MpiRef::PingPong: return f.value("mpi_pingpong", n);
    case MpiRef::BwHost: return f.value("mpi_bw_host", n);
    case MpiRef::BwCross: return f.value("mpi_bw_cross", n);
    case MpiRef::BwSame: return f.value("mpi_bw_same", n);
    case MpiRef::MsgRate: return f.value("mpi_msg_rate", 1);
    case MpiRef::BwNode: return f.value("mpi_bw_node", n);
  }
  return NAN;
}

std::set<uint64_t> sizesOf(const std::vector<Pair>& reps, const std::string& test) {
  std::set<uint64_t> sizes;
  for (const auto& p : reps)
    for (const auto& [key, fig] : p.ferry->figures)
      if (key.first == test) sizes.insert(key.second);
  return sizes;
}

DerivedRow derive(const RowSpec& spec, uint64_t size, const std::vector<Pair>& reps) {
  std::vector<double> ferry, mpi, stock, floor, rMpi, rStock, rFloor;
  for (const auto& p : reps) {
    double f = p.ferry->value(spec.test, size);
    double m = mpiReference(*p.ferry, spec.ref, size);
    double s = p.stock->value(spec.test, size);
    double fl = spec.kind == Kind::Latency ? s + m : NAN;
    ferry.push_back(f);
    mpi.push_back(m);
    stock.push_back(s);
    floor.push_back(fl);
    rMpi.push_back(f / m);
    rStock.push_back(f / s);
    rFloor.push_back(f / fl);
  }
  DerivedRow row;
  row.spec = &spec;
  row.size = size;
  row.ferry = spreadOf(ferry);
  row.mpi = spreadOf(mpi);
  row.stock = spreadOf(stock);
  row.floor = spreadOf(floor);
  row.ratioMpi = spreadOf(rMpi);
  row.ratioStock = spreadOf(rStock);
  row.ratioFloor = spreadOf(rFloor);
  if (const Figure* fig = reps.front().ferry->find(spec.test, size)) row.ferryOps = fig->iters;
  return row;
}

}  // namespace

const std::vector<RowSpec>& offloadRows() {
  static const std::vector<RowSpec> rows = {
      {"empty", "(a) empty target region, round trip", Kind::Latency, MpiRef::RoundTrip, "MPI: ping-pong of 1 B"},
      {"empty_after_work", "(a) empty target region after 1 ms of host work (median of single regions)",
       Kind::Latency, MpiRef::RoundTrip, "MPI: ping-pong of 1 B (back to back)"},
      {"map_to_lat", "(b) map(to) region latency: alloc, copy in, launch, free", Kind::Latency, MpiRef::OneWay, kOneWay},
      {"map_from_lat", "(b) map(from) region latency: alloc, launch, copy out, free", Kind::Latency, MpiRef::OneWay,
       kOneWay},
      {"map_tofrom_lat", "(b) map(tofrom) region latency", Kind::Latency, MpiRef::PingPong, kPingPong},
      {"map_to_bw", "(b) map(always, to) bandwidth, data present", Kind::Bandwidth, MpiRef::BwHost, kBwHost},
      {"map_from_bw", "(b) map(always, from) bandwidth, data present", Kind::Bandwidth, MpiRef::BwHost,
       "MPI: OSU bandwidth (window 64), rank 0 to the device's rank (the baseline API times one direction)"},
      {"map_tofrom_bw", "(b) map(always, tofrom) bandwidth, both directions counted", Kind::Bandwidth, MpiRef::BwHost,
       kBwHost},
      {"map_to_bw_at16", "(b) map(always, to) bandwidth, host data 16 bytes into its page (a malloc'd block)",
       Kind::Bandwidth, MpiRef::BwHost, kBwHost},
      {"map_from_bw_at16", "(b) map(always, from) bandwidth, host data 16 bytes into its page (a malloc'd block)",
       Kind::Bandwidth, MpiRef::BwHost, kBwHost},
      {"map_to_bw_at1001", "(b) map(always, to) bandwidth, host data 1001 bytes into its page", Kind::Bandwidth,
       MpiRef::BwHost, kBwHost},
      {"map_from_bw_at1001", "(b) map(always, from) bandwidth, host data 1001 bytes into its page", Kind::Bandwidth,
       MpiRef::BwHost, kBwHost},
      {"d2d_cross_bw", "(c) omp_target_memcpy device to device, different nodes", Kind::Bandwidth, MpiRef::BwCross,
       "MPI: OSU bandwidth (window 64) between the two serving ranks; stock: a memcpy between in-process devices"},
      {"d2d_same_bw", "(c) omp_target_memcpy device to device, same node", Kind::Bandwidth, MpiRef::BwSame,
       "MPI: OSU bandwidth (window 64) between the two serving ranks; stock: a memcpy between in-process devices"},
      {"nowait_rate", "(d) empty nowait regions, 64 in flight", Kind::Rate, MpiRef::MsgRate,
       "MPI: OSU message rate, 1 B messages, window 64"},
      {"map_node_bw", "(e) one array updated to both devices of a remote node, bytes delivered to the two counted",
       Kind::Bandwidth, MpiRef::BwNode,
       "MPI: OSU bandwidth (window 64), rank 0 to the first device's rank; above 1x, bytes crossed the network once"},
  };
  return rows;
}

const char* unitOf(Kind kind) {
  switch (kind) {
    case Kind::Latency: return "us";
    case Kind::Bandwidth: return "MB/s";
    case Kind::Rate: return "1/s";
  }
  return "";
}

std::vector<DerivedRow> deriveRows(const std::vector<Pair>& reps) {
  std::vector<DerivedRow> out;
  if (reps.empty()) return out;
  for (const auto& spec : offloadRows())
    for (uint64_t size : sizesOf(reps, spec.test)) out.push_back(derive(spec, size, reps));
  return out;
}

std::vector<SuspectBaseline> suspectBaselines(const std::vector<Pair>& reps) {
  std::vector<SuspectBaseline> out;
  for (size_t rep = 0; rep < reps.size(); ++rep) {
    // Every raw ping-pong of the run, by size: the 1 B round trip is one too.
    std::multimap<uint64_t, double> latency;
    for (const auto& [key, fig] : reps[rep].ferry->figures)
      if ((key.first == "mpi_pingpong" || key.first == "mpi_rtt") && fig.value > 0) latency.emplace(key.second, fig.value);
    for (auto it = latency.begin(); it != latency.end(); ++it) {
      auto fastest = latency.end();
      for (auto larger = latency.upper_bound(it->first); larger != latency.end(); ++larger)
        if (fastest == latency.end() || larger->second < fastest->second) fastest = larger;
      if (fastest == latency.end()) break;
      if (it->second > 2 * fastest->second && it->second - fastest->second > 5)
        out.push_back({static_cast<int>(rep) + 1, it->first, it->second, fastest->first, fastest->second});
    }
  }
  return out;
}

const DerivedRow* rowOf(const std::vector<DerivedRow>& rows, const std::string& test, uint64_t size) {
  for (const auto& r : rows)
    if (test == r.spec->test && r.size == size) return &r;
  return nullptr;
}

}  // namespace ferry::tools::bench
