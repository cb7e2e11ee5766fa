# libFuzzer targets of the service layer, included by the fuzz build only (FERRY_FUZZ,
# cmake/FerryFuzz.cmake; docs/robustness.md, "Fuzzing").
ferry_add_fuzzer(NAME offload_binary SOURCES fuzz_offload_binary.cpp LIBS ferry_service)
ferry_add_fuzzer(NAME image SOURCES fuzz_image.cpp LIBS ferry_service)
ferry_add_fuzzer(NAME host_maps SOURCES fuzz_host_maps.cpp LIBS ferry_service)
