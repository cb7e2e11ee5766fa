// Programs that call MPI_Init themselves are recognised from their import table.
#include <gtest/gtest.h>

#include "offload/app_check.h"

namespace ferry::offload {
namespace {

TEST(AppCheck, FindsMpiInitInAnMpiProgram) {
  EXPECT_EQ(executableImportsMpiInit(FERRY_TEST_MPI_PROGRAM), "MPI_Init_thread");
}

TEST(AppCheck, PlainProgramsPass) {
  EXPECT_EQ(executableImportsMpiInit("/bin/sh"), "");
  EXPECT_EQ(executableImportsMpiInit("/nonexistent"), "");
}

}  // namespace
}  // namespace ferry::offload
