# nvptx64 offload images for the GPU tests and the GPU offload benchmark, when the CUDA
# toolkit's ptxas is here to assemble them. Sets FERRY_GPU_FLAGS (clang-16 flags for an
# image of the nvptx64 target only) and FERRY_GPU_ARCH; both stay empty without ptxas.
# The architecture defaults to the local GPU's, else sm_80; scripts/gpu-kit.sh sets it.
find_program(FERRY_PTXAS ptxas HINTS /usr/local/cuda/bin DOC "CUDA's ptxas, for nvptx64 offload images")
set(FERRY_GPU_FLAGS "")
if(FERRY_PTXAS)
  if(NOT FERRY_GPU_ARCH)
    execute_process(COMMAND nvidia-smi --query-gpu=compute_cap --format=csv,noheader
                    OUTPUT_VARIABLE cap RESULT_VARIABLE rc ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    string(REGEX MATCH "^[0-9]+\\.[0-9]+" cap "${cap}")
    if(rc EQUAL 0 AND cap)
      string(REPLACE "." "" cap "${cap}")
      set(gpu_arch_default sm_${cap})
    else()
      set(gpu_arch_default sm_80)
    endif()
    set(FERRY_GPU_ARCH ${gpu_arch_default} CACHE STRING "GPU architecture of the nvptx64 images (sm_XY)")
  endif()
  get_filename_component(cuda_root ${FERRY_PTXAS} DIRECTORY)
  get_filename_component(cuda_root ${cuda_root} DIRECTORY)
  set(FERRY_GPU_FLAGS -fopenmp-targets=nvptx64-nvidia-cuda -Xopenmp-target=nvptx64-nvidia-cuda
      -march=${FERRY_GPU_ARCH} --cuda-path=${cuda_root} -Wno-unknown-cuda-version)
endif()
