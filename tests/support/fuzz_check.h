// For the libFuzzer targets (tests/<layer>/fuzz_*.cpp): a property that an input broke is
// a crash, so that libFuzzer keeps the input and the test fails. Not assert(): the fuzz
// build is RelWithDebInfo, which defines NDEBUG.
#pragma once

#include <cstdio>
#include <cstdlib>

#define FUZZ_CHECK(cond, what)                                                   \
  do {                                                                           \
    if (!(cond)) {                                                               \
      std::fprintf(stderr, "%s:%d: fuzz property broken: %s (%s)\n", __FILE__, \
                   __LINE__, what, #cond);                                       \
      std::abort();                                                              \
    }                                                                            \
  } while (0)
