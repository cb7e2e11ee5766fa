#include "tools/ferry/program_check.h"

#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <vector>

#include "service/image.h"

extern char** environ;

namespace ferry::tools {
namespace {

// Why `path` cannot be executed, or "" if it can (the shell's words for each case).
std::string whyNotExecutable(const std::string& path, int& exitCode) {
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) {
    exitCode = 127;
    return "no such file";
  }
  exitCode = 126;
  if (S_ISDIR(st.st_mode)) return "is a directory";
  if (access(path.c_str(), X_OK) != 0) return "not executable (chmod +x " + path + ")";
  return {};
}

// The output of argv (stdout only; stderr goes to /dev/null) and whether it exited 0.
bool captureOutput(const std::vector<std::string>& argv, std::string& out) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return false;
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_adddup2(&files, fds[1], STDOUT_FILENO);
  posix_spawn_file_actions_addopen(&files, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&files, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  std::vector<char*> cargv;
  for (const auto& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  pid_t pid = -1;
  int rc = posix_spawn(&pid, cargv[0], &files, nullptr, cargv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  close(fds[1]);
  if (rc == 0) {
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) != 0;) {
      if (n > 0) out.append(buf, static_cast<size_t>(n));
      else if (errno != EINTR) break;
    }
  }
  close(fds[0]);
  int status = 0;
  if (rc != 0) return false;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

Result<std::string> resolveProgram(const std::string& program, int& exitCode) {
  exitCode = 0;
  if (program.find('/') != std::string::npos) {
    std::string why = whyNotExecutable(program, exitCode);
    if (why.empty()) return program;
    return Status(Errc::NotFound, program + ": " + why);
  }
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::string firstWhy;
  int firstCode = 127;
  for (size_t start = 0; start <= dirs.size();) {
    size_t end = dirs.find(':', start);
    if (end == std::string::npos) end = dirs.size();
    std::string dir = dirs.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + program;
    int code = 0;
    std::string why = whyNotExecutable(candidate, code);
    if (why.empty()) return candidate;
    // A file found but not executable says more than the directories that lack it.
    if (code == 126 && firstWhy.empty()) {
      firstWhy = candidate + ": " + why;
      firstCode = code;
    }
    start = end + 1;
  }
  exitCode = firstCode;
  if (!firstWhy.empty()) return Status(Errc::NotFound, firstWhy);
  // As in a shell, a program of the current directory needs its path.
  int code = 0;
  bool here = whyNotExecutable("./" + program, code).empty();
  std::string hint = here ? " (it is in this directory: ./" + program + ")" : "";
  return Status(Errc::NotFound, program + ": command not found in PATH" + hint);
}

Result<bool> loadsOffloadRuntime(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  auto interp = service::findElfSection(file.data(), file.size(), ".interp");
  if (interp.empty()) return Status(Errc::NotFound, path + " is no dynamically linked ELF executable");
  std::string loader(reinterpret_cast<const char*>(interp.data()), strnlen(reinterpret_cast<const char*>(interp.data()),
                                                                           interp.size()));
  // The loader's --list resolves the libraries as `ldd` does, without running the program.
  std::string listing;
  if (loader.empty() || !captureOutput({loader, "--list", path}, listing))
    return Status(Errc::NotFound, loader + " --list " + path + " failed");
  return listing.find("libomptarget.so") != std::string::npos;
}

bool knownPlainProgram(const std::string& path) {
  auto loads = loadsOffloadRuntime(path);
  return loads && !*loads;
}

}  // namespace ferry::tools
