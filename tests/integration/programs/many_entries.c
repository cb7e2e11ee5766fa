/* An image with many offload entries (60 kernels, 60 declare-target globals): the reply that
 * carries its table must fit however large it is. (Generated once: plain repetition;
 * each region is distinct so that each is its own kernel.) */
#include "check.h"

#pragma omp declare target
int g0 = 0;
int g1 = 1;
int g2 = 2;
int g3 = 3;
int g4 = 4;
int g5 = 5;
int g6 = 6;
int g7 = 7;
int g8 = 8;
int g9 = 9;
int g10 = 10;
int g11 = 11;
int g12 = 12;
int g13 = 13;
int g14 = 14;
int g15 = 15;
int g16 = 16;
int g17 = 17;
int g18 = 18;
int g19 = 19;
int g20 = 20;
int g21 = 21;
int g22 = 22;
int g23 = 23;
int g24 = 24;
int g25 = 25;
int g26 = 26;
int g27 = 27;
int g28 = 28;
int g29 = 29;
int g30 = 30;
int g31 = 31;
int g32 = 32;
int g33 = 33;
int g34 = 34;
int g35 = 35;
int g36 = 36;
int g37 = 37;
int g38 = 38;
int g39 = 39;
int g40 = 40;
int g41 = 41;
int g42 = 42;
int g43 = 43;
int g44 = 44;
int g45 = 45;
int g46 = 46;
int g47 = 47;
int g48 = 48;
int g49 = 49;
int g50 = 50;
int g51 = 51;
int g52 = 52;
int g53 = 53;
int g54 = 54;
int g55 = 55;
int g56 = 56;
int g57 = 57;
int g58 = 58;
int g59 = 59;
#pragma omp end declare target

int main(void) {
  int n = omp_get_num_devices();
  for (int d = 0; d < n; ++d) {
    int sum = 0, v;
#pragma omp target device(d) map(from : v)
    v = g0 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g1 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g2 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g3 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g4 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g5 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g6 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g7 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g8 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g9 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g10 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g11 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g12 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g13 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g14 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g15 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g16 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g17 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g18 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g19 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g20 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g21 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g22 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g23 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g24 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g25 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g26 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g27 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g28 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g29 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g30 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g31 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g32 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g33 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g34 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g35 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g36 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g37 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g38 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g39 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g40 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g41 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g42 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g43 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g44 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g45 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g46 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g47 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g48 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g49 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g50 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g51 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g52 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g53 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g54 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g55 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g56 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g57 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g58 * 2 + 1;
    sum += v;
#pragma omp target device(d) map(from : v)
    v = g59 * 2 + 1;
    sum += v;
    CHECK(sum == 60 * 59 + 60, "device %d: the 60 kernels summed to %d", d, sum);
  }
  return finish("many_entries");
}
