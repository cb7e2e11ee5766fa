# Install layout (mirrors the build tree):
#   bin/ferry                                   the CLI
#   <libdir>/ferry/offload/libomptarget.rtl.x86_64{.nextgen,}.so   the offload plugin
#   <libdir>/ferry/offload/libomptarget.rtl.cuda{.nextgen,}.so     declines the cuda slot
#   include/ferry/*.h                           public C headers
#   <libdir>/cmake/Ferry/FerryConfig.cmake      find_package(Ferry)
#   <libdir>/pkgconfig/ferry.pc                 pkg-config ferry
#   <libdir>/libferry-shmem.so, include/ferry/shmem/shmem.h, bin/oshcc, oshc++, oshrun
#   <libdir>/pkgconfig/ferry-shmem.pc           pkg-config ferry-shmem (OpenSHMEM)
include(CMakePackageConfigHelpers)
set(FERRY_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/Ferry)
set(FERRY_INSTALL_PLUGINDIR ${CMAKE_INSTALL_LIBDIR}/${FERRY_PLUGIN_SUBDIR})

# These link only Ferry's static libraries and system ones; MPI's wrapper flags already
# carry the RUNPATH they need, which CMake's install-time RPATH rewrite would trip over.
set_target_properties(ferry ferry_omptarget_plugin PROPERTIES SKIP_BUILD_RPATH ON)
install(TARGETS ferry ferry-serve RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS ferry_omptarget_plugin ferry_cuda_slot_stub LIBRARY DESTINATION ${FERRY_INSTALL_PLUGINDIR})
foreach(slot x86_64 cuda)
  install(CODE "execute_process(COMMAND ${CMAKE_COMMAND} -E create_symlink libomptarget.rtl.${slot}.nextgen.so
                 \$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${FERRY_INSTALL_PLUGINDIR}/libomptarget.rtl.${slot}.so)")
endforeach()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/ferry DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Ferry::headers: the public C headers (ferry_offload.h needs only libdl).
add_library(ferry_headers INTERFACE)
add_library(Ferry::headers ALIAS ferry_headers)
target_include_directories(ferry_headers INTERFACE $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
                                                   $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
target_link_libraries(ferry_headers INTERFACE ${CMAKE_DL_LIBS})
set_target_properties(ferry_headers PROPERTIES EXPORT_NAME headers)
set(FERRY_EXPORTED_TARGETS ferry_headers)

# ---- collectives: libferry-coll / libferry-pmpi (src/coll) ----------------------------
if(TARGET ferry_coll)
  set_target_properties(ferry_coll ferry_pmpi PROPERTIES SKIP_BUILD_RPATH ON)
  install(TARGETS ferry_coll ferry_pmpi LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  # MPI is added to both by FerryConfig.cmake, which finds the MPI Ferry was built against
  # in the consumer's own languages.
  list(APPEND FERRY_EXPORTED_TARGETS ferry_coll ferry_pmpi)
  set_target_properties(ferry_coll PROPERTIES EXPORT_NAME coll)
  set_target_properties(ferry_pmpi PROPERTIES EXPORT_NAME pmpi)
  set(FERRY_PC_LIBS "-L\${libdir} -lferry-coll")
  # pkg-config: ferry_coll.h includes mpi.h, so the MPI module is required, not private.
  if(FERRY_MPI_FLAVOR STREQUAL "mpich")
    set(FERRY_PC_REQUIRES "Requires: mpich")
  else()
    set(FERRY_PC_REQUIRES "Requires: ompi-c")
  endif()
endif()
# ------------------------------------------------------------------------------------------

# ---- OpenSHMEM: libferry-shmem, shmem.h, oshcc/oshc++/oshrun (src/shmem, docs/shmem.md) ----
if(TARGET ferry_shmem)
  set_target_properties(ferry_shmem PROPERTIES SKIP_BUILD_RPATH ON)
  install(TARGETS ferry_shmem LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  list(APPEND FERRY_EXPORTED_TARGETS ferry_shmem)
  set_target_properties(ferry_shmem PROPERTIES EXPORT_NAME shmem)
  # The wrappers again, pointing into the install tree; the headers go with include/ferry.
  # Relative to the prefix the script finds from where it is (oshcc.in): an install moves.
  set(FERRY_SHMEM_INCLUDE_DIR "\${prefix}/${CMAKE_INSTALL_INCLUDEDIR}/ferry/shmem")
  set(FERRY_SHMEM_LIB_DIR "\${prefix}/${CMAKE_INSTALL_LIBDIR}")
  set(FERRY_SHMEM_MPIEXEC ${MPIEXEC_EXECUTABLE})
  foreach(tool oshcc oshc++ oshrun)
    set(FERRY_SHMEM_WRAPPED ${FERRY_SHMEM_CC})  # full paths, found in src/CMakeLists.txt
    if(tool STREQUAL "oshc++")
      set(FERRY_SHMEM_WRAPPED ${FERRY_SHMEM_CXX})
    endif()
    set(template oshcc.in)
    if(tool STREQUAL "oshrun")
      set(template oshrun.in)
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/src/shmem/tools/${template} ${PROJECT_BINARY_DIR}/install-tools/${tool} @ONLY)
    install(PROGRAMS ${PROJECT_BINARY_DIR}/install-tools/${tool} DESTINATION ${CMAKE_INSTALL_BINDIR})
  endforeach()
  if(FERRY_MPI_FLAVOR STREQUAL "mpich")
    set(FERRY_SHMEM_PC_REQUIRES "Requires: mpich")
  else()
    set(FERRY_SHMEM_PC_REQUIRES "Requires: ompi-c")
  endif()
endif()
# ------------------------------------------------------------------------------------------

# ---- benchmarks: `ferry bench offload` and `ferry bench xs` (bench/offload, bench/xs) -----
# The measuring programs go to <libexec>/ferry (not on PATH), the plot scripts to
# <datadir>/ferry/bench; the CLI looks for them there (src/tools/ferry/bench_report.cpp).
if(TARGET ferry_offload_bench)
  install(PROGRAMS ${PROJECT_BINARY_DIR}/bin/ferry_offload_bench ${PROJECT_BINARY_DIR}/bin/ferry_xs
          DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ferry)
  if(TARGET ferry_offload_bench_gpu)
    install(PROGRAMS ${PROJECT_BINARY_DIR}/bin/ferry_offload_bench_gpu DESTINATION ${CMAKE_INSTALL_LIBEXECDIR}/ferry)
  endif()
  install(PROGRAMS ${PROJECT_SOURCE_DIR}/bench/offload/plot_offload.py ${PROJECT_SOURCE_DIR}/bench/xs/plot_xs.py
          DESTINATION ${CMAKE_INSTALL_DATADIR}/ferry/bench)
endif()
# ------------------------------------------------------------------------------------------

install(TARGETS ${FERRY_EXPORTED_TARGETS} EXPORT FerryTargets)
install(EXPORT FerryTargets NAMESPACE Ferry:: DESTINATION ${FERRY_INSTALL_CMAKEDIR})
# The wrappers of the MPI Ferry was built with, which FerryConfig.cmake has a consumer use.
# By full path: -DMPI_C_COMPILER=mpicc.mpich given again on a reconfigure stays a bare name,
# which the consumer's find_package then cannot find, and takes the first mpicc on PATH.
set(FERRY_MPI_C_WRAPPER "${MPI_C_COMPILER}")
if(NOT IS_ABSOLUTE "${FERRY_MPI_C_WRAPPER}")
  find_program(FERRY_MPI_C_WRAPPER_PATH NAMES "${FERRY_MPI_C_WRAPPER}" NO_CACHE)
  if(FERRY_MPI_C_WRAPPER_PATH)
    set(FERRY_MPI_C_WRAPPER "${FERRY_MPI_C_WRAPPER_PATH}")
  endif()
endif()
string(REPLACE "mpicc" "mpicxx" FERRY_MPI_CXX_WRAPPER "${FERRY_MPI_C_WRAPPER}")
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/FerryConfig.cmake.in
  ${PROJECT_BINARY_DIR}/FerryConfig.cmake INSTALL_DESTINATION ${FERRY_INSTALL_CMAKEDIR}
  PATH_VARS FERRY_INSTALL_PLUGINDIR CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/FerryConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/FerryConfig.cmake ${PROJECT_BINARY_DIR}/FerryConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/FerryMpi.cmake
        DESTINATION ${FERRY_INSTALL_CMAKEDIR})

# From <prefix>/<libdir>/pkgconfig back up to <prefix>.
file(RELATIVE_PATH FERRY_PC_UP ${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig ${CMAKE_INSTALL_PREFIX})
string(REGEX REPLACE "/$" "" FERRY_PC_UP "${FERRY_PC_UP}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/ferry.pc.in ${PROJECT_BINARY_DIR}/ferry.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/ferry.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
if(TARGET ferry_shmem)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/ferry-shmem.pc.in ${PROJECT_BINARY_DIR}/ferry-shmem.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/ferry-shmem.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()
