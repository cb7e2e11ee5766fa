#include "tools/ferry/bench_report.h"

#include <mpi.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <vector>

#include "comm/mpi_check.h"
#include "platform/topology.h"
#include "tools/ferry/bench_proc.h"
#include "tools/ferry/ferry_build_info.h"
#include "tools/ferry/launcher.h"

extern char** environ;

namespace ferry::tools::bench {
namespace fs = std::filesystem;
namespace {

std::string cpuModel() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

}  // namespace

std::string loadLine() {
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  char buf[128];
  std::snprintf(buf, sizeof buf, "%.2f %.2f %.2f (1/5/15 min) on %d cores", load[0], load[1], load[2],
                nodeTopology().cores);
  return buf;
}

std::string plotTitle() {
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M", std::localtime(&now));
  struct utsname u {};
  uname(&u);
  return "Ferry " FERRY_VERSION " (" FERRY_BUILD_COMMIT "), " + std::string(u.nodename) + ", " + date;
}

Status writeLines(const std::string& path, const std::vector<std::string>& lines) {
  std::ofstream out(path);
  for (const auto& l : lines) out << l << "\n";
  return out ? Status() : Status(Errc::InvalidArgument, "cannot write " + path);
}

std::vector<std::string> preamble(const std::vector<std::string>& command) {
  std::string cmd;
  for (const auto& a : command) cmd += (cmd.empty() ? "" : " ") + shellWord(a);
  std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S %Z", std::localtime(&now));
  struct utsname u {};
  uname(&u);
  std::vector<std::string> out = {
      "command: " + cmd,
      "date: " + std::string(date),
      std::string("host: ") + u.nodename + ", Linux " + u.release + ", " + cpuModel(),
      "load: " + loadLine(),
      "Ferry: " FERRY_VERSION ", commit " FERRY_BUILD_COMMIT,
      "MPI: " + comm::mpiLibraryName(),
      "offload compiler: " FERRY_BUILD_OFFLOAD_CC,
  };
  std::string settings;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("FERRY_", 0) == 0) settings += (settings.empty() ? "" : " ") + std::string(*e);
  out.push_back("FERRY_* settings: " + (settings.empty() ? std::string("(defaults)") : settings));
  return out;
}

void TextTable::print(FILE* out, const std::string& indent) const {
  std::vector<size_t> width(header_.size(), 0);
  auto measure = [&](const std::vector<std::string>& r) {
    for (size_t i = 0; i < r.size() && i < width.size(); ++i) width[i] = std::max(width[i], r[i].size());
  };
  measure(header_);
  for (const auto& r : rows_) measure(r);
  auto emit = [&](const std::vector<std::string>& r) {
    std::string line = indent;
    for (size_t i = 0; i < width.size(); ++i) {
      std::string cell = i < r.size() ? r[i] : "";
      std::string pad(width[i] - cell.size(), ' ');
      line += i == 0 ? cell + pad : "  " + pad + cell;
    }
    std::fprintf(out, "%s\n", line.c_str());
  };
  emit(header_);
  for (const auto& r : rows_) emit(r);
}

Result<CsvWriter> CsvWriter::open(const std::string& path, const std::vector<std::string>& header) {
  FILE* f = std::fopen(path.c_str(), "w");
  if (!f) return Status(Errc::InvalidArgument, "cannot write " + path);
  CsvWriter w(f);
  w.row(header);
  return w;
}

void CsvWriter::row(const std::vector<std::string>& cells) {
  for (size_t i = 0; i < cells.size(); ++i) {
    const std::string& c = cells[i];
    bool quote = c.find_first_of(",\"\n") != std::string::npos;
    std::string cell = c;
    if (quote) {
      cell = "\"";
      for (char ch : c) cell += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      cell += "\"";
    }
    std::fprintf(f_, "%s%s", i ? "," : "", cell.c_str());
  }
  std::fprintf(f_, "\n");
}

CsvWriter::~CsvWriter() {
  if (f_) std::fclose(f_);
}

std::string bytesLabel(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  uint64_t v = bytes;
  while (u < 3 && v >= 1024 && v % 1024 == 0) v /= 1024, ++u;
  return std::to_string(v) + " " + units[u];
}

std::string number(double v, int significant) {
  if (std::isnan(v)) return "-";
  char buf[64];
  // Large figures as whole numbers: "12345", never "1.23e+04".
  if (std::fabs(v) >= std::pow(10.0, significant)) std::snprintf(buf, sizeof buf, "%.0f", v);
  else std::snprintf(buf, sizeof buf, "%.*g", significant, v);
  return buf;
}

std::string csvNumber(double v) {
  if (std::isnan(v)) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

std::string spreadLabel(const Spread& s) {
  if (!s.valid()) return "-";
  return number(s.min) + "-" + number(s.max);
}

Status runPlot(const std::string& python, const std::string& script, const std::vector<std::string>& args,
               const std::string& logPath) {
  ChildSpec spec;
  spec.argv = {python, script};
  spec.argv.insert(spec.argv.end(), args.begin(), args.end());
  spec.logPath = logPath;
  spec.timeoutSeconds = 120;
  auto r = runChild(spec);
  if (!r) return r.takeStatus();
  if (r->exitCode != 0)
    return Status(Errc::Unavailable, python + " " + script + " exited " + std::to_string(r->exitCode) + ":\n" +
                                         tailOf(logPath, 5) +
                                         "  (the plots need matplotlib: apt-get install python3-matplotlib)");
  return {};
}

Result<std::string> findBenchFile(const std::string& name) {
  fs::path bin = selfDir();
  std::vector<fs::path> places = {bin / name, bin.parent_path() / FERRY_INSTALL_BENCHDIR / name,
                                  bin.parent_path() / FERRY_INSTALL_PLOTDIR / name};
  // The plot scripts of a build tree are in its source tree; an install has its own.
  if (inBuildTree())
    for (const char* dir : {"offload", "xs"}) places.push_back(fs::path(FERRY_BUILD_SOURCE_DIR) / "bench" / dir / name);
  for (const fs::path& p : places)
    if (fs::exists(p)) return p.string();
  return Status(Errc::NotFound, name + " is not in " + bin.string() + ", " +
                                    (bin.parent_path() / FERRY_INSTALL_BENCHDIR).string() +
                                    " nor in the source tree; build it (cmake --build build)");
}

}  // namespace ferry::tools::bench
