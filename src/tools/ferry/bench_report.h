// What `ferry bench` prints and writes: the preamble that makes a figure reproducible
// (command, versions, machine, load), aligned text tables, CSV files, and the plots.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platform/status.h"
#include "platform/spread.h"

namespace ferry::tools::bench {

// The exact command line, date, host, CPU, load average, Ferry version and commit, MPI
// library, offload compiler: one "key: value" per line.
std::vector<std::string> preamble(const std::vector<std::string>& command);
// "load average 0.52 0.71 0.80 (1/5/15 min) on 2 cores".
std::string loadLine();
// "Ferry 0.1.0 (commit), host, date": the title of the plots.
std::string plotTitle();
// Writes one line per entry (the preamble next to the CSV files).
Status writeLines(const std::string& path, const std::vector<std::string>& lines);

// Columns are padded to the widest cell; the first column is left-aligned, the rest right.
class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void add(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  void print(FILE* out, const std::string& indent = "  ") const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

class CsvWriter {
 public:
  static Result<CsvWriter> open(const std::string& path, const std::vector<std::string>& header);
  void row(const std::vector<std::string>& cells);
  CsvWriter(CsvWriter&& o) noexcept : f_(o.f_) { o.f_ = nullptr; }
  CsvWriter(const CsvWriter&) = delete;
  ~CsvWriter();

 private:
  explicit CsvWriter(FILE* f) : f_(f) {}
  FILE* f_ = nullptr;
};

std::string bytesLabel(uint64_t bytes);          // 1 B, 8 KiB, 64 MiB
std::string number(double v, int significant = 3);  // "-" for NaN
std::string csvNumber(double v);                 // full precision, empty for NaN
std::string spreadLabel(const Spread& s);        // "1.10-1.32", "-" when unknown

// Runs `script` with matplotlib's Python (python3-matplotlib); the reason when it cannot.
Status runPlot(const std::string& python, const std::string& script, const std::vector<std::string>& args,
               const std::string& logPath);

// Where a file shipped with Ferry lives: next to the CLI (build tree: build/bin), under
// <prefix>/libexec/ferry or <prefix>/share/ferry/bench (install), or in the source tree.
Result<std::string> findBenchFile(const std::string& name);

}  // namespace ferry::tools::bench
