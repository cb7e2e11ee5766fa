/* A device image whose own initialisation crashes on a serving rank (a constructor function
 * in declare-target code runs when the image is loaded there). The crash report must name
 * the operation that was in progress, load_binary, not call the serving rank idle. */
#include "check.h"

#pragma omp declare target
__attribute__((constructor)) static void crash_at_load(void) {
  if (current_rank() != 0) *(volatile int*)16 = 1;
}
#pragma omp end declare target

int main(void) {
  int v = 0;
#pragma omp target map(tofrom : v)
  v = 1;
  CHECK(0, "the image loaded and ran (v=%d), but its constructor crashes on every serving rank", v);
  return finish("crash_at_load");
}
