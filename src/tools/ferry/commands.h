// The ferry subcommands. Each registers its options on the CLI11 app and returns the
// callback that runs it; main.cpp only wires them together.
#pragma once

#include <CLI/CLI.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include <exception>
#include <functional>
#include <string>

#include "platform/init.h"
#include "platform/parse.h"

namespace ferry::comm {
class World;
}

namespace ferry::tools {

using Command = std::function<int()>;

// Option checks whose messages a user can read (CLI::PositiveNumber's names a range up to
// 1.8e308): a rank count, and a value that must be more than 0 (seconds, say).
inline CLI::Range rankCount() { return CLI::Range(1, 1 << 20); }
inline CLI::Validator positive() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        try {
          if (std::stod(text) > 0) return {};
        } catch (const std::exception&) {
          return "'" + text + "' is not a number";
        }
        return "must be more than 0, not " + text;
      },
      "> 0");
}

// A whole number from `low` to `high`. CLI11's own parsing takes "-5" for an unsigned option
// as 2^64 - 5; this checks the text as typed.
inline CLI::Validator count(double low, double high) {
  return CLI::Validator(
      [low, high](std::string& text) -> std::string {
        char* end = nullptr;
        double v = std::strtod(text.c_str(), &end);
        if (text.empty() || *end || v != std::floor(v)) return "'" + text + "' is not a whole number";
        if (!(v >= low && v <= high))  // also NaN
          return text + " is not in " + CLI::detail::to_string(static_cast<long long>(low)) + " to " +
                 CLI::detail::to_string(static_cast<long long>(high));
        return {};
      },
      "COUNT");
}
// Comma-separated message sizes (1,8K,1M), each from 1 B to `most` bytes, at most `items`:
// checked here, before any run starts, not by the first benchmark program.
inline CLI::Validator sizeList(uint64_t most, size_t items) {
  return CLI::Validator(
      [most, items](std::string& text) -> std::string {
        size_t n = 0;
        for (size_t start = 0; start <= text.size(); ++n) {
          size_t comma = text.find(',', start);
          std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
          auto bytes = parse::size(item);
          if (!bytes || *bytes == 0 || *bytes > most)
            return "'" + item + "' is no message size from 1 B to " + parse::formatSize(most) + " (1, 8K, 1M, ...)";
          if (comma == std::string::npos) break;
          start = comma + 1;
        }
        if (n + 1 > items) return "at most " + std::to_string(items) + " sizes";
        return {};
      },
      "SIZES");
}

// A command about to start a job says once that a FERRY_* setting is invalid, instead of
// letting every rank stop on it; true when it did (the command then exits 1).
inline bool refusedForSettings(const char* command) {
  Status st = initPlatform();
  if (st) return false;
  std::fprintf(stderr, "%s: %s; nothing was started\n", command, st.message().c_str());
  return true;
}

// For a command running as one rank of the job it started: the settings, then MPI. On a
// failure it says why, as `command`, and returns nullptr (the command then exits 1).
// Defined in cmd_info.cpp.
comm::World* openWorld(const char* command);
// ferry info --shmem (info_shmem.cpp).
int printShmemInfo();

Command addEnvCommand(CLI::App& app);
Command addRunCommand(CLI::App& app);
Command addInfoCommand(CLI::App& app);
Command addDoctorCommand(CLI::App& app);
Command addBenchCommand(CLI::App& app);
Command addBindCommand(CLI::App& app);
Command addServeCommand(CLI::App& app);

}  // namespace ferry::tools
