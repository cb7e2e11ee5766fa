// The attribute keys Ferry creates once per process. MPI_Finalize frees no keyval the program
// did not free (Open MPI leaked each one: LeakSanitizer), and one cannot be freed earlier while
// communicators still take attributes under it.
#pragma once

#include <mpi.h>

#include <cstdint>

namespace ferry::coll {

// Frees `key` when MPI_Finalize deletes MPI_COMM_SELF's attributes, its first step (MPI 3.1,
// 8.7.1). A freed keyval lives on until the last attribute under it is deleted, so the
// communicators freed after MPI_COMM_SELF still get their delete callbacks.
inline void freeKeyvalAtFinalize(int key) {
  MPI_Comm_delete_attr_function* freeKey = [](MPI_Comm, int, void* attr, void*) -> int {
    int k = static_cast<int>(reinterpret_cast<intptr_t>(attr));
    return MPI_Comm_free_keyval(&k);
  };
  int self = MPI_KEYVAL_INVALID;
  if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, freeKey, &self, nullptr) != MPI_SUCCESS) return;
  MPI_Comm_set_attr(MPI_COMM_SELF, self, reinterpret_cast<void*>(static_cast<intptr_t>(key)));
  MPI_Comm_free_keyval(&self);  // this one goes with its attribute
}

}  // namespace ferry::coll
