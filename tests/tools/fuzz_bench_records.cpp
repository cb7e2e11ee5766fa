// Input: the JSON-lines records file a measuring program writes for `ferry bench` (bench/
// offload/report.c, bench/xs): another process, which may have been killed half-way through
// a line, printed a figure as nan or inf, or been replaced by a different build. `ferry
// bench` reads it (readRecords) and derives the report's rows from it (deriveRows,
// suspectBaselines), the file standing for both runs of a repetition.
//
// Properties: reading never crashes nor lets an exception out, whatever the lines hold: a
// malformed line is an error that names the file and line.
#include <sys/mman.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "fuzz_check.h"
#include "tools/ferry/bench_offload_rows.h"
#include "tools/ferry/bench_records.h"

namespace {
using namespace ferry::tools::bench;

int gFd = -1;
std::string gPath;

// The file readRecords opens: a memory file, rewritten for each input.
bool writeInput(const uint8_t* data, size_t size) {
  if (ftruncate(gFd, 0) != 0) return false;
  for (size_t done = 0; done < size;) {
    ssize_t n = pwrite(gFd, data + done, size - done, static_cast<off_t>(done));
    if (n <= 0) return false;
    done += static_cast<size_t>(n);
  }
  return true;
}

void derive(const RunRecords& records) {
  std::vector<Pair> reps = {{&records, &records}};
  for (const DerivedRow& row : deriveRows(reps)) (void)rowOf({row}, row.spec->test, row.size);
  (void)suspectBaselines(reps);
  for (const auto& [key, fig] : records.figures) (void)records.value(key.first, key.second);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  gFd = memfd_create("fuzz_bench_records", MFD_CLOEXEC);
  if (gFd < 0) {
    std::perror("memfd_create");
    std::exit(1);
  }
  gPath = "/proc/self/fd/" + std::to_string(gFd);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FUZZ_CHECK(writeInput(data, size), "cannot write the input to the memory file");
  auto records = readRecords(gPath);
  if (!records) {
    FUZZ_CHECK(records.status().message().find(gPath) == 0, "a refused file is not named");
    return 0;
  }
  derive(*records);
  return 0;
}
