// The one registry of FERRY_* settings (and of the SHMEM_* names the OpenSHMEM standard
// defines, which the library honours under their own names). Every knob is declared once, in config_table.cpp,
// with its type, default and help text; `ferry info --config` prints that table.
// Invalid values are rejected with a message that names the variable, and FERRY_* names
// that are not in the table draw a warning with the closest known name.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "platform/status.h"

namespace ferry {

enum class KnobType : uint8_t { Bool, Int, Count, Size, Duration, Enum, String };

// Index into the registry. Keep in the same order as kKnobTable (checked at compile time).
enum class Knob : uint16_t {
  Log,
  LogFile,
  Timeout,
  Heartbeat,
  SpinTime,
  VirtualNodes,
  DevicesPerRank,
  GpusPerRank,
  Rank0Devices,
  CpuStaging,
  DeviceMemory,
  DeviceRetain,
  NodeShare,
  NodeShareMin,
  StagingRetain,
  EagerLimit,
  ChunkSize,
  PipelineDepth,
  Shm,
  Trace,
  DeviceOutput,
  UnmappedAccess,
  UsmFaultAround,
  UsmWriteBack,
  // Binding of ranks and their threads (platform/binding.h; docs/hybrid.md).
  Bind,
  BindingReport,
  // Collectives (src/coll; docs/collectives.md).
  CollMode,
  CollMinSize,
  CollStagedPerRank,
  CollChunkSize,
  CollDepth,
  CollIntra,
  CollInter,
  CollHalvingMin,
  CollLeaders,
  CollAllocMem,
  CollRegCache,
  // OpenSHMEM (src/shmem; docs/shmem.md): the standard's own SHMEM_* names.
  ShmemSymmetricSize,
  ShmemVersion,
  ShmemInfo,
  ShmemDebug,
  ShmemContextWindows,
  Remote,
  RemoteTokenFile,
  RemoteTls,
  RemoteTlsCa,
  RemoteTlsVerify,
  ServeMaxClients,
  ServeMaxImage,
  ServeMaxMemory,
  // Read by the scripts only (scripts/test.sh, fuzz.sh, sanitize.sh), listed so that a value
  // set for them is no unknown setting to the jobs they run.
  TestJobs,
  FuzzDir,
  Count_  // number of knobs; not a knob
};

struct KnobSpec {
  Knob key;
  const char* name;
  KnobType type;
  const char* defaultValue;
  const char* choices;  // Enum: "a|b|c"; otherwise nullptr
  int64_t min, max;     // Int/Count/Size bounds (inclusive); Duration in milliseconds
  const char* subsystem;
  const char* help;
  Status (*check)(std::string_view text) = nullptr;  // String: what makes a value valid
};

std::span<const KnobSpec> knobTable();
const KnobSpec& knobSpec(Knob k);
const char* knobTypeName(KnobType t);

// A parsed, validated snapshot of the environment.
class Config {
 public:
  // One parsed value; the accessors below read the member that fits the knob's type.
  struct Value {
    int64_t i = 0;
    double d = 0;
    std::string s;
    bool fromEnv = false;
    std::string raw;    // the environment's text, valid or not
    std::string error;  // why that text was rejected; the default is in effect then
  };

  // Parses `env` entries ("NAME=VALUE"). Never fails: a knob whose value is invalid keeps
  // its default and records the text and the error (rawText(), error(), status()). Unknown
  // FERRY_* names are returned as warnings.
  static Config parse(std::span<const std::string> env);
  // parse(), failing with one message per invalid variable where there is any.
  static Result<Config> fromEntries(std::span<const std::string> env);
  // The FERRY_* (and SHMEM_*) entries of this process's environment.
  static std::vector<std::string> environmentEntries();
  static Config defaults();

  bool flag(Knob k) const { return values_[idx(k)].i != 0; }
  int64_t integer(Knob k) const { return values_[idx(k)].i; }
  uint64_t size(Knob k) const { return static_cast<uint64_t>(values_[idx(k)].i); }
  double seconds(Knob k) const { return values_[idx(k)].d; }
  const std::string& text(Knob k) const { return values_[idx(k)].s; }
  // Count knobs: "all" is stored as -1.
  bool isAll(Knob k) const { return values_[idx(k)].i == -1; }
  // Whether the value came from the environment rather than the default.
  bool isSet(Knob k) const { return values_[idx(k)].fromEnv; }
  const std::vector<std::string>& warnings() const { return warnings_; }
  // The text the environment gave, valid or not ("" where unset), and why it was rejected
  // ("" where it was not).
  const std::string& rawText(Knob k) const { return values_[idx(k)].raw; }
  const std::string& error(Knob k) const { return values_[idx(k)].error; }
  // Every invalid value's error, joined; OK where there is none.
  Status status() const;

 private:
  static size_t idx(Knob k) { return static_cast<size_t>(k); }
  Config();
  // Parses one "NAME=VALUE" entry of a known knob into its value (or its error).
  void take(const KnobSpec& spec, const std::string& entry);
  std::vector<Value> values_;
  std::vector<std::string> warnings_;

  friend Status parseKnobValue(const KnobSpec& spec, std::string_view text, Config::Value& out);
};

Status parseKnobValue(const KnobSpec& spec, std::string_view text, Config::Value& out);

// Process-wide configuration. initGlobalConfig() parses the environment once and is
// idempotent; each entry point (plugin, CLI, libraries) calls it and reports the error.
// Invalid values keep their defaults in config(); the valid ones are in effect.
Status initGlobalConfig();
const Config& config();
// For tests: replace the process-wide configuration.
void setGlobalConfigForTesting(const Config& cfg);

}  // namespace ferry
