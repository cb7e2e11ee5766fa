#include "offload/app_check.h"

#include <elf.h>

#include <fstream>
#include <iterator>
#include <vector>

#include "service/image.h"

namespace ferry::offload {

std::string executableImportsMpiInit(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::vector<uint8_t> file((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  static const char* kInits[] = {"MPI_Init", "MPI_Init_thread", "mpi_init_", "mpi_init_thread_"};
  std::string found;
  service::findElfSymbol(file.data(), file.size(), SHT_DYNSYM, [&](std::string_view name, uint64_t, bool defined) {
    if (defined) return false;
    for (const char* init : kInits)
      if (name == init) found = init;
    return !found.empty();
  });
  return found;
}

}  // namespace ferry::offload
