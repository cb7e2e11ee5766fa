# Helpers shared by every test directory.

# Environment of every test: the launcher may run as root here, and with more ranks than
# cores Open MPI must be told to oversubscribe (it then yields instead of spinning).
set(FERRY_TEST_ENV
  "OMPI_ALLOW_RUN_AS_ROOT=1" "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1"
  "OMPI_MCA_rmaps_base_oversubscribe=1")
if(FERRY_MPI_FLAVOR STREQUAL "mpich")
  # MPICH busy-polls; yield on every poll so that 3-4 ranks share 2 cores.
  list(APPEND FERRY_TEST_ENV "MPIR_CVAR_POLLS_BEFORE_YIELD=1")
endif()
if(FERRY_MPI_FLAVOR STREQUAL "openmpi")
  # Ranks start unbound, as `ferry run` starts them: Open MPI would bind 2 ranks to a core
  # each, and rank 0's OpenMP threads would share one (docs/user-guide.md, "Binding").
  list(APPEND FERRY_TEST_ENV "OMPI_MCA_hwloc_base_binding_policy=none")
endif()

# Sanitizer builds: the runtimes and their options in every test's processes, and a
# sanitizer's report fails the test (tests/support/sanitizers/sanitizers.cmake).
# FERRY_TEST_PRELOAD_TAIL: what a test that sets LD_PRELOAD itself appends to it (":" and the
# runtimes; empty in the normal build).
set(FERRY_TEST_PRELOAD_TAIL "")
if(FERRY_SANITIZE)
  include(${CMAKE_CURRENT_LIST_DIR}/support/sanitizers/sanitizers.cmake)
  list(APPEND FERRY_TEST_ENV ${FERRY_SANITIZER_TEST_ENV})
  set(FERRY_TEST_PRELOAD_TAIL ":${FERRY_SANITIZER_TEST_PRELOAD}")
endif()

# Ranks a multi-rank test may use with this MPI (MPICH is kept small, see README).
set(FERRY_TEST_MAX_RANKS 4 CACHE STRING "Most ranks a multi-rank test starts")

# ferry_add_gtest(NAME <name> SOURCES <files...> [LIBS <libs...>])
#   One-process GoogleTest; each TEST becomes its own CTest entry (unit.<Suite>.<Test>).
function(ferry_add_gtest)
  cmake_parse_arguments(T "" "NAME" "SOURCES;LIBS" ${ARGN})
  add_executable(${T_NAME} ${T_SOURCES})
  target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest GTest::gtest_main)
  gtest_discover_tests(${T_NAME} TEST_PREFIX "unit." PROPERTIES ENVIRONMENT "${FERRY_TEST_ENV}" TIMEOUT 60
                       DISCOVERY_TIMEOUT 30)
endfunction()

# ferry_add_mpi_gtest(NAME <name> NP <n> SOURCES <files...> [LIBS ...] [ENV ...] [SUFFIX s])
#   GoogleTest run on <n> ranks through ${MPIEXEC_EXECUTABLE}. Every rank runs every test;
#   the test fails if any rank fails. Registered as mpi.<name>.np<n>[.<suffix>].
function(ferry_add_mpi_gtest)
  cmake_parse_arguments(T "" "NAME;NP;SUFFIX" "SOURCES;LIBS;ENV" ${ARGN})
  if(NOT TARGET ${T_NAME})
    add_executable(${T_NAME} ${T_SOURCES} ${PROJECT_SOURCE_DIR}/tests/support/mpi_gtest_main.cpp)
    target_link_libraries(${T_NAME} PRIVATE ${T_LIBS} GTest::gtest MPI::MPI_C)
  endif()
  if(T_NP GREATER FERRY_TEST_MAX_RANKS)
    return()
  endif()
  set(test_name "mpi.${T_NAME}.np${T_NP}")
  if(T_SUFFIX)
    set(test_name "${test_name}.${T_SUFFIX}")
  endif()
  add_test(NAME ${test_name}
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_NP} ${MPIEXEC_PREFLAGS}
                   $<TARGET_FILE:${T_NAME}> ${MPIEXEC_POSTFLAGS})
  set_tests_properties(${test_name} PROPERTIES ENVIRONMENT "${FERRY_TEST_ENV};${T_ENV}" TIMEOUT 120
                       PROCESSORS ${T_NP})
endfunction()

# expect_args(<out> "<patterns>" "<forbidden>"): expect_failure.py's options for output that
# must (must not) match each regex. Shared by tests/integration and tests/tools/slurm.
function(expect_args out patterns forbidden)
  set(args)
  foreach(p IN LISTS patterns)
    list(APPEND args --pattern ${p})
  endforeach()
  foreach(p IN LISTS forbidden)
    list(APPEND args --forbid ${p})
  endforeach()
  set(${out} ${args} PARENT_SCOPE)
endfunction()
