! An ordinary Fortran MPI program that knows nothing of Ferry: MPI_Allreduce on INTEGER,
! INTEGER*8, REAL and DOUBLE PRECISION with MPI_SUM, MPI_MAX and MPI_MIN, in and out of
! place, short and long, on MPI_COMM_WORLD and a duplicate of it, each result checked
! against its closed form. Built three times, one per binding: FERRY_MPIF_H (mpif.h),
! neither (use mpi), FERRY_F08 (use mpi_f08). The coll tests run it under
! `ferry run --pmpi` and count the calls Ferry ran (FERRY_LOG=debug,coll).
!
! Per communicator and type: 3 ops x (in place, out of place) x (short, long) calls, so
! 2 communicators x 4 types x 6 = 48 long calls (above the crossover) and 48 short ones;
! then one more long call on two buffers of 1 MiB from MPI_Alloc_mem, which the interposer
! serves from Ferry's shared heap (two "MPI_Alloc_mem of 1 MiB" lines per rank).
module checks
  use, intrinsic :: iso_c_binding, only: c_ptr, c_f_pointer
#if defined(FERRY_F08)
  use mpi_f08
#elif !defined(FERRY_MPIF_H)
  use mpi
#endif
  implicit none
#if defined(FERRY_MPIF_H)
  include 'mpif.h'
#endif
#if defined(FERRY_F08)
#  define T_COMM type(MPI_Comm)
#  define T_OP type(MPI_Op)
#else
#  define T_COMM integer
#  define T_OP integer
#endif

contains

  ! The result of op over ranks of rank * 7 + mod(i, 1000): small integers, exact in every type.
  double precision function expected(o, ranks, i)
    integer, intent(in) :: o, ranks, i
    select case (o)
    case (1)
      expected = 7d0 * ranks * (ranks - 1) / 2 + dble(ranks) * mod(i, 1000)
    case (2)
      expected = 7d0 * (ranks - 1) + mod(i, 1000)
    case default
      expected = mod(i, 1000)
    end select
  end function

  ! A SUM over two buffers of MPI_Alloc_mem. mpi_f08 hands out a TYPE(C_PTR), the older
  ! bindings an address in an INTEGER(KIND=MPI_ADDRESS_KIND).
  subroutine check_alloc_mem(comm, bad)
    T_COMM, intent(in) :: comm
    integer, intent(inout) :: bad
    integer, parameter :: n = 2**17
    integer(kind=MPI_ADDRESS_KIND), parameter :: bytes = 8 * n
    double precision, pointer :: x(:), y(:)
    type(c_ptr) :: px, py
    integer :: rank, ranks, ierr, i
#if !defined(FERRY_F08)
    integer(kind=MPI_ADDRESS_KIND) :: ax, ay

    call MPI_Alloc_mem(bytes, MPI_INFO_NULL, ax, ierr)
    call MPI_Alloc_mem(bytes, MPI_INFO_NULL, ay, ierr)
    px = transfer(ax, px)
    py = transfer(ay, py)
#else
    call MPI_Alloc_mem(bytes, MPI_INFO_NULL, px, ierr)
    call MPI_Alloc_mem(bytes, MPI_INFO_NULL, py, ierr)
#endif
    call c_f_pointer(px, x, [n])
    call c_f_pointer(py, y, [n])
    call MPI_Comm_rank(comm, rank, ierr)
    call MPI_Comm_size(comm, ranks, ierr)
    do i = 1, n
      x(i) = rank * 7 + mod(i, 1000)
    end do
    call MPI_Allreduce(x, y, n, MPI_DOUBLE_PRECISION, MPI_SUM, comm, ierr)
    do i = 1, n
      if (y(i) /= expected(1, ranks, i)) then
        print '(a, i0, a, i0, a, f0.1, a, f0.1)', 'rank ', rank, ': MPI_Alloc_mem buffers: element ', i, &
            ' is ', y(i), ', expected ', expected(1, ranks, i)
        bad = bad + 1
        exit
      end if
    end do
    call MPI_Free_mem(x, ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
    call MPI_Free_mem(y, ierr)
    if (ierr /= MPI_SUCCESS) bad = bad + 1
  end subroutine

#define NAME check_integer
#define ELEM integer(4)
#define MPI_ELEM MPI_INTEGER
#define LABEL 'MPI_INTEGER'
#include "fortran_allreduce_body.inc"
#undef NAME
#undef ELEM
#undef MPI_ELEM
#undef LABEL
#define NAME check_integer8
#define ELEM integer(8)
#define MPI_ELEM MPI_INTEGER8
#define LABEL 'MPI_INTEGER8'
#include "fortran_allreduce_body.inc"
#undef NAME
#undef ELEM
#undef MPI_ELEM
#undef LABEL
#define NAME check_real
#define ELEM real(4)
#define MPI_ELEM MPI_REAL
#define LABEL 'MPI_REAL'
#include "fortran_allreduce_body.inc"
#undef NAME
#undef ELEM
#undef MPI_ELEM
#undef LABEL
#define NAME check_double
#define ELEM double precision
#define MPI_ELEM MPI_DOUBLE_PRECISION
#define LABEL 'MPI_DOUBLE_PRECISION'
#include "fortran_allreduce_body.inc"

end module checks

program fortran_allreduce
  use checks
  implicit none
  integer, parameter :: counts(2) = [3, 2**17 + 5]  ! 12 B and 512 KiB of INTEGER
  integer :: ierr, rank, ranks, c, k, bad, anyBad
  T_COMM :: comms(2)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  comms(1) = MPI_COMM_WORLD
  call MPI_Comm_dup(MPI_COMM_WORLD, comms(2), ierr)
  bad = 0
  anyBad = 0  ! MPI_Reduce sets it on rank 0 only
  do c = 1, 2
    do k = 1, 2
      call check_integer(comms(c), counts(k), bad)
      call check_integer8(comms(c), counts(k), bad)
      call check_real(comms(c), counts(k), bad)
      call check_double(comms(c), counts(k), bad)
    end do
  end do
  call check_alloc_mem(MPI_COMM_WORLD, bad)
  call MPI_Comm_free(comms(2), ierr)
  call MPI_Reduce(bad, anyBad, 1, MPI_INTEGER, MPI_MAX, 0, MPI_COMM_WORLD, ierr)
  if (rank == 0) then
    if (anyBad == 0) then
      print '(a, i0, a)', 'fortran_allreduce: ', ranks, ' ranks: all results correct'
    else
      print '(a, i0, a)', 'fortran_allreduce: ', ranks, ' ranks: WRONG RESULTS'
    end if
  end if
  call MPI_Finalize(ierr)
  if (anyBad /= 0) error stop 1
end program
