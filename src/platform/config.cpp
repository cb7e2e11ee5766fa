#include "platform/config.h"

#include <string.h>
#include <strings.h>

#include <algorithm>
#include <cctype>
#include <mutex>
#include <memory>
#include <optional>
#include <vector>

#include "platform/parse.h"

extern char** environ;

namespace ferry {
namespace {

std::string describeExpected(const KnobSpec& spec) {
  switch (spec.type) {
    case KnobType::Bool: return "a boolean (1/0, true/false, yes/no, on/off)";
    case KnobType::Int: return "an integer from " + std::to_string(spec.min) + " to " + std::to_string(spec.max);
    case KnobType::Count:
      return "'all' or an integer from " + std::to_string(spec.min) + " to " + std::to_string(spec.max);
    case KnobType::Size:
      return "a size such as 4096, 64K or 1M" +
             (spec.min > 0 ? ", at least " + parse::formatSize(spec.min) : std::string()) +
             (spec.max == INT64_MAX ? std::string() : ", at most " + parse::formatSize(spec.max));
    case KnobType::Duration:
      return "a duration such as 500ms, 30s, 2m or 1h, from " + parse::formatSeconds(spec.min / 1e3) + " to " +
             parse::formatSeconds(spec.max / 1e3);
    case KnobType::Enum: return std::string("one of ") + spec.choices;
    case KnobType::String: return "a string";
  }
  return "?";
}

bool enumContains(const char* choices, std::string_view v) {
  std::string_view all(choices);
  while (!all.empty()) {
    size_t bar = all.find('|');
    if (all.substr(0, bar) == v) return true;
    if (bar == std::string_view::npos) break;
    all.remove_prefix(bar + 1);
  }
  return false;
}

std::string closestKnob(std::string_view name) {
  std::string best;
  size_t bestDist = SIZE_MAX;
  for (const auto& spec : knobTable()) {
    size_t d = parse::editDistance(name, spec.name);
    if (d < bestDist) { bestDist = d; best = spec.name; }
  }
  // A fixed bound would pair any short name with some knob (FERRY_BOGUS with FERRY_LOG, four
  // edits away); a third of the typed name's own part still catches typos and missing '_'.
  size_t own = name.size() > 6 ? name.size() - 6 : 0;
  return bestDist <= std::max<size_t>(1, own / 3) ? best : std::string();
}

// The knob a variable names in another case (ferry_timeout: FERRY_TIMEOUT), else "".
std::string spelledInOtherCase(const std::string& entry) {
  std::string name = entry.substr(0, entry.find('='));
  std::string upper = name;
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  if (upper == name) return {};
  for (const auto& spec : knobTable())
    if (upper == spec.name) return upper;
  return {};
}

const KnobSpec* findKnob(const std::string& name) {
  for (const auto& s : knobTable())
    if (name == s.name) return &s;
  return nullptr;
}

}  // namespace

const char* knobTypeName(KnobType t) {
  switch (t) {
    case KnobType::Bool: return "bool";
    case KnobType::Int: return "int";
    case KnobType::Count: return "count";
    case KnobType::Size: return "size";
    case KnobType::Duration: return "duration";
    case KnobType::Enum: return "enum";
    case KnobType::String: return "string";
  }
  return "?";
}

Status parseKnobValue(const KnobSpec& spec, std::string_view text, Config::Value& out) {
  auto bad = [&] {
    return Status(Errc::InvalidArgument, std::string(spec.name) + "='" + std::string(text) +
                                             "' is invalid: expected " + describeExpected(spec));
  };
  out.s = std::string(text);
  switch (spec.type) {
    case KnobType::Bool: {
      auto v = parse::boolean(text);
      if (!v) return bad();
      out.i = *v;
      return {};
    }
    case KnobType::Count:
      if (parse::keyword(text) == "all") { out.i = -1; return {}; }
      [[fallthrough]];
    case KnobType::Int: {
      auto v = parse::integer(text);
      if (!v || *v < spec.min || *v > spec.max) return bad();
      out.i = *v;
      return {};
    }
    case KnobType::Size: {
      auto v = parse::size(text);
      if (!v || *v > static_cast<uint64_t>(spec.max) || *v < static_cast<uint64_t>(spec.min)) return bad();
      out.i = static_cast<int64_t>(*v);
      return {};
    }
    case KnobType::Duration: {
      auto v = parse::seconds(text);
      if (!v || *v * 1e3 < spec.min || *v * 1e3 > spec.max) return bad();
      out.d = *v;
      return {};
    }
    case KnobType::Enum:
      out.s = parse::keyword(text);  // what the settings' users compare with their choices
      if (!enumContains(spec.choices, out.s)) return bad();
      return {};
    case KnobType::String: {
      Status st = spec.check ? spec.check(text) : Status();
      // The message names the variable, as the other types' do, unless the check's already does.
      if (st || st.message().rfind(spec.name, 0) == 0) return st;
      return Status(st.code(), std::string(spec.name) + "=" + std::string(text) + ": " + st.message());
    }
  }
  return bad();
}

Config::Config() : values_(knobTable().size()) {}

Config Config::defaults() {
  Config cfg;
  for (const auto& spec : knobTable()) {
    Status st = parseKnobValue(spec, spec.defaultValue, cfg.values_[idx(spec.key)]);
    if (!st) std::abort();  // a bad default is a bug in the table; the unit tests catch it
  }
  return cfg;
}

Config Config::parse(std::span<const std::string> env) {
  Config cfg = defaults();
  for (const std::string& entry : env) {
    // The standard's SHMEM_* names are taken where the table lists them; others belong to
    // other OpenSHMEM libraries and are left alone.
    if (entry.rfind("SHMEM_", 0) == 0) {
      if (const KnobSpec* spec = findKnob(entry.substr(0, entry.find('=')))) cfg.take(*spec, entry);
      continue;
    }
    if (entry.rfind("FERRY_", 0) != 0) {
      if (std::string upper = spelledInOtherCase(entry); !upper.empty())
        cfg.warnings_.push_back(entry.substr(0, entry.find('=')) + " is ignored: settings are upper case (" + upper +
                                ")");
      continue;
    }
    std::string name = entry.substr(0, entry.find('='));
    const KnobSpec* spec = findKnob(name);
    if (!spec) {
      std::string hint = closestKnob(name);
      cfg.warnings_.push_back("unknown setting " + name + " is ignored" +
                              (hint.empty() ? std::string() : " (did you mean " + hint + "?)") +
                              "; `ferry info --config` lists the settings");
      continue;
    }
    cfg.take(*spec, entry);
  }
  return cfg;
}

void Config::take(const KnobSpec& spec, const std::string& entry) {
  size_t eq = entry.find('=');
  std::string value = eq == std::string::npos ? "" : entry.substr(eq + 1);
  Value& v = values_[idx(spec.key)];
  Value parsed;
  Status st = parseKnobValue(spec, value, parsed);
  if (st) {
    v = std::move(parsed);
    v.fromEnv = true;
  }
  v.raw = value;
  v.error = st ? std::string() : st.message();
}

Status Config::status() const {
  std::string errors;
  for (const Value& v : values_)
    if (!v.error.empty()) errors += (errors.empty() ? "" : "; ") + v.error;
  return errors.empty() ? Status() : Status(Errc::InvalidArgument, errors);
}

Result<Config> Config::fromEntries(std::span<const std::string> env) {
  Config cfg = parse(env);
  if (Status st = cfg.status(); !st) return st;
  return cfg;
}

std::vector<std::string> Config::environmentEntries() {
  std::vector<std::string> env;
  // Any case: a setting spelled ferry_timeout is warned about, not silently ignored.
  for (char** e = environ; e && *e; ++e)
    if (strncasecmp(*e, "FERRY_", 6) == 0 || strncmp(*e, "SHMEM_", 6) == 0) env.emplace_back(*e);
  return env;
}

namespace {
std::mutex gConfigMutex;
Config* gConfig = nullptr;  // never freed: plugins are called after static destructors ran
std::optional<Status> gConfigStatus;
}  // namespace

Status initGlobalConfig() {
  std::lock_guard lock(gConfigMutex);
  if (gConfigStatus) return *gConfigStatus;
  // An invalid value keeps its default and fails the status, which every entry point
  // reports; the valid ones stay in effect, so that FERRY_LOG, say, shows that error as
  // asked, and unknown names are still warned about.
  gConfig = new Config(Config::parse(Config::environmentEntries()));
  gConfigStatus = gConfig->status();
  return *gConfigStatus;
}

const Config& config() {
  if (!gConfig) (void)initGlobalConfig();
  return *gConfig;
}

void setGlobalConfigForTesting(const Config& cfg) {
  std::lock_guard lock(gConfigMutex);
  // The configuration replaced stays valid, as config() promises (a reference to it may be in
  // use), and owned: dropped, each replacement leaked (LeakSanitizer).
  static auto* replaced = new std::vector<std::unique_ptr<Config>>();
  if (gConfig) replaced->emplace_back(gConfig);
  gConfig = new Config(cfg);
  gConfigStatus = Status();
}

}  // namespace ferry
