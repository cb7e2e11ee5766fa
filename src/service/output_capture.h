// What kernels on a serving rank write to stdout, kept for rank 0 to print in program order.
//
// Without it, a serving rank's printf reaches the terminal through the launcher's I/O
// forwarding, unordered with rank 0's own output: a region that prints between two host
// printf calls would appear anywhere. The capture puts a memory file under file
// descriptor 1 (so that C stdio, C++ streams, raw write(1) and the CUDA printf buffer all
// land in it); the server takes what stdio holds after each kernel, and everything before
// each reply, and sends it to the issuer ahead of the reply.
#pragma once

#include <memory>
#include <string>

#include "platform/status.h"

namespace ferry::service {

// From a fatal-signal handler (crash_report.cpp): writes what kernels printed and nobody has
// taken yet, stdio's buffer included, straight to the original stdout, so that a crashing
// kernel's last words reach the terminal. Only system calls, no locks; no-op without a
// capture.
void salvageCapturedOutput();

class OutputCapture {
 public:
  // Redirects this process's stdout. Fails (and changes nothing) where memfd_create does.
  static Result<std::unique_ptr<OutputCapture>> start();
  ~OutputCapture();
  OutputCapture(const OutputCapture&) = delete;
  OutputCapture& operator=(const OutputCapture&) = delete;

  // Appends what was written since the last call. `thorough` also catches writes that
  // bypassed C stdio (a system call each); otherwise only a non-empty stdio buffer is looked
  // at, which costs nothing when kernels print nothing.
  void take(std::string& out, bool thorough);
  // Puts the original stdout back, writing to it whatever was not taken.
  void stop();

 private:
  friend void salvageCapturedOutput();
  OutputCapture(int file, int saved) : file_(file), saved_(saved) {}
  int file_;   // the memory file, also at descriptor 1
  int saved_;  // the original stdout
  long readPos_ = 0;
};

}  // namespace ferry::service
