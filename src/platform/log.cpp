#include "platform/log.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <vector>

#include "platform/parse.h"

namespace ferry::log {
namespace detail {
std::atomic<uint8_t> gLevel{static_cast<uint8_t>(Level::Warn)};
std::atomic<uint32_t> gSubs{Sub::All};
}  // namespace detail

namespace {

struct NamedSub { const char* name; uint32_t bit; };
constexpr NamedSub kSubs[] = {{"init", Init},       {"config", Config},   {"comm", Comm},
                              {"shm", Shm},         {"offload", Offload}, {"service", Service},
                              {"coll", Coll},       {"bench", Bench},     {"bind", Bind},
                              {"shmem", Shmem},     {"all", All}};
constexpr const char* kLevelNames[] = {"none", "error", "warn", "info", "debug", "trace"};
constexpr const char* kLevelTags[] = {"", "ERROR", "WARN", "INFO", "DEBUG", "TRACE"};

std::atomic<int> gRank{-1};
std::atomic<const char*> gLabel{nullptr};
std::mutex gWriteMutex;
FILE* gOut = nullptr;                  // nullptr means stderr
std::atomic<int> gOutFd{STDERR_FILENO};  // gOut's descriptor, for writeRaw
std::string* gPendingFile = nullptr;   // a FERRY_LOG_FILE pattern waiting for the rank

int launcherRank() {
  for (const char* var : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"})
    if (const char* v = std::getenv(var)) return std::atoi(v);
  return -1;
}

}  // namespace

namespace {

struct Filter {
  Level level;
  uint32_t subs;
};

// The level a word names, or Level::None.
Level levelNamed(std::string_view word) {
  for (size_t i = 1; i < std::size(kLevelNames); ++i)
    if (word == kLevelNames[i]) return static_cast<Level>(i);
  return Level::None;
}

Result<Filter> parseSpec(std::string_view spec) {
  Level level = Level::Warn;
  uint32_t subs = 0;
  bool first = true, levelGiven = false;
  while (true) {
    size_t comma = spec.find(',');
    // Any case and blanks, as NCCL_DEBUG=INFO is usually written.
    std::string word = parse::keyword(spec.substr(0, comma));
    Level named = levelNamed(word);
    bool matched = first && named != Level::None;
    if (matched) level = named, levelGiven = true;
    if (!matched) {
      for (const auto& s : kSubs)
        if (word == s.name) { subs |= s.bit; matched = true; }
    }
    if (!matched && named != Level::None)
      return Status(Errc::InvalidArgument,
                    "FERRY_LOG: '" + word + "' is a level, and the level comes first (FERRY_LOG=" + word + ",SUBSYS...)");
    if (!matched && !word.empty())
      return Status(Errc::InvalidArgument,
                    "FERRY_LOG: unknown level or subsystem '" + word +
                        "'; expected LEVEL[,SUBSYS...] with LEVEL in error|warn|info|debug|trace "
                        "and SUBSYS in init|config|comm|shm|offload|service|coll|bench|all");
    first = false;
    if (comma == std::string_view::npos) break;
    spec.remove_prefix(comma + 1);
  }
  // Subsystems without a level ("FERRY_LOG=coll") ask to hear from them: at the default
  // level, warn, the filter would change nothing, since warnings are never filtered.
  if (!levelGiven && subs) level = Level::Info;
  return Filter{level, subs ? subs : static_cast<uint32_t>(Sub::All)};
}

}  // namespace

Status checkSpec(std::string_view spec) {
  auto filter = parseSpec(spec);
  return filter ? Status() : filter.takeStatus();
}

Status configure(std::string_view spec) {
  auto filter = parseSpec(spec);
  if (!filter) return filter.takeStatus();
  detail::gLevel = static_cast<uint8_t>(filter->level);
  detail::gSubs = filter->subs;
  return {};
}

namespace {

std::string expandPattern(std::string_view pattern) {
  std::string path;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] == '%' && i + 1 < pattern.size()) {
      char c = pattern[++i];
      if (c == 'r') path += std::to_string(rank());
      else if (c == 'h') path += hostName();
      else if (c == 'p') path += std::to_string(getpid());
      else path += c;
    } else {
      path += pattern[i];
    }
  }
  return path;
}

Status openFile(std::string_view pattern) {
  std::string path = expandPattern(pattern);
  FILE* f = std::fopen(path.c_str(), "a");
  if (!f) return Status(Errc::InvalidArgument, "FERRY_LOG_FILE: cannot open '" + path + "': " + std::strerror(errno));
  std::setvbuf(f, nullptr, _IOLBF, 0);
  std::lock_guard lock(gWriteMutex);
  gOut = f;
  gOutFd = fileno(f);
  return {};
}

bool needsRank(std::string_view pattern) {
  for (size_t i = 0; i + 1 < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    if (pattern[i + 1] == 'r') return true;
    ++i;  // "%%r" is a literal "%r"
  }
  return false;
}

}  // namespace

Status setFile(std::string_view pattern) {
  if (pattern.empty()) return {};
  if (needsRank(pattern) && rank() < 0) {
    // Its directory is checked now, so that a command that starts a job refuses the setting
    // once instead of every rank later.
    size_t slash = pattern.rfind('/');
    std::string dir = slash == std::string_view::npos ? "." : std::string(pattern.substr(0, slash + 1));
    if (dir.find('%') == std::string::npos && access(dir.c_str(), W_OK) != 0)
      return Status(Errc::InvalidArgument, "FERRY_LOG_FILE: cannot write in '" + dir + "': " + std::strerror(errno));
    std::lock_guard lock(gWriteMutex);
    gPendingFile = new std::string(pattern);
    return {};
  }
  return openFile(pattern);
}

void setRank(int r) {
  gRank = r;
  std::string* pending = nullptr;
  {
    std::lock_guard lock(gWriteMutex);
    std::swap(pending, gPendingFile);
  }
  if (!pending) return;
  // The registry accepted the setting long ago; there is no caller left to return this to.
  if (Status st = openFile(*pending); !st) error(Config, "%s; logging to stderr instead", st.message().c_str());
  delete pending;
}

void setLabel(const char* label) { gLabel = label; }

void writeRaw(const char* text, size_t length) { (void)!::write(gOutFd.load(), text, length); }

int rank() {
  int r = gRank.load();
  if (r >= 0) return r;
  // A labelled process is no rank, whatever a launcher variable it inherited says (the CLI
  // in a batch script has SLURM_PROCID=0).
  return gLabel.load() ? -1 : launcherRank();
}

const std::string& hostName() {
  static const std::string* name = [] {
    char buf[256] = {};
    gethostname(buf, sizeof buf - 1);
    return new std::string(buf);
  }();
  return *name;
}

const char* subName(uint32_t sub) {
  for (const auto& s : kSubs)
    if (s.bit == sub) return s.name;
  return "ferry";
}

std::string linePrefix(Level level, uint32_t sub) {
  char prefix[512];
  int r = rank();
  const char* label = gLabel.load();
  std::string who = r >= 0 ? "rank=" + std::to_string(r) : label ? label : "rank=?";
  std::snprintf(prefix, sizeof prefix, "[ferry %s host=%s pid=%d] %s %s: ", who.c_str(), hostName().c_str(), getpid(),
                kLevelTags[static_cast<int>(level)], subName(sub));
  return prefix;
}

void vwrite(Level level, uint32_t sub, const char* fmt, va_list ap) {
  char msg[2048];
  std::vsnprintf(msg, sizeof msg, fmt, ap);
  char line[2400];
  std::snprintf(line, sizeof line, "%s%s\n", linePrefix(level, sub).c_str(), msg);
  std::lock_guard lock(gWriteMutex);
  std::fputs(line, gOut ? gOut : stderr);
}

void write(Level level, uint32_t sub, const char* fmt, ...) {
  if (!enabled(level, sub)) return;
  va_list ap;
  va_start(ap, fmt);
  vwrite(level, sub, fmt, ap);
  va_end(ap);
}

// The per-level entry points differ only in their level; va_list cannot be forwarded
// through a template without the same boilerplate, so they are spelled out.
void error(uint32_t sub, const char* fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vwrite(Level::Error, sub, fmt, ap);
  va_end(ap);
}
void warn(uint32_t sub, const char* fmt, ...) {
  if (!enabled(Level::Warn, sub)) return;
  va_list ap;
  va_start(ap, fmt);
  vwrite(Level::Warn, sub, fmt, ap);
  va_end(ap);
}
void info(uint32_t sub, const char* fmt, ...) {
  if (!enabled(Level::Info, sub)) return;
  va_list ap;
  va_start(ap, fmt);
  vwrite(Level::Info, sub, fmt, ap);
  va_end(ap);
}
void debug(uint32_t sub, const char* fmt, ...) {
  if (!enabled(Level::Debug, sub)) return;
  va_list ap;
  va_start(ap, fmt);
  vwrite(Level::Debug, sub, fmt, ap);
  va_end(ap);
}
void trace(uint32_t sub, const char* fmt, ...) {
  if (!enabled(Level::Trace, sub)) return;
  va_list ap;
  va_start(ap, fmt);
  vwrite(Level::Trace, sub, fmt, ap);
  va_end(ap);
}

}  // namespace ferry::log
