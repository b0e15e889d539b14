#include "tlm/log_filter.h"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace dpusim::pcie {

namespace {
std::vector<const EventCategory*>& categories() {
  static std::vector<const EventCategory*> table;
  return table;
}
// Event name -> category, looked up only (never iterated).
std::map<std::string, const EventCategory*, std::less<>>& kinds() {
  static std::map<std::string, const EventCategory*, std::less<>> table;
  return table;
}

std::string known_categories() {
  std::vector<std::string> names;
  for (const EventCategory* c : categories()) names.emplace_back(c->name());
  std::sort(names.begin(), names.end());
  std::string s;
  for (const std::string& n : names) s += (s.empty() ? "" : ", ") + n;
  return s;
}
}  // namespace

EventCategory::EventCategory(const char* name, bool in_summary, const char* what)
    : name_(name), in_summary_(in_summary), what_(what) {
  if (find(name)) throw std::logic_error(std::string("event category '") + name + "' declared twice");
  if (categories().size() >= 64) throw std::logic_error("more than 64 event categories");
  index_ = unsigned(categories().size());
  categories().push_back(this);
}

const std::vector<const EventCategory*>& EventCategory::all() { return categories(); }

const EventCategory* EventCategory::find(std::string_view name) {
  for (const EventCategory* c : categories())
    if (name == c->name()) return c;
  return nullptr;
}

namespace category {
const EventCategory tlp("tlp", false, "every TLP on every link (event tlp), with its hop times");
const EventCategory dma("dma", false, "direct memory accesses of loosely timed (lt) requesters (event dma)");
const EventCategory state("state", true, "everything not in another category: state changes, register writes, "
                                         "work items, resets, errors, violations");
const EventCategory log("log", true, "log lines of the scenario and of the modelled applications (event log)");
}  // namespace category

EventKind::EventKind(const char* name, const EventCategory& category) : name_(name), category_(&category) {
  auto [it, fresh] = kinds().emplace(name, &category);
  if (!fresh && it->second != &category)
    throw std::logic_error(std::string("event '") + name + "' declared in two categories");
}

const EventCategory& EventKind::category_of(std::string_view name) {
  const auto& table = kinds();
  auto it = table.find(name);
  if (it != table.end()) return *it->second;
  return name == "log" ? category::log : category::state;
}

const char* log_level_name(LogLevel l) {
  switch (l) {
    case LogLevel::All: return "all";
    case LogLevel::Summary: return "summary";
    case LogLevel::None: return "none";
  }
  return "?";
}

LogLevel LogFilter::parse_level(const std::string& name) {
  if (name == "all") return LogLevel::All;
  if (name == "summary") return LogLevel::Summary;
  if (name == "none") return LogLevel::None;
  throw std::invalid_argument("log level '" + name + "' is not all, summary or none");
}

void LogFilter::check() const {
  if (level == LogLevel::None && (!keep.empty() || !omit.empty()))
    throw std::invalid_argument("log categories to keep or omit make no sense with level none (nothing is written)");
  for (const auto* list : {&keep, &omit})
    for (const std::string& c : *list)
      if (!EventCategory::find(c))
        throw std::invalid_argument("unknown event category '" + c + "' (known: " + known_categories() + ")");
}

uint64_t LogFilter::mask() const {
  uint64_t m = 0;
  for (const EventCategory* c : categories())
    if (level == LogLevel::All || c->in_summary()) m |= c->bit();
  for (const std::string& c : keep) m |= EventCategory::find(c)->bit();
  for (const std::string& c : omit) m &= ~EventCategory::find(c)->bit();
  return m;
}

std::string LogFilter::describe() const {
  std::string s = log_level_name(level);
  for (const std::string& c : keep) s += ", keep " + c;
  for (const std::string& c : omit) s += ", omit " + c;
  return s;
}

}  // namespace dpusim::pcie
