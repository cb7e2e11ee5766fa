# libFuzzer targets of the comm layer, included by the fuzz build only (FERRY_FUZZ,
# cmake/FerryFuzz.cmake; docs/robustness.md, "Fuzzing").
ferry_add_fuzzer(NAME protocol SOURCES fuzz_protocol.cpp LIBS ferry_comm)
ferry_add_fuzzer(NAME channel SOURCES fuzz_channel.cpp LIBS ferry_channel)
