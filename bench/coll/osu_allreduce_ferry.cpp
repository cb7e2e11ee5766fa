// OSU-style allreduce latency: Ferry against the MPI library's own MPI_Allreduce, measured
// in the same run, interleaved, so that the ratio holds on a noisy machine
// (docs/benchmarking.md). Columns:
//   mpi      PMPI_Allreduce (the library, as every program gets it without Ferry)
//   ferry    Ferry with the settings in effect (FERRY_COLL=auto: hands small messages to
//            the library), through the interposer's own entry point, fast path included --
//            what a program gets under `ferry run --pmpi`
//   forced   Ferry's algorithm at every size (FERRY_COLL=on), to show the crossover
//   again    PMPI_Allreduce once more, only where auto mode hands the calls to the library
//            (below the crossover, or with one rank per node): the library against itself
//            (xagain) shows how far two identical variants' ratios spread in this run, the
//            yardstick for "never more than 5% slower"
// Each latency is the median over --reps repetitions of the OSU average latency across
// ranks (min and max across ranks go to the CSV). Each speed-up is the median over the
// repetitions of the ratio within one repetition, where the variants ran back to back: a
// slow spell of the machine then slows both sides of a ratio, not one. -c checks Ferry's
// results against the library's at every size before timing.
#include <mpi.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "bench_common.h"
#include "coll/allreduce.h"
#include "coll/comm_context.h"
#include "coll/settings.h"
#include "coll/shared_heap.h"
#include "coll/stats.h"
#include "platform/parse.h"

namespace ferry::bench {
namespace {

struct Options {
  std::string minSize = "8", maxSize = "64M";
  int reps = 5;
  double budget = 0.4;  // seconds per measurement, at most
  bool validate = false;
  std::string buffers = "malloc";
  std::string csv;
};

// One timed variant: how it calls allreduce.
struct Variant {
  const char* name;
  std::function<int(const void*, void*, int)> call;
};

class Buffers {
 public:
  Buffers(size_t bytes, bool shared) : bytes_(bytes), shared_(shared) {
    send_ = allocate();
    recv_ = allocate();
    std::memset(send_, 1, bytes_);
    std::memset(recv_, 0, bytes_);
  }
  ~Buffers() {
    release(send_);
    release(recv_);
  }
  uint8_t* send() const { return send_; }
  uint8_t* recv() const { return recv_; }

 private:
  uint8_t* allocate() const {
    if (shared_) return static_cast<uint8_t*>(*coll::SharedHeap::instance().allocate(std::max<size_t>(bytes_, 1)));
    return static_cast<uint8_t*>(std::malloc(std::max<size_t>(bytes_, 1)));
  }
  void release(uint8_t* p) const {
    if (shared_) coll::SharedHeap::instance().release(p);
    else std::free(p);
  }
  size_t bytes_;
  bool shared_;
  uint8_t *send_, *recv_;
};

int validate(const std::vector<Variant>& variants, size_t bytes, bool shared) {
  Buffers ref(bytes, shared), got(bytes, shared);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  // Sums stay below 128: Open MPI 4.1's AVX op component saturates 8-bit sums where C (and
  // Ferry, and MPICH) wrap; docs/collectives.md has the details.
  for (size_t i = 0; i < bytes; ++i)
    ref.send()[i] = got.send()[i] = static_cast<uint8_t>((i * 7 + static_cast<size_t>(rank) * 13) % (127 / ranks));
  PMPI_Allreduce(ref.send(), ref.recv(), static_cast<int>(bytes), MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
  int bad = 0;
  for (const auto& v : variants) {
    std::memset(got.recv(), 0xee, bytes);
    v.call(got.send(), got.recv(), static_cast<int>(bytes));
    if (std::memcmp(got.recv(), ref.recv(), bytes) != 0) {
      std::fprintf(stderr, "rank %d: %s: wrong result at %zu B\n", rank, v.name, bytes);
      bad = 1;
    }
  }
  int anyBad = 0;
  PMPI_Allreduce(&bad, &anyBad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return anyBad;
}

int run(const Options& opt) {
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  coll::Settings forced = coll::settings();
  forced.mode = coll::Mode::On;
  std::vector<Variant> variants = {
      {"mpi", [](const void* s, void* r, int n) { return PMPI_Allreduce(s, r, n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD); }},
      {"ferry", [](const void* s, void* r, int n) {
         return coll::allreduce(s, r, n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
       }},
      {"forced", [&](const void* s, void* r, int n) {
         return coll::allreduceWith(forced, s, r, n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD);
       }},
      {"again", [](const void* s, void* r, int n) { return PMPI_Allreduce(s, r, n, MPI_CHAR, MPI_SUM, MPI_COMM_WORLD); }},
  };
  // The control runs where Ferry's auto mode hands the calls to the library: below the
  // crossover, or on a communicator where it runs none (one rank per node). One call of the
  // auto variant tells, alike on every rank: Ferry counts it as its own or the library's.
  auto timedAt = [&](Buffers& buf, size_t bytes) {
    uint64_t before = coll::stats().snapshot().ferryCalls;
    variants[1].call(buf.send(), buf.recv(), static_cast<int>(bytes));
    bool handedOver = coll::stats().snapshot().ferryCalls == before;
    return handedOver ? variants.size() : variants.size() - 1;
  };
  bool shared = opt.buffers == "shared";
  auto sizes = powersOfTwo(*parse::size(opt.minSize), *parse::size(opt.maxSize));
  Table table(rank == 0, opt.csv);
  // The first calls of a run pay for connections, page faults and lazy set-up; without a
  // warm-up they land on whichever variant the smallest size measures first.
  {
    Buffers warm(sizes.front(), shared);
    for (const auto& v : variants)
      timeCollective(sizes.front(), opt.budget, [&] { v.call(warm.send(), warm.recv(), static_cast<int>(sizes.front())); });
  }
  std::vector<std::string> names;
  for (const auto& v : variants) names.push_back(v.name);
  table.header(ranks, names);
  for (size_t bytes : sizes) {
    if (opt.validate && validate(variants, bytes, shared) != 0) return 1;
    Buffers buf(bytes, shared);
    std::vector<std::vector<LatencyStats>> samples(variants.size());
    const size_t timed = timedAt(buf, bytes);
    for (int rep = 0; rep < opt.reps; ++rep) {
      for (size_t i = 0; i < timed; ++i) {
        // Rotate which variant runs first, so that none always meets a warm or cold cache.
        size_t which = (i + static_cast<size_t>(rep)) % timed;
        const Variant& v = variants[which];
        samples[which].push_back(
            timeCollective(bytes, opt.budget, [&] { v.call(buf.send(), buf.recv(), static_cast<int>(bytes)); }));
      }
    }
    table.row(bytes, samples);
  }
  return 0;
}

}  // namespace
}  // namespace ferry::bench

int main(int argc, char** argv) {
  using namespace ferry;
  bench::Options opt;
  CLI::App app{"OSU-style MPI_Allreduce latency: Ferry vs the MPI library, MPI_CHAR + MPI_SUM, same run"};
  app.add_option("-m,--min", opt.minSize, "smallest message (bytes; K/M suffixes)");
  app.add_option("-M,--max", opt.maxSize, "largest message");
  app.add_option("-r,--reps", opt.reps, "repetitions; the median is reported")->check(CLI::Range(1, 1000));
  app.add_option("-b,--budget", opt.budget, "seconds per measurement at most (iterations are cut to fit)");
  app.add_flag("-c,--validate", opt.validate, "check Ferry's results against the library's at every size");
  app.add_option("--buffers", opt.buffers, "malloc (single copy via process_vm_readv) or shared (ferry_coll_alloc: "
                                           "mapped, no system call)")
      ->check(CLI::IsMember({"malloc", "shared"}));
  app.add_option("--csv", opt.csv, "write the figures to this CSV file (rank 0)");
  CLI11_PARSE(app, argc, argv);

  MPI_Init(&argc, &argv);
  if (!coll::ensureStarted()) return 1;
  bench::printPreamble(argc, argv, opt.buffers);
  bench::printCopySpeeds();
  int rc = bench::run(opt);
  bench::printCounters(MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
