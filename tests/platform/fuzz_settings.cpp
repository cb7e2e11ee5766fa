// Input: a process environment, one NAME=VALUE entry per line, as every Ferry process reads
// it at start-up (Config::environmentEntries): whoever starts the job sets it, from a shell,
// a batch script, `mpirun -x` or a launcher that forwards its own. The registry parses every
// FERRY_* entry (parseKnobValue, by the knob's type), FERRY_LOG with the log spec parser,
// and suggests names for unknown ones (edit distance).
//
// Properties: nothing crashes; a value the registry accepts lies within its knob's bounds or
// choices; what one knob parser accepts, parsing the same text again gives the same value.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fuzz_check.h"
#include "platform/config.h"
#include "platform/log.h"
#include "platform/parse.h"

namespace {
using namespace ferry;

// At most kMaxEntries: an unknown FERRY_* name costs an edit distance to every knob's name,
// which coverage tracing makes slow, and more entries only repeat the same parse.
constexpr size_t kMaxEntries = 8;

std::vector<std::string> entries(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty() && out.size() < kMaxEntries) {
    size_t nl = text.find('\n');
    out.emplace_back(text.substr(0, nl));
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  return out;
}

bool enumHas(std::string_view choices, std::string_view v) {
  for (size_t at = 0; at <= choices.size();) {
    size_t bar = choices.find('|', at);
    if (choices.substr(at, bar == std::string_view::npos ? bar : bar - at) == v) return true;
    if (bar == std::string_view::npos) break;
    at = bar + 1;
  }
  return false;
}

// What the accessors of Config hand to the rest of Ferry must respect the table.
void checkAccepted(const KnobSpec& spec, const Config::Value& v) {
  switch (spec.type) {
    case KnobType::Bool: FUZZ_CHECK(v.i == 0 || v.i == 1, "a boolean knob holds another value"); break;
    case KnobType::Count:
      if (v.i == -1) break;  // "all"
      [[fallthrough]];
    case KnobType::Int:
    case KnobType::Size: FUZZ_CHECK(v.i >= spec.min && v.i <= spec.max, "a knob holds a value outside its bounds"); break;
    case KnobType::Duration:
      FUZZ_CHECK(v.d * 1e3 >= spec.min && v.d * 1e3 <= spec.max, "a duration knob holds a value outside its bounds");
      break;
    case KnobType::Enum: FUZZ_CHECK(enumHas(spec.choices, v.s), "an enum knob holds no choice of its own"); break;
    case KnobType::String: break;
  }
}

// Every knob's parser on the same text, twice: parsing is a function of the text alone.
void parseAsEveryKnob(std::string_view text) {
  for (const KnobSpec& spec : knobTable()) {
    Config::Value first, second;
    Status st = parseKnobValue(spec, text, first);
    Status again = parseKnobValue(spec, text, second);
    FUZZ_CHECK(st.isOk() == again.isOk(), "a knob parser changed its mind");
    if (!st) {
      FUZZ_CHECK(st.code() == Errc::InvalidArgument && !st.message().empty(), "a refusal says nothing");
      continue;
    }
    FUZZ_CHECK(first.i == second.i && first.d == second.d && first.s == second.s, "a knob parser changed its value");
    checkAccepted(spec, first);
  }
}

// The registry over the whole environment, and the values in effect as Ferry reads them.
void parseEnvironment(const std::vector<std::string>& env) {
  Config cfg = Config::parse(env);
  for (const KnobSpec& spec : knobTable()) {
    Config::Value v;
    v.i = cfg.integer(spec.key);
    v.d = cfg.seconds(spec.key);
    v.s = cfg.text(spec.key);
    checkAccepted(spec, v);
  }
  (void)cfg.status();
}

// The value syntaxes on their own, and the formatters the messages print their results with.
void parseValueSyntaxes(std::string_view text) {
  if (auto v = parse::size(text)) (void)parse::formatSize(*v);
  if (auto v = parse::seconds(text); v && *v >= 0) (void)parse::formatSeconds(*v);
  (void)parse::integer(text);
  (void)parse::boolean(text);
  Status st = log::checkSpec(text);
  FUZZ_CHECK(st.isOk() || st.code() == Errc::InvalidArgument, "the log spec parser failed oddly");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<std::string> env = entries(text);
  parseEnvironment(env);
  // One value per line: the first line's text as every knob's value (the whole input would
  // only repeat the same parsers on text that no knob accepts).
  std::string_view first = env.empty() ? std::string_view() : std::string_view(env.front());
  if (size_t eq = first.find('='); eq != std::string_view::npos) first.remove_prefix(eq + 1);
  parseAsEveryKnob(first);
  parseValueSyntaxes(first);
  return 0;
}
