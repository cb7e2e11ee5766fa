// Writes the seed corpora of the libFuzzer targets (docs/robustness.md, "Fuzzing") from
// Ferry's own encoders and from the device images of real clang-16 programs, so that the
// committed seeds can be made again after a format changes:
//
//   fuzz_seeds SOURCE_DIR PROGRAM...     (scripts/fuzz.sh --seeds runs it)
//
// Each PROGRAM is an offload program built by clang-16 (the build's tests/integration/
// programs); its `.llvm.offloading` section gives real OffloadBinary containers and ELFs.
// Generated files are named seed-*; only those are replaced, so that regression inputs
// (regress-*) stay.
#include <elf.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "comm/protocol.h"
#include "offload/device_table.h"
#include "platform/config.h"
#include "service/image.h"
#include "service/offload_binary.h"

namespace fs = std::filesystem;
using namespace ferry;
using Bytes = std::vector<uint8_t>;

namespace {

fs::path gRoot;  // the source tree

void clearSeeds(const fs::path& dir) {
  fs::create_directories(dir);
  for (const auto& f : fs::directory_iterator(dir))
    if (f.path().filename().string().starts_with("seed-")) fs::remove(f.path());
}

void write(const std::string& target, const std::string& name, const void* data, size_t len) {
  fs::path file = gRoot / "tests" / target / ("seed-" + name);
  std::ofstream(file, std::ios::binary).write(static_cast<const char*>(data), static_cast<std::streamsize>(len));
}
void write(const std::string& target, const std::string& name, const Bytes& b) { write(target, name, b.data(), b.size()); }
void write(const std::string& target, const std::string& name, const std::string& s) {
  write(target, name, s.data(), s.size());
}

Bytes readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return Bytes(std::istreambuf_iterator<char>(in), {});
}

// ---- the wire protocol: one message of every type, and a batch ----------------------------

void protocolSeeds() {
  const std::string t = "comm/corpus/protocol";
  clearSeeds(gRoot / "tests" / t);
  using namespace comm;
  DataDesc mpi{DataMode::Mpi, 1 << 20, 2, 77, 65536, 0};
  DataDesc cma{DataMode::Cma, 4096, 1, 78, 0, 0x7f0000001000};
  Bytes five = {1, 2, 3, 4, 5};
  ReplyMsg reply;
  reply.code = Errc::LoadFailed;
  reply.message = "libfoo.so: cannot open shared object file";
  reply.values = {10, 20, 30};
  reply.inlineSize = five.size();
  const char text[] = "hello from a device\n";
  struct Seed {
    const char* name;
    MsgType type;
    Body body;
    Bytes inlineBytes;
  };
  std::vector<Seed> seeds = {
      {"init", MsgType::InitDevice, InitDeviceMsg{0x8, 99}, {}},
      {"load-inline", MsgType::LoadImage, LoadImageMsg{0x1234, 55, 3, DataDesc{DataMode::Inline, 5}, nullptr}, five},
      {"load-mpi", MsgType::LoadImage, LoadImageMsg{0x1234, 55, 3, mpi, nullptr}, {}},
      {"alloc", MsgType::Alloc, AllocMsg{0x1000, 64, 0, 12}, {}},
      {"free", MsgType::Free, FreeMsg{0x1000, 64, 3}, {}},
      {"submit-inline", MsgType::Submit, SubmitMsg{0x2000, DataDesc{DataMode::Inline, 5}, nullptr}, five},
      {"submit-cma", MsgType::Submit, SubmitMsg{0x2000, cma, nullptr}, {}},
      {"retrieve", MsgType::Retrieve, RetrieveMsg{0x3000, 41, mpi}, {}},
      {"exchange-send", MsgType::ExchangeSend, ExchangeMsg{0x4000, mpi}, {}},
      {"exchange-recv", MsgType::ExchangeRecv, ExchangeMsg{0x5000, cma}, {}},
      {"launch", MsgType::Launch, LaunchMsg{0xabc, 4, 8, 1000, 61, {1, kStdoutToken, 3}, {0, -16, 8}}, {}},
      {"sync", MsgType::Sync, SyncMsg{17}, {}},
      {"ping", MsgType::Ping, PingMsg{18}, {}},
      {"shutdown", MsgType::Shutdown, ShutdownMsg{}, {}},
      {"reply", MsgType::Reply, reply, five},
      {"rtr", MsgType::Rtr, RtrMsg{5, 0x6000, 4096}, {}},
      {"fin", MsgType::Fin, FinMsg{5, Errc::Unavailable, "peer gone"}, {}},
      {"rts", MsgType::Rts, RtsMsg{5, 0x7000, 2048, 4096}, {}},
      {"set-info", MsgType::SetInfo, SetInfoMsg{1}, {}},
      {"output", MsgType::Output, OutputMsg{20, reinterpret_cast<const uint8_t*>(text), sizeof text - 1}, {}},
      {"baseline", MsgType::Baseline, BaselineMsg{2, 1, 1, 65536, 10, 100, 64, 19}, {}},
  };
  // A batch as a queue sends it: a copy-in, then a launch and a sync.
  std::vector<Bytes> items = {encode(MsgType::Submit, 0, 7, seeds[5].body, five.data(), five.size()),
                              encode(MsgType::Launch, 0, 8, seeds[10].body), encode(MsgType::Sync, 0, 9, seeds[11].body)};
  BatchMsg batch;
  for (const Bytes& b : items) batch.items.emplace_back(b.data(), b.size());
  seeds.push_back({"batch", MsgType::Batch, batch, {}});
  for (const Seed& s : seeds)
    write(t, s.name, encode(s.type, 1, 42, s.body, s.inlineBytes.empty() ? nullptr : s.inlineBytes.data(),
                            s.inlineBytes.size()));
  write(t, "ok-reply", encodeOkReply(43, 128));
}

// ---- the device table: announcements as ranks make them -----------------------------------

void deviceTableSeeds() {
  const std::string t = "offload/corpus/device_table";
  clearSeeds(gRoot / "tests" / t);
  using offload::DeviceEntry;
  DeviceEntry cpu{{0, service::DeviceKind::Cpu, true, 64ull << 30, 0x7f0000000000, 62,
                   "x86_64 CPU device 0 (stock host plugin)"}};
  DeviceEntry gpu{{1, service::DeviceKind::Gpu, false, 80ull << 30, 0, service::kElfMachineCuda, "CUDA plugin device 0"}};
  std::vector<std::pair<const char*, std::vector<DeviceEntry>>> sets = {
      {"none", {}}, {"cpu", {cpu}}, {"cpu-gpu", {cpu, gpu}}};
  for (const auto& [name, devices] : sets) {
    Bytes payload = offload::DeviceTable::encodeLocal(devices);
    write(t, std::string("slot-") + name, comm::frameAnnouncement(payload, payload.size() + 16));
    write(t, std::string("records-") + name, payload);
  }
}

// ---- settings: the registry's defaults, examples from docs/settings.md, and a dictionary ----

void settingsSeeds() {
  const std::string t = "platform/corpus/settings";
  clearSeeds(gRoot / "tests" / t);
  std::string defaults, dict = "# Knob names, choices and value words for fuzz_settings (written by fuzz_seeds).\n";
  for (const KnobSpec& k : knobTable()) {
    defaults += std::string(k.name) + "=" + k.defaultValue + "\n";
    dict += "\"" + std::string(k.name) + "=\"\n";
    if (k.choices) {
      std::stringstream choices(k.choices);
      for (std::string c; std::getline(choices, c, '|');) dict += "\"" + c + "\"\n";
    }
  }
  for (const char* w : {"all", "true", "off", "error", "warn", "info", "debug", "trace", "init", "config", "comm",
                        "shm", "offload", "service", "coll", "bench", "KiB", "M", "G", "ms", "us", "min", "h"})
    dict += "\"" + std::string(w) + "\"\n";
  write(t, "defaults", defaults);
  write(t, "examples",
        std::string("FERRY_LOG=debug,comm,offload\nFERRY_TIMEOUT=2m\nFERRY_CHUNK_SIZE=64KiB\nFERRY_GPUS_PER_RANK=all\n"
                    "FERRY_SHM= CMA \nFERRY_SPIN_TIME=0\nFERRY_EAGER_LIMIT=32768\nFERRY_RANK0_DEVICES=yes\n"));
  write(t, "invalid",
        std::string("FERRY_LOG=coll,debug\nFERRY_TIMOUT=5s\nferry_timeout=5s\nFERRY_VIRTUAL_NODES=0x10\n"
                    "FERRY_DEVICE_MEMORY=18446744073709551616\nFERRY_HEARTBEAT=1e3\nFERRY_COLL=maybe\nFERRY_PIPELINE_DEPTH\n"));
  std::ofstream(gRoot / "tests/platform/corpus/settings.dict") << dict;
}

// ---- benchmark records: the lines bench/offload/report.c and bench/xs print ----------------

void benchRecordSeeds() {
  const std::string t = "tools/corpus/bench_records";
  clearSeeds(gRoot / "tests" / t);
  write(t, "offload",
        std::string("{\"device\":0,\"rank\":1,\"node\":0,\"host\":\"node-1\"}\n"
                    "{\"test\":\"empty\",\"size\":0,\"series\":\"ferry\",\"value\":12.5,\"unit\":\"us\",\"iters\":1000}\n"
                    "{\"test\":\"mpi_rtt\",\"size\":1,\"series\":\"mpi\",\"value\":3.25,\"unit\":\"us\",\"iters\":1000}\n"
                    "{\"test\":\"mpi_pingpong\",\"size\":4096,\"series\":\"mpi\",\"value\":9,\"unit\":\"us\",\"iters\":100}\n"
                    "{\"test\":\"map_to_lat\",\"size\":4096,\"series\":\"ferry\",\"value\":20,\"unit\":\"us\",\"iters\":100}\n"
                    "{\"counter\":\"messages\",\"test\":\"empty\",\"value\":2000}\n"
                    "{\"validation\":{\"checks\":12,\"failures\":0}}\n"));
  write(t, "xs",
        std::string("{\"run\":{\"devices\":2,\"nuclides\":68,\"gridpoints\":1000,\"lookups\":100000,\"weak_lookups\":"
                    "50000,\"trials\":3,\"seed\":42,\"problem_bytes\":1048576}}\n"
                    "{\"test\":\"setup\",\"size\":0,\"series\":\"ferry\",\"value\":0.0123,\"unit\":\"s\",\"iters\":1}\n"
                    "{\"xs\":\"strong\",\"devices\":1,\"seconds\":0.5}\n"
                    "{\"validation\":{\"checks\":4,\"failures\":1}}\n"));
  write(t, "cut", std::string("{\"test\":\"empty\",\"size\":0,\"series\":\"ferry\",\"val"));
}

// ---- /proc/PID/maps: of plain processes (this one's would show the sanitizers' shadow) ------

std::string firstLines(const std::string& command, int n) {
  std::string out;
  if (FILE* p = popen(command.c_str(), "r")) {
    char line[4096];
    while (n-- > 0 && std::fgets(line, sizeof line, p)) out += line;
    pclose(p);
  }
  return out;
}

void hostMapsSeeds() {
  const std::string t = "service/corpus/host_maps";
  clearSeeds(gRoot / "tests" / t);
  std::string cat = firstLines("cat /proc/self/maps", 24);
  std::string shell = firstLines("cat /proc/" + std::to_string(getppid()) + "/maps", 24);
  write(t, "cat-shell", cat + "\n" + shell);
  write(t, "same", cat + "\n" + cat);
}

// ---- device images, from real programs ------------------------------------------------------


struct Container {
  Bytes bytes;   // the whole OffloadBinary
  Bytes elf;     // the image inside it
  std::string triple;
};

std::vector<Container> containersOf(const std::string& program) {
  Bytes file = readFile(program);
  std::span<const uint8_t> section = service::findElfSection(file.data(), file.size(), ".llvm.offloading");
  std::vector<Container> out;
  for (size_t off = 0; off < section.size();) {
    auto bin = service::parseOffloadBinary(section.subspan(off));
    if (!bin) {
      off += 8;
      continue;
    }
    auto whole = section.subspan(off, bin->size);
    out.push_back({Bytes(whole.begin(), whole.end()), Bytes(bin->image.begin(), bin->image.end()),
                   std::string(bin->triple)});
    off += (bin->size + 7) / 8 * 8;
  }
  return out;
}

// The kernels and globals a real image exports, as the host's entry table names them.
std::vector<service::ImageEntry> entriesOf(const Bytes& elf) {
  std::vector<service::ImageEntry> out;
  service::findElfSymbol(elf.data(), elf.size(), SHT_DYNSYM, [&](std::string_view name, uint64_t size, bool defined) {
    if (defined && name.starts_with("__omp_offloading_")) out.push_back({std::string(name), size, 0});
    return false;
  });
  return out;
}

// The image's machine, from its triple: each container of a fat binary gets a seed of its own.
std::string kindOf(const Container& c) {
  for (const char* machine : {"nvptx64", "aarch64", "x86_64"})
    if (c.triple.starts_with(machine)) return machine;
  return "other";
}

void imageSeeds(const std::vector<std::string>& programs) {
  const std::string bin = "service/corpus/offload_binary", img = "service/corpus/image", host = "offload/corpus/host_image";
  for (const std::string& t : {bin, img, host}) clearSeeds(gRoot / "tests" / t);
  for (const std::string& program : programs) {
    std::string stem = fs::path(program).filename().string();
    Bytes file = readFile(program);
    std::span<const uint8_t> section = service::findElfSection(file.data(), file.size(), ".llvm.offloading");
    if (section.empty()) {
      std::fprintf(stderr, "fuzz_seeds: %s has no .llvm.offloading section\n", program.c_str());
      std::exit(1);
    }
    write(bin, stem + "-section", section.data(), section.size());
    for (const Container& c : containersOf(program)) {
      std::string name = stem + "-" + kindOf(c);
      write(bin, name, c.bytes);
      write(host, name + "-container", c.bytes);
      write(host, name + "-elf", c.elf);
      write(img, name + "-elf", c.elf);
      service::ImageRecord rec{service::imageHash(c.elf.data(), c.elf.size()), c.elf, entriesOf(c.elf)};
      write(img, name + "-packed", service::packImage(rec));
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s SOURCE_DIR PROGRAM...\n", argv[0]);
    return 2;
  }
  gRoot = argv[1];
  protocolSeeds();
  deviceTableSeeds();
  settingsSeeds();
  benchRecordSeeds();
  hostMapsSeeds();
  imageSeeds(std::vector<std::string>(argv + 2, argv + argc));
  return 0;
}
