// Checks ferry run makes on the program before starting a job with it: a program that is
// missing or not executable is reported here, once and with the shell's exit status,
// instead of by the launcher once per rank; and an offload run of a program that never
// loads LLVM's offload runtime, where every rank would run main, is warned about.
#pragma once

#include <string>

#include "platform/status.h"

namespace ferry::tools {

// The file `program` names, as execvp would find it (through PATH when it has no '/').
// The error says why it cannot be started; `exitCode` gets the shell's status for it
// (127: not found, 126: found but not executable).
Result<std::string> resolveProgram(const std::string& program, int& exitCode);

// Whether the dynamically linked ELF executable at `path` loads libomptarget, directly or
// through the libraries it needs, as the dynamic loader resolves them in this environment.
// NotFound when that cannot be told: a script, a static executable, or a loader that fails.
Result<bool> loadsOffloadRuntime(const std::string& path);

// Whether `path` is known never to load libomptarget: a plain (MPI) program, whose ranks are
// alike, rather than an offload program whose rank 0 runs main. Where that cannot be told
// (a script), the program is taken for an offload program, as ferry run always did.
bool knownPlainProgram(const std::string& path);

}  // namespace ferry::tools
