// Levelled, per-subsystem logging in the spirit of NCCL_DEBUG / NCCL_DEBUG_SUBSYS.
// FERRY_LOG=LEVEL[,SUBSYS...]. Every line carries rank, host and pid, so that the merged
// stderr of a whole job can be read. A disabled line costs one load and one branch.
#pragma once

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <string>
#include <string_view>

#include "platform/status.h"

namespace ferry::log {

enum class Level : uint8_t { None = 0, Error, Warn, Info, Debug, Trace };

enum Sub : uint32_t {
  Init = 1u << 0,
  Config = 1u << 1,
  Comm = 1u << 2,
  Shm = 1u << 3,
  Offload = 1u << 4,
  Service = 1u << 5,
  Coll = 1u << 6,
  Bench = 1u << 7,
  Bind = 1u << 8,
  Shmem = 1u << 9,
  All = 0xffffffffu,
};

// Parses a FERRY_LOG value ("debug,comm,offload") and applies it; an unknown word is an
// error. checkSpec() only parses: the settings registry validates FERRY_LOG with it.
Status configure(std::string_view spec);
Status checkSpec(std::string_view spec);
// Log to a file instead of stderr (FERRY_LOG_FILE, with %r/%h/%p expanded). A pattern with
// %r waits for the rank: a process started without a launcher learns it only when MPI is up,
// and one that never has a rank (the ferry CLI) keeps logging to stderr rather than create
// a file named for rank -1.
Status setFile(std::string_view pattern);
// Rank to print in each line; until it is known, the launcher's rank variable is used.
// Opens a log file that was waiting for it.
void setRank(int rank);
int rank();
// What a process that is not an MPI rank prints in place of "rank=N" ("cli").
void setLabel(const char* label);
// Writes a preformatted line where log lines go, with one write(2): for signal handlers,
// which cannot take the logger's lock.
void writeRaw(const char* text, size_t length);
const std::string& hostName();
// The start of every line: "[ferry rank=1 host=node7 pid=4242] ERROR service: ". Signal
// handlers, which cannot call the logger, format it ahead of time.
std::string linePrefix(Level level, uint32_t sub);

namespace detail {
extern std::atomic<uint8_t> gLevel;
extern std::atomic<uint32_t> gSubs;
}  // namespace detail

inline bool enabled(Level level, uint32_t sub) {
  auto l = static_cast<Level>(detail::gLevel.load(std::memory_order_relaxed));
  if (level > l) return false;
  // Warnings and errors are never filtered by subsystem.
  return level <= Level::Warn || (detail::gSubs.load(std::memory_order_relaxed) & sub);
}

void vwrite(Level level, uint32_t sub, const char* fmt, va_list ap);
void write(Level level, uint32_t sub, const char* fmt, ...) __attribute__((format(printf, 3, 4)));

// One function per level; each checks enabled() before formatting anything.
void error(uint32_t sub, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void warn(uint32_t sub, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void info(uint32_t sub, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void debug(uint32_t sub, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
void trace(uint32_t sub, const char* fmt, ...) __attribute__((format(printf, 2, 3)));

const char* subName(uint32_t sub);

}  // namespace ferry::log
