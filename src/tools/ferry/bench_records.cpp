#include "tools/ferry/bench_records.h"

#include <fstream>
#include <utility>

namespace ferry::tools::bench {
namespace {

// A whole-number field, refused (as a type error) unless it is one that fits T. get<T>()
// casts any number, and a float beyond T's range (1e30, or an integer too long for 64 bits,
// which the parser keeps as a float) is undefined behaviour there; fuzz.bench_records found it.
template <typename T>
T whole(const nlohmann::json& j) {
  if (j.is_number_unsigned() && std::in_range<T>(j.get<uint64_t>())) return static_cast<T>(j.get<uint64_t>());
  if (j.is_number_integer() && !j.is_number_unsigned() && std::in_range<T>(j.get<int64_t>()))
    return static_cast<T>(j.get<int64_t>());
  throw nlohmann::json::type_error::create(302, "expected a whole number in range, not " + j.dump(), &j);
}

void addLine(RunRecords& r, const nlohmann::json& j) {
  if (j.contains("test") && j.contains("size") && j.contains("value") && !j.contains("counter")) {
    Figure f{j.at("value").get<double>(), j.value("unit", ""), j.contains("iters") ? whole<uint64_t>(j.at("iters")) : 0};
    r.figures[{j.at("test").get<std::string>(), whole<uint64_t>(j.at("size"))}] = f;
  } else if (j.contains("counter")) {
    r.counters[{j.at("test").get<std::string>(), j.at("counter").get<std::string>()}] = whole<uint64_t>(j.at("value"));
  } else if (j.contains("device")) {
    r.devices.push_back({whole<int>(j.at("device")), whole<int>(j.at("rank")), whole<int>(j.at("node")),
                         j.value("host", "")});
  } else if (j.contains("run")) {
    r.run = j.at("run");
  } else if (j.contains("validation")) {
    r.checks = whole<long>(j.at("validation").at("checks"));
    r.failures = whole<long>(j.at("validation").at("failures"));
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
