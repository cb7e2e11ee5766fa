// The job-wide check that the interposer's MPI_Init runs: every process must run the same
// build of Ferry's collectives with the same settings, or a communicator's first large
// allreduce would find some ranks setting it up while others hand the call to the library
// (FERRY_COLL=off, another crossover, an invalid setting), and the two would meet in
// mismatched collectives: a hang, a truncation error or a wrong result.
#pragma once

namespace ferry::coll {

// Collective over MPI_COMM_WORLD, right after MPI_Init: one allreduce of each process's
// build, settings and their validity. Where they differ Ferry's collectives are off in every
// process for the whole job, and rank 0 and every rank that differs from it say why.
void agreeAcrossJob();

// False once agreeAcrossJob() found a difference (then the library runs every allreduce).
bool jobAgreed();

}  // namespace ferry::coll
