# libFuzzer targets of the platform layer, included by the fuzz build only (FERRY_FUZZ,
# cmake/FerryFuzz.cmake; docs/robustness.md, "Fuzzing").
ferry_add_fuzzer(NAME settings SOURCES fuzz_settings.cpp LIBS ferry_platform)
