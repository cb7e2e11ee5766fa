// main() for the OpenSHMEM GoogleTest binaries: shmem_init, every PE runs every test, only
// PE 0 prints the usual report and the others their failures. The exit status is non-zero
// on every PE if any PE failed: a SHMEM max-reduction over SHMEM_TEAM_WORLD decides it, so
// the launcher's status tells CTest whichever PE failed, without MPI in the test.
#include <gtest/gtest.h>
#include <shmem.h>

#include <cstdio>

namespace {

// Symmetric (static data): this PE's verdict and the job's.
int gFailed = 0;
int gAnyFailed = 0;

class QuietListener : public testing::EmptyTestEventListener {
 public:
  explicit QuietListener(int pe) : pe_(pe) {}
  void OnTestPartResult(const testing::TestPartResult& r) override {
    if (r.failed())
      std::fprintf(stderr, "[PE %d] %s:%d: Failure\n%s\n", pe_, r.file_name() ? r.file_name() : "?", r.line_number(),
                   r.summary());
  }

 private:
  int pe_;
};

}  // namespace

int main(int argc, char** argv) {
  shmem_init();
  testing::InitGoogleTest(&argc, argv);
  const int me = shmem_my_pe();
  if (me != 0) {
    auto& listeners = testing::UnitTest::GetInstance()->listeners();
    delete listeners.Release(listeners.default_result_printer());
    listeners.Append(new QuietListener(me));
  }
  gFailed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  std::fflush(stdout);
  std::fflush(stderr);
  shmem_int_max_reduce(SHMEM_TEAM_WORLD, &gAnyFailed, &gFailed, 1);
  if (me == 0 && gAnyFailed != 0 && gFailed == 0) std::fprintf(stderr, "[PE 0] another PE failed (see its output)\n");
  shmem_finalize();
  return gAnyFailed;
}
