/* Fills libomptarget's cuda slot from Ferry's plugin directory, and declines it.
 *
 * libomptarget loads a plugin for every slot it finds (docs/llvm16-plugin-abi.md
 * section 2). On rank 0 of a GPU node, Debian's CUDA plugin would fill the cuda slot and add
 * rank 0's own GPUs after Ferry's devices whenever it gets an image or libomptarget initialises
 * every plugin (llvm-omp-device-info does): a second, partial device table beside Ferry's.
 * Found first on LD_LIBRARY_PATH under both of the slot's names, this library fails
 * init_plugin, so libomptarget rejects it and leaves the slot empty. Ferry's own plugin serves
 * every GPU of the job, rank 0's too under FERRY_RANK0_DEVICES=1; serving ranks open Debian's
 * CUDA plugin by its full path, which this does not shadow. */
#include <stdint.h>

__attribute__((visibility("default"))) int32_t __tgt_rtl_init_plugin(void) { return 1; }
__attribute__((visibility("default"))) int32_t __tgt_rtl_number_of_devices(void) { return 0; }
