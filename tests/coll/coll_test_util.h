// Helpers of the multi-rank collective tests: the (datatype, op) pairs to cover, inputs
// whose reduction is exact in any order (so Ferry's result must equal the MPI library's
// bit for bit), and element-wise comparison that names the first difference.
#pragma once

#include <gtest/gtest.h>
#include <mpi.h>

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "coll/allreduce.h"
#include "coll/settings.h"
#include "coll/stats.h"
#include "coll/types.h"
#include "platform/log.h"

namespace ferry::coll::testing {

// This rank's number in `c`, and the number of ranks in it.
inline int rankOf(MPI_Comm c) {
  int r = 0;
  MPI_Comm_rank(c, &r);
  return r;
}
inline int ranksOf(MPI_Comm c) {
  int n = 0;
  MPI_Comm_size(c, &n);
  return n;
}

// Sends this process's log lines to a file for the duration of a test, and reads them back.
class LogCapture {
 public:
  explicit LogCapture(const char* spec) : path_("/tmp/ferry-coll-test-" + std::to_string(getpid()) + ".log") {
    (void)ensureStarted();  // it configures logging from FERRY_LOG once; do that first
    std::remove(path_.c_str());
    EXPECT_TRUE(log::setFile(path_).isOk());
    EXPECT_TRUE(log::configure(spec).isOk());
  }
  ~LogCapture() {
    (void)log::configure("warn");
    std::remove(path_.c_str());
  }
  std::string text() const {
    std::ifstream in(path_);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  std::string path_;
};

struct TypedOp {
  MPI_Datatype type;
  TypeInfo info;
  MPI_Op op;
  OpKind kind;
  std::string name() const { return std::string(info.name) + "/" + opName(kind); }
};

// Every predefined datatype Ferry reduces, with every op the MPI standard allows on it.
std::vector<TypedOp> allTypedOps();

// Settings that run Ferry's algorithm at every size (FERRY_COLL=on), else as in effect.
Settings forcedSettings();

// Deterministic inputs for rank `rank` of `ranks`, chosen so that the exact result does not
// depend on the order of reduction: bounded sums for 8- and 16-bit integers (Open MPI
// 4.1's AVX op component saturates them where C wraps; see docs/collectives.md), dyadic
// values for floating SUM, powers of two for floating PROD, any bits elsewhere.
std::vector<uint8_t> inputs(const TypedOp& t, size_t count, int rank, int ranks, uint64_t seed);

// Empty when equal element by element (long double: by value, its padding is undefined);
// else the first differing index and both values.
std::string compare(const TypedOp& t, const void* got, const void* want, size_t count);

// The exact result for every rank's inputs (`all`, rank after rank), computed here with C
// semantics, independently of Ferry's kernels.
std::vector<uint8_t> exactResult(const TypedOp& t, const std::vector<uint8_t>& all, size_t count, int ranks);

// Runs Ferry (in place or not) and the MPI library (PMPI_Allreduce) on the same inputs.
// Ferry's result must equal the exact one, and therefore the library's wherever the
// library's is exact. Both MPI libraries here get some pairs wrong (docs/collectives.md:
// unsigned MAX/MIN and MPI_OFFSET); such a deviation of the library is printed once, not
// failed. Returns an empty string on success, else what differs.
std::string checkAgainstLibrary(const Settings& s, const TypedOp& t, size_t count, bool inPlace, MPI_Comm comm,
                                uint64_t seed);

StatsSnapshot statsNow();

}  // namespace ferry::coll::testing
