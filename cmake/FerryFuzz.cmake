# The libFuzzer build (FERRY_FUZZ=ON; docs/robustness.md, "Fuzzing"). It lives in a build
# directory of its own, configured with clang-16, and builds only the static libraries the
# fuzz targets link, sanitized, and the targets themselves: no benchmark, example or normal
# test (they need MPI jobs, GTest and Fortran, and gain nothing from a slower second build).
#
#   cmake -S . -B build-fuzz -G Ninja -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 -DFERRY_FUZZ=ON
#
# libFuzzer's runtime comes with Debian's libclang-rt-16-dev (scripts/setup.sh installs it).

if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang" OR CMAKE_CXX_COMPILER_VERSION VERSION_LESS 16)
  message(FATAL_ERROR "FERRY_FUZZ needs clang 16 or later (libFuzzer): configure a build directory of its own with "
                      "-DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16")
endif()

# Every library object is instrumented for coverage and checked by ASan and UBSan; a UBSan
# finding aborts, so that libFuzzer counts it as a crash instead of printing and going on.
set(FERRY_FUZZ_SANITIZERS address,undefined)
add_compile_options(-fsanitize=fuzzer-no-link,${FERRY_FUZZ_SANITIZERS} -fno-sanitize-recover=all
                    -fno-omit-frame-pointer)
set(FERRY_FUZZ_SECONDS 60 CACHE STRING "How long each fuzz.<target> CTest test fuzzes")

# Leaves every target of src/ out of `all`: the fuzz executables pull in the static
# libraries they link, and nothing links Ferry's sanitized objects into a shared object or
# the CLI, which would need the sanitizer runtimes only the fuzz executables link.
function(ferry_fuzz_only_libraries dir)
  get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
  if(targets)
    set_target_properties(${targets} PROPERTIES EXCLUDE_FROM_ALL ON)
  endif()
  get_property(subdirs DIRECTORY ${dir} PROPERTY SUBDIRECTORIES)
  foreach(sub IN LISTS subdirs)
    ferry_fuzz_only_libraries(${sub})
  endforeach()
endfunction()

# ferry_add_fuzzer(NAME <target> SOURCES <files...> LIBS <libs...>)
#   Called from a layer's tests/<layer>/fuzz.cmake. The executable fuzz_<target>, and the
#   CTest test fuzz.<target> (label fuzz) that runs it for FERRY_FUZZ_SECONDS on the seed
#   corpus in corpus/<target>/ beside the sources (and corpus/<target>.dict, where one
#   exists). New inputs go to the build directory, never the source tree; a crash fails the
#   test and leaves its input under fuzz/artifacts/<target>/.
function(ferry_add_fuzzer)
  cmake_parse_arguments(F "" "NAME" "SOURCES;LIBS" ${ARGN})
  set(here ${CMAKE_CURRENT_LIST_DIR})  # the calling fuzz.cmake's directory
  set(exe fuzz_${F_NAME})
  list(TRANSFORM F_SOURCES PREPEND ${here}/)
  add_executable(${exe} ${F_SOURCES})
  target_include_directories(${exe} PRIVATE ${PROJECT_SOURCE_DIR}/tests/support)
  target_link_libraries(${exe} PRIVATE ${F_LIBS})
  target_link_options(${exe} PRIVATE -fsanitize=fuzzer,${FERRY_FUZZ_SANITIZERS})

  set(seeds ${here}/corpus/${F_NAME})
  set(work ${PROJECT_BINARY_DIR}/fuzz/corpus/${F_NAME})
  set(artifacts ${PROJECT_BINARY_DIR}/fuzz/artifacts/${F_NAME}/)
  file(MAKE_DIRECTORY ${work} ${artifacts})
  set(args -max_total_time=${FERRY_FUZZ_SECONDS} -timeout=10 -print_final_stats=1 -artifact_prefix=${artifacts})
  if(EXISTS ${here}/corpus/${F_NAME}.dict)
    list(APPEND args -dict=${here}/corpus/${F_NAME}.dict)
  endif()
  add_test(NAME fuzz.${F_NAME} COMMAND ${exe} ${args} ${work} ${seeds})
  math(EXPR limit "${FERRY_FUZZ_SECONDS} + 120")
  set_tests_properties(fuzz.${F_NAME} PROPERTIES LABELS fuzz TIMEOUT ${limit}
                       ENVIRONMENT "UBSAN_OPTIONS=print_stacktrace=1;ASAN_OPTIONS=detect_leaks=1")
endfunction()

# The seed generator (tests/support/fuzz_seeds.cpp): writes the corpora from Ferry's own
# encoders and from device images of clang-16 programs (scripts/fuzz.sh --seeds).
function(ferry_add_fuzz_seed_generator)
  add_executable(fuzz_seeds ${PROJECT_SOURCE_DIR}/tests/support/fuzz_seeds.cpp)
  target_link_libraries(fuzz_seeds PRIVATE ferry_offload)
  target_link_options(fuzz_seeds PRIVATE -fsanitize=${FERRY_FUZZ_SANITIZERS})
endfunction()

# One fuzz.cmake per layer, in the test directories that mirror src/ (included, so that a
# layer's CMakeLists.txt stays free for the normal build's tests).
macro(ferry_add_fuzz_tests)
  enable_testing()
  foreach(layer platform comm service offload tools)
    include(${PROJECT_SOURCE_DIR}/tests/${layer}/fuzz.cmake)
  endforeach()
  ferry_add_fuzz_seed_generator()
endmacro()
