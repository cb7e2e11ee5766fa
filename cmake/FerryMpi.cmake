# ferry_find_build_mpi(<target-var> <problem-var> <c-wrapper> <cxx-wrapper>): finds, for a
# project using an installed Ferry, the MPI that Ferry was built against (FERRY_MPI_FLAVOR),
# in the project's language: C if enabled, else C++. Sets <target-var> to MPI::MPI_<lang>,
# or to "" and <problem-var> to why (no language, no MPI, another MPI than Ferry's).
function(ferry_find_build_mpi target_var problem_var c_wrapper cxx_wrapper)
  set(${target_var} "" PARENT_SCOPE)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if("C" IN_LIST languages)
    set(lang C)
    set(wrapper "${c_wrapper}")
  elseif("CXX" IN_LIST languages)
    set(lang CXX)
    set(wrapper "${cxx_wrapper}")
  else()
    set(${problem_var} "they need MPI, which needs C or CXX enabled in the project" PARENT_SCOPE)
    return()
  endif()
  # Without a wrapper named, FindMPI takes the first on PATH, which on a machine with both
  # Open MPI and MPICH may be the other one: a program linked with both crashes.
  if(NOT MPI_${lang}_COMPILER AND EXISTS "${wrapper}")
    set(MPI_${lang}_COMPILER "${wrapper}" CACHE FILEPATH "MPI ${lang} compiler wrapper (Ferry's MPI)")
  endif()
  find_package(MPI QUIET COMPONENTS ${lang})
  if(NOT MPI_${lang}_FOUND)
    set(${problem_var} "no MPI for ${lang} was found; set MPI_${lang}_COMPILER to the wrapper of the ${FERRY_MPI_FLAVOR} "
                       "Ferry was built with (${wrapper})" PARENT_SCOPE)
    return()
  endif()
  if(MPI_${lang}_LIBRARIES MATCHES "mpich")
    set(found mpich)
  else()
    set(found openmpi)
  endif()
  if(NOT found STREQUAL FERRY_MPI_FLAVOR)
    set(${problem_var} "this Ferry was built with ${FERRY_MPI_FLAVOR}, but MPI_${lang}_COMPILER "
                       "(${MPI_${lang}_COMPILER}) is ${found}; a program linked with both crashes. Set "
                       "MPI_${lang}_COMPILER to ${wrapper}, or use a Ferry built with ${found}" PARENT_SCOPE)
    return()
  endif()
  set(${target_var} MPI::MPI_${lang} PARENT_SCOPE)
endfunction()
