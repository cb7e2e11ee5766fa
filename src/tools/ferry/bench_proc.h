// Child processes of `ferry bench`: each measurement run is a separate program (started
// directly, or through the MPI launcher), with its own environment, its output in a log
// file, and a time limit.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "platform/status.h"

namespace ferry::tools::bench {

struct ChildSpec {
  std::vector<std::string> argv;
  // Changes to this process's environment: a value sets the variable, nullopt removes it.
  std::map<std::string, std::optional<std::string>> env;
  std::string logPath;      // stdout and stderr of the child
  double timeoutSeconds = 600;
};

struct ChildResult {
  int exitCode = 0;         // 128 + signal when killed by one
  double seconds = 0;
  bool timedOut = false;
};

// Runs the child in its own process group and waits for it; on timeout the group is
// killed. Fails only when the child cannot be started.
Result<ChildResult> runChild(const ChildSpec& spec);

// The last `lines` lines of a text file (for error reports).
std::string tailOf(const std::string& path, int lines);

// `path` with `dir` removed from its colon-separated entries.
std::string withoutPathEntry(const std::string& path, const std::string& dir);

}  // namespace ferry::tools::bench
