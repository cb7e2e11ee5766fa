// Where Ferry's pieces are on disk, and how to start an MPI job with them: the launcher
// Ferry was built against, the plugin directory first on LD_LIBRARY_PATH, and the
// launcher flags this machine needs.
#pragma once

#include <string>
#include <vector>

#include "platform/status.h"

namespace ferry::tools {

// Directory that holds the offload plugin (build tree or install tree).
Result<std::string> pluginDir();
// Path of the collectives' PMPI interposer, libferry-pmpi.so (build tree or install tree).
Result<std::string> pmpiLibrary();
// Directory of the ferry executable itself.
std::string selfDir();
// Whether this ferry runs from a build tree (bin/ next to CMakeCache.txt) rather than an
// install; only then may it use files of the source tree.
bool inBuildTree();
// `dir` prepended to the current LD_LIBRARY_PATH (without duplicating it).
std::string prependedLibraryPath(const std::string& dir);

struct LaunchSpec {
  int ranks = 3;
  std::vector<std::string> launcherArgs;  // passed to mpiexec before the program
  std::vector<std::string> program;       // program and its arguments
  std::vector<std::string> preload;       // libraries for LD_PRELOAD (--pmpi)
  bool offload = true;  // rank 0 runs main and its OpenMP threads, the others serve devices
  bool bindReport = false;  // each rank reports where its threads ran (ferry bind --report)
};

// Builds the argv for the MPI launcher and sets up the environment of this process, which
// the launcher passes on to the ranks; `environment`, if given, gets what it set
// ("NAME=VALUE"), so that a printed command can reproduce the run.
Result<std::vector<std::string>> launcherCommand(const LaunchSpec& spec,
                                                 std::vector<std::string>* environment = nullptr);
// `value` in single quotes, which shells take literally (csh: with ! escaped too).
std::string shellQuoted(const std::string& value, bool csh = false);
// `word` as a shell reads it back: as it is where it holds nothing a shell would expand,
// else quoted. For commands printed for a person to paste.
std::string shellWord(const std::string& word);
// Replaces this process with the command (does not return on success).
Status execCommand(const std::vector<std::string>& argv);
// Runs the command and returns its exit status. When it ended as a process killed by a
// crash signal ends (status 128 + signal, as launchers report a rank that died so), this
// process dies of the same signal, so that shells and test drivers see the crash. Stop
// signals (SIGTERM, SIGHUP, SIGINT) are passed on to the command, and this process then
// dies of the one that came, whatever the command's status.
int runAndMirror(const std::vector<std::string>& argv);
// True when this process is itself a rank of an MPI job.
bool underMpiLauncher();
// The number of tasks of the srun step this process is a task of; 0 outside a step (a
// batch script is none).
int srunStepTasks();

}  // namespace ferry::tools
