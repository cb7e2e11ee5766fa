# The sanitizer builds (FERRY_SANITIZE; docs/robustness.md, "Sanitizers"). Each lives in a
# build directory of its own (CMakePresets.json: asan, asan-mpich, tsan) and compiles and links
# every Ferry library, executable and test program that CMake builds with gcc's sanitizers:
#
#   address   AddressSanitizer + UndefinedBehaviorSanitizer (LeakSanitizer included)
#   thread    ThreadSanitizer
#
# The OpenMP programs clang-16 builds are not instrumented: they load the instrumented plugin,
# and the test environment (tests/FerryTesting.cmake) preloads gcc's runtimes into them.
# The default build (FERRY_SANITIZE empty) is unaffected.

set(FERRY_SANITIZE "" CACHE STRING "Sanitizer build: empty (none), address (ASan+UBSan) or thread (TSan)")
set_property(CACHE FERRY_SANITIZE PROPERTY STRINGS "" address thread)

if(FERRY_SANITIZE STREQUAL "" OR FERRY_SANITIZE STREQUAL "OFF")
  return()
endif()
if(FERRY_FUZZ)
  message(FATAL_ERROR "FERRY_SANITIZE and FERRY_FUZZ are separate builds: configure each in a directory of its own")
endif()
if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # The test environment preloads gcc's runtimes (libasan, libubsan, libtsan) by path.
  message(FATAL_ERROR "FERRY_SANITIZE is written for gcc's sanitizer runtimes; CMAKE_CXX_COMPILER is ${CMAKE_CXX_COMPILER_ID}")
endif()

if(FERRY_SANITIZE STREQUAL "address")
  set(FERRY_SANITIZE_FLAGS -fsanitize=address,undefined)
  set(FERRY_SANITIZE_RUNTIMES asan ubsan)
elseif(FERRY_SANITIZE STREQUAL "thread")
  set(FERRY_SANITIZE_FLAGS -fsanitize=thread)
  set(FERRY_SANITIZE_RUNTIMES tsan)
else()
  message(FATAL_ERROR "FERRY_SANITIZE=${FERRY_SANITIZE}: use address, thread or leave it empty")
endif()

# Frame pointers give LSan's and TSan's malloc stacks their frames (fast unwinding); a UBSan
# finding aborts instead of printing and going on, so that it fails the test that hit it.
add_compile_options(${FERRY_SANITIZE_FLAGS} -fno-omit-frame-pointer)
if(FERRY_SANITIZE STREQUAL "address")
  add_compile_options(-fno-sanitize-recover=undefined)
endif()
add_link_options(${FERRY_SANITIZE_FLAGS})

# The runtimes' files, for the tests' LD_PRELOAD: a process that is not itself linked with
# them (clang-16's OpenMP programs, the MPI launchers, Python) must have them loaded first
# before it can load an instrumented Ferry library (the plugin, libferry-pmpi.so).
set(FERRY_SANITIZE_PRELOAD "")
foreach(rt IN LISTS FERRY_SANITIZE_RUNTIMES)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -print-file-name=lib${rt}.so
                  OUTPUT_VARIABLE path OUTPUT_STRIP_TRAILING_WHITESPACE)
  get_filename_component(path "${path}" REALPATH)
  if(NOT EXISTS "${path}")
    message(FATAL_ERROR "FERRY_SANITIZE=${FERRY_SANITIZE}: gcc's lib${rt}.so not found (apt-get install lib${rt}8 or the like)")
  endif()
  list(APPEND FERRY_SANITIZE_PRELOAD ${path})
endforeach()
list(JOIN FERRY_SANITIZE_PRELOAD ":" FERRY_SANITIZE_PRELOAD)
message(STATUS "Ferry: sanitizer build (${FERRY_SANITIZE}), test runtimes ${FERRY_SANITIZE_PRELOAD}")
