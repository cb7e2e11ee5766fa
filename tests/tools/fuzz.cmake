# libFuzzer targets of the ferry CLI, included by the fuzz build only (FERRY_FUZZ,
# cmake/FerryFuzz.cmake; docs/robustness.md, "Fuzzing").
ferry_add_fuzzer(NAME bench_records SOURCES fuzz_bench_records.cpp LIBS ferry_bench_rows)
