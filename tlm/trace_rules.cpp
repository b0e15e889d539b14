#include "tlm/trace_rules.h"

#include <stdexcept>

#include "tlm/event_log.h"

namespace dpusim::pcie {

TraceTemplate::TraceTemplate(std::string_view text) : text_(text) {
  size_t i = 0;
  while (i < text.size()) {
    const size_t open = text.find('{', i);
    const size_t close_before = text.find('}', i);
    if (close_before < open) throw std::invalid_argument("trace template '" + text_ + "': '}' without '{'");
    if (open == std::string_view::npos) {
      parts_.push_back({Kind::Literal, std::string(text.substr(i))});
      break;
    }
    if (open > i) parts_.push_back({Kind::Literal, std::string(text.substr(i, open - i))});
    const size_t close = text.find('}', open);
    if (close == std::string_view::npos) throw std::invalid_argument("trace template '" + text_ + "': '{' without '}'");
    const std::string_view name = text.substr(open + 1, close - open - 1);
    if (name.empty() || name.find('{') != std::string_view::npos)
      throw std::invalid_argument("trace template '" + text_ + "': an empty or nested placeholder");
    if (name == "path") parts_.push_back({Kind::Path, {}});
    else if (name == "path.head") parts_.push_back({Kind::PathHead, {}});
    else if (name == "path.tail") parts_.push_back({Kind::PathTail, {}});
    else if (name == "event") parts_.push_back({Kind::Event, {}});
    else parts_.push_back({Kind::Field, std::string(name)});
    i = close + 1;
  }
}

void TraceTemplate::render(const EventView& e, std::string& out) const {
  for (const Part& p : parts_) {
    switch (p.kind) {
      case Kind::Literal: out.append(p.text); break;
      case Kind::Path: out.append(e.path()); break;
      case Kind::PathHead: out.append(e.path().substr(0, e.path().find('.'))); break;
      case Kind::PathTail: {
        const size_t dot = e.path().find('.');
        out.append(dot == std::string_view::npos ? std::string_view("events") : e.path().substr(dot + 1));
        break;
      }
      case Kind::Event: out.append(e.name()); break;
      case Kind::Field: {
        const std::string_view raw = e.raw(p.text);
        if (raw.empty()) out.push_back('?');
        else EventView::append_text(out, raw);
        break;
      }
    }
  }
}

TraceRule TraceRule::instant(std::string event, std::string process, std::string thread, std::string name) {
  TraceRule r;
  r.event = std::move(event);
  r.process = std::move(process);
  r.thread = std::move(thread);
  r.name = std::move(name);
  return r;
}

TraceRule TraceRule::begin(std::string event, std::string key, std::string process, std::string thread,
                           std::string name) {
  TraceRule r = instant(std::move(event), std::move(process), std::move(thread), std::move(name));
  r.kind = TraceKind::Begin;
  r.key = std::move(key);
  return r;
}

TraceRule TraceRule::end(std::string event, std::string key) {
  TraceRule r;
  r.event = std::move(event);
  r.kind = TraceKind::End;
  r.key = std::move(key);
  return r;
}

TraceRule TraceRule::state(std::string event, std::string process, std::string thread, std::string name) {
  TraceRule r = instant(std::move(event), std::move(process), std::move(thread), std::move(name));
  r.kind = TraceKind::State;
  return r;
}

TraceRule TraceRule::span(std::string event, std::string from, std::string to, std::string process,
                          std::string thread, std::string name) {
  TraceRule r = instant(std::move(event), std::move(process), std::move(thread), std::move(name));
  r.kind = TraceKind::Span;
  r.from = std::move(from);
  r.to = std::move(to);
  return r;
}

TraceRule TraceRule::ignore(std::string event) {
  TraceRule r;
  r.event = std::move(event);
  r.kind = TraceKind::Ignore;
  return r;
}

TraceRule& TraceRule::only_when(std::string field, std::string value) {
  when_field = std::move(field);
  when_value = std::move(value);
  return *this;
}

TraceRule& TraceRule::nested() {
  lanes = false;
  return *this;
}

TraceRule& TraceRule::in_category(std::string c) {
  category = std::move(c);
  return *this;
}

namespace {
bool same_rule(const TraceRule& a, const TraceRule& b) {
  return a.kind == b.kind && a.process == b.process && a.thread == b.thread && a.name == b.name && a.key == b.key &&
         a.from == b.from && a.to == b.to && a.when_field == b.when_field && a.when_value == b.when_value &&
         a.lanes == b.lanes && a.category == b.category;
}
}  // namespace

TraceRules::TraceRules() {
  add_handler({"tlp", "cpl_timeout"}, make_tlp_trace);
  // A log line is an instant on its thread's track, named by its message.
  add(TraceRule::instant("log", "{path.head}", "{path.tail}", "{msg}"));
  add(TraceRule::state("link_state", "PCIe links", "{path} state", "up={up}"));
  add(TraceRule::instant("reg_write", "{path.head}", "{path.tail}", "reg_write {reg}"));
}

void TraceRules::add(const TraceRule& r) {
  const std::string what = "trace rule for event '" + r.event + "'";
  if (r.event.empty()) throw std::invalid_argument("trace rule without an event name");
  if ((r.kind == TraceKind::Begin || r.kind == TraceKind::End) && r.key.empty())
    throw std::invalid_argument(what + ": Begin and End need a key");
  if (r.kind == TraceKind::Span && (r.from.empty() || r.to.empty()))
    throw std::invalid_argument(what + ": Span needs the fields `from` and `to`");
  if (r.when_field.empty() != r.when_value.empty())
    throw std::invalid_argument(what + ": `when` needs both a field and a value");
  Compiled c;
  try {
    c = Compiled{r, TraceTemplate(r.process), TraceTemplate(r.thread), TraceTemplate(r.name), TraceTemplate(r.key)};
  } catch (const std::invalid_argument& e) {
    throw std::invalid_argument(what + ": " + e.what());
  }
  auto& list = entries_[r.event].rules;
  for (const Compiled& old : list)
    if (same_rule(old.rule, r)) return;
  list.push_back(std::move(c));
}

void TraceRules::add_handler(std::vector<std::string> events, Factory factory) {
  const int index = int(factories_.size());
  factories_.push_back(std::move(factory));
  for (auto& e : events) entries_[std::move(e)].handler = index;
}

const TraceRules::Entry* TraceRules::find(std::string_view event) const {
  const auto it = entries_.find(event);
  return it == entries_.end() ? nullptr : &it->second;
}

const std::vector<TraceRules::Compiled>* TraceRules::rules_for(std::string_view event) const {
  const Entry* e = find(event);
  return e && !e->rules.empty() ? &e->rules : nullptr;
}

}  // namespace dpusim::pcie
