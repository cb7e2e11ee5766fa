/* Preloaded after the sanitizer runtimes into every process of the ASan build's tests
 * (tests/support/sanitizers/sanitizers.cmake): LeakSanitizer checks a process at its exit only
 * where it is one of this build's programs, its executable in the build directory (Ferry's
 * executables and tests, the OpenMP and MPI test programs that load Ferry's libraries, the
 * installed consumer programs of install.consumer). The launchers, Python, the shell and the
 * tools the test scripts run get the runtimes only because a process they start needs them;
 * what they leave allocated at exit is theirs, and several of them exit with a failure status
 * when LeakSanitizer finds any. Not instrumented: it must not need the runtimes it sits beside. */
#include <limits.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

/* LeakSanitizer's hook, asked as the check starts: non-zero turns the check off. Exported
 * (the build hides symbols by default), so that the runtime finds it. */
__attribute__((visibility("default"))) int __lsan_is_turned_off(void) {
  static const char root[] = FERRY_LEAK_CHECK_ROOT "/";
  char exe[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n <= 0) return 0; /* not known: check */
  exe[n] = '\0';
  return strncmp(exe, root, sizeof root - 1) != 0;
}
