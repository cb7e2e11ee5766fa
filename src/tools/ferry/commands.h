// The ferry subcommands. Each registers its options on the CLI11 app and returns the
// callback that runs it; main.cpp only wires them together.
#pragma once

#include <CLI/CLI.hpp>

#include <exception>
#include <functional>
#include <string>

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

Command addEnvCommand(CLI::App& app);
Command addRunCommand(CLI::App& app);
Command addInfoCommand(CLI::App& app);
Command addDoctorCommand(CLI::App& app);
Command addBenchCommand(CLI::App& app);

}  // namespace ferry::tools
