# bench/wave2d, the wave-equation proxy app (docs/hybrid.md): every variant, schedule and
# blocking depth against the serial reference that the same run computes. Each test passes
# when the program prints PASS, which with the default tolerance of 0 means bitwise equal
# to the reference (bench/wave2d/wave2d_scheme.h says why that holds). No timing is asserted.
# Included by tests/bench/CMakeLists.txt (bench_test, BENCH_* come from there).
if(NOT TARGET wave2d)
  return()
endif()

set(WAVE2D ${BENCH_BIN}/wave2d)
set(WAVE2D_OFFLOAD ${BENCH_BIN}/wave2d_offload)
# Small enough for a few seconds on 2 shared cores, large enough that the pulse crosses every
# rank boundary (its tail reaches every node from the first step) and a block is >= 4 wide.
set(WAVE2D_ARGS --grid 61x47 --steps 24 --reps 2)
set(WAVE2D_OK --exit zero --max-seconds 90 --pattern "verification: max \\|u - u_ref\\| = 0 .*: PASS" --forbid FAIL)
# MPICH busy-polls: at most 2 ranks on this machine (docs/benchmarking.md).
set(wave2d_max_ranks ${FERRY_TEST_MAX_RANKS})
if(FERRY_MPI_FLAVOR STREQUAL "mpich")
  set(wave2d_max_ranks 2)
endif()
# Threads sleep when they wait: a spinning barrier with more threads than cores (the tb
# wavefront meets one per grid row) makes a 4-rank x 2-thread test take minutes instead of ms.
set(WAVE2D_ENV "OMP_WAIT_POLICY=passive")

# wave2d_case(<name> NP <ranks> [THREADS <t>] ARGS <wave2d options>): bench.wave2d.<name>.
function(wave2d_case name)
  cmake_parse_arguments(T "" "NP;THREADS" "ARGS" ${ARGN})
  if(T_NP GREATER wave2d_max_ranks)
    return()
  endif()
  if(NOT T_THREADS)
    set(T_THREADS 1)
  endif()
  math(EXPR cpus "${T_NP} * ${T_THREADS}")
  bench_test(wave2d.${name} NP ${cpus} ENV ${WAVE2D_ENV} OMP_NUM_THREADS=${T_THREADS}
    COMMAND ${Python3_EXECUTABLE} ${EXPECT} ${WAVE2D_OK} --
      ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_NP} ${MPIEXEC_PREFLAGS} ${WAVE2D} ${MPIEXEC_POSTFLAGS}
      ${WAVE2D_ARGS} ${T_ARGS})
endfunction()

# MPI only, on 1, 2, 3 (odd: a 3 x 1 grid of ranks) and 4 (2 x 2) ranks, and the process
# grid forced both ways (all columns split: the strided east-west halos carry everything).
foreach(np 1 2 3 4)
  wave2d_case(mpi.np${np} NP ${np} ARGS --variant mpi)
endforeach()
wave2d_case(mpi.np4.procs4x1 NP 4 ARGS --variant mpi --procs 4x1)
wave2d_case(mpi.np2.procs2x1 NP 2 ARGS --variant mpi --procs 2x1)

# MPI+OpenMP: every schedule kind on 2 ranks x 2 threads; one more on 3 ranks and on 1.
foreach(sched static static,1 dynamic guided)
  string(REPLACE "," "_" tag ${sched})
  wave2d_case(hybrid.${tag}.np2 NP 2 THREADS 2 ARGS --variant hybrid --schedule ${sched})
endforeach()
wave2d_case(hybrid.dynamic_3.np3 NP 3 THREADS 2 ARGS --variant hybrid --schedule dynamic,3)
wave2d_case(hybrid.guided.np1 NP 1 THREADS 2 ARGS --variant hybrid --schedule guided)

# Temporal blocking, depths 1..4: ghost-zone expansion and the wavefront, on a 2 x 2 grid of
# ranks (wide halos with corners) and on 2 x 1 (columns split: wide strided halos). 24 steps
# are whole blocks of 1..4, so the 3-rank and 1-rank cases take 23: their last block is
# shorter than the depth.
foreach(depth 1 2 3 4)
  foreach(v ghost tb)
    wave2d_case(${v}.depth${depth}.np4 NP 4 THREADS 2 ARGS --variant ${v} --depth ${depth} --schedule dynamic)
    wave2d_case(${v}.depth${depth}.np2 NP 2 ARGS --variant ${v} --depth ${depth} --procs 2x1)
  endforeach()
endforeach()
wave2d_case(ghost.depth3.np3 NP 3 ARGS --variant ghost --depth 3 --steps 23)
wave2d_case(tb.depth4.np3 NP 3 THREADS 2 ARGS --variant tb --depth 4 --steps 23)
wave2d_case(tb.depth4.np1 NP 1 THREADS 2 ARGS --variant tb --depth 4 --steps 23)

# Clear refusals, before any step: a process grid that is not the job's, a depth wider than
# a block.
bench_test(wave2d.bad_procs NP 2 COMMAND ${Python3_EXECUTABLE} ${EXPECT} --exit 2 --max-seconds 60
  --pattern "--procs PXxPY must multiply to the number of ranks" --
  ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS} ${WAVE2D} ${MPIEXEC_POSTFLAGS} --procs 3x1)
bench_test(wave2d.too_deep NP 2 COMMAND ${Python3_EXECUTABLE} ${EXPECT} --exit 2 --max-seconds 60
  --pattern "a block is narrower than the depth" --
  ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS} ${WAVE2D} ${MPIEXEC_POSTFLAGS}
  --grid 8x8 --variant tb --depth 5)

# The offload variant under `ferry run`: 1 device (no halo), 2 devices on 2 ranks, 3 devices
# across 2 virtual nodes (the halo rows between ranks 1 and 2 take the MPI path), 2 devices
# of one rank (MPICH's 2-rank layout); no byte of the steps may pass through rank 0. Then
# the stock plugin in-process, the baseline of run_wave2d.py.
set(WAVE2D_FERRY_OK ${WAVE2D_OK} --pattern "bytes through rank 0 during the steps: 0 ")
function(wave2d_offload_case name np)
  if(np GREATER wave2d_max_ranks)
    return()
  endif()
  bench_test(wave2d.offload.${name} NP ${np} ENV ${WAVE2D_ENV} ${ARGN}
    COMMAND ${Python3_EXECUTABLE} ${EXPECT} ${WAVE2D_FERRY_OK} --
      ${FERRY_CLI} run -n ${np} ${WAVE2D_OFFLOAD} ${WAVE2D_ARGS})
endfunction()
wave2d_offload_case(np2 2)
wave2d_offload_case(np3 3)
wave2d_offload_case(np4.vnodes2 4 FERRY_VIRTUAL_NODES=2)
wave2d_offload_case(np2.dpr2 2 FERRY_DEVICES_PER_RANK=2)
bench_test(wave2d.offload.stock NP 2 ENV ${WAVE2D_ENV} "LD_LIBRARY_PATH=${FERRY_LLVM_LIBDIR}"
  COMMAND ${Python3_EXECUTABLE} ${EXPECT} ${WAVE2D_OK} --pattern "plugin=stock devices=3" --
    ${WAVE2D_OFFLOAD} ${WAVE2D_ARGS} --devices 3)

# The run script end to end, tiny and once: every figure's table, CSV (and PNG where
# matplotlib is found), each run verified against its reference.
bench_test(wave2d.run_script NP 2 TIMEOUT 300 ENV ${WAVE2D_ENV} COMMAND ${Python3_EXECUTABLE} ${EXPECT} --exit zero
  --max-seconds 280 --pattern "wave2d_summary.csv" --forbid "FAIL" --
  ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/bench/wave2d/run_wave2d.py ${PROJECT_BINARY_DIR} ${BENCH_OUT}/wave2d_run
  --quick)

get_property(wave2d_tests DIRECTORY PROPERTY TESTS)
list(FILTER wave2d_tests INCLUDE REGEX "^bench\\.wave2d\\.")
set_tests_properties(${wave2d_tests} PROPERTIES LABELS "bench;wave2d")
