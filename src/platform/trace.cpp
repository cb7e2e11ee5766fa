#include "platform/trace.h"

#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <vector>

namespace ferry::trace {
namespace detail {
std::atomic<bool> gEnabled{false};
}

namespace {

struct Event {
  const char* category;
  std::string name;
  uint64_t startNs, endNs;
  uint32_t tid;
  Arg args[3];
  uint8_t numArgs;
};

struct Buffer {
  std::mutex mutex;
  std::vector<Event> events;
  std::map<uint32_t, std::string> threadNames;
};

Buffer& buffer() {
  static Buffer* b = new Buffer();  // never destroyed: events are taken at exit
  return *b;
}

uint32_t threadId() {
  static std::atomic<uint32_t> next{1};
  thread_local uint32_t id = next.fetch_add(1);
  return id;
}

}  // namespace

void enable() { detail::gEnabled.store(true); }

void record(const char* category, std::string name, uint64_t startNs, uint64_t endNs, std::initializer_list<Arg> args) {
  Event e{category, std::move(name), startNs, endNs, threadId(), {}, 0};
  for (const Arg& a : args)
    if (e.numArgs < 3) e.args[e.numArgs++] = a;
  Buffer& b = buffer();
  std::lock_guard lock(b.mutex);
  b.events.push_back(std::move(e));
}

void nameThread(const char* name) {
  Buffer& b = buffer();
  std::lock_guard lock(b.mutex);
  b.threadNames[threadId()] = name;
}

std::string takeJson(int rank, int64_t offsetNs, const std::string& processName) {
  Buffer& b = buffer();
  std::vector<Event> events;
  std::map<uint32_t, std::string> names;
  {
    std::lock_guard lock(b.mutex);
    events.swap(b.events);
    names = b.threadNames;
  }
  std::string out;
  auto append = [&](const nlohmann::json& j) {
    if (!out.empty()) out += ",\n";
    out += j.dump();
  };
  append({{"name", "process_name"}, {"ph", "M"}, {"pid", rank}, {"tid", 0}, {"args", {{"name", processName}}}});
  append({{"name", "process_sort_index"}, {"ph", "M"}, {"pid", rank}, {"tid", 0}, {"args", {{"sort_index", rank}}}});
  for (const auto& [tid, name] : names)
    append({{"name", "thread_name"}, {"ph", "M"}, {"pid", rank}, {"tid", tid}, {"args", {{"name", name}}}});
  for (const Event& e : events) {
    nlohmann::json args = nlohmann::json::object();
    for (uint8_t i = 0; i < e.numArgs; ++i) args[e.args[i].key] = e.args[i].value;
    // Chrome-trace times are microseconds; fractions keep nanosecond detail.
    double ts = static_cast<double>(static_cast<int64_t>(e.startNs) - offsetNs) / 1000.0;
    double dur = static_cast<double>(e.endNs - e.startNs) / 1000.0;
    append({{"name", e.name}, {"cat", e.category}, {"ph", "X"}, {"ts", ts}, {"dur", dur}, {"pid", rank},
            {"tid", e.tid}, {"args", args}});
  }
  return out;
}

}  // namespace ferry::trace
