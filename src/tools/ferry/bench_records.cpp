#include "tools/ferry/bench_records.h"

#include <fstream>

namespace ferry::tools::bench {
namespace {

void addLine(RunRecords& r, const nlohmann::json& j) {
  if (j.contains("test") && j.contains("size") && j.contains("value") && !j.contains("counter")) {
    Figure f{j.at("value").get<double>(), j.value("unit", ""), j.value("iters", uint64_t{0})};
    r.figures[{j.at("test").get<std::string>(), j.at("size").get<uint64_t>()}] = f;
  } else if (j.contains("counter")) {
    r.counters[{j.at("test").get<std::string>(), j.at("counter").get<std::string>()}] = j.at("value").get<uint64_t>();
  } else if (j.contains("device")) {
    r.devices.push_back({j.at("device").get<int>(), j.at("rank").get<int>(), j.at("node").get<int>(),
                         j.value("host", "")});
  } else if (j.contains("run")) {
    r.run = j.at("run");
  } else if (j.contains("validation")) {
    r.checks = j.at("validation").at("checks").get<long>();
    r.failures = j.at("validation").at("failures").get<long>();
  } else {
    r.rows.push_back(j);
  }
}

}  // namespace

const Figure* RunRecords::find(const std::string& test, uint64_t size) const {
  auto it = figures.find({test, size});
  return it == figures.end() ? nullptr : &it->second;
}

double RunRecords::value(const std::string& test, uint64_t size) const {
  const Figure* f = find(test, size);
  return f ? f->value : NAN;
}

Result<RunRecords> readRecords(const std::string& path) {
  std::ifstream in(path);
  if (!in) return Status(Errc::NotFound, "the run wrote no results to " + path);
  RunRecords r;
  int lineNo = 0;
  for (std::string line; std::getline(in, line);) {
    ++lineNo;
    if (line.empty()) continue;
    try {
      addLine(r, nlohmann::json::parse(line));
    } catch (const nlohmann::json::exception& e) {
      return Status(Errc::Protocol, path + ":" + std::to_string(lineNo) + ": " + e.what());
    }
  }
  return r;
}

}  // namespace ferry::tools::bench
