// The point-to-point synchronization loops (shmem_TYPE_wait_until*, shmem_TYPE_test*,
// shmem_signal_wait_until), once for every type.
//
// A variable is read with a relaxed atomic load: another PE's put or AMO (or a same-node
// store) changes it under us, so a plain load could be hoisted out of the loop or torn. Until
// the condition holds, each round calls waitStep, which drives the progress that the remote
// update may need (MPI's, for RMA into this PE) and backs off; once it holds, waitDone gives
// the acquire ordering, so that data the sender wrote before the flag is visible after the
// wait. A test whose condition is false takes one testStep, the same progress without the
// backoff: a polling loop then still sees the update, and its work between polls is not
// slowed by yields or sleeps.
#pragma once

#include <cstddef>
#include <cstdint>

#include "shmem/api.h"
#include "shmem/api.h"

namespace ferry::shmem::waits {

template <class T>
T load(const T* p) {
  return __atomic_load_n(p, __ATOMIC_RELAXED);
}

template <class T>
bool holds(T value, Cmp cmp, T ref) {
  switch (cmp) {
    case Cmp::Eq: return value == ref;
    case Cmp::Ne: return value != ref;
    case Cmp::Gt: return value > ref;
    case Cmp::Ge: return value >= ref;
    case Cmp::Lt: return value < ref;
    case Cmp::Le: return value <= ref;
  }
  return false;
}

// What ivars[i] is compared with: one value for all, or cmp_values[i] (the _vector forms).
template <class T>
struct SameRef {
  T value;
  T operator[](size_t) const { return value; }
};
template <class T>
struct EachRef {
  const T* values;
  T operator[](size_t i) const { return values[i]; }
};

// The elements that take part: status[i] != 0 leaves element i out; no status array, none.
struct WaitSet {
  size_t n;
  const int* status;
  bool includes(size_t i) const { return !status || status[i] == 0; }
  // The first element that takes part, or n for an empty set.
  size_t first() const {
    size_t i = 0;
    while (i < n && !includes(i)) ++i;
    return i;
  }
};

inline constexpr size_t kNone = SIZE_MAX;

template <class T, class Refs>
bool holdsAt(const T* ivars, Cmp cmp, const Refs& refs, size_t i) {
  return holds(load(&ivars[i]), cmp, refs[i]);
}

// The first element of the set that satisfies the comparison, or kNone.
template <class T, class Refs>
size_t findHolding(const T* ivars, WaitSet set, Cmp cmp, const Refs& refs) {
  for (size_t i = 0; i < set.n; ++i)
    if (set.includes(i) && holdsAt(ivars, cmp, refs, i)) return i;
  return kNone;
}

// Writes the indices of the elements that satisfy it to `indices`; returns their number.
template <class T, class Refs>
size_t collectHolding(const T* ivars, WaitSet set, Cmp cmp, const Refs& refs, size_t* indices) {
  size_t count = 0;
  for (size_t i = 0; i < set.n; ++i)
    if (set.includes(i) && holdsAt(ivars, cmp, refs, i)) indices[count++] = i;
  return count;
}

// ---- wait: return once the condition holds ----------------------------------------------------

// Returns the value that satisfied the comparison (shmem_signal_wait_until reports it).
template <class T>
T waitUntil(const T* ivar, Cmp cmp, T ref, const char* call) {
  T value;
  while (!holds(value = load(ivar), cmp, ref)) waitStep(ivar, call);
  waitDone();
  return value;
}

// One element after the other: each, once it holds, is left behind, as the standard allows
// (the condition need not hold for all of them at one instant).
template <class T, class Refs>
void waitUntilAll(const T* ivars, WaitSet set, Cmp cmp, const Refs& refs, const char* call) {
  for (size_t i = 0; i < set.n; ++i) {
    if (!set.includes(i)) continue;
    while (!holdsAt(ivars, cmp, refs, i)) waitStep(&ivars[i], call);
  }
  waitDone();
}

template <class T, class Refs>
size_t waitUntilAny(const T* ivars, WaitSet set, Cmp cmp, const Refs& refs, const char* call) {
  size_t first = set.first();
  if (first == set.n) return kNone;
  size_t found;
  while ((found = findHolding(ivars, set, cmp, refs)) == kNone) waitStep(&ivars[first], call);
  waitDone();
  return found;
}

template <class T, class Refs>
size_t waitUntilSome(const T* ivars, WaitSet set, Cmp cmp, const Refs& refs, size_t* indices, const char* call) {
  size_t first = set.first();
  if (first == set.n) return 0;
  size_t count;
  while ((count = collectHolding(ivars, set, cmp, refs, indices)) == 0) waitStep(&ivars[first], call);
  waitDone();
  return count;
}

// ---- test: report whether the condition holds now ---------------------------------------------

template <class T>
int test(const T* ivar, Cmp cmp, T ref, const char* call) {
  if (holds(load(ivar), cmp, ref)) {
    waitDone();
    return 1;
  }
  testStep(ivar, call);
  return 0;
}

// 1 for an empty set, as the standard says.
template <class T, class Refs>
int testAll(const T* ivars, WaitSet set, Cmp cmp, const Refs& refs, const char* call) {
  for (size_t i = 0; i < set.n; ++i) {
    if (set.includes(i) && !holdsAt(ivars, cmp, refs, i)) {
      testStep(&ivars[i], call);
      return 0;
    }
  }
  waitDone();
  return 1;
}

template <class T, class Refs>
size_t testAny(const T* ivars, WaitSet set, Cmp cmp, const Refs& refs, const char* call) {
  size_t first = set.first();
  if (first == set.n) return kNone;
  size_t found = findHolding(ivars, set, cmp, refs);
  if (found == kNone) {
    testStep(&ivars[first], call);
    return kNone;
  }
  waitDone();
  return found;
}

template <class T, class Refs>
size_t testSome(const T* ivars, WaitSet set, Cmp cmp, const Refs& refs, size_t* indices, const char* call) {
  size_t first = set.first();
  if (first == set.n) return 0;
  size_t count = collectHolding(ivars, set, cmp, refs, indices);
  if (count == 0) {
    testStep(&ivars[first], call);
    return 0;
  }
  waitDone();
  return count;
}

}  // namespace ferry::shmem::waits
