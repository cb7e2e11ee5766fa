# The test environment of a sanitizer build (FERRY_SANITIZE, cmake/FerrySanitize.cmake),
# appended to FERRY_TEST_ENV, so that every test gets it. docs/robustness.md, "Sanitizers",
# says why each setting is there.
#
# FERRY_SANITIZER_TEST_ENV      the variables. A report ends the process that printed it with
#                               a failure status; scripts/sanitize.sh also fails the run on any
#                               report in a test's output, where the process was expected to fail
#                               anyway (a rank of a failure test) or its status is not checked.
# FERRY_SANITIZER_TEST_PRELOAD  what LD_PRELOAD holds: the runtimes (and, for ASan, the leak
#                               policy), which a test that preloads a library of its own keeps
#                               behind it (FERRY_TEST_PRELOAD_TAIL, SANITIZER_PRELOAD).
#
# Options per program: the runtimes read <build>/sanitizers/asan-<name>.opts and
# lsan-<name>.opts, where <name> is the program's name (%b), where such a file exists. They are
# written here, from the lists below, each with its reason.
set(here ${CMAKE_CURRENT_LIST_DIR})
set(per_program ${PROJECT_BINARY_DIR}/sanitizers)
file(GLOB stale ${per_program}/*.opts ${per_program}/*.supp)  # of lists changed since
if(stale)
  file(REMOVE ${stale})
endif()
file(MAKE_DIRECTORY ${per_program})
set(FERRY_SANITIZER_TEST_PRELOAD ${FERRY_SANITIZE_PRELOAD})

if(FERRY_SANITIZE STREQUAL "address")
  # Which processes check leaks (leak_policy.c): this build's programs only.
  add_library(ferry_leak_policy MODULE ${here}/leak_policy.c)
  file(REAL_PATH ${PROJECT_BINARY_DIR} build_root)
  target_compile_definitions(ferry_leak_policy PRIVATE FERRY_LEAK_CHECK_ROOT="${build_root}")
  target_compile_options(ferry_leak_policy PRIVATE -fno-sanitize=all)
  target_link_options(ferry_leak_policy PRIVATE -fno-sanitize=all)
  set_target_properties(ferry_leak_policy PROPERTIES PREFIX "" LIBRARY_OUTPUT_DIRECTORY ${per_program})
  set(FERRY_SANITIZER_TEST_PRELOAD "${FERRY_SANITIZE_PRELOAD}:${per_program}/ferry_leak_policy.so")

  # ASan options of some programs only: "program|options".
  #   soak (tests/offload/soak): it bounds each rank's resident memory over its second half
  #   (4 MiB); ASan's quarantine holds freed blocks back from reuse up to 256 MiB, which that
  #   bound would count. A quarantine of 1 MiB keeps use-after-free detection for the blocks
  #   freed last, and lets the rest be reused as without ASan.
  set(FERRY_SANITIZER_PROGRAM_OPTIONS "soak|quarantine_size_mb=1")
  foreach(entry IN LISTS FERRY_SANITIZER_PROGRAM_OPTIONS)
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 program)
    list(GET entry 1 options)
    file(WRITE ${per_program}/asan-${program}.opts "${options}\n")
  endforeach()

  # LeakSanitizer suppressions of some programs only, beside lsan.supp (which every process
  # gets): "program|file", the file in this directory saying what it suppresses and why.
  #   lsan-image-globals.supp  OpenMP programs whose device images hold global variables
  #                            (declare target): libomptarget's mapping entries of those
  #                            globals. For these only, so that a Ferry allocation under a
  #                            target region's launch still counts in every other program.
  set(FERRY_SANITIZER_PROGRAM_SUPPRESSIONS)
  foreach(p declare_target shared_lib many_entries needs_lib stack_overflow fail_kill heat_demo)
    list(APPEND FERRY_SANITIZER_PROGRAM_SUPPRESSIONS "${p}|lsan-image-globals.supp")
  endforeach()
  file(READ ${here}/lsan.supp all_programs)
  foreach(entry IN LISTS FERRY_SANITIZER_PROGRAM_SUPPRESSIONS)
    string(REPLACE "|" ";" entry "${entry}")
    list(GET entry 0 program)
    list(GET entry 1 extra)
    file(READ ${here}/${extra} extra_text)
    file(WRITE ${per_program}/lsan-${program}.supp "${all_programs}\n${extra_text}")
    file(WRITE ${per_program}/lsan-${program}.opts "suppressions=${per_program}/lsan-${program}.supp\n")
  endforeach()
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${here}/lsan.supp ${here}/lsan-image-globals.supp)

  # verify_asan_link_order=0: tests put their own libraries first in LD_PRELOAD
  #   (libferry-pmpi.so, mpi_fault.so) ahead of the runtimes, and `ferry run --pmpi` puts the
  #   interposer first; the runtime still comes before the C library, which is what the check
  #   is for.
  # detect_leaks=1: LeakSanitizer in this build's programs (leak_policy.c), rank 0 of each
  #   OpenMP program included; serving ranks end with _exit and check themselves
  #   (src/offload/bootstrap.cpp).
  # fast_unwind_on_malloc=0: the MPI libraries and libomptarget are built without frame
  #   pointers, where the fast unwinder stops; the whole stack of each allocation lets
  #   lsan.supp name the library function a leak was allocated under, instead of a whole
  #   library (which would hide a leak of an MPI object Ferry created and did not free).
  # include_if_exists=asan-%b.opts, last: the options of one program (above).
  set(asan_options verify_asan_link_order=0 detect_leaks=1 fast_unwind_on_malloc=0
      strip_path_prefix=${PROJECT_SOURCE_DIR}/ include_if_exists=${per_program}/asan-%b.opts)
  list(JOIN asan_options ":" asan_options)
  set(lsan_options suppressions=${here}/lsan.supp print_suppressions=0 include_if_exists=${per_program}/lsan-%b.opts)
  list(JOIN lsan_options ":" lsan_options)
  set(FERRY_SANITIZER_TEST_ENV
    "ASAN_OPTIONS=${asan_options}"
    "LSAN_OPTIONS=${lsan_options}"
    # A UBSan finding aborts (-fno-sanitize-recover=undefined); its stack says where.
    "UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
elseif(FERRY_SANITIZE STREQUAL "thread")
  # halt_on_error=1: the first race fails the test that found it.
  # second_deadlock_stack=1: both stacks of a lock-order inversion.
  set(FERRY_SANITIZER_TEST_ENV
    "TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=${here}/tsan.supp")
endif()
list(APPEND FERRY_SANITIZER_TEST_ENV "LD_PRELOAD=${FERRY_SANITIZER_TEST_PRELOAD}"
     # Kept by tests that set LD_PRELOAD themselves (tests/coll/run_program.py,
     # tests/coll/programs/on_rank.sh), so that a process they preload a library into still
     # gets the runtimes.
     "SANITIZER_PRELOAD=${FERRY_SANITIZER_TEST_PRELOAD}")
