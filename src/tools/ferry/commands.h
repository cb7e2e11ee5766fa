// The ferry subcommands. Each registers its options on the CLI11 app and returns the
// callback that runs it; main.cpp only wires them together.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>

namespace ferry::tools {

using Command = std::function<int()>;

Command addEnvCommand(CLI::App& app);
Command addRunCommand(CLI::App& app);
Command addInfoCommand(CLI::App& app);
Command addDoctorCommand(CLI::App& app);
Command addBenchCommand(CLI::App& app);

}  // namespace ferry::tools
