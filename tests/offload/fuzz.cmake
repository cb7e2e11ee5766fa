# libFuzzer targets of the offload layer, included by the fuzz build only (FERRY_FUZZ,
# cmake/FerryFuzz.cmake; docs/robustness.md, "Fuzzing").
ferry_add_fuzzer(NAME host_image SOURCES fuzz_host_image.cpp LIBS ferry_offload)
ferry_add_fuzzer(NAME device_table SOURCES fuzz_device_table.cpp LIBS ferry_offload)
