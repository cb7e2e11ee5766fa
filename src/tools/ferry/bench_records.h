// The JSON-lines file a measuring program writes (bench/offload/report.c, bench/xs): figures
// keyed by test and size, counters, the device layout and the validation summary.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "platform/status.h"

namespace ferry::tools::bench {

struct Figure {
  double value = NAN;
  std::string unit;
  uint64_t iters = 0;
};

struct DeviceRecord {
  int device = 0, rank = -1, node = 0;
  std::string host;
};

struct RunRecords {
  std::map<std::pair<std::string, uint64_t>, Figure> figures;       // (test, size)
  std::map<std::pair<std::string, std::string>, uint64_t> counters;  // (test, counter)
  std::vector<DeviceRecord> devices;
  std::vector<nlohmann::json> rows;  // any other object, for programs with their own schema
  nlohmann::json run;                // the program's description of the run
  long checks = -1, failures = -1;   // -1: the program did not get to its end

  // NaN when the run lacks it.
  double value(const std::string& test, uint64_t size) const;
  const Figure* find(const std::string& test, uint64_t size) const;
};

Result<RunRecords> readRecords(const std::string& path);

}  // namespace ferry::tools::bench
